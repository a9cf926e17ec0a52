package fractal

import (
	"context"
	"fmt"
	"math"
)

// maxFormulaSide is the largest image side (in samples: an export's side times its
// supersampling) that Location.Validate's zoom limit for formulas allows for.
const maxFormulaSide = 1 << 18

// expLimit is the pixel spacing below which f is a PerturbationExp frame: ExpSpacing, and
// for a Julia view, where a delta near the critical point is raised to the power D with no c
// term beside it, 2^(-1010/D) (JuliaExpSpacing for D = 2).
func expLimit(fm Formula, julia bool) Exp {
	if !julia {
		return ExpSpacing
	}
	return MakeExp(0.5, 1-1010/fm.Power())
}

// checkFormulaZoom reports a zoom at which a formula other than the Mandelbrot set's with a
// colouring that reads the derivative would need extended exponents (at maxFormulaSide
// samples), which a formula's derivative does not have yet (its escape counts do:
// perturb_formula_exp.go).
func (l Location) checkFormulaZoom() error {
	if l.Formula.IsMandelbrot() || !l.Color.NeedsDerivative() {
		return nil
	}
	max := NewExp(4).Quo(expLimit(l.Formula, l.Julia.On).MulFloat(maxFormulaSide))
	if l.ZoomExp().Cmp(max) > 0 {
		set := ""
		if l.Julia.On {
			set = " in a Julia set"
		}
		return fmt.Errorf("the %s colouring of formula %s is not yet supported past zoom 1e%d%s (its derivative has no extended exponents yet)",
			l.Color.Method, l.Formula, int(math.Floor(max.Log10())), set)
	}
	return nil
}

// Unsupported reports, in one line, why f cannot be rendered (nil when it can): a formula
// other than the Mandelbrot set's in a PerturbationExp frame with a colouring that reads the
// derivative. Location.Validate refuses it for every image size up to maxFormulaSide; the
// renderers check it for any size.
func (f Frame) Unsupported() error {
	if f.Loc.Formula.IsMandelbrot() || !f.NeedsDerivative() {
		return nil
	}
	if f.Precision() == PerturbationExp {
		return fmt.Errorf("the derivative of formula %s is not yet supported at this pixel spacing (%s: zoom %s at %dx%d)",
			f.Loc.Formula, f.Precision(), f.Loc.Zoom, f.W, f.H)
	}
	return nil
}

// formulaEscape is Escape for a formula other than the Mandelbrot set's: float32, float64 or
// scalar perturbation (PerturbEscapeFormula, with the formula's BLA table; past float64's
// exponent range PerturbEscapeFormulaExp) by the frame's precision.
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
		return PerturbEscapeFormulaExp(f.Ref, dr, di, f.Loc.Iterations, nil)
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
// with the distance estimate and normal; Result{N: -1} for a frame the formula does not
// support (Unsupported).
func (f Frame) formulaPixelDE(x, y int) Result {
	fm := f.Loc.Formula
	add := f.Spacing
	if f.Loc.Julia.On {
		add = 0
	}
	switch f.Precision() {
	case PerturbationExp:
		return Result{N: -1}
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

// NoFinderError is the error of a minibrot or Misiurewicz search in a formula other than the
// Mandelbrot set's: the searches (Newton's method on z^2 + c) are the Mandelbrot set's alone
// so far, and they say so rather than report a point that is not one.
func NoFinderError(fm Formula) error {
	return fmt.Errorf("formula %s has no minibrot or Misiurewicz finder yet", fm)
}
