package exr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// These tests check the Writer against the OpenEXR library, through Debian's openexr tools
// (apt-get install openexr); they are skipped where the tools are missing.

func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (Debian's openexr package): %v", name, err)
	}
	return p
}

// writeTestFile writes an image of testHeader's channels with random values to dir; smooth
// values, but for the special ones, when smooth is set, so that chunks are zlib streams
// rather than stored raw.
func writeTestFile(t *testing.T, dir string, w, h int, smooth bool) (string, Header, []any) {
	t.Helper()
	hd := testHeader(w, h)
	cols := randomCols(hd, uint64(w*h))
	if smooth {
		for i, c := range cols {
			switch v := c.(type) {
			case []uint32:
				for k := range v {
					if v[k] != 0 && v[k] < math.MaxUint32-1 {
						v[k] = uint32(k / 7)
					}
				}
			case []float32:
				for k := range v {
					if !slices.Contains(specialFloats, math.Float32bits(v[k])) {
						v[k] = float32(k%100)/4 + float32(i)
					}
				}
			}
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("%dx%d-%v.exr", w, h, smooth))
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	var pieces []int
	if h > 16 {
		pieces = []int{16}
	}
	write(t, f, hd, cols, pieces...)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path, hd, sortedCols(hd, cols)
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestExrheader(t *testing.T) {
	exrheader := tool(t, "exrheader")
	path, _, _ := writeTestFile(t, t.TempDir(), 37, 21, false)
	out := run(t, exrheader, path)
	lines := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		lines[strings.TrimSpace(l)] = true
	}
	for _, want := range []string{
		"file format version: 2, flags 0x0",
		"channels (type chlist):",
		"DEX, 32-bit floating-point, sampling 1 1",
		"DEY, 32-bit floating-point, sampling 1 1",
		"N, 32-bit unsigned integer, sampling 1 1",
		"NF, 32-bit floating-point, sampling 1 1",
		"T, 32-bit floating-point, sampling 1 1",
		"compression (type compression): zip, multi-scanline blocks",
		"dataWindow (type box2i): (0 0) - (36 20)",
		"displayWindow (type box2i): (0 0) - (36 20)",
		"lineOrder (type lineOrder): increasing y",
		"pixelAspectRatio (type float): 1",
		"screenWindowCenter (type v2f): (0 0)",
		"screenWindowWidth (type float): 1",
		`mandelscope.location (type string): "-0.75, 0.1, 1e3"`,
		"mandelscope.iterations (type int): 2000",
		"negative (type int): -7",
	} {
		if !lines[want] {
			t.Errorf("exrheader does not print %q; it printed:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "comments (type string): \"a \"quoted\" value\non two lines\"") {
		t.Errorf("exrheader does not print the two-line comment; it printed:\n%s", out)
	}
	// The channels come in name order.
	if i, j := strings.Index(out, "DEX,"), strings.Index(out, "T,"); i < 0 || j < i {
		t.Errorf("channels out of order:\n%s", out)
	}
}

func TestExrinfo(t *testing.T) {
	exrinfo := tool(t, "exrinfo")
	path, _, _ := writeTestFile(t, t.TempDir(), 37, 21, false)
	out := run(t, exrinfo, "--strict", "--all-metadata", "--verbose", path)
	for _, want := range []string{
		"parts: 1",
		"channels: chlist 5 channels",
		"'N': uint samp 1 1",
		"'NF': float samp 1 1",
		"'DEX': float samp 1 1",
		"compression: compression 'zip' (0x03)",
		"dataWindow: box2i [ 0, 0 - 36 20 ] 37 x 21",
		"mandelscope.location: string '-0.75, 0.1, 1e3'",
		"mandelscope.iterations: int 2000",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exrinfo does not print %q; it printed:\n%s", want, out)
		}
	}
}

// TestOpenEXRDecodes has the OpenEXR library decode every pixel of our files: exrmaketiled
// reads the scanline file through the library's frame buffers and writes it again as one
// tile (uncompressed, then ZIP); the test reads that tile with its own small parser and
// compares every value, bit for bit. The ZIP tile also checks our decoder against the
// library's encoder.
func TestOpenEXRDecodes(t *testing.T) {
	exrmaketiled := tool(t, "exrmaketiled")
	dir := t.TempDir()
	zipped := 0
	for _, c := range []struct {
		w, h   int
		smooth bool
	}{{37, 21, false}, {37, 21, true}, {101, 70, false}, {101, 70, true}, {1, 1, false}, {4096, 17, false}, {333, 47, true}} {
		path, h, want := writeTestFile(t, dir, c.w, c.h, c.smooth)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		for i, o := range r.offsets {
			if int(binary.LittleEndian.Uint32(b[o+4:])) < min(LinesPerChunk, h.Height-i*LinesPerChunk)*r.bpl {
				zipped++
			}
		}
		for _, z := range []string{"none", "zip"} {
			out := filepath.Join(dir, fmt.Sprintf("tiled-%s-%dx%d.exr", z, h.Width, h.Height))
			run(t, exrmaketiled, "-o", "-z", z, "-t", fmt.Sprint(h.Width), fmt.Sprint(h.Height), path, out)
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			raw := singleTile(t, b, h.Width*h.Height*bytesPerPixel(h.Channels))
			got := make([]any, len(want))
			p := 0
			for i, c := range sortedChannels(h.Channels) {
				if c.Type == Uint {
					got[i] = make([]uint32, h.Width*h.Height)
				} else {
					got[i] = make([]float32, h.Width*h.Height)
				}
			}
			for l := range h.Height {
				for i := range got {
					for k := range h.Width {
						v := binary.LittleEndian.Uint32(raw[p:])
						p += 4
						switch g := got[i].(type) {
						case []uint32:
							g[l*h.Width+k] = v
						case []float32:
							g[l*h.Width+k] = math.Float32frombits(v)
						}
					}
				}
			}
			sameBits(t, fmt.Sprintf("%dx%d through exrmaketiled -z %s", h.Width, h.Height, z), got, want)
		}
	}
	if zipped < 10 {
		t.Errorf("only %d chunks were zlib streams; the rest were stored raw", zipped)
	}
}

// singleTile returns the unpacked data of the one tile of a tiled file that exrmaketiled
// wrote, of rawSize bytes: after the header, an offset table of one entry, and at that offset
// the tile's x, y, level x, level y, packed size and data.
func singleTile(t *testing.T, b []byte, rawSize int) []byte {
	t.Helper()
	le := binary.LittleEndian
	if len(b) < 8 || le.Uint32(b[4:])&0x200 == 0 {
		t.Fatal("exrmaketiled's output is not a tiled file")
	}
	p := 8
	for b[p] != 0 {
		name := b[p : p+bytes.IndexByte(b[p:], 0)]
		p += len(name) + 1
		typ := b[p : p+bytes.IndexByte(b[p:], 0)]
		p += len(typ) + 1
		size := int(le.Uint32(b[p:]))
		p += 4
		if string(name) == "compression" && b[p] != 0 && b[p] != compZIP {
			t.Fatalf("tile compression %d", b[p])
		}
		p += size
	}
	p++
	off := int(le.Uint64(b[p:]))
	if tx, ty, lx, ly := le.Uint32(b[off:]), le.Uint32(b[off+4:]), le.Uint32(b[off+8:]), le.Uint32(b[off+12:]); tx|ty|lx|ly != 0 {
		t.Fatalf("tile (%d %d %d %d), want (0 0 0 0)", tx, ty, lx, ly)
	}
	packed := int(le.Uint32(b[off+16:]))
	data := b[off+20 : off+20+packed]
	if packed == rawSize {
		return data
	}
	tmp := make([]byte, rawSize)
	var zr io.ReadCloser
	if err := inflate(&zr, data, tmp); err != nil {
		t.Fatalf("the library's ZIP tile: %v", err)
	}
	raw := make([]byte, rawSize)
	zipUnpredict(raw, tmp)
	return raw
}
