package app

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/preview"
	"mandelscope/render"
)

// accumLoc is a boundary-heavy shallow view in seahorse valley. At zoom 300 and 1280x720,
// or at zoom 1000 and 320x180, a sample's spacing says float32 but the 4x4 export's double
// (the samples take the export's precision: Frame.MinPrecision).
func accumLoc(zoom string) fractal.Location {
	l := fractal.Home()
	l.Re = fractal.MustDecimal("-0.7436438870371")
	l.Im = fractal.MustDecimal("0.1318259042053")
	l.Zoom = fractal.MustDecimal(zoom)
	l.Iterations = 400
	return l
}

// On the GL renderer the accumulated picture is the GL renderer's 4x4 export of the view,
// within the renderers' tolerance.
func TestAccumulatedGLIsTheExport(t *testing.T) {
	g := newGL(t)
	const w, h, n = 320, 180, preview.AccumulateN
	loc := accumLoc("1000")
	s := preview.New(g)
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
	path := filepath.Join(t.TempDir(), "x.png")
	if _, err := export.Export(context.Background(), g, path,
		export.Options{Location: loc, Width: w, Height: h, Supersample: n, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	exp, got := imagetest.Decode(t, path), a.Mean()
	if err := imagetest.Isolated(got, exp, 6); err != nil {
		t.Errorf("accumulated on GL vs the GL export: %v", err)
	}
	frac, at := imagetest.Agreement(got, exp, 6)
	t.Logf("%.2f%% of pixels within 6/255 of the 4x4 GL export", 100*frac)
	if frac < 0.98 {
		t.Errorf("only %.2f%% within 6/255 (first at %v)", 100*frac, at)
	}
}

// BenchmarkAccumulateGL1280x720 renders the 16 samples of a shallow view at 1280x720 on the
// GL renderer (the window's) and reports samples per second.
func BenchmarkAccumulateGL1280x720(b *testing.B) {
	g, err := render.NewGL(render.Options{})
	if err != nil {
		imagetest.NoGL(b, "no GL context: "+err.Error())
	}
	defer g.Close()
	s := preview.New(g)
	loc := accumLoc("300")
	order := preview.SampleOrder(preview.AccumulateN)
	k := 0
	start := time.Now()
	for b.Loop() {
		p := order[k%len(order)]
		k++
		if img, err := s.Sample(context.Background(), loc, 1280, 720, p.X, p.Y, preview.AccumulateN, nil); err != nil || img == nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(k)/time.Since(start).Seconds(), "samples/s")
}
