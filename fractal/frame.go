package fractal

import (
	"context"
	"math"
	"math/big"
	"math/bits"
	"sync/atomic"
)

// Spacing is the distance between pixel centres for a zoom and image size: the shorter side
// spans 4/zoom.
func Spacing(zoom float64, w, h int) float64 {
	return 4 / zoom / float64(min(w, h))
}

// SpacingExp is Spacing with an unbounded exponent, for zooms at any depth.
func SpacingExp(zoom Exp, w, h int) Exp {
	return NewExp(4).Quo(zoom).Quo(NewExp(float64(min(w, h))))
}

// Precision is the arithmetic a frame needs so that it never turns blocky.
type Precision int

const (
	// Float32 is enough while the pixel spacing is far above float32's resolution.
	Float32 Precision = iota
	// Double is float64 arithmetic (native fp64 on the GPU, or emulated with float pairs).
	Double
	// Perturbation means the pixel spacing is below what float64 resolves at the centre's
	// magnitude: each pixel iterates its float64 difference (delta) from one reference orbit
	// computed in math/big (see Reference and PerturbEscape).
	Perturbation
	// PerturbationExp is Perturbation past float64's exponent range (pixel spacing below
	// ExpSpacing): deltas and BLA coefficients carry a separate exponent (PerturbEscapeExp).
	// A renderer that cannot do that must pass the frame to the CPU renderer.
	PerturbationExp
)

// ExpSpacing is the pixel spacing below which a frame is a PerturbationExp frame: 2^-1010,
// about 9e-305 (zoom 1e300 at 65536 pixels, 4.3e301 at 1024). Above it every delta, BLA
// radius and coefficient of a Perturbation frame stays in float64's normal range.
var ExpSpacing = MakeExp(0.5, -1009)

// JuliaExpSpacing is ExpSpacing for Julia frames: 2^-505, about 1e-152 (zoom 4e148 at 1024
// pixels), where a squared delta would leave float64's range.
var JuliaExpSpacing = MakeExp(0.5, -504)

func (p Precision) String() string {
	switch p {
	case Float32:
		return "float32"
	case Double:
		return "double"
	case Perturbation:
		return "perturbation"
	default:
		return "perturbation (extended exponent)"
	}
}

// Perturbs reports whether p is a perturbation precision (Perturbation or PerturbationExp):
// the frame needs a reference orbit.
func (p Precision) Perturbs() bool { return p == Perturbation || p == PerturbationExp }

// ChoosePrecision picks the precision for a pixel spacing at a centre and an iteration count.
// With mag the larger of 1 and the centre's coordinates: float32 while the spacing is at least
// 2^-16 of mag (float32's 24-bit mantissa then keeps 7 bits below a pixel, a margin for the
// rounding the iteration amplifies), double while float64 keeps doubleMargin bits below a
// pixel and a bit more for every doubling of the count, and beyond that perturbation.
//
// Direct iteration rounds z to float64 at every step, an error as large as moving c by about
// 2^-52 of mag, and an orbit that lingers near the boundary for its N iterations gathers N of
// them: at zoom 1e12 (2^-47 of mag a pixel at 1280x720) with 2,000 iterations one boundary
// pixel in five escaped 3% to 10% off math/big's count, and at 1e9 with 1,400 iterations one
// in thirty. Perturbation iterates the pixel's offset from an exact reference, whose rounding
// is relative to the offset: those pixels agree with math/big there.
func ChoosePrecision(spacing, re, im float64, iterations int) Precision {
	mag := math.Max(1, math.Max(math.Abs(re), math.Abs(im)))
	r := spacing / mag
	switch {
	case r >= 0x1p-16:
		return Float32
	case r >= math.Ldexp(0x1p-52, doubleMargin+bits.Len(uint(max(iterations, 1)))):
		return Double
	default:
		return Perturbation
	}
}

// doubleMargin is the bits float64 keeps below a pixel beyond one for each doubling of the
// iteration count (see ChoosePrecision).
const doubleMargin = 12

// Frame is a location rendered at a pixel size W x H. It carries the float64 values that
// renderers need, computed once, and for Perturbation frames the reference orbit every pixel
// shares (set by WithReference).
type Frame struct {
	Loc    Location
	W, H   int
	Re, Im float64 // the centre, rounded to float64
	// JRe, JIm are a Julia view's parameter c rounded to float64 (0 for the Mandelbrot set).
	JRe, JIm float64
	Spacing  float64 // distance between pixel centres (0 or subnormal past 1e300: see SpacingX)
	// SpacingX is Spacing with an unbounded exponent, exact at any depth. Where Spacing is a
	// positive float64 that SpacingX does not round to (a frame built or scaled by hand in
	// float64), Spacing is the one used.
	SpacingX Exp

	// Ref is the reference orbit of a Perturbation frame (nil until WithReference).
	Ref *Reference
	// DRe, DIm are the frame centre minus Ref's point, computed exactly in math/big and
	// rounded to float64: pixel (x, y)'s perturbation delta is D + offsets*Spacing (Delta).
	DRe, DIm float64
	// DReX, DImX are DRe, DIm with an unbounded exponent (set by WithReference for
	// PerturbationExp frames, whose deltas use DeltaExp).
	DReX, DImX Exp

	// MinPrecision is the least precision the frame is rendered with (Float32, the zero
	// value, leaves it to the spacing): a preview sample of a supersampled view asks for the
	// precision of the supersampled frame, so that both round alike.
	MinPrecision Precision

	// julia is the precision a Julia view's squaring asks for (juliaSquaring), computed by
	// NewFrame for the values in juliaKey; a frame changed since computes it again.
	julia    Precision
	juliaKey juliaKey

	// Rings, when set, lays the pixels out as an exponential map about the centre (see
	// Rings and NewRingFrame) instead of a grid.
	Rings *Rings

	// Derivative asks the renderers' compute stage for the derivative dz/dc (the distance
	// estimate and the normal) whatever the colouring: the window keeps it, so that a change
	// to a colouring that reads it recolours without computing again.
	Derivative bool

	// Unchecked leaves the long counts of a frame whose reference is a minibrot's nucleus as
	// the float64 loops give them, without their recheck (NeedsRecheck is false), which can
	// take seconds of double-double or math/big a pixel: the window's preview sets it, to keep
	// up (and to let the perturbation shader draw such a frame). Exports, videos and probes
	// leave it false.
	Unchecked bool

	// Channels asks for the T and STRIPE channels (orbit.go) whatever the colouring.
	Channels bool

	// Cycles asks the renderers for the inside points' periods and multipliers (Interior)
	// whatever the colouring: a raw export keeps them, so that a recolouring may colour the
	// inside.
	Cycles bool
}

// NeedsInterior reports whether the frame's inside samples carry their cycles' periods and
// multipliers (colour.InteriorSample): asked for (Cycles), or read by the colouring. Only the
// Mandelbrot set's formula has them.
func (f Frame) NeedsInterior() bool {
	return (f.Cycles || f.Loc.Color.NeedsInterior()) && f.Loc.Formula.IsMandelbrot()
}

// NeedsDerivative reports whether the frame's pixels carry the derivative: asked for
// (Derivative), or read by the colouring.
func (f Frame) NeedsDerivative() bool { return f.Derivative || f.Loc.Color.NeedsDerivative() }

// NewFrame returns the frame of l at w x h pixels.
func NewFrame(l Location, w, h int) Frame { return newFrame(l, w, h, nil) }

// newFrame is NewFrame, laid out as rings when rings is set.
func newFrame(l Location, w, h int, rings *Rings) Frame {
	f := Frame{
		Loc: l, W: w, H: h, Rings: rings,
		Re: l.Re.Float64(), Im: l.Im.Float64(),
		Spacing: Spacing(l.ZoomFloat(), w, h),
	}
	if l.Julia.On {
		f.JRe, f.JIm = l.Julia.Re.Float64(), l.Julia.Im.Float64()
	}
	if z := l.ZoomFloat(); z > 1e300 || z == 0 || math.IsNaN(z) {
		f.SpacingX = SpacingExp(l.ZoomExp(), w, h)
		f.Spacing = f.SpacingX.Float64()
	} else {
		f.SpacingX = NewExp(f.Spacing)
	}
	if l.Julia.On {
		f.juliaKey = f.key()
		if ChoosePrecision(f.Spacing, f.Re, f.Im, l.Iterations) < Perturbation {
			f.julia = f.juliaSquaring() // deeper, the spacing alone asks for perturbation
		}
	}
	return f
}

// juliaKey is what juliaSquaring reads of a frame.
type juliaKey struct {
	re, im, jre, jim, spacing, half float64
	iter                            int
}

func (f Frame) key() juliaKey {
	return juliaKey{f.Re, f.Im, f.JRe, f.JIm, f.Spacing, f.halfDiagonal(), f.Loc.Iterations}
}

// Julia views and the squaring. A Julia orbit has no c term that keeps its pixels apart:
// where it passes near 0, z <- z^2 + c multiplies the distance between neighbouring
// pixels' orbits by 2|z|, and at a preimage of 0 (z_k = 0) squares it. A view that holds
// (or nears) a preimage of 0 therefore has pixels whose orbits, after it, lie a squared
// spacing apart, far below the spacing the Mandelbrot rule (ChoosePrecision) judges by: at
// the Julia set of i's centre 0 a 200x120 view at zoom 1e9 has a spacing of 3e-11, which
// float64 resolves, but a squared one of 1e-21 added to c = i, which it does not (every
// pixel came out inside); float32 fails the same way from zoom 100. Perturbation keeps
// the squared delta (d <- (2Z + d) d, with Z = 0 there, is d^2 exactly, to float64's
// exponent).
//
// juliaSquaring follows the view as a disc along its centre's orbit: centre z_k, radius
// W_k (a bound on every pixel's distance from the centre's orbit: W <- W (2|z| + W)), and
// S_k, the least distance between neighbouring pixels' orbits (S_1 the spacing; at a step
// where the disc passes at distance d from 0, S <- S max(2d, S): 2d times for the pixel
// nearest 0, squared where the disc holds 0). It returns the precision that resolves S_k
// at every step against the magnitude of the orbit: Double where S_k < 2^-20 of it (float32
// then has fewer than 8 steps between neighbouring pixels: the pixel nearest a preimage holds
// all it has of its position in the squared value, a fraction of S_k; measured at the Julia
// set of i's centre, float32 counts go wrong from about a spacing squared of 1e-7 = 2^-23),
// Perturbation where S_k < 2^-49 of it (the same 8 steps of float64: at 2^-50, beside a
// preimage of order 3 of the Julia set of i at zoom 1e7, float64 counts were 3 off).
// It looks only while the disc is small (W <= juliaSpread): a view whose pixels have spread
// over the set is a picture of its large features, whose pixels approach 0 at the
// spacing's scale or coarser. And it counts only where the view goes on to spread (or
// leaves the escape radius whole): a view whose disc keeps contracting lies inside a basin
// of an attracting cycle, where pixels that float arithmetic merges end alike anyway.
func (f Frame) juliaSquaring() Precision {
	if !f.Loc.Julia.On || !(f.Spacing > 0) || math.IsInf(f.Spacing, 0) {
		return Float32
	}
	zr, zi, cr, ci := f.Re, f.Im, f.JRe, f.JIm
	s := f.Spacing
	w := s * f.halfDiagonal()
	need := Float32
	w1 := w
	for k := 1; k <= min(f.Loc.Iterations, juliaScanLimit); k++ {
		az := math.Hypot(zr, zi)
		if az-w > 2 || k > 1 && w > juliaSpread {
			return need // the view has left the escape radius, or spread
		}
		if w < 0x1p-60*w1 {
			break // contracted far below its size: inside a basin (see above)
		}
		d := az - w
		s *= math.Max(2*d, s)
		w *= 2*az + w
		zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		switch r := s / math.Max(1, math.Hypot(zr, zi)+w); {
		case r < 0x1p-49 || s == 0:
			need = Perturbation
		case r < 0x1p-20:
			need = max(need, Double)
		}
	}
	return Float32 // still contracting: inside a basin (see above)
}

// juliaLast is the last juliaSquaring computed for a frame changed since NewFrame (a
// preview's sample frames move their float64 centre and spacing): the renderers ask a
// frame's precision at every pixel.
var juliaLast atomic.Pointer[juliaMemo]

type juliaMemo struct {
	key juliaKey
	p   Precision
}

// juliaSquaringOf is f.juliaSquaring(), for f's key k, from juliaLast when it is f's.
func juliaSquaringOf(f Frame, k juliaKey) Precision {
	if m := juliaLast.Load(); m != nil && m.key == k {
		return m.p
	}
	p := f.juliaSquaring()
	juliaLast.Store(&juliaMemo{k, p})
	return p
}

// juliaSpread is the radius of a Julia view's disc beyond which juliaSquaring stops
// following it (the set's features are of order 1).
const juliaSpread = 0.25

// juliaScanLimit bounds juliaSquaring's steps (about 25 ns each).
const juliaScanLimit = 10000

// spacing is the pixel spacing as an Exp: SpacingX, unless Spacing says otherwise (see
// SpacingX).
func (f Frame) spacing() Exp {
	if f.Spacing > 0 && f.SpacingX.Float64() != f.Spacing {
		return NewExp(f.Spacing)
	}
	return f.SpacingX
}

// Precision is the arithmetic this frame is rendered with.
//
// A Julia frame is a PerturbationExp frame from JuliaExpSpacing down: its deltas square where
// orbits pass near 0 (see ReferenceBits), so they leave float64's range at half the depth.
// Above that, a Julia view that holds or nears a preimage of 0 takes the precision that
// resolves its squared spacing (juliaSquaring), which may be more than its spacing asks.
func (f Frame) Precision() Precision {
	lim := expLimit(f.Loc.Formula, f.Loc.Julia.On)
	if s := f.spacing(); s.Cmp(lim) < 0 && s.Sign() > 0 {
		return PerturbationExp
	}
	p := max(ChoosePrecision(f.Spacing, f.Re, f.Im, f.Loc.Iterations), f.MinPrecision)
	if f.Loc.Julia.On && p < Perturbation {
		j := f.julia
		if k := f.key(); f.juliaKey != k {
			j = juliaSquaringOf(f, k)
		}
		p = max(p, j)
	}
	return p
}

// Offsets returns the pixel's offset from the centre in pixels, along the complex plane's
// axes: the screen offset (x + 0.5 - W/2, H/2 - y - 0.5), turned by the view's rotation
// (Location.PlaneOffset; unturned at rotation 0, when both are exact in float32 for any size
// up to 2^23).
//
// In a frame laid out as rings (Rings), it is the ring pixel's offset instead, turned alike.
func (f Frame) Offsets(x, y int) (dx, dy float64) {
	if f.Rings != nil {
		dx, dy = f.ringOffsets(x, y)
	} else {
		dx, dy = float64(x)+0.5-float64(f.W)/2, float64(f.H)/2-float64(y)-0.5
	}
	if f.Loc.Rotation != 0 { // upright: one comparison, no call
		dx, dy = f.Loc.PlaneOffset(dx, dy)
	}
	return dx, dy
}

// Point64 is pixel (x, y)'s c in float64 arithmetic, as the double-precision renderers
// compute it: centre + offset*spacing.
func (f Frame) Point64(x, y int) (re, im float64) {
	dx, dy := f.Offsets(x, y)
	return f.Re + dx*f.Spacing, f.Im + dy*f.Spacing
}

// Point32 is pixel (x, y)'s c in float32 arithmetic, as the float32 renderers compute it.
func (f Frame) Point32(x, y int) (re, im float32) {
	dx, dy := f.Offsets(x, y)
	s := float32(f.Spacing)
	return float32(f.Re) + float32(dx)*s, float32(f.Im) + float32(dy)*s
}

// PointBig is pixel (x, y)'s c computed exactly from the decimal centre, at prec bits.
func (f Frame) PointBig(x, y int, prec uint) (re, im *big.Float) {
	dx, dy := f.Offsets(x, y)
	// spacing = 4 / zoom / min(W,H), computed in big arithmetic too.
	s := f.Loc.Zoom.Big(prec)
	s.Quo(new(big.Float).SetPrec(prec).SetInt64(4), s)
	s.Quo(s, new(big.Float).SetPrec(prec).SetInt64(int64(min(f.W, f.H))))
	re = f.Loc.Re.Big(prec)
	re.Add(re, new(big.Float).SetPrec(prec).Mul(s, big.NewFloat(dx)))
	im = f.Loc.Im.Big(prec)
	im.Add(im, new(big.Float).SetPrec(prec).Mul(s, big.NewFloat(dy)))
	return re, im
}

// Escape returns the escape count of pixel (x, y) and its smooth value, computed in the
// frame's precision (float32, float64, or perturbation with BLA), exactly as the CPU renderer
// computes it; n is -1 for a point that does not escape. A Perturbation frame without a
// reference gets one from DefaultReferences (computed without a deadline if none is in reach).
// Where the reference is a minibrot's nucleus far from the view, a long count is rechecked
// (Recheck): seconds to a minute of math/big for the few pixels whose float64 orbit drifted.
// A frame on the orbit path (OrbitPath) takes the loops of orbit.go, with its escape radius.
func (f Frame) Escape(x, y int) (n int, nu float64) {
	if f.Loc.Formula.IsMandelbrot() && f.Precision().Perturbs() && f.Ref == nil {
		if g, err := f.WithReference(context.Background(), DefaultReferences, nil); err == nil {
			f = g // for the recheck too; on failure (unreachable) EscapeEstimate's says -1
		}
	}
	n, nu = f.EscapeEstimate(x, y)
	return f.Recheck(x, y, n, nu, nil)
}

// EscapeEstimate is Escape without the recheck of a far reference's long counts (Recheck):
// the loops' own count, which can be millions of iterations off at a minibrot's edge, for an
// estimate that must not take math/big's time (the window's Auto iterations sample).
func (f Frame) EscapeEstimate(x, y int) (n int, nu float64) {
	if !f.Loc.Formula.IsMandelbrot() {
		return f.formulaEscape(x, y)
	}
	if f.OrbitPath() {
		r := f.channelPixel(x, y)
		return r.N, r.Nu
	}
	p := f.Precision()
	if p.Perturbs() && f.Ref == nil {
		var err error
		if f, err = f.WithReference(context.Background(), DefaultReferences, nil); err != nil {
			return -1, 0 // unreachable: only cancellation or a location Validate rejects fails
		}
	}
	switch p {
	case PerturbationExp:
		dr, di := f.DeltaExp(x, y)
		return PerturbEscapeExp(f.Ref, f.BLAExp(), dr, di, f.Loc.Iterations, nil)
	case Perturbation:
		dr, di := f.Delta(x, y)
		return PerturbEscape(f.Ref, f.BLA(), dr, di, f.Loc.Iterations, nil)
	case Float32:
		re, im := f.Point32(x, y)
		if f.Loc.Julia.On {
			return EscapeJulia32(re, im, float32(f.JRe), float32(f.JIm), f.Loc.Iterations)
		}
		return Escape32(re, im, f.Loc.Iterations)
	}
	re, im := f.Point64(x, y)
	if f.Loc.Julia.On {
		return EscapeJulia64(re, im, f.JRe, f.JIm, f.Loc.Iterations)
	}
	return Escape64(re, im, f.Loc.Iterations)
}

// ReferenceBits is the precision the reference orbit of this frame needs (see ReferenceBits).
// A Julia frame's needs D times as many bits (twice for the Mandelbrot set's power 2; at most
// MaxReferencePrec): with no c term, an orbit that passes near 0 raises its distance from its
// neighbours' to the power D (a pixel's delta of 1e-50 becomes 1e-100 at D = 2), and the
// orbits must hold that.
func (f Frame) ReferenceBits() uint {
	b := f.referenceBits()
	if f.Loc.Julia.On {
		b = min(uint(f.Loc.Formula.Power())*b, MaxReferencePrec)
	}
	return b
}

func (f Frame) referenceBits() uint {
	if f.Precision() != PerturbationExp {
		return ReferenceBits(f.Spacing, math.Max(math.Abs(f.Re), math.Abs(f.Im)))
	}
	e := math.Log2(math.Max(1, math.Max(math.Abs(f.Re), math.Abs(f.Im)))) - f.spacing().Log2()
	return uint(math.Max(0, math.Ceil(e))) + 64
}

// WithReference returns f with its reference orbit (Ref, DRe, DIm) filled in, from cache (nil
// means DefaultReferences), computing one when none in the cache is within reach. Frames that
// are not Perturbation frames are returned unchanged. It fails only when ctx ends first or the
// location is out of range.
func (f Frame) WithReference(ctx context.Context, cache *ReferenceCache, progress func(done, total int)) (Frame, error) {
	if !f.Precision().Perturbs() {
		return f, nil
	}
	if cache == nil {
		cache = DefaultReferences
	}
	ref, err := cache.Get(ctx, f, progress)
	if err != nil {
		return f, err
	}
	f.Ref = ref
	f.DRe, f.DIm = f.offsetFrom(ref)
	if f.Precision() == PerturbationExp {
		f.DReX, f.DImX = f.offsetFromExp(ref)
	}
	return f, nil
}

// offsetFromExp is f's centre minus ref's point, exact in math/big, rounded to an Exp.
func (f Frame) offsetFromExp(ref *Reference) (dre, dim Exp) {
	prec := max(ref.prec, f.Loc.Re.SignificantBits(), f.Loc.Im.SignificantBits()) + 64
	d := new(big.Float).SetPrec(prec)
	dre = ExpFromBig(d.Sub(f.Loc.Re.Big(prec), ref.re))
	dim = ExpFromBig(d.Sub(f.Loc.Im.Big(prec), ref.im))
	return dre, dim
}

// hypotExp is sqrt(a^2 + b^2) at any exponent.
func hypotExp(a, b Exp) Exp {
	if a.Sign() == 0 {
		return b.Abs()
	}
	e := max(a.e, b.e)
	return MakeExp(math.Hypot(a.Ldexp(-e).Float64(), b.Ldexp(-e).Float64()), e)
}

// offsetFrom is f's centre minus ref's point, exact in math/big, rounded to float64.
func (f Frame) offsetFrom(ref *Reference) (dre, dim float64) {
	prec := max(ref.prec, f.Loc.Re.SignificantBits(), f.Loc.Im.SignificantBits()) + 64
	d := new(big.Float).SetPrec(prec)
	dre, _ = d.Sub(f.Loc.Re.Big(prec), ref.re).Float64()
	dim, _ = d.Sub(f.Loc.Im.Big(prec), ref.im).Float64()
	return dre, dim
}

// withinReach reports whether f's centre lies within ReferenceReach image diagonals of ref's
// anchor: its point, or the centre of the view it was made for (Reference.anchor).
func (f Frame) withinReach(ref *Reference) bool {
	ar, ai := ref.anchor()
	prec := max(ref.prec, f.Loc.Re.SignificantBits(), f.Loc.Im.SignificantBits()) + 64
	d := new(big.Float).SetPrec(prec)
	dre := ExpFromBig(d.Sub(f.Loc.Re.Big(prec), ar))
	dim := ExpFromBig(d.Sub(f.Loc.Im.Big(prec), ai))
	return hypotExp(dre, dim).Cmp(f.spacing().MulFloat(ReferenceReach*2*f.halfDiagonal())) <= 0
}

// Delta is pixel (x, y)'s perturbation delta: its c minus the reference point, in float64,
// (DRe + dx*Spacing, DIm + dy*Spacing) with (dx, dy) = Offsets(x, y).
func (f Frame) Delta(x, y int) (dcr, dci float64) {
	dx, dy := f.Offsets(x, y)
	return f.DRe + dx*f.Spacing, f.DIm + dy*f.Spacing
}

// DeltaMax bounds |Delta(x, y)| over the frame's pixels: |D| plus half the image diagonal.
// The BLA table is built for it.
func (f Frame) DeltaMax() float64 {
	return math.Hypot(f.DRe, f.DIm) + f.halfDiagonal()*f.Spacing
}

// DeltaExp is Delta with an unbounded exponent, for PerturbationExp frames:
// (DReX + dx*SpacingX, DImX + dy*SpacingX).
func (f Frame) DeltaExp(x, y int) (dcr, dci Exp) {
	dx, dy := f.Offsets(x, y)
	s := f.spacing()
	return f.DReX.Add(s.MulFloat(dx)), f.DImX.Add(s.MulFloat(dy))
}

// DeltaMaxExp is DeltaMax with an unbounded exponent.
func (f Frame) DeltaMaxExp() Exp {
	return hypotExp(f.DReX, f.DImX).Add(f.spacing().MulFloat(f.halfDiagonal()))
}

// BLAExp is the extended-exponent table of f's reference for a PerturbationExp frame (nil
// when f has no reference).
func (f Frame) BLAExp() *BLAExp {
	if f.Ref == nil {
		return nil
	}
	if f.Ref.julia.On {
		return f.Ref.BLAExp(Exp{}) // no dc term: B never enters (julia.go)
	}
	return f.Ref.BLAExpWithEpsilon(f.DeltaMaxExp(), f.blaEpsilon(f.DeltaMaxExp()))
}

// blaEpsilon is the accuracy of f's BLA table for pixels with |dc| <= dcMax:
// DefaultBLAEpsilon, made finer for a reference far outside the view (at a minibrot's nucleus:
// nucleusref.go). A block's error is a fraction eps of the delta, and a delta is about dc times
// the orbit's growth: a reference 2^k half-diagonals away makes every delta, and so every
// block's error measured in pixels, 2^k times what a reference at the centre gives. So eps is
// divided by 2^k (the ratio rounded up to a power of two), down to 2^-53, float64's own
// rounding. A reference at the view's own centre (or one within reach of it) keeps the default.
func (f Frame) blaEpsilon(dcMax Exp) float64 {
	if f.Ref == nil || f.Ref.anchorRe == nil {
		return DefaultBLAEpsilon
	}
	half := f.spacing().MulFloat(f.halfDiagonal())
	k := math.Ceil(dcMax.Log2() - half.Log2())
	if !(k > 1) {
		return DefaultBLAEpsilon
	}
	return math.Max(0x1p-53, math.Ldexp(DefaultBLAEpsilon, -int(min(k, 64))))
}

// BLA is the bilinear approximation table of f's reference for f's pixels (nil when f has no
// reference): every frame whose DeltaMax rounds up to the same power of two shares it.
func (f Frame) BLA() *BLA {
	if f.Ref == nil {
		return nil
	}
	if f.Ref.julia.On {
		return f.Ref.BLA(0) // no dc term: B never enters (julia.go)
	}
	return f.Ref.BLAWithEpsilon(f.DeltaMax(), f.blaEpsilon(NewExp(f.DeltaMax())))
}
