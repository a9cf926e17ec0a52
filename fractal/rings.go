package fractal

import "math"

// Rings lays a frame's pixels out as an exponential map (Kalles Fraktaler's and Fraktaler-3's
// "exponential map" transform, which zoomasm reads): row y is a ring of constant radius about
// the centre and column x an angle, pixel (x, y) lying at radius Outer x 2^(-(y+0.5)/H) and
// angle 2 pi (x+0.5)/W (counter-clockwise from the positive real axis), in the frame's
// Spacing units. So the H rows span one halving of the radius, from Outer at the top edge
// of row 0 to Outer/2 at the bottom edge of the last row, and a frame W = 2 pi H / ln 2
// wide has square pixels. The per-pixel functions (Offsets, and through it Point64,
// Point32, PointBig, Delta, DeltaExp, Pixel and Escape) follow it, so every renderer that
// computes its pixels through them computes rings.
type Rings struct {
	// Outer is the radius of row 0's top edge, in units of the frame's Spacing (greater
	// than 0).
	Outer float64
}

// NewRingFrame returns the frame of l laid out as rings (see Rings): w angles by h rings
// (one halving of the radius), the outermost at outer times the spacing of a w x h frame of
// l (Spacing(zoom, w, h), what NewFrame gives, so that the spacing's depth decides the
// precision as for a flat frame).
func NewRingFrame(l Location, w, h int, outer float64) Frame {
	f := newFrame(l, w, h, &Rings{Outer: outer})
	return f
}

// ringOffsets is pixel (x, y)'s offset from the centre, in Spacing units, in f's rings.
func (f Frame) ringOffsets(x, y int) (dx, dy float64) {
	r := f.Rings.Outer * math.Exp2(-(float64(y)+0.5)/float64(f.H))
	s, c := math.Sincos(2 * math.Pi * (float64(x) + 0.5) / float64(f.W))
	return r * c, r * s
}

// halfDiagonal bounds the distance of f's pixels from its centre, in Spacing units: half
// the image diagonal, or the outer ring's radius.
func (f Frame) halfDiagonal() float64 {
	if f.Rings != nil {
		return f.Rings.Outer
	}
	return 0.5 * math.Hypot(float64(f.W), float64(f.H))
}
