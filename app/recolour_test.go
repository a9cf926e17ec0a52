package app

import (
	"bytes"
	"context"
	"image"
	"strings"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/preview"
	"mandelscope/render/cpu"
)

// countingCPU is the CPU renderer counting the calls of either stage.
type countingCPU struct {
	cpu.Renderer
	calls atomic.Int64
}

func (c *countingCPU) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	c.calls.Add(1)
	return c.Renderer.Render(ctx, f, rect, dst)
}

func (c *countingCPU) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	c.calls.Add(1)
	return c.Renderer.Compute(ctx, f, rect, dst)
}

// pixelsOnly is the CPU renderer as it drew before data: Render alone.
type pixelsOnly struct{ r cpu.Renderer }

func (p *pixelsOnly) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	return p.r.Render(ctx, f, rect, dst)
}

// freshPicture is loc's picture at rest rendered anew, pixels only: the mean of its
// preview.AccumulateN^2 samples.
func freshPicture(t *testing.T, loc fractal.Location, w, h int) *image.RGBA {
	t.Helper()
	s := preview.New(&pixelsOnly{})
	n := preview.AccumulateN
	a := preview.NewAccumulator(w, h)
	for _, p := range preview.SampleOrder(n) {
		img, err := s.Sample(context.Background(), loc, w, h, p.X, p.Y, n, nil)
		if err != nil || img == nil {
			t.Fatalf("sample %v: %v", p, err)
		}
		if err := a.Add(img); err != nil {
			t.Fatal(err)
		}
	}
	return a.Mean()
}

// At rest, a change of colouring alone (the palette menu, the density slider, the colouring
// pop-up's method, Go to Location with only other colour keys) recolours the accumulated
// picture in place: nothing is computed, the picture is byte for byte a fresh render of the
// view in the new colouring, the accumulation stays at 16/16, and the frame trace gets a
// recolour result.
func TestWindowRecoloursInPlace(t *testing.T) {
	start := fractal.Home()
	start.Re = fractal.MustDecimal("-0.7436438870371")
	start.Im = fractal.MustDecimal("0.1318259042053")
	start.Zoom = fractal.MustDecimal("2000")
	start.Iterations = 500
	var traced []preview.Result
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(500, 420), Start: start,
		Accumulate: preview.AccumulateN, OnFrame: func(r preview.Result) { traced = append(traced, r) }})
	all := preview.AccumulateN * preview.AccumulateN
	done := "samples 16/16"
	waitFor(t, done, func() bool { return w.statusTime.Text == done })
	counting := &countingCPU{}
	w.rend.set(counting)
	pw, ph := w.ViewSize()

	menuItem := func(name string) func() {
		for _, it := range w.paletteMenu().Items {
			if it.Label == name {
				return it.Action
			}
		}
		t.Fatalf("no palette %q in the menu", name)
		return nil
	}
	steps := []struct {
		name   string
		change func()
	}{
		{"palette menu", menuItem("fire")},
		{"density slider", func() { w.densitySl.SetValue(2.5) }},
		{"colouring method", func() { w.shade.method.SetSelected(colour.MethodDistance) }},
		{"go to location", func() {
			l := w.Location()
			l.Color.Palette, l.Color.Method = "ocean", colour.MethodSlopes
			w.SetLocation(l)
		}},
	}
	for _, st := range steps {
		before := w.Location()
		n := len(traced)
		st.change()
		after := w.Location()
		if after.Color == before.Color || viewOf(after) != viewOf(before) {
			t.Fatalf("%s: the change was not one of colouring only: %s -> %s", st.name, before, after)
		}
		waitFor(t, st.name+"'s recolour", func() bool {
			for _, r := range traced[n:] {
				if r.Stats.Recoloured && r.Req.Loc.String() == after.String() {
					return true
				}
			}
			return false
		})
		if !strings.HasPrefix(w.statusTime.Text, "recolour ") || !strings.HasSuffix(w.statusTime.Text, ", samples 16/16") {
			t.Errorf("%s: status %q", st.name, w.statusTime.Text)
		}
		if c := counting.calls.Load(); c != 0 {
			t.Fatalf("%s: the renderer was called %d times", st.name, c)
		}
		var last preview.Result
		for _, r := range traced[n:] {
			last = r
		}
		if last.Samples != all || last.SamplesOf != all {
			t.Errorf("%s: samples %d/%d after the recolour", st.name, last.Samples, last.SamplesOf)
		}
		if !bytes.Equal(w.shownImage().Pix, freshPicture(t, after, pw, ph).Pix) {
			t.Errorf("%s: the recoloured picture differs from a fresh render in %+v", st.name, after.Color)
		}
	}
	// A change of view renders again.
	w.pan(30, 0)
	waitFor(t, "a render", func() bool { return counting.calls.Load() > 0 })
}

// viewOf is l without its colouring.
func viewOf(l fractal.Location) string {
	l.Color = colour.Coloring{}
	return l.String()
}
