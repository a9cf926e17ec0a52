package render

import (
	"image"
	"math"
	"slices"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// Render's planning steps on their own, without a GL context: the checks of what it is asked
// to draw, the palette it uploads, and the tiles it draws.

func TestTilesOf(t *testing.T) {
	for _, c := range []struct {
		rect image.Rectangle
		side int
		want []image.Rectangle
	}{
		{image.Rect(0, 0, 10, 7), 4, []image.Rectangle{ // the last column and row what is left
			image.Rect(0, 0, 4, 4), image.Rect(4, 0, 8, 4), image.Rect(8, 0, 10, 4),
			image.Rect(0, 4, 4, 7), image.Rect(4, 4, 8, 7), image.Rect(8, 4, 10, 7),
		}},
		{image.Rect(0, 0, 8, 8), 4, []image.Rectangle{ // whole tiles: no empty ones after
			image.Rect(0, 0, 4, 4), image.Rect(4, 0, 8, 4), image.Rect(0, 4, 4, 8), image.Rect(4, 4, 8, 8),
		}},
		{image.Rect(3, 5, 9, 6), 4, []image.Rectangle{image.Rect(3, 5, 7, 6), image.Rect(7, 5, 9, 6)}}, // from rect.Min
		{image.Rect(3, 5, 9, 6), 100, []image.Rectangle{image.Rect(3, 5, 9, 6)}},
		{image.Rect(0, 0, 5, 1), 1, []image.Rectangle{
			image.Rect(0, 0, 1, 1), image.Rect(1, 0, 2, 1), image.Rect(2, 0, 3, 1), image.Rect(3, 0, 4, 1), image.Rect(4, 0, 5, 1),
		}},
	} {
		if got := tilesOf(c.rect, c.side); !slices.Equal(got, c.want) {
			t.Errorf("tilesOf(%v, %d) = %v, want %v", c.rect, c.side, got, c.want)
		}
	}
}

func TestCheckTarget(t *testing.T) {
	loc := fractal.Home()
	frame := func(w, h, iter int) fractal.Frame {
		l := loc
		l.Iterations = iter
		return fractal.Frame{Loc: l, W: w, H: h}
	}
	f := frame(20, 10, 100)
	rgba := func(w, h int) *image.RGBA { return image.NewRGBA(image.Rect(0, 0, w, h)) }
	short := rgba(6, 4)
	short.Pix = short.Pix[:3*short.Stride+6*4-1] // one byte short of the last row
	exact := rgba(6, 4)
	exact.Pix = exact.Pix[:3*exact.Stride+6*4] // the last row ends at the last byte
	oddStride := rgba(6, 4)
	oddStride.Stride = 6*4 + 2
	narrowStride := rgba(6, 4)
	narrowStride.Stride = 5 * 4
	inside := rgba(30, 30).SubImage(image.Rect(10, 10, 16, 14)).(*image.RGBA) // a part of a larger image
	for _, c := range []struct {
		name string
		f    fractal.Frame
		rect image.Rectangle
		dst  *image.RGBA
		err  string // "" for none, else a part of the error
	}{
		{"fits", f, image.Rect(0, 0, 6, 4), rgba(6, 4), ""},
		{"a larger destination", f, image.Rect(0, 0, 6, 4), rgba(7, 5), ""},
		{"a part of a larger image", f, image.Rect(14, 6, 20, 10), inside, ""},
		{"no destination", f, image.Rect(0, 0, 6, 4), nil, "destination (0,0) is smaller than tile (6,4)"},
		{"one column short", f, image.Rect(0, 0, 6, 4), rgba(5, 4), "smaller than tile"},
		{"one row short", f, image.Rect(0, 0, 6, 4), rgba(6, 3), "smaller than tile"},
		{"pixels one byte short", f, image.Rect(0, 0, 6, 4), short, "malformed"},
		{"pixels ending at the last row's end", f, image.Rect(0, 0, 6, 4), exact, ""},
		{"a stride of no whole pixels", f, image.Rect(0, 0, 6, 4), oddStride, "malformed (stride 26"},
		{"a stride narrower than the rect", f, image.Rect(0, 0, 6, 4), narrowStride, "malformed"},
		{"no frame", frame(0, 10, 100), image.Rect(0, 0, 6, 4), rgba(6, 4), "frame size 0x10 out of range"},
		{"the largest frame", frame(1<<24, 1<<24, 100), image.Rect(0, 0, 6, 4), rgba(6, 4), ""},
		{"one past the largest frame", frame(1<<24+1, 10, 100), image.Rect(0, 0, 6, 4), rgba(6, 4), "out of range"},
		{"the rect at the frame's far edge", f, image.Rect(14, 6, 20, 10), rgba(6, 4), ""},
		{"one past the frame's right edge", f, image.Rect(15, 6, 21, 10), rgba(6, 4), "lies outside the 20x10 frame"},
		{"one past the frame's bottom edge", f, image.Rect(14, 7, 20, 11), rgba(6, 4), "lies outside"},
		{"left of the frame", f, image.Rect(-1, 0, 5, 4), rgba(6, 4), "lies outside"},
		{"no iterations", frame(20, 10, 0), image.Rect(0, 0, 6, 4), rgba(6, 4), "iterations 0 must be at least 1"},
		{"one iteration", frame(20, 10, 1), image.Rect(0, 0, 6, 4), rgba(6, 4), ""},
	} {
		err := checkTarget(c.f, c.rect, c.dst)
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}

func TestPaletteStops(t *testing.T) {
	c := colour.DefaultColoring
	pal, err := c.ColorPalette()
	if err != nil {
		t.Fatal(err)
	}
	stops, err := paletteStops(c)
	if err != nil || len(stops) != 3*len(pal.Stops) {
		t.Fatalf("%d values, %v; want %d", len(stops), err, 3*len(pal.Stops))
	}
	for i, s := range pal.Stops {
		if got := stops[3*i : 3*i+3]; !slices.Equal(got, []float32{float32(s.R), float32(s.G), float32(s.B)}) {
			t.Errorf("stop %d: %v, want %v", i, got, s)
		}
	}
	c.Palette = "no such palette"
	if _, err := paletteStops(c); err == nil {
		t.Error("an unknown palette gave stops")
	}
}

func TestCheckNumbers(t *testing.T) {
	loc := fractal.Home()
	flat := fractal.NewFrame(loc, 40, 30)
	deep := loc
	deep.Zoom = fractal.MustDecimal("1e400")
	ext := fractal.NewFrame(deep, 40, 30)
	if ext.Precision() != fractal.PerturbationExp {
		t.Fatalf("the deep frame is %v", ext.Precision())
	}
	with := func(f fractal.Frame, change func(*fractal.Frame)) fractal.Frame {
		change(&f)
		return f
	}
	orbit := &fractal.Reference{Z: make([]complex128, 2)}
	for _, c := range []struct {
		name string
		f    fractal.Frame
		exp  bool
		err  string
	}{
		{"a plain frame", flat, false, ""},
		{"no spacing", with(flat, func(f *fractal.Frame) { f.Spacing = 0 }), false, "centre or spacing"},
		{"an infinite spacing", with(flat, func(f *fractal.Frame) { f.Spacing = math.Inf(1) }), false, "centre or spacing"},
		{"a NaN centre", with(flat, func(f *fractal.Frame) { f.Im = math.NaN() }), false, "centre or spacing"},
		{"an orbit of two values", with(flat, func(f *fractal.Frame) { f.Ref = orbit }), false, ""},
		{"an orbit of one value", with(flat, func(f *fractal.Frame) { f.Ref = &fractal.Reference{Z: make([]complex128, 1)} }), false, "reference orbit is empty"},
		{"an infinite offset from the reference", with(flat, func(f *fractal.Frame) { f.Ref, f.DRe = orbit, math.Inf(-1) }), false, "offset from its reference point"},
		{"extended exponents", ext, true, ""},
		{"extended, a NaN centre", with(ext, func(f *fractal.Frame) { f.Re = math.NaN() }), true, "centre, spacing or offset"},
		{"extended, a NaN offset", with(ext, func(f *fractal.Frame) { f.DImX = fractal.NewExp(math.NaN()) }), true, "centre, spacing or offset"},
	} {
		err := checkNumbers(c.f, c.exp)
		if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}
