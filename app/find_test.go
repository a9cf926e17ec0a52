package app

import (
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/fractal"
)

// The M key goes to the minibrot nearest the centre, the one the command line's find names,
// with the view's colouring and the found view's iterations; Shift+M goes to a Misiurewicz
// point (or says there is none).
func TestFindKeys(t *testing.T) {
	start := fractal.Home()
	start.Re, start.Im, start.Zoom = fractal.MustDecimal("-0.743643887037151"), fractal.MustDecimal("0.131825904205330"), fractal.MustDecimal("1e5")
	start.Color.Palette = "fire"
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
		got.Iterations != want.Loc.Iterations || got.Color != start.Color {
		t.Errorf("went to %v, want %v in the view's colouring", got, want.Loc)
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
