package app

import (
	"testing"

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
