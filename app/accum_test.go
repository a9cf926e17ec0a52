package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/preview"
	"mandelscope/render/cpu"
)

// At rest the window accumulates 4x4 samples, says so in the status bar, and ends with the
// picture a 4x4 export of the view writes (within the renderers' tolerance); a pan while it
// accumulates stops it at once (nothing more of the old view is shown) and the new view
// accumulates from the start.
func TestWindowAccumulatesAtRest(t *testing.T) {
	start := fractal.Home()
	start.Re = fractal.MustDecimal("-0.7436438870371")
	start.Im = fractal.MustDecimal("0.1318259042053")
	start.Zoom = fractal.MustDecimal("5000")
	start.Iterations = 1000
	var shown []preview.Result
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(500, 420), Start: start,
		Accumulate: preview.AccumulateN, OnFrame: func(r preview.Result) { shown = append(shown, r) }})
	all := preview.AccumulateN * preview.AccumulateN
	waitFor(t, "samples 5/16", func() bool { return w.statusTime.Text == "samples 5/16" })
	first := w.Location()
	w.pan(40, 0)
	panned := len(shown)
	second := w.Location()
	if second.String() == first.String() {
		t.Fatal("the pan did not move the view")
	}
	want := "samples 16/16"
	waitFor(t, want, func() bool { return w.statusTime.Text == want })
	for _, r := range shown[panned:] {
		if r.Samples > 0 && r.Req.Loc.String() != second.String() {
			t.Fatalf("after the pan, samples %d/%d of %s were shown", r.Samples, r.SamplesOf, r.Req.Loc)
		}
	}
	var counts []int
	for _, r := range shown[panned:] {
		if r.Samples > 0 {
			counts = append(counts, r.Samples)
		}
	}
	if len(counts) != all-preview.ShowAfter+1 || counts[0] != preview.ShowAfter {
		t.Errorf("the panned view showed samples %v, want %d..%d", counts, preview.ShowAfter, all)
	}
	if loc := w.Location(); loc.String() != second.String() {
		t.Fatalf("the view moved on its own to %s", loc)
	}
	pw, ph := w.ViewSize()
	path := filepath.Join(t.TempDir(), "x.png")
	if _, err := export.Export(context.Background(), &cpu.Renderer{}, path,
		export.Options{Location: second, Width: pw, Height: ph, Supersample: preview.AccumulateN, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	exp := imagetest.Decode(t, path)
	got := w.shownImage()
	if err := imagetest.Isolated(got, exp, 6); err != nil {
		t.Errorf("the picture at rest vs a 4x4 export: %v", err)
	}
	frac, at := imagetest.Agreement(got, exp, 6)
	t.Logf("%dx%d: %.2f%% of pixels within 6/255 of the 4x4 export", pw, ph, 100*frac)
	if frac < 0.98 { // as the GPU-vs-CPU tests allow
		t.Errorf("only %.2f%% of the pixels within 6/255 of the export's (first at %v)", 100*frac, at)
	}
	if !strings.HasPrefix(w.statusTime.Text, "samples") {
		t.Errorf("status %q", w.statusTime.Text)
	}
}
