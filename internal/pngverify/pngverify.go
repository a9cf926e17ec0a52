// Package pngverify checks a PNG file of any size in one streaming pass, without holding the
// image: the tests of Mandelscope's export use it to check every byte of what the exporter
// wrote (a 32K image included) and to read its rows back one at a time. It reads only 8-bit
// RGB, non-interlaced PNGs (what the exporter writes) and imports nothing of Mandelscope.
package pngverify

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// signature starts every PNG file.
const signature = "\x89PNG\r\n\x1a\n"

// maxKept is the largest chunk before the image data whose bytes Verify keeps (to read a
// tEXt chunk into Info.Text); longer chunks are streamed through the CRC and dropped.
const maxKept = 64 << 10

// MaxWidth is the widest image Verify reads (it holds two rows).
const MaxWidth = 1 << 24

// ErrNotPNG is returned for input that does not start with the PNG signature.
var ErrNotPNG = errors.New("png: not a PNG file (no signature)")

// Info is what Verify found in a PNG.
type Info struct {
	Width, Height int
	Chunks        int   // chunks in the file
	IDATChunks    int   // IDAT chunks
	Compressed    int64 // bytes of the zlib stream
	Raw           int64 // bytes of filtered rows
	// Text holds the tEXt chunks, before and after the image data, by key (those of at most
	// 64 KiB; longer ones are checked but not kept); a key given twice is refused.
	Text map[string]string
}

// Verify checks a PNG of any size in one streaming pass: the signature, the CRC of every
// chunk (whatever its length: chunks are streamed through the CRC, never held whole), IHDR
// (8-bit RGB, not interlaced), consecutive IDATs, the zlib stream and its Adler-32, the filter
// byte of each row, the row count, IEND and nothing after it. When row is not nil it is called
// with each unfiltered RGB row (valid only during the call).
func Verify(r io.Reader, row func(y int, rgb []byte)) (Info, error) {
	info := Info{Text: map[string]string{}}
	v := &chunkReader{r: bufio.NewReaderSize(r, 1<<16)}
	err := v.header(&info)
	if err == nil {
		err = v.beforeImage(&info)
	}
	if err == nil {
		err = v.imageData(&info, row)
	}
	if err == nil {
		err = v.afterImage(&info)
	}
	return info, err
}

// header reads the signature and IHDR into info.
func (v *chunkReader) header(info *Info) error {
	var sig [8]byte
	if _, err := io.ReadFull(v.r, sig[:]); err != nil || string(sig[:]) != signature {
		return ErrNotPNG
	}
	if err := v.next(); err != nil {
		return err
	}
	if v.typ != "IHDR" || v.left != 13 {
		return errors.New("png: first chunk is not IHDR")
	}
	data, err := v.rest()
	if err != nil {
		return err
	}
	info.Width, info.Height, err = parseIHDR(data)
	if err != nil {
		return err
	}
	info.Chunks = 1
	return nil
}

// parseIHDR returns the size IHDR's 13 bytes of data give, or why Verify cannot read the
// image: not 8-bit RGB, non-interlaced, or a size out of range (width 1 to MaxWidth, height
// 1 to 2^31-1). The size is returned with either error.
func parseIHDR(data []byte) (w, h int, err error) {
	w = int(binary.BigEndian.Uint32(data[0:]))
	h = int(binary.BigEndian.Uint32(data[4:]))
	if data[8] != 8 || data[9] != 2 || data[10] != 0 || data[11] != 0 || data[12] != 0 {
		return w, h, fmt.Errorf("png: IHDR is not 8-bit RGB, non-interlaced (%v)", data[8:])
	}
	if w < 1 || h < 1 || w > MaxWidth || h > 1<<31-1 {
		return w, h, fmt.Errorf("png: size %dx%d is out of range (width 1 to %d, height 1 to 2^31-1)", w, h, MaxWidth)
	}
	return w, h, nil
}

// beforeImage reads the chunks up to the first IDAT, keeping tEXt chunks in info.Text.
func (v *chunkReader) beforeImage(info *Info) error {
	for {
		if err := v.next(); err != nil {
			return err
		}
		info.Chunks++
		if v.typ == "IDAT" {
			return nil
		}
		if v.typ == "IEND" {
			return errors.New("png: no IDAT chunk")
		}
		d, err := v.rest()
		if err != nil {
			return err
		}
		if err := keepText(info, v.typ, d); err != nil {
			return err
		}
	}
}

// keepText keeps a tEXt chunk's key and value in info.Text, before or after the image data
// alike; a key given twice is an error (a reader that kept the first would see another file
// than one that kept the last).
func keepText(info *Info, typ string, d []byte) error {
	if typ != "tEXt" || d == nil {
		return nil
	}
	k, val, ok := bytes.Cut(d, []byte{0})
	if !ok {
		return nil
	}
	if _, dup := info.Text[string(k)]; dup {
		return fmt.Errorf("png: text chunk %q appears twice", string(k))
	}
	info.Text[string(k)] = string(val)
	return nil
}

// imageData reads the zlib stream the IDAT chunks hold, from the first one's data: every row
// (handed to row, unfiltered, when it is not nil) and the end of the stream, exactly after
// the last row.
func (v *chunkReader) imageData(info *Info, row func(y int, rgb []byte)) error {
	zr, err := zlib.NewReader(v)
	if err != nil {
		return fmt.Errorf("png: zlib header: %v", err)
	}
	if err := readRows(zr, info, row); err != nil {
		return err
	}
	var one [1]byte
	if n, err := zr.Read(one[:]); n != 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			return errors.New("png: more image data than the rows need")
		}
		return fmt.Errorf("png: end of zlib stream: %v", err)
	}
	if err := zr.Close(); err != nil {
		return err
	}
	info.IDATChunks, info.Compressed = v.idats, v.idatBytes
	return nil
}

// readRows reads info.Height rows of info.Width RGB pixels, each after its filter byte, from
// the inflated stream zr, counting their bytes in info.Raw.
func readRows(zr io.Reader, info *Info, row func(y int, rgb []byte)) error {
	rowLen := 3*info.Width + 1
	cur := make([]byte, rowLen)
	prev := make([]byte, rowLen)
	for y := 0; y < info.Height; y++ {
		if _, err := io.ReadFull(zr, cur); err != nil {
			return fmt.Errorf("png: row %d of %d: %v", y, info.Height, err)
		}
		if cur[0] > 4 {
			return fmt.Errorf("png: row %d has filter type %d", y, cur[0])
		}
		info.Raw += int64(rowLen)
		if row != nil {
			unfilter(cur, prev)
			row(y, cur[1:])
		}
		cur, prev = prev, cur
	}
	return nil
}

// afterImage reads what follows the zlib stream: nothing more in its IDAT, then chunks
// (no IDAT with data) to IEND, and nothing after IEND.
func (v *chunkReader) afterImage(info *Info) error {
	if v.left > 0 {
		return errors.New("png: trailing bytes after the zlib stream")
	}
	if err := v.endChunk(); err != nil {
		return err
	}
	for {
		if err := v.next(); err != nil {
			return err
		}
		info.Chunks++
		if v.typ == "IDAT" && v.left > 0 {
			return errors.New("png: data in an IDAT after the end of the zlib stream")
		}
		d, err := v.rest()
		if err != nil {
			return err
		}
		if err := keepText(info, v.typ, d); err != nil {
			return err
		}
		if v.typ == "IEND" {
			break
		}
	}
	if _, err := v.r.ReadByte(); err != io.EOF {
		return errors.New("png: bytes after IEND")
	}
	return nil
}

// unfilter reverses a row's PNG filter in place (3 bytes per pixel); prev is the previous
// unfiltered row (zeros for the first).
func unfilter(cur, prev []byte) {
	f := cur[0]
	c, p := cur[1:], prev[1:]
	switch f {
	case 1: // Sub
		for i := 3; i < len(c); i++ {
			c[i] += c[i-3]
		}
	case 2: // Up
		for i := range c {
			c[i] += p[i]
		}
	case 3: // Average
		for i := range c {
			var a byte
			if i >= 3 {
				a = c[i-3]
			}
			c[i] += byte((int(a) + int(p[i])) / 2)
		}
	case 4: // Paeth
		for i := range c {
			var a, cc int
			if i >= 3 {
				a, cc = int(c[i-3]), int(p[i-3])
			}
			b := int(p[i])
			pa, pb, pc := abs(b-cc), abs(a-cc), abs(a+b-2*cc)
			switch {
			case pa <= pb && pa <= pc:
				c[i] += byte(a)
			case pb <= pc:
				c[i] += byte(b)
			default:
				c[i] += byte(cc)
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// chunkReader walks PNG chunks, checking CRCs; as an io.Reader it serves the concatenated
// data of consecutive IDAT chunks.
type chunkReader struct {
	r         *bufio.Reader
	typ       string
	left      int64 // bytes of the current chunk's data not yet read
	crc       uint32
	idats     int
	idatBytes int64
}

// next reads the next chunk's header (the previous chunk must be finished).
func (v *chunkReader) next() error {
	var hdr [8]byte
	if _, err := io.ReadFull(v.r, hdr[:]); err != nil {
		return fmt.Errorf("png: truncated (chunk header): %v", err)
	}
	n := binary.BigEndian.Uint32(hdr[:4])
	if n > 1<<31-1 {
		return errors.New("png: chunk length out of range")
	}
	v.typ = string(hdr[4:])
	v.left = int64(n)
	v.crc = crc32.Update(0, crc32.IEEETable, hdr[4:])
	if v.typ == "IDAT" {
		v.idats++
		v.idatBytes += int64(n)
	}
	return nil
}

// rest reads what is left of the current chunk and checks its CRC. It returns the data of a
// chunk of at most maxKept bytes; a longer one is streamed through the CRC and nil returned.
func (v *chunkReader) rest() ([]byte, error) {
	var d []byte
	var err error
	if v.left > maxKept {
		_, err = io.CopyN(crcWriter{&v.crc}, v.r, v.left)
	} else {
		d = make([]byte, v.left)
		_, err = io.ReadFull(v.r, d)
		v.crc = crc32.Update(v.crc, crc32.IEEETable, d)
	}
	if err != nil {
		return nil, fmt.Errorf("png: truncated %s chunk", v.typ)
	}
	v.left = 0
	return d, v.endChunk()
}

// crcWriter adds what is written to a running CRC-32 (IEEE).
type crcWriter struct{ crc *uint32 }

func (c crcWriter) Write(p []byte) (int, error) {
	*c.crc = crc32.Update(*c.crc, crc32.IEEETable, p)
	return len(p), nil
}

// endChunk reads and checks the CRC of the current chunk, whose data has been read.
func (v *chunkReader) endChunk() error {
	var c [4]byte
	if _, err := io.ReadFull(v.r, c[:]); err != nil {
		return fmt.Errorf("png: truncated %s chunk CRC", v.typ)
	}
	if binary.BigEndian.Uint32(c[:]) != v.crc {
		return fmt.Errorf("png: %s chunk has a bad CRC", v.typ)
	}
	return nil
}

// Read serves the IDAT stream, moving across consecutive IDAT chunks.
func (v *chunkReader) Read(p []byte) (int, error) {
	for v.left == 0 {
		if err := v.endChunk(); err != nil {
			return 0, err
		}
		if err := v.next(); err != nil {
			return 0, err
		}
		if v.typ != "IDAT" {
			return 0, fmt.Errorf("png: the image data ends (at a %s chunk) before the last row", v.typ)
		}
	}
	if int64(len(p)) > v.left {
		p = p[:v.left]
	}
	n, err := v.r.Read(p)
	v.crc = crc32.Update(v.crc, crc32.IEEETable, p[:n])
	v.left -= int64(n)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}
