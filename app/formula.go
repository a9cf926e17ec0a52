package app

import (
	"fmt"

	"mandelscope/fractal"
)

// nextFormula is F (the next formula kind: mandelbrot, burning-ship, mandelbar, keeping the
// power) and Shift+F (the next power, 2 to fractal.MaxPower, keeping the kind): the new
// set seen whole (fractal.HomeOf; in a Julia view, that formula's Julia set of the same c
// whole), the colouring kept (the distance and slopes colourings too: every formula carries
// its derivative), a place of its own in the history.
func (w *Window) nextFormula(power bool) {
	cur := w.Location()
	fm := cur.Formula
	if power {
		d := fm.Power() + 1
		if d > fractal.MaxPower {
			d = 2
		}
		fm, _ = fm.WithPower(d)
	} else {
		fm.Kind = (fm.Kind + 1) % fractal.FormulaKind(len(fractal.FormulaNames()))
	}
	l := fractal.HomeOf(fm)
	if cur.IsJulia() {
		l = cur
		l.Formula = fm
		l = l.JuliaAt(cur.Julia.Re, cur.Julia.Im)
	}
	l.Color = cur.Color
	if !w.autoIter {
		l.Iterations = w.lastIters
	}
	if err := l.Validate(); err != nil {
		w.refuse("not " + fm.String() + ": " + firstLine(err.Error()))
		return
	}
	w.autoBoost = 1
	w.goPlace(l)
	w.setMessage(fmt.Sprintf("formula %s: %s", fm, fm.Title()))
}

// formulaRefusal is why the colouring method cannot be used with the view's formula ("" when
// it can): the other formulas have no orbit channels yet (Location.Validate's words).
func (w *Window) formulaRefusal(method string) string {
	l := w.Location()
	l.Color.Method = method
	if l.Formula.IsMandelbrot() || !l.Color.NeedsChannels() {
		return ""
	}
	return fmt.Sprintf("the %s colouring is not yet available for formula %s (it needs the orbit channels)", method, l.Formula)
}
