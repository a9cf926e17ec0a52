package fractal

import (
	"context"
	"math"
	"math/big"
)

// Double-double deltas, for the pixels whose float64 deltas drift.
//
// A float64 delta d_n = z_n - Z_n carries a rounding of 2^-53 |d_n| at each step, and so does
// the reference value Z_n it is added to: the pixel's orbit is followed to 2^-53 of its
// distance from the reference's. That is far below a pixel for a reference within the view.
// At a minibrot's edge with millions of iterations it is not: the reference is the minibrot's
// nucleus (nucleusref.go), thousands of view widths away, so a delta is the whole distance
// from the nucleus's cycle to the pixel's orbit, of the order of the minibrot itself, and its
// rounding is 2^-53 of that at every step; and the pixel's orbit creeps past a cycle whose
// multiplier is nearly 1 for millions of iterations, where nothing damps those errors. Where
// it slips out then depends on c far below that rounding (at 4e51, 6000 view widths from the
// nucleus, one pixel escaped at 2,172,396 or 1,267,471 with float64 deltas, with and without
// BLA, and at 750,253 in math/big at two precisions).
//
// perturbLoopDD is PerturbEscape's loop with every value a double-double (an unevaluated sum
// hi + lo of two float64, 106 bits): the delta, the pixel's dc, and the reference orbit, whose
// low parts (Reference.lowParts) are computed again from its math/big orbit when first asked
// for. It takes no BLA blocks: a block's coefficients and its truncation are float64's. It is
// several times slower a step than the float64 loop and many times slower than BLA, so it is
// kept for the pixels a test finds sensitive (perturbCheck).

// dd is a double-double: the unevaluated sum hi + lo, |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

// twoSum returns a + b as s + e exactly (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// quickTwoSum returns a + b as s + e exactly, for |a| >= |b|.
func quickTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return s, e
}

// add is a + b, to within 2^-105 (|a| + |b|) (the "sloppy" sum: an error relative to the
// terms, not the sum, which is what a delta's rounding is measured against).
func (a dd) add(b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	e += a.lo + b.lo
	s, e = quickTwoSum(s, e)
	return dd{s, e}
}

func (a dd) sub(b dd) dd { return a.add(b.neg()) }

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

func (a dd) mul(b dd) dd {
	p := a.hi * b.hi
	e := math.FMA(a.hi, b.hi, -p)
	e += a.hi*b.lo + a.lo*b.hi
	s, e := quickTwoSum(p, e)
	return dd{s, e}
}

// float is a rounded to float64.
func (a dd) float() float64 { return a.hi + a.lo }

// lowParts returns, for each value Z[m] of the orbit, the part the float64 value left out:
// the exact orbit value minus Z[m], rounded to float64 (0 where Z[m] is exact). It computes the
// orbit again in math/big at the reference's precision the first time (about what the
// reference took), and keeps it. nil for a Julia reference or another formula's, and when ctx
// ends first.
func (ref *Reference) lowParts(ctx context.Context) []complex128 {
	if ref.julia.On || !ref.formula.IsMandelbrot() {
		return nil
	}
	ref.blaMu.Lock()
	defer ref.blaMu.Unlock()
	if ref.zlo != nil {
		return ref.zlo
	}
	prec := ref.prec
	fix := func(f *big.Float) *big.Int {
		v, _ := new(big.Float).SetPrec(prec+8).SetMantExp(f, int(prec)).Int(nil)
		return v
	}
	cr, ci := fix(ref.re), fix(ref.im)
	zr, zi, s, d, t, tmp, hi := new(big.Int), new(big.Int), new(big.Int), new(big.Int), new(big.Int), new(big.Int), new(big.Int)
	bf := new(big.Float).SetPrec(64)
	scale := -int(prec)
	// low is x * 2^scale minus its float64 rounding h, rounded to float64: h is a float64
	// multiple of 2^scale wherever x's bits reach past 53, so the difference is exact.
	low := func(x *big.Int, h float64) float64 {
		bf.SetFloat64(h)
		bf.SetMantExp(bf, int(prec))
		bf.Int(hi)
		tmp.Sub(x, hi)
		return fixedFloat64(tmp, scale, new(big.Int))
	}
	lo := make([]complex128, len(ref.Z))
	last := min(ref.computed, len(ref.Z)-1)
	for n := 1; n <= last; n++ {
		if n&1023 == 0 && ctx.Err() != nil {
			return nil
		}
		t.Mul(zr, zi)
		s.Add(zr, zi)
		d.Sub(zr, zi)
		zr.Mul(s, d)
		zr.Rsh(zr, prec)
		zr.Add(zr, cr)
		zi.Rsh(t, prec-1)
		zi.Add(zi, ci)
		lo[n] = complex(low(zr, real(ref.Z[n])), low(zi, imag(ref.Z[n])))
	}
	for n := last + 1; n < len(lo) && ref.period > 0; n++ {
		lo[n] = lo[n-ref.period] // the repeats of a periodic orbit (repeatPeriod)
	}
	ref.zlo = lo
	return lo
}

// perturbEscapeDD is PerturbEscapeDE for the Mandelbrot set in double-double (see the comment
// at the top of this file), from the pixel's dc = (dcr, dci) as a double-double: the count, the
// smooth value and, from the derivative w = (dz/dc) spacing carried in float64 along the
// double-double orbit, the distance estimate and the normal. ok is false when it cannot run
// (a Julia reference or another formula's, or ctx ended while it computed the orbit's low
// parts).
func perturbEscapeDD(ctx context.Context, ref *Reference, dcr, dci dd, maxIter int, spacing float64, stop <-chan struct{}) (r Result, ok bool) {
	if ref.jStart != 0 {
		return Result{}, false
	}
	zlo := ref.lowParts(ctx)
	if zlo == nil {
		return Result{}, false
	}
	z := ref.Z
	last, period, _ := ref.ends()
	var dr, di dd
	var wr, wi float64
	m := 0
	for n := 0; n < maxIter; {
		if n&stopEvery == 0 && stopped(stop) {
			return Result{N: -1}, true
		}
		// w <- 2 z w + spacing (z in float64: the derivative needs no more), then
		// d <- (2 Z + d) d + dc, 2 Z exact.
		zm, zl := z[m], zlo[m]
		fr, fi := real(zm)+dr.hi, imag(zm)+di.hi
		wr, wi = 2*(fr*wr-fi*wi)+spacing, 2*(fr*wi+fi*wr)
		tr, ti := dd{2 * real(zm), 2 * real(zl)}.add(dr), dd{2 * imag(zm), 2 * imag(zl)}.add(di)
		dr, di = tr.mul(dr).add(ti.mul(di).neg()).add(dcr), tr.mul(di).add(ti.mul(dr)).add(dci)
		m++
		n++
		// The tests on z = Z + d in float64, as the float64 loop makes them; the sum in
		// double-double where it becomes the delta (rebasing).
		zm = z[m]
		xr, xi := real(zm)+dr.hi, imag(zm)+di.hi
		z2 := xr*xr + xi*xi
		if z2 > esc4Lo && escapes(zm, dr.hi, di.hi, z2, 4) {
			cr, ci := ref.smoothC(dcr.float(), dci.float())
			return smoothDE(xr, xi, cr, ci, wr, wi, spacing, n), true
		}
		if z2 < dr.hi*dr.hi+di.hi*di.hi || z2 < 0x1p-900 && rebaseTiny(xr, xi, dr.hi, di.hi) || m == last && period == 0 {
			zl = zlo[m]
			dr, di = dd{real(zm), real(zl)}.add(dr), dd{imag(zm), imag(zl)}.add(di)
			m = 0
		} else if m == last {
			m -= period
		}
	}
	return Result{N: -1}, true
}

// ddFromBig is x rounded to a double-double.
func ddFromBig(x *big.Float) dd {
	hi, _ := x.Float64()
	r := new(big.Float).SetPrec(x.Prec()).Sub(x, new(big.Float).SetFloat64(hi))
	lo, _ := r.Float64()
	return dd{hi, lo}
}

// deltaDD is pixel (x, y)'s c minus the reference point as double-doubles, computed in math/big:
// Delta to 106 bits.
func (f Frame) deltaDD(x, y int) (dcr, dci dd) {
	prec := f.Ref.prec + 128
	re, im := f.PointBig(x, y, prec)
	re.Sub(re, f.Ref.re)
	im.Sub(im, f.Ref.im)
	return ddFromBig(re), ddFromBig(im)
}
