// Package imagetest holds the image helpers that Mandelscope's tests share: decoding a PNG
// into an *image.RGBA, measuring how closely two pictures agree (the rendering contract's
// "pixels within 6/255 on every channel"), checking that the pixels that differ are isolated
// noise rather than a seam or a wrong band, and writing the metadata of a PNG of any size;
// and the one rule for a test that finds no OpenGL (NoGL).
package imagetest

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/draw"
	"image/png"
	"os"
	"testing"
)

// Decode reads the PNG at path with the standard library's decoder into an *image.RGBA whose
// bounds start at (0, 0); it fails the test if the file does not decode.
func Decode(t testing.TB, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("image/png cannot decode %s: %v", path, err)
	}
	out := image.NewRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

// Agreement returns the fraction of pixels of a and b whose four channels all lie within tol
// of each other, and the first pixel (row by row, relative to each image's bounds) that does
// not, or (-1, -1). Images of different sizes agree nowhere.
func Agreement(a, b *image.RGBA, tol int) (float64, image.Point) {
	bad := image.Pt(-1, -1)
	if a.Bounds().Size() != b.Bounds().Size() {
		return 0, image.Point{}
	}
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	if w == 0 || h == 0 {
		return 0, bad
	}
	ok := 0
	for y := range h {
		ra := a.Pix[a.PixOffset(a.Bounds().Min.X, a.Bounds().Min.Y+y):]
		rb := b.Pix[b.PixOffset(b.Bounds().Min.X, b.Bounds().Min.Y+y):]
		for x := range w {
			good := true
			for c := range 4 {
				if d := int(ra[4*x+c]) - int(rb[4*x+c]); d > tol || d < -tol {
					good = false
				}
			}
			if good {
				ok++
			} else if bad.X < 0 {
				bad = image.Pt(x, y)
			}
		}
	}
	return float64(ok) / float64(w*h), bad
}

// The limits Isolated allows: honest differences between two renderers (a float rounding that
// moves a pixel across an escape-count boundary) are single pixels or short runs along a
// filament (runs of 5 are seen between emulated and native double at zoom 1e10); a seam, a
// shifted tile or a wrong row or band differs along a whole line.
const (
	// MaxRun is the longest run of differing pixels along a row or a column that Isolated
	// accepts.
	MaxRun = 8
	// MaxLineFraction is the largest fraction of one row or one column that may differ.
	MaxLineFraction = 0.25
)

// Scatter describes how the differing pixels of two images lie.
type Scatter struct {
	Differing  int         // pixels with a channel more than tol apart
	LongestRun int         // the longest run of differing pixels along a row or a column
	RunAt      image.Point // where that run starts (relative to the bounds' Min)
	RunIsRow   bool        // the run lies along a row (else along a column)
	WorstLine  float64     // the largest fraction of one row or one column that differs
	LineIsRow  bool        // that line is a row (else a column)
	LineIndex  int         // its y (a row) or x (a column), relative to the bounds' Min
}

// Scattering measures how the pixels of a and b that differ by more than tol on some channel
// lie. a and b must be the same size (Isolated checks).
func Scattering(a, b *image.RGBA, tol int) Scatter {
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	diff := make([]bool, w*h)
	var s Scatter
	for y := range h {
		ra := a.Pix[a.PixOffset(a.Bounds().Min.X, a.Bounds().Min.Y+y):]
		rb := b.Pix[b.PixOffset(b.Bounds().Min.X, b.Bounds().Min.Y+y):]
		for x := range w {
			for c := range 4 {
				if d := int(ra[4*x+c]) - int(rb[4*x+c]); d > tol || d < -tol {
					diff[y*w+x] = true
					s.Differing++
					break
				}
			}
		}
	}
	// line scans one row (row true, index y) or column: its runs and its count.
	line := func(row bool, i, n int, at func(j int) bool) {
		run, count := 0, 0
		for j := range n {
			if !at(j) {
				run = 0
				continue
			}
			run++
			count++
			if run > s.LongestRun {
				s.LongestRun, s.RunIsRow = run, row
				if row {
					s.RunAt = image.Pt(j-run+1, i)
				} else {
					s.RunAt = image.Pt(i, j-run+1)
				}
			}
		}
		if f := float64(count) / float64(n); f > s.WorstLine {
			s.WorstLine, s.LineIsRow, s.LineIndex = f, row, i
		}
	}
	for y := range h {
		line(true, y, w, func(x int) bool { return diff[y*w+x] })
	}
	for x := range w {
		line(false, x, h, func(y int) bool { return diff[y*w+x] })
	}
	return s
}

// Isolated returns nil when the pixels of a and b that differ by more than tol are isolated,
// as honest rounding noise between two renderers is: no run of more than MaxRun differing
// pixels along a row or a column, and no row or column with more than MaxLineFraction of its
// pixels differing. Otherwise it says where the run or the line is: one bad row in 64 (a seam
// between tiles or strips) fails even when 98% of all pixels agree. Images of different sizes
// are an error.
func Isolated(a, b *image.RGBA, tol int) error {
	if a.Bounds().Size() != b.Bounds().Size() {
		return fmt.Errorf("images differ in size: %v and %v", a.Bounds().Size(), b.Bounds().Size())
	}
	s := Scattering(a, b, tol)
	kind := map[bool]string{true: "row", false: "column"}
	if s.LongestRun > MaxRun {
		return fmt.Errorf("%d differing pixels in a run along a %s from %v (at most %d allowed): a seam or a wrong band, not noise",
			s.LongestRun, kind[s.RunIsRow], s.RunAt, MaxRun)
	}
	if s.WorstLine > MaxLineFraction {
		return fmt.Errorf("%.0f%% of %s %d differs (at most %.0f%% allowed): a seam or a wrong band, not noise",
			100*s.WorstLine, kind[s.LineIsRow], s.LineIndex, 100*MaxLineFraction)
	}
	return nil
}

// MetadataPNG returns what a reader of a PNG's metadata sees of a file that claims to be
// width x height pixels of 8-bit RGB: the signature, IHDR, one tEXt chunk per entry of text
// (in order, each key and value written as given) and IEND, with no image data in between,
// so that a test can claim any size, a billion rows included, without writing its pixels.
// text is a list of key/value pairs such as export.MetadataText returns.
func MetadataPNG[T ~struct{ Key, Value string }](width, height int, text []T) []byte {
	chunk := func(b []byte, typ string, data []byte) []byte {
		b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
		start := len(b)
		b = append(b, typ...)
		b = append(b, data...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
	}
	b := []byte("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits per channel, RGB; deflate, adaptive filters, no interlace
	b = chunk(b, "IHDR", ihdr[:])
	for _, t := range text {
		kv := struct{ Key, Value string }(t)
		b = chunk(b, "tEXt", []byte(kv.Key+"\x00"+kv.Value))
	}
	return chunk(b, "IEND", nil)
}

// RequireGLEnv names the environment variable that makes a missing OpenGL a failure: make
// test and CI set it to 1, since they always have one (Mesa's llvmpipe under Xvfb).
const RequireGLEnv = "MANDELSCOPE_REQUIRE_GL"

// NoGL ends a test that needs OpenGL and has none, saying why: it fails when RequireGLEnv is
// 1, and skips otherwise.
func NoGL(tb testing.TB, why string) {
	tb.Helper()
	if os.Getenv(RequireGLEnv) == "1" {
		tb.Fatalf("%s=1 but %s", RequireGLEnv, why)
	}
	tb.Skip(why)
}
