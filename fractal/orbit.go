package fractal

import (
	"context"

	"fmt"
	"mandelscope/colour"
	"math"
	"math/big"
	"strconv"
	"strings"

	"mandelscope/internal/text"
)

// The escape radius and the orbit channels.
//
// A location's Bailout is the escape radius R: a pixel escapes at the first n with |z_n| > R.
// Two raw channels come from the orbit's last values (OrbitResult.T, OrbitResult.Stripe):
//
//   - T = arg(z_N) / 2pi in [0, 1), z_N the first iterate past R (Kalles Fraktaler's T);
//   - STRIPE = the mean of (1 + sin(S arg z_k)) / 2 over the last K iterates z_{N-K+1}..z_N
//     (those with k >= 1), S the location's StripeDensity, K its StripeLast.
//
// The default path (R = 2, no channels) runs the loops it always ran (Escape, PerturbEscape,
// the vector loops) and its pictures are bit for bit what they were. A frame with another
// radius, or whose colouring reads the channels (Frame.NeedsChannels), takes the loops here
// (Frame.Pixel): copies of the derivative's loops (escapeOrbitCh, perturbOnceCh, perturbLoopChExp) with
// the radius and an orbitRec that holds the last K iterates as they are visited. Those
// iterates must be the orbit's exact values, stepped one by one: a BLA block that skipped into
// them is rolled back by running the pixel again with blocks allowed only up to N-K (each
// run lowers that limit, so it ends; see perturbCh). A batch of a Perturbation frame's pixels
// (PerturbChannelsBatch) goes in the channel vector loops where the build has them: perturbCh's
// first run, each lane's last K iterates kept in a ring (chGroup), a pixel with a block among
// them handed to perturbCh; a PerturbationExp frame's (PerturbChannelsExpBatch) likewise in
// the extended-exponent channel vector loops, with the derivative (perturbLoopChExp's), handed
// over by and back to perturbLoopChExp with the ring turned into its orbitRec and back.

// Limits and defaults of the orbit parameters (Location.Bailout, StripeDensity, StripeLast).
const (
	DefaultBailout       = 2.0
	MinBailout           = 2.0
	MaxBailout           = 1e10
	DefaultStripeDensity = 5
	MaxStripeDensity     = 64
	DefaultStripeLast    = 16
	MaxStripeLast        = 64
)

// BailoutRadius is l's escape radius R (Bailout, or DefaultBailout when 0).
func (l Location) BailoutRadius() float64 {
	if l.Bailout == 0 {
		return DefaultBailout
	}
	return l.Bailout
}

// StripeS is the STRIPE channel's density S (StripeDensity, or DefaultStripeDensity when 0).
func (l Location) StripeS() int {
	if l.StripeDensity == 0 {
		return DefaultStripeDensity
	}
	return l.StripeDensity
}

// StripeK is the number of last iterates STRIPE averages (StripeLast, or DefaultStripeLast
// when 0).
func (l Location) StripeK() int {
	if l.StripeLast == 0 {
		return DefaultStripeLast
	}
	return l.StripeLast
}

// ParseBailout reads an escape radius, a number from MinBailout to MaxBailout (spaces around
// it allowed), as --bailout and the location text's bailout= take it. The default's one form
// is 0 (DefaultBailout), so that equal locations compare equal.
func ParseBailout(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v >= MinBailout && v <= MaxBailout) {
		return 0, fmt.Errorf("bailout %q must be a number from 2 to 1e10", text.Clip(s, 40))
	}
	if v == DefaultBailout {
		return 0, nil
	}
	return v, nil
}

// ParseStripeDensity reads a stripe density S, a whole number from 1 to MaxStripeDensity
// (whole, so that sin(S arg z) is continuous where arg z jumps from pi to -pi); the default's
// one form is 0.
func ParseStripeDensity(s string) (int, error) {
	return parseWhole("stripe density", s, DefaultStripeDensity, MaxStripeDensity)
}

// ParseStripeLast reads the count K of last iterates STRIPE averages, a whole number from 1 to
// MaxStripeLast; the default's one form is 0.
func ParseStripeLast(s string) (int, error) {
	return parseWhole("stripe last", s, DefaultStripeLast, MaxStripeLast)
}

func parseWhole(name, s string, def, hi int) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || v < 1 || v > hi {
		return 0, fmt.Errorf("%s %q must be a whole number from 1 to %d", name, text.Clip(s, 40), hi)
	}
	if v == def {
		return 0, nil
	}
	return v, nil
}

// setOrbit sets the orbit parameter named k (bailout, stripe-density, stripe-last) from the
// location text's value v.
func (l *Location) setOrbit(k, v string) error {
	var err error
	switch k {
	case "bailout":
		l.Bailout, err = ParseBailout(v)
	case "stripe-density":
		l.StripeDensity, err = ParseStripeDensity(v)
	default:
		l.StripeLast, err = ParseStripeLast(v)
	}
	return err
}

// validateOrbit reports what is wrong with l's orbit parameters (values read from files).
func (l Location) validateOrbit() error {
	if b := l.Bailout; b != 0 && !(b >= MinBailout && b <= MaxBailout) {
		return fmt.Errorf("bailout %s is out of range (2 to 1e10)", strconv.FormatFloat(b, 'g', -1, 64))
	}
	if s := l.StripeDensity; s < 0 || s > MaxStripeDensity {
		return fmt.Errorf("stripe density %d is out of range (1 to %d)", s, MaxStripeDensity)
	}
	if k := l.StripeLast; k < 0 || k > MaxStripeLast {
		return fmt.Errorf("stripe last %d is out of range (1 to %d)", k, MaxStripeLast)
	}
	if !l.Formula.IsMandelbrot() && l.Bailout != 0 {
		return fmt.Errorf("bailout %g is not yet available for formula %s: use 2", l.Bailout, l.Formula)
	}
	if !l.Formula.IsMandelbrot() && l.Color.NeedsChannels() {
		return fmt.Errorf("the %s colouring is not yet available for formula %s (it needs the orbit channels): use smooth", l.Color.Method, l.Formula)
	}
	return nil
}

// orbitText is the location text's part for the orbit parameters that differ from their
// defaults: " bailout=R stripe-density=S stripe-last=K".
func (l Location) orbitText() string {
	s := ""
	if l.Bailout != 0 {
		s += " bailout=" + strconv.FormatFloat(l.Bailout, 'g', -1, 64)
	}
	if l.StripeDensity != 0 {
		s += " stripe-density=" + strconv.Itoa(l.StripeDensity)
	}
	if l.StripeLast != 0 {
		s += " stripe-last=" + strconv.Itoa(l.StripeLast)
	}
	return s
}

// NeedsChannels reports whether f's pixels carry the T and STRIPE channels: asked for
// (Channels), or read by the colouring.
func (f Frame) NeedsChannels() bool { return f.Channels || f.Loc.Color.NeedsChannels() }

// OrbitPath reports whether f's pixels take the loops of orbit.go (Frame.Pixel): a radius
// other than 2, or the channels asked for (Location.OrbitPath, or Channels). Such frames are
// computed by the scalar loops pixel by pixel (the CPU renderer), or for a Perturbation frame
// or PerturbationExp frame of the Mandelbrot set in batches (PerturbChannelsBatch,
// PerturbChannelsExpBatch, on the vector loops where there are some);
// the GL renderer's float and double shaders compute the Mandelbrot set's in one pass (render's
// orbit.go) and hand the others to the CPU renderer.
func (f Frame) OrbitPath() bool {
	return f.Loc.OrbitPath() || f.Channels && f.Loc.Formula.IsMandelbrot()
}

// OrbitPath reports whether l's frames compute the orbit channels (and take the loops of
// orbit.go): the Mandelbrot set (or one of its Julia sets) with a radius other than 2 or a
// colouring that reads the channels.
func (l Location) OrbitPath() bool {
	return l.Formula.IsMandelbrot() && (l.Bailout != 0 || l.Color.NeedsChannels())
}

// orbitRec holds the last k iterates an orbit loop visited, each with its index (a slot whose
// index is not the one asked for holds nothing: skipped by a BLA block, or never visited).
type orbitRec struct {
	k      int
	s      float64
	bail2  float64
	zr, zi [MaxStripeLast]float64
	at     [MaxStripeLast]int
}

func newOrbitRec(l Location) *orbitRec {
	r := &orbitRec{k: l.StripeK(), s: float64(l.StripeS())}
	rad := l.BailoutRadius()
	r.bail2 = rad * rad
	r.reset()
	return r
}

func (r *orbitRec) reset() {
	for i := range r.at {
		r.at[i] = -1
	}
}

// put records z_n, reached by a plain step.
func (r *orbitRec) put(n int, zr, zi float64) {
	i := n % r.k
	r.zr[i], r.zi[i], r.at[i] = zr, zi, n
}

// skip records that z_n was reached by a BLA block (so is not exact).
func (r *orbitRec) skip(n int) { r.at[n%r.k] = -1 }

// complete reports whether every iterate z_k, max(1, n-K+1) <= k <= n, was stepped to.
func (r *orbitRec) complete(n int) bool {
	for k := max(1, n-r.k+1); k <= n; k++ {
		if r.at[k%r.k] != k {
			return false
		}
	}
	return true
}

// stripe is STRIPE for an orbit that escaped at n (complete(n) holds).
func (r *orbitRec) stripe(n int) float64 {
	sum, cnt := 0.0, 0
	for k := max(1, n-r.k+1); k <= n; k++ {
		i := k % r.k
		sum += 0.5 + 0.5*math.Sin(r.s*math.Atan2(r.zi[i], r.zr[i]))
		cnt++
	}
	if cnt == 0 {
		return 0
	}
	return sum / float64(cnt)
}

// OrbitResult is a pixel's Result on the orbit path, with its channels T and Stripe (0 where
// it did not escape). The channels are not in Result: the default path's loops make one a
// pixel, and a larger one cost them time.
type OrbitResult struct {
	Result
	T, Stripe float64
}

// Sample is r as the colour stage reads it, with the channels.
func (r OrbitResult) Sample() colour.Sample {
	s := r.Result.Sample()
	s.T, s.Stripe = float32(r.T), float32(r.Stripe)
	return s
}

// Turn is arg(z) / 2pi in [0, 1): the T channel of an orbit whose first iterate past the
// escape radius is z.
func Turn(zr, zi float64) float64 {
	t := math.Atan2(zi, zr) / (2 * math.Pi)
	if t < 0 {
		t++
	}
	if t >= 1 {
		t = 0
	}
	return t
}

// finishCh is the result of an orbit that escaped at n with z_n = (zr, zi) past the radius:
// the smooth value and distance estimate as smoothDE computes them (in float64 where the
// radius is beyond SmoothBailout, whose squares float32 cannot hold), T and STRIPE.
func finishCh[T float](rec *orbitRec, zr, zi, cr, ci, wr, wi, add T, n int) OrbitResult {
	var r OrbitResult
	if rec.bail2 <= SmoothBailout {
		r.Result = smoothDE(zr, zi, cr, ci, wr, wi, add, n)
	} else {
		r.Result = smoothDE(float64(zr), float64(zi), float64(cr), float64(ci), float64(wr), float64(wi), float64(add), n)
	}
	r.T = Turn(float64(zr), float64(zi))
	r.Stripe = rec.stripe(n)
	return r
}

// escapeOrbitCh is escapeOrbitDE with the radius of rec and the channels: the orbit z(1) =
// (zr, zi), z <- z^2 + c, w(1) = w1, w <- 2 z w + add.
func escapeOrbitCh[T float](rec *orbitRec, zr, zi, cr, ci T, maxIter int, w1, add, saved T) OrbitResult {
	wr, wi := w1, T(0)
	sr, si := saved, saved
	check, period := 8, 0
	bail2 := rec.bail2
	for n := 1; n <= maxIter; n++ {
		if n > 1 {
			wr, wi = 2*(zr*wr-zi*wi)+add, 2*(zr*wi+zi*wr)
			zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		}
		rec.put(n, float64(zr), float64(zi))
		if r2 := float64(zr)*float64(zr) + float64(zi)*float64(zi); r2 > bail2 {
			return finishCh(rec, zr, zi, cr, ci, wr, wi, add, n)
		}
		if zr == sr && zi == si {
			return OrbitResult{Result: Result{N: -1}}
		}
		period++
		if period == check {
			period = 0
			check *= 2
			sr, si = zr, zi
		}
	}
	return OrbitResult{Result: Result{N: -1}}
}

// perturbCh is PerturbEscapeDE with the radius of rec and the channels: it runs the pixel
// with BLA blocks allowed up to maxIter, and while its last K iterates were not all stepped
// one by one, again with blocks allowed only up to N-K (N the escape of the run before).
func perturbCh(rec *orbitRec, ref *Reference, bla *BLA, dcr, dci float64, maxIter int, spacing float64, stop <-chan struct{}) OrbitResult {
	limit := maxIter
	for {
		rec.reset()
		r, ok := perturbOnceCh(rec, ref, bla, dcr, dci, maxIter, limit, spacing, stop)
		if ok {
			return r
		}
		limit = r.N - rec.k
	}
}

// perturbOnceCh is one run of perturbCh: perturbLoopDE's loop taking blocks that end at or
// before limit only. ok is false where the pixel escaped with a block among its last K
// iterates (r.N its escape).
func perturbOnceCh(rec *orbitRec, ref *Reference, bla *BLA, dcr, dci float64, maxIter, limit int, spacing float64, stop <-chan struct{}) (_ OrbitResult, ok bool) {
	var dr, di, wr, wi, ws float64
	m, n := 0, 0
	if ref.jStart == 0 {
		ws = spacing
	} else {
		m = ref.jStart
		zm := ref.Z[m]
		zr, zi := real(zm)+dcr, imag(zm)+dci
		n, wr = 1, spacing
		rec.put(1, zr, zi)
		z2 := zr*zr + zi*zi
		if z2 > rec.bail2*escLo && escapes(zm, dcr, dci, z2, rec.bail2) {
			return finishCh(rec, zr, zi, ref.jcr, ref.jci, wr, wi, 0, 1), true
		}
		dr, di = dcr, dci
		if z2 < dcr*dcr+dci*dci || z2 < 0x1p-900 && rebaseTiny(zr, zi, dcr, dci) || m == len(ref.Z)-1 {
			dr, di, m = zr, zi, 0
		}
		dcr, dci = 0, 0
	}
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, tableEnd := bla.table()
	lim := min(maxIter, limit)
	bail2 := rec.bail2
	bail2Lo := bail2 * escLo
	for steps := 1; n < maxIter; steps++ {
		if steps&stopEvery == 0 && stopped(stop) {
			return OrbitResult{Result: Result{N: -1}}, true
		}
		block := false
		if m > 0 && m <= tableEnd && n < lim {
			ad := math.Abs(dr) + math.Abs(di)
			at := ent[base[m-1]:base[m]]
			if e := &at[0]; ad < e.r {
				span := 1
				for l := 1; l < len(at) && n+span*2 <= lim && ad < at[l].r; l++ {
					e, span = &at[l], span*2
				}
				dr, di = e.ar*dr-e.ai*di+e.br*dcr-e.bi*dci, e.ar*di+e.ai*dr+e.br*dci+e.bi*dcr
				wr, wi = e.ar*wr-e.ai*wi+e.br*ws, e.ar*wi+e.ai*wr+e.bi*ws
				m += span
				n += span
				block = true
				goto check
			}
		}
		{
			zm := z[m]
			fr, fi := real(zm)+dr, imag(zm)+di
			wr, wi = 2*(fr*wr-fi*wi)+ws, 2*(fr*wi+fi*wr)
			tr, ti := 2*real(zm)+dr, 2*imag(zm)+di
			dr, di = tr*dr-ti*di+dcr, tr*di+ti*dr+dci
			m++
			n++
		}
	check:
		zm := z[m]
		zr, zi := real(zm)+dr, imag(zm)+di
		if block {
			rec.skip(n)
		} else {
			rec.put(n, zr, zi)
		}
		z2 := zr*zr + zi*zi
		if z2 > bail2Lo && escapes(zm, dr, di, z2, bail2) {
			if !rec.complete(n) {
				return OrbitResult{Result: Result{N: n}}, false
			}
			cr, ci := ref.smoothC(dcr, dci)
			return finishCh(rec, zr, zi, cr, ci, wr, wi, ws, n), true
		}
		if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
			dr, di = zr, zi
			m = 0
		} else if m == last {
			m -= period
		}
	}
	return OrbitResult{Result: Result{N: -1}}, true
}

// perturbChExp is perturbCh for a PerturbationExp frame: PerturbEscapeDEExp's loop with rec
// and the limit on its blocks.
func perturbChExp(rec *orbitRec, ref *Reference, bla *BLAExp, dcre, dcim Exp, maxIter int, spacing Exp, stop <-chan struct{}) OrbitResult {
	limit := maxIter
	for {
		rec.reset()
		st, dc, ws, r, done := ref.startChExp(rec, dcre, dcim, spacing)
		if done {
			return r
		}
		r, again, _ := perturbLoopChExp(ref, bla, &st, dc, ws, maxIter, stop, rec, limit, false)
		if !again {
			return r
		}
		limit = r.N - rec.k
	}
}

// startChExp is startDEExp with the radius of rec, recording a Julia pixel's z1.
func (ref *Reference) startChExp(rec *orbitRec, dcre, dcim, spacing Exp) (st expState, dc cx, ws Exp, r OrbitResult, done bool) {
	zero := cx{e: cxZeroExp}
	if ref.jStart == 0 {
		return newDEExpState(zero, zero, 0, 0), cxFromExp(dcre, dcim), spacing, OrbitResult{}, false
	}
	d := cxFromExp(dcre, dcim)
	m := ref.jStart
	z := cxAdd(ref.zcx(m), d)
	zr, zi := z.float64s()
	w := cxFromExp(spacing, Exp{})
	rec.put(1, zr, zi)
	if z2 := zr*zr + zi*zi; z2 > rec.bail2*escLo && escapesCx(ref.Z[m], d, z2, rec.bail2) {
		r.Result = smoothDEExp(zr, zi, ref.jcr, ref.jci, w, Exp{}, 1)
		r.T, r.Stripe = Turn(zr, zi), rec.stripe(1)
		return st, zero, Exp{}, r, true
	}
	if absLess(z, d) || m == len(ref.Z)-1 {
		d, m = z, 0
	}
	return newDEExpState(d, w, m, 1), zero, Exp{}, OrbitResult{}, false
}

// PixelChannels is Pixel with the orbit channels T and STRIPE: for a frame on the orbit path
// (OrbitPath), or one that asks for them (Channels), the loops of orbit.go; for the others
// Pixel's result with no channels.
func (f Frame) PixelChannels(x, y int) OrbitResult {
	if f.OrbitPath() {
		r := f.channelPixel(x, y)
		r.Result = f.ScreenNormal(r.Result)
		return r
	}
	return OrbitResult{Result: f.Pixel(x, y)}
}

// channelPixel is Pixel for a frame on the orbit path (OrbitPath): the count, the smooth
// value, the derivative's estimate and normal, T and STRIPE, in the frame's precision.
func (f Frame) channelPixel(x, y int) OrbitResult {
	rec := newOrbitRec(f.Loc)
	p := f.Precision()
	if p.Perturbs() && f.Ref == nil {
		var err error
		if f, err = f.WithReference(context.Background(), DefaultReferences, nil); err != nil {
			return OrbitResult{Result: Result{N: -1}}
		}
	}
	it := f.Loc.Iterations
	switch p {
	case PerturbationExp:
		dr, di := f.DeltaExp(x, y)
		return perturbChExp(rec, f.Ref, f.BLAExp(), dr, di, it, f.spacing(), nil)
	case Perturbation:
		dr, di := f.Delta(x, y)
		return perturbCh(rec, f.Ref, f.BLA(), dr, di, it, f.Spacing, nil)
	case Float32:
		re, im := f.Point32(x, y)
		s := float32(f.Spacing)
		if f.Loc.Julia.On {
			return escapeOrbitCh(rec, re, im, float32(f.JRe), float32(f.JIm), it, s, 0, float32(math.NaN()))
		}
		if InMainBulbs(re, im) {
			return OrbitResult{Result: Result{N: -1}}
		}
		return escapeOrbitCh(rec, re, im, re, im, it, s, s, 0)
	}
	re, im := f.Point64(x, y)
	if f.Loc.Julia.On {
		return escapeOrbitCh(rec, re, im, f.JRe, f.JIm, it, f.Spacing, 0, math.NaN())
	}
	if InMainBulbs(re, im) {
		return OrbitResult{Result: Result{N: -1}}
	}
	return escapeOrbitCh(rec, re, im, re, im, it, f.Spacing, f.Spacing, 0)
}

// ChannelsBig is the exact reference for the orbit path: the escape count of the orbit z1 =
// (zr, zi), z <- z^2 + c, past l's escape radius, computed in math/big at prec bits with no
// shortcuts (-1 when it does not escape within l's iterations), and its T and STRIPE channels
// (l's S and K) from the iterates rounded to float64. With z1 = c it is the Mandelbrot set's.
func ChannelsBig(l Location, zr, zi, cr, ci *big.Float, prec uint) (n int, t, stripe float64) {
	rec := newOrbitRec(l)
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	xr, xi, xr2, xi2, s := nf().Set(zr), nf().Set(zi), nf(), nf(), nf()
	bail2 := nf().SetFloat64(rec.bail2)
	for n := 1; n <= l.Iterations; n++ {
		if n > 1 {
			s.Mul(xr, xi)
			s.Add(s, s)
			xi.Add(s, ci)
			xr.Sub(xr2, xi2)
			xr.Add(xr, cr)
		}
		xr2.Mul(xr, xr)
		xi2.Mul(xi, xi)
		fr, _ := xr.Float64()
		fi, _ := xi.Float64()
		rec.put(n, fr, fi)
		if s.Add(xr2, xi2).Cmp(bail2) > 0 {
			return n, Turn(fr, fi), rec.stripe(n)
		}
	}
	return -1, 0, 0
}

// perturbLoopChExp is perturbLoopDEExp (PerturbEscapeDEExp's loop, without the hand-off to
// the vector loops) for the orbit path: it escapes past rec's radius, records the iterates it
// visits in rec, takes only blocks that end at or before limit, and returns again true with
// the escape count alone where a block reached into the last K iterates (perturbChExp then
// runs it again). A copy, so that the default path's loop stays as it was. With handoff it
// returns at the first iteration's top but its first where the delta and the derivative are
// in float64, handed set and st that state (as perturbLoopDEExp), rec holding its iterates.
func perturbLoopChExp(ref *Reference, bla *BLAExp, st *expState, dc cx, ws Exp, maxIter int, stop <-chan struct{}, rec *orbitRec, limit int, handoff bool) (_ OrbitResult, again, handed bool) {
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, tableEnd := bla.table()
	sp := cxFromExp(ws, Exp{})
	dcr, dci := dc.float64s()
	dsr, dsi := bla.scaledDC(dc)
	sps, _ := bla.scaledDC(sp)
	var fent []blaEntry
	if bla != nil {
		fent = bla.f64.ent
	}
	sp64 := ws.Float64()
	spacing := ws
	d, w, dr, di, wr, wi, exp, m, n := st.d, st.w, st.dr, st.di, st.wr, st.wi, st.exp, st.m, st.n
	lim, bail2 := min(maxIter, limit), rec.bail2
	bail2Lo := bail2 * escLo
	block := false
	toCx := func() { d, w, exp = cxFrom(dr, di), cxFrom(wr, wi), true }
	toFloat := func() {
		if d.e > toDouble && w.e > toDouble {
			dr, di = d.float64s()
			wr, wi = w.float64s()
			exp = false
		}
	}
	for steps := 1; n < maxIter; steps++ {
		if handoff && !exp && steps > 1 {
			*st = expState{d: d, dr: dr, di: di, exp: exp, m: m, n: n, w: w, wr: wr, wi: wi}
			return OrbitResult{}, false, true
		}
		if steps&stopEvery == 0 && stopped(stop) {
			return OrbitResult{Result: Result{N: -1}}, false, false
		}
		block = false
		if m > 0 && m <= tableEnd && n < lim {
			var ad float64
			if !exp {
				if ad = math.Abs(dr) + math.Abs(di); ad < toExp || math.Abs(wr)+math.Abs(wi) < toExp {
					toCx()
				}
			}
			if exp {
				at := ent[base[m-1]:base[m]]
				am, ae := d.norm1()
				if e := &at[0]; lessExp(am, ae, e.rm, int(e.re)) {
					span := 1
					for l := 1; l < len(at) && n+span*2 <= lim && lessExp(am, ae, at[l].rm, int(at[l].re)); l++ {
						e, span = &at[l], span*2
					}
					block = true
					a, b := cx{e.ar, e.ai, int(e.ae)}, cx{e.br, e.bi, int(e.be)}
					d = cxAdd(cxMul(a, d), cxMul(b, dc))
					w = cxAdd(cxMul(a, w), cxMul(b, sp))
					toFloat()
					m += span
					n += span
					goto check
				}
			} else if at := fent[base[m-1]:base[m]]; ad < at[0].r {
				// PerturbEscapeDE's block, on the float64 table.
				e, span := &at[0], 1
				for l := 1; l < len(at) && n+span*2 <= lim && ad < at[l].r; l++ {
					e, span = &at[l], span*2
				}
				block = true
				dr, di = e.ar*dr-e.ai*di+e.br*dsr-e.bi*dsi, e.ar*di+e.ai*dr+e.br*dsi+e.bi*dsr
				wr, wi = e.ar*wr-e.ai*wi+e.br*sps, e.ar*wi+e.ai*wr+e.bi*sps
				m += span
				n += span
				goto check
			}
		}
		if !exp {
			zm := z[m]
			fr, fi := real(zm)+dr, imag(zm)+di
			tr, ti := 2*real(zm)+dr, 2*imag(zm)+di
			if (math.Abs(tr)+math.Abs(ti))*(math.Abs(dr)+math.Abs(di)) < toExp ||
				(math.Abs(fr)+math.Abs(fi))*(math.Abs(wr)+math.Abs(wi)) < toExp {
				toCx() // a product would leave float64's range: this step in cx
			} else {
				// PerturbEscapeDE's plain step.
				wr, wi = 2*(fr*wr-fi*wi)+sp64, 2*(fr*wi+fi*wr)
				dr, di = tr*dr-ti*di+dcr, tr*di+ti*dr+dci
				m++
				n++
				goto check
			}
		}
		{
			zm := ref.zcx(m)
			zf := cxAdd(zm, d) // z before the step
			zf.e++
			w = cxAdd(cxMul(zf, w), sp)
			zm.e++
			d = cxAdd(cxMul(cxAdd(zm, d), d), dc)
			toFloat()
			m++
			n++
		}
	check:
		if exp {
			zm := z[m]
			zr, zi := real(zm), imag(zm)
			if block {
				rec.skip(n)
			} else {
				rz, iz := cxAdd(ref.zcx(m), d).float64s()
				rec.put(n, rz, iz)
			}
			if math.Abs(zr)+math.Abs(zi) >= tinyRef {
				if z2 := zr*zr + zi*zi; z2 > bail2Lo && escapesCx(zm, d, z2, bail2) {
					r, again := ref.escapedDEExp(rec, dcr, dci, zr, zi, w, spacing, n)
					return r, again, false
				}
				if m == last && period > 0 {
					m -= period
				} else if m == last || m == jEnd {
					d = cxAdd(ref.zcx(m), d)
					m = 0
				}
			} else if v := cxAdd(ref.zcx(m), d); absLess(v, d) || m == last && period == 0 || m == jEnd {
				d = v
				m = 0
			} else if m == last {
				m -= period
			}
			if m == 0 {
				toFloat()
			}
			continue
		}
		fs := expState{dr: dr, di: di, m: m, n: n, wr: wr, wi: wi}
		zr, zi, esc := ref.checkFloatExpR(&fs, last, period, jEnd, true, bail2)
		if block {
			rec.skip(n)
		} else {
			rec.put(n, zr, zi)
		}
		if esc {
			r, again := ref.escapedDEExp(rec, dcr, dci, zr, zi, cxFrom(wr, wi), spacing, n)
			return r, again, false
		}
		d, w, dr, di, wr, wi, exp, m = fs.d, fs.w, fs.dr, fs.di, fs.wr, fs.wi, fs.exp, fs.m
	}
	return OrbitResult{Result: Result{N: -1}}, false, false
}

// escapedDEExp is perturbLoopChExp's result for a pixel that escaped at n with z = (zr, zi)
// and derivative w: its smooth value and estimate, with T and STRIPE, or
// again true where the last K iterates were not all stepped one by one.
func (ref *Reference) escapedDEExp(rec *orbitRec, dcr, dci, zr, zi float64, w cx, spacing Exp, n int) (_ OrbitResult, again bool) {
	if !rec.complete(n) {
		return OrbitResult{Result: Result{N: n}}, true
	}
	cr, ci := ref.smoothC(dcr, dci)
	r := OrbitResult{Result: smoothDEExp(zr, zi, cr, ci, w, spacing, n)}
	r.T, r.Stripe = Turn(zr, zi), rec.stripe(n)
	return r, false
}

// PerturbChannelsBatch is perturbCh (the orbit path's loop for a Perturbation frame of the
// Mandelbrot set at l: its radius, S, K and iterations) for a batch of pixels, their deltas
// dcr, dci: out[i] gets the pixel's count, smooth value, T and STRIPE, and with de its
// derivative's estimate and normal, bit for bit perturbCh's (without de, its DE, Ur and Ui are
// 0). On a vector path (VectorPath) the pixels go in the channel vector loops, which keep each
// lane's last K iterates as it steps to them; a pixel with a BLA block among them is run again
// by perturbCh, which rolls the block back. It returns false when stop closed first.
func PerturbChannelsBatch(l Location, ref *Reference, bla *BLA, dcr, dci []float64, spacing float64, de bool, stop <-chan struct{}, out []OrbitResult) bool {
	if len(dci) != len(dcr) || len(out) < len(dcr) {
		panic(fmt.Sprintf("fractal: PerturbChannelsBatch with %d, %d deltas and %d results", len(dcr), len(dci), len(out)))
	}
	if vectorWidth > 0 && len(dcr) > 1 && ref.jStart == 0 {
		done, _ := perturbChannelsVector(vectorWidth, l, ref, bla, dcr, dci, spacing, de, stop, out)
		return done
	}
	for i := range dcr {
		out[i] = perturbCh(newOrbitRec(l), ref, bla, dcr[i], dci[i], l.Iterations, spacing, stop)
		if !de {
			out[i].DE, out[i].Ur, out[i].Ui = 0, 0, 0
		}
		if out[i].N < 0 && stopped(stop) {
			return false
		}
	}
	return true
}

// PerturbChannelsExpBatch is PerturbChannelsBatch for a PerturbationExp frame (deltas and
// spacing with extended exponents, past 1e308): out[i] gets perturbChExp's result for pixel i,
// bit for bit (without de, its DE, Ur and Ui are 0). On a vector path (VectorPath) the pixels'
// float64 stretches go in the channel vector loops with the derivative (perturbGroupDEExpCh8,
// ...), handed over by and back to perturbLoopChExp with their last K iterates; a pixel with a
// BLA block among them is run again by perturbChExp. It returns false when stop closed first.
func PerturbChannelsExpBatch(l Location, ref *Reference, bla *BLAExp, dcr, dci []Exp, spacing Exp, de bool, stop <-chan struct{}, out []OrbitResult) bool {
	if len(dci) != len(dcr) || len(out) < len(dcr) {
		panic(fmt.Sprintf("fractal: PerturbChannelsExpBatch with %d, %d deltas and %d results", len(dcr), len(dci), len(out)))
	}
	if vectorWidth > 0 && len(dcr) > 1 && ref.jStart == 0 {
		done, _ := perturbChannelsExpVector(vectorWidth, l, ref, bla, dcr, dci, spacing, de, stop, out)
		return done
	}
	for i := range dcr {
		out[i] = perturbChExp(newOrbitRec(l), ref, bla, dcr[i], dci[i], l.Iterations, spacing, stop)
		if !de {
			out[i].DE, out[i].Ur, out[i].Ui = 0, 0, 0
		}
		if out[i].N < 0 && stopped(stop) {
			return false
		}
	}
	return true
}
