package cpu

import (
	"bytes"
	"context"
	"image"
	"testing"

	"mandelscope/fractal"
)

func testLocation() fractal.Location {
	l := fractal.Home()
	l.Re, l.Im, l.Zoom = fractal.MustDecimal("-0.7436"), fractal.MustDecimal("0.1318"), fractal.MustDecimal("300")
	l.Iterations = 500
	return l
}

// TestMatchesFrameEscape checks every pixel of a non-square render against the model's own
// escape count and palette, so the renderer cannot swap axes or mis-index rows.
func TestMatchesFrameEscape(t *testing.T) {
	for _, size := range [][2]int{{97, 41}, {41, 97}} {
		f := fractal.NewFrame(testLocation(), size[0], size[1])
		img := image.NewRGBA(image.Rect(0, 0, size[0], size[1]))
		if err := (&Renderer{Workers: 3}).Render(context.Background(), f, img.Bounds(), img); err != nil {
			t.Fatal(err)
		}
		pal, _ := f.Loc.Color.ColorPalette()
		for y := range size[1] {
			for x := range size[0] {
				n, nu := f.Escape(x, y)
				want := pal.Color(fractal.Result{N: n, Nu: nu}.Sample(), f.Loc.Color)
				if got := img.RGBAAt(x, y); got != want {
					t.Fatalf("%dx%d pixel %d,%d = %v, want %v", size[0], size[1], x, y, got, want)
				}
			}
		}
	}
}

// TestTilesMatchWhole renders a frame in odd-sized tiles into sub-images and compares the
// bytes with a one-piece render.
func TestTilesMatchWhole(t *testing.T) {
	f := fractal.NewFrame(testLocation(), 203, 117)
	whole := image.NewRGBA(image.Rect(0, 0, 203, 117))
	r := &Renderer{}
	if err := r.Render(context.Background(), f, whole.Bounds(), whole); err != nil {
		t.Fatal(err)
	}
	tiled := image.NewRGBA(whole.Bounds())
	for y := 0; y < 117; y += 61 {
		for x := 0; x < 203; x += 61 {
			rect := image.Rect(x, y, min(x+61, 203), min(y+61, 117))
			if err := r.Render(context.Background(), f, rect, tiled.SubImage(rect).(*image.RGBA)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !bytes.Equal(whole.Pix, tiled.Pix) {
		t.Error("tiles differ from the one-piece render")
	}
}

func TestRejectsSmallDestination(t *testing.T) {
	f := fractal.NewFrame(testLocation(), 64, 64)
	if err := (&Renderer{}).Render(context.Background(), f, image.Rect(0, 0, 64, 64), image.NewRGBA(image.Rect(0, 0, 10, 10))); err == nil {
		t.Error("a destination smaller than the tile was accepted")
	}
}

func BenchmarkRender(b *testing.B) {
	f := fractal.NewFrame(fractal.Home(), 640, 360)
	img := image.NewRGBA(image.Rect(0, 0, 640, 360))
	r := &Renderer{}
	b.SetBytes(int64(len(img.Pix)))
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Render(context.Background(), f, img.Bounds(), img); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(640*360*b.N)/b.Elapsed().Seconds()/1e6, "Mpx/s")
}
