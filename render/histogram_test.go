package render

import (
	"context"
	"image"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// TestHistogramAgainstCPU: in the histogram colouring the GL draws the picture the CPU
// renderer draws, in tiles (each colouring its pixels with the whole picture's equalisation),
// at a shallow and a perturbation view; the equalisation is the CPU's samples'.
func TestHistogramAgainstCPU(t *testing.T) {
	g := testGL(t, Options{MaxTile: 64})
	for _, c := range []struct {
		name string
		loc  fractal.Location
	}{{"seahorse", seahorseLoc(t)}, {"deep", deepLoc(t)}} {
		t.Run(c.name, func(t *testing.T) {
			l := c.loc
			l.Color = colour.Coloring{Palette: "classic", Density: 1, Method: colour.MethodHistogram}
			f, err := fractal.NewFrame(l, 150, 97).WithReference(context.Background(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			f.Loc.Color = f.Loc.Color.Equalise(computeCPU(t, f))
			got := renderGL(t, g, f)
			want := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
			if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Rect, want); err != nil {
				t.Fatal(err)
			}
			matchesCPU(t, "histogram_"+c.name, got, want)
		})
	}
}
