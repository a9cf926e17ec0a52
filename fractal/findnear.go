package fractal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"
)

// The search for the nearest minibrot, from any view on the set's edge.
//
// Candidates. One orbit of the search point c0 (in math/big, at 64 bits below the view)
// carries the enclosing balls of every disc of radius r_j = 4 px 2^j around c0 (j = 0, 1, ...
// until the disc covers the view): the ball period of each disc (see the comment at the top
// of find.go) is the lowest period of a nucleus that can lie in it, so going outward from the
// pointer the periods fall, and each new one is a candidate with its radius. The candidates
// are tried in that order (the nearest first).
//
// Newton's method with step control. For a candidate (P, r) Newton's method on z_P(c) = 0
// starts at c0; a step longer than r is shortened to r (a trust region: the nucleus the ball
// points to lies within about r), a step to a point whose orbit escapes before P is halved
// (up to 16 times), and a run that wanders more than 4 r from c0 is a failure. A run that
// lands on a nucleus of a period k dividing P (z_k vanishes there) gives the candidate (k,
// that point). A failure goes on to the next candidate, never straight to an error.
//
// Verification. A nucleus is accepted only when every check holds: the last step was below
// 2^-40 of its size (far below a hundredth of a pixel of the suggested view), P is minimal
// (no root of z_k, k a proper divisor, within 2^-16 of its size), the nucleus lies in the
// view, the suggested zoom is deeper than the view's (unless FindOptions.AllowShallower),
// and it is a minibrot, not a bulb: the shape estimate e (mathr's: e = -(d2c/(2 dc) +
// dcdz/dz) / (dc dz) over the period, derivatives of z_P at the nucleus) is near 0 for a
// cardioid and near 1 for a disc; a bulb is kept as a fallback only when FindOptions.Bulbs.

// FindOptions tunes FindMinibrotWith.
type FindOptions struct {
	// Limit is the highest period looked for (at most MaxIterations).
	Limit int
	// AllowShallower accepts a minibrot whose suggested zoom is not deeper than the view's.
	AllowShallower bool
	// Bulbs accepts a bulb (a disc-shaped component on a bigger one) when no minibrot is
	// found; Found.Bulb says so.
	Bulbs bool
	// Progress, if not nil, is called now and then with what the search is doing and a
	// fraction done in [0, 1] (an estimate).
	Progress func(stage string, frac float64)
	// MaxTime bounds the search (0: none); past it the search fails with ErrSearchTimeout.
	MaxTime time.Duration
}

// ErrNoMinibrot reports that no minibrot lies near the search point in the view.
var ErrNoMinibrot = errors.New("no minibrot near this point of the view")

// ErrPeriodLimit reports that the search stopped at its period limit before it could tell
// whether a minibrot is near: a higher limit may find one.
var ErrPeriodLimit = errors.New("no minibrot found up to the period limit")

// ErrSearchTimeout reports a search that ran out of time.
var ErrSearchTimeout = errors.New("the search ran out of time")

// FindMinibrot is FindMinibrotWith with the period limit and the default options.
func FindMinibrot(ctx context.Context, l Location, w, h int, x, y float64, limit int) (Found, error) {
	return FindMinibrotWith(ctx, l, w, h, x, y, FindOptions{Limit: limit})
}

// candidate is a period to try Newton's method for, from a start point, within a radius.
type candidate struct {
	p      int
	r      Exp
	sr, si *big.Float // the start (nil: c0)
}

// FindMinibrotWith finds the minibrot nearest point (x, y) of l at w x h pixels ((w/2, h/2)
// is the centre), inside the view and deeper than it (see the comment at the top of this
// file), and returns the view that frames it. Its errors: ErrNoMinibrot (none near, with the
// reason), ErrPeriodLimit, ErrSearchTimeout, ctx's error, or a bad view or point.
func FindMinibrotWith(ctx context.Context, l Location, w, h int, x, y float64, opt FindOptions) (Found, error) {
	c0r, c0i, _, prec, err := searchStart(l, w, h, x, y)
	if err != nil {
		return Found{}, err
	}
	if opt.MaxTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, opt.MaxTime, ErrSearchTimeout)
		defer cancel()
	}
	progress := func(stage string, f float64) {
		if opt.Progress != nil {
			opt.Progress(stage, f)
		}
	}
	spacing := SpacingExp(l.ZoomExp(), w, h)
	hw, hh := spacing.MulFloat(float64(w)/2), spacing.MulFloat(float64(h)/2)
	// Radii 4 px, 8 px, ... up to the one that covers the whole view from the point.
	var radii []Exp
	cover := hw.Add(hh).Ldexp(1)
	for r := spacing.Ldexp(2); ; r = r.Ldexp(1) {
		radii = append(radii, r)
		if r.Cmp(cover) >= 0 {
			break
		}
	}
	limit := min(max(opt.Limit, 1), MaxIterations)
	progress("looking for periods", 0)
	bp, err := ballPeriods(ctx, c0r, c0i, radii, prec, limit, progress)
	if err != nil {
		return Found{}, ctxCause(ctx, err)
	}
	if bp.setDist.Sign() > 0 {
		bp.setDist = bp.setDist.Quo(hh.Ldexp(1))
	}
	var cands []candidate
	seen := map[int]bool{}
	for j, p := range bp.periods {
		if p > 0 && !seen[p] {
			seen[p] = true
			cands = append(cands, candidate{p: p, r: radii[j]})
		}
	}
	view := viewBox{cr: l.Re.Big(prec), ci: l.Im.Big(prec), hw: hw, hh: hh}
	var bulb *Found
	var reasons []string
	tried := map[int]bool{}
	for i := 0; i < len(cands) && i < 64; i++ {
		cd := cands[i]
		progress(fmt.Sprintf("trying period %d", cd.p), float64(i)/float64(len(cands)))
		sr, si := c0r, c0i
		if cd.sr != nil {
			sr, si = cd.sr, cd.si
		}
		nu, err := newtonNucleus(ctx, sr, si, cd.p, prec, cd.r.Ldexp(2), cover)
		if ctx.Err() != nil {
			return Found{}, ctxCause(ctx, ctx.Err())
		}
		var lower *lowerPeriod
		if errors.As(err, &lower) {
			if !tried[lower.k] {
				tried[lower.k] = true
				cands = append(cands, candidate{p: lower.k, r: cd.r, sr: lower.cr, si: lower.ci})
			}
			continue
		}
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("period %d: %v", cd.p, err))
			continue
		}
		tried[cd.p] = true
		f, why := acceptNucleus(l, nu, w, h, view, opt)
		if why != "" {
			reasons = append(reasons, fmt.Sprintf("period %d: %s", cd.p, why))
			if f.Bulb && bulb == nil && opt.Bulbs {
				bulb = &f
			}
			continue
		}
		progress("found", 1)
		return f, nil
	}
	if bulb != nil {
		return *bulb, nil
	}
	return Found{}, noMinibrotError(bp, limit, reasons)
}

// ctxCause is ctx's cause for a context error (ErrSearchTimeout past MaxTime), else err.
func ctxCause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if c := context.Cause(ctx); c != nil {
			return c
		}
	}
	return err
}

// noMinibrotError says why no minibrot was found, in plain words.
func noMinibrotError(bp ballResult, limit int, reasons []string) error {
	var why string
	switch {
	case bp.limited && len(reasons) == 0:
		return fmt.Errorf("%w (%d)", ErrPeriodLimit, limit)
	case bp.escapedAll && len(reasons) == 0:
		why = "every point near it escapes"
		if bp.setDist.Sign() > 0 {
			why = fmt.Sprintf("the set is about %s view heights away", bp.setDist.Text(2))
		}
	case len(reasons) > 0:
		why = fmt.Sprintf("the %d nearest candidates were not minibrots inside the view and deeper", len(reasons))
	default:
		why = "nothing there has a period"
	}
	return &NoMinibrotError{Why: why, Details: reasons}
}

// NoMinibrotError is ErrNoMinibrot with the reason; Details lists the candidates tried.
type NoMinibrotError struct {
	Why     string
	Details []string
}

func (e *NoMinibrotError) Error() string { return ErrNoMinibrot.Error() + " (" + e.Why + ")" }

// Unwrap makes errors.Is(e, ErrNoMinibrot) true.
func (e *NoMinibrotError) Unwrap() error { return ErrNoMinibrot }

// ballResult is what the candidates' pass found.
type ballResult struct {
	periods    []int // per radius: the ball period, 0 for none
	limited    bool  // the smallest disc was still undecided at the limit
	escapedAll bool  // every disc escaped without a period
	setDist    Exp   // with escapedAll, the distance estimate from c0 to the set / the view height (0: unknown)
}

// ballPeriods runs the enclosing balls of the discs of the given radii (increasing) around
// c along the orbit of c, and returns each disc's ball period.
func ballPeriods(ctx context.Context, cr, ci *big.Float, radii []Exp, prec uint, maxIter int, progress func(string, float64)) (ballResult, error) {
	o := newFindOrbit(cr, ci, prec)
	u := MakeExp(1, 4-int(prec))
	k := len(radii)
	R := make([]Exp, k)
	done := make([]bool, k) // found or escaped
	res := ballResult{periods: make([]int, k)}
	za := Exp{}
	two := NewExp(2)
	dz := cx{e: cxZeroExp} // dz/dc at c, for the distance estimate
	z := cx{e: cxZeroExp}
	left := k
	for n := 1; n <= maxIter; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			if n&(1<<16-1) == 0 {
				progress(fmt.Sprintf("looking for periods (%d iterations)", n), math.Min(0.5, float64(n)/float64(maxIter)))
			}
		}
		dz = cxAdd(cxMul(z, dz).double(), cxOne)
		o.step()
		z = o.z()
		zaPrev := za
		za = z.abs()
		for j := range k {
			if done[j] {
				continue
			}
			R[j] = zaPrev.Mul(R[j]).Ldexp(1).Add(R[j].Mul(R[j])).Add(radii[j].Add(u))
			if za.Cmp(R[j]) <= 0 {
				res.periods[j] = n
				done[j] = true
				left--
			} else if za.Sub(R[j]).Cmp(two) > 0 {
				done[j] = true
				left--
			}
		}
		if done[0] && (left == 0 || res.periods[0] > 0) {
			// The smallest disc is decided: the larger ones add lower periods only, found
			// already or never (their balls contain the smaller ones').
			break
		}
		if z.e > 4 && left == 0 {
			break
		}
	}
	if !done[0] {
		res.limited = true
	}
	any := false
	for _, p := range res.periods {
		any = any || p > 0
	}
	if !any && done[k-1] {
		res.escapedAll = true
		// Go on along c's own orbit to a large radius for the distance estimate.
		for range 64 {
			if z.e > 40 {
				break
			}
			dz = cxAdd(cxMul(z, dz).double(), cxOne)
			o.step()
			z = o.z()
		}
		if z.e > 40 && dz.e != cxZeroExp {
			// d = |z| log|z| / |dz|; the view height is radii[0] scaled: radii[0] is 4 px.
			lz := z.log2Abs() * math.Ln2
			res.setDist = z.abs().Quo(dz.abs()).MulFloat(lz)
		}
	}
	return res, nil
}

// viewBox is the view's centre and half-extents.
type viewBox struct {
	cr, ci *big.Float
	hw, hh Exp
}

// contains reports whether (cr, ci) lies in the view.
func (v viewBox) contains(cr, ci *big.Float) bool {
	dr := new(big.Float).SetPrec(cr.Prec()).Sub(cr, v.cr)
	di := new(big.Float).SetPrec(ci.Prec()).Sub(ci, v.ci)
	return ExpFromBig(dr).Abs().Cmp(v.hw) <= 0 && ExpFromBig(di).Abs().Cmp(v.hh) <= 0
}

// nucleusFound is a converged nucleus.
type nucleusFound struct {
	cr, ci *big.Float
	p      int
	size   Exp
	shape  cx
}

// lowerPeriod is Newton's method for period P ending on a nucleus of period k | P.
type lowerPeriod struct {
	k      int
	cr, ci *big.Float
}

func (e *lowerPeriod) Error() string { return fmt.Sprintf("a nucleus of period %d", e.k) }

var (
	errWandered = errors.New("the search wandered off")
	errNoConv   = errors.New("no convergence")
)

// newtonNucleus runs Newton's method with step control for a nucleus of period p from
// (sr, si) within radius r (see the comment at the top of this file).
func newtonNucleus(ctx context.Context, sr, si *big.Float, p int, prec uint, r, far Exp) (nucleusFound, error) {
	cr := new(big.Float).SetPrec(prec).Set(sr)
	ci := new(big.Float).SetPrec(prec).Set(si)
	maxPrec := uint(MaxReferencePrec + 256)
	var pd uint
	last := Exp{}
	sb, size, div, err := nucleusPass(ctx, cr, ci, p, prec, pd)
	if err != nil {
		return nucleusFound{}, err
	}
	tr, ti := new(big.Float), new(big.Float)
	for range 100 {
		step := cxFromExp(ExpFromBig(sb[0]), ExpFromBig(sb[1]))
		sa := step.abs()
		as := size.abs()
		if !as.Finite() || as.Sign() == 0 || !sa.Finite() {
			return nucleusFound{}, errNoConv
		}
		if need := bitsBelow(as) + findTolBits; need > prec {
			if need > maxPrec {
				return nucleusFound{}, fmt.Errorf("the minibrot (size %s) is deeper than the deepest zoom %s", as.Text(3), MaxZoom)
			}
			prec = need
			cr.SetPrec(prec)
			ci.SetPrec(prec)
			sb, size, div, err = nucleusPass(ctx, cr, ci, p, prec, pd)
			if err != nil {
				return nucleusFound{}, err
			}
			continue
		}
		if sa.Cmp(as.Ldexp(-findTolBits)) <= 0 {
			if div.min.Cmp(as.Ldexp(-16)) < 0 {
				return nucleusFound{}, &lowerPeriod{k: div.k, cr: cr, ci: ci}
			}
			shape, err := shapeEstimate(ctx, cr, ci, p, prec)
			if err != nil {
				return nucleusFound{}, err
			}
			return nucleusFound{cr: cr, ci: ci, p: p, size: as, shape: shape}, nil
		}
		// The step, shortened to r, halved while it lands where the orbit escapes.
		scale := 1.0
		if sa.Cmp(r) > 0 {
			scale = r.Quo(sa).Float64()
		}
		ok := false
		for range 16 {
			tr.SetPrec(prec).Mul(sb[0], big.NewFloat(scale))
			ti.SetPrec(prec).Mul(sb[1], big.NewFloat(scale))
			nr := new(big.Float).SetPrec(prec).Sub(cr, tr)
			ni := new(big.Float).SetPrec(prec).Sub(ci, ti)
			nsb, nsize, ndiv, err := nucleusPass(ctx, nr, ni, p, prec, pd)
			if err == nil {
				cr, ci, sb, size, div = nr, ni, nsb, nsize, ndiv
				ok = true
				break
			}
			if !errors.Is(err, errEscaped) {
				return nucleusFound{}, err
			}
			scale /= 2
		}
		if !ok {
			return nucleusFound{}, errEscaped
		}
		if dist(cr, ci, sr, si).Cmp(far) > 0 {
			return nucleusFound{}, errWandered
		}
		// A step about 2^-52 of the last is the floatexp derivative's limit: go on in big.
		ns := cxFromExp(ExpFromBig(sb[0]), ExpFromBig(sb[1])).abs()
		if ratio := ns.Quo(last); pd == 0 && last.Sign() > 0 && ratio.Cmp(MakeExp(1, -40)) < 0 && ratio.Cmp(MakeExp(1, -64)) > 0 {
			pd = min(prec, 1024)
			sb, size, div, err = nucleusPass(ctx, cr, ci, p, prec, pd)
			if err != nil {
				return nucleusFound{}, err
			}
		}
		last = sa
	}
	return nucleusFound{}, errNoConv
}

// shapeEstimate is mathr's shape estimate of the component of period p whose nucleus is c:
// about 0 for a cardioid, 1 for a disc.
func shapeEstimate(ctx context.Context, cr, ci *big.Float, p int, prec uint) (cx, error) {
	o := newFindOrbit(cr, ci, prec)
	o.step() // z_1 = c
	z := o.z()
	dc, dz := cxOne, cxOne
	dcdc, dcdz := cx{e: cxZeroExp}, cx{e: cxZeroExp}
	for i := 1; i < p; i++ {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return cx{}, err
			}
		}
		dcdc = cxAdd(cxMul(z, dcdc), cxMul(dc, dc)).double()
		dcdz = cxAdd(cxMul(z, dcdz), cxMul(dc, dz)).double()
		dc = cxAdd(cxMul(z, dc).double(), cxOne)
		dz = cxMul(z, dz).double()
		o.step()
		z = o.z()
	}
	if dc.e == cxZeroExp || dz.e == cxZeroExp {
		return cx{e: cxZeroExp}, nil
	}
	num := cxAdd(cxQuo(dcdc, dc.double()), cxQuo(dcdz, dz))
	return cxQuo(num, cxMul(dc, dz)).neg(), nil
}

// isCardioid reports whether a shape estimate is nearer 0 (a cardioid) than 1 (a disc).
func isCardioid(e cx) bool {
	if e.e == cxZeroExp {
		return true
	}
	re, im := e.float64s()
	return math.Hypot(re, im) < math.Hypot(re-1, im)
}

// acceptNucleus checks a converged nucleus against the view (see the comment at the top of
// this file): the Found for it, and why it is refused ("" when accepted).
func acceptNucleus(l Location, nu nucleusFound, w, h int, view viewBox, opt FindOptions) (Found, string) {
	zoom := NewExp(0.5).Quo(nu.size)
	loc, err := centredAt(l, nu.cr, nu.ci, zoom, w, h)
	if err != nil {
		return Found{}, err.Error()
	}
	loc.Iterations = min(max(l.Iterations, 100*nu.p), MaxIterations)
	f := Found{Loc: loc, Period: nu.p, Size: nu.size, Bulb: !isCardioid(nu.shape)}
	switch {
	case !view.contains(nu.cr, nu.ci):
		return f, "its nucleus is outside the view"
	case !opt.AllowShallower && loc.Zoom.Exp().Cmp(l.ZoomExp()) <= 0:
		return f, fmt.Sprintf("it is framed at zoom %s, not deeper", loc.Zoom)
	case f.Bulb:
		return f, "a bulb, not a minibrot"
	}
	return f, ""
}
