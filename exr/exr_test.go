package exr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zlib"
)

// memFile is an in-memory io.WriteSeeker and io.ReaderAt with Truncate, as *os.File.
type memFile struct {
	b   []byte
	pos int64
}

func (m *memFile) Write(p []byte) (int, error) {
	if need := m.pos + int64(len(p)); need > int64(len(m.b)) {
		m.b = append(m.b, make([]byte, need-int64(len(m.b)))...)
	}
	copy(m.b[m.pos:], p)
	m.pos += int64(len(p))
	return len(p), nil
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += m.pos
	case io.SeekEnd:
		off += int64(len(m.b))
	}
	if off < 0 {
		return 0, fmt.Errorf("negative seek")
	}
	m.pos = off
	return off, nil
}

func (m *memFile) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(m.b).ReadAt(p, off)
}

func (m *memFile) Truncate(n int64) error {
	m.b = m.b[:n]
	return nil
}

// testHeader is the header of the exports: an escape count, its fraction, the distance
// estimate's derivative and a float channel, given out of name order.
func testHeader(w, h int) Header {
	return Header{
		Width: w, Height: h,
		Channels: []Channel{{"NF", Float}, {"N", Uint}, {"T", Float}, {"DEY", Float}, {"DEX", Float}},
		Strings:  map[string]string{"mandelscope.location": "-0.75, 0.1, 1e3", "comments": "a \"quoted\" value\non two lines"},
		Ints:     map[string]int32{"mandelscope.iterations": 2000, "negative": -7},
	}
}

// specialFloats are values whose bits must survive: infinities, signed zeros, NaN patterns,
// extremes and subnormals.
var specialFloats = []uint32{
	0x7f800000, 0xff800000, 0x80000000, 0, 0x7fc00000, 0x7f800001, 0xffffffff, 0x7fbfffff,
	0x7f7fffff, 0xff7fffff, 0x00000001, 0x807fffff, 0x3f800000,
}

// randomCols returns random columns for h, in the order of h.Channels, with every special
// value in each.
func randomCols(h Header, seed uint64) []any {
	rng := rand.New(rand.NewPCG(seed, 1))
	n := h.Width * h.Height
	cols := make([]any, len(h.Channels))
	for i, c := range h.Channels {
		switch c.Type {
		case Uint:
			v := make([]uint32, n)
			for k := range v {
				v[k] = rng.Uint32() >> (rng.IntN(4) * 8)
			}
			v[0], v[n-1] = math.MaxUint32, 0
			if n > 2 {
				v[n/2] = math.MaxUint32 - 1
			}
			cols[i] = v
		case Float:
			v := make([]float32, n)
			for k := range v {
				if rng.IntN(3) == 0 {
					v[k] = math.Float32frombits(rng.Uint32())
				} else {
					v[k] = float32(rng.NormFloat64() * 100)
				}
			}
			for k, s := range specialFloats {
				v[(k*7919+i)%n] = math.Float32frombits(s)
			}
			cols[i] = v
		}
	}
	return cols
}

// lines returns lines [l0, l1) of the columns.
func lines(cols []any, width, l0, l1 int) []any {
	out := make([]any, len(cols))
	for i, c := range cols {
		switch v := c.(type) {
		case []uint32:
			out[i] = v[l0*width : l1*width]
		case []float32:
			out[i] = v[l0*width : l1*width]
		}
	}
	return out
}

// write writes cols in pieces of the given numbers of lines (the rest in one last piece).
func write(t testing.TB, f io.WriteSeeker, h Header, cols []any, pieces ...int) *Writer {
	t.Helper()
	w, err := NewWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	l := 0
	for _, p := range pieces {
		if err := w.WriteLines(lines(cols, h.Width, l, l+p)...); err != nil {
			t.Fatal(err)
		}
		l += p
	}
	if l < h.Height {
		if err := w.WriteLines(lines(cols, h.Width, l, h.Height)...); err != nil {
			t.Fatal(err)
		}
	}
	if w.Lines() != h.Height {
		t.Fatalf("Lines() = %d after all %d lines", w.Lines(), h.Height)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w
}

// sortedCols puts columns given in the order of h.Channels into name order.
func sortedCols(h Header, cols []any) []any {
	out := make([]any, 0, len(cols))
	for _, c := range sortedChannels(h.Channels) {
		for i, d := range h.Channels {
			if d.Name == c.Name {
				out = append(out, cols[i])
			}
		}
	}
	return out
}

// sameBits compares columns value by value, floats by their bits.
func sameBits(t *testing.T, what string, got, want []any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d columns, want %d", what, len(got), len(want))
	}
	for i := range want {
		switch w := want[i].(type) {
		case []uint32:
			g, ok := got[i].([]uint32)
			if !ok || len(g) != len(w) {
				t.Fatalf("%s: column %d is %T of %d, want []uint32 of %d", what, i, got[i], len(g), len(w))
			}
			for k := range w {
				if g[k] != w[k] {
					t.Fatalf("%s: column %d value %d = %d, want %d", what, i, k, g[k], w[k])
				}
			}
		case []float32:
			g, ok := got[i].([]float32)
			if !ok || len(g) != len(w) {
				t.Fatalf("%s: column %d is %T of %d, want []float32 of %d", what, i, got[i], len(g), len(w))
			}
			for k := range w {
				if math.Float32bits(g[k]) != math.Float32bits(w[k]) {
					t.Fatalf("%s: column %d value %d = %#x, want %#x", what, i, k, math.Float32bits(g[k]), math.Float32bits(w[k]))
				}
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, size := range [][2]int{{37, 21}, {1, 1}, {5, 16}, {3, 33}, {101, 70}, {2, 17}} {
		h := testHeader(size[0], size[1])
		cols := randomCols(h, uint64(size[0]*1000+size[1]))
		want := sortedCols(h, cols)
		var ref []byte
		for _, pieces := range [][]int{nil, {16}, {16, 16, 16, 16}, {32}} {
			if sum(pieces) >= h.Height && len(pieces) > 0 {
				continue
			}
			name := fmt.Sprintf("%dx%d/pieces%v", h.Width, h.Height, pieces)
			f := &memFile{}
			w := write(t, f, h, cols, pieces...)
			if w.Offset() != int64(len(f.b)) {
				t.Errorf("%s: Offset() = %d, file of %d bytes", name, w.Offset(), len(f.b))
			}
			// The pieces, and so the parallelism, do not change the file.
			if ref == nil {
				ref = f.b
			} else if !bytes.Equal(f.b, ref) {
				t.Errorf("%s: the file differs from the one written in one piece", name)
			}
			r, err := NewReader(bytes.NewReader(f.b), int64(len(f.b)))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got := r.Header()
			wantH := h
			wantH.Channels = sortedChannels(h.Channels)
			if !reflect.DeepEqual(got, wantH) {
				t.Errorf("%s: Header() = %+v, want %+v", name, got, wantH)
			}
			all, err := r.ReadLines(0, h.Height)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sameBits(t, name, all, want)
			for _, yn := range [][2]int{{0, 1}, {h.Height - 1, 1}, {h.Height / 3, h.Height - h.Height/3}, {h.Height / 2, (h.Height + 3) / 4}} {
				part, err := r.ReadLines(yn[0], yn[1])
				if err != nil {
					t.Fatalf("%s: ReadLines%v: %v", name, yn, err)
				}
				sameBits(t, fmt.Sprintf("%s ReadLines%v", name, yn), part, lines(want, h.Width, yn[0], yn[0]+yn[1]))
			}
		}
	}
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// TestStoredRaw: chunks that do not compress (random bits) are stored raw, with a packed
// size equal to the raw size, and read back.
func TestStoredRaw(t *testing.T) {
	h := Header{Width: 64, Height: 20, Channels: []Channel{{"R", Uint}}}
	cols := randomCols(h, 3)
	v := cols[0].([]uint32)
	rng := rand.New(rand.NewPCG(9, 9))
	for k := range v {
		v[k] = rng.Uint32()
	}
	f := &memFile{}
	write(t, f, h, cols)
	r, err := NewReader(bytes.NewReader(f.b), int64(len(f.b)))
	if err != nil {
		t.Fatal(err)
	}
	if got := int32(binary.LittleEndian.Uint32(f.b[r.offsets[0]+4:])); got != 16*64*4 {
		t.Errorf("random chunk packed to %d bytes, want stored raw (%d)", got, 16*64*4)
	}
	got, err := r.ReadLines(0, 20)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "stored raw", got, cols)
}

// assemble builds a file from a header's bytes and chunks (y, data), with its offset table.
func assemble(hdr []byte, ys []int32, chunks [][]byte) []byte {
	b := slices0(hdr)
	pos := len(hdr) + 8*len(chunks)
	for _, c := range chunks {
		b = binary.LittleEndian.AppendUint64(b, uint64(pos))
		pos += 8 + len(c)
	}
	for i, c := range chunks {
		b = binary.LittleEndian.AppendUint32(b, uint32(ys[i]))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(c)))
		b = append(b, c...)
	}
	return b
}

func slices0(b []byte) []byte { return append([]byte(nil), b...) }

// zipPack packs raw bytes as OpenEXR's ZIP compressor does, independently of the Writer's
// parallel path.
func zipPack(raw []byte) []byte {
	tmp := make([]byte, len(raw))
	zipPredict(tmp, raw)
	var out bytes.Buffer
	zw := zlib.NewWriter(&out)
	zw.Write(tmp)
	zw.Close()
	return out.Bytes()
}

// buildFile writes an image with the given compression (NONE, ZIPS or ZIP) and raw lines
// (each a line's bytes, channels in name order), without the Writer.
func buildFile(h Header, comp byte, rawLines [][]byte) []byte {
	hdr := encodeHeader(&h, h.Channels)
	i := bytes.Index(hdr, []byte("compression\x00compression\x00"))
	hdr[i+len("compression\x00compression\x00")+4] = comp
	lpc := linesPerChunk(comp)
	var ys []int32
	var chunks [][]byte
	for l := 0; l < h.Height; l += lpc {
		raw := bytes.Join(rawLines[l:min(l+lpc, h.Height)], nil)
		if comp != compNone {
			if z := zipPack(raw); len(z) < len(raw) {
				raw = z
			}
		}
		ys = append(ys, int32(l))
		chunks = append(chunks, raw)
	}
	return assemble(hdr, ys, chunks)
}

// TestReadCompressions reads NONE and ZIPS files, and HALF channels, as the OpenEXR library
// writes them.
func TestReadCompressions(t *testing.T) {
	halves := []uint16{0x3c00, 0xc000, 0x7bff, 0x0001, 0x0200, 0x7c00, 0xfc00, 0x8000, 0, 0x3555, 0x0400}
	wantHalf := []float32{1, -2, 65504, 1.0 / (1 << 24), 1.0 / (1 << 15), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 0, 0.333251953125, 1.0 / (1 << 14)}
	h := Header{Width: len(halves), Height: 19, Channels: []Channel{{"A", Half}, {"B", Uint}, {"C", Float}},
		Strings: map[string]string{}, Ints: map[string]int32{}}
	var rawLines [][]byte
	want := []any{[]float32{}, []uint32{}, []float32{}}
	for l := range h.Height {
		var b []byte
		for _, x := range halves {
			b = binary.LittleEndian.AppendUint16(b, x)
		}
		want[0] = append(want[0].([]float32), wantHalf...)
		for k := range halves {
			b = binary.LittleEndian.AppendUint32(b, uint32(l*100+k))
			want[1] = append(want[1].([]uint32), uint32(l*100+k))
		}
		for k := range halves {
			f := float32(l) - float32(k)/3
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
			want[2] = append(want[2].([]float32), f)
		}
		rawLines = append(rawLines, b)
	}
	for _, comp := range []byte{compNone, compZIPS, compZIP} {
		b := buildFile(h, comp, rawLines)
		r, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatalf("%s: %v", compressionName(comp), err)
		}
		if !reflect.DeepEqual(r.Header(), h) {
			t.Errorf("%s: Header() = %+v, want %+v", compressionName(comp), r.Header(), h)
		}
		got, err := r.ReadLines(0, h.Height)
		if err != nil {
			t.Fatalf("%s: %v", compressionName(comp), err)
		}
		sameBits(t, compressionName(comp), got, want)
		got, err = r.ReadLines(17, 2)
		if err != nil {
			t.Fatalf("%s: %v", compressionName(comp), err)
		}
		sameBits(t, compressionName(comp)+" 17..19", got, lines(want, h.Width, 17, 19))
	}
}

// TestDataWindowOffset: a data window that does not start at (0,0) is read from its first row.
func TestDataWindowOffset(t *testing.T) {
	h := Header{Width: 7, Height: 20, Channels: []Channel{{"N", Uint}}}
	cols := randomCols(h, 5)
	f := &memFile{}
	write(t, f, h, cols)
	b := f.b
	i := bytes.Index(b, []byte("dataWindow\x00box2i\x00")) + len("dataWindow\x00box2i\x00") + 4
	for k, v := range []int32{-3, 100, 3, 119} {
		binary.LittleEndian.PutUint32(b[i+4*k:], uint32(v))
	}
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.ReadLines(0, 20); err == nil || !strings.Contains(err.Error(), "starts at line 0, not 100") {
		t.Fatalf("chunks at y 0 in a window from y 100: %v", err)
	}
	for c, o := range r.offsets {
		binary.LittleEndian.PutUint32(b[o:], uint32(100+16*c))
	}
	got, err := r.ReadLines(0, 20)
	if err != nil {
		t.Fatal(err)
	}
	sameBits(t, "window from (-3,100)", got, cols)
}

func TestWriterErrors(t *testing.T) {
	ok := Header{Width: 4, Height: 20, Channels: []Channel{{"N", Uint}, {"F", Float}}}
	for _, c := range []struct {
		name string
		edit func(h *Header)
		want string
	}{
		{"zero width", func(h *Header) { h.Width = 0 }, "image size 0x20"},
		{"huge height", func(h *Header) { h.Height = 1<<20 + 1 }, "outside 1..1048576"},
		{"no channels", func(h *Header) { h.Channels = nil }, "no channels"},
		{"duplicate", func(h *Header) { h.Channels = append(h.Channels, Channel{"N", Float}) }, `channel "N" is listed twice`},
		{"long name", func(h *Header) { h.Channels[0].Name = strings.Repeat("x", 32) }, "longer than 31 bytes"},
		{"empty name", func(h *Header) { h.Channels[0].Name = "" }, "name is empty"},
		{"control byte", func(h *Header) { h.Channels[0].Name = "a\nb" }, "not printable"},
		{"half", func(h *Header) { h.Channels[0].Type = Half }, "writing HALF channels is not supported"},
		{"type 9", func(h *Header) { h.Channels[0].Type = 9 }, "unknown pixel type 9"},
		{"65 channels", func(h *Header) {
			for i := range 63 {
				h.Channels = append(h.Channels, Channel{fmt.Sprint("c", i), Float})
			}
		}, "65 channels, more than 64"},
		{"reserved", func(h *Header) { h.Strings = map[string]string{"dataWindow": "x"} }, "reserved"},
		{"big string", func(h *Header) { h.Strings = map[string]string{"s": strings.Repeat("x", 1<<16+1)} }, "more than 65536"},
		{"both", func(h *Header) { h.Strings = map[string]string{"s": ""}; h.Ints = map[string]int32{"s": 1} }, "both a string and an int"},
		{"long attribute", func(h *Header) { h.Ints = map[string]int32{strings.Repeat("i", 40): 1} }, "longer than 31"},
	} {
		h := ok
		h.Channels = append([]Channel(nil), ok.Channels...)
		c.edit(&h)
		_, err := NewWriter(&memFile{}, h)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "exr: ") {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}

	w, err := NewWriter(&memFile{}, ok)
	if err != nil {
		t.Fatal(err)
	}
	u16, f16 := make([]uint32, 64), make([]float32, 64)
	for _, c := range []struct {
		name string
		cols []any
		want string
	}{
		{"one column", []any{u16}, "got 1 columns for 2 channels"},
		{"swapped", []any{f16, u16}, "takes a []uint32, not []float32"},
		{"not a line multiple", []any{u16[:6], f16[:6]}, "not a positive multiple of the width 4"},
		{"unequal", []any{u16, f16[:60]}, "has 15 lines"},
		{"not 16 lines", []any{u16[:40], f16[:40]}, "not a multiple of 16"},
		{"past the end", []any{make([]uint32, 84), make([]float32, 84)}, "would pass the height 20"},
	} {
		if err := w.WriteLines(c.cols...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("WriteLines %s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	if err := w.WriteLines(u16, f16); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "Close after 16 of 20 lines") {
		t.Errorf("early Close: %v", err)
	}
	if err := w.WriteLines(u16[:16], f16[:16]); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLines(u16[:16], f16[:16]); err == nil {
		t.Error("WriteLines after Close succeeded")
	}
}

// TestResume: a write interrupted after some chunks and resumed gives the same bytes as an
// uninterrupted one; damaged files are refused.
func TestResume(t *testing.T) {
	h := testHeader(37, 101)
	cols := randomCols(h, 77)
	whole := &memFile{}
	write(t, whole, h, cols, 32)

	dir := t.TempDir()
	for _, done := range []int{0, 48, 96} {
		path := filepath.Join(dir, fmt.Sprint("resume", done, ".exr"))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWriter(f, h)
		if err != nil {
			t.Fatal(err)
		}
		if done > 0 {
			if err := w.WriteLines(lines(cols, h.Width, 0, done)...); err != nil {
				t.Fatal(err)
			}
		}
		end := w.Offset()
		// The crash: the writer is dropped, and a torn chunk follows the last whole one.
		if _, err := f.Write([]byte{byte(done), 0, 0, 0, 0xff, 0xff, 0, 0, 1, 2, 3}); err != nil {
			t.Fatal(err)
		}
		f.Close()

		f, err = os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, err = ResumeWriter(f, h, done, end)
		if err != nil {
			t.Fatalf("resume after %d lines: %v", done, err)
		}
		if w.Lines() != done || w.Offset() != end {
			t.Errorf("resumed writer: Lines %d Offset %d, want %d %d", w.Lines(), w.Offset(), done, end)
		}
		if err := w.WriteLines(lines(cols, h.Width, done, h.Height)...); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, whole.b) {
			t.Errorf("resumed after %d lines: the file (%d bytes) differs from the uninterrupted one (%d bytes)", done, len(got), len(whole.b))
		}
	}

	// A file written to line 64, then damaged in various ways; its values compress, so that
	// its chunks are zlib streams, not stored raw.
	part := &memFile{}
	w, err := NewWriter(part, h)
	if err != nil {
		t.Fatal(err)
	}
	smooth := lines(cols, h.Width, 0, 64)
	for i, c := range smooth {
		switch v := c.(type) {
		case []uint32:
			u := make([]uint32, len(v))
			for k := range u {
				u[k] = uint32(k / 7)
			}
			smooth[i] = u
		case []float32:
			f := make([]float32, len(v))
			for k := range f {
				f[k] = float32(k%100) / 4
			}
			smooth[i] = f
		}
	}
	if err := w.WriteLines(smooth...); err != nil {
		t.Fatal(err)
	}
	end := w.Offset()
	last := w.offsets[3]
	for _, c := range []struct {
		name  string
		edit  func(b []byte) []byte
		h     func(h *Header)
		lines int
		end   int64
		want  string
	}{
		{"truncated", func(b []byte) []byte { return b[:end-5] }, nil, 64, end, "the last chunk is damaged"},
		{"flipped byte in the last chunk", func(b []byte) []byte { b[end-3] ^= 0x40; return b }, nil, 64, end, "the last chunk is damaged"},
		{"last chunk's y", func(b []byte) []byte { b[last] = 99; return b }, nil, 64, end, "starts at line 99, not 48"},
		{"last chunk's size up", func(b []byte) []byte { b[last+4]++; return b }, nil, 64, end, "out of bounds"},
		{"last chunk's size down", func(b []byte) []byte { b[last+4]--; return b }, nil, 64, end, "end at byte"},
		{"end too far", nil, nil, 64, end + 1, "end at byte"},
		{"end too short", nil, nil, 64, end - 1, ""},
		{"lines not 16", nil, nil, 60, end, "not a multiple of 16"},
		{"lines beyond", nil, nil, 48, end, "end at byte"},
		{"other header", nil, func(h *Header) { h.Strings = map[string]string{"x": "y"} }, 64, end, "header is not the one"},
		{"other size", nil, func(h *Header) { h.Height = 102 }, 64, end, "header is not the one"},
		{"end before table", nil, nil, 0, 10, "before the end of the offset table"},
	} {
		b := slices0(part.b)
		if c.edit != nil {
			b = c.edit(b)
		}
		hh := h
		if c.h != nil {
			c.h(&hh)
		}
		_, err := ResumeWriter(&memFile{b: b, pos: 0}, hh, c.lines, c.end)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "exr: ") {
			t.Errorf("resume, %s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// BenchmarkWriteLines writes 4096-wide bands of the exports' five channels, 64 lines a call.
func BenchmarkWriteLines(b *testing.B) {
	const width, band = 4096, 64
	h := Header{Width: width, Height: 1 << 20, Channels: []Channel{{"N", Uint}, {"NF", Float}, {"DEX", Float}, {"DEY", Float}, {"T", Float}}}
	rng := rand.New(rand.NewPCG(1, 2))
	n := make([]uint32, width*band)
	fs := make([][]float32, 4)
	for i := range fs {
		fs[i] = make([]float32, width*band)
	}
	for k := range n {
		// Smooth like a render: counts that change slowly along a line, fractions and
		// derivatives with noise in their low bits.
		x, y := float64(k%width), float64(k/width)
		v := 300 + 200*math.Sin(x/97)*math.Cos(y/53)
		n[k] = uint32(v)
		fs[0][k] = float32(v - math.Floor(v))
		fs[1][k] = float32(math.Cos(x/31) + rng.Float64()*1e-3)
		fs[2][k] = float32(math.Sin(y/29) + rng.Float64()*1e-3)
		fs[3][k] = float32(v / 500)
	}
	w, err := NewWriter(&discard{}, h)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(width * band * 5 * 4))
	b.ReportAllocs()
	for b.Loop() {
		if w.Lines()+band > h.Height {
			b.Fatal("out of lines")
		}
		if err := w.WriteLines(n, fs[0], fs[1], fs[2], fs[3]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.Offset())/float64(int64(w.Lines())*width*5*4), "packed/raw")
}

// discard is an io.WriteSeeker that keeps nothing.
type discard struct{ pos int64 }

func (d *discard) Write(p []byte) (int, error) { d.pos += int64(len(p)); return len(p), nil }
func (d *discard) Seek(off int64, whence int) (int64, error) {
	if whence == io.SeekCurrent {
		off += d.pos
	}
	d.pos = off
	return off, nil
}

// TestLayout: Layout says where NewWriter puts the offset table, the bytes Close fills in.
func TestLayout(t *testing.T) {
	h := Header{Width: 37, Height: 21, Channels: []Channel{{"N", Uint}, {"NF", Float}}, Strings: map[string]string{"a": "b"}}
	var m memFile
	w, err := NewWriter(&m, h)
	if err != nil {
		t.Fatal(err)
	}
	ts, te, err := Layout(h)
	if err != nil || te != w.Offset() || te-ts != 8*2 {
		t.Fatalf("Layout %d..%d (%v), the writer's table ends at %d", ts, te, err, w.Offset())
	}
	if _, _, err := Layout(Header{Width: 0, Height: 1, Channels: h.Channels}); err == nil {
		t.Error("an empty image has a layout")
	}
}
