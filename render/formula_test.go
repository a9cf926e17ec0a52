package render

import (
	"context"
	"image"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// TestFormulaGoesToCPU: the shaders draw the Mandelbrot set's formula only, so a frame of
// another formula, shallow or deep, is drawn and computed by the CPU renderer (the same
// pixels and samples), and Mode says so.
func TestFormulaGoesToCPU(t *testing.T) {
	g := testGL(t, Options{})
	for _, zoom := range []string{"1", "1e20"} {
		l := fractal.Home()
		l.Formula = fractal.Formula{Kind: fractal.BurningShip}
		l.Re, l.Im = fractal.MustDecimal("-1.7626"), fractal.MustDecimal("-0.0284")
		l.Zoom = fractal.MustDecimal(zoom)
		l.Iterations = 300
		f := fractal.NewFrame(l, 40, 24)
		if m := g.Mode(f); !strings.Contains(m, "(CPU: formula burning-ship has no GPU path yet)") {
			t.Errorf("zoom %s: Mode = %q", zoom, m)
		}
		before := g.Stats()
		got := renderGL(t, g, f)
		want := image.NewRGBA(got.Bounds())
		if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
			t.Fatal(err)
		}
		if string(got.Pix) != string(want.Pix) {
			t.Errorf("zoom %s: the GL renderer's picture differs from the CPU renderer's", zoom)
		}
		data := colour.NewData(image.Rect(0, 0, f.W, f.H))
		if err := g.Compute(context.Background(), f, data.Rect, data); err != nil {
			t.Fatal(err)
		}
		if s := g.Stats(); s.CPUFrames != before.CPUFrames+2 || s.Tiles != before.Tiles {
			t.Errorf("zoom %s: %d frames to the CPU and %d GL tiles, want 2 and 0", zoom, s.CPUFrames-before.CPUFrames, s.Tiles-before.Tiles)
		}
	}
}
