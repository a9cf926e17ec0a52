package fractal

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"time"
)

// Deep views of formulas other than the Mandelbrot set's (formula.go): a reference orbit of
// the formula in math/big, and each pixel's delta iterated against it by perturbStep, with
// rebasing as PerturbEscape does, skipping iterations by the formula's BLA table (FormulaBLA,
// blaformula.go: 2x2 real matrices, since the folds' step is not complex-linear); many pixels
// at once on the vector loops (PerturbEscapeFormulaBatch, without the derivative). No
// nucleus in place of an unsettled reference, no period of a Julia reference (a
// pixel at such an orbit's end rebases to its start): those are the Mandelbrot set's alone
// so far. The formula's own reference does stop on its cycle (period.go, slopeLog2). The
// derivative is PerturbEscapeFormulaDE's (formula_de.go); past float64's exponent range,
// PerturbEscapeFormulaExp (perturb_formula_exp.go), with the extended table FormulaBLAExp.

// diffAbs is |x + d| - |x|, taken case by case so that no precision is lost where d is tiny
// beside x (the difference of the two absolute values would cancel).
func diffAbs(x, d float64) float64 {
	if x >= 0 {
		if x+d >= 0 {
			return d
		}
		return -(2*x + d)
	}
	if x+d > 0 {
		return 2*x + d
	}
	return -d
}

// perturbStep is the delta of the next value of a pixel whose value is Z + d, Z the
// reference's: f(Z + d)^D - f(Z)^D + dc. The fold is applied to the delta exactly (foldDelta),
// then the power (powerDelta).
func perturbStep(fm Formula, zr, zi, dr, di, dcr, dci float64) (float64, float64) {
	wr, wi, ur, ui := foldDelta(fm.Kind, zr, zi, dr, di)
	return powerDelta(fm.Power(), wr, wi, ur, ui, dcr, dci)
}

// foldDelta is W = f(Z) and u = f(Z + d) - f(Z), exactly: the same d for the identity, its
// conjugate for the Mandelbar, diffAbs of each part for the Burning Ship.
func foldDelta(k FormulaKind, zr, zi, dr, di float64) (wr, wi, ur, ui float64) {
	switch k {
	case BurningShip:
		return math.Abs(zr), math.Abs(zi), diffAbs(zr, dr), diffAbs(zi, di)
	case Mandelbar:
		return zr, -zi, dr, -di
	}
	return zr, zi, dr, di
}

// powerDelta is (W + u)^D - W^D + dc, with no cancellation however small u is beside W (no
// (W + u)^D and W^D computed apart): u S, S = Z^(D-1) + Z^(D-2) W + ... + W^(D-1) with Z = W + u,
// by Horner in Z: S = (...((Z + W) Z + W^2) Z + ...) Z + W^(D-1). That is D - 1 complex
// multiplications by Z or u, and D - 2 for W's powers, which depend on the reference's index
// only: the vector loops take those in scalar once a round for all lanes (group.go.tmpl's
// fmplain), in this order of operations, so that their results are this function's bit for
// bit. (Horner in u on the binomial sum, u (c_1 + u (c_2 + ... + u c_D)) with c_k = C(D, k)
// W^(D-k), costs the same but loses up to thousands of ulps where |u| is near |W|: its terms
// are as big as (|W| + |u|)^(D-1) while the sum may be |W|^(D-1); S's terms are no bigger than
// the largest of |Z|^(D-1), |W|^(D-1): TestPowerDeltaAccuracy.) D = 2 is the Mandelbrot set's
// (2 W + u) u, as the loops' own square; D = 8 is S factored, (Z + W)(Z^2 + W^2)(Z^4 + W^4)
// (5 multiplications a lane, against Horner's 7, in shorter chains; its error bound is
// Horner's: the product of the factors' sizes is the sum of the terms'). The GLSL and the
// extended-exponent step (powerDeltaCx) take the same forms.
func powerDelta(d int, wr, wi, ur, ui, dcr, dci float64) (float64, float64) {
	if d == 2 {
		tr, ti := 2*wr+ur, 2*wi+ui
		return tr*ur - ti*ui + dcr, tr*ui + ti*ur + dci
	}
	zr, zi := wr+ur, wi+ui // Z = W + u
	if d == 8 {
		// S = (Z + W)(Z^2 + W^2)(Z^4 + W^4): 5 multiplies a lane, in chains of 4.
		z2r, z2i := zr*zr-zi*zi, zr*zi+zi*zr
		z4r, z4i := z2r*z2r-z2i*z2i, z2r*z2i+z2i*z2r
		w2r, w2i := wr*wr-wi*wi, wr*wi+wi*wr
		w4r, w4i := w2r*w2r-w2i*w2i, w2r*w2i+w2i*w2r
		ar, ai := zr+wr, zi+wi
		br, bi := z2r+w2r, z2i+w2i
		cr, ci := z4r+w4r, z4i+w4i
		tr, ti := ar*br-ai*bi, ar*bi+ai*br
		tr, ti = tr*cr-ti*ci, tr*ci+ti*cr
		return tr*ur - ti*ui + dcr, tr*ui + ti*ur + dci
	}
	tr, ti := zr+wr, zi+wi // Z + W
	pr, pi := wr, wi       // W^1
	for k := 2; k < d; k++ {
		pr, pi = pr*wr-pi*wi, pr*wi+pi*wr // W^k
		tr, ti = tr*zr-ti*zi+pr, tr*zi+ti*zr+pi
	}
	return tr*ur - ti*ui + dcr, tr*ui + ti*ur + dci
}

// PerturbEscapeFormula is PerturbEscape for ref's formula (Reference.Formula): the escape
// count and smooth value of the pixel with delta (dcr, dci) from ref's point (for a Julia
// reference, its z1 minus the reference point), by perturbStep with rebasing (after each step,
// when |Z_m + d| < |d| or m is the reference's last index, d becomes Z_m + d and m 0). With a
// non-nil bla (ref's formula's table: Frame.FormulaBLA) it skips iterations by the table's
// blocks, by BLA's rule. Closing stop ends it early with a meaningless result, as PerturbEscape.
func PerturbEscapeFormula(ref *Reference, bla *FormulaBLA, dcr, dci float64, maxIter int, stop <-chan struct{}) (n int, nu float64) {
	n, nu, _ = perturbEscapeFormula(ref, bla, dcr, dci, maxIter, stop)
	return n, nu
}

// perturbEscapeFormula is PerturbEscapeFormula that also counts its steps (plain steps plus
// BLA jumps).
func perturbEscapeFormula(ref *Reference, bla *FormulaBLA, dcr, dci float64, maxIter int, stop <-chan struct{}) (n int, nu float64, steps int) {
	fm := ref.formula
	if ref.jStart == 0 {
		return perturbFormulaLoop(ref, bla, fm, 0, 0, 0, 0, dcr, dci, maxIter, stop)
	}
	dr, di, m, escaped, zr, zi := ref.juliaStart(dcr, dci)
	if escaped {
		return 1, smoothFormula(fm, zr, zi, ref.jcr, ref.jci, 1), 0
	}
	return perturbFormulaLoop(ref, bla, fm, dr, di, m, 1, 0, 0, maxIter, stop)
}

// perturbFormulaLoop is perturbLoop for another formula: its plain step perturbStep, its
// blocks the formula's table's (the lookup of perturbLoop: level 0 first, then up while the
// next level is valid).
func perturbFormulaLoop(ref *Reference, bla *FormulaBLA, fm Formula, dr, di float64, m, n int, dcr, dci float64, maxIter int, stop <-chan struct{}) (int, float64, int) {
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, r0 := bla.table() // the steps from m = 1 to len(r0)-1 (r0[0] = 0: none from 0)
	kind, d := fm.Kind, fm.Power()
	steps := 0
	for n < maxIter {
		steps++
		if steps&stopEvery == 0 && stopped(stop) {
			return -1, 0, steps
		}
		if ad := math.Abs(dr) + math.Abs(di); m < len(r0) && ad < r0[m] {
			at := ent[base[m-1]:base[m]] // the entries starting at m, level 0 first
			e, span := &at[0], 1
			for l := 1; l < len(at) && n+span*2 <= maxIter && ad < at[l].r; l++ {
				e, span = &at[l], span*2
			}
			dr, di = e.a11*dr+e.a12*di+e.b11*dcr+e.b12*dci, e.a21*dr+e.a22*di+e.b21*dcr+e.b22*dci
			m += span
			n += span
			goto check
		}
		{
			zm := z[m]
			// perturbStep, its parts taken apart so that the fold and the square inline.
			wr, wi, ur, ui := foldDelta(kind, real(zm), imag(zm), dr, di)
			if d == 2 {
				tr, ti := 2*wr+ur, 2*wi+ui
				dr, di = tr*ur-ti*ui+dcr, tr*ui+ti*ur+dci
			} else {
				dr, di = powerDelta(d, wr, wi, ur, ui, dcr, dci)
			}
			m++
			n++
		}
	check:
		zm := z[m]
		zr, zi := real(zm)+dr, imag(zm)+di
		z2 := zr*zr + zi*zi
		if z2 > esc4Lo && escapes(zm, dr, di, z2, 4) {
			cr, ci := ref.smoothC(dcr, dci)
			return n, smoothFormula(fm, zr, zi, cr, ci, n), steps
		}
		if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
			dr, di = zr, zi
			m = 0
		} else if m == last {
			m -= period
		}
	}
	return -1, 0, steps
}

// Formula is the formula the reference orbit iterates (the zero Formula: the Mandelbrot set).
func (ref *Reference) Formula() Formula { return ref.formula }

// setFormula makes ref the reference of formula fm (validated).
func (ref *Reference) setFormula(fm Formula) error {
	if err := fm.validate(); err != nil {
		return fmt.Errorf("reference orbit: %v", err)
	}
	ref.formula = fm
	return nil
}

// iterateFormula computes the orbit of a formula other than the Mandelbrot set's, in
// big.Float: for the formula's own set the orbit of 0 under f(z)^D + C, for a Julia reference
// the critical orbit of its parameter then the reference point's orbit (the layout of julia.go).
func (ref *Reference) iterateFormula(ctx context.Context, progress func(done, total int)) error {
	st := stepper{ctx: ctx, progress: progress, total: ref.maxIter, last: time.Now()}
	if !ref.julia.On {
		if err := ref.orbitFormula(&st, ref.re, ref.im, nil, nil); err != nil {
			return err
		}
		ref.repeatPeriod()
	} else {
		if err := ref.orbitFormula(&st, ref.jre, ref.jim, nil, nil); err != nil {
			return err
		}
		ref.jStart = len(ref.Z)
		if err := ref.orbitFormula(&st, ref.jre, ref.jim, ref.re, ref.im); err != nil {
			return err
		}
	}
	if progress != nil {
		progress(ref.maxIter, ref.maxIter)
	}
	return nil
}

// orbitFormula appends an orbit to Z: of 0 under the formula with parameter c (z0re nil:
// from Z[1] = c on), or of z0 (appended from z0 itself on: a Julia reference's second orbit).
// Both stop at the first |Z| > 2 (setting escaped for the first) or after ref.maxIter values.
func (ref *Reference) orbitFormula(st *stepper, cre, cim, z0re, z0im *big.Float) error {
	prec := ref.prec
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	zr, zi := nf(), nf()
	step := newFormulaBig(ref.formula, prec)
	push := func() bool {
		fr, _ := zr.Float64()
		fi, _ := zi.Float64()
		ref.appendZ(complex(fr, fi))
		if math.Abs(fr)+math.Abs(fi) < tinyZ {
			ref.keepTiny(len(ref.Z)-1, ExpFromBig(zr), ExpFromBig(zi)) // for the cx steps
		}
		return fr*fr+fi*fi > 4
	}
	second := z0re != nil
	// The period of the formula's own orbit (period.go), as the Mandelbrot set's: a Julia
	// reference's orbits have none yet.
	var det periodDetector
	sr, si := nf(), nf()
	snapshot := func() { sr.Set(zr); si.Set(zi) }
	moved := func() cx {
		return cxFromExp(ExpFromBig(nf().Sub(zr, sr)), ExpFromBig(nf().Sub(zi, si)))
	}
	detect := !second && !ref.julia.On
	if second {
		zr.Set(z0re)
		zi.Set(z0im)
	} else {
		zr.Set(cre)
		zi.Set(cim)
	}
	if push() {
		ref.escaped = ref.escaped || !second
		return nil
	}
	if detect {
		det.step(ref, len(ref.Z)-1, snapshot, moved) // Z[1]: the detector starts there
	}
	for n := 2; n <= ref.maxIter; n++ {
		if n&1023 == 0 {
			if err := st.check(n); err != nil {
				return err
			}
		}
		step.step(zr, zi, cre, cim)
		if push() {
			ref.escaped = ref.escaped || !second
			break
		}
		if detect {
			if ref.period = det.step(ref, len(ref.Z)-1, snapshot, moved); ref.period > 0 {
				break
			}
		}
	}
	return nil
}
