package fractal

import "math"

// The derivative of a formula other than the Mandelbrot set's, for the distance and slopes
// colourings. The Burning Ship's and the Mandelbar's steps are not complex-analytic (a fold
// is not), so dz/dc is not a complex number but the real 2x2 Jacobian
//
//	J = [[dx/da, dx/db], [dy/da, dy/db]]   (z = x + iy, c = a + ib)
//
// carried along the orbit, scaled by the spacing as derivative.go scales w: J(1) = spacing·I
// and J <- D f(z)^(D-1) · F(z) · J + add·I, where F(z) is the fold's Jacobian (the identity;
// diag(sign x, sign y) for the Burning Ship; diag(1, -1) for the Mandelbar), the complex
// number D f(z)^(D-1) acts as the matrix [[p, -q], [q, p]], and add is the spacing for the
// formula's own set (dz/dc) and 0 for a Julia set (dz/dz1).
//
// The escape-time potential G = log|z| / D^n has the gradient J^T z / (|z|^2 D^n) in the
// c-plane, so the exterior distance estimate in pixels is 2 |z|^2 ln|z| / |J^T z| (the
// factor 2 as in finishDE) and the normal is the direction of J^T z. Where J is conformal,
// J = [[wr, -wi], [wi, wr]], J^T z is z·conj(w) and both are finishDE's values.

// jac is a scaled Jacobian [[a, b], [c, d]].
type jac struct{ a, b, c, d float64 }

// jacT is jac in T's arithmetic (the float32 loops carry it in float32).
type jacT[T float] struct{ a, b, c, d T }

// jacStep is J <- D f(z)^(D-1) F(z) J + add·I for the orbit value z (before the step).
func jacStep[T float](fm Formula, zr, zi T, j jacT[T], add T) jacT[T] {
	wr, wi := zr, zi
	switch fm.Kind {
	case BurningShip:
		if zr < 0 {
			j.a, j.b, wr = -j.a, -j.b, -zr
		}
		if zi < 0 {
			j.c, j.d, wi = -j.c, -j.d, -zi
		}
	case Mandelbar:
		j.c, j.d, wi = -j.c, -j.d, -zi
	}
	pr, pi := powerSlope(fm.Power(), wr, wi)
	return jacT[T]{
		a: pr*j.a - pi*j.c + add, b: pr*j.b - pi*j.d,
		c: pi*j.a + pr*j.c, d: pi*j.b + pr*j.d + add,
	}
}

// powerSlope is D w^(D-1), the derivative of w^D.
func powerSlope[T float](d int, wr, wi T) (T, T) {
	pr, pi := wr, wi
	for range d - 2 {
		pr, pi = pr*wr-pi*wi, pr*wi+pi*wr
	}
	return T(d) * pr, T(d) * pi
}

// finishDEJac is finishDE for a Jacobian: the distance estimate in pixels 2 |z|^2 ln|z| /
// |J^T z| and the unit vector of J^T z (0 where J^T z is 0, infinite or not a number; an
// infinite J^T z gives distance 0, one of 0 an infinite one).
func finishDEJac(zr, zi float64, j jac) (de, ur, ui float64) {
	gr, gi := j.a*zr+j.c*zi, j.b*zr+j.d*zi
	az := math.Hypot(zr, zi)
	ag := math.Hypot(gr, gi)
	de = 2 * az * math.Log(az) / (ag / az)
	if !(de >= 0) { // NaN
		de = 0
	}
	if ag > 0 && !math.IsInf(ag, 0) {
		ur, ui = gr/ag, gi/ag
	}
	return de, ur, ui
}

// smoothFormulaDE is smoothFormula (the same nu) continued with the Jacobian, then
// finishDEJac.
func smoothFormulaDE[T float](fm Formula, zr, zi, cr, ci T, j jacT[T], add T, n int) Result {
	m := n
	r2 := float64(zr*zr + zi*zi)
	for r2 <= SmoothBailout && m < n+8 {
		j = jacStep(fm, zr, zi, j, add)
		zr, zi = formulaStep(fm, zr, zi, cr, ci)
		r2 = float64(zr*zr + zi*zi)
		m++
	}
	v := log2(0.5 * log2(r2))
	if d := fm.Power(); d != 2 {
		v /= math.Log2(float64(d))
	}
	r := Result{N: n, Nu: float64(m) + 1 - v}
	r.DE, r.Ur, r.Ui = finishDEJac(float64(zr), float64(zi), jac{float64(j.a), float64(j.b), float64(j.c), float64(j.d)})
	return r
}

// EscapeFormulaDE64 is EscapeFormula64 (the same n and nu) with the distance estimate and
// normal of the formula's Jacobian (see the top of formula_de.go): spacing is the pixel
// spacing, add the spacing for the formula's own set and 0 for a Julia set.
func EscapeFormulaDE64(fm Formula, zr, zi, cr, ci float64, maxIter int, spacing, add float64) Result {
	return escapeFormulaDE(fm, zr, zi, cr, ci, maxIter, spacing, add)
}

// EscapeFormulaDE32 is EscapeFormulaDE64 in float32 arithmetic (the orbit and the Jacobian).
func EscapeFormulaDE32(fm Formula, zr, zi, cr, ci float32, maxIter int, spacing, add float32) Result {
	return escapeFormulaDE(fm, zr, zi, cr, ci, maxIter, spacing, add)
}

// escapeFormulaDE is escapeFormula (the same arithmetic on z) that also carries the Jacobian.
func escapeFormulaDE[T float](fm Formula, zr, zi, cr, ci T, maxIter int, spacing, add T) Result {
	j := jacT[T]{a: spacing, d: spacing}
	sr, si := T(math.NaN()), T(math.NaN()) // no value saved yet
	check, period := 8, 0
	for n := 1; n <= maxIter; n++ {
		if n > 1 {
			j = jacStep(fm, zr, zi, j, add)
			zr, zi = formulaStep(fm, zr, zi, cr, ci)
		}
		r2 := zr*zr + zi*zi
		if r2 > 4 {
			return smoothFormulaDE(fm, zr, zi, cr, ci, j, add, n)
		}
		if zr == sr && zi == si {
			return Result{N: -1}
		}
		period++
		if period == check {
			period = 0
			check *= 2
			sr, si = zr, zi
		}
	}
	return Result{N: -1}
}

// PerturbEscapeFormulaDE is PerturbEscapeFormula (the same n and nu, from the same arithmetic
// on the delta) that also carries the scaled Jacobian of the full orbit z = Z_m + d and
// returns the distance estimate and normal, as PerturbEscapeDE does for the Mandelbrot set.
// A plain step takes the Jacobian at z (jacStep); a BLA block d' = A d + B dc takes
// J' = A J + spacing·B, the derivative of the block (which crosses no fold: its radius keeps
// every pixel it takes on one side of each). For a Julia reference J starts at spacing·I and
// its steps add nothing.
func PerturbEscapeFormulaDE(ref *Reference, bla *FormulaBLA, dcr, dci float64, maxIter int, spacing float64, stop <-chan struct{}) Result {
	fm := ref.formula
	j := jacT[float64]{a: spacing, d: spacing}
	if ref.jStart == 0 {
		return perturbFormulaLoopDE(ref, bla, fm, 0, 0, j, 0, 0, dcr, dci, spacing, maxIter, stop)
	}
	dr, di, m, escaped, zr, zi := ref.juliaStart(dcr, dci)
	if escaped {
		return smoothFormulaDE(fm, zr, zi, ref.jcr, ref.jci, j, 0, 1)
	}
	return perturbFormulaLoopDE(ref, bla, fm, dr, di, j, m, 1, 0, 0, 0, maxIter, stop)
}

// perturbFormulaLoopDE is perturbFormulaLoop with the Jacobian j, ws added to its diagonal
// every step (the spacing; 0 for a Julia set).
func perturbFormulaLoopDE(ref *Reference, bla *FormulaBLA, fm Formula, dr, di float64, j jacT[float64], m, n int, dcr, dci, ws float64, maxIter int, stop <-chan struct{}) Result {
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, r0 := bla.table()
	kind, d := fm.Kind, fm.Power()
	for steps := 1; n < maxIter; steps++ {
		if steps&stopEvery == 0 && stopped(stop) {
			return Result{N: -1}
		}
		if ad := math.Abs(dr) + math.Abs(di); m < len(r0) && ad < r0[m] {
			at := ent[base[m-1]:base[m]]
			e, span := &at[0], 1
			for l := 1; l < len(at) && n+span*2 <= maxIter && ad < at[l].r; l++ {
				e, span = &at[l], span*2
			}
			dr, di = e.a11*dr+e.a12*di+e.b11*dcr+e.b12*dci, e.a21*dr+e.a22*di+e.b21*dcr+e.b22*dci
			j = jacT[float64]{
				a: e.a11*j.a + e.a12*j.c + e.b11*ws, b: e.a11*j.b + e.a12*j.d + e.b12*ws,
				c: e.a21*j.a + e.a22*j.c + e.b21*ws, d: e.a21*j.b + e.a22*j.d + e.b22*ws,
			}
			m += span
			n += span
			goto check
		}
		{
			zm := z[m]
			j = jacStep(fm, real(zm)+dr, imag(zm)+di, j, ws)
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
			return smoothFormulaDE(fm, zr, zi, cr, ci, j, ws, n)
		}
		if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
			dr, di = zr, zi
			m = 0
		} else if m == last {
			m -= period
		}
	}
	return Result{N: -1}
}
