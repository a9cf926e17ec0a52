package colour_test

import (
	"context"
	"image"
	"math"
	"slices"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/deeptest"
	"mandelscope/render/cpu"
)

// viewData computes the samples of a 96x54 frame of the view l with the CPU renderer.
func viewData(t *testing.T, l fractal.Location) *colour.Data {
	t.Helper()
	d := colour.NewData(image.Rect(0, 0, 96, 54))
	f := fractal.NewFrame(l, 96, 54)
	if err := (&cpu.Renderer{References: &fractal.ReferenceCache{}}).Compute(context.Background(), f, d.Rect, d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestAutoDensityShallowViews computes views with a few hundred iterations (the whole set,
// seahorse valley from zoom 1e3 to 1e6, the automatic iterations) and checks that the
// automatic density is exactly 1 there: today's pictures, unchanged.
func TestAutoDensityShallowViews(t *testing.T) {
	for _, v := range []string{
		"re=-0.5 im=0 zoom=1",
		"re=-0.7453 im=0.1127 zoom=1e3",
		"re=-0.7453 im=0.1127 zoom=1e4",
		"re=-0.74529 im=0.113075 zoom=1e5",
		"re=-0.743643887037151 im=0.131825904205330 zoom=1e6",
		"re=-0.743643887037151 im=0.131825904205330 zoom=1e10",
	} {
		l, err := fractal.ParseLocationText(v, fractal.Home())
		if err != nil {
			t.Fatal(err)
		}
		l.Iterations = l.AutoIterations()
		d := viewData(t, l)
		if got := l.Color.ResolveDensity(d); got.Density != 1 || got.AutoDensity {
			t.Errorf("%s, %d iterations: resolved %+v, want density 1", v, l.Iterations, got)
		}
		if got := l.Color.FollowDensity(d); got.Density != 1 {
			t.Errorf("%s: followed to %g", v, got.Density)
		}
	}
}

// TestAutoDensityShallowViewsTransferred: under sqrt and log the same views are not one flat
// colour (at density 1, log's range spans 0.04 to 0.08 of a cycle): the automatic density
// makes the range of the counts in view span more than half of AutoTransferCycles cycles.
func TestAutoDensityShallowViewsTransferred(t *testing.T) {
	for _, v := range []string{
		"re=-0.5 im=0 zoom=1",
		"re=-0.7436438870371587 im=0.1318259042053113 zoom=300",
		"re=-0.743643887037151 im=0.131825904205330 zoom=1e6",
		"re=0.3513073802 im=0.0953035978 zoom=23000",
	} {
		l, err := fractal.ParseLocationText(v, fractal.Home())
		if err != nil {
			t.Fatal(err)
		}
		l.Iterations = l.AutoIterations()
		d := viewData(t, l)
		for _, tr := range []string{colour.TransferSqrt, colour.TransferLog} {
			c := l.Color
			c.Transfer = tr
			got := c.ResolveDensity(d)
			nus := colour.DataNus(d, tr, colour.AutoSamples)
			slices.Sort(nus)
			at := func(q float64) float64 { return nus[int(math.Round(q*float64(len(nus)-1)))] }
			cycles := (at(colour.AutoHigh) - at(colour.AutoLow)) * got.Density / 32
			if !(cycles > colour.AutoTransferCycles/2.0) || cycles > colour.AutoTransferCycles {
				t.Errorf("%s, %s: density %g, the counts span %.3f cycles", v, tr, got.Density, cycles)
			}
			if f := c.FollowDensity(d); f.Density != got.Density {
				t.Errorf("%s, %s: followed to %g, resolved %g", v, tr, f.Density, got.Density)
			}
		}
	}
}

// deepLocation is deeptest.Location.
func deepLocation(t testing.TB, name string) fractal.Location { return deeptest.Location(t, name) }

// TestAutoDensityDeepViews computes deep views whose counts spread over tens of thousands
// of iterations (near the period 8007 and 136119 minibrots, 250,000 and 300,000 iterations),
// where density 1 is noise, and checks the density chosen: 0.003 to 0.01, the visible range
// at 6 to 12 cycles.
func TestAutoDensityDeepViews(t *testing.T) {
	if testing.Short() {
		t.Skip("deep views take a second")
	}
	for _, c := range []struct {
		name string
		want float64
	}{{"p8007", 1.0 / 256}, {"p136119z45", 1.0 / 128}} {
		l := deepLocation(t, c.name)
		d := viewData(t, l)
		got := l.Color.ResolveDensity(d)
		if got.AutoDensity || got.Density != c.want {
			t.Errorf("%s: resolved %+v, want density %g", c.name, got, c.want)
		}
		// An explicit density stays whatever the view.
		ex := l.Color
		ex.AutoDensity = false
		if ex.ResolveDensity(d) != ex {
			t.Errorf("%s: an explicit density changed", c.name)
		}
	}
}
