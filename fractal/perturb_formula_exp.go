package fractal

import "math"

// Formulas past float64's exponent range (PerturbationExp frames of a formula other than
// the Mandelbrot set's). As perturbexp.go does for the Mandelbrot set, a pixel's delta is a
// cx (a complex mantissa with its own exponent) while it is tiny and a pair of float64s once it
// is not (above 2^-900 to cx's float64, below 2^-950 back), so the extended exponent costs
// time only where it is needed. The cx step is perturbStep's, in cx arithmetic: the fold
// applied to the delta exactly (foldDeltaCx; where the reference's part is not tiny, the tiny
// delta cannot change its sign, and the Burning Ship's |X + x| - |X| is x or -x), then the
// power's difference in powerDelta's form, Horner in W + u (powerDeltaCx). The float64 step is
// perturbFormulaLoop's. Iterations are skipped by the formula's extended BLA table
// (FormulaBLAExp, blaformula_exp.go): a cx delta's blocks in cx, a float64 delta's on the
// table's float64 form with perturbFormulaLoop's arithmetic.

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

// powerDeltaCx is powerDelta in cx, in its form: (W + u)^D - W^D + dc as u S, S = (...((Z +
// W) Z + W^2) Z + ...) Z + W^(D-1) with Z = W + u by Horner (D - 1 multiplications by Z or u,
// D - 2 for W's powers, against the recurrence's 3 D - 4), for D = 2 as well ((Z + W) u), and
// for D = 8 powerDelta's factored S.
func powerDeltaCx(d int, w, u, dc cx) cx {
	z := cxAdd(w, u)
	if d == 8 { // powerDelta's factored S, (Z + W)(Z^2 + W^2)(Z^4 + W^4)
		z2, w2 := cxMul(z, z), cxMul(w, w)
		t := cxMul(cxMul(cxAdd(z, w), cxAdd(z2, w2)), cxAdd(cxMul(z2, z2), cxMul(w2, w2)))
		return cxAdd(cxMul(t, u), dc)
	}
	t, p := cxAdd(z, w), w
	for k := 2; k < d; k++ {
		p = cxMul(p, w)
		t = cxAdd(cxMul(t, z), p)
	}
	return cxAdd(cxMul(t, u), dc)
}

// PerturbEscapeFormulaExp is PerturbEscapeFormula for a PerturbationExp frame: dc = (dcr,
// dci) may lie far below float64's range, and bla (nil: no approximation) is the frame's
// FormulaBLAExp. Deltas are iterated in cx while they are tiny and in float64 once they are
// not (see the top of perturb_formula_exp.go); the rules (rebasing, the BLA lookup, escape,
// the smooth value) are PerturbEscapeFormula's, and so is stop.
func PerturbEscapeFormulaExp(ref *Reference, bla *FormulaBLAExp, dcr, dci Exp, maxIter int, stop <-chan struct{}) (n int, nu float64) {
	n, nu, _ = perturbEscapeFormulaExp(ref, bla, dcr, dci, maxIter, stop)
	return n, nu
}

// perturbEscapeFormulaExp is PerturbEscapeFormulaExp that also counts its steps (plain steps
// plus BLA jumps).
func perturbEscapeFormulaExp(ref *Reference, bla *FormulaBLAExp, dcr, dci Exp, maxIter int, stop <-chan struct{}) (n int, nu float64, steps int) {
	fm := ref.formula
	zero := cx{e: cxZeroExp}
	if ref.jStart == 0 {
		return perturbFormulaLoopExp(ref, bla, fm, newExpState(zero, 0, 0), cxFromExp(dcr, dci), maxIter, stop)
	}
	d, m, escaped, zr, zi := ref.juliaStartExp(cxFromExp(dcr, dci))
	if escaped {
		return 1, smoothFormula(fm, zr, zi, ref.jcr, ref.jci, 1), 0
	}
	return perturbFormulaLoopExp(ref, bla, fm, newExpState(d, m, 1), zero, maxIter, stop)
}

// stepFormulaCx is one perturbation step of delta d at reference index m in cx.
func (ref *Reference) stepFormulaCx(fm Formula, m int, d, dc cx) cx {
	w, u := foldDeltaCx(fm.Kind, ref.zcx(m), d)
	return powerDeltaCx(fm.Power(), w, u, dc)
}

// climbFormulaExp is the lookup of a cx delta d in an extended formula table (ent, base) at
// m (0 < m <= its steps): the largest valid block starting there, no longer than maxIter - n
// steps, as its index in ent and its span; span 0 where none is valid.
func climbFormulaExp(ent []fblaExpEntry, base []int32, m, n, maxIter int, d cx) (i, span int) {
	am, ae := d.norm1()
	i, end := int(base[m-1]), int(base[m])
	if e := &ent[i]; !lessExp(am, ae, e.rm, int(e.re)) {
		return 0, 0
	}
	span = 1
	for i+1 < end && n+span*2 <= maxIter && lessExp(am, ae, ent[i+1].rm, int(ent[i+1].re)) {
		i, span = i+1, span*2
	}
	return i, span
}

// climbFormula is climbFormulaExp for a float64 delta of 1-norm ad on a float64 table whose
// first block at m is valid (ad < its radius).
func climbFormula(fent []fblaEntry, base []int32, m, n, maxIter int, ad float64) (i, span int) {
	i, end := int(base[m-1]), int(base[m])
	span = 1
	for i+1 < end && n+span*2 <= maxIter && ad < fent[i+1].r {
		i, span = i+1, span*2
	}
	return i, span
}

// perturbFormulaLoopExp is PerturbEscapeFormulaExp's loop from the state st, with dc added
// every step (0 for a Julia set), skipping iterations by bla's blocks: a cx delta's in cx, a
// float64 delta's on the table's float64 form (FormulaBLAExp.float64Table). It returns the
// count, the smooth value and its steps (plain steps plus blocks).
func perturbFormulaLoopExp(ref *Reference, bla *FormulaBLAExp, fm Formula, st expState, dc cx, maxIter int, stop <-chan struct{}) (int, float64, int) {
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, fent, r0 := bla.table()
	dcr, dci := dc.float64s() // 0 where dc is below float64's range: then negligible beside d
	dsr, dsi := bla.scaledDC(dc)
	d, dr, di, exp, m, n := st.d, st.dr, st.di, st.exp, st.m, st.n // exp: d holds the delta (else dr, di)
	steps := 0
	for n < maxIter {
		steps++
		if steps&stopEvery == 0 && stopped(stop) {
			return -1, 0, steps
		}
		if m > 0 && m < len(r0) {
			// The table's blocks: a float64 delta's on its float64 form, a cx delta's (or a
			// float64 one below 2^-950, moved to cx first) in cx.
			if !exp {
				if ad := math.Abs(dr) + math.Abs(di); ad >= toExp && ad < r0[m] {
					i, span := climbFormula(fent, base, m, n, maxIter, ad)
					e := &fent[i]
					dr, di = e.a11*dr+e.a12*di+e.b11*dsr+e.b12*dsi, e.a21*dr+e.a22*di+e.b21*dsr+e.b22*dsi
					m += span
					n += span
					goto check
				} else if ad < toExp {
					d, exp = cxFrom(dr, di), true
				}
			}
			if exp {
				if i, span := climbFormulaExp(ent, base, m, n, maxIter, d); span > 0 {
					if d = ent[i].applyCx(d, dc); d.e > toDouble {
						exp = false
						dr, di = d.float64s()
					}
					m += span
					n += span
					goto check
				}
			}
		}
		if exp {
			if d = ref.stepFormulaCx(fm, m, d, dc); d.e > toDouble {
				exp = false
				dr, di = d.float64s()
			}
		} else {
			dr, di, d, exp = ref.formulaStep64(fm, m, dr, di, dcr, dci, dc, d)
		}
		m++
		n++
	check:
		zm := z[m]
		if exp {
			zr, zi := real(zm), imag(zm)
			if math.Abs(zr)+math.Abs(zi) >= tinyRef {
				if z2 := zr*zr + zi*zi; z2 > esc4Lo && escapesCx(zm, d, z2, 4) {
					cr, ci := ref.smoothC(dcr, dci)
					return n, smoothFormula(fm, zr, zi, cr, ci, n), steps
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
		if z2 > esc4Lo && escapes(zm, dr, di, z2, 4) {
			cr, ci := ref.smoothC(dcr, dci)
			return n, smoothFormula(fm, zr, zi, cr, ci, n), steps
		}
		d, dr, di, exp, m = ref.next64(m, zr, zi, dr, di, d)
	}
	return -1, 0, steps
}

// jx is a scaled Jacobian [[a, b], [c, d]] · 2^e with an exponent of its own (the derivative
// past float64's exponent range: it starts at the spacing), kept with max |entry| in
// [0.5, 1) (or all zero).
type jx struct {
	a, b, c, d float64
	e          int
}

// norm rescales j's mantissas to max |entry| in [0.5, 1).
func (j jx) norm() jx {
	m := max(math.Abs(j.a), math.Abs(j.b), math.Abs(j.c), math.Abs(j.d))
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		if m == 0 {
			return jx{e: cxZeroExp}
		}
		return j
	}
	_, k := math.Frexp(m)
	return jx{math.Ldexp(j.a, -k), math.Ldexp(j.b, -k), math.Ldexp(j.c, -k), math.Ldexp(j.d, -k), j.e + k}
}

// addDiag is j + s·I.
func (j jx) addDiag(s Exp) jx {
	if s.Sign() == 0 {
		return j
	}
	sm, se := s.Mant(), s.Exponent()
	switch d := j.e - se; {
	case j.a == 0 && j.b == 0 && j.c == 0 && j.d == 0 || d < -110:
		return jx{sm, 0, 0, sm, se}.norm()
	case d > 110:
		return j
	default:
		v := math.Ldexp(sm, -d)
		return jx{j.a + v, j.b, j.c, j.d + v, j.e}.norm()
	}
}

// jacStepX is jacStep for the full value z (a cx) and the Jacobian j (a jx), add·I added.
func jacStepX(fm Formula, z cx, j jx, add Exp) jx {
	w := z
	switch fm.Kind {
	case BurningShip:
		if z.re < 0 {
			j.a, j.b, w.re = -j.a, -j.b, -z.re
		}
		if z.im < 0 {
			j.c, j.d, w.im = -j.c, -j.d, -z.im
		}
	case Mandelbar:
		j.c, j.d, w.im = -j.c, -j.d, -z.im
	}
	p := w // D w^(D-1)
	for range fm.Power() - 2 {
		p = cxMul(p, w)
	}
	p = cxMul(p, cxFrom(float64(fm.Power()), 0))
	r := jx{
		a: p.re*j.a - p.im*j.c, b: p.re*j.b - p.im*j.d,
		c: p.im*j.a + p.re*j.c, d: p.im*j.b + p.re*j.d,
		e: p.e + j.e,
	}
	return r.norm().addDiag(add)
}

// finishDEJacX is finishDEJac for a jx: the estimate 2 |z|^2 ln|z| / |J^T z| in pixels (+Inf
// past float64's range, 0 for an infinite or NaN one) and the unit vector of J^T z.
func finishDEJacX(zr, zi float64, j jx) (de, ur, ui float64) {
	gr, gi := j.a*zr+j.c*zi, j.b*zr+j.d*zi // J^T z = (gr, gi)·2^e
	az := math.Hypot(zr, zi)
	ag := math.Hypot(gr, gi)
	de = math.Ldexp(2*az*math.Log(az)/(ag/az), -j.e)
	if !(de >= 0) {
		de = 0
	}
	if ag > 0 && !math.IsInf(ag, 0) {
		ur, ui = gr/ag, gi/ag
	}
	return de, ur, ui
}

// smoothFormulaDEX is smoothFormulaDE with a jx.
func smoothFormulaDEX(fm Formula, zr, zi, cr, ci float64, j jx, add Exp, n int) Result {
	m := n
	r2 := zr*zr + zi*zi
	for r2 <= SmoothBailout && m < n+8 {
		j = jacStepX(fm, cxFrom(zr, zi), j, add)
		zr, zi = formulaStep(fm, zr, zi, cr, ci)
		r2 = zr*zr + zi*zi
		m++
	}
	v := log2(0.5 * log2(r2))
	if d := fm.Power(); d != 2 {
		v /= math.Log2(float64(d))
	}
	r := Result{N: n, Nu: float64(m) + 1 - v}
	r.DE, r.Ur, r.Ui = finishDEJacX(zr, zi, j)
	return r
}

// PerturbEscapeFormulaDEExp is PerturbEscapeFormulaExp (the same n and nu) that also carries
// the formula's Jacobian (formula_de.go) with an exponent of its own (jx: it starts at the
// spacing, below float64's range), taken at the full value Z_m + d every plain step, and by
// J' = A J + spacing·B over a block of bla (nil: none), whatever form the delta is in; it
// returns the distance estimate and normal. For a Julia reference J starts at spacing·I and
// its steps add nothing.
func PerturbEscapeFormulaDEExp(ref *Reference, bla *FormulaBLAExp, dcr, dci Exp, maxIter int, spacing Exp, stop <-chan struct{}) Result {
	fm := ref.formula
	zero := cx{e: cxZeroExp}
	j := jx{a: spacing.Mant(), d: spacing.Mant(), e: spacing.Exponent()}.norm() // spacing·I
	if ref.jStart == 0 {
		return perturbFormulaLoopDEExp(ref, bla, fm, newExpState(zero, 0, 0), cxFromExp(dcr, dci), j, spacing, maxIter, stop)
	}
	d, m, escaped, zr, zi := ref.juliaStartExp(cxFromExp(dcr, dci))
	if escaped {
		return smoothFormulaDEX(fm, zr, zi, ref.jcr, ref.jci, j, Exp{}, 1)
	}
	return perturbFormulaLoopDEExp(ref, bla, fm, newExpState(d, m, 1), zero, j, Exp{}, maxIter, stop)
}

// perturbFormulaLoopDEExp is perturbFormulaLoopExp with the Jacobian j, ws added to its
// diagonal every step (the spacing; 0 for a Julia set). Its delta's steps and blocks are
// perturbFormulaLoopExp's, operation for operation.
func perturbFormulaLoopDEExp(ref *Reference, bla *FormulaBLAExp, fm Formula, st expState, dc cx, j jx, ws Exp, maxIter int, stop <-chan struct{}) Result {
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, fent, r0 := bla.table()
	dcr, dci := dc.float64s()
	dsr, dsi := bla.scaledDC(dc)
	d, dr, di, exp, m, n := st.d, st.dr, st.di, st.exp, st.m, st.n
	for steps := 1; n < maxIter; steps++ {
		if steps&stopEvery == 0 && stopped(stop) {
			return Result{N: -1}
		}
		if m > 0 && m < len(r0) {
			// perturbFormulaLoopExp's blocks, the Jacobian through each by the extended
			// entry's matrices.
			if !exp {
				if ad := math.Abs(dr) + math.Abs(di); ad >= toExp && ad < r0[m] {
					i, span := climbFormula(fent, base, m, n, maxIter, ad)
					e := &fent[i]
					dr, di = e.a11*dr+e.a12*di+e.b11*dsr+e.b12*dsi, e.a21*dr+e.a22*di+e.b21*dsr+e.b22*dsi
					j = ent[i].jacobian(j, ws)
					m += span
					n += span
					goto check
				} else if ad < toExp {
					d, exp = cxFrom(dr, di), true
				}
			}
			if exp {
				if i, span := climbFormulaExp(ent, base, m, n, maxIter, d); span > 0 {
					if d = ent[i].applyCx(d, dc); d.e > toDouble {
						exp = false
						dr, di = d.float64s()
					}
					j = ent[i].jacobian(j, ws)
					m += span
					n += span
					goto check
				}
			}
		}
		if exp {
			j = jacStepX(fm, cxAdd(ref.zcx(m), d), j, ws)
			if d = ref.stepFormulaCx(fm, m, d, dc); d.e > toDouble {
				exp = false
				dr, di = d.float64s()
			}
		} else {
			zm := z[m]
			if math.Abs(real(zm))+math.Abs(imag(zm)) < tinyRef {
				j = jacStepX(fm, cxAdd(ref.zcx(m), cxFrom(dr, di)), j, ws)
			} else {
				j = jacStepX(fm, cxFrom(real(zm)+dr, imag(zm)+di), j, ws)
			}
			dr, di, d, exp = ref.formulaStep64(fm, m, dr, di, dcr, dci, dc, d)
		}
		m++
		n++
	check:
		zm := z[m]
		if exp {
			zr, zi := real(zm), imag(zm)
			if math.Abs(zr)+math.Abs(zi) >= tinyRef {
				if z2 := zr*zr + zi*zi; z2 > esc4Lo && escapesCx(zm, d, z2, 4) {
					cr, ci := ref.smoothC(dcr, dci)
					return smoothFormulaDEX(fm, zr, zi, cr, ci, j, ws, n)
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
		if z2 > esc4Lo && escapes(zm, dr, di, z2, 4) {
			cr, ci := ref.smoothC(dcr, dci)
			return smoothFormulaDEX(fm, zr, zi, cr, ci, j, ws, n)
		}
		d, dr, di, exp, m = ref.next64(m, zr, zi, dr, di, d)
	}
	return Result{N: -1}
}

// formulaStep64 is the formula loops' plain step past float64's exponent range for a delta
// held in float64 (dr, di) at index m: the next delta in float64, or in cx (exp true; d
// otherwise unchanged) where it falls back below float64's comfortable range or the
// reference's value is one float64 may not hold.
func (ref *Reference) formulaStep64(fm Formula, m int, dr, di, dcr, dci float64, dc, d cx) (float64, float64, cx, bool) {
	zm := ref.Z[m]
	wr, wi, ur, ui := foldDelta(fm.Kind, real(zm), imag(zm), dr, di)
	var er, ei float64
	if fm.Power() == 2 {
		tr, ti := 2*wr+ur, 2*wi+ui
		er, ei = tr*ur-ti*ui+dcr, tr*ui+ti*ur+dci
	} else {
		er, ei = powerDelta(fm.Power(), wr, wi, ur, ui, dcr, dci)
	}
	if math.Abs(er)+math.Abs(ei) >= toExp && math.Abs(real(zm))+math.Abs(imag(zm)) >= tinyRef {
		return er, ei, d, false
	}
	if d = ref.stepFormulaCx(fm, m, cxFrom(dr, di), dc); d.e > toDouble {
		dr, di = d.float64s()
		return dr, di, d, false
	}
	return dr, di, d, true
}

// next64 is the formula loops' check after a step, past float64's exponent range, of a pixel
// whose delta is held in float64 (dr, di; z = Z_m + d is (zr, zi)) and has not escaped: a
// rebase (d becomes z, in cx where it falls below float64's comfortable range: exp true) or
// the reference's end. It returns the delta in both forms, exp and the index.
func (ref *Reference) next64(m int, zr, zi, dr, di float64, d cx) (cx, float64, float64, bool, int) {
	last, period, jEnd := ref.ends()
	z2 := zr*zr + zi*zi
	if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
		if zm := ref.Z[m]; math.Abs(real(zm))+math.Abs(imag(zm)) < tinyRef {
			// Z[m] may be below float64's range (held exactly in ref.tiny): add in cx.
			d = cxAdd(ref.zcx(m), cxFrom(dr, di))
		} else {
			d = cxFrom(zr, zi)
		}
		exp := d.e <= toDouble
		if !exp {
			dr, di = d.float64s()
		}
		return d, dr, di, exp, 0
	}
	if m == last {
		m -= period
	}
	return d, dr, di, false, m
}
