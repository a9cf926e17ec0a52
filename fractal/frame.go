package fractal

import (
	"math"
	"math/big"
)

// Spacing is the distance between pixel centres for a zoom and image size: the shorter side
// spans 4/zoom.
func Spacing(zoom float64, w, h int) float64 {
	return 4 / zoom / float64(min(w, h))
}

// Precision is the arithmetic a frame needs so that it never turns blocky.
type Precision int

const (
	// Float32 is enough while the pixel spacing is far above float32's resolution.
	Float32 Precision = iota
	// Double is float64 arithmetic (native fp64 on the GPU, or emulated with float pairs).
	Double
	// DoubleExhausted means the pixel spacing is below what float64 resolves: the image is
	// blocky until perturbation (a later feature) takes over.
	DoubleExhausted
)

func (p Precision) String() string {
	switch p {
	case Float32:
		return "float32"
	case Double:
		return "double"
	default:
		return "double (limit reached)"
	}
}

// ChoosePrecision picks the precision for a pixel spacing at a centre. With mag the larger of
// 1 and the centre's coordinates: float32 while the spacing is at least 2^-16 of mag (float32's
// 24-bit mantissa then keeps 7 bits below a pixel, a margin for the rounding the iteration
// amplifies), double while it is at least 2^-52 of mag (at least one float64 step per pixel:
// not blocky, which holds down to zoom 1e13 at 1280x720), and beyond that double is exhausted.
func ChoosePrecision(spacing, re, im float64) Precision {
	mag := math.Max(1, math.Max(math.Abs(re), math.Abs(im)))
	switch r := spacing / mag; {
	case r >= 0x1p-16:
		return Float32
	case r >= 0x1p-52:
		return Double
	default:
		return DoubleExhausted
	}
}

// Frame is a location rendered at a pixel size W x H. It carries the float64 values that
// renderers need, computed once.
type Frame struct {
	Loc     Location
	W, H    int
	Re, Im  float64 // the centre, rounded to float64
	Spacing float64 // distance between pixel centres
}

// NewFrame returns the frame of l at w x h pixels.
func NewFrame(l Location, w, h int) Frame {
	return Frame{
		Loc: l, W: w, H: h,
		Re: l.Re.Float64(), Im: l.Im.Float64(),
		Spacing: Spacing(l.ZoomFloat(), w, h),
	}
}

// Precision is the arithmetic this frame is rendered with.
func (f Frame) Precision() Precision { return ChoosePrecision(f.Spacing, f.Re, f.Im) }

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
// frame's precision (float32 or float64), exactly as the CPU renderer computes it; n is -1
// for a point that does not escape.
func (f Frame) Escape(x, y int) (n int, nu float64) {
	if f.Precision() == Float32 {
		re, im := f.Point32(x, y)
		return Escape32(re, im, f.Loc.Iterations)
	}
	re, im := f.Point64(x, y)
	return Escape64(re, im, f.Loc.Iterations)
}
