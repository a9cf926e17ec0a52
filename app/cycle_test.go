package app

import (
	"bytes"
	"math"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"mandelscope/fractal"
	"mandelscope/preview"
)

// TestColourCycling: C (View > Colour Cycling) turns the palette offset with time, 0.1 turns
// a second, around the cycle, by recolouring the kept data: the renderer is never called and
// each step's picture is a fresh render's in that offset. A move of the offset slider while it
// cycles is where it goes on from; the time while the view is being computed is skipped (no
// jump); C again stops it.
func TestColourCycling(t *testing.T) {
	start := fractal.Home()
	start.Re = fractal.MustDecimal("-0.7436438870371")
	start.Im = fractal.MustDecimal("0.1318259042053")
	start.Zoom = fractal.MustDecimal("2000")
	start.Iterations = 500
	start.Color.Offset = 0.3
	var traced []preview.Result
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(420, 320), Start: start,
		Accumulate: preview.AccumulateN, OnFrame: func(r preview.Result) { traced = append(traced, r) }})
	done := "samples 16/16"
	waitFor(t, done, func() bool { return w.statusTime.Text == done })
	counting := &countingCPU{}
	w.rend.set(counting)
	pw, ph := w.ViewSize()

	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.cycle.now = func() time.Time { return clock } // the ticker's steps see no time pass
	var item *fyne.MenuItem
	for _, m := range w.menus {
		for _, it := range m.Items {
			if m.Label == "View" && it.Label == "Colour Cycling" {
				item = it
			}
		}
	}
	if item == nil || shortcutText(item.Shortcut) != "C" {
		t.Fatal("no View > Colour Cycling (C)")
	}
	w.typedRune('c')
	if !w.cycle.on || !item.Checked {
		t.Fatal("C did not start colour cycling")
	}
	// advance moves the clock by d, takes a step, and checks the offset and, when it moved,
	// that the picture shown is a recolour (a fresh render's pixels) with nothing computed.
	advance := func(what string, d time.Duration, want float64) {
		t.Helper()
		before := w.Location()
		n := len(traced)
		clock = clock.Add(d)
		w.cycle.step()
		l := w.Location()
		if math.Abs(l.Color.Offset-want) > 1e-9 || viewOf(l) != viewOf(before) {
			t.Fatalf("%s: offset %v (view %s), want %v", what, l.Color.Offset, l, want)
		}
		if want == before.Color.Offset {
			return
		}
		waitFor(t, what+"'s recolour", func() bool {
			for _, r := range traced[n:] {
				if r.Stats.Recoloured && r.Req.Loc.String() == l.String() {
					return true
				}
			}
			return false
		})
		if c := counting.calls.Load(); c != 0 {
			t.Fatalf("%s: the renderer was called %d times", what, c)
		}
		if !bytes.Equal(w.shownImage().Pix, freshPicture(t, l, pw, ph).Pix) {
			t.Errorf("%s: the picture is not a fresh render at offset %v", what, l.Color.Offset)
		}
	}
	advance("2.5 s", 2500*time.Millisecond, 0.55)
	advance("9 s more: around the cycle", 9*time.Second, 0.45)
	w.offsetSl.SetValue(0.8)
	advance("1 s after the slider", time.Second, 0.9)

	// A change of view: while it is computed, steps turn nothing and their time is skipped.
	w.pan(20, 0)
	advance("5 s while the view is computed", 5*time.Second, 0.9)
	waitFor(t, done, func() bool { return w.statusTime.Text == done })
	waitFor(t, "the worker at rest", func() bool { return w.worker.Idle() })
	counting.calls.Store(0)
	advance("1 s after the view is done", time.Second, 0.0)

	w.typedRune('C')
	if w.cycle.on || item.Checked {
		t.Fatal("C did not stop colour cycling")
	}
	advance("2 s after C stopped it", 2*time.Second, 0.0)
}
