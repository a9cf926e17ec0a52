package fractal

import (
	"context"
	"image"
	"math"
	"math/cmplx"
	"runtime"
	"sync"
	"sync/atomic"

	"mandelscope/colour"
)

// A point inside the set has an orbit that settles onto an attracting cycle: its period p is
// the period of the hyperbolic component the point lies in, and its multiplier
// lambda = prod 2 z_j over one turn of the cycle (the derivative of the p-th iterate there)
// runs from 0 at the component's nucleus to 1 on its edge. Interior computes both for a pixel
// inside the set, going on from where the escape loop stopped (maxIter): the orbit is close to
// its cycle by then, and the period is the least k at which it comes back to where it stood.
//
// The period search (cycleOf) follows the orbit in extended-exponent arithmetic for a
// perturbed pixel (z = Z_m + d, exact however tiny), so that the cycle's point nearest 0 (a
// deep minibrot's is far below float64's range) is told apart from its neighbours.

// interiorWindow is the longest window of the period search (cycleOf) in a frame without a
// periodic reference (one with a reference of period P looks through four times P + 1): a
// longer cycle is left uncoloured (period 0).
const interiorWindow = 1 << 14

// Interior returns the period of the attracting cycle that pixel (x, y)'s orbit settles on and
// the cycle's multiplier's magnitude |lambda| in [0, 1], for a pixel the frame's renderers
// find inside the set; period 0 where none was found (an orbit that escapes after all, a
// cycle longer than the search, a formula other than the Mandelbrot set's). A Perturbation
// frame without a reference gets one as Escape does.
func (f Frame) Interior(x, y int) (period int, mult float64) {
	return f.interior(x, y, nil, &cycleScratch{})
}

// interior is Interior with a stop channel (closed: it returns period 0 soon) and the period
// search's buffers, reused from pixel to pixel.
func (f Frame) interior(x, y int, stop <-chan struct{}, sc *cycleScratch) (period int, mult float64) {
	if !f.Loc.Formula.IsMandelbrot() {
		return 0, 0
	}
	p := f.Precision()
	if p.Perturbs() && f.Ref == nil {
		var err error
		if f, err = f.WithReference(context.Background(), DefaultReferences, nil); err != nil {
			return 0, 0
		}
	}
	it := f.Loc.Iterations
	window, first := max(min(it, interiorWindow), 1), 0
	if f.Ref != nil && f.Ref.Period() > 0 {
		first = f.Ref.Period() + 1
		window = max(window, min(it, 4*first))
	}
	var o orbit
	var re, im float64
	switch p {
	case Perturbation:
		o = f.perturbOrbit(x, y, stop)
	case PerturbationExp:
		o = f.perturbOrbitExp(x, y, stop)
	default:
		re, im = f.Point64(x, y)
		if !f.Loc.Julia.On && InMainBulbs(re, im) {
			return bulbInterior(re, im)
		}
		o = f.directOrbit(re, im)
	}
	if o == nil {
		return 0, 0
	}
	// In double precision Newton's method settles the cycle (newtonCycle) from the first close
	// return on, and, where the search finds no period, from the closest returns: an orbit
	// that settles slowly (a multiplier near 1, by a component's edge) is still far from its
	// cycle when the search ends. A period found is settled the same way: an orbit whose
	// multiplier is near -1 comes back closer after two turns than after one, and the search
	// may take twice the period; Newton's cycle has its least period.
	sc.newton, sc.c = !p.Perturbs(), complex(re, im)
	if f.Loc.Julia.On {
		sc.c = complex(f.JRe, f.JIm)
	}
	if period, mult = sc.cycleOf(o, first, window, stop); p.Perturbs() || stopped(stop) || sc.settled {
		return period, mult
	}
	c := sc.c
	if period > 0 {
		if q, m := newtonCycle(c, sc.candZ, period); q > 0 {
			return q, m
		}
		return period, mult
	}
	for _, k := range sc.cands {
		if period, mult = newtonCycle(c, sc.candZ, k); period > 0 {
			return period, mult
		}
	}
	return 0, 0
}

// newtonCycle looks for a cycle of z <- z^2 + c whose period divides k by Newton's method on
// f^k(z) - z from z, and returns its least period and |lambda| where it finds one and the
// cycle attracts (|lambda| < 1): the one attracting cycle there is (it attracts the critical
// point 0), so the orbit's. Period 0 where Newton's method does not settle in 64 steps or the
// cycle it finds repels.
func newtonCycle(c, z complex128, k int) (int, float64) {
	settled := false
	for range 64 {
		w, dw := z, complex(1, 0)
		for range k {
			dw = 2 * w * dw
			w = w*w + c
		}
		dz := (w - z) / (dw - 1)
		z -= dz
		if cmplx.IsNaN(z) || cmplx.IsInf(z) || cmplx.Abs(z) > 2 {
			return 0, 0
		}
		if cmplx.Abs(dz) <= 0x1p-46 {
			settled = true
			break
		}
	}
	if !settled {
		return 0, 0
	}
	w, l := z, complex(1, 0)
	for j := 1; j <= k; j++ {
		l *= 2 * w
		w = w*w + c
		if cmplx.Abs(w-z) <= 0x1p-30 {
			if a := cmplx.Abs(l); a < 1 {
				return j, a
			}
			return 0, 0
		}
	}
	return 0, 0
}

// bulbInterior is the period and |lambda| of a point of the main cardioid (period 1,
// lambda = 1 - sqrt(1 - 4c)) or the period-2 bulb (lambda = 4 (c + 1)), which the renderers
// colour black without iterating.
func bulbInterior(re, im float64) (int, float64) {
	c := complex(re, im)
	if l := cmplx.Abs(1 - cmplx.Sqrt(1-4*c)); l <= 1 {
		return 1, l
	}
	return 2, min(cmplx.Abs(4*(c+1)), 1)
}

// An orbit steps a pixel's orbit on by one iteration and returns the new value z (exact
// where it lies below float64's range) and log2 |z|, or ok false where the orbit escapes.
type orbit func() (z cx, l2 float64, ok bool)

// directOrbit iterates c = (re, im) (a Julia view's z_1, with the view's c) in float64 up to
// the frame's iterations, as Escape64 does, and returns its stepper there (nil: it escaped).
func (f Frame) directOrbit(re, im float64) orbit {
	z, c := complex(0, 0), complex(re, im)
	n := 0
	if f.Loc.Julia.On {
		z, c, n = c, complex(f.JRe, f.JIm), 1
	}
	// The orbit goes on to the iterations, or until it comes back exactly to a value saved
	// at a power of two (Brent's method, as Escape64's periodicity test): it is on its cycle
	// in float64 then, and the period search starts at once.
	saved, next := z, 1
	for ; n < f.Loc.Iterations; n++ {
		z = z*z + c
		if real(z)*real(z)+imag(z)*imag(z) > 4 {
			return nil
		}
		if z == saved {
			break
		}
		if n == next {
			saved, next = z, 2*next
		}
	}
	return func() (cx, float64, bool) {
		z = z*z + c
		a := cmplx.Abs(z)
		return cxFrom(real(z), imag(z)), math.Log2(a), a <= 2
	}
}

// perturbOrbit runs pixel (x, y) of a Perturbation frame in PerturbEscape's loop (the frame's
// BLA table) to its iterations and returns the stepper that goes on from there one plain
// perturbation step at a time (nil: it escaped).
func (f Frame) perturbOrbit(x, y int, stop <-chan struct{}) orbit {
	ref := f.Ref
	dcr, dci := f.Delta(x, y)
	var end loopEnd
	if ref.jStart == 0 {
		if n, _, _ := perturbLoop(ref, f.BLA(), 0, 0, 0, 0, dcr, dci, f.Loc.Iterations, stop, &end); n >= 0 {
			return nil
		}
	} else {
		dr, di, m, escaped, _, _ := ref.juliaStart(dcr, dci)
		if escaped {
			return nil
		}
		if n, _, _ := perturbLoop(ref, f.BLA(), dr, di, m, 1, 0, 0, f.Loc.Iterations, stop, &end); n >= 0 {
			return nil
		}
		dcr, dci = 0, 0
	}
	if stopped(stop) {
		return nil
	}
	st := newExpState(cxFrom(end.dr, end.di), end.m, 0)
	return ref.stepper(st, cxFrom(dcr, dci))
}

// perturbOrbitExp is perturbOrbit for a PerturbationExp frame: PerturbEscapeExp's loop with the
// frame's BLAExp table.
func (f Frame) perturbOrbitExp(x, y int, stop <-chan struct{}) orbit {
	ref := f.Ref
	dcre, dcim := f.DeltaExp(x, y)
	st, dc, done, _, _ := ref.startExp(dcre, dcim)
	if done {
		return nil
	}
	if n, _, _, _ := perturbLoopExp(ref, f.BLAExp(), &st, dc, f.Loc.Iterations, stop, false); n >= 0 || stopped(stop) {
		return nil
	}
	if !st.exp {
		st.d = cxFrom(st.dr, st.di) // the stepper holds its delta in cx
	}
	return ref.stepper(st, dc)
}

// stepper returns the orbit that goes on from state st (its delta in st.d) by plain
// perturbation steps in extended-exponent arithmetic, d <- (2 Z_m + d) d + dc, with
// PerturbEscape's rebasing: z = Z_m + d, exact at any depth.
func (ref *Reference) stepper(st expState, dc cx) orbit {
	last, period, jEnd := ref.ends()
	d, m := st.d, st.m
	return func() (cx, float64, bool) {
		t := ref.zcx(m)
		t.e++
		d = cxAdd(cxMul(cxAdd(t, d), d), dc)
		m++
		z := cxAdd(ref.zcx(m), d)
		zr, zi := z.float64s()
		if z2 := zr*zr + zi*zi; z2 > esc4Lo && escapesCx(ref.Z[m], d, z2, 4) {
			return cx{}, 0, false
		}
		if absLess(z, d) || m == last && period == 0 || m == jEnd {
			d, m = z, 0
		} else if m == last {
			m -= period
		}
		return z, z.log2Abs(), true
	}
}

// cycleScratch holds the period search's record of an orbit, kept from pixel to pixel.
type cycleScratch struct {
	zs  []cx
	l2s []float64
	// cands are the periods of the last window's closest returns to candZ, its value nearest
	// 0, best first, where the search found no period (Newton's method goes on from them);
	// candZ is the value the period was found at where it found one.
	cands []int
	candZ complex128
	// newton says that the orbit is z <- z^2 + c in float64 (a double-precision frame): the
	// search then tries Newton's method at the first close return, and settled says it
	// returned what that found.
	newton, settled bool
	c               complex128
}

// cycleOf finds the period of the cycle the orbit o is settling on and its |lambda| (see the
// comment at the top). It records the orbit's values in windows of doubling length w (up to
// maxWindow), each 2w fresh values on from the last: the least value in size among the first w, z_i, stands for the cycle's point
// nearest 0, and the period is the least k <= w with z_(i+k) back within 2^-20 of |z_i| of
// z_i; two windows in a row must find the same period. A window shorter than the cycle may
// see only a stretch where the orbit shadows a repelling cycle (near a Misiurewicz point a
// long cycle's points keep coming back close to a short one's), and take it for that short
// cycle: the next window, twice as long, sees past the stretch, and the first is at least
// minWindow (one more than the reference's period, where it has one). The multiplier is the
// product of 2 z over the period from z_i. Where it finds no period it leaves the last
// window's closest returns in sc.cands for Newton's method (newtonCycle).
func (sc *cycleScratch) cycleOf(o orbit, minWindow, maxWindow int, stop <-chan struct{}) (int, float64) {
	zs, l2s := sc.zs[:0], sc.l2s[:0]
	sc.cands, sc.settled = sc.cands[:0], false
	defer func() { sc.zs, sc.l2s = zs[:0], l2s[:0] }()
	next := func(n int) bool {
		for len(zs) < n {
			z, l2, ok := o()
			if !ok || len(zs)&stopEvery == 0 && stopped(stop) {
				return false
			}
			zs, l2s = append(zs, z), append(l2s, l2)
		}
		return true
	}
	prev := 0 // the period the last window found
	for w := min(max(32, minWindow), maxWindow); ; w = min(2*w, maxWindow) {
		// Each window records fresh values, later on the orbit than the last window's and so
		// nearer the cycle: a window that went on from the record's start would compare the
		// same early, unsettled values however long it grew.
		zs, l2s = zs[:0], l2s[:0]
		if !next(2 * w) {
			return 0, 0
		}
		i := 0
		for j := 1; j < w; j++ {
			if l2s[j] < l2s[i] {
				i = j
			}
		}
		zi := zs[i]
		tol := l2s[i] - 20
		for k := 1; k <= w; k++ {
			if math.Abs(l2s[i+k]-l2s[i]) > 1 {
				continue
			}
			if cxAdd(zs[i+k], cx{-zi.re, -zi.im, zi.e}).log2Abs() <= tol {
				if k == prev || w == maxWindow {
					re, im := zi.float64s()
					sc.candZ = complex(re, im)
					l := 0.0
					for j := range k {
						l += 1 + l2s[i+j]
					}
					return k, min(math.Exp2(l), 1)
				}
				if sc.newton {
					re, im := zi.float64s()
					if q, m := newtonCycle(sc.c, complex(re, im), k); q > 0 {
						sc.settled = true
						return q, m
					}
				}
				prev = k
				break
			}
		}
		if w == maxWindow {
			sc.candidates(zs, l2s, i, w)
			return 0, 0
		}
	}
}

// candidates sets sc.cands to the (up to three) k <= w at which z_(i+k) comes closest to z_i,
// closest first, and sc.candZ to z_i.
func (sc *cycleScratch) candidates(zs []cx, l2s []float64, i, w int) {
	var best [3]struct {
		k int
		d float64
	}
	for k := 1; k <= w; k++ {
		if math.Abs(l2s[i+k]-l2s[i]) > 1 {
			continue
		}
		d := cxAdd(zs[i+k], cx{-zs[i].re, -zs[i].im, zs[i].e}).log2Abs()
		for j := range best {
			if best[j].k == 0 || d < best[j].d {
				copy(best[j+1:], best[j:len(best)-1])
				best[j].k, best[j].d = k, d
				break
			}
		}
	}
	for _, b := range best {
		if b.k > 0 {
			sc.cands = append(sc.cands, b.k)
		}
	}
	re, im := zs[i].float64s()
	sc.candZ = complex(re, im)
}

// FillInterior sets every inside sample of dst, which holds the pixels rect of f (pixel
// rect.Min at dst.Rect.Min), to its cycle's period and multiplier (colour.InteriorSample):
// what the renderers add where f.NeedsInterior, on every core, a row at a time. A Perturbation
// frame needs its reference (Frame.WithReference) first. Cancelling ctx stops it, with ctx's
// error.
func (f Frame) FillInterior(ctx context.Context, rect image.Rectangle, dst *colour.Data) error {
	if !f.Loc.Formula.IsMandelbrot() {
		return nil
	}
	if f.Precision().Perturbs() && f.Ref == nil {
		var err error
		if f, err = f.WithReference(ctx, DefaultReferences, nil); err != nil {
			return err
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				dy := int(next.Add(1) - 1)
				if dy >= rect.Dy() || ctx.Err() != nil {
					return
				}
				row := dst.Row(dst.Rect.Min.Y + dy)
				f.InteriorRow(rect.Min.Y+dy, rect.Min.X, row[:min(rect.Dx(), len(row))], ctx.Done())
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// InteriorRow sets the inside samples of row, pixels x0, x0+1, ... of row y, to their
// cycles' periods and multipliers (FillInterior's work on one row, for a caller that shares
// rows out itself). Closing stop (nil: never) leaves the rest with period 0 soon.
func (f Frame) InteriorRow(y, x0 int, row []colour.Sample, stop <-chan struct{}) {
	var sc cycleScratch
	for dx, s := range row {
		if s.Inside() {
			p, m := f.interior(x0+dx, y, stop, &sc)
			row[dx] = colour.InteriorSample(p, m)
		}
	}
}
