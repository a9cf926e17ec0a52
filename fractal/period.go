package fractal

import "math"

// A reference point inside a minibrot (the usual centre of a deep view that shows one) never
// escapes: its orbit settles onto the minibrot's attracting cycle. Its pixels follow it to the
// orbit's end, and rebasing there (d <- Z_m + d at a large |Z_m|) would throw the minibrot's
// precision away: at 1e40 with more iterations than the orbit held, every interior pixel
// "escaped" at the same count. So the orbit is computed until it repeats, and a pixel that
// reaches its end continues one period earlier (m -= Period()), with its delta unchanged: the
// stored values from there on are the ones the longer orbit would have stored.
//
// The orbit is taken as periodic with period p at its last index N when
//   - its float64 values repeat: Z[N-j] == Z[N-p-j] for 0 <= j < 2p (and the exact values
//     kept for the tiny ones too), found by Brent's method (a value saved at each power of
//     two, compared with every later one), and
//   - what the stored values will still miss is below their own rounding: the exact orbit
//     moves by e_0 = Z_N - Z_{N-p} over the last period (in the orbit's own precision), and
//     at the cycle's point j by e_j = 2 Z_{N-p+j-1} e_{j-1} (to first order: e is far below
//     the float64 rounding of Z); each later period multiplies these by the cycle's multiplier lambda (|lambda| < 1 for an
//     attracting cycle), so the value a pixel reads in place of Z_{N+kp+j} is off by at most
//     |e_j| / (1 - |lambda|) in all, which must stay under 2^-54 |Z_{N-p+j}| (half the
//     float64 rounding of the value itself) at every point of the cycle.
//
// An orbit that repeats exactly in the orbit's own arithmetic (e_0 = 0) is periodic whatever
// lambda is: the iteration is deterministic.

// periodDetector finds the period of a reference orbit as it is computed.
type periodDetector struct {
	saveAt   int        // the next index whose value is saved (a power of two)
	savedIdx int        // the index of the saved value (0: none yet)
	saved    complex128 // Z[savedIdx]
	p, n0    int        // a period being confirmed since index n0 (0: none)
}

// step looks at Z[n], just computed, and returns the orbit's period once it is settled (0
// until then). snapshot saves the orbit's current exact value; moved returns the exact
// value now minus the one snapshot saved.
func (d *periodDetector) step(ref *Reference, n int, snapshot func(), moved func() cx) int {
	if ref.noPeriod {
		return 0
	}
	if d.saveAt == 0 {
		d.saveAt = 1
	}
	z := ref.Z[n]
	switch {
	case d.p > 0:
		if z != ref.Z[n-d.p] || !ref.sameTiny(n, n-d.p) {
			d.p = 0 // not settled yet
		} else if n == d.n0+d.p {
			if ref.cycleSettled(n, d.p, moved()) {
				return d.p
			}
			d.p = 0
		}
	case d.savedIdx > 0 && z == d.saved:
		if p := n - d.savedIdx; n >= 3*p && ref.repeats(n, p, 2*p) {
			d.p, d.n0 = p, n
			snapshot()
		}
	}
	if n == d.saveAt {
		d.saved, d.savedIdx, d.saveAt = z, n, 2*n
	}
	return 0
}

// repeats reports whether Z[n-j] == Z[n-p-j] for 0 <= j < k, the exact tiny values included.
func (ref *Reference) repeats(n, p, k int) bool {
	for j := range k {
		if ref.Z[n-j] != ref.Z[n-p-j] || !ref.sameTiny(n-j, n-p-j) {
			return false
		}
	}
	return true
}

// sameTiny reports whether Z[a] and Z[b] have the same exact tiny value, or none.
func (ref *Reference) sameTiny(a, b int) bool {
	if ref.tiny == nil {
		return true
	}
	ta, oka := ref.tiny[a]
	tb, okb := ref.tiny[b]
	return oka == okb && ta == tb
}

// log2Abs is log2 |z| (-Inf for zero).
func (z cx) log2Abs() float64 {
	if z.re == 0 && z.im == 0 {
		return math.Inf(-1)
	}
	return math.Log2(math.Hypot(z.re, z.im)) + float64(z.e)
}

// cycleSettled applies the second test of the period (see above) at the orbit's last index
// n, with period p and the exact movement e0 of the orbit over its last period.
func (ref *Reference) cycleSettled(n, p int, e0 cx) bool {
	le := e0.log2Abs()
	if math.IsInf(le, -1) {
		return true // exactly periodic
	}
	// log2 |lambda|, lambda = prod 2 Z over the cycle (for another formula, a bound on it).
	ll := 0.0
	for j := range p {
		ll += ref.slopeLog2(n - p + j)
	}
	if !(ll < 0) {
		return false // not attracting: the stored values would drift away
	}
	tail := -math.Log2(1 - math.Exp2(ll)) // log2 (1 / (1 - |lambda|))
	for j := range p {
		lz := ref.zcx(n - p + j).log2Abs()
		if le+tail > lz-54 {
			return false
		}
		le += ref.slopeLog2(n - p + j) // e_{j+1} = 2 Z_j e_j
	}
	return true
}

// slopeLog2 is log2 of the size of the step's derivative at Z[m]: |2 Z| for the Mandelbrot
// set; for another formula the bound D |Z|^(D-1) on the norm of its Jacobian (a fold's is a
// sign on each part, which keeps lengths), so that a product of them bounds the cycle's
// multiplier and the growth of an error along it from above.
func (ref *Reference) slopeLog2(m int) float64 {
	d := ref.formula.Power()
	return math.Log2(float64(d)) + float64(d-1)*ref.zcx(m).log2Abs()
}

// cycleAttracts reports whether the cycle of period p that the orbit ends on (its last p
// values, up to index n) attracts: its multiplier prod 2 Z over the cycle is below 1 in
// magnitude.
func (ref *Reference) cycleAttracts(n, p int) bool {
	ll := 0.0 // log2 |lambda|
	for j := range p {
		ll += ref.slopeLog2(n - p + 1 + j)
	}
	return ll < 0
}

// repeatTail appends to Z (and its exact tiny values) the repeats of its last p values up
// to index last: what an orbit that repeats exactly with period p would compute there.
func (ref *Reference) repeatTail(p, last int) {
	for k := len(ref.Z); k <= last; k++ {
		ref.appendZ(ref.Z[k-p])
		if t, ok := ref.tiny[k-p]; ok {
			ref.tiny[k] = t
		}
	}
}

// repeatPeriod notes the last index computed and, for a periodic orbit, fills the orbit
// (and its exact tiny values) on by repeating its last period up to the length a
// non-periodic orbit would have: min(iterations asked, MaxReferenceLength). The values are
// the ones a pixel would read by going back a period; stored, they let the BLA table hold
// long blocks, where an orbit of a few dozen values (a low period) would limit a pixel
// inside it to blocks that short, and its millions of iterations to that many steps.
func (ref *Reference) repeatPeriod() {
	ref.computed = len(ref.Z) - 1
	p := ref.period
	if p == 0 || ref.short {
		return
	}
	for k := len(ref.Z); k <= ref.maxIter; k++ {
		ref.Z = append(ref.Z, ref.Z[k-p])
		if t, ok := ref.tiny[k-p]; ok {
			ref.tiny[k] = t
		}
	}
}
