package fractal

import (
	"context"
	"fmt"
)

// expLimit is the pixel spacing below which f is a PerturbationExp frame: ExpSpacing, and
// for a Julia view, where a delta near the critical point is raised to the power D with no c
// term beside it, 2^(-1010/D) (JuliaExpSpacing for D = 2).
func expLimit(fm Formula, julia bool) Exp {
	if !julia {
		return ExpSpacing
	}
	return MakeExp(0.5, 1-1010/fm.Power())
}

// formulaEscape is Escape for a formula other than the Mandelbrot set's: float32, float64 or
// scalar perturbation (PerturbEscapeFormula, with the formula's BLA table; past float64's
// exponent range PerturbEscapeFormulaExp, with its extended one) by the frame's precision.
func (f Frame) formulaEscape(x, y int) (n int, nu float64) {
	fm := f.Loc.Formula
	switch f.Precision() {
	case PerturbationExp:
		if f.Ref == nil {
			var err error
			if f, err = f.WithReference(context.Background(), DefaultReferences, nil); err != nil {
				return -1, 0
			}
		}
		dr, di := f.DeltaExp(x, y)
		return PerturbEscapeFormulaExp(f.Ref, f.FormulaBLAExp(), dr, di, f.Loc.Iterations, nil)
	case Perturbation:
		if f.Ref == nil {
			var err error
			if f, err = f.WithReference(context.Background(), DefaultReferences, nil); err != nil {
				return -1, 0
			}
		}
		dr, di := f.Delta(x, y)
		return PerturbEscapeFormula(f.Ref, f.FormulaBLA(), dr, di, f.Loc.Iterations, nil)
	case Float32:
		re, im := f.Point32(x, y)
		cr, ci := re, im
		if f.Loc.Julia.On {
			cr, ci = float32(f.JRe), float32(f.JIm)
		}
		return EscapeFormula32(fm, re, im, cr, ci, f.Loc.Iterations)
	}
	re, im := f.Point64(x, y)
	cr, ci := re, im
	if f.Loc.Julia.On {
		cr, ci = f.JRe, f.JIm
	}
	return EscapeFormula64(fm, re, im, cr, ci, f.Loc.Iterations)
}

// formulaPixelDE is formulaEscape with the derivative (formula_de.go): the same n and nu
// with the distance estimate and normal (past float64's exponent range
// PerturbEscapeFormulaDEExp).
func (f Frame) formulaPixelDE(x, y int) Result {
	fm := f.Loc.Formula
	add := f.Spacing
	if f.Loc.Julia.On {
		add = 0
	}
	switch f.Precision() {
	case PerturbationExp:
		if f.Ref == nil {
			var err error
			if f, err = f.WithReference(context.Background(), DefaultReferences, nil); err != nil {
				return Result{N: -1}
			}
		}
		dr, di := f.DeltaExp(x, y)
		return PerturbEscapeFormulaDEExp(f.Ref, f.FormulaBLAExp(), dr, di, f.Loc.Iterations, f.spacing(), nil)
	case Perturbation:
		if f.Ref == nil {
			var err error
			if f, err = f.WithReference(context.Background(), DefaultReferences, nil); err != nil {
				return Result{N: -1}
			}
		}
		dr, di := f.Delta(x, y)
		return PerturbEscapeFormulaDE(f.Ref, f.FormulaBLA(), dr, di, f.Loc.Iterations, f.Spacing, nil)
	case Float32:
		re, im := f.Point32(x, y)
		cr, ci := re, im
		if f.Loc.Julia.On {
			cr, ci = float32(f.JRe), float32(f.JIm)
		}
		return EscapeFormulaDE32(fm, re, im, cr, ci, f.Loc.Iterations, float32(f.Spacing), float32(add))
	}
	re, im := f.Point64(x, y)
	cr, ci := re, im
	if f.Loc.Julia.On {
		cr, ci = f.JRe, f.JIm
	}
	return EscapeFormulaDE64(fm, re, im, cr, ci, f.Loc.Iterations, f.Spacing, add)
}

// NoFinderError is the error of a Misiurewicz search in a formula that has none: the
// Mandelbrot set and its powers have one, the folds (the Burning Ship, the Mandelbar) not
// (their minibrots are found), and the search says so rather than report a point that is not
// one.
func NoFinderError(fm Formula) error {
	return fmt.Errorf("formula %s has no Misiurewicz finder yet (its minibrots are found)", fm)
}

// FinderFor is nil when fm has a minibrot search (every formula: Newton's method on z^D + c,
// or with a fold's 2x2 Jacobian) or, with misiurewicz, a Misiurewicz search (the Mandelbrot
// set and its powers, z <- z^D + c), else the NoFinderError that says there is none.
func FinderFor(fm Formula, misiurewicz bool) error {
	if !misiurewicz || fm.Kind == Mandelbrot {
		return nil
	}
	return NoFinderError(fm)
}
