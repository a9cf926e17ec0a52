package exr

import (
	"bytes"
	"fmt"
	"io"
)

// ResumeWriter continues a file whose first lines lines (a multiple of LinesPerChunk, or all
// of them) were written by a Writer for the same header, starting at offset 0 of f, and whose
// size is at least end, that Writer's Offset() then. It checks that the file's header is the
// one h gives, rebuilds the offset table from the chunk headers between the table and end
// (their lines in order, their sizes within bounds, the last ending exactly at end), checks
// that the last chunk decompresses, and returns a Writer positioned at end. When f has a
// Truncate(int64) error method, bytes past end are cut off first.
func ResumeWriter(f interface {
	io.WriteSeeker
	io.ReaderAt
}, h Header, lines int, end int64) (*Writer, error) {
	w, hdr, err := newWriter(f, h)
	if err != nil {
		return nil, err
	}
	if lines < 0 || lines > h.Height || lines%LinesPerChunk != 0 && lines != h.Height {
		return nil, fmt.Errorf("exr: resume after %d lines: not a multiple of %d within the height %d", lines, LinesPerChunk, h.Height)
	}
	if end < w.end {
		return nil, fmt.Errorf("exr: resume at byte %d, before the end of the offset table at %d", end, w.end)
	}
	got := make([]byte, len(hdr))
	if _, err := f.ReadAt(got, 0); err != nil {
		return nil, fmt.Errorf("exr: resume: reading the header: %v", err)
	}
	if !bytes.Equal(got, hdr) {
		return nil, fmt.Errorf("exr: resume: the file's header is not the one this image would have")
	}
	rd := &Reader{r: f, size: end, h: w.h, compression: compZIP, lpc: LinesPerChunk, bpl: w.bpl}
	rd.h.Channels = w.sorted
	pos := w.end
	n := (lines + LinesPerChunk - 1) / LinesPerChunk
	for c := range n {
		var hd [8]byte
		if pos > end-8 {
			return nil, fmt.Errorf("exr: resume: chunk %d at byte %d passes the end %d", c, pos, end)
		}
		if _, err := f.ReadAt(hd[:], pos); err != nil {
			return nil, fmt.Errorf("exr: resume: reading chunk %d at byte %d: %v", c, pos, err)
		}
		if y := int32(le.Uint32(hd[:])); int(y) != c*LinesPerChunk {
			return nil, fmt.Errorf("exr: resume: chunk %d at byte %d starts at line %d, not %d", c, pos, y, c*LinesPerChunk)
		}
		raw := int64(min(LinesPerChunk, h.Height-c*LinesPerChunk) * w.bpl)
		packed := int64(int32(le.Uint32(hd[4:])))
		if packed <= 0 || packed > raw || packed > end-pos-8 {
			return nil, fmt.Errorf("exr: resume: chunk %d at byte %d: packed size %d out of bounds", c, pos, packed)
		}
		w.offsets[c] = uint64(pos)
		pos += 8 + packed
	}
	if pos != end {
		return nil, fmt.Errorf("exr: resume: the chunks of %d lines end at byte %d, not %d", lines, pos, end)
	}
	if n > 0 {
		for _, o := range w.offsets[:n] {
			rd.offsets = append(rd.offsets, int64(o))
		}
		raw := make([]byte, min(LinesPerChunk, h.Height-(n-1)*LinesPerChunk)*w.bpl)
		if _, _, err := rd.readChunk(n-1, raw, nil, nil); err != nil {
			return nil, fmt.Errorf("exr: resume: the last chunk is damaged: %v", err)
		}
	}
	if t, ok := f.(interface{ Truncate(int64) error }); ok {
		if err := t.Truncate(end); err != nil {
			return nil, fmt.Errorf("exr: resume: %v", err)
		}
	}
	if _, err := f.Seek(end, io.SeekStart); err != nil {
		return nil, fmt.Errorf("exr: resume: %v", err)
	}
	w.lines, w.end = lines, end
	return w, nil
}
