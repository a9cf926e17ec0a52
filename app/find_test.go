package app

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/fractal"
)

// The M key goes to the minibrot nearest the centre, the one the command line's find names,
// with the view's colouring, Auto kept ticked (it chooses the new view's count: it unticked
// it and fixed 100 P iterations, so a later deep Go to drew black), and "minibrot of period
// P" kept in the status bar; Shift+M goes to a Misiurewicz point (or says there is none).
func TestFindKeys(t *testing.T) {
	start := fractal.Home()
	start.Re, start.Im, start.Zoom = fractal.MustDecimal("-0.743643887037151"), fractal.MustDecimal("0.131825904205330"), fractal.MustDecimal("1e5")
	start.Color.Palette = "fire"
	start.Iterations = fractal.AutoIterations(1e5)
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(320, 240), Start: start})
	pw, ph := w.view.pixelSize()
	want, err := fractal.FindMinibrot(t.Context(), start, pw, ph, float64(pw)/2, float64(ph)/2, findLimit)
	if err != nil {
		t.Fatal(err)
	}
	w.uiDo(func() { w.typedRune('m') })
	waitFor(t, "the minibrot", func() bool { return w.Location().Zoom.String() != start.Zoom.String() })
	got := w.Location()
	if got.Re.String() != want.Loc.Re.String() || got.Im.String() != want.Loc.Im.String() || got.Zoom.String() != want.Loc.Zoom.String() ||
		got.Color != start.Color {
		t.Errorf("went to %v, want %v in the view's colouring", got, want.Loc)
	}
	type state struct {
		auto   bool
		autoN  int
		status string
	}
	// The test's goroutine is the UI's (waitFor runs the queued UI calls).
	w.renderStatus("refining 0%")
	st := state{w.autoIter, w.autoIterations(got.ZoomFloat()), w.statusTime.Text}
	if !st.auto || got.Iterations != st.autoN {
		t.Errorf("after M: Auto %v, iterations %d; want Auto kept and its count %d", st.auto, got.Iterations, st.autoN)
	}
	wantMsg := fmt.Sprintf("minibrot of period %d", want.Period)
	if status := st.status; !strings.HasPrefix(status, wantMsg) {
		t.Errorf("status %q after a render step; want it to keep %q", status, wantMsg)
	}
	// Shift+M: where the command line's search goes, or nowhere when it finds none.
	want2, err2 := fractal.FindMisiurewicz(t.Context(), got, pw, ph, float64(pw)/2, float64(ph)/2, findLimit)
	w.uiDo(func() { w.typedRune('M') })
	searching := func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.findCancel != nil
	}
	waitFor(t, "the Misiurewicz search", func() bool { return !searching() })
	if l := w.Location(); err2 != nil && !samePlace(l, got) || err2 == nil && !samePlace(l, want2.Loc) {
		t.Errorf("Shift+M went to %v; the search says %v, %v", l, want2.Loc, err2)
	}
}

// A search whose view is left before it ends goes nowhere.
func TestFindCancelledByNavigation(t *testing.T) {
	start := fractal.Home()
	start.Zoom = fractal.MustDecimal("1e5")
	start.Re, start.Im = fractal.MustDecimal("-0.743643887037151"), fractal.MustDecimal("0.131825904205330")
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(320, 240), Start: start})
	home := fractal.Home()
	home.Color = start.Color
	w.uiDo(func() {
		w.findNearest(false, -1, -1)
		w.SetLocation(home)
	})
	waitFor(t, "home", func() bool { return w.Location() == home })
	w.mu.Lock()
	pending := w.findCancel != nil
	w.mu.Unlock()
	if pending {
		t.Error("the search was not cancelled by the navigation")
	}
	if l := w.Location(); l != home {
		t.Errorf("the search moved the view to %v", l)
	}
}

// A second M goes to a minibrot inside the one just reached (deeper, its nucleus in that
// view); D stops halfway there in log zoom; a search with nothing to find says why in plain
// words, without Newton's.
func TestFindAgainDepthAndErrors(t *testing.T) {
	start := fractal.Home()
	start.Re, start.Im, start.Zoom = fractal.MustDecimal("-0.743643887037151"), fractal.MustDecimal("0.131825904205330"), fractal.MustDecimal("1e3")
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(320, 240), Start: start})
	pw, ph := w.view.pixelSize()
	want, err := fractal.FindMinibrot(t.Context(), start, pw, ph, float64(pw)/2, float64(ph)/2, findLimit)
	if err != nil {
		t.Fatal(err)
	}
	w.typedRune('d')
	waitFor(t, "halfway", func() bool { return !samePlace(w.Location(), start) })
	half := w.Location()
	mid := (start.ZoomExp().Log10() + want.Loc.ZoomExp().Log10()) / 2
	if got := half.ZoomExp().Log10(); got < mid-0.01 || got > mid+0.01 || half.Re.String() != want.Loc.Re.String() {
		t.Errorf("D went to %v; want %v's centre at zoom 1e%.2f", half, want.Loc, mid)
	}
	// The status bar says what D did: where it goes halfway to, and by how much it zoomed.
	factor := half.ZoomExp().Quo(start.ZoomExp()).Text(3)
	note := fmt.Sprintf("halfway to the minibrot of period %d (zoom %s): zoom ×%s", want.Period, fractal.FormatZoom(want.Loc.ZoomExp()), factor)
	if !strings.HasPrefix(w.found.msg, note) || !strings.Contains(w.statusTime.Text, note) {
		t.Errorf("after D the status bar says %q (note %q); want %q", w.statusTime.Text, w.found.msg, note)
	}
	w.SetLocation(want.Loc)
	waitFor(t, "the minibrot", func() bool { return samePlace(w.Location(), want.Loc) })
	first := w.Location()
	w.typedRune('m')
	waitFor(t, "the second minibrot", func() bool { return !samePlace(w.Location(), first) })
	second := w.Location()
	if second.ZoomExp().Cmp(first.ZoomExp()) <= 0 {
		t.Errorf("the second M went to %v, not deeper than %v", second, first)
	}
	far := fractal.Home()
	far.Re, far.Im, far.Zoom = fractal.MustDecimal("3"), fractal.MustDecimal("3"), fractal.MustDecimal("1")
	w.SetLocation(far)
	waitFor(t, "3,3", func() bool { return samePlace(w.Location(), far) })
	w.typedRune('m')
	waitFor(t, "the answer", func() bool { return strings.HasPrefix(w.statusTime.Text, "no minibrot") })
	if msg := w.statusTime.Text; !strings.Contains(msg, "zoom out a little or move to the set's edge") || strings.Contains(strings.ToLower(msg), "newton") {
		t.Errorf("status %q; want plain words", msg)
	}
}

// Shift+M with no Misiurewicz point inside the view says so in one plain sentence (issue 43),
// not the search's own words after "no Misiurewicz point found:".
func TestFindMisiurewiczNoneText(t *testing.T) {
	l := fractal.Home()
	l.Re, l.Im, l.Zoom = fractal.MustDecimal("1.5"), fractal.MustDecimal("0.1"), fractal.MustDecimal("1e6")
	_, err := fractal.FindMisiurewicz(t.Context(), l, 320, 240, 160, 120, findLimit)
	if err == nil {
		t.Fatal("a Misiurewicz point found outside the set")
	}
	want := "no Misiurewicz point found inside this view near the pointer: the view stays; zoom out a little or move to the set's edge"
	if got := findErrorText(err, findWhat(true)); got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// M in a power-d set and in the Burning Ship goes to the minibrot the command line's find
// names (the formula kept), Shift+M in the power-d set to the Misiurewicz point find
// --misiurewicz names, and Shift+M in the Burning Ship leaves the view where it is and the
// status bar says in one sentence that the formula has no Misiurewicz finder.
func TestFindPowerAndRefusals(t *testing.T) {
	start := fractal.Home()
	start.Formula, _ = fractal.MakeFormula(fractal.Mandelbrot, 3)
	start.Re, start.Im, start.Zoom = fractal.MustDecimal("0.27"), fractal.MustDecimal("1.25"), fractal.MustDecimal("20")
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(320, 240), Start: start})
	pw, ph := w.view.pixelSize()
	want, err := fractal.FindMinibrot(t.Context(), start, pw, ph, float64(pw)/2, float64(ph)/2, findLimit)
	if err != nil {
		t.Fatal(err)
	}
	misi, err := fractal.FindMisiurewicz(t.Context(), start, pw, ph, float64(pw)/2, float64(ph)/2, findLimit)
	if err != nil {
		t.Fatal(err)
	}
	w.typedRune('M')
	waitFor(t, "the Misiurewicz point", func() bool { return !samePlace(w.Location(), start) })
	if got := w.Location(); !samePlace(got, misi.Loc) || got.Formula != start.Formula {
		t.Errorf("Shift+M in the power-3 set went to %v (%v), want %v", got, got.Formula, misi.Loc)
	}
	w.SetLocation(start)
	waitFor(t, "the start", func() bool { return samePlace(w.Location(), start) })
	w.typedRune('m')
	waitFor(t, "the minibrot", func() bool { return !samePlace(w.Location(), start) })
	if got := w.Location(); !samePlace(got, want.Loc) || got.Formula != start.Formula {
		t.Errorf("M went to %v (%v), want %v", got, got.Formula, want.Loc)
	}
	ship := fractal.Home()
	ship.Formula = fractal.Formula{Kind: fractal.BurningShip}
	ship.Re, ship.Im, ship.Zoom = fractal.MustDecimal("-1.7626"), fractal.MustDecimal("-0.0284"), fractal.MustDecimal("40")
	w.SetLocation(ship)
	waitFor(t, "the ship", func() bool { return samePlace(w.Location(), ship) })
	w.typedRune('M')
	if l := w.Location(); !samePlace(l, ship) || w.statusTime.Text != "formula burning-ship has no Misiurewicz finder yet (its minibrots are found)" {
		t.Errorf("Shift+M in the Burning Ship: at %v, status %q", l, w.statusTime.Text)
	}
	pw, ph = w.view.pixelSize()
	want, err = fractal.FindMinibrot(t.Context(), ship, pw, ph, float64(pw)/2, float64(ph)/2, findLimit)
	if err != nil {
		t.Fatal(err)
	}
	w.typedRune('m')
	waitFor(t, "the ship's minibrot", func() bool { return !samePlace(w.Location(), ship) })
	if got := w.Location(); !samePlace(got, want.Loc) || got.Formula != ship.Formula {
		t.Errorf("M in the Burning Ship went to %v (%v), want %v", got, got.Formula, want.Loc)
	}
}
