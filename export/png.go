package export

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	"io"

	"github.com/klauspost/compress/flate"
)

// pngSignature starts every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// maxIDAT is the largest IDAT chunk the writer emits; bigger blocks are split.
const maxIDAT = 1 << 22

// zlibHeader is CMF/FLG for deflate with a 32K window and the "fastest" level hint
// (0x78 0x01: (0x78<<8|0x01) % 31 == 0).
var zlibHeader = []byte{0x78, 0x01}

// finalBlock is an empty final deflate block with fixed Huffman codes: what pigz ends its
// independently compressed pieces with.
var finalBlock = []byte{0x03, 0x00}

// Text is one tEXt chunk: a Latin-1 key of 1 to 79 characters and its value.
type Text struct {
	Key, Value string
}

// pngWriter writes an 8-bit RGB PNG as a stream: the header and text chunks first, then
// blocks of already filtered and deflated rows (each ending on a sync flush), then the end of
// the zlib stream and IEND. It never holds the image. The zero value is not usable: start one
// with newPNGWriter, or with resumePNGWriter after a checkpoint. Errors are sticky.
type pngWriter struct {
	w     io.Writer
	err   error
	adler uint32 // Adler-32 of the uncompressed (filtered) bytes so far
	raw   int64  // uncompressed bytes so far
	off   int64  // bytes written to w
	crc   [4]byte
	hdr   [8]byte
}

// newPNGWriter writes the signature, IHDR (width x height, 8-bit RGB, no interlace), the
// text chunks and the zlib header, and returns a writer ready for WriteBlock.
func newPNGWriter(w io.Writer, width, height int, text []Text) (*pngWriter, error) {
	if width < 1 || height < 1 || width > 1<<30 || height > 1<<30 {
		return nil, fmt.Errorf("png: invalid size %dx%d", width, height)
	}
	p := &pngWriter{w: w, adler: 1}
	p.write([]byte(pngSignature))
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8] = 8  // bit depth
	ihdr[9] = 2  // colour type: RGB
	ihdr[10] = 0 // deflate
	ihdr[11] = 0 // adaptive filtering
	ihdr[12] = 0 // no interlace
	p.chunk("IHDR", ihdr[:])
	for _, t := range text {
		if err := checkKey(t.Key); err != nil {
			return nil, err
		}
		p.chunk("tEXt", []byte(t.Key+"\x00"+latin1(t.Value)))
	}
	p.chunk("IDAT", zlibHeader)
	return p, p.err
}

// resumePNGWriter continues a stream written by an earlier pngWriter that stopped after a
// block: w must be positioned just after that block, offset is its position, adler and raw the
// Adler-32 and length of the uncompressed bytes written so far.
func resumePNGWriter(w io.Writer, offset int64, adler uint32, raw int64) *pngWriter {
	return &pngWriter{w: w, adler: adler, raw: raw, off: offset}
}

func checkKey(k string) error {
	if len(k) < 1 || len(k) > 79 {
		return fmt.Errorf("png: text key %q must have 1 to 79 characters", k)
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 32 || c > 126 {
			return fmt.Errorf("png: text key %q has a character outside printable ASCII", k)
		}
	}
	return nil
}

// latin1 replaces characters outside Latin-1 (tEXt's character set) with '?'.
func latin1(s string) string {
	ok := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || (s[i] < 32 && s[i] != '\n') {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	b := make([]byte, 0, len(s))
	for _, r := range s {
		switch {
		case r == '\n' || (r >= 32 && r < 127) || (r >= 0xa0 && r <= 0xff):
			b = append(b, byte(r))
		default:
			b = append(b, '?')
		}
	}
	return string(b)
}

func (p *pngWriter) write(b []byte) {
	if p.err != nil {
		return
	}
	n, err := p.w.Write(b)
	p.off += int64(n)
	if err == nil && n < len(b) {
		err = io.ErrShortWrite
	}
	p.err = err
}

func (p *pngWriter) chunk(typ string, data []byte) {
	binary.BigEndian.PutUint32(p.hdr[:4], uint32(len(data)))
	copy(p.hdr[4:], typ)
	crc := crc32.NewIEEE()
	crc.Write(p.hdr[4:8])
	crc.Write(data)
	binary.BigEndian.PutUint32(p.crc[:], crc.Sum32())
	p.write(p.hdr[:])
	p.write(data)
	p.write(p.crc[:])
}

// WriteBlock appends deflated data (a piece of the zlib stream that ends on a byte boundary
// with no final block, e.g. compressed with a sync Flush) as IDAT chunks. adler is the
// Adler-32 of the uncompressed bytes of the block and rawLen their count.
func (p *pngWriter) WriteBlock(deflated []byte, adler uint32, rawLen int64) error {
	for len(deflated) > 0 {
		n := min(len(deflated), maxIDAT)
		p.chunk("IDAT", deflated[:n])
		deflated = deflated[n:]
	}
	p.adler = adlerCombine(p.adler, adler, rawLen)
	p.raw += rawLen
	return p.err
}

// Close ends the zlib stream (an empty final block and the Adler-32), writes the trailer's
// text chunks (after the image data: see TrailerText) and IEND. It does not close the
// underlying writer.
func (p *pngWriter) Close(trailer ...Text) error {
	var tail [6]byte
	copy(tail[:], finalBlock)
	binary.BigEndian.PutUint32(tail[2:], p.adler)
	p.chunk("IDAT", tail[:])
	for _, t := range trailer {
		if err := checkKey(t.Key); err != nil {
			return err
		}
		p.chunk("tEXt", []byte(t.Key+"\x00"+latin1(t.Value)))
	}
	p.chunk("IEND", nil)
	return p.err
}

// Offset is the number of bytes written so far (counting from the start of the file).
func (p *pngWriter) Offset() int64 { return p.off }

// Adler returns the Adler-32 and length of the uncompressed bytes so far.
func (p *pngWriter) Adler() (uint32, int64) { return p.adler, p.raw }

// Err returns the sticky error.
func (p *pngWriter) Err() error { return p.err }

// adlerBase is the largest prime below 2^16, the modulus of Adler-32.
const adlerBase = 65521

// adlerCombine returns the Adler-32 of the concatenation A+B from adler1 = Adler-32(A),
// adler2 = Adler-32(B) and len2 = len(B), as zlib's adler32_combine does.
func adlerCombine(adler1, adler2 uint32, len2 int64) uint32 {
	if len2 < 0 {
		return 0xffffffff
	}
	rem := uint32(len2 % adlerBase)
	sum1 := adler1 & 0xffff
	sum2 := uint32((uint64(rem) * uint64(sum1)) % adlerBase)
	sum1 += (adler2 & 0xffff) + adlerBase - 1
	sum2 += (adler1 >> 16) + (adler2 >> 16) + adlerBase - rem
	if sum1 >= adlerBase {
		sum1 -= adlerBase
	}
	if sum1 >= adlerBase {
		sum1 -= adlerBase
	}
	if sum2 >= adlerBase<<1 {
		sum2 -= adlerBase << 1
	}
	if sum2 >= adlerBase {
		sum2 -= adlerBase
	}
	return sum1 | sum2<<16
}

// The PNG row filter types the writer uses.
const (
	filterSub = 1
	filterUp  = 2
)

// rowFilter turns the rows [r0, r1) of a rendered strip (src: the strip's render buffer, n x n
// samples per output pixel, width output pixels wide) into PNG filtered RGB rows appended to
// dst: the first row with Sub (so the block needs no earlier row), the others with Up.
// Supersampled samples are averaged, rounding half up (into cur, through acc); without
// supersampling (n == 1) rowFilter1 filters straight from the RGBA rows. cur and prev are
// scratch rows of 3*width bytes, acc of 3*width sums.
func rowFilter(dst []byte, src *image.RGBA, n, width, r0, r1 int, cur, prev []byte, acc []uint32) []byte {
	if n == 1 {
		return rowFilter1(dst, src, width, r0, r1)
	}
	for r := r0; r < r1; r++ {
		average(src, n, width, r, cur, acc)
		if r == r0 {
			dst = append(dst, filterSub)
			dst = append(dst, cur[:3]...)
			start := len(dst)
			dst = append(dst, cur[3:3*width]...)
			out := dst[start:]
			for i := range out {
				out[i] -= cur[i]
			}
		} else {
			dst = append(dst, filterUp)
			start := len(dst)
			dst = append(dst, cur[:3*width]...)
			out := dst[start:]
			p := prev[:len(out)]
			for i := range out {
				out[i] -= p[i]
			}
		}
		cur, prev = prev, cur
	}
	return dst
}

// rowFilter1 is rowFilter without supersampling, straight from the RGBA rows: Sub for the
// first row, Up (the difference from the RGBA row above in the strip) for the others.
func rowFilter1(dst []byte, src *image.RGBA, width, r0, r1 int) []byte {
	for r := r0; r < r1; r++ {
		pix := src.Pix[r*src.Stride : r*src.Stride+4*width]
		start := len(dst) + 1
		dst = append(dst, make([]byte, 1+3*width)...)
		out := dst[start : start+3*width]
		if r == r0 {
			dst[start-1] = filterSub
			out[0], out[1], out[2] = pix[0], pix[1], pix[2]
			for x := 1; x < width; x++ {
				p := pix[4*x-4 : 4*x+3 : 4*x+3]
				o := out[3*x : 3*x+3 : 3*x+3]
				o[0], o[1], o[2] = p[4]-p[0], p[5]-p[1], p[6]-p[2]
			}
			continue
		}
		dst[start-1] = filterUp
		up := src.Pix[(r-1)*src.Stride : (r-1)*src.Stride+4*width]
		for x := 0; x < width; x++ {
			p := pix[4*x : 4*x+3 : 4*x+3]
			q := up[4*x : 4*x+3 : 4*x+3]
			o := out[3*x : 3*x+3 : 3*x+3]
			o[0], o[1], o[2] = p[0]-q[0], p[1]-q[1], p[2]-q[2]
		}
	}
	return dst
}

// average writes output row r of a supersampled strip (n x n samples per pixel) to cur as
// RGB, each channel the mean of its samples rounded half up.
func average(src *image.RGBA, n, width, r int, cur []byte, acc []uint32) {
	acc = acc[:3*width]
	clear(acc)
	for dy := 0; dy < n; dy++ {
		row := src.Pix[(r*n+dy)*src.Stride:]
		for x := 0; x < width; x++ {
			a := acc[3*x : 3*x+3 : 3*x+3]
			s := row[4*n*x : 4*n*x+4*n]
			for dx := 0; dx < n; dx++ {
				a[0] += uint32(s[4*dx])
				a[1] += uint32(s[4*dx+1])
				a[2] += uint32(s[4*dx+2])
			}
		}
	}
	nn := uint32(n * n)
	for i, v := range acc {
		cur[i] = byte((v + nn/2) / nn)
	}
}

// blockCompressor filters and deflates blocks of rows; one per worker, reused.
type blockCompressor struct {
	fw        *flate.Writer
	out       bytes.Buffer
	raw       []byte
	cur, prev []byte
	acc       []uint32
}

func newBlockCompressor(level int) (*blockCompressor, error) {
	fw, err := flate.NewWriter(io.Discard, level)
	if err != nil {
		return nil, err
	}
	return &blockCompressor{fw: fw}, nil
}

// compress filters rows [r0, r1) of src and deflates them, ending with a sync flush. It
// returns the deflated bytes (valid until the next call), the Adler-32 of the filtered bytes
// and their length.
func (c *blockCompressor) compress(src *image.RGBA, n, width, r0, r1 int) ([]byte, uint32, int64, error) {
	rowLen := 3 * width
	if cap(c.cur) < rowLen {
		c.cur = make([]byte, rowLen)
		c.prev = make([]byte, rowLen)
		c.acc = make([]uint32, rowLen)
	}
	need := (rowLen + 1) * (r1 - r0)
	if cap(c.raw) < need {
		c.raw = make([]byte, 0, need)
	}
	c.raw = rowFilter(c.raw[:0], src, n, width, r0, r1, c.cur[:rowLen], c.prev[:rowLen], c.acc)
	c.out.Reset()
	c.fw.Reset(&c.out)
	if _, err := c.fw.Write(c.raw); err != nil {
		return nil, 0, 0, err
	}
	if err := c.fw.Flush(); err != nil {
		return nil, 0, 0, err
	}
	return c.out.Bytes(), adler32.Checksum(c.raw), int64(len(c.raw)), nil
}
