package render

import (
	"context"
	"image"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// TestRingsOnCPU: a frame laid out as rings (an exponential map) is computed and drawn by
// the CPU renderer, sample for sample and pixel for pixel, since the shaders draw grids.
func TestRingsOnCPU(t *testing.T) {
	g := testGL(t, Options{})
	l := fractal.Home()
	l.Zoom = fractal.MustDecimal("4")
	f := fractal.NewRingFrame(l, 36, 8, 30)
	want := colour.NewData(image.Rect(0, 0, 36, 8))
	if err := (&cpu.Renderer{}).Compute(context.Background(), f, want.Rect, want); err != nil {
		t.Fatal(err)
	}
	got := colour.NewData(want.Rect)
	if err := g.Compute(context.Background(), f, got.Rect, got); err != nil {
		t.Fatal(err)
	}
	for i := range want.Pix {
		if got.Pix[i] != want.Pix[i] {
			t.Fatalf("sample %d: %v, the CPU renderer's %v", i, got.Pix[i], want.Pix[i])
		}
	}
	img, cimg := image.NewRGBA(want.Rect), image.NewRGBA(want.Rect)
	if err := g.Render(context.Background(), f, img.Rect, img); err != nil {
		t.Fatal(err)
	}
	if err := (&cpu.Renderer{}).Render(context.Background(), f, cimg.Rect, cimg); err != nil {
		t.Fatal(err)
	}
	if string(img.Pix) != string(cimg.Pix) {
		t.Fatal("the drawn ring frame differs from the CPU renderer's")
	}
	if m := g.Mode(f); m != "rings (CPU: the shaders draw grids)" {
		t.Fatalf("Mode %q", m)
	}
}
