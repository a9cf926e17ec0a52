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
// where density 1 is noise, and checks the density chosen: 0.002 to 0.01, the visible range
// at 3 to 12 cycles (p8007's 1/512 is the neighbouring samples' bound, AutoDensityOf; the
// range alone gives 1/256, and a person finds about 0.003 by hand).
func TestAutoDensityDeepViews(t *testing.T) {
	if testing.Short() {
		t.Skip("deep views take a second")
	}
	for _, c := range []struct {
		name string
		want float64
	}{{"p8007", 1.0 / 512}, {"p136119z45", 1.0 / 128}} {
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

// TestAutoDensityDeepSpeckle: views at 1e19 and 1e20 with the automatic iterations (16,912
// and 18,400), whose counts jump by tens to hundreds of iterations between neighbouring
// samples. The range alone chose 1/4 and 1/8 there, a third of a cycle and more between a
// quarter of the neighbours: a picture "mostly noise" (issue 43). The bound by the
// neighbouring samples (AutoDensityOf) gives 1/8 and 1/32, and the window's FollowDensity
// agrees with the export's ResolveDensity.
func TestAutoDensityDeepSpeckle(t *testing.T) {
	if testing.Short() {
		t.Skip("deep views take a second")
	}
	for _, c := range []struct {
		name string
		zoom string
		iter int
		want float64
	}{{"kf1e50", "1e19", 16912, 1.0 / 8}, {"p136119z45", "1e20", 18400, 1.0 / 32}} {
		l := deepLocation(t, c.name)
		l.Zoom = fractal.MustDecimal(c.zoom)
		l.Iterations = c.iter // the export's automatic count there (preview.AutoCount)
		d := viewData(t, l)
		nus, steps := colour.DataSample(d, "", colour.AutoSamples)
		if alone := colour.AutoDensity(nus, ""); !(alone > c.want) {
			t.Errorf("%s at %s: the range alone gives %g, want more than %g (the view is not the case)", c.name, c.zoom, alone, c.want)
		}
		if got := l.Color.ResolveDensity(d); got.Density != c.want {
			t.Errorf("%s at %s, %d iterations: resolved %g, want %g", c.name, c.zoom, l.Iterations, got.Density, c.want)
		}
		if got := l.Color.FollowDensity(d); got.Density != c.want {
			t.Errorf("%s at %s: followed to %g, want %g", c.name, c.zoom, got.Density, c.want)
		}
		// The quantile of the neighbours' differences spans at most AutoLocalCycles there,
		// and more one step up.
		v := make([]float64, len(steps))
		for i, x := range steps {
			v[i] = math.Abs(x)
		}
		if len(v) < colour.AutoMinSamples {
			t.Fatalf("%s at %s: %d neighbouring pairs", c.name, c.zoom, len(v))
		}
		slices.Sort(v)
		q := v[int(math.Round(colour.AutoLocalQuantile*float64(len(v)-1)))]
		if at, up := q*c.want/32, q*2*c.want/32; at > colour.AutoLocalCycles || up <= colour.AutoLocalCycles {
			t.Errorf("%s at %s: the neighbours' quantile spans %.3f cycles, %.3f one step up", c.name, c.zoom, at, up)
		}
	}
}
