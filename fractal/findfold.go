package fractal

import (
	"context"
	"errors"
	"math"
	"math/big"
)

// The minibrot search for the folds (the Burning Ship, the Mandelbar, at any power): the
// same search as the power-d sets' (findnear.go), with the fold in the orbit and in Newton's
// method.
//
// Period. The enclosing balls carry over unchanged: a fold moves no two points farther apart,
// so the ball (Z, R) maps into (f(Z), R) and on as for z^D + c (ballPeriods). The ball period
// is again the lowest period of a c in the disc with z_P(c) = 0.
//
// Newton's method. The map c -> z_P(c) is not complex-analytic (a fold is not), but it is a
// map of R^2, smooth away from the c whose orbit meets a fold's axis before P. Its
// derivative is the real 2x2 Jacobian J_P = dz_P/dc carried along the orbit as the colourings
// carry it (formula_de.go): J_{n+1} = A(z_n) J_n + I, A(z) = D f(z)^(D-1) F(z), F(z) the fold's
// Jacobian (diag(sign Re z, sign Im z) for the Burning Ship: the sign of a part flips its row;
// diag(1, -1) for the Mandelbar), here in floatexp (jx; 53 bits, so each step gains about 50
// bits once near). The step is J_P^-1 z_P. On an axis (the Burning Ship's real-axis
// minibrots, whose orbits stay real) the sign is taken as +, the Jacobian of the upper side;
// its rows then stay diagonal, a real z_P gives a real step, and the iteration stays on the
// axis as the nucleus does. A nucleus is accepted as for the power-d sets: the last step
// below 2^-40 of its size, the period minimal (no root of z_k, k a proper divisor of P, within
// 2^-16 of its size by |J_k^-1 z_k|), inside the view and deeper; a run that fails is the
// next candidate's turn, and when none is left the search says so, never a wrong "found".
// There is no shape estimate (mathr's is complex-analytic): every nucleus counts as a
// minibrot's.
//
// Size. Near the nucleus c0 the return map from z near 0 is, to first order in f(z)^D and
// dc = c - c0, z -> L (f(z)^D + B dc) with L = A(z_{P-1}) ... A(z_1) (the matrix lambda
// of the Mandelbrot set) and B = L^-1 J_P (its beta: J_P = L + the terms from the c added at
// steps 2 to P). Each A is a multiple of a rotation or of a reflection (D f^(D-1) a complex
// factor, the fold's diag(+-1, +-1) orthogonal), so L is too: with l = sqrt|det L|, z =
// l^(-1/(D-1)) u turns the map into u -> R f(u)^D + C, R = L/l orthogonal and C =
// l^(D/(D-1)) B dc = l^(1/(D-1)) J_P dc, whose set of C lies within the escape radius as the
// formula's own does. So the copy is about c0 + (l^(1/(D-1)) J_P)^-1 C over that set, and it
// reaches at most s = ||J_P^-1|| / l^(1/(D-1)) times the radius from c0 (||J_P^-1|| =
// 1/sigma_min(J_P): the longest side of a copy that J_P stretches); for D = 2 without a fold it
// is the Mandelbrot set's 1/(beta lambda^2) exactly. The zoom is the power-d sets' (its far
// tip halfway to the view's edge: acceptNucleus), and TestFindFold checks the framing. The
// model holds while no orbit point of the copy crosses a fold's axis before P; where they do
// (next to the Burning Ship's ship) the copies are larger than s, and a copy can be thinner
// than J_P says: foldCentreShows refuses one whose body does not show.

// foldPass is nucleusPass for a formula with a fold: at c it iterates z_P(c) and the
// Jacobian J_P = dz_P/dc, and returns the Newton step J_P^-1 z_P, the size estimate s (as a
// real cx) and the least first-order distance |J_k^-1 z_k| to a root of z_k over the proper
// divisors k of p.
func foldPass(ctx context.Context, cr, ci *big.Float, p int, prec uint, fm Formula) (step [2]*big.Float, size cx, div divisorRoot, err error) {
	j, l, z, div, err := foldJacobians(ctx, cr, ci, p, prec, fm)
	if err != nil {
		return step, cx{}, div, err
	}
	st, ok := j.solve(z)
	dj, dl := j.det(), l.det()
	if !ok || dl.Sign() == 0 || !dl.Finite() {
		return step, cx{}, div, errors.New("the derivative vanished")
	}
	// s = ||J_P^-1|| / sqrt|det L|^(1/(D-1)), ||J_P^-1|| = sigma_max(J_P) / |det J_P|.
	lg := math.Log2(j.sigmaMax()) + float64(j.e) - dj.Abs().Log2() - dl.Abs().Log2()/float64(2*(fm.Power()-1))
	e := math.Floor(lg)
	size = cxFromExp(MakeExp(math.Exp2(lg-e), int(e)), Exp{})
	sr, si := st.bigs(prec)
	return [2]*big.Float{sr, si}, size, div, nil
}

// foldJacobians iterates z_P(c) with J_P = dz_P/dc and L = A(z_{P-1}) ... A(z_1), and
// returns them with z_P and the least |J_k^-1 z_k| over the proper divisors k of p.
func foldJacobians(ctx context.Context, cr, ci *big.Float, p int, prec uint, fm Formula) (j, l jx, z cx, div divisorRoot, err error) {
	o := newFindOrbitF(cr, ci, prec, fm)
	one := NewExp(1)
	j = jx{e: cxZeroExp}      // dz_n/dc
	l = jx{a: 1, d: 1}.norm() // A(z_{n-1}) ... A(z_1)
	z = cx{e: cxZeroExp}      // z_{n-1}
	div.min = MakeExp(1, 1<<30)
	for n := 1; n <= p; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return j, l, z, div, err
			}
		}
		j = jacStepX(fm, z, j, one)
		o.step()
		z = o.z()
		if z.e > 8 {
			return j, l, z, div, errEscaped
		}
		if n == p {
			break
		}
		l = jacStepX(fm, z, l, Exp{})
		if p%n == 0 {
			if q, ok := j.solve(z); ok && q.abs().Cmp(div.min) < 0 {
				div = divisorRoot{min: q.abs(), k: n}
			}
		}
	}
	return j, l, z, div, nil
}

// foldStretch is how much longer than wide the copy of the set around the fold's nucleus c
// of period p is to first order: the condition number sigma_max / sigma_min of J_P (the copy
// is about c + (l^(1/(D-1)) J_P)^-1 applied to a set of its own; see the comment at the top).
func foldStretch(ctx context.Context, cr, ci *big.Float, p int, prec uint, fm Formula) (float64, error) {
	j, _, _, _, err := foldJacobians(ctx, cr, ci, p, prec, fm)
	if err != nil {
		return 0, err
	}
	smax := j.sigmaMax()
	smin := math.Abs(j.a*j.d-j.b*j.c) / smax
	if !(smin > 0) {
		return math.Inf(1), nil
	}
	return smax / smin, nil
}

// sigmaMax is the largest singular value of j's mantissas (j without its 2^e): specNorm.
func (j jx) sigmaMax() float64 { return specNorm(j.a, j.b, j.c, j.d) }

// det is j's determinant.
func (j jx) det() Exp {
	if j.e == cxZeroExp {
		return Exp{}
	}
	return MakeExp(j.a*j.d-j.b*j.c, 2*j.e)
}

// solve is j^-1 v (ok false when j is singular or not finite).
func (j jx) solve(v cx) (cx, bool) {
	det := j.a*j.d - j.b*j.c
	if j.e == cxZeroExp || det == 0 || math.IsInf(det, 0) || math.IsNaN(det) {
		return cx{}, false
	}
	if v.e == cxZeroExp {
		return v, true
	}
	x := cx{(j.d*v.re - j.b*v.im) / det, (j.a*v.im - j.c*v.re) / det, v.e - j.e}.norm()
	return x, !math.IsInf(x.re, 0) && !math.IsNaN(x.re) && !math.IsInf(x.im, 0) && !math.IsNaN(x.im)
}

// foldCentreShows reports whether the copy around a fold's nucleus shows as a body in its
// suggested view loc (at w x h): whether any of the four points 1/48 of the view's height
// from the nucleus along each axis (the centres of the four pixels around it when the view is
// 24 pixels tall) is inside, that is, its orbit is attracted to a cycle of the nucleus's
// period p rather than escaping. Each of the three sets' main components holds the disc of
// radius 1/4 around its nucleus 0, an eighth of its view's half-height (2 s for a copy of size
// s), and the points lie at 1/34 of the height, so a copy that is what its size says passes.
// The first-order size says nothing of how thin a copy is where the orbits of its points cross
// a fold's axis, and the Mandelbar's odd-period components on its antenna are thin (period
// 175 at zoom 1.5e59 from a view at 1e30: no pixel inside at 32x24). The orbit is followed a
// period at a time, up to 64 returns: attracted when the move over a return |z_{(j+1)p} -
// z_{jp}| shrinks by half or more three times running and is below 2^-30 |z|; a point
// undecided by then counts as inside (the test refuses only what it sees escape).
func foldCentreShows(loc Location, nu nucleusFound, w, h int) bool {
	spacing := SpacingExp(loc.ZoomExp(), w, h)
	off := spacing.MulFloat(float64(h) / 48)
	prec := max(nu.prec, bitsBelow(off)+16)
	half := off.Big(prec)
	st := newFormulaBig(loc.Formula, prec)
	for _, s := range [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}} {
		cr := new(big.Float).SetPrec(prec).Set(nu.cr)
		ci := new(big.Float).SetPrec(prec).Set(nu.ci)
		cr.Add(cr, new(big.Float).SetPrec(prec).Mul(half, big.NewFloat(float64(s[0]))))
		ci.Add(ci, new(big.Float).SetPrec(prec).Mul(half, big.NewFloat(float64(s[1]))))
		if foldAttracted(st, cr, ci, nu.p, prec) {
			return true
		}
	}
	return false
}

// foldAttracted follows the orbit of c a period p at a time (see foldCentreShows): false
// when it escapes, else true.
func foldAttracted(st *formulaBig, cr, ci *big.Float, p int, prec uint) bool {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	zr, zi, pr, pi := nf(), nf(), nf(), nf()
	moved, shrinking := Exp{}, 0
	for j := range 64 {
		for range p {
			st.step(zr, zi, cr, ci)
			if zr.MantExp(nil) > 2 || zi.MantExp(nil) > 2 { // |z| past 2: it escapes
				return false
			}
		}
		z := cxFromExp(ExpFromBig(zr), ExpFromBig(zi))
		m := dist(zr, zi, pr, pi)
		if j > 0 && m.Cmp(moved.Ldexp(-1)) <= 0 {
			shrinking++
		} else {
			shrinking = 0
		}
		if shrinking >= 3 && m.Cmp(z.abs().Ldexp(-30)) < 0 {
			return true
		}
		moved = m
		pr.Set(zr)
		pi.Set(zi)
	}
	return true
}
