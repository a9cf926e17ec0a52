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
// (up to 16 times), and a run that wanders farther from c0 than the view's half-width plus
// half-height, doubled, is a failure. A run that
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
	view := viewBox{cr: l.Re.Big(prec), ci: l.Im.Big(prec), hw: hw, hh: hh, rot: l.Rotation}
	s := &search{ctx: ctx, l: l, w: w, h: h, d: l.Formula.Power(), fm: l.Formula, prec: prec, limit: limit, view: view, cover: cover, opt: opt, progress: progress, shallow: map[int]bool{}, refused: map[int]int{}}
	progress("looking near the point", 0)
	bp, err := s.from(c0r, c0i, radii)
	if err != nil || s.found != nil {
		return s.result(err)
	}
	if bp.setDist.Sign() > 0 {
		bp.setDist = bp.setDist.Quo(hh.Ldexp(1))
	}
	if bp.escapedAll || bp.interiorAll {
		// The disc that covers the view escapes whole: nothing of the set is in it.
		return Found{}, s.noMinibrotError(bp)
	}
	if s.filling != nil && s.filling.Period > 1 {
		// The point lies in a minibrot that fills the view: look in its copy of the set.
		if f, ok, err := s.within(c0r, c0i); err != nil || ok {
			if err != nil {
				return Found{}, ctxCause(ctx, err)
			}
			return f, nil
		}
	}
	// Then from points on rings around it, 8 px, 16 px, ... away, 8 to a ring (16 from 64
	// px, 32 from 256 px), nearest first, each with the discs up to its ring's radius.
	ring := 0
	dirs := 8
	for d := spacing.Ldexp(3); d.Cmp(hw.Add(hh)) < 0; d = d.Ldexp(1) {
		var rr []Exp
		for r := spacing.Ldexp(2); len(rr) < 3 || r.Cmp(d) <= 0; r = r.Ldexp(1) {
			rr = append(rr, r)
		}
		switch px := d.Quo(spacing).Float64(); {
		case px >= 256:
			dirs = 32
		case px >= 64:
			dirs = 16
		}
		for k := range dirs {
			a := (float64(k) + 0.5*float64(ring&1)) * 2 * math.Pi / float64(dirs)
			sr := new(big.Float).SetPrec(prec).Add(c0r, d.MulFloat(math.Cos(a)).Big(prec))
			si := new(big.Float).SetPrec(prec).Add(c0i, d.MulFloat(math.Sin(a)).Big(prec))
			if !view.contains(sr, si) {
				continue
			}
			progress(fmt.Sprintf("looking %s view heights away", d.Quo(hh.Ldexp(1)).Text(2)), 0.1+0.1*float64(ring))
			if _, err := s.from(sr, si, rr); err != nil || s.found != nil {
				return s.result(err)
			}
		}
		ring++
	}
	if s.bulb != nil {
		return *s.bulb, nil
	}
	return Found{}, s.noMinibrotError(bp)
}

// maxNewtons bounds the Newton runs of one search.
const maxNewtons = 256

// search is the state of one FindMinibrotWith.
type search struct {
	ctx         context.Context
	l           Location
	w, h        int
	d           int     // the power D of z <- f(z)^D + c
	fm          Formula // the formula (its fold f and power D)
	prec        uint
	limit       int
	view        viewBox
	cover       Exp
	opt         FindOptions
	progress    func(string, float64)
	reasons     []string
	found, bulb *Found
	newtons     int
	outside     int    // candidates refused for lying outside the view
	filling     *Found // the first candidate refused for being no deeper, from the point itself
	fillingNu   nucleusFound
	shallow     map[int]bool // periods refused for being no deeper: not tried again
	refused     map[int]int  // how often each period's Newton run failed or was refused
}

// islands are the largest minibrots of the set (nucleus, period), for within.
var islands = []struct {
	re, im float64
	p      int
}{
	{-1.7548776662466927, 0, 3},
	{-1.9407998065294848, 0, 4},
	{-0.15652016683375508, 1.0322471089228318, 4},
	{-0.15652016683375508, -1.0322471089228318, 4},
	{-1.9854242530542618, 0, 5},
	{-1.8607825222048548, 0, 5},
	{-0.04421235770, 0.98658097580, 5},
	{-0.04421235770, -0.98658097580, 5},
}

// within looks inside the copy of the set around the minibrot that fills the view: the copy
// is nucleus + s u for u in the set (s the complex size estimate), and tuning maps a
// minibrot of period k of the set at u to one of period k P near nucleus + s u. So the
// set's largest minibrots (islands), nearest to u0 = (c0 - nucleus) / s first, give the
// starts for Newton's method for period k P; the first accepted is the answer.
//
// The islands are the Mandelbrot set's: for a power-d set (d > 2) or a fold within looks
// nowhere, and the search says the point is inside a minibrot that fills the view.
func (s *search) within(c0r, c0i *big.Float) (Found, bool, error) {
	if !s.fm.IsMandelbrot() {
		return Found{}, false, nil
	}
	nu := s.fillingNu
	prec := max(s.prec, nu.prec)
	dr := new(big.Float).SetPrec(prec).Sub(c0r, nu.cr)
	di := new(big.Float).SetPrec(prec).Sub(c0i, nu.ci)
	u0r, u0i := cxQuo(cxFromExp(ExpFromBig(dr), ExpFromBig(di)), nu.sizeCx).float64s()
	order := make([]int, len(islands))
	for i := range order {
		order[i] = i
	}
	d := func(i int) float64 { return math.Hypot(islands[i].re-u0r, islands[i].im-u0i) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(d(a), d(b)) })
	for _, i := range order {
		is := islands[i]
		p := is.p * nu.p
		if p > s.limit {
			continue
		}
		off := cxMul(nu.sizeCx, cxFrom(is.re, is.im))
		or, oi := off.bigs(prec)
		sr := new(big.Float).SetPrec(prec).Add(nu.cr, or)
		si := new(big.Float).SetPrec(prec).Add(nu.ci, oi)
		s.progress(fmt.Sprintf("trying period %d", p), 0.1)
		got, err := newtonNucleus(s.ctx, sr, si, p, s.prec, nu.size.MulFloat(0.05), s.cover)
		if s.ctx.Err() != nil {
			return Found{}, false, s.ctx.Err()
		}
		if err != nil {
			s.reasons = append(s.reasons, fmt.Sprintf("period %d: %v", p, err))
			continue
		}
		res, why := acceptNucleus(s.l, got, s.w, s.h, s.view, s.opt)
		if why != "" {
			s.reasons = append(s.reasons, fmt.Sprintf("period %d: %s", p, why))
			continue
		}
		return res, true, nil
	}
	return Found{}, false, nil
}

// result is the search's answer after from stopped it.
func (s *search) result(err error) (Found, error) {
	if err != nil {
		return Found{}, ctxCause(s.ctx, err)
	}
	s.progress("found", 1)
	return *s.found, nil
}

// from tries the candidates of the discs of the given radii around (sr, si), nearest first:
// s.found is set when one is accepted.
func (s *search) from(sr, si *big.Float, radii []Exp) (ballResult, error) {
	bp, err := ballPeriods(s.ctx, sr, si, radii, s.prec, s.limit, s.progress, s.fm)
	if err != nil {
		return bp, err
	}
	var cands []candidate
	tried := map[int]bool{}
	for j, p := range bp.periods {
		if p > 0 && !tried[p] && !s.shallow[p] {
			tried[p] = true
			cands = append(cands, candidate{p: p, r: radii[j]})
		}
	}
	for i := 0; i < len(cands) && s.newtons < maxNewtons; i++ {
		cd := cands[i]
		if s.refused[cd.p] >= 3 {
			continue // refused three times already: likely the same nucleus again
		}
		s.newtons++
		s.progress(fmt.Sprintf("trying period %d", cd.p), 0.05)
		cr, ci := sr, si
		if cd.sr != nil {
			cr, ci = cd.sr, cd.si
		}
		nu, err := newtonNucleusF(s.ctx, cr, ci, cd.p, s.prec, cd.r.Ldexp(2), s.cover, s.fm)
		if s.ctx.Err() != nil {
			return bp, s.ctx.Err()
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
			s.reasons = append(s.reasons, fmt.Sprintf("period %d: %v", cd.p, err))
			s.refused[cd.p]++
			continue
		}
		f, why := acceptNucleus(s.l, nu, s.w, s.h, s.view, s.opt)
		switch why {
		case whyOutside:
			s.outside++
		case whyShallow:
			s.shallow[cd.p] = true
			if s.filling == nil && len(s.reasons) == 0 {
				s.filling, s.fillingNu = &f, nu
			}
		}
		if why != "" {
			s.reasons = append(s.reasons, fmt.Sprintf("period %d: %s", cd.p, why))
			s.refused[cd.p]++
			if f.Bulb && s.bulb == nil && s.opt.Bulbs && why == whyBulb {
				s.bulb = &f
			}
			continue
		}
		s.found = &f
		return bp, nil
	}
	return bp, nil
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
func (s *search) noMinibrotError(bp ballResult) error {
	var why string
	switch {
	case bp.limited && len(s.reasons) == 0:
		return fmt.Errorf("%w (%d)", ErrPeriodLimit, s.limit)
	case bp.escapedAll && bp.setDist.Sign() > 0:
		why = fmt.Sprintf("the set is about %s view heights away", bp.setDist.Text(2))
	case bp.escapedAll:
		why = "the view is outside the set"
	case s.filling != nil:
		what := "minibrot"
		if s.filling.Bulb {
			what = "bulb"
		}
		why = fmt.Sprintf("the point is inside a %s of period %d that fills the view", what, s.filling.Period)
	case bp.interior && bp.cycle > 0:
		why = fmt.Sprintf("the point is inside the set, in a component of period %d", bp.cycle)
	case bp.interior:
		why = "the point is inside the set"
	case s.outside == len(s.reasons) && s.outside > 0:
		why = "the set's parts near it lie outside the view"
	case len(s.reasons) > 0:
		why = fmt.Sprintf("none of the %d nearest candidates is a minibrot inside the view and deeper", len(s.reasons))
	default:
		why = "nothing there has a period"
	}
	return &NoMinibrotError{Why: why, Details: s.reasons}
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
	periods     []int // per radius: the ball period, 0 for none
	limited     bool  // the smallest disc was still undecided at the limit
	escapedAll  bool  // every disc escaped without a period
	interior    bool  // the smallest undecided disc lies inside a component
	cycle       int   // with interior, the period of the point's attracting cycle (0: unknown)
	interiorAll bool  // every disc, the view's too, lies inside that component
	setDist     Exp   // with escapedAll, the distance estimate from c0 to the set / the view height (0: unknown)
}

// ballPeriods runs the enclosing balls of the discs of the given radii (increasing) around
// c along the orbit of c, and returns each disc's ball period.
//
// For z <- z^d + c the ball grows as R' = (|Z| + R)^d - |Z|^d + r + u, which bounds |(Z +
// d_n)^d - Z^d| (the binomial expansion's terms, each at most its modulus; for d = 2, 2|Z|R +
// R^2), u bounding the rounding of the d - 1 complex products (|Z| < 4 while the ball is
// undecided: each relative rounding at most 2^(2-prec), so u = 2^(3d+4-prec)).
//
// A fold (the Burning Ship's |Re z| + i|Im z|, the Mandelbar's conjugate) moves no two points
// farther apart (|f(a) - f(b)| <= |a - b|), so it maps the ball (Z, R) into (f(Z), R), and the
// same growth bounds the formula's step with the centre's orbit taken through the fold.
func ballPeriods(ctx context.Context, cr, ci *big.Float, radii []Exp, prec uint, maxIter int, progress func(string, float64), fm Formula) (ballResult, error) {
	d := fm.Power()
	o := newFindOrbitF(cr, ci, prec, fm)
	u := MakeExp(1, 4-int(prec))
	if d > 2 {
		u = MakeExp(1, 3*d+4-int(prec))
	}
	k := len(radii)
	R := make([]Exp, k)
	done := make([]bool, k) // found or escaped
	res := ballResult{periods: make([]int, k)}
	za := Exp{}
	two := NewExp(2)
	dz := cx{e: cxZeroExp} // dz/dc at c, for the distance estimate
	z := cx{e: cxZeroExp}
	left := k
	var Rmark Exp    // the smallest undecided disc's R at the last power of two
	jmark := -1      // that disc
	var RmarkAll Exp // the largest disc's R then
	const keep = 4096
	last := make([]cx, keep) // the last z, for the attracting cycle's period
	for n := 1; n <= maxIter; n++ {
		if n&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			progress(fmt.Sprintf("looking for periods (%d iterations)", n), math.Min(0.5, float64(n)/float64(maxIter)))
		}
		dz = cxAdd(cxMul(stepDeriv(z, d), dz), cxOne)
		o.step()
		z = o.z()
		last[n%keep] = z
		zaPrev := za
		za = z.abs()
		for j := range k {
			if done[j] {
				continue
			}
			R[j] = ballGrow(zaPrev, R[j], d).Add(radii[j].Add(u))
			if za.Cmp(R[j]) <= 0 {
				res.periods[j] = n
				done[j] = true
				left--
			} else if za.Sub(R[j]).Cmp(two) > 0 {
				done[j] = true
				left--
			}
		}
		if n >= 4096 && n&(n-1) == 0 {
			// A disc inside a component: its ball settles with the attracting cycle
			// and never decides; one that is not grows at least linearly.
			j := 0
			for j < k && done[j] {
				j++
			}
			if j < k && j == jmark && R[j].Cmp(Rmark.MulFloat(1.5)) < 0 {
				res.interior = true
				res.interiorAll = left == k && R[k-1].Cmp(RmarkAll.MulFloat(1.5)) < 0
				res.cycle = cyclePeriod(last, n)
				break
			}
			if j < k {
				Rmark, jmark, RmarkAll = R[j], j, R[k-1]
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
	if !done[0] && !res.interior {
		res.limited = true
	}
	any := false
	for _, p := range res.periods {
		any = any || p > 0
	}
	if !any && done[k-1] {
		res.escapedAll = true
		if fm.Kind == Mandelbrot { // dz/dc is complex only without a fold
			res.setDist = distanceOn(o, z, dz, d)
		}
	}
	return res, nil
}

// distanceOn goes on along the orbit o (its last value z, dz/dc there dz) to a large radius
// for the distance estimate |z| ln|z| / |dz| from c to the set (0: unknown).
func distanceOn(o *findOrbit, z, dz cx, d int) Exp {
	for range 64 {
		if z.e > 40 {
			break
		}
		dz = cxAdd(cxMul(stepDeriv(z, d), dz), cxOne)
		o.step()
		z = o.z()
	}
	if z.e > 40 && dz.e != cxZeroExp {
		// d = |z| log|z| / |dz|; the view height is radii[0] scaled: radii[0] is 4 px.
		lz := z.log2Abs() * math.Ln2
		return z.abs().Quo(dz.abs()).MulFloat(lz)
	}
	return Exp{}
}

// ballGrow is (|Z| + R)^d - |Z|^d for |Z| = za: how far the image of the ball (Z, R) under
// z^d reaches from Z^d (2 za R + R^2 for d = 2), as the sum of the binomial terms C(d,k)
// za^(d-k) R^k, k >= 1, all positive (no cancellation).
func ballGrow(za, R Exp, d int) Exp {
	if d == 2 {
		return za.Mul(R).Ldexp(1).Add(R.Mul(R))
	}
	sum, rk := Exp{}, NewExp(1)
	binom := 1.0
	for k := 1; k <= d; k++ {
		rk = rk.Mul(R)
		binom = binom * float64(d-k+1) / float64(k)
		zk := NewExp(1)
		for range d - k {
			zk = zk.Mul(za)
		}
		sum = sum.Add(rk.Mul(zk).MulFloat(binom))
	}
	return sum
}

// cyclePeriod is the least q < len(last)/2 with last[m] = last[m-q] (to 2^-24 of |last[m]|)
// for the q values m = n, n-1, ..., n-q+1 (indices mod len(last)), or 0.
func cyclePeriod(last []cx, n int) int {
	k := len(last)
	at := func(m int) cx { return last[((m%k)+k)%k] }
	for q := 1; q < k/2; q++ {
		ok := true
		for i := range q {
			a := at(n - i)
			d := cxSub(a, at(n-i-q))
			if d.e != cxZeroExp && d.abs().Cmp(a.abs().Ldexp(-24)) >= 0 {
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

// viewBox is the view's centre, half-extents along the screen's axes and rotation.
type viewBox struct {
	cr, ci *big.Float
	hw, hh Exp
	rot    float64
}

// contains reports whether (cr, ci) lies in the view: in a rotated view, in the turned
// rectangle the screen shows.
func (v viewBox) contains(cr, ci *big.Float) bool {
	dr := ExpFromBig(new(big.Float).SetPrec(cr.Prec()).Sub(cr, v.cr))
	di := ExpFromBig(new(big.Float).SetPrec(ci.Prec()).Sub(ci, v.ci))
	if v.rot != 0 {
		// The offset in half-heights, turned into the screen's axes (a point far outside
		// gives an infinite or NaN offset, which no comparison admits).
		x, y := Location{Rotation: v.rot}.ScreenOffset(dr.Quo(v.hh).Float64(), di.Quo(v.hh).Float64())
		return math.Abs(x) <= v.hw.Quo(v.hh).Float64() && math.Abs(y) <= 1
	}
	return dr.Abs().Cmp(v.hw) <= 0 && di.Abs().Cmp(v.hh) <= 0
}

// nucleusFound is a converged nucleus.
type nucleusFound struct {
	cr, ci *big.Float
	p      int
	d      int // the power
	size   Exp
	sizeCx cx // the size estimate with its direction
	shape  cx
	prec   uint
	// stretch is how much longer than wide the copy is (1 without a fold; foldStretch).
	stretch float64
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
	return newtonNucleusD(ctx, sr, si, p, prec, r, far, 2)
}

// newtonNucleusD is newtonNucleus for the nucleus of z <- z^d + c.
func newtonNucleusD(ctx context.Context, sr, si *big.Float, p int, prec uint, r, far Exp, d int) (nucleusFound, error) {
	fm, err := MakeFormula(Mandelbrot, d)
	if err != nil {
		return nucleusFound{}, err
	}
	return newtonNucleusF(ctx, sr, si, p, prec, r, far, fm)
}

// newtonNucleusF is newtonNucleus for the nucleus of formula fm's z <- f(z)^D + c: for a
// fold, Newton's method in R^2 with the 2x2 Jacobian (foldPass) and no shape estimate.
func newtonNucleusF(ctx context.Context, sr, si *big.Float, p int, prec uint, r, far Exp, fm Formula) (nucleusFound, error) {
	d := fm.Power()
	pass := func(cr, ci *big.Float, prec, pd uint) ([2]*big.Float, cx, divisorRoot, error) {
		if fm.Kind != Mandelbrot {
			return foldPass(ctx, cr, ci, p, prec, fm)
		}
		return nucleusPass(ctx, cr, ci, p, prec, pd, d)
	}
	cr := new(big.Float).SetPrec(prec).Set(sr)
	ci := new(big.Float).SetPrec(prec).Set(si)
	maxPrec := uint(MaxReferencePrec + 256)
	var pd uint
	last := Exp{}
	sb, size, div, err := pass(cr, ci, prec, pd)
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
			sb, size, div, err = pass(cr, ci, prec, pd)
			if err != nil {
				return nucleusFound{}, err
			}
			continue
		}
		if sa.Cmp(as.Ldexp(-findTolBits)) <= 0 {
			if div.min.Cmp(as.Ldexp(-16)) < 0 {
				return nucleusFound{}, &lowerPeriod{k: div.k, cr: cr, ci: ci}
			}
			nu := nucleusFound{cr: cr, ci: ci, p: p, d: d, size: as, sizeCx: size, shape: cx{e: cxZeroExp}, prec: prec, stretch: 1}
			if fm.Kind == Mandelbrot {
				nu.shape, err = shapeEstimate(ctx, cr, ci, p, prec, d)
			} else { // a fold's map is not complex-analytic: no shape estimate
				nu.stretch, err = foldStretch(ctx, cr, ci, p, prec, fm)
			}
			return nu, err
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
			nsb, nsize, ndiv, err := pass(nr, ni, prec, pd)
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
		if ratio := ns.Quo(last); pd == 0 && fm.Kind == Mandelbrot && last.Sign() > 0 && ratio.Cmp(MakeExp(1, -40)) < 0 && ratio.Cmp(MakeExp(1, -64)) > 0 {
			pd = min(prec, 1024)
			sb, size, div, err = pass(cr, ci, prec, pd)
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
//
// For z <- z^d + c (d > 2) the same expansion as the size's (nucleusPass), one order further:
// the return map in the rescaled u and C is u -> u^d + C + e1 u^d C + e2 C^2, e1 = s dcdz /
// lambda, e2 = s dcdc / (2 dc), s = lambda^(-1/(d-1)) / dc (dc, dcdc: dz_P/dc and its
// derivative; lambda = dz, dcdz: the derivative from z_1 and its derivative in c); u = (1 + e1
// C)^(-1/(d-1)) v makes it v -> v^d + C + (e2 + e1/(d-1)) C^2 to second order, so the estimate
// is -(e2 + e1/(d-1)), mathr's for d = 2. Measured (TestShapeEstimatePower): about 0 at the
// nuclei of the power-d sets' minibrots, near 1 at their bulbs' (as for d = 2).
func shapeEstimate(ctx context.Context, cr, ci *big.Float, p int, prec uint, d int) (cx, error) {
	if d > 2 {
		return shapeEstimateD(ctx, cr, ci, p, prec, d)
	}
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

// shapeEstimateD is shapeEstimate for z <- z^d + c, d > 2.
func shapeEstimateD(ctx context.Context, cr, ci *big.Float, p int, prec uint, d int) (cx, error) {
	o := newFindOrbitD(cr, ci, prec, d)
	o.step() // z_1 = c
	z := o.z()
	dc, dz := cxOne, cxOne
	dcdc, dcdz := cx{e: cxZeroExp}, cx{e: cxZeroExp}
	fd, fdd := cxFrom(float64(d), 0), cxFrom(float64(d*(d-1)), 0)
	for i := 1; i < p; i++ {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return cx{}, err
			}
		}
		w := cxPow(z, d-2)
		a := cxMul(cxMul(w, z), fd) // d z^(d-1)
		a2 := cxMul(w, fdd)         // d (d-1) z^(d-2)
		dcdc = cxAdd(cxMul(a, dcdc), cxMul(a2, cxMul(dc, dc)))
		dcdz = cxAdd(cxMul(a, dcdz), cxMul(a2, cxMul(dc, dz)))
		dc = cxAdd(cxMul(a, dc), cxOne)
		dz = cxMul(a, dz)
		o.step()
		z = o.z()
	}
	if dc.e == cxZeroExp || dz.e == cxZeroExp {
		return cx{e: cxZeroExp}, nil
	}
	s := cxQuo(cxQuo(cxOne, cxRoot(dz, d-1)), dc)
	e2 := cxMul(s, cxQuo(dcdc, dc.double()))
	e1 := cxMul(s, cxQuo(dcdz, cxMul(dz, cxFrom(float64(d-1), 0))))
	return cxAdd(e1, e2).neg(), nil
}

// isCardioid reports whether a shape estimate is nearer 0 (a cardioid) than 1 (a disc). For
// the power-d sets (d > 2) the estimate is defined up to a (d-1)-th root of unity (the branch
// of lambda^(1/(d-1))), so 1 is any of those roots.
func isCardioid(e cx, d int) bool {
	if e.e == cxZeroExp {
		return true
	}
	re, im := e.float64s()
	if d <= 2 {
		return math.Hypot(re, im) < math.Hypot(re-1, im)
	}
	a := complex(re, im)
	for j := range d - 1 {
		if cmplx.Abs(a) >= cmplx.Abs(a-cmplx.Rect(1, 2*math.Pi*float64(j)/float64(d-1))) {
			return false
		}
	}
	return true
}

// acceptNucleus checks a converged nucleus against the view (see the comment at the top of
// this file): the Found for it, and why it is refused ("" when accepted).
func acceptNucleus(l Location, nu nucleusFound, w, h int, view viewBox, opt FindOptions) (Found, string) {
	zoom := NewExp(1 / powerSetReach(max(nu.d, 2))).Quo(nu.size)
	loc, err := centredAt(l, nu.cr, nu.ci, zoom, w, h)
	if err != nil {
		return Found{}, err.Error()
	}
	loc.Iterations = min(max(l.Iterations, MinibrotIterations(nu.p)), MaxIterations)
	f := Found{Loc: loc, Period: nu.p, Size: nu.size, Bulb: !isCardioid(nu.shape, nu.d)}
	switch {
	case !view.contains(nu.cr, nu.ci):
		return f, whyOutside
	case !opt.AllowShallower && loc.Zoom.Exp().Cmp(l.ZoomExp()) <= 0:
		return f, whyShallow
	case f.Bulb:
		return f, whyBulb
	case nu.stretch > maxStretch:
		return f, whySliver
	case l.Formula.Kind != Mandelbrot && !foldCentreShows(loc, nu, w, h):
		return f, whyThin
	}
	return f, ""
}

// powerSetReach is how far from 0 the power-d set (z <- z^d + c) reaches: its escape radius
// 2^(1/(d-1)), which bounds it (|c| beyond it escapes), and which it reaches for even d at
// the tip -2^(1/(d-1)) (z_2 = -c is a fixed point, as for c = -2 and d = 2). For odd d its
// farthest points lie a little nearer (measured on a polar grid of 20,000 rays at 2,000
// iterations: 1.346 of 1.414 for d = 3, 1.177 of 1.189 for d = 5, 1.118 of 1.122 for d = 7).
// A minibrot of size s reaches powerSetReach(d) |s| from its nucleus, so the zoom
// 1/(powerSetReach(d) |s|) puts its farthest tip halfway from the view's centre to its nearest
// edge: 1/(2|s|) for d = 2 (TestPowerSetReach checks the reach, TestFindPowerD the framing).
func powerSetReach(d int) float64 {
	if d == 2 {
		return 2
	}
	return math.Pow(2, 1/float64(d-1))
}

// Why acceptNucleus refuses a nucleus.
const (
	whyOutside = "its nucleus is outside the view"
	whyShallow = "its view is not deeper than this one"
	whyBulb    = "a bulb, not a minibrot"
	whySliver  = "a sliver, not a minibrot (its copy of the set is more than 8 times longer than wide)"
	whyThin    = "a sliver, not a minibrot (the pixels around its nucleus escape)"
)

// maxStretch is the most a fold's minibrot may be longer than wide (foldStretch): the
// Mandelbar's components on the real axis are slivers (period 3 at -1.7549: a pixel wide and
// four tall in a view that frames it), which a view cannot show whole as a minibrot.
const maxStretch = 8

// AtDepth is the view f of the feature found from the view from, stopped the fraction
// depth (0 < depth < 1) of the way there in log zoom: centred on the feature, at zoom
// from^(1-depth) f^depth, with f's iterations. At depth 0.5 the pattern around the
// minibrot doubles (the embedded Julia set's shape halfway in).
func (f Found) AtDepth(from Location, depth float64) (Location, error) {
	if !(depth > 0 && depth < 1) {
		return Location{}, fmt.Errorf("depth %g must lie between 0 and 1", depth)
	}
	lz := from.ZoomExp().Log2()*(1-depth) + f.Loc.ZoomExp().Log2()*depth
	k := math.Floor(lz)
	z, err := ParseDecimal(MakeExp(math.Exp2(lz-k), int(k)).Text(3))
	if err != nil {
		return Location{}, err
	}
	l := f.Loc
	l.Zoom = z
	return l, l.Validate()
}
