package fractal

import (
	"context"
	"math"
	"math/big"
)

// Rechecking the pixels a far reference leaves in doubt.
//
// A view at a minibrot's edge past the end of its own orbit takes the minibrot's nucleus as its
// reference (nucleusref.go), thousands of view widths away, and its float64 deltas then carry
// roundings far coarser than a pixel (perturbdd.go). Most of its pixels are not hurt: those that
// escape within recheckFrom iterations leave the minibrot's neighbourhood before the roundings
// add up. The others have crept past its cycle, whose multiplier is nearly 1, for hundreds of
// thousands of iterations, and where they slip out depends on c far below those roundings: at
// bench/edge-verify's views, 6 of 120 such pixels were wrong (inside pixels escaping, escaping
// ones inside or millions of iterations off).
//
// So a pixel of such a frame whose float64 count is -1 or past recheckFrom is checked again
// (Frame.Recheck), by what decides it with the fewest operations:
//  1. Inside, proved: Newton's method finds the pixel's own cycle of the minibrot's period in
//     double-double, and its multiplier is below 1 (by a margin above its rounding). An
//     attracting cycle attracts the critical orbit: the point never escapes, at any count.
//  2. Agreed: the count computed again in double-double (perturbEscapeDD), its roundings 2^-53
//     times the float64 loop's and different from them, is within max(1, N/1000) of the
//     float64 count (or both are -1). An orbit the roundings moved gives two counts apart.
//  3. Otherwise the pixel is computed in math/big, at the precision probe --exact uses
//     (ReferenceBits + 32): seconds to a minute at millions of iterations, for the few pixels
//     that get there. The double-double count alone is not enough: at 5e152 and 3e62 it said
//     inside where math/big (at two precisions) gives 4,616,284 and 5,045,290.

// recheckFrom is the count from which a far reference's pixels are checked again (Recheck).
const recheckFrom = 1 << 16

// NeedsRecheck reports whether f's pixels with counts past recheckFrom (or -1) are checked
// again (Recheck): a Mandelbrot Perturbation frame whose reference is a minibrot's nucleus
// outside the view, asking more than recheckFrom iterations, not marked Unchecked.
func (f Frame) NeedsRecheck() bool {
	return !f.Unchecked && f.Precision() == Perturbation && f.Ref != nil && f.Ref.anchorRe != nil && !f.Ref.julia.On &&
		f.Loc.Formula.IsMandelbrot() && f.Loc.Iterations > recheckFrom
}

// Recheck returns pixel (x, y)'s count and smooth value given the float64 loop's (n, nu): the
// same where f needs no recheck (NeedsRecheck) or n is below recheckFrom, else the checked ones
// (see the comment at the top of this file). Closing stop ends it early with a meaningless
// result the caller throws away, as the loops' stop does.
func (f Frame) Recheck(x, y, n int, nu float64, stop <-chan struct{}) (int, float64) {
	r := f.RecheckResult(x, y, Result{N: n, Nu: nu}, stop)
	return r.N, r.Nu
}

// RecheckResult is Recheck for a Result with the derivative (PerturbEscapeDE's): r itself where
// no recheck applies, else the result of the orbit that decided it (the double-double one where
// it agreed, or math/big's), its distance estimate and normal from the derivative carried in
// float64 along that orbit.
func (f Frame) RecheckResult(x, y int, r Result, stop <-chan struct{}) Result {
	if !f.NeedsRecheck() || r.N >= 0 && r.N < recheckFrom {
		return r
	}
	dcr, dci := f.deltaDD(x, y)
	if f.Ref.attractsAt(dcr, dci) {
		return Result{N: -1}
	}
	maxIter := f.Loc.Iterations
	d, ok := perturbEscapeDD(context.Background(), f.Ref, dcr, dci, maxIter, f.Spacing, stop)
	if ok && (d.N == r.N || d.N >= 0 && r.N >= 0 && absInt(d.N-r.N) <= max(1, maxIter/1000)) {
		return d
	}
	prec := f.ReferenceBits() + 32
	cr, ci := f.PointBig(x, y, prec)
	return escapeBigResult(cr, ci, maxIter, prec, f.Spacing, stop)
}

// attractMargin is how far below 1 a cycle's multiplier |lambda|^2 must be for attractsAt to
// call it attracting: far above its rounding (p float64 products, a few 2^-53 each).
const attractMargin = 0x1p-32

// attractsAt reports whether the point C + dc (C ref's point, dc a double-double) has an
// attracting cycle of ref's period, found by Newton's method from the critical point: ref is
// periodic with Z_0 = 0 (a nucleus), so the pixel's cycle through a point w near 0 is where
// Z_p + d_p(w) = w, d following the pixel from d_0 = w. It reports false when Newton's method
// does not settle or the multiplier is not below 1 by attractMargin.
func (ref *Reference) attractsAt(dcr, dci dd) bool {
	p := ref.period
	if p == 0 || len(ref.Z) <= p || ref.jStart != 0 {
		return false
	}
	zlo := ref.lowParts(context.Background())
	if zlo == nil {
		return false
	}
	var wr, wi dd
	for range 64 {
		dr, di := wr, wi
		lam := complex(1, 0)
		for k := range p {
			zr, zi := dd{real(ref.Z[k]), real(zlo[k])}, dd{imag(ref.Z[k]), imag(zlo[k])}
			lam *= 2 * complex(zr.add(dr).float(), zi.add(di).float())
			tr, ti := zr.add(zr).add(dr), zi.add(zi).add(di)
			dr, di = tr.mul(dr).sub(ti.mul(di)).add(dcr), tr.mul(di).add(ti.mul(dr)).add(dci)
		}
		zr, zi := dd{real(ref.Z[p]), real(zlo[p])}, dd{imag(ref.Z[p]), imag(zlo[p])}
		gr, gi := zr.add(dr).sub(wr), zi.add(di).sub(wi)
		step := complex(gr.float(), gi.float()) / (lam - 1)
		if math.IsNaN(real(step)) || math.IsInf(real(step), 0) || math.IsNaN(imag(step)) || math.IsInf(imag(step), 0) {
			return false
		}
		wr, wi = wr.sub(dd{real(step), 0}), wi.sub(dd{imag(step), 0})
		size := math.Max(math.Hypot(wr.hi, wi.hi), 0x1p-1000)
		if math.Hypot(real(step), imag(step)) <= 0x1p-96*size {
			a := real(lam)*real(lam) + imag(lam)*imag(lam)
			return a < 1-attractMargin
		}
	}
	return false
}

// escapeBigResult is EscapeBig with the smooth value, the distance estimate and the normal (as
// EscapeDE64 computes them, from the escaped z, c and the derivative w = (dz/dc) spacing carried
// in float64 along the math/big orbit), and a stop channel (nil: never) that ends it early with
// -1.
func escapeBigResult(cr, ci *big.Float, maxIter int, prec uint, spacing float64, stop <-chan struct{}) Result {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	xr, xi, xr2, xi2, t := nf().Set(cr), nf().Set(ci), nf(), nf(), nf()
	four := big.NewFloat(4)
	wr, wi := spacing, 0.0 // w_1 = spacing (z_1 = c)
	for n := 1; n <= maxIter; n++ {
		if n&stopEvery == 0 && stopped(stop) {
			return Result{N: -1}
		}
		if n > 1 {
			fr, _ := xr.Float64()
			fi, _ := xi.Float64()
			wr, wi = 2*(fr*wr-fi*wi)+spacing, 2*(fr*wi+fi*wr)
			t.Mul(xr, xi)
			t.Add(t, t)
			xi.Add(t, ci)
			xr.Sub(xr2, xi2)
			xr.Add(xr, cr)
		}
		xr2.Mul(xr, xr)
		xi2.Mul(xi, xi)
		t.Add(xr2, xi2)
		if t.Cmp(four) > 0 {
			zr, _ := xr.Float64()
			zi, _ := xi.Float64()
			fr, _ := cr.Float64()
			fi, _ := ci.Float64()
			return smoothDE(zr, zi, fr, fi, wr, wi, spacing, n)
		}
	}
	return Result{N: -1}
}

func absInt(x int) int { return max(x, -x) }
