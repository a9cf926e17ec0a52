package fractal

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"sync"
	"sync/atomic"
	"time"

	"mandelscope/internal/text"
)

// MaxReferencePrec bounds the precision of a reference orbit: MaxZoom (1e10000) at a
// 65536-pixel image needs about 33,300 bits, a centre with MaxDecimalDigits digits about
// 41,000.
const MaxReferencePrec = 1 << 16

// MaxReferenceLength bounds the iterations of a reference orbit, so that its memory stays
// bounded (about 100 bytes an iteration with its BLA table: 210 MB at this bound) whatever
// iteration count a view asks for: a pixel that reaches the end of the orbit rebases to its
// start, so frames with more iterations than the orbit holds are still computed exactly as
// perturbation defines them, only with more rebasing.
const MaxReferenceLength = 1 << 21

// Reference is the orbit of one reference point C, computed in math/big and stored rounded to
// float64: Z[0] = 0, Z[1] = C, Z[k+1] = Z[k]^2 + C. It ends at Z[Iterations()] when the point
// did not escape within the iterations asked for (at most MaxReferenceLength), or at the
// first Z[k] with |Z[k]| > 2 (kept: a pixel that rebases at the end needs it). Every pixel of a Perturbation frame iterates its
// difference from this orbit (PerturbEscape).
//
// Layout for a texture upload: Z is a []complex128, in memory the interleaved float64 pairs
// re(Z[0]), im(Z[0]), re(Z[1]), im(Z[1]), ...; OrbitFloats returns that as a []float64 copy.
// A Reference is immutable once computed and safe for concurrent use.
type Reference struct {
	// Z is the orbit, rounded to float64; len(Z) >= 2. Read it, never write it.
	Z []complex128

	re, im   *big.Float // the reference point C, rounded to prec bits
	cre, cim float64    // C rounded to float64
	prec     uint
	maxIter  int  // the iterations asked for
	escaped  bool // Z[len(Z)-1] has |Z| > 2
	period   int  // > 0: the orbit repeats with this period from its end on (see period.go)
	computed int  // the last index computed in math/big (for a periodic orbit, the rest repeats it)
	noPeriod bool // computed without looking for a period (for tests: the long orbit itself)

	// anchorRe, anchorIm are the centre of the view that asked for a reference at a nucleus
	// (periodicReplacement), nil for one at the view's own centre: reach is measured from it.
	anchorRe, anchorIm *big.Float
	// short keeps a periodic orbit to the values computed, without repeating its last period
	// on (repeatPeriod): at a nucleus the repeats serve nothing. They are there so that BLA
	// blocks can span several periods of a cycle, which at a nucleus no block can: its orbit
	// returns to about 0 every period, where a block's radius (a fraction of |Z_m|)
	// vanishes. So the orbit and its table take a few periods' memory instead of 2^21
	// values' (about 200 MB with the table).
	short bool

	// A Julia reference (julia.On) holds two orbits in Z: the critical orbit of the
	// parameter c (Z[0] = 0, Z[1] = c, ..., Z[jStart-1], its period in period), then from
	// jStart on the orbit of the reference point (re, im): Z[jStart] = that point, each next
	// the square plus c (see julia.go). For the Mandelbrot set jStart is 0.
	julia    JuliaParam
	jre, jim *big.Float // c at prec bits
	jcr, jci float64    // c rounded to float64
	jStart   int

	// formula is the map the orbit iterates (the zero Formula: the Mandelbrot set's, by the
	// fixed-point loops here; another by iterateFormula in perturb_formula.go).
	formula Formula

	// tiny holds exactly the values Z[m] with |Re| + |Im| < 2^-1000, which float64 rounds
	// to subnormals or zero (near a deep minibrot's nucleus): PerturbEscapeExp needs them.
	tiny map[int]cx

	// zlo holds the low parts of Z's values for double-double deltas (lowParts), computed
	// when first asked for, under blaMu.
	zlo []complex128

	blaMu   sync.Mutex
	blas    []*BLA        // the tables built, most recently used first (at most maxBLAs)
	blaExps []*BLAExp     // the same for PerturbationExp frames
	fblas   []*FormulaBLA // the same for another formula's Perturbation frames
	// fblaExps: the same for another formula's PerturbationExp frames.
	fblaExps []*FormulaBLAExp
}

// keepTiny records Z[m] = (re, im) exactly when float64 cannot hold it.
func (ref *Reference) keepTiny(m int, re, im Exp) {
	if ref.tiny == nil {
		ref.tiny = map[int]cx{}
	}
	ref.tiny[m] = cxFromExp(re, im)
}

// maxBLAs is how many BLA tables (one per power of two of DcMax) a Reference keeps: a zoom
// within one reference's reach would otherwise keep one table per doubling.
const maxBLAs = 2

// ComputeReference computes the orbit of the reference point c = (re, im) rounded to prec
// bits, up to min(maxIter, MaxReferenceLength) iterations or until |Z| > 2, in prec-bit big.Int fixed point (measured
// faster than big.Float: BenchmarkReference). It checks ctx every 1024 iterations and
// returns ctx's error when it is cancelled; progress (may be nil) is called with the
// iterations done and the total at most five times a second, and once at the end.
func ComputeReference(ctx context.Context, re, im Decimal, prec uint, maxIter int, progress func(done, total int)) (*Reference, error) {
	return computeReference(ctx, re, im, prec, maxIter, progress, false)
}

// computeReference is ComputeReference, in big.Float when float is set (for the tests and
// the benchmark that compare the two).
func computeReference(ctx context.Context, re, im Decimal, prec uint, maxIter int, progress func(done, total int), float bool) (*Reference, error) {
	ref, err := newReference(re, im, prec, maxIter)
	if err != nil {
		return nil, err
	}
	iterate := ref.iterateFixed
	if float {
		iterate = ref.iterateFloat
	}
	if err := iterate(ctx, progress); err != nil {
		return nil, err
	}
	return ref, nil
}

// newReference validates the arguments of ComputeReference and returns the Reference it
// fills in, its orbit not yet computed.
func newReference(re, im Decimal, prec uint, maxIter int) (*Reference, error) {
	if maxIter < 1 || maxIter > MaxIterations {
		return nil, fmt.Errorf("reference orbit: iterations %d out of range (1 to %d)", maxIter, MaxIterations)
	}
	if prec < 53 || prec > MaxReferencePrec {
		return nil, fmt.Errorf("reference orbit: precision %d bits out of range (53 to %d)", prec, MaxReferencePrec)
	}
	cr, ci := re.Big(prec), im.Big(prec)
	fr, _ := cr.Float64()
	fi, _ := ci.Float64()
	if math.IsNaN(fr) || math.IsNaN(fi) || math.Abs(fr) > MaxCentre || math.Abs(fi) > MaxCentre {
		return nil, fmt.Errorf("reference orbit: point %s, %s is out of range (|value| <= %g)", text.Clip(re.String(), 40), text.Clip(im.String(), 40), MaxCentre)
	}
	ref := &Reference{re: cr, im: ci, cre: fr, cim: fi, prec: prec, maxIter: min(maxIter, MaxReferenceLength)}
	ref.Z = make([]complex128, 1, min(maxIter+1, 1<<16))
	return ref, nil
}

// appendZ appends z to the orbit, doubling its capacity when full, up to the iterations
// asked for: append grows a long slice by a quarter at a time, which copies each value of a
// million-long orbit about five times, into memory the runtime clears first.
func (ref *Reference) appendZ(z complex128) {
	if len(ref.Z) == cap(ref.Z) {
		n := 2 * cap(ref.Z)
		if len(ref.Z) <= ref.maxIter {
			n = min(n, ref.maxIter+1)
		}
		grown := make([]complex128, len(ref.Z), n)
		copy(grown, ref.Z)
		ref.Z = grown
	}
	ref.Z = append(ref.Z, z)
}

// stepper checks ctx and reports progress, every 1024 iterations.
type stepper struct {
	ctx      context.Context
	progress func(done, total int)
	total    int
	last     time.Time
}

func (s *stepper) check(n int) error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if s.progress != nil && time.Since(s.last) >= 200*time.Millisecond {
		s.last = time.Now()
		s.progress(n, s.total)
	}
	return nil
}

// iterateFloat is the orbit in big.Float with reused temporaries: two multiplications per
// iteration, zr' = (zr+zi)(zr-zi) + cr and zi' = 2 zr zi + ci.
func (ref *Reference) iterateFloat(ctx context.Context, progress func(done, total int)) error {
	prec := ref.prec
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	zr, zi, s, d, t := nf(), nf(), nf(), nf(), nf()
	var det periodDetector
	sr, si := nf(), nf()
	snapshot := func() { sr.Set(zr); si.Set(zi) }
	moved := func() cx {
		return cxFromExp(ExpFromBig(nf().Sub(zr, sr)), ExpFromBig(nf().Sub(zi, si)))
	}
	st := stepper{ctx: ctx, progress: progress, total: ref.maxIter, last: time.Now()}
	for n := 1; n <= ref.maxIter; n++ {
		if n&1023 == 0 {
			if err := st.check(n); err != nil {
				return err
			}
		}
		t.Mul(zr, zi)
		s.Add(zr, zi)
		d.Sub(zr, zi)
		zr.Mul(s, d)
		zr.Add(zr, ref.re)
		zi.SetMantExp(t, 1)
		zi.Add(zi, ref.im)
		fr, _ := zr.Float64()
		fi, _ := zi.Float64()
		ref.appendZ(complex(fr, fi))
		if math.Abs(fr)+math.Abs(fi) < tinyZ {
			ref.keepTiny(n, ExpFromBig(zr), ExpFromBig(zi))
		}
		if fr*fr+fi*fi > 4 {
			ref.escaped = true
			break
		}
		if ref.period = det.step(ref, n, snapshot, moved); ref.period > 0 {
			break
		}
	}
	ref.repeatPeriod()
	if progress != nil {
		progress(ref.maxIter, ref.maxIter)
	}
	return nil
}

// iterateFixed is the orbit in fixed point: a value v is the big.Int round(v * 2^prec), and
// each iteration takes two multiplications, zr' = ((zr+zi)(zr-zi) >> prec) + cr and
// zi' = (zr zi >> (prec-1)) + ci, with reused big.Ints (no allocation per iteration).
func (ref *Reference) iterateFixed(ctx context.Context, progress func(done, total int)) error {
	if err := ref.orbitFixed(ctx, progress, ref.re, ref.im, nil, nil); err != nil {
		return err
	}
	ref.repeatPeriod()
	if progress != nil {
		progress(ref.maxIter, ref.maxIter)
	}
	return nil
}

// orbitFixed appends an orbit to Z in fixed point: of 0 under z^2 + (cre, cim) (z0re nil:
// from Z[1] = c on, looking for a period), or of z0 under it (appended from z0 itself on,
// without looking for a period: a Julia reference's second orbit). Both stop at the first
// |Z| > 2 (setting escaped for the first) or after ref.maxIter values.
func (ref *Reference) orbitFixed(ctx context.Context, progress func(done, total int), cre, cim, z0re, z0im *big.Float) error {
	prec := ref.prec
	fix := func(f *big.Float) *big.Int {
		v, _ := new(big.Float).SetPrec(prec+8).SetMantExp(f, int(prec)).Int(nil)
		return v
	}
	cr, ci := fix(cre), fix(cim)
	words := int(prec)/64 + 4
	mk := func() *big.Int { return new(big.Int).SetBits(make([]big.Word, 0, 2*words)) }
	zr, zi, s, d, t, tmp := mk(), mk(), mk(), mk(), mk(), mk()
	scale := -int(prec)
	var det periodDetector
	sr, si := mk(), mk()
	snapshot := func() { sr.Set(zr); si.Set(zi) }
	moved := func() cx {
		return cxFromExp(fixedExp(new(big.Int).Sub(zr, sr), scale), fixedExp(new(big.Int).Sub(zi, si), scale))
	}
	st := stepper{ctx: ctx, progress: progress, total: ref.maxIter, last: time.Now()}
	// push appends the current z to Z (exactly too, where float64 cannot hold it) and reports
	// whether |z| > 2.
	push := func() bool {
		fr, fi := fixedFloat64(zr, scale, tmp), fixedFloat64(zi, scale, tmp)
		ref.appendZ(complex(fr, fi))
		if math.Abs(fr)+math.Abs(fi) < tinyZ {
			ref.keepTiny(len(ref.Z)-1, fixedExp(zr, scale), fixedExp(zi, scale))
		}
		return fr*fr+fi*fi > 4
	}
	second := z0re != nil
	base, n0 := 0, 1
	sub := Reference{noPeriod: ref.noPeriod} // the second orbit alone, for the period detector
	if second {
		// z0 is the orbit's first value, appended as it is; the loop squares from it.
		base, n0 = len(ref.Z), 2
		zr.Set(fix(z0re))
		zi.Set(fix(z0im))
		if push() {
			return nil
		}
		sub.Z = ref.Z[base-1:]
		det.step(&sub, 1, snapshot, moved)
	}
	for n := n0; n <= ref.maxIter; n++ {
		if n&1023 == 0 {
			if err := st.check(n); err != nil {
				return err
			}
		}
		t.Mul(zr, zi)
		s.Add(zr, zi)
		d.Sub(zr, zi)
		zr.Mul(s, d)
		zr.Rsh(zr, prec)
		zr.Add(zr, cr)
		zi.Rsh(t, prec-1)
		zi.Add(zi, ci)
		if push() {
			ref.escaped = ref.escaped || !second
			break
		}
		if second {
			// The detector reads the orbit by iteration: Z[base-1+n] is its z_n.
			sub.Z = ref.Z[base-1:]
			if p := det.step(&sub, n, snapshot, moved); p > 0 {
				// Settled on an attracting cycle (an interior point): the orbit stops, and
				// a pixel at its end rebases to the critical orbit, which settles on the
				// same cycle and whose period carries it on (Reference). An orbit that
				// repeats exactly on a cycle that does not attract (a repelling point of
				// the Julia set, or one that lands on such a cycle) is no interior point:
				// its pixels leave the cycle, each at its own offset, which rebasing with
				// the whole z in float64 would lose; its cycle is repeated instead, to the
				// length of an orbit that did not settle.
				if !ref.cycleAttracts(len(ref.Z)-1, p) {
					ref.repeatTail(p, base+ref.maxIter-1)
				}
				break
			}
			continue
		}
		if ref.period = det.step(ref, n, snapshot, moved); ref.period > 0 {
			break
		}
	}
	return nil
}

// fixedFloat64 is x * 2^scale rounded to float64 (to within one unit in the last place: the
// top 64 bits are rounded, the rest truncated), without converting x whole, which overflows
// float64 past 1024 bits. tmp is scratch space for word sizes other than 64 bits.
func fixedFloat64(x *big.Int, scale int, tmp *big.Int) float64 {
	w := x.Bits()
	n := len(w)
	if bits.UintSize != 64 || n <= 1 {
		if shift := x.BitLen() - 64; shift > 0 {
			tmp.Rsh(x, uint(shift))
			f, _ := tmp.Float64()
			return math.Ldexp(f, shift+scale)
		}
		f, _ := x.Float64()
		return math.Ldexp(f, scale)
	}
	hi, lo := uint64(w[n-1]), uint64(w[n-2])
	lz := bits.LeadingZeros64(hi)
	mant := hi << uint(lz)
	if lz > 0 {
		mant |= lo >> uint(64-lz)
	}
	f := math.Ldexp(float64(mant), 64*(n-1)-lz+scale)
	if x.Sign() < 0 {
		return -f
	}
	return f
}

// fixedExp is x * 2^scale as an Exp (rounded to 53 bits), at any exponent.
func fixedExp(x *big.Int, scale int) Exp {
	return ExpFromBig(new(big.Float).SetPrec(64).SetMantExp(new(big.Float).SetInt(x), scale))
}

// Prec is the precision in bits the orbit was computed with.
func (ref *Reference) Prec() uint { return ref.prec }

// Iterations is the iteration count the orbit was computed for: the count asked for, at most
// MaxReferenceLength (len(Z)-1 unless it escaped).
func (ref *Reference) Iterations() int { return ref.maxIter }

// Period is the period of the cycle the orbit has settled onto, 0 when it has not (within
// the iterations asked for): a pixel that reaches the orbit's last index continues at the
// index Period() before it, as if the orbit went on (see period.go).
func (ref *Reference) Period() int { return ref.period }

// Escaped reports whether the reference point escaped: then Z's last value has |Z| > 2.
func (ref *Reference) Escaped() bool { return ref.escaped }

// Point returns copies of the reference point C at the orbit's precision.
func (ref *Reference) Point() (re, im *big.Float) {
	return new(big.Float).Copy(ref.re), new(big.Float).Copy(ref.im)
}

// Point64 is the reference point rounded to float64.
func (ref *Reference) Point64() (re, im float64) { return ref.cre, ref.cim }

// OrbitFloats returns the orbit as interleaved float64 pairs re(Z[0]), im(Z[0]), re(Z[1]), ...
// (a copy, 2*len(Z) values), ready for a texture upload.
func (ref *Reference) OrbitFloats() []float64 {
	out := make([]float64, 2*len(ref.Z))
	for i, z := range ref.Z {
		out[2*i], out[2*i+1] = real(z), imag(z)
	}
	return out
}

// Covers reports whether the orbit serves maxIter iterations: it was computed that far (or to
// MaxReferenceLength), or the reference escaped before its own limit, or it settled onto a
// cycle (then it serves any count).
func (ref *Reference) Covers(maxIter int) bool {
	return ref.escaped || ref.period > 0 || ref.maxIter >= min(maxIter, MaxReferenceLength)
}

// ReferenceBits is the precision a reference orbit needs for a pixel spacing at a centre of
// magnitude up to mag: 64 bits below the pixel spacing, relative to max(1, mag).
func ReferenceBits(spacing, mag float64) uint {
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		return 64
	}
	e := math.Log2(math.Max(1, mag) / spacing)
	return uint(math.Max(0, math.Ceil(e))) + 64
}

// ReferenceReach is how far from a reference point, in image diagonals of the new view, a
// ReferenceCache still reuses its orbit.
const ReferenceReach = 3

// ReferenceCache keeps the last few reference orbits and reuses one while a view stays within
// its reach: enough bits, enough iterations (or the reference escaped earlier), and the view's
// centre within ReferenceReach image diagonals of the reference point. A view that an orbit
// being computed will serve waits for it rather than computing its own (the tiles of a frame
// rendered at once share one computation). Safe for concurrent use; its zero value is ready.
type ReferenceCache struct {
	mu      sync.Mutex
	refs    []*Reference // most recently used first
	pending []*pendingReference
	// onWait, when set (by tests), is called as a caller starts waiting for an orbit another
	// computes.
	onWait func()
}

// pendingReference is an orbit being computed: done closes when it ends, err then says how.
type pendingReference struct {
	ref  *Reference
	done chan struct{}
	err  error
	// at is the progress so far, done<<32 | total, which the callers that wait are told too
	at atomic.Uint64
}

// referenceCacheSize is how many orbits a ReferenceCache keeps.
const referenceCacheSize = 3

// DefaultReferences is the process-wide reference cache, used by Frame.Escape when a frame
// has no reference yet.
var DefaultReferences = &ReferenceCache{}

// Get returns a reference orbit for frame f: a cached one within reach, else one being
// computed that will be (waiting for it), else a new one computed at f's centre (and cached).
// progress as for ComputeReference, called only when this call computes the orbit. It fails
// with ctx's error when ctx ends first, and when f's location is out of range.
func (c *ReferenceCache) Get(ctx context.Context, f Frame, progress func(done, total int)) (*Reference, error) {
	bits := f.ReferenceBits()
	for {
		c.mu.Lock()
		for i, ref := range c.refs {
			if ref.prec >= bits && ref.julia == f.Loc.Julia && ref.formula == f.Loc.Formula && ref.Covers(f.Loc.Iterations) && f.withinReach(ref) {
				copy(c.refs[1:i+1], c.refs[:i])
				c.refs[0] = ref
				c.mu.Unlock()
				return ref, nil
			}
		}
		var wait *pendingReference
		for _, p := range c.pending {
			if p.ref.prec >= bits && p.ref.julia == f.Loc.Julia && p.ref.formula == f.Loc.Formula && p.ref.maxIter >= min(f.Loc.Iterations, MaxReferenceLength) && f.withinReach(p.ref) {
				wait = p
				break
			}
		}
		if wait == nil {
			ref, err := newReference(f.Loc.Re, f.Loc.Im, bits, f.Loc.Iterations)
			if err == nil && f.Loc.Julia.On {
				err = ref.setJulia(f.Loc.Julia)
			}
			if err == nil {
				err = ref.setFormula(f.Loc.Formula)
			}
			if err != nil {
				c.mu.Unlock()
				return nil, err
			}
			p := &pendingReference{ref: ref, done: make(chan struct{})}
			c.pending = append(c.pending, p)
			c.mu.Unlock()
			// An orbit that pixels would run past without its having settled: a minibrot's
			// nucleus serves instead (nucleusref.go).
			served, err := ref.iterateForView(ctx, f.Loc.Iterations, f.spacing(), func(done, total int) {
				p.at.Store(uint64(done)<<32 | uint64(uint32(total)))
				if progress != nil {
					progress(done, total)
				}
			})
			if p.err = err; err == nil {
				ref = served
			}
			c.mu.Lock()
			p.ref = ref
			for i, q := range c.pending {
				if q == p {
					c.pending = append(c.pending[:i], c.pending[i+1:]...)
					break
				}
			}
			if p.err == nil {
				c.refs = append([]*Reference{ref}, c.refs[:min(len(c.refs), referenceCacheSize-1)]...)
			}
			close(p.done)
			c.mu.Unlock()
			if p.err != nil {
				return nil, p.err
			}
			return ref, nil
		}
		onWait := c.onWait
		c.mu.Unlock()
		if onWait != nil {
			onWait()
		}
		if err := wait.wait(ctx, progress); err != nil {
			return nil, err
		}
		if wait.err == nil {
			return wait.ref, nil
		}
		// Its caller gave up (cancelled): look again, computing one if need be.
	}
}

// wait waits for p to end, telling progress (may be nil) how far it has come every 200 ms
// (the computing caller's progress), or for ctx to end (its error).
func (p *pendingReference) wait(ctx context.Context, progress func(done, total int)) error {
	var tick <-chan time.Time
	if progress != nil {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		tick = t.C
	}
	last := uint64(0)
	for {
		select {
		case <-p.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-tick:
			if at := p.at.Load(); at != last && at != 0 {
				last = at
				progress(int(at>>32), int(uint32(at)))
			}
		}
	}
}
