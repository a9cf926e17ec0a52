package export

import (
	"compress/flate"
	"fmt"
	"image"
	"io"
)

// PNGStream writes an 8-bit RGB PNG of a known size strip by strip, never holding the image:
// each strip's rows are filtered and deflated as one block ending in a sync flush, as the
// export writes its strips. Use NewPNGStream, WriteRows for every row in order, then Close.
type PNGStream struct {
	p             *pngWriter
	c             *blockCompressor
	width, height int
	rows          int // rows written so far
}

// NewPNGStream writes the PNG's header for a width x height image to w.
func NewPNGStream(w io.Writer, width, height int) (*PNGStream, error) {
	p, err := newPNGWriter(w, width, height, nil)
	if err != nil {
		return nil, err
	}
	c, err := newBlockCompressor(flate.BestSpeed)
	if err != nil {
		return nil, err
	}
	return &PNGStream{p: p, c: c, width: width, height: height}, nil
}

// WriteRows appends the rows of strip (width pixels wide, its rows the image's next ones;
// alpha is ignored).
func (s *PNGStream) WriteRows(strip *image.RGBA) error {
	n := strip.Rect.Dy()
	if strip.Rect.Dx() != s.width || s.rows+n > s.height {
		return fmt.Errorf("png: a strip of %dx%d after %d rows of %dx%d", strip.Rect.Dx(), n, s.rows, s.width, s.height)
	}
	if n == 0 {
		return nil
	}
	out, adler, raw, err := s.c.compress(strip, 1, s.width, 0, n)
	if err != nil {
		return err
	}
	s.rows += n
	return s.p.WriteBlock(out, adler, raw)
}

// Close ends the PNG; it fails when fewer rows than the height were written. It does not close
// the underlying writer.
func (s *PNGStream) Close() error {
	if s.rows != s.height {
		return fmt.Errorf("png: %d rows of %d written", s.rows, s.height)
	}
	return s.p.Close()
}
