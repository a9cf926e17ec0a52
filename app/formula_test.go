package app

import (
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// TestFormulaKeys: F cycles the formula kind and Shift+F the power, each to the new set seen
// whole with the colouring kept; the status bar names the set; Home goes to the formula's
// whole set; Shift+J and J keep the formula; the distance colouring, which the formulas do not
// have yet, is refused with a sentence and the view keeps its own.
func TestFormulaKeys(t *testing.T) {
	w := newTestWindow(t)
	c := w.FyneWindow().Canvas()
	start := w.Location()
	c.OnTypedRune()('f')
	l := w.Location()
	if l.Formula != (fractal.Formula{Kind: fractal.BurningShip}) || l.Re.String() != "0" || l.Zoom.String() != "1" || l.Color != start.Color {
		t.Fatalf("F: %v", l)
	}
	if w.bar.what.Text != "Burning Ship" {
		t.Errorf("status bar names %q", w.bar.what.Text)
	}
	c.OnTypedRune()('F')
	if got := w.Location().Formula.String(); got != "burning-ship power 3" || w.bar.what.Text != "Burning Ship (power 3)" {
		t.Errorf("Shift+F: %s, status %q", got, w.bar.what.Text)
	}
	for range fractal.MaxPower - 2 {
		c.OnTypedRune()('F')
	}
	if got := w.Location().Formula.Power(); got != 2 {
		t.Errorf("Shift+F past %d: power %d, want 2", fractal.MaxPower, got)
	}
	c.OnTypedRune()('f')
	if got := w.Location().Formula; got != (fractal.Formula{Kind: fractal.Mandelbar}) {
		t.Errorf("F from the ship: %v", got)
	}
	// Home after a move: the Mandelbar whole.
	c.OnTypedRune()('+')
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyHome})
	if got := w.Location(); got.Formula.Kind != fractal.Mandelbar || got.Zoom.String() != "1" || got.Re.String() != "0" {
		t.Errorf("Home: %v", got)
	}
	// J keeps the formula: the Mandelbar's Julia set; Shift+J back to the Mandelbar.
	c.OnTypedRune()('j')
	if got := w.Location(); !got.IsJulia() || got.Formula.Kind != fractal.Mandelbar || w.bar.what.Text != "Julia set (Mandelbar)" {
		t.Errorf("J: %v, status %q", got, w.bar.what.Text)
	}
	c.OnTypedRune()('J')
	if got := w.Location(); got.IsJulia() || got.Formula.Kind != fractal.Mandelbar {
		t.Errorf("Shift+J: %v", got)
	}
	// The distance colouring on the Mandelbar (its Jacobian: fractal/formula_de.go).
	w.shade.method.SetSelected(colour.MethodDistance)
	if got := w.Location(); got.Color.Method != colour.MethodDistance || got.Formula.Kind != fractal.Mandelbar {
		t.Errorf("distance on the Mandelbar: %v, status %q, select %q", got.Color, w.statusTime.Text, w.shade.method.Selected)
	}
	// Back to the Mandelbrot set: its own Home, the colouring kept.
	c.OnTypedRune()('f')
	if got := w.Location(); !got.Formula.IsMandelbrot() || got.Re.String() != "-0.5" || w.bar.what.Text != "Centre" || got.Color.Method != colour.MethodDistance {
		t.Errorf("F back to the Mandelbrot set: %v, status %q", got, w.bar.what.Text)
	}
	// With distance on, F goes on to the Burning Ship and keeps it.
	c.OnTypedRune()('f')
	if got := w.Location(); got.Formula.Kind != fractal.BurningShip || got.Color.Method != colour.MethodDistance {
		t.Errorf("F with distance: %v %v, status %q", got.Formula, got.Color, w.statusTime.Text)
	}
}
