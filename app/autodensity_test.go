package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// TestDensityControlAuto: a fresh view's density is automatic and the control says so;
// moving the slider makes it explicit, at the slider's value.
func TestDensityControlAuto(t *testing.T) {
	w := newTestWindow(t)
	w.SetLocation(fractal.Home())
	if !w.Location().Color.AutoDensity || w.densityVal.Text != "auto" {
		t.Fatalf("fresh view: automatic %v, label %q", w.Location().Color.AutoDensity, w.densityVal.Text)
	}
	w.densitySl.SetValue(0.5)
	if c := w.Location().Color; c.AutoDensity || c.Density != 0.5 || w.densityVal.Text != "0.5" {
		t.Errorf("after the slider: %+v, label %q", c, w.densityVal.Text)
	}
}

// findDensityTap is the densityTap in the window's content.
func findDensityTap(o fyne.CanvasObject) *densityTap {
	switch v := o.(type) {
	case *densityTap:
		return v
	case *fyne.Container:
		for _, c := range v.Objects {
			if d := findDensityTap(c); d != nil {
				return d
			}
		}
	}
	return nil
}

// TestDensityBackToAuto: once the slider has made the density a number, a click on its value
// (or View > Automatic Density) makes it automatic again, without Ctrl+Z: the control says
// "auto" and the next full frame draws the density the view chooses (under log at a
// shallow view, far above the slider's 0.5); Ctrl+Z then takes that back like any colour
// change.
func TestDensityBackToAuto(t *testing.T) {
	w := newTestWindow(t)
	l := testLoc("-0.7436438870371587", "0.1318259042053113", "300", 400)
	l.Color.Transfer = colour.TransferLog
	w.SetLocation(l)
	w.densitySl.SetValue(0.5)
	if c := w.Location().Color; c.AutoDensity || c.Density != 0.5 {
		t.Fatalf("after the slider: %+v", c)
	}
	tap := findDensityTap(w.FyneWindow().Content())
	if tap == nil {
		t.Fatal("no click target over the density's value")
	}
	if !strings.Contains(tap.tip(), "automatic") {
		t.Errorf("the value's tooltip says %q", tap.tip())
	}
	test.Tap(tap)
	if c := w.Location().Color; !c.AutoDensity || w.densityVal.Text != "auto" {
		t.Fatalf("after a click on the value: %+v, label %q", c, w.densityVal.Text)
	}
	waitFor(t, "the full frame to choose the density", func() bool {
		c := w.Location().Color
		return c.AutoDensity && c.Density == w.worker.AutoDensity() && c.Density > 8
	})
	w.undo.undoLast()
	if c := w.Location().Color; c.AutoDensity || c.Density != 0.5 {
		t.Fatalf("Ctrl+Z after the click: %+v, want the slider's 0.5", c)
	}
	var item *fyne.MenuItem
	for _, m := range w.menus {
		for _, it := range m.Items {
			if m.Label == "View" && it.Label == "Automatic Density" {
				item = it
			}
		}
	}
	if item == nil {
		t.Fatal("no View > Automatic Density")
	}
	item.Action()
	if c := w.Location().Color; !c.AutoDensity || w.densityVal.Text != "auto" {
		t.Fatalf("after View > Automatic Density: %+v, label %q", c, w.densityVal.Text)
	}
}
