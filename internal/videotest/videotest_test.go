package videotest

import (
	"image"
	"testing"

	"mandelscope/fractal"
)

// TestTwins: Twins' fine image is the direct 4x4 export, and its two 2x2 images are the
// direct 2x2 exports of the view moved by 1/8 pixel one way and the other on both axes (a
// shallow view with few iterations, where moving the centre in float64 arithmetic rather than
// the grid changes a colour by a few levels at most), each much closer to its own moved
// export than to the unmoved one.
func TestTwins(t *testing.T) {
	const w, h = 48, 28
	loc := Seahorse("4", 60)
	zoom := loc.ZoomExp()
	even, odd, fine, err := Twins(loc, zoom, w, h)
	if err != nil {
		t.Fatal(err)
	}
	d4, err := Direct(loc, zoom, w, h, 4)
	if err != nil {
		t.Fatal(err)
	}
	if p := PSNR(d4, fine); p < 200 {
		t.Errorf("fine against the direct 4x4 export: %.1f dB, want them equal", p)
	}
	d2, err := Direct(loc, zoom, w, h, 2)
	if err != nil {
		t.Fatal(err)
	}
	// An eighth of an output pixel is half a sample of the 4x4 frame. Image rows go down,
	// the imaginary axis up.
	eighth := 0.5 * fractal.Spacing(loc.ZoomFloat(), 4*w, 4*h)
	for _, c := range []struct {
		name   string
		dx, dy float64 // the 2x2 grid's move in eighths of a pixel, right and down
		got    *image.RGBA
	}{{"even", -1, -1, even}, {"odd", 1, 1, odd}} {
		moved := loc
		moved.Re = fractal.DecimalFromFloat(loc.Re.Float64() + c.dx*eighth)
		moved.Im = fractal.DecimalFromFloat(loc.Im.Float64() - c.dy*eighth)
		want, err := Direct(moved, zoom, w, h, 2)
		if err != nil {
			t.Fatal(err)
		}
		own, unmoved := PSNR(want, c.got), PSNR(d2, c.got)
		if own < 38 || own < unmoved+10 {
			t.Errorf("%s: %.1f dB against the 2x2 export moved by (%g, %g)/8 pixel, %.1f dB against the unmoved one: want 38 dB or more, and 10 more than unmoved", c.name, own, c.dx, c.dy, unmoved)
		}
	}
}
