package exr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/klauspost/compress/zlib"
)

// maxRatio bounds how much a chunk may expand: deflate does not exceed 1032:1, and the
// Reader refuses images whose raw size the file could not hold at that ratio, so that what it
// allocates stays in proportion to the file.
const maxRatio = 1100

// Reader reads the lines of a scanline OpenEXR file (NONE, ZIPS or ZIP compression). It
// holds no buffer between calls; its methods may be called concurrently when r's ReadAt
// may.
type Reader struct {
	r           io.ReaderAt
	size        int64
	h           Header
	xMin, yMin  int64
	compression byte
	lpc         int // lines per chunk
	bpl         int // raw bytes per line
	offsets     []int64
}

// le is the byte order of the format.
var le = binary.LittleEndian

// hreader reads the header sequentially from a ReaderAt, within the file.
type hreader struct {
	r    io.ReaderAt
	pos  int64
	size int64
	err  error
}

func (h *hreader) bytes(n int64, what string) []byte {
	if h.err != nil {
		return nil
	}
	if n < 0 || n > h.size-h.pos {
		h.err = fmt.Errorf("exr: the file ends inside %s (at byte %d)", what, h.pos)
		return nil
	}
	b := make([]byte, n)
	if _, err := h.r.ReadAt(b, h.pos); err != nil {
		h.err = fmt.Errorf("exr: reading %s at byte %d: %v", what, h.pos, err)
		return nil
	}
	h.pos += n
	return b
}

// cstring reads a NUL-terminated string of at most max bytes.
func (h *hreader) cstring(max int, what string) string {
	if h.err != nil {
		return ""
	}
	n := min(int64(max+1), h.size-h.pos)
	if n <= 0 {
		h.err = fmt.Errorf("exr: the file ends inside %s (at byte %d)", what, h.pos)
		return ""
	}
	b := make([]byte, n)
	if _, err := h.r.ReadAt(b, h.pos); err != nil {
		h.err = fmt.Errorf("exr: reading %s at byte %d: %v", what, h.pos, err)
		return ""
	}
	i := bytes.IndexByte(b, 0)
	if i < 0 && n <= int64(max) {
		h.err = fmt.Errorf("exr: the file ends inside %s (at byte %d)", what, h.pos)
		return ""
	}
	if i < 0 {
		h.err = fmt.Errorf("exr: %s at byte %d is not terminated within %d bytes", what, h.pos, max)
		return ""
	}
	h.pos += int64(i) + 1
	return string(b[:i])
}

// NewReader parses and validates the header and the offset table of the file of the given
// size that r reads.
func NewReader(r io.ReaderAt, size int64) (*Reader, error) {
	if size < 8 {
		return nil, fmt.Errorf("exr: file of %d bytes is too short", size)
	}
	hr := &hreader{r: r, size: size}
	pre := hr.bytes(8, "the version field")
	if hr.err != nil {
		return nil, hr.err
	}
	if !bytes.Equal(pre[:4], magic) {
		return nil, errors.New("exr: not an OpenEXR file (bad magic number)")
	}
	version := le.Uint32(pre[4:])
	if v := version & 0xff; v != 2 {
		return nil, fmt.Errorf("exr: OpenEXR version %d is not supported (only 2)", v)
	}
	flags := version &^ 0xff
	switch {
	case flags&0x200 != 0:
		return nil, errors.New("exr: tiled EXR files are not supported")
	case flags&0x800 != 0:
		return nil, errors.New("exr: deep EXR files are not supported")
	case flags&0x1000 != 0:
		return nil, errors.New("exr: multi-part EXR files are not supported")
	case flags&^0x400 != 0:
		return nil, fmt.Errorf("exr: unknown version flags %#x", flags)
	}
	nameMax := MaxNameLen
	if flags&0x400 != 0 {
		nameMax = 255
	}
	rd := &Reader{r: r, size: size, h: Header{Strings: map[string]string{}, Ints: map[string]int32{}}}
	if err := rd.parseHeader(hr, nameMax); err != nil {
		return nil, err
	}
	if err := rd.readTable(hr); err != nil {
		return nil, err
	}
	return rd, nil
}

// parseHeader reads the attributes.
func (rd *Reader) parseHeader(hr *hreader, nameMax int) error {
	seen := map[string]bool{}
	var dataWindow []byte
	for n := 0; ; n++ {
		name := hr.cstring(nameMax, "an attribute name")
		if hr.err != nil {
			return hr.err
		}
		if name == "" {
			break
		}
		if n == MaxAttributes {
			return fmt.Errorf("exr: more than %d attributes", MaxAttributes)
		}
		typ := hr.cstring(nameMax, "the type of attribute "+strconv.Quote(name))
		sz := hr.bytes(4, "the size of attribute "+strconv.Quote(name))
		if hr.err != nil {
			return hr.err
		}
		size := int64(int32(le.Uint32(sz)))
		if size < 0 || size > hr.size-hr.pos {
			return fmt.Errorf("exr: attribute %q: size %d passes the end of the file", name, size)
		}
		if seen[name] {
			return fmt.Errorf("exr: attribute %q appears twice", name)
		}
		seen[name] = true
		use, err := checkAttribute(name, typ, size, nameMax)
		if err != nil {
			return err
		}
		if !use {
			hr.pos += size // an attribute this package does not use
			continue
		}
		v := hr.bytes(size, "attribute "+strconv.Quote(name))
		if hr.err != nil {
			return hr.err
		}
		if err := rd.setAttribute(name, typ, v, nameMax, &dataWindow); err != nil {
			return err
		}
	}
	for _, name := range []string{"channels", "compression", "dataWindow", "displayWindow", "lineOrder", "pixelAspectRatio", "screenWindowCenter", "screenWindowWidth"} {
		if !seen[name] {
			return fmt.Errorf("exr: the header lacks the required attribute %s", name)
		}
	}
	return rd.setDataWindow(dataWindow)
}

// checkAttribute checks an attribute's type and size before its value is read; use is
// false for an attribute this package does not use (whose value is skipped).
func checkAttribute(name, typ string, size int64, nameMax int) (use bool, err error) {
	want, std := map[string]string{
		"channels": "chlist", "compression": "compression", "dataWindow": "box2i",
		"displayWindow": "box2i", "lineOrder": "lineOrder", "pixelAspectRatio": "float",
		"screenWindowCenter": "v2f", "screenWindowWidth": "float", "type": "string",
		"tiles": "tiledesc",
	}[name]
	if std && typ != want {
		return false, fmt.Errorf("exr: attribute %q has type %q, not %q", name, typ, want)
	}
	fixed := map[string]int64{"compression": 1, "lineOrder": 1, "box2i": 16, "float": 4, "v2f": 8, "int": 4}
	if n, ok := fixed[typ]; ok && size != n {
		return false, fmt.Errorf("exr: attribute %q of type %s has size %d, not %d", name, typ, size, n)
	}
	if !std && typ != "string" && typ != "int" {
		return false, nil
	}
	if typ == "string" && size > MaxStringLen {
		return false, fmt.Errorf("exr: attribute %q: string of %d bytes, more than %d", name, size, MaxStringLen)
	}
	if typ == "chlist" && size > MaxChannels*(int64(nameMax)+17)+1 {
		return false, fmt.Errorf("exr: attribute %q: channel list of %d bytes is too long", name, size)
	}
	if typ == "tiledesc" {
		return false, errors.New("exr: tiled EXR files are not supported")
	}
	return true, nil
}

// setAttribute takes in an attribute's value v, checked; the data window's is kept in
// *dataWindow for setDataWindow.
func (rd *Reader) setAttribute(name, typ string, v []byte, nameMax int, dataWindow *[]byte) error {
	switch name {
	case "channels":
		chs, err := parseChannels(v, nameMax)
		if err != nil {
			return err
		}
		rd.h.Channels = chs
	case "compression":
		c := v[0]
		if c != compNone && c != compZIPS && c != compZIP {
			return fmt.Errorf("exr: EXR compression %s is not supported (only NONE, ZIPS, ZIP)", compressionName(c))
		}
		rd.compression = c
	case "dataWindow":
		*dataWindow = v
	case "displayWindow":
		if int32(le.Uint32(v[8:])) < int32(le.Uint32(v)) || int32(le.Uint32(v[12:])) < int32(le.Uint32(v[4:])) {
			return errors.New("exr: the display window is empty")
		}
	case "lineOrder":
		if v[0] != 0 {
			return fmt.Errorf("exr: line order %d is not supported (only INCREASING_Y)", v[0])
		}
	case "type":
		if string(v) != "scanlineimage" {
			return fmt.Errorf("exr: EXR part type %.40q is not supported (only scanlineimage)", v)
		}
	case "pixelAspectRatio", "screenWindowCenter", "screenWindowWidth":
	default:
		if typ == "string" {
			rd.h.Strings[name] = string(v)
		} else {
			rd.h.Ints[name] = int32(le.Uint32(v))
		}
	}
	return nil
}

// setDataWindow checks the data window (a box2i) and sets the image's size and layout.
func (rd *Reader) setDataWindow(dataWindow []byte) error {
	xMin, yMin := int64(int32(le.Uint32(dataWindow))), int64(int32(le.Uint32(dataWindow[4:])))
	xMax, yMax := int64(int32(le.Uint32(dataWindow[8:]))), int64(int32(le.Uint32(dataWindow[12:])))
	w, h := xMax-xMin+1, yMax-yMin+1
	if w < 1 || h < 1 || w > MaxSide || h > MaxSide {
		return fmt.Errorf("exr: data window (%d,%d)-(%d,%d) is empty or larger than %d per side", xMin, yMin, xMax, yMax, MaxSide)
	}
	rd.xMin, rd.yMin = xMin, yMin
	rd.h.Width, rd.h.Height = int(w), int(h)
	rd.lpc = linesPerChunk(rd.compression)
	rd.bpl = rd.h.Width * bytesPerPixel(rd.h.Channels)
	return nil
}

// parseChannels parses a chlist value.
func parseChannels(v []byte, nameMax int) ([]Channel, error) {
	var chs []Channel
	for {
		i := bytes.IndexByte(v, 0)
		if i < 0 {
			return nil, errors.New("exr: the channel list is not terminated")
		}
		if i == 0 {
			break
		}
		if i > nameMax {
			return nil, fmt.Errorf("exr: channel name of %d bytes is longer than %d", i, nameMax)
		}
		name := string(v[:i])
		v = v[i+1:]
		if len(v) < 16 {
			return nil, fmt.Errorf("exr: channel %q: the channel list ends inside it", name)
		}
		t := PixelType(int32(le.Uint32(v)))
		xs, ys := int32(le.Uint32(v[8:])), int32(le.Uint32(v[12:]))
		v = v[16:]
		if t != Uint && t != Half && t != Float {
			return nil, fmt.Errorf("exr: channel %q: unknown pixel type %d", name, int32(t))
		}
		if xs != 1 || ys != 1 {
			return nil, fmt.Errorf("exr: channel %q: subsampling %dx%d is not supported", name, xs, ys)
		}
		if len(chs) == MaxChannels {
			return nil, fmt.Errorf("exr: more than %d channels", MaxChannels)
		}
		if len(chs) > 0 && chs[len(chs)-1].Name >= name {
			return nil, fmt.Errorf("exr: channel list is not sorted by name, without duplicates (%q after %q)", name, chs[len(chs)-1].Name)
		}
		chs = append(chs, Channel{name, t})
	}
	if len(chs) == 0 {
		return nil, errors.New("exr: the image has no channels")
	}
	return chs, nil
}

// readTable reads and checks the offset table, which starts at hr.pos.
func (rd *Reader) readTable(hr *hreader) error {
	total := int64(rd.bpl) * int64(rd.h.Height)
	limit := rd.size
	if rd.compression != compNone {
		limit = maxRatio*rd.size + 1<<16
	}
	if total > limit {
		return fmt.Errorf("exr: %dx%d image of %d bytes a line cannot fit in a file of %d bytes", rd.h.Width, rd.h.Height, rd.bpl, rd.size)
	}
	n := (rd.h.Height + rd.lpc - 1) / rd.lpc
	if int64(n) > (hr.size-hr.pos)/8 {
		return fmt.Errorf("exr: the offset table of %d chunks passes the end of the file", n)
	}
	t := hr.bytes(8*int64(n), "the offset table")
	if hr.err != nil {
		return hr.err
	}
	rd.offsets = make([]int64, n)
	prev := hr.pos - 8
	for i := range rd.offsets {
		o := le.Uint64(t[8*i:])
		if o > uint64(rd.size-8) || int64(o) < hr.pos {
			return fmt.Errorf("exr: chunk %d: offset %d is outside the file's chunks [%d, %d)", i, o, hr.pos, rd.size)
		}
		if int64(o) < prev+8 {
			return fmt.Errorf("exr: chunk %d: offset %d is out of order or overlaps the chunk before", i, o)
		}
		rd.offsets[i] = int64(o)
		prev = int64(o)
	}
	return nil
}

// Header returns the image's header; its channels are sorted by name.
func (rd *Reader) Header() Header {
	h := rd.h
	h.Channels = slices.Clone(h.Channels)
	h.Strings = make(map[string]string, len(rd.h.Strings))
	for k, v := range rd.h.Strings {
		h.Strings[k] = v
	}
	h.Ints = make(map[string]int32, len(rd.h.Ints))
	for k, v := range rd.h.Ints {
		h.Ints[k] = v
	}
	return h
}

// ReadLines reads lines [y, y+n) of the image (counted from the data window's first row)
// into one slice per channel in the order of Header().Channels: []uint32 for Uint channels,
// []float32 for Float and Half ones, each of length n*Width. It allocates the lines and one
// chunk.
func (rd *Reader) ReadLines(y, n int) ([]any, error) {
	if y < 0 || n < 1 || n > rd.h.Height || y > rd.h.Height-n {
		return nil, fmt.Errorf("exr: ReadLines(%d, %d) is outside the image's %d lines", y, n, rd.h.Height)
	}
	var chunk, tmp []byte
	var zr io.ReadCloser
	var cols []any
	width := rd.h.Width
	for c := y / rd.lpc; c*rd.lpc < y+n; c++ {
		l0 := c * rd.lpc
		lines := min(rd.lpc, rd.h.Height-l0)
		raw := lines * rd.bpl
		if cap(chunk) < raw {
			chunk = make([]byte, raw)
		}
		chunk = chunk[:raw]
		var err error
		if zr, tmp, err = rd.readChunk(c, chunk, tmp, zr); err != nil {
			return nil, err
		}
		if cols == nil {
			cols = make([]any, len(rd.h.Channels))
			for i, ch := range rd.h.Channels {
				if ch.Type == Uint {
					cols[i] = make([]uint32, n*width)
				} else {
					cols[i] = make([]float32, n*width)
				}
			}
		}
		p := 0
		for l := l0; l < l0+lines; l++ {
			in := l >= y && l < y+n
			for i, ch := range rd.h.Channels {
				sz := width * ch.Type.size()
				if !in {
					p += sz
					continue
				}
				src := chunk[p : p+sz]
				p += sz
				o := (l - y) * width
				switch ch.Type {
				case Uint:
					dst := cols[i].([]uint32)[o : o+width]
					for k := range dst {
						dst[k] = le.Uint32(src[4*k:])
					}
				case Float:
					dst := cols[i].([]float32)[o : o+width]
					for k := range dst {
						dst[k] = math.Float32frombits(le.Uint32(src[4*k:]))
					}
				case Half:
					dst := cols[i].([]float32)[o : o+width]
					for k := range dst {
						dst[k] = halfToFloat(le.Uint16(src[2*k:]))
					}
				}
			}
		}
	}
	return cols, nil
}

// readChunk reads chunk c, unpacked, into raw (its exact size); tmp and zr are scratch space
// kept between calls.
func (rd *Reader) readChunk(c int, raw, tmp []byte, zr io.ReadCloser) (io.ReadCloser, []byte, error) {
	off := rd.offsets[c]
	end := rd.size
	if c+1 < len(rd.offsets) {
		end = rd.offsets[c+1]
	}
	var hd [8]byte
	if _, err := rd.r.ReadAt(hd[:], off); err != nil {
		return zr, tmp, rd.chunkErr(c, "exr: reading chunk %d at byte %d: %v", c, off, err)
	}
	wantY := rd.yMin + int64(c*rd.lpc)
	if y := int64(int32(le.Uint32(hd[:]))); y != wantY {
		return zr, tmp, rd.chunkErr(c, "exr: chunk %d at byte %d starts at line %d, not %d", c, off, y, wantY)
	}
	packed := int64(int32(le.Uint32(hd[4:])))
	if packed > 0 && c+1 == len(rd.offsets) && packed > end-off-8 {
		return zr, tmp, rd.chunkErr(c, "exr: the file is truncated: chunk %d, the last, needs %d bytes from byte %d and the file ends at byte %d (%d missing)", c, packed, off+8, end, packed-(end-off-8))
	}
	if packed <= 0 || packed > end-off-8 {
		return zr, tmp, rd.chunkErr(c, "exr: chunk %d: packed size %d does not fit between byte %d and the next chunk at %d", c, packed, off+8, end)
	}
	if packed > int64(len(raw)) || rd.compression == compNone && packed != int64(len(raw)) {
		return zr, tmp, rd.chunkErr(c, "exr: chunk %d: packed size %d for %d raw bytes", c, packed, len(raw))
	}
	if packed == int64(len(raw)) { // stored raw
		if _, err := rd.r.ReadAt(raw, off+8); err != nil {
			return zr, tmp, rd.chunkErr(c, "exr: reading chunk %d: %v", c, err)
		}
		return zr, tmp, nil
	}
	if int64(len(raw)) > maxRatio*packed+1024 {
		return zr, tmp, rd.chunkErr(c, "exr: chunk %d: %d packed bytes cannot hold %d raw bytes", c, packed, len(raw))
	}
	src := make([]byte, packed)
	if _, err := rd.r.ReadAt(src, off+8); err != nil {
		return zr, tmp, rd.chunkErr(c, "exr: reading chunk %d: %v", c, err)
	}
	if cap(tmp) < len(raw) {
		tmp = make([]byte, len(raw))
	}
	tmp = tmp[:len(raw)]
	if err := inflate(&zr, src, tmp); err != nil {
		return zr, tmp, rd.chunkErr(c, "exr: chunk %d: %v", c, err)
	}
	zipUnpredict(raw, tmp)
	return zr, tmp, nil
}

// ChunkError is an error reading one chunk of the image data (damaged or truncated data):
// its text is the message, and First and Lines say which lines of the data window the chunk
// holds (counted from its top), so that a reader can say where the file is damaged.
type ChunkError struct {
	Chunk, First, Lines int
	Msg                 string
}

func (e *ChunkError) Error() string { return e.Msg }

// chunkErr is a *ChunkError for chunk c.
func (rd *Reader) chunkErr(c int, format string, a ...any) error {
	first := c * rd.lpc
	return &ChunkError{Chunk: c, First: first, Lines: min(rd.lpc, rd.h.Height-first), Msg: fmt.Sprintf(format, a...)}
}

// inflate decompresses the zlib stream src into exactly dst, checking that the stream holds
// no more and no less, and its checksum.
func inflate(zr *io.ReadCloser, src, dst []byte) error {
	var err error
	if *zr == nil {
		*zr, err = zlib.NewReader(bytes.NewReader(src))
	} else {
		err = (*zr).(zlib.Resetter).Reset(bytes.NewReader(src), nil)
	}
	if err != nil {
		return fmt.Errorf("zlib: %v", err)
	}
	n, err := io.ReadFull(*zr, dst)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return fmt.Errorf("the zlib stream holds %d bytes, fewer than the %d of the chunk", n, len(dst))
	}
	if err != nil {
		return fmt.Errorf("zlib: %v", err)
	}
	var one [1]byte
	if n, err := (*zr).Read(one[:]); n > 0 {
		return fmt.Errorf("the zlib stream holds more than the %d bytes of the chunk", len(dst))
	} else if err != io.EOF {
		if err == nil {
			err = errors.New("the stream does not end")
		}
		return fmt.Errorf("zlib: %v", err)
	}
	return nil
}

// halfToFloat converts an IEEE 754 binary16 value to float32.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf, NaN
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	}
	// subnormal: normalise
	e := uint32(113)
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
}
