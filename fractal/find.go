package fractal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/cmplx"
	"slices"
	"time"
)

// Finding features: one step to the nearest minibrot (FindMinibrot) or Misiurewicz point
// (FindMisiurewicz) from a point of a view, at any depth.
//
// Minibrot. The search region is the disc D of radius r = 2/zoom (half the view's shorter
// side) around the point c0. Its image under z_n is enclosed in a ball B_n = (Z_n, R_n): Z_n
// is the orbit of c0 in math/big (at 64 bits below r), and for c = c0 + e, |e| <= r, and
// z_n(c) = Z_n + d_n with |d_n| <= R_n,
//
//	z_{n+1}(c) = Z_n^2 + c0 + 2 Z_n d_n + d_n^2 + e,  so  R_{n+1} = 2|Z_n| R_n + R_n^2 + r + u,
//
// u bounding the rounding of Z_{n+1} (2^(4-prec)). The period P is the first n whose ball
// contains 0 (|Z_n| <= R_n): no c in D has z_n(c) = 0 for a smaller n, so no nucleus in D
// has a lower period (ball period detection; the proof is the enclosure). The nucleus is
// then found by Newton's method on z_P(c) = 0 (findnear.go says from where, with which
// discs, and what is accepted), z in math/big and dz/dc in floatexp
// (53 bits of the derivative are enough for quadratic convergence to the 2^-40 of the atom
// the result needs), the precision raised to 64 bits below the atom's size once that is
// known. It has converged when the step is below 2^-40 of the atom's size; the period is
// minimal when, for each proper divisor k of P, |z_k(c)| / |dz_k/dc(c)| (the distance to the
// nearest root of z_k, to first order) is above 2^-16 of the atom's size: a root of z_k there
// would make |z_k| of the order of the Newton residue instead. The size is the standard
// estimate s = 1 / (beta lambda^2), lambda = prod_{k<P} 2 z_k, beta = sum_{q<P} 1 /
// prod_{k<=q} 2 z_k (with the q = 0 term 1); the copy of the set around the nucleus is about
// nucleus + s u for u in the set (u from -2 to 0.25 on the real axis), so the suggested zoom
// 1/(2|s|) puts the copy's far tip halfway from the centre to the nearest edge. The points of
// that copy near its boundary escape after about P times the count of u in the whole set,
// which the home view shows well at 100 iterations: the suggested iterations are
// max(the view's, MinibrotIterations(P)), at most MaxIterations.
//
// Misiurewicz point. A point c with z_{Q+P}(c) = z_Q(c) (preperiod Q, period P, Q > 0 minimal
// so that c is not a nucleus). The ball test for it is the pair test |Z_n - Z_q| <= R_n +
// R_q (then the balls B_n and B_q meet: some c in D may have z_n(c) = z_q(c)); the first
// n (then the smallest n - q) with q >= 2 passing it gives the candidate (Q, P) = (q, n - q),
// kept only when the first Newton step from c0 (below; from the orbit's dz_n/dc, kept in
// floatexp) stays within 8 disc radii, where the run would give up at once: next to a
// parabolic point the orbits linger near a weakly repelling cycle, the balls meet for hundreds
// of iterations, and the candidates' roots lie 20 to 50 disc radii away, each spending one of
// the search's Newton runs for nothing.
// Newton's method runs on mathr's reduced function g = f_Q / f_{Q-1}, f_q = z_{q+P} - z_q,
// whose quotient removes the roots of lower preperiod, the nuclei of periods dividing P
// among them (they satisfy f_q = 0 for every q): the step is 1 / (f_Q'/f_Q -
// f_{Q-1}'/f_{Q-1}). The result's preperiod and period are then measured, not assumed: the
// least P' dividing P with z_{Q+P'} = z_Q and the least Q' with z_{Q'+P'} = z_Q', "equal"
// meaning a root of the difference within 2^-20 of a pixel (Newton's method having placed
// c to 2^-30 of one), and Q' = 1 means z_P' = 0: a nucleus. A candidate that fails (no convergence, a nucleus: Q' = 0, or a point
// outside the view) rules its period out and the search goes on (FindMisiurewicz says where). A Misiurewicz point has no size (its neighbourhood
// looks alike at every scale, magnified by its cycle's multiplier per period), so the view
// keeps its zoom and iterations and moves its centre there. For z <- z^D + c (the power-d
// sets) the search is the same with the power's balls (ballGrow), derivatives (D z^(D-1)) and
// multiplier, the second half of the pair test asking whether z_{n-1} may be w z_{q-1} for a
// D-th root of unity w other than 1 (preimagesMeet), and a minibrot's tip tried for even D only.

// Found is a feature found near a point of a view, and the view that shows it.
type Found struct {
	// Loc is the suggested view: centred on the feature, with digits enough for its zoom.
	Loc Location
	// Period is the minibrot's period, or the Misiurewicz point's cycle length.
	Period int
	// Preperiod is the Misiurewicz point's preperiod (0 for a minibrot).
	Preperiod int
	// Size is the minibrot's size estimate |s| (0 for a Misiurewicz point).
	Size Exp
	// Bulb is set when the component found is a bulb (disc-shaped), not a minibrot.
	Bulb bool
}

// Text is the one line the find command prints: the location text (re, im, the formula's
// formula=NAME when it is not mandelbrot and power=D when it is not 2, a rotated view's
// rotation, zoom and iterations, as Location.String writes them and ParseLocationText reads
// them), then " period=P", or " preperiod=Q period=P" for a Misiurewicz point.
func (f Found) Text() string {
	power := ""
	if k := f.Loc.Formula.Kind; k != Mandelbrot {
		power = " formula=" + k.String()
	}
	if d := f.Loc.Formula.Power(); d != 2 {
		power += fmt.Sprintf(" power=%d", d)
	}
	s := fmt.Sprintf("re=%s im=%s%s%s zoom=%s iterations=%d", f.Loc.Re, f.Loc.Im, power, f.Loc.rotationText(), f.Loc.Zoom, f.Loc.Iterations)
	if f.Preperiod > 0 {
		s += fmt.Sprintf(" preperiod=%d", f.Preperiod)
	}
	return s + fmt.Sprintf(" period=%d", f.Period)
}

// errEscaped stops Newton's method at a point whose orbit escapes (it went astray).
var errEscaped = errors.New("the Newton iteration went outside the set")

// MaxMisiurewiczIter bounds the orbit the Misiurewicz search looks along (Q + P): the pair
// test compares each iterate with every earlier one, and the orbit is kept in math/big.
const MaxMisiurewiczIter = 1 << 14

// findTolBits is how far below the atom's size the nucleus is placed (2^-40 of it).
const findTolBits = 40

// searchStart returns the search point c0 (pixel (x, y) of l at w x h pixels, in the
// pixel grid's continuous coordinates: (w/2, h/2) is the centre exactly) and the disc radius
// r (half the shorter side), and the precision that resolves r.
func searchStart(l Location, w, h int, x, y float64) (cr, ci *big.Float, r Exp, prec uint, err error) {
	if err := l.Validate(); err != nil {
		return nil, nil, Exp{}, 0, err
	}
	if err := FinderFor(l.Formula, false); err != nil {
		return nil, nil, Exp{}, 0, err
	}
	if w < 1 || h < 1 {
		return nil, nil, Exp{}, 0, fmt.Errorf("size %dx%d must be at least 1x1", w, h)
	}
	if !(x >= 0 && x <= float64(w) && y >= 0 && y <= float64(h)) {
		return nil, nil, Exp{}, 0, fmt.Errorf("point %g,%g is outside the %dx%d image", x, y, w, h)
	}
	spacing := SpacingExp(l.ZoomExp(), w, h)
	r = NewExp(2).Quo(l.ZoomExp())
	prec = bitsBelow(r)
	cr, ci = l.Re.Big(prec), l.Im.Big(prec)
	ox, oy := l.PlaneOffset(x-float64(w)/2, float64(h)/2-y) // the screen's pixel in the plane
	cr.Add(cr, spacing.MulFloat(ox).Big(prec))
	ci.Add(ci, spacing.MulFloat(oy).Big(prec))
	return cr, ci, r, prec, nil
}

// bitsBelow is the precision that holds a point of the set (|c| < 4) to 64 bits below x.
func bitsBelow(x Exp) uint {
	return uint(max(0, math.Ceil(-x.Log2()))) + 64 + 3
}

// findOrbit iterates z <- z^D + c, or a fold's z <- f(z)^D + c, in math/big with reused
// temporaries.
type findOrbit struct {
	cr, ci          *big.Float
	zr, zi, s, d, t *big.Float
	mant            *big.Float
	deg             int         // the power D
	pr, pi, u       *big.Float  // z^k while step raises z to the power D > 2
	fold            *formulaBig // the step of a formula with a fold (nil: z^D + c)
}

func newFindOrbit(cr, ci *big.Float, prec uint) *findOrbit {
	return newFindOrbitD(cr, ci, prec, 2)
}

// newFindOrbitD is the orbit of z <- z^d + c (2 <= d <= MaxPower) from z0 = 0.
func newFindOrbitD(cr, ci *big.Float, prec uint, d int) *findOrbit {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	o := &findOrbit{cr: cr, ci: ci, zr: nf(), zi: nf(), s: nf(), d: nf(), t: nf(), mant: new(big.Float), deg: d}
	if d > 2 {
		o.pr, o.pi, o.u = nf(), nf(), nf()
	}
	return o
}

// newFindOrbitF is the orbit of formula fm's z <- f(z)^D + c from z0 = 0.
func newFindOrbitF(cr, ci *big.Float, prec uint, fm Formula) *findOrbit {
	o := newFindOrbitD(cr, ci, prec, fm.Power())
	if fm.Kind != Mandelbrot {
		o.fold = newFormulaBig(fm, prec)
	}
	return o
}

// step computes the next z: zr' = (zr+zi)(zr-zi) + cr, zi' = 2 zr zi + ci (D = 2), or z^D + c
// by D - 1 complex products, or the fold's step.
func (o *findOrbit) step() {
	if o.fold != nil {
		o.fold.step(o.zr, o.zi, o.cr, o.ci)
		return
	}
	if o.deg > 2 {
		o.pr.Set(o.zr)
		o.pi.Set(o.zi)
		for k := 2; k <= o.deg; k++ {
			o.s.Mul(o.pr, o.zr)
			o.d.Mul(o.pi, o.zi)
			o.t.Mul(o.pr, o.zi)
			o.u.Mul(o.pi, o.zr)
			o.pr.Sub(o.s, o.d)
			o.pi.Add(o.t, o.u)
		}
		o.zr.Add(o.pr, o.cr)
		o.zi.Add(o.pi, o.ci)
		return
	}
	o.t.Mul(o.zr, o.zi)
	o.s.Add(o.zr, o.zi)
	o.d.Sub(o.zr, o.zi)
	o.zr.Mul(o.s, o.d)
	o.zr.Add(o.zr, o.cr)
	o.zi.SetMantExp(o.t, 1)
	o.zi.Add(o.zi, o.ci)
}

// expOf is f rounded to an Exp, with o's scratch mantissa.
func (o *findOrbit) expOf(f *big.Float) Exp {
	if f.Sign() == 0 {
		return Exp{}
	}
	e := f.MantExp(o.mant)
	m, _ := o.mant.Float64()
	return Exp{m: m, e: e}
}

// z is the current z as a cx.
func (o *findOrbit) z() cx { return cxFromExp(o.expOf(o.zr), o.expOf(o.zi)) }

// cx helpers for the finder.

var cxOne = cx{0.5, 0, 1}

func (z cx) abs() Exp {
	if z.e == cxZeroExp {
		return Exp{}
	}
	return MakeExp(math.Hypot(z.re, z.im), z.e)
}

func (z cx) neg() cx { return cx{-z.re, -z.im, z.e} }

func (z cx) double() cx {
	if z.e == cxZeroExp {
		return z
	}
	return cx{z.re, z.im, z.e + 1}
}

func cxSub(a, b cx) cx { return cxAdd(a, b.neg()) }

// cxQuo is a / b (b != 0).
func cxQuo(a, b cx) cx {
	d := b.re*b.re + b.im*b.im
	return cx{(a.re*b.re + a.im*b.im) / d, (a.im*b.re - a.re*b.im) / d, a.e - b.e}.norm()
}

// bigs returns z as two big.Floats of precision prec.
func (z cx) bigs(prec uint) (re, im *big.Float) {
	if z.e == cxZeroExp {
		return new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
	}
	return MakeExp(z.re, z.e).Big(prec), MakeExp(z.im, z.e).Big(prec)
}

// nucleusPass iterates z_P(c) at c = (cr, ci) for z <- z^d + c and returns the Newton step
// z_P / dz_P, the size estimate, and the least |z_k| / |dz_k| over the proper divisors k of p
// with its k (+Inf-like when p = 1: a huge Exp).
//
// With pd > 0 the derivative and the step are computed in math/big at pd bits instead: a
// floatexp derivative (53 bits) makes each step gain only about 52 bits once the error is
// far below the distance over which z_P is linear, which at depth is thousands of bits.
//
// The size: near the nucleus c0 (z_P = 0) the return map from z near 0 is, to first order in
// z^d and dc = c - c0, z -> lambda (z^d + beta dc), with a_k = d z_k^(d-1) the step's
// derivative, lambda = prod_{k<P} a_k and beta = sum_{q<P} 1 / prod_{k<=q} a_k (q = 0: 1).
// With z = lambda^(-1/(d-1)) u it is u -> u^d + C, C = beta lambda^(d/(d-1)) dc: the copy of
// the power-d set around the nucleus is c0 + s C, s = 1 / (beta lambda^(d/(d-1))) (for d = 2
// the standard 1 / (beta lambda^2)). The (d-1)-th root's branch turns the copy by a (d-1)-th
// root of unity, a symmetry of the power-d set: each branch gives the same copy.
func nucleusPass(ctx context.Context, cr, ci *big.Float, p int, prec, pd uint, d int) (step [2]*big.Float, size cx, div divisorRoot, err error) {
	o := newFindOrbitD(cr, ci, prec, d)
	var bd *bigDeriv
	if pd > 0 {
		bd = newBigDeriv(pd, d)
	}
	dz := cx{e: cxZeroExp}
	z := cx{e: cxZeroExp}
	l, b := cxOne, cxOne
	div.min = MakeExp(1, 1<<30)
	for n := 1; n <= p; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return step, cx{}, div, err
			}
		}
		dz = cxAdd(cxMul(stepDeriv(z, d), dz), cxOne) // dz_n = d z_{n-1}^(d-1) dz_{n-1} + 1
		if bd != nil {
			bd.step(o.zr, o.zi)
		}
		o.step()
		z = o.z()
		if z.e > 8 {
			return step, cx{}, div, errEscaped
		}
		if n < p {
			l = cxMul(stepDeriv(z, d), l)
			if l.e != cxZeroExp {
				b = cxAdd(b, cxQuo(cxOne, l))
			}
			if p%n == 0 {
				if q := z.abs().Quo(dz.abs()); q.Cmp(div.min) < 0 {
					div = divisorRoot{min: q, k: n}
				}
			}
		}
	}
	if dz.e == cxZeroExp || l.e == cxZeroExp {
		return step, cx{}, div, errors.New("the derivative vanished")
	}
	if d == 2 {
		size = cxQuo(cxOne, cxMul(b, cxMul(l, l)))
	} else {
		size = cxQuo(cxOne, cxMul(b, cxMul(l, cxRoot(l, d-1))))
	}
	if bd != nil {
		return bd.quo(o.zr, o.zi), size, div, nil
	}
	sr, si := cxQuo(z, dz).bigs(prec)
	return [2]*big.Float{sr, si}, size, div, nil
}

// stepDeriv is the derivative d z^(d-1) of z <- z^d + c at z.
func stepDeriv(z cx, d int) cx {
	if d == 2 {
		return z.double()
	}
	return cxMul(cxPow(z, d-1), cxFrom(float64(d), 0))
}

// cxPow is z^k for k >= 1.
func cxPow(z cx, k int) cx {
	r := z
	for range k - 1 {
		r = cxMul(r, z)
	}
	return r
}

// cxRoot is the principal k-th root of z (k >= 1; 0 for 0).
func cxRoot(z cx, k int) cx {
	if z.e == cxZeroExp {
		return z
	}
	q := z.e / k
	if z.e%k < 0 {
		q--
	}
	m := complex(math.Ldexp(z.re, z.e-q*k), math.Ldexp(z.im, z.e-q*k)) // z = m 2^(qk), |m| < 2^k
	r := cmplx.Pow(m, complex(1/float64(k), 0))
	return cx{real(r), imag(r), q}.norm()
}

// divisorRoot is the least first-order distance |z_k| / |dz_k| to a root of z_k over the
// proper divisors k of a period, and its k.
type divisorRoot struct {
	min Exp
	k   int
}

// bigDeriv is dz/dc in math/big: d <- D z^(D-1) d + 1.
type bigDeriv struct {
	dr, di, t1, t2, t3 *big.Float
	deg                int
	wr, wi, t4, dd     *big.Float // z^(D-1) and D, for D > 2
}

func newBigDeriv(pd uint, deg int) *bigDeriv {
	nf := func() *big.Float { return new(big.Float).SetPrec(pd) }
	d := &bigDeriv{dr: nf(), di: nf(), t1: nf(), t2: nf(), t3: nf(), deg: deg}
	if deg > 2 {
		d.wr, d.wi, d.t4, d.dd = nf(), nf(), nf(), nf().SetInt64(int64(deg))
	}
	return d
}

func (d *bigDeriv) step(zr, zi *big.Float) {
	if d.deg > 2 {
		// w = z^(D-1), then d = D w d + 1.
		d.wr.Set(zr)
		d.wi.Set(zi)
		for k := 2; k < d.deg; k++ {
			d.t1.Mul(d.wr, zr)
			d.t2.Mul(d.wi, zi)
			d.t3.Mul(d.wr, zi)
			d.t4.Mul(d.wi, zr)
			d.wr.Sub(d.t1, d.t2)
			d.wi.Add(d.t3, d.t4)
		}
		d.t1.Mul(d.wr, d.dr)
		d.t2.Mul(d.wi, d.di)
		d.t3.Mul(d.wr, d.di)
		d.t4.Mul(d.wi, d.dr)
		d.dr.Sub(d.t1, d.t2)
		d.di.Add(d.t3, d.t4)
		d.dr.Mul(d.dr, d.dd)
		d.di.Mul(d.di, d.dd)
		d.dr.Add(d.dr, bigOne)
		return
	}
	d.t1.Mul(zr, d.dr)
	d.t2.Mul(zi, d.di)
	d.t3.Mul(zr, d.di)
	d.di.Mul(zi, d.dr)
	d.di.Add(d.di, d.t3)
	d.di.SetMantExp(d.di, 1)
	d.dr.Sub(d.t1, d.t2)
	d.dr.SetMantExp(d.dr, 1)
	d.dr.Add(d.dr, bigOne)
}

var bigOne = big.NewFloat(1)

// quo is z / d at d's precision.
func (d *bigDeriv) quo(zr, zi *big.Float) [2]*big.Float {
	pd := d.dr.Prec()
	nf := func() *big.Float { return new(big.Float).SetPrec(pd) }
	den := nf().Add(nf().Mul(d.dr, d.dr), nf().Mul(d.di, d.di))
	qr := nf().Add(nf().Mul(zr, d.dr), nf().Mul(zi, d.di))
	qi := nf().Sub(nf().Mul(zi, d.dr), nf().Mul(zr, d.di))
	return [2]*big.Float{qr.Quo(qr, den), qi.Quo(qi, den)}
}

// dist is |a - b| as an Exp.
func dist(ar, ai, br, bi *big.Float) Exp {
	dr := new(big.Float).SetPrec(ar.Prec()).Sub(ar, br)
	di := new(big.Float).SetPrec(ai.Prec()).Sub(ai, bi)
	return cxFromExp(ExpFromBig(dr), ExpFromBig(di)).abs()
}

// centredAt returns l centred on (cr, ci) at zoom (rounded to three digits), its centre
// written with the digits the zoom needs at w x h pixels.
func centredAt(l Location, cr, ci *big.Float, zoom Exp, w, h int) (Location, error) {
	z, err := ParseDecimal(zoom.Text(3))
	if err != nil {
		return l, err
	}
	if err := CheckZoom(z); err != nil {
		return l, err
	}
	digits := digitsFor(SpacingExp(z.Exp(), w, h))
	l.Re = Decimal{text: trimZeros(cr.Text('f', digits))}
	l.Im = Decimal{text: trimZeros(ci.Text('f', digits))}
	l.Zoom = z
	return l, l.Validate()
}

// FindMisiurewicz finds the Misiurewicz point nearest point (x, y) of l at w x h pixels
// that it can verify (see the comment at the top of find.go), with Q + P at most
// min(limit, MaxMisiurewiczIter), and returns the view centred on it at l's zoom, with its
// preperiod and period. The point is inside the view, always: one outside counts as none, and
// when there is none the error is ErrNoMisiurewicz. The search first looks in the disc of
// radius r (half the view's height) around (x, y), where the first candidate that settles is
// the simplest (least Q + P) point near it; when none settles there, in discs a quarter as
// wide, a sixteenth, ... down to misiMinDisc pixels (deep in a filament the first disc's
// candidates are out of Newton's reach from the point). Then it looks for a nearer one from
// grids of start points over the view, of steps r/2, r/4 and r/8, each start with a disc just
// covering its cell, nearest (x, y) first and only as far as the nearest point found so far; a
// grid is skipped when that point is within one of its steps of (x, y). (From the middle of a
// minibrot, where the first disc holds interior points whose orbits never escape, the balls
// grow past the set and no candidate settles: the grids find the minibrot's own points.) The
// search stops after misiMaxTries Newton runs or misiMaxPairs pair tests, the search for a
// nearer point after misiRefineTries Newton runs. When all that finds nothing, it tries a
// minibrot's tip (misiSearch.tip): the minibrot a candidate's run ended on, or else the one
// FindMinibrotWith finds nearest (x, y).
func FindMisiurewicz(ctx context.Context, l Location, w, h int, x, y float64, limit int) (Found, error) {
	if err := FinderFor(l.Formula, true); err != nil {
		return Found{}, err
	}
	cr, ci, r, _, err := searchStart(l, w, h, x, y)
	if err != nil {
		return Found{}, err
	}
	maxN := min(max(limit, 1), MaxMisiurewiczIter)
	d := l.Formula.Power()
	s := misiSearch{ctx: ctx, l: l, w: w, h: h, maxN: maxN, d: d, roots: unitRoots(d)}
	best, have, err := s.scan(cr, ci, r, 16)
	if err != nil {
		return Found{}, err
	}
	spacing := SpacingExp(l.ZoomExp(), w, h)
	// Deep in a filament the first disc's candidates have preperiods in the hundreds or
	// thousands, and Newton's method from the pointer reaches none of them: the disc maps onto
	// a region too large for its first-order model, and every run leaves the disc. Discs a
	// quarter as wide, then a sixteenth, ... (down to misiMinDisc pixels) give candidates whose
	// roots lie within reach, nearest the pointer.
	for rk := r.Ldexp(-2); !have && !s.spent() && rk.Quo(spacing).Float64() >= misiMinDisc; rk = rk.Ldexp(-2) {
		if best, have, err = s.scan(cr, ci, rk, 8); err != nil {
			return Found{}, err
		}
	}
	prec := bitsBelow(spacing)
	distance := func(f Found) float64 { // from (x, y), in pixels
		return dist(f.Loc.Re.Big(prec), f.Loc.Im.Big(prec), cr, ci).Quo(spacing).Float64()
	}
	bestD := math.Inf(1)
	foundAt := s.tries // the Newton runs when the first point was found
	if have {
		bestD = distance(best)
	}
	for k := 1; k <= 3 && !s.spent(); k++ {
		step := r.Ldexp(-k).Quo(spacing).Float64() // the grid's step in pixels
		if bestD <= step {
			break
		}
		type start struct {
			x, y, d float64
		}
		var starts []start
		ni, nj := int(float64(w)/step)+1, int(float64(h)/step)+1
		for i := -ni; i <= ni; i++ {
			for j := -nj; j <= nj; j++ {
				px, py := x+float64(i)*step, y+float64(j)*step
				if px >= 0 && px <= float64(w) && py >= 0 && py <= float64(h) {
					starts = append(starts, start{px, py, math.Hypot(float64(i), float64(j)) * step})
				}
			}
		}
		slices.SortStableFunc(starts, func(a, b start) int { return cmp.Compare(a.d, b.d) })
		for _, st := range starts {
			if st.d-step > bestD || s.spent() || have && s.tries-foundAt >= misiRefineTries {
				break // every start from here on is farther than the point found, or enough work
			}
			sr, si, _, _, err := searchStart(l, w, h, st.x, st.y)
			if err != nil {
				return Found{}, err
			}
			f, ok, err := s.scan(sr, si, r.Ldexp(-k).MulFloat(0.75), 4)
			if err != nil {
				return Found{}, err
			}
			if !ok {
				continue
			}
			if !have {
				foundAt = s.tries
			}
			if d := distance(f); d < bestD {
				best, bestD, have = f, d, true
			}
		}
	}
	if !have {
		if best, have, err = s.lastTip(x, y); err != nil {
			return Found{}, err
		}
	}
	if have {
		return best, nil
	}
	if s.tries == 0 {
		return Found{}, fmt.Errorf("%w: no candidate near this point with preperiod plus period up to %d was within reach of Newton's method", ErrNoMisiurewicz, maxN)
	}
	return Found{}, fmt.Errorf("%w: none of the %d candidates nearest this point (preperiod plus period up to %d) settled on one", ErrNoMisiurewicz, s.tries, maxN)
}

// lastTip is the search's last resort, a minibrot's tip: the one whose nucleus a candidate's
// Newton run ended on, or else the minibrot nearest pixel (x, y), if any (at zoom 1e25 next
// to the period-8007 minibrot, 1e-32 across, the scans run out of pair tests before a
// candidate reaches it).
func (s *misiSearch) lastTip(x, y float64) (Found, bool, error) {
	nu := s.nucleus
	if nu == nil {
		m, err := FindMinibrotWith(s.ctx, s.l, s.w, s.h, x, y, FindOptions{Limit: (s.maxN - 1) / 2, AllowShallower: true, MaxTime: misiMinibrotTime})
		if err == nil {
			p := bitsBelow(m.Size) + 32
			nu = &nucleusError{cr: m.Loc.Re.Big(p), ci: m.Loc.Im.Big(p), p: m.Period}
		} else if s.ctx.Err() != nil {
			return Found{}, false, s.ctx.Err()
		}
	}
	return s.tip(nu)
}

// ErrNoMisiurewicz is the error of a Misiurewicz search that found no point inside the view.
var ErrNoMisiurewicz = errors.New("no Misiurewicz point found inside this view")

// maxRadius is the largest of the radii rs (0 for none).
func maxRadius(rs []Exp) Exp {
	m := Exp{}
	for _, r := range rs {
		if r.Cmp(m) > 0 {
			m = r
		}
	}
	return m
}

// misiMaxTries bounds the Newton runs of one Misiurewicz search.
const misiMaxTries = 400

// misiRefineTries bounds the Newton runs that look for a nearer point once one is found (deep
// in a minibrot each costs tenths of a second).
const misiRefineTries = 32

// misiMinibrotTime bounds the search for a minibrot whose tip FindMisiurewicz tries when no
// candidate settled.
const misiMinibrotTime = 10 * time.Second

// misiMinDisc is the radius in pixels of the smallest disc FindMisiurewicz looks in around
// the point when the first disc finds nothing.
const misiMinDisc = 4

// misiMaxPairs bounds the pair tests of one Misiurewicz search (each n tests n - 2 pairs:
// a scan to n = 16384 tests 2^27), about a second's work.
const misiMaxPairs = 1 << 28

// spent reports whether the search has used up its candidates or its pair tests.
func (s *misiSearch) spent() bool { return s.tries >= misiMaxTries || s.pairs >= misiMaxPairs }

// misiSearch is one Misiurewicz search: the view, the limit, and the Newton runs so far.
type misiSearch struct {
	ctx   context.Context
	l     Location
	w, h  int
	maxN  int
	d     int          // the power D of z <- z^D + c
	roots []complex128 // the D-th roots of unity but 1 (unitRoots)
	tries int
	pairs int
	// nucleus is the first nucleus a candidate's Newton run ended on (nil: none).
	nucleus *nucleusError
}

// tip tries the tip of the minibrot whose nucleus the search met: the copy of -2 (preperiod
// 2, period 1) in the minibrot nucleus + s u (s its size estimate, u in the set), a
// Misiurewicz point of preperiod P + 1 and period P (z_P near -w for w a point of the
// minibrot's repelling P-cycle, its beta fixed point, so z_{P+1} = f(w)). Q + P = 2P + 1 is
// the least of the copy's points (those the grids find in bench/find-measure's views framing a
// minibrot have preperiod 3P + 1 and period P), and from a point near the minibrot the pair
// test meets the nucleus's own candidates (j, P) first: at period 8007 (zoom 5.6e31) the scans
// reach the limit 16384 with no other candidate. Newton's method starts at nucleus - 2 s, in a disc of
// radius |s|. A tip within a pixel of its nucleus is not tried.
func (s *misiSearch) tip(nu *nucleusError) (Found, bool, error) {
	if nu == nil || 2*nu.p+1 > s.maxN || s.d%2 != 0 {
		return Found{}, false, nil // an odd power's set has no tip -2^(1/(D-1)) (it escapes)
	}
	spacing := SpacingExp(s.l.ZoomExp(), s.w, s.h)
	tol := spacing.Ldexp(-30)
	prec := max(nu.cr.Prec(), bitsBelow(tol))
	cr, ci := new(big.Float).SetPrec(prec).Set(nu.cr), new(big.Float).SetPrec(prec).Set(nu.ci)
	_, size, _, err := nucleusPass(s.ctx, cr, ci, nu.p, prec, 0, s.d)
	if err != nil || size.abs().Ldexp(1).Cmp(spacing) < 0 {
		// Within a pixel of the nucleus (at zoom 1e25, 2e-32 from the period-8007 one) the
		// tip is the minibrot to the eye, and the view's digits cannot tell the two apart.
		return Found{}, false, s.ctx.Err()
	}
	sr, si := cxMul(size, cxFrom(powerSetReach(s.d), 0)).bigs(prec) // the tip is at nucleus - 2^(1/(D-1)) s
	cr.Sub(cr, sr)
	ci.Sub(ci, si)
	s.tries++
	f, err := misiurewiczNewton(s.ctx, s.l, cr, ci, nu.p+1, nu.p, prec, tol, size.abs(), s.w, s.h, s.d)
	if err != nil {
		return Found{}, false, s.ctx.Err()
	}
	return f, true, nil
}

// scan looks for a Misiurewicz point inside the view from the disc of radius r around
// (cr, ci), trying at most tries candidates (ok is false when none settled inside the view).
// In a disc smaller than the set (r below 1/4) it stops once a ball's radius passes 4: the
// ball then holds every bounded orbit's points, and the pair test says nothing more (from
// the middle of a minibrot, every pair would meet from there on, and each candidate would
// send Newton's method astray).
func (s *misiSearch) scan(cr, ci *big.Float, r Exp, tries int) (f Found, ok bool, err error) {
	spacing := SpacingExp(s.l.ZoomExp(), s.w, s.h)
	tol := spacing.Ldexp(-30)
	prec := max(bitsBelow(r), bitsBelow(tol))
	c0r, c0i := new(big.Float).SetPrec(prec).Set(cr), new(big.Float).SetPrec(prec).Set(ci)

	// The orbit of c0 with its enclosing balls, in math/big and in float64 for the filter.
	o := newFindOrbitD(c0r, c0i, prec, s.d)
	zs := make([][2]*big.Float, 1, 256)
	zs[0] = [2]*big.Float{new(big.Float), new(big.Float)}
	zf := []complex128{0}
	rs := []Exp{{}}
	rf := []float64{0}
	dzs := []cx{{e: cxZeroExp}} // dz_n/dc, for the first-order filter
	dz := cx{e: cxZeroExp}
	u := MakeExp(1, 4-int(prec))
	if s.d > 2 {
		u = MakeExp(1, 3*s.d+4-int(prec)) // as ballPeriods's
	}
	ru := r.Add(u)
	R, za := Exp{}, Exp{}
	zc := cx{e: cxZeroExp} // z_{n-1} as a cx
	diff := new(big.Float).SetPrec(prec)
	diffI := new(big.Float).SetPrec(prec)
	small, four := r.Cmp(NewExp(0.25)) < 0, NewExp(4)
	for n := 1; n <= s.maxN; n++ {
		if n&255 == 0 {
			if err := s.ctx.Err(); err != nil {
				return Found{}, false, err
			}
		}
		dz = cxAdd(cxMul(stepDeriv(zc, s.d), dz), cxOne)
		o.step()
		R = ballGrow(za, R, s.d).Add(ru)
		z := o.z()
		za = z.abs()
		if za.Sub(R).Cmp(NewExp(2)) > 0 || small && R.Cmp(four) > 0 {
			break // the whole disc has escaped, or the balls no longer tell anything
		}
		zs = append(zs, [2]*big.Float{new(big.Float).Copy(o.zr), new(big.Float).Copy(o.zi)})
		fr, fi := z.float64s()
		zf = append(zf, complex(fr, fi))
		rs = append(rs, R)
		rf = append(rf, R.Float64())
		dzs = append(dzs, dz)
		zc = z
		if n >= 256 && n&(n-1) == 0 && maxRadius(rs[n/2+1:]).Cmp(maxRadius(rs[n/4+1:n/2+1]).Ldexp(1)) <= 0 {
			// The balls stopped growing (their largest from n/2 to n at most twice their
			// largest from n/4 to n/2, windows that hold a whole period of any cycle of
			// period up to n/4): the orbits of the whole disc are attracted to a cycle,
			// inside a component, and a Misiurewicz point (whose neighbours' orbits its
			// repelling cycle pushes apart) is not in it. Without this cut the scan would run
			// to maxN finding no candidate.
			break
		}
		if s.pairs += n - 2; s.pairs >= misiMaxPairs {
			break
		}
		for q := n - 1; q >= 2; q-- {
			// z_n = z_q possible, and z_{n-1} = -z_{q-1} (a genuine preperiod q: the orbit
			// joins the cycle from the other preimage), both within the balls.
			if !ballsMeet(n, q, 1, zf, zs, rs, rf, diff, diffI, o) || !s.preimagesMeet(n-1, q-1, zf, zs, rs, rf, diff, diffI, o) {
				continue
			}
			if !misiStepWithin(o, zs, dzs, n, q, r.Ldexp(3), diff, diffI) {
				// The balls meet, but the first Newton step leaves the 8 radii
				// misiurewiczNewton allows: the orbit lingers near a weakly repelling
				// cycle (next to a parabolic point, in the seahorse valley: z_{q+39}
				// within 1e-5 of z_q for hundreds of iterations) without a root of
				// z_n - z_q near c0. Newton's method from c0 would leave the disc.
				continue
			}
			p := n - q
			f, ferr := misiurewiczNewton(s.ctx, s.l, cr, ci, q, p, prec, tol, r, s.w, s.h, s.d)
			if ferr == nil {
				return f, true, nil
			}
			if s.ctx.Err() != nil {
				return Found{}, false, s.ctx.Err()
			}
			if ne := (*nucleusError)(nil); s.nucleus == nil && errors.As(ferr, &ne) {
				s.nucleus = ne
			}
			s.tries++
			if tries--; tries <= 0 || s.spent() {
				return Found{}, false, nil
			}
		}
	}
	return Found{}, false, nil
}

// misiStepWithin reports whether the first Newton step of the reduced function for the
// candidate (q, n - q) from c0, 1 / (f_q'/f_q - f_{q-1}'/f_{q-1}) with f_k = z_{k+n-q} - z_k,
// is at most lim long (diff and diffI are scratch).
func misiStepWithin(o *findOrbit, zs [][2]*big.Float, dzs []cx, n, q int, lim Exp, diff, diffI *big.Float) bool {
	f := func(a, b int) cx {
		diff.Sub(zs[a][0], zs[b][0])
		diffI.Sub(zs[a][1], zs[b][1])
		return cxFromExp(o.expOf(diff), o.expOf(diffI))
	}
	f1, f0 := f(n, q), f(n-1, q-1)
	if f1.e == cxZeroExp {
		return true // c0 is a root
	}
	den := cxQuo(cxSub(dzs[n], dzs[q]), f1)
	if f0.e != cxZeroExp {
		den = cxSub(den, cxQuo(cxSub(dzs[n-1], dzs[q-1]), f0))
	}
	if den.e == cxZeroExp {
		return false
	}
	return cxQuo(cxOne, den).abs().Cmp(lim) <= 0
}

// ballsMeet reports whether the balls B_n and sign*B_q meet: first in float64 with a margin
// for its rounding, then exactly from the values in math/big.
func ballsMeet(n, q int, sign float64, zf []complex128, zs [][2]*big.Float, rs []Exp, rf []float64, diff, diffI *big.Float, o *findOrbit) bool {
	a, b := zf[n], complex(sign, 0)*zf[q]
	d := a - b
	slack := 0x1p-48*(math.Abs(real(a))+math.Abs(imag(a))+math.Abs(real(b))+math.Abs(imag(b))) + 1e-300
	if math.Abs(real(d))+math.Abs(imag(d)) > 2*(rf[n]+rf[q])+slack {
		return false
	}
	if sign > 0 {
		diff.Sub(zs[n][0], zs[q][0])
		diffI.Sub(zs[n][1], zs[q][1])
	} else {
		diff.Add(zs[n][0], zs[q][0])
		diffI.Add(zs[n][1], zs[q][1])
	}
	return cxFromExp(o.expOf(diff), o.expOf(diffI)).abs().Cmp(rs[n].Add(rs[q])) <= 0
}

// preimagesMeet reports whether the balls B_n and w B_q meet for some D-th root of unity w but
// 1 (z_n = w z_q: two preimages of one point, as z_{Q-1+P} and z_{Q-1} of a genuine preperiod
// Q are): for D = 2, w = -1, ballsMeet's test; for D > 2 first in float64 with a margin for
// its rounding, then from the values in math/big times w in float64, the balls widened by
// 2^-50 |z_q| for w's rounding. Where the balls are smaller than that (deep views) the test
// lets more pairs through than meet; it only chooses candidates, and what Newton's method
// finds is measured exactly (misiurewiczNewton).
func (s *misiSearch) preimagesMeet(n, q int, zf []complex128, zs [][2]*big.Float, rs []Exp, rf []float64, diff, diffI *big.Float, o *findOrbit) bool {
	if s.d == 2 {
		return ballsMeet(n, q, -1, zf, zs, rs, rf, diff, diffI, o)
	}
	a := zf[n]
	scale := math.Abs(real(a)) + math.Abs(imag(a)) + math.Abs(real(zf[q])) + math.Abs(imag(zf[q]))
	for _, w := range s.roots {
		d := a - w*zf[q]
		if math.Abs(real(d))+math.Abs(imag(d)) > 2*(rf[n]+rf[q])+0x1p-46*scale+1e-300 {
			continue
		}
		wr, wi := big.NewFloat(real(w)), big.NewFloat(imag(w))
		t := new(big.Float).SetPrec(diff.Prec())
		diff.Mul(zs[q][0], wr)
		diff.Sub(diff, t.Mul(zs[q][1], wi))
		diffI.Mul(zs[q][0], wi)
		diffI.Add(diffI, t.Mul(zs[q][1], wr))
		diff.Sub(zs[n][0], diff)
		diffI.Sub(zs[n][1], diffI)
		slack := cxFromExp(ExpFromBig(zs[q][0]), ExpFromBig(zs[q][1])).abs().Ldexp(-50)
		if cxFromExp(o.expOf(diff), o.expOf(diffI)).abs().Cmp(rs[n].Add(rs[q]).Add(slack)) <= 0 {
			return true
		}
	}
	return false
}

// unitRoots is the D-th roots of unity but 1, in float64.
func unitRoots(d int) []complex128 {
	var w []complex128
	for k := 1; k < d; k++ {
		w = append(w, cmplx.Rect(1, 2*math.Pi*float64(k)/float64(d)))
	}
	return w
}

// misiPass iterates at c up to Q+P and returns the reduced Newton step and, for the
// measurement, every z_k (in math/big) and dz_k (cx), k = 0..Q+P.
func misiPass(ctx context.Context, cr, ci *big.Float, q, p int, prec uint, d int) (step cx, zs [][2]*big.Float, dzs []cx, err error) {
	o := newFindOrbitD(cr, ci, prec, d)
	dz, z := cx{e: cxZeroExp}, cx{e: cxZeroExp}
	zs = make([][2]*big.Float, q+p+1)
	dzs = make([]cx, q+p+1)
	zs[0] = [2]*big.Float{new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)}
	dzs[0] = dz
	for n := 1; n <= q+p; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return cx{}, nil, nil, err
			}
		}
		dz = cxAdd(cxMul(stepDeriv(z, d), dz), cxOne)
		o.step()
		z = o.z()
		if z.e > 8 {
			return cx{}, nil, nil, errEscaped
		}
		zs[n] = [2]*big.Float{new(big.Float).Copy(o.zr), new(big.Float).Copy(o.zi)}
		dzs[n] = dz
	}
	f1, d1 := misiF(o, zs, dzs, q, p)
	f0, d0 := misiF(o, zs, dzs, q-1, p)
	if f1.e == cxZeroExp {
		return cx{e: cxZeroExp}, zs, dzs, nil // exactly on a root
	}
	den := cxQuo(d1, f1)
	if f0.e != cxZeroExp {
		den = cxSub(den, cxQuo(d0, f0))
	}
	if den.e == cxZeroExp {
		return cx{}, nil, nil, errors.New("the derivative vanished")
	}
	return cxQuo(cxOne, den), zs, dzs, nil
}

// misiF is f_q = z_{q+p} - z_q and its derivative.
func misiF(o *findOrbit, zs [][2]*big.Float, dzs []cx, q, p int) (f, d cx) {
	prec := zs[q+p][0].Prec()
	dr := new(big.Float).SetPrec(prec).Sub(zs[q+p][0], zs[q][0])
	di := new(big.Float).SetPrec(prec).Sub(zs[q+p][1], zs[q][1])
	return cxFromExp(o.expOf(dr), o.expOf(di)), cxSub(dzs[q+p], dzs[q])
}

// cycleMultiplier is |prod D z_k^(D-1)| for k from q to q+p-1: the multiplier of the cycle of
// period p that the orbit of z <- z^D + c reaches at z_q.
func cycleMultiplier(o *findOrbit, zs [][2]*big.Float, q, p, d int) Exp {
	m := cxOne
	for k := q; k < q+p; k++ {
		m = cxMul(m, stepDeriv(cxFromExp(o.expOf(zs[k][0]), o.expOf(zs[k][1])), d))
	}
	return m.abs()
}

// nucleusError is misiurewiczNewton's error when it converged on a nucleus: where, and its
// period.
type nucleusError struct {
	cr, ci *big.Float
	p      int
}

func (e *nucleusError) Error() string { return "a nucleus, not a Misiurewicz point" }

// misiurewiczNewton runs the reduced Newton's method for (q, p) from c0 = (cr, ci) and
// measures the preperiod and period of where it ends.
func misiurewiczNewton(ctx context.Context, l Location, cr0, ci0 *big.Float, q, p int, prec uint, tol, r Exp, w, h, d int) (Found, error) {
	spacing := SpacingExp(l.ZoomExp(), w, h)
	cr, ci := new(big.Float).SetPrec(prec).Set(cr0), new(big.Float).SetPrec(prec).Set(ci0)
	for range 64 {
		step, zs, dzs, err := misiPass(ctx, cr, ci, q, p, prec, d)
		if err != nil {
			return Found{}, err
		}
		sr, si := step.bigs(prec)
		cr.Sub(cr, sr)
		ci.Sub(ci, si)
		if dist(cr, ci, cr0, ci0).Cmp(r.Ldexp(3)) > 0 {
			return Found{}, errors.New("the Newton iteration left the search disc")
		}
		if step.abs().Cmp(tol) > 0 {
			continue
		}
		// Converged: measure the period (the least divisor k of p with f = z_{q+k} - z_q
		// zero at c) and the preperiod (the least q' with z_{q'+k} - z_q' zero at c). Zero
		// means a root within 2^-20 of a pixel by the first-order distance |f| / |f'|: a
		// relative test |z_a - z_b| against |z_a| fails next to a minibrot, where z_{q-1} is
		// tiny and z_q is close to c for every orbit near it.
		o := newFindOrbitD(cr, ci, prec, d)
		meas := spacing.Ldexp(-20)
		equal := func(q, p int) bool {
			f, d := misiF(o, zs, dzs, q, p)
			return f.e == cxZeroExp || f.abs().Quo(d.abs()).Cmp(meas) <= 0
		}
		pp := 0
		for k := 1; k <= p; k++ {
			if p%k == 0 && equal(q, k) {
				pp = k
				break
			}
		}
		if pp == 0 {
			return Found{}, errors.New("not a root")
		}
		qq := q
		for qq > 0 && equal(qq-1, pp) {
			qq--
		}
		if qq <= 1 { // z_{1+P} = z_1 = c: z_P = 0
			return Found{}, &nucleusError{cr: cr, ci: ci, p: pp}
		}
		// The test above misses a nucleus: there f_q = z_{q+P} - z_q has a multiple root (at
		// c = -1, P = 2, f_q' = dz_{q+2} - dz_q is 0 exactly), so Newton's method stops near
		// it with a tiny step and no measure of the distance, and the preperiod comes out as
		// any q. A Misiurewicz point's orbit lands on a repelling cycle (and so never returns
		// to 0); a nucleus's, or any point's near one, settles on an attracting cycle, through
		// 0 or close to it. So the cycle's multiplier prod 2 z_k over z_Q' ... z_{Q'+P'-1}
		// must exceed 1 in modulus.
		if m := cycleMultiplier(o, zs, qq, pp, d); m.Cmp(NewExp(1)) <= 0 {
			return Found{}, fmt.Errorf("an attracting cycle of period %d (multiplier %.3g), not a Misiurewicz point", pp, m.Float64())
		}
		if !inView(l, w, h, cr, ci) {
			return Found{}, errors.New("outside the view")
		}
		loc, err := centredAt(l, cr, ci, l.ZoomExp(), w, h)
		if err != nil {
			return Found{}, err
		}
		loc.Zoom = l.Zoom
		return Found{Loc: loc, Period: pp, Preperiod: qq}, nil
	}
	return Found{}, errors.New("no convergence")
}

// MinibrotPeriods is how many times its period P a minibrot's view needs in iterations to show
// it whole: the points of the minibrot's copy of the set near its boundary escape after about
// P times the count of their place in the whole set, which the home view shows well at 100.
const MinibrotPeriods = 100

// MinibrotIterations is the iteration count that shows a minibrot of period p whole:
// MinibrotPeriods times p, at most MaxIterations. Find's suggested view asks for it, and so
// does the automatic count of a view that frames the minibrot (preview.AutoBoost).
func MinibrotIterations(p int) int { return min(MinibrotPeriods*max(p, 0), MaxIterations) }
