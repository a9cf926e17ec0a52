package fractal

import "math"

// Formulas past float64's exponent range (PerturbationExp frames of a formula other than
// the Mandelbrot set's). As perturbexp.go does for the Mandelbrot set, a pixel's delta is a
// cx (a complex mantissa with its own exponent) while it is tiny and a pair of float64s once it
// is not (above 2^-900 to cx's float64, below 2^-950 back), so the extended exponent costs
// time only where it is needed. The cx step is perturbStep's, in cx arithmetic: the fold
// applied to the delta exactly (foldDeltaCx; where the reference's part is not tiny, the tiny
// delta cannot change its sign, and the Burning Ship's |X + x| - |X| is x or -x), then the
// power's difference by powerDelta's recurrence (powerDeltaCx). The float64 step is
// perturbFormulaLoop's. No BLA: every iteration is a step.

// foldDeltaCx is foldDelta for a cx reference value z and delta d (d.e <= toDouble).
func foldDeltaCx(k FormulaKind, z, d cx) (w, u cx) {
	switch k {
	case BurningShip:
		w = cx{math.Abs(z.re), math.Abs(z.im), z.e}
		// A part of the reference at least tinyRef in size keeps its sign when the tiny
		// delta is added: the part of u is the delta's, negated where the reference's is
		// negative. Otherwise diffAbs's cases, in Exp.
		sr, okr := foldSign(z.re, z.e)
		si, oki := foldSign(z.im, z.e)
		if okr && oki {
			return w, cx{sr * d.re, si * d.im, d.e}
		}
		re := diffAbsExp(MakeExp(z.re, z.e), MakeExp(d.re, d.e))
		im := diffAbsExp(MakeExp(z.im, z.e), MakeExp(d.im, d.e))
		return w, cxFromExp(re, im)
	case Mandelbar:
		return cx{z.re, -z.im, z.e}, cx{d.re, -d.im, d.e}
	}
	return z, d
}

// foldSign is the sign of the part x·2^e of a reference value, ok where it is at least
// tinyRef in size (a delta below 2^-900 cannot change it).
func foldSign(x float64, e int) (float64, bool) {
	if x == 0 || !lessExp(0.5, -799, math.Abs(x), e) { // 0.5·2^-799 = tinyRef
		return 0, false
	}
	if x < 0 {
		return -1, true
	}
	return 1, true
}

// diffAbsExp is diffAbs (|x + d| - |x|, case by case) in Exp arithmetic.
func diffAbsExp(x, d Exp) Exp {
	s := x.Add(d)
	if x.Sign() >= 0 {
		if s.Sign() >= 0 {
			return d
		}
		return x.Ldexp(1).Add(d).Neg()
	}
	if s.Sign() > 0 {
		return x.Ldexp(1).Add(d)
	}
	return d.Neg()
}

// powerDeltaCx is powerDelta in cx: (W + u)^D - W^D + dc by A_1 = u, A_(j+1) = (W + u) A_j
// + u W^j.
func powerDeltaCx(d int, w, u, dc cx) cx {
	z := cxAdd(w, u)
	a, p := u, w
	for j := 1; j < d; j++ {
		a = cxAdd(cxMul(z, a), cxMul(u, p))
		if j+1 < d {
			p = cxMul(p, w)
		}
	}
	return cxAdd(a, dc)
}

// PerturbEscapeFormulaExp is PerturbEscapeFormula for a PerturbationExp frame: dc = (dcr,
// dci) may lie far below float64's range. Deltas are iterated in cx while they are tiny and in
// float64 once they are not (see the top of perturb_formula_exp.go); the rules (rebasing,
// escape, the smooth value) are PerturbEscapeFormula's, and so is stop. No BLA.
func PerturbEscapeFormulaExp(ref *Reference, dcr, dci Exp, maxIter int, stop <-chan struct{}) (n int, nu float64) {
	fm := ref.formula
	zero := cx{e: cxZeroExp}
	if ref.jStart == 0 {
		return perturbFormulaLoopExp(ref, fm, newExpState(zero, 0, 0), cxFromExp(dcr, dci), maxIter, stop)
	}
	d, m, escaped, zr, zi := ref.juliaStartExp(cxFromExp(dcr, dci))
	if escaped {
		return 1, smoothFormula(fm, zr, zi, ref.jcr, ref.jci, 1)
	}
	return perturbFormulaLoopExp(ref, fm, newExpState(d, m, 1), zero, maxIter, stop)
}

// stepFormulaCx is one perturbation step of delta d at reference index m in cx.
func (ref *Reference) stepFormulaCx(fm Formula, m int, d, dc cx) cx {
	w, u := foldDeltaCx(fm.Kind, ref.zcx(m), d)
	return powerDeltaCx(fm.Power(), w, u, dc)
}

// perturbFormulaLoopExp is PerturbEscapeFormulaExp's loop from the state st, with dc added
// every step (0 for a Julia set).
func perturbFormulaLoopExp(ref *Reference, fm Formula, st expState, dc cx, maxIter int, stop <-chan struct{}) (int, float64) {
	z := ref.Z
	last, period, jEnd := ref.ends()
	dcr, dci := dc.float64s() // 0 where dc is below float64's range: then negligible beside d
	kind, pw := fm.Kind, fm.Power()
	d, dr, di, exp, m, n := st.d, st.dr, st.di, st.exp, st.m, st.n // exp: d holds the delta (else dr, di)
	for steps := 1; n < maxIter; steps++ {
		if steps&stopEvery == 0 && stopped(stop) {
			return -1, 0
		}
		if exp {
			if d = ref.stepFormulaCx(fm, m, d, dc); d.e > toDouble {
				exp = false
				dr, di = d.float64s()
			}
		} else {
			zm := z[m]
			wr, wi, ur, ui := foldDelta(kind, real(zm), imag(zm), dr, di)
			var er, ei float64
			if pw == 2 {
				tr, ti := 2*wr+ur, 2*wi+ui
				er, ei = tr*ur-ti*ui+dcr, tr*ui+ti*ur+dci
			} else {
				er, ei = powerDelta(pw, wr, wi, ur, ui, dcr, dci)
			}
			if math.Abs(er)+math.Abs(ei) < toExp || math.Abs(real(zm))+math.Abs(imag(zm)) < tinyRef {
				// The delta falls back below float64's comfortable range (or the reference's
				// value is one float64 may not hold): this step in cx.
				if d = ref.stepFormulaCx(fm, m, cxFrom(dr, di), dc); d.e > toDouble {
					dr, di = d.float64s()
				} else {
					exp = true
				}
			} else {
				dr, di = er, ei
			}
		}
		m++
		n++
		zm := z[m]
		if exp {
			zr, zi := real(zm), imag(zm)
			if math.Abs(zr)+math.Abs(zi) >= tinyRef {
				if zr*zr+zi*zi > 4 {
					cr, ci := ref.smoothC(dcr, dci)
					return n, smoothFormula(fm, zr, zi, cr, ci, n)
				}
				if m == last && period > 0 {
					m -= period
				} else if m == last || m == jEnd {
					d = cxAdd(ref.zcx(m), d)
					m = 0
				}
			} else if w := cxAdd(ref.zcx(m), d); absLess(w, d) || m == last && period == 0 || m == jEnd {
				d = w
				m = 0
			} else if m == last {
				m -= period
			}
			if m == 0 && d.e > toDouble {
				exp = false
				dr, di = d.float64s()
			}
			continue
		}
		zr, zi := real(zm)+dr, imag(zm)+di
		z2 := zr*zr + zi*zi
		if z2 > 4 {
			cr, ci := ref.smoothC(dcr, dci)
			return n, smoothFormula(fm, zr, zi, cr, ci, n)
		}
		if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
			if math.Abs(real(zm))+math.Abs(imag(zm)) < tinyRef {
				// Z[m] may be below float64's range (held exactly in ref.tiny): add in cx.
				d = cxAdd(ref.zcx(m), cxFrom(dr, di))
			} else {
				d = cxFrom(zr, zi)
			}
			if exp = d.e <= toDouble; !exp {
				dr, di = d.float64s()
			}
			m = 0
		} else if m == last {
			m -= period
		}
	}
	return -1, 0
}
