package fractal

import (
	"context"
	"math"
	"math/big"
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

// ChoosePrecision picks the precision for a pixel spacing at a centre. With mag the larger of
// 1 and the centre's coordinates: float32 while the spacing is at least 2^-16 of mag (float32's
// 24-bit mantissa then keeps 7 bits below a pixel, a margin for the rounding the iteration
// amplifies), double while it is at least 2^-52 of mag (at least one float64 step per pixel:
// not blocky, which holds down to zoom 1e13 at 1280x720), and beyond that perturbation.
func ChoosePrecision(spacing, re, im float64) Precision {
	mag := math.Max(1, math.Max(math.Abs(re), math.Abs(im)))
	switch r := spacing / mag; {
	case r >= 0x1p-16:
		return Float32
	case r >= 0x1p-52:
		return Double
	default:
		return Perturbation
	}
}

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

	// Derivative asks the renderers' compute stage for the derivative dz/dc (the distance
	// estimate and the normal) whatever the colouring: the window keeps it, so that a change
	// to a colouring that reads it recolours without computing again.
	Derivative bool
}

// NeedsDerivative reports whether the frame's pixels carry the derivative: asked for
// (Derivative), or read by the colouring.
func (f Frame) NeedsDerivative() bool { return f.Derivative || f.Loc.Color.NeedsDerivative() }

// NewFrame returns the frame of l at w x h pixels.
func NewFrame(l Location, w, h int) Frame {
	f := Frame{
		Loc: l, W: w, H: h,
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
	return f
}

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
func (f Frame) Precision() Precision {
	lim := expLimit(f.Loc.Formula, f.Loc.Julia.On)
	if s := f.spacing(); s.Cmp(lim) < 0 && s.Sign() > 0 {
		return PerturbationExp
	}
	return max(ChoosePrecision(f.Spacing, f.Re, f.Im), f.MinPrecision)
}

// Offsets returns the pixel's offset from the centre in pixels: (x + 0.5 - W/2, H/2 - y - 0.5).
// Both are exact in float32 for any size up to 2^23.
func (f Frame) Offsets(x, y int) (dx, dy float64) {
	return float64(x) + 0.5 - float64(f.W)/2, float64(f.H)/2 - float64(y) - 0.5
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
func (f Frame) Escape(x, y int) (n int, nu float64) {
	if !f.Loc.Formula.IsMandelbrot() {
		return f.formulaEscape(x, y)
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
	return hypotExp(dre, dim).Cmp(f.spacing().MulFloat(ReferenceReach*math.Hypot(float64(f.W), float64(f.H)))) <= 0
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
	return math.Hypot(f.DRe, f.DIm) + 0.5*math.Hypot(float64(f.W), float64(f.H))*f.Spacing
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
	return hypotExp(f.DReX, f.DImX).Add(f.spacing().MulFloat(0.5 * math.Hypot(float64(f.W), float64(f.H))))
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
	half := f.spacing().MulFloat(0.5 * math.Hypot(float64(f.W), float64(f.H)))
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
