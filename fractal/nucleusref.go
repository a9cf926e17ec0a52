package fractal

import (
	"context"
	"errors"
	"math"
	"math/big"
)

// References at a minibrot's nucleus.
//
// A pixel that reaches the last index of a reference orbit that has neither escaped nor
// settled on its cycle (period.go) can only rebase to the orbit's start, d <- Z_m + d: its
// whole z, of the order of the cycle's points, in float64. Near a minibrot that rounding
// is far coarser than the view, and every pixel that gets there follows one wrong orbit:
// at a minibrot's edge at 1e68 with more than MaxReferenceLength (2^21) iterations, every
// pixel still going at the orbit's end "escaped" at the same count, 2^21 plus a fraction
// of the period. An orbit stops there unsettled when its point lies inside a component whose
// cycle attracts slowly (its multiplier near 1, as at a minibrot's edge): after 2^21
// iterations it is still spiralling in.
//
// The same holds at the end of an orbit that escaped before the iterations asked: beside a
// minibrot, its centre just outside, the pixels inside the minibrot reach the end of the
// centre's orbit (at 1e37, 3000 times deeper than a minibrot of period 57, the centre escaped
// at 671,223 and an inside pixel "escaped" at 992,711 of 1,000,000).
//
// Such a view is inside (or beside) a minibrot, and that minibrot's nucleus makes a reference
// that never ends: its cycle is superattracting, its orbit settles within a few periods and
// repeats exactly, and a pixel at its end goes on one period back with its delta unchanged
// (period.go), at any iteration count. Its pixels rebase (|Z + d| < |d|) each time their
// orbit passes by 0, where the nucleus's orbit returns every period: exactly, since z is then
// small. So periodicReplacement finds that nucleus, by Newton's method for the period of the
// cycle the orbit is spiralling onto, and computes its orbit. The nucleus may lie far outside
// the view (a view at 1e68 beside a minibrot of size 1e-62 is a millionth of it): the pixels'
// offsets dc from it are float64 values exact to 2^-53 of |dc|, so it is taken only within
// nucleusReach pixel spacings, where that rounding is under 2^-19 of a pixel.

// nucleusCost bounds the search for a nucleus of period p to orbits of at least p times it
// iterations: Newton's method takes a few to a few dozen passes of p iterations, so the search
// costs at most about what the orbit did (a long orbit whose close approaches to 0 read as a
// period near its length is not worth a search).
const nucleusCost = 32

// nucleusReach is how far from the view's centre, as a power of two of the pixel spacing,
// a nucleus may serve as its reference.
const nucleusReach = 34

// atomPeriod returns the period of the cycle the orbit Z[1..computed] is settling onto, by
// its approaches to 0: the indices n where |Z_n| is smaller than every |Z_k| before it are
// the periods of the atom domains the orbit passes, and once it follows the cycle they are
// all multiples of the cycle's period p (its point nearest 0 comes back every p). The period
// is the least such index above 1 of which every later one is a multiple; 0 when none.
func (ref *Reference) atomPeriod() int {
	var mins []int
	best := math.Inf(1)
	for n := 1; n <= ref.computed && n < len(ref.Z); n++ {
		if a := ref.zcx(n).log2Abs(); a < best {
			best = a
			mins = append(mins, n)
		}
	}
	for i, q := range mins {
		if q < 2 && len(mins) > 1 {
			continue
		}
		ok := true
		for _, r := range mins[i+1:] {
			if r%q != 0 {
				ok = false
				break
			}
		}
		if ok {
			return q
		}
	}
	return 0
}

// periodicReplacement returns a reference at the nucleus of the minibrot whose cycle ref's
// orbit is settling onto, or passed by before it escaped (see the comment at the top of this
// file), for views at pixel spacing spacing asking asked iterations: when pixels would run past
// the end of ref's orbit, which did not settle. It returns nil (and no error) when ref serves as
// it is or no periodic reference was found within reach (or worth the search: nucleusCost);
// an error only when ctx ended.
func (ref *Reference) periodicReplacement(ctx context.Context, asked int, spacing Exp) (*Reference, error) {
	if ref.julia.On || ref.period > 0 || ref.noPeriod || asked <= ref.computed {
		return nil, nil
	}
	p := ref.atomPeriod()
	if p == 0 || p*nucleusCost > ref.computed {
		return nil, nil // none, or Newton's method would cost more than the orbit did
	}
	far := spacing.Ldexp(nucleusReach)
	nu, err := newtonNucleus(ctx, ref.re, ref.im, p, ref.prec, far, far)
	cr, ci := nu.cr, nu.ci
	var lower *lowerPeriod
	switch {
	case errors.As(err, &lower):
		cr, ci = lower.cr, lower.ci
	case err != nil:
		return nil, ctx.Err()
	}
	// At the view's precision, which places the nucleus far more finely than its orbit needs
	// (the view is deeper than the minibrot); a point rounded off its cycle is caught below.
	prec := ref.prec
	nref := &Reference{
		re: new(big.Float).SetPrec(prec).Set(cr), im: new(big.Float).SetPrec(prec).Set(ci),
		prec: prec, maxIter: min(asked, MaxReferenceLength),
		anchorRe: ref.re, anchorIm: ref.im, short: true,
	}
	nref.cre, _ = nref.re.Float64()
	nref.cim, _ = nref.im.Float64()
	nref.Z = make([]complex128, 1, min(nref.maxIter+1, 1<<16))
	if err := nref.iterateFixed(ctx, nil); err != nil {
		return nil, err
	}
	if nref.period == 0 || nref.escaped {
		return nil, nil
	}
	return nref, nil
}

// anchor is the point whose view asked for ref: its own point, or for a reference at a
// nucleus (periodicReplacement) the view's, from which reach is measured.
func (ref *Reference) anchor() (re, im *big.Float) {
	if ref.anchorRe != nil {
		return ref.anchorRe, ref.anchorIm
	}
	return ref.re, ref.im
}

// nucleusProbe is how far a view's own orbit is computed before a nucleus is looked for in
// its place, for views asking more iterations than MaxReferenceLength.
const nucleusProbe = 1 << 16

// iterateForView computes ref's orbit for a view at pixel spacing spacing asking asked
// iterations, and returns the reference that serves it: ref, or one at a minibrot's nucleus
// (periodicReplacement) where pixels would run past ref's end before ref settles. A view
// asking more than MaxReferenceLength iterations looks for the nucleus after nucleusProbe
// iterations of its own orbit, sparing the rest of it, when the orbit has neither escaped
// nor settled by then; else after the whole orbit. progress as for ComputeReference.
func (ref *Reference) iterateForView(ctx context.Context, asked int, spacing Exp, progress func(done, total int)) (*Reference, error) {
	if !ref.formula.IsMandelbrot() {
		// The nucleus is found by the Mandelbrot set's Newton: another formula's orbit serves
		// as it is, its pixels rebasing at its end.
		return ref, ref.iterate(ctx, progress)
	}
	if !ref.julia.On && asked > MaxReferenceLength && ref.maxIter > nucleusProbe {
		probe := &Reference{re: ref.re, im: ref.im, cre: ref.cre, cim: ref.cim, prec: ref.prec, maxIter: nucleusProbe}
		probe.Z = make([]complex128, 1, nucleusProbe+1)
		var pp func(done, total int)
		if progress != nil {
			pp = func(done, _ int) { progress(done, ref.maxIter) }
		}
		if err := probe.iterateFixed(ctx, pp); err != nil {
			return nil, err
		}
		nref, err := probe.periodicReplacement(ctx, asked, spacing)
		if err != nil || nref != nil {
			return nref, err
		}
	}
	if err := ref.iterate(ctx, progress); err != nil {
		return nil, err
	}
	nref, err := ref.periodicReplacement(ctx, asked, spacing)
	if err != nil || nref != nil {
		return nref, err
	}
	return ref, nil
}
