package export

import (
	"context"
	"image"
	"path/filepath"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// TestHistogramExport: an export in the histogram colouring, drawn in strips of 17 rows, is
// the whole picture's samples coloured at once with the equalisation of all of them: every
// strip reads the picture's counts, not its own. A strip's own counts would give another
// picture (checked, so that the test can tell the two apart).
func TestHistogramExport(t *testing.T) {
	opt := rawOpts(1)
	opt.Location.Color.Method = colour.MethodHistogram
	path, _ := export(t, t.TempDir(), opt)
	got := readPNG(t, path)

	d := computeAll(t, opt)
	c := opt.Location.Color.Equalise(d)
	k, err := colour.NewColourer(c)
	if err != nil {
		t.Fatal(err)
	}
	want := image.NewRGBA(d.Rect)
	k.Paint(want, d)
	if n := differingPixels(got, want); n != 0 {
		t.Fatalf("%d pixels differ from the whole picture coloured at once", n)
	}

	// The first strip coloured with its own counts differs.
	top := image.Rect(0, 0, d.Rect.Dx(), 17)
	own := opt.Location.Color.Equalise(d.SubData(top))
	ko, err := colour.NewColourer(own)
	if err != nil {
		t.Fatal(err)
	}
	alone := image.NewRGBA(top)
	ko.Paint(alone, d.SubData(top))
	if differingPixels(alone, want.SubImage(top).(*image.RGBA)) == 0 {
		t.Error("a strip's own counts colour it as the picture's do: the test cannot tell them apart")
	}
}

// TestHistogramExportCounts: the export counts the whole picture before drawing, once per
// strip, and the density of an automatic histogram colouring is 1.
func TestHistogramExportCounts(t *testing.T) {
	opt := rawOpts(1)
	opt.Location.Color.Method = colour.MethodHistogram
	opt.Location.Color.AutoDensity, opt.Location.Color.Density = true, 3
	r := &countingComputer{Renderer: &cpu.Renderer{}}
	sum, err := Export(context.Background(), r, filepath.Join(t.TempDir(), "h.png"), opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Location.Color.Density != 1 || sum.Location.Color.AutoDensity {
		t.Errorf("density %v (auto %v), want 1", sum.Location.Color.Density, sum.Location.Color.AutoDensity)
	}
	plan, err := newStripPlan(opt.Width, opt.Height, 1, opt.Tile, opt.StripBytes)
	if err != nil {
		t.Fatal(err)
	}
	if r.computed != int64(opt.Width)*int64(opt.Height) || r.calls != plan.Strips {
		t.Errorf("counting computed %d samples in %d calls, want %d in %d strips", r.computed, r.calls, opt.Width*opt.Height, plan.Strips)
	}
}

// countingComputer counts the samples Compute is asked for.
type countingComputer struct {
	*cpu.Renderer
	computed int64
	calls    int
}

func (c *countingComputer) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	c.computed += int64(rect.Dx()) * int64(rect.Dy())
	c.calls++
	return c.Renderer.Compute(ctx, f, rect, dst)
}

// differingPixels counts the pixels of a and b (of one size) that differ.
func differingPixels(a, b *image.RGBA) int {
	n := 0
	for y := range a.Rect.Dy() {
		for x := range a.Rect.Dx() {
			if a.RGBAAt(a.Rect.Min.X+x, a.Rect.Min.Y+y) != b.RGBAAt(b.Rect.Min.X+x, b.Rect.Min.Y+y) {
				n++
			}
		}
	}
	return n
}
