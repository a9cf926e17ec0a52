package exr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// validFile is a small ZIP file of three chunks (8x40, a UINT and a FLOAT channel) with
// values that compress, and a string and an int attribute.
func validFile(t testing.TB) ([]byte, *Reader) {
	h := Header{Width: 8, Height: 40, Channels: []Channel{{"N", Uint}, {"F", Float}},
		Strings: map[string]string{"note": "hello"}, Ints: map[string]int32{"it": 5}}
	u, f := make([]uint32, 8*40), make([]float32, 8*40)
	for k := range u {
		u[k], f[k] = uint32(k/3), float32(k%9)/2
	}
	m := &memFile{}
	write(t, m, h, []any{u, f})
	r, err := NewReader(bytes.NewReader(m.b), int64(len(m.b)))
	if err != nil {
		t.Fatal(err)
	}
	return m.b, r
}

// attrValue returns the position of the value of the named attribute in b.
func attrValue(b []byte, name, typ string) int {
	i := bytes.Index(b, []byte(name+"\x00"+typ+"\x00"))
	if i < 0 {
		panic("no attribute " + name)
	}
	return i + len(name) + len(typ) + 2 + 4
}

func put32(b []byte, at int, v int32) []byte {
	binary.LittleEndian.PutUint32(b[at:], uint32(v))
	return b
}

// headerWith encodes a header as encodeHeader does, but for channels that need not be valid
// or sorted.
func headerWith(h Header, chs []Channel) []byte {
	return encodeHeader(&h, chs)
}

func TestHostile(t *testing.T) {
	valid, vr := validFile(t)
	o := vr.offsets
	dw := attrValue(valid, "dataWindow", "box2i")
	ch := attrValue(valid, "channels", "chlist") // "F\0", type, ...
	raw := 16 * vr.bpl
	zeros := zipPack(make([]byte, raw+100))
	short := zipPack(make([]byte, raw-10))
	many := Header{Width: 8, Height: 40, Ints: map[string]int32{}}
	for i := range 1100 {
		many.Ints[fmt.Sprint("i", i)] = int32(i)
	}
	var chans []Channel
	for i := range 65 {
		chans = append(chans, Channel{fmt.Sprintf("c%02d", i), Float})
	}
	small := Header{Width: 8, Height: 40}
	for _, c := range []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"empty", func(b []byte) []byte { return nil }, "too short"},
		{"magic", func(b []byte) []byte { b[0] = 'P'; return b }, "not an OpenEXR file"},
		{"version 1", func(b []byte) []byte { b[4] = 1; return b }, "version 1 is not supported"},
		{"tiled", func(b []byte) []byte { b[5] |= 0x02; return b }, "tiled EXR files are not supported"},
		{"deep", func(b []byte) []byte { b[5] |= 0x08; return b }, "deep EXR files are not supported"},
		{"multi-part", func(b []byte) []byte { b[5] |= 0x10; return b }, "multi-part EXR files are not supported"},
		{"unknown flag", func(b []byte) []byte { b[6] = 1; return b }, "unknown version flags"},
		{"PIZ", func(b []byte) []byte { b[attrValue(b, "compression", "compression")] = 4; return b }, "EXR compression PIZ is not supported (only NONE, ZIPS, ZIP)"},
		{"RLE", func(b []byte) []byte { b[attrValue(b, "compression", "compression")] = 1; return b }, "EXR compression RLE is not supported"},
		{"compression 200", func(b []byte) []byte { b[attrValue(b, "compression", "compression")] = 200; return b }, "EXR compression 200 is not supported"},
		{"huge window", func(b []byte) []byte { return put32(b, dw+8, 0x7fffffff) }, "larger than 1048576 per side"},
		{"negative window", func(b []byte) []byte { return put32(put32(b, dw, -0x80000000), dw+8, 0x7fffffff) }, "data window"},
		{"empty window", func(b []byte) []byte { return put32(b, dw+12, -1) }, "is empty or larger"},
		{"window larger than the file", func(b []byte) []byte { return put32(put32(b, dw+8, 1<<20-1), dw+12, 1<<20-1) }, "cannot fit in a file"},
		{"empty display window", func(b []byte) []byte { return put32(b, attrValue(b, "displayWindow", "box2i")+8, -5) }, "display window is empty"},
		{"line order", func(b []byte) []byte { b[attrValue(b, "lineOrder", "lineOrder")] = 1; return b }, "line order 1 is not supported"},
		{"attribute size past the end", func(b []byte) []byte { return put32(b, attrValue(b, "note", "string")-4, 1<<30) }, `attribute "note": size 1073741824 passes the end of the file`},
		{"negative attribute size", func(b []byte) []byte { return put32(b, attrValue(b, "note", "string")-4, -1) }, "passes the end"},
		{"wrong box size", func(b []byte) []byte { return put32(b, dw-4, 12) }, "has size 12, not 16"},
		{"wrong type", func(b []byte) []byte { copy(b[dw-10:], "box2f"); return b }, `"dataWindow" has type "box2f", not "box2i"`},
		{"missing lineOrder", func(b []byte) []byte { i := bytes.Index(b, []byte("lineOrder\x00")); b[i] = 'X'; return b }, "lacks the required attribute lineOrder"},
		{"duplicate attribute", func(b []byte) []byte { i := bytes.Index(b, []byte("it\x00int")); copy(b[i:], "note"); return b }, ""},
		{"unterminated name", func(b []byte) []byte { return b[:dw-8] }, "the file ends inside the type of attribute \"dataWindow\""},
		{"header cut", func(b []byte) []byte { return b[:dw+3] }, `attribute "dataWindow": size 16 passes the end of the file`},
		{"cut in a name", func(b []byte) []byte { return b[:bytes.Index(b, []byte("lineOrder"))+3] }, "ends inside an attribute name"},
		{"long attribute name", func(b []byte) []byte {
			return append(b[:8:8], append([]byte(strings.Repeat("a", 40)+"\x00int\x00"), valid[8:]...)...)
		}, "not terminated within 31 bytes"},
		{"unknown pixel type", func(b []byte) []byte { return put32(b, ch+2, 7) }, `channel "F": unknown pixel type 7`},
		{"subsampled", func(b []byte) []byte { return put32(b, ch+2+12, 2) }, "subsampling 1x2 is not supported"},
		{"unterminated channel list", func(b []byte) []byte { b[ch-4]--; return b }, "channel list is not terminated"},
		{"unsorted channels", func(b []byte) []byte { return headerWith(small, []Channel{{"N", Uint}, {"F", Float}}) }, "not sorted by name"},
		{"duplicate channels", func(b []byte) []byte { return headerWith(small, []Channel{{"F", Uint}, {"F", Float}}) }, "not sorted by name, without duplicates"},
		{"no channels", func(b []byte) []byte { return headerWith(small, nil) }, "no channels"},
		{"65 channels", func(b []byte) []byte { return headerWith(small, chans) }, "more than 64 channels"},
		{"1100 attributes", func(b []byte) []byte { return headerWith(many, []Channel{{"N", Uint}}) }, "more than 1024 attributes"},
		{"tiledesc", func([]byte) []byte {
			b := headerWith(small, []Channel{{"N", Uint}})
			return append(b[:len(b)-1], "tiles\x00tiledesc\x00\x09\x00\x00\x00123456789\x00"...)
		}, "tiled EXR files are not supported"},
		{"deep type", func(b []byte) []byte {
			h := small
			h.Strings = map[string]string{"type": "deepscanline"}
			return headerWith(h, []Channel{{"N", Uint}})
		}, `part type "deepscanline" is not supported`},
		{"table past the end", func(b []byte) []byte { return b[:o[0]-4] }, "offset table of 3 chunks passes the end"},
		{"offset past the end", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[o[0]-8:], 1<<40); return b }, "chunk 2: offset 1099511627776 is outside"},
		{"offset in the header", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[o[0]-24:], 10); return b }, "chunk 0: offset 10 is outside"},
		{"offsets out of order", func(b []byte) []byte {
			binary.LittleEndian.PutUint64(b[o[0]-24:], uint64(o[1]))
			binary.LittleEndian.PutUint64(b[o[0]-16:], uint64(o[0]))
			return b
		}, "chunk 1: offset"},
		{"truncated file", func(b []byte) []byte { return b[:o[2]+10] }, "truncated: chunk 2, the last, needs"},
		{"one byte short", func(b []byte) []byte { return b[:len(b)-1] }, "(1 missing)"},
		{"chunk y", func(b []byte) []byte { return put32(b, int(o[1]), 3) }, "chunk 1 at byte"},
		{"packed size over raw", func(b []byte) []byte {
			return assemble(b[:o[0]-24], []int32{0, 16, 32}, [][]byte{make([]byte, raw+1), make([]byte, raw), make([]byte, vr.bpl*8)})
		}, fmt.Sprintf("chunk 0: packed size %d for %d raw bytes", raw+1, raw)},
		{"zero packed size", func(b []byte) []byte { return put32(b, int(o[1])+4, 0) }, "chunk 1: packed size 0"},
		{"packed size into the next chunk", func(b []byte) []byte { return put32(b, int(o[0])+4, int32(o[1]-o[0])) }, "does not fit between"},
		{"zip bomb", func(b []byte) []byte {
			return assemble(b[:o[0]-24], []int32{0, 16, 32}, [][]byte{zeros, zeros, zeros})
		}, fmt.Sprintf("chunk 0: the zlib stream holds more than the %d bytes", raw)},
		{"short stream", func(b []byte) []byte {
			return assemble(b[:o[0]-24], []int32{0, 16, 32}, [][]byte{short, short, short})
		}, fmt.Sprintf("fewer than the %d of the chunk", raw)},
		{"bad checksum", func(b []byte) []byte { b[o[1]-1] ^= 1; return b }, "chunk 0: zlib: zlib: invalid checksum"},
		{"not zlib", func(b []byte) []byte { copy(b[o[0]+8:], "garbage!"); return b }, "chunk 0: zlib"},
		{"deflate cut", func(b []byte) []byte { put32(b, int(o[0])+4, 20); return b }, "chunk 0"},
	} {
		b := c.edit(append([]byte(nil), valid...))
		err := readAll(b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "exr: ") || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q is not one line starting with \"exr: \"", c.name, msg)
		}
	}
}

// readAll opens b and reads all its lines, then in bands of 5.
func readAll(b []byte) error {
	r, err := NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return err
	}
	h := r.Header()
	if _, err := r.ReadLines(0, h.Height); err != nil {
		return err
	}
	for y := 0; y < h.Height; y += 5 {
		if _, err := r.ReadLines(y, min(5, h.Height-y)); err != nil {
			return err
		}
	}
	return nil
}

func TestReadLinesRange(t *testing.T) {
	_, r := validFile(t)
	for _, yn := range [][2]int{{-1, 2}, {0, 0}, {0, 41}, {40, 1}, {39, 2}, {1 << 62, 1 << 62}} {
		if _, err := r.ReadLines(yn[0], yn[1]); err == nil || !strings.Contains(err.Error(), "outside the image's 40 lines") {
			t.Errorf("ReadLines%v: %v", yn, err)
		}
	}
}

// FuzzReader: no input panics, and what the Reader allocates stays in proportion to the input.
func FuzzReader(f *testing.F) {
	valid, _ := validFile(f)
	f.Add(valid)
	h := Header{Width: 3, Height: 5, Channels: []Channel{{"A", Half}, {"B", Uint}, {"C", Float}}}
	lines := make([][]byte, 5)
	for i := range lines {
		lines[i] = bytes.Repeat([]byte{byte(i)}, 3*10)
	}
	for _, comp := range []byte{compNone, compZIPS, compZIP} {
		f.Add(buildFile(h, comp, lines))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "exr: ") || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error %q is not one line starting with \"exr: \"", err)
			}
			return
		}
		h := r.Header()
		if total := int64(h.Width) * int64(h.Height) * int64(bytesPerPixel(h.Channels)); total > maxRatio*int64(len(b))+1<<16 {
			t.Fatalf("accepted a %dx%d image of %d channels from %d bytes", h.Width, h.Height, len(h.Channels), len(b))
		}
		if err := readAll(b); err != nil && (!strings.HasPrefix(err.Error(), "exr: ") || strings.ContainsAny(err.Error(), "\n\r")) {
			t.Fatalf("error %q is not one line starting with \"exr: \"", err)
		}
	})
}
