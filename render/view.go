package render

import (
	"image"
	"math"

	"mandelscope/fractal"
)

// View is everything the fragment shader needs to map a framebuffer pixel to c: the frame's
// centre and pixel spacing (float64, as fractal.Frame keeps them), its size, and the global
// pixel index of the framebuffer's pixel (0, 0). For the perturbation shader, the frame's
// centre minus the reference point (the pixel's delta c is that plus its offset times the
// spacing) and the reference point; the orbit and the BLA table themselves are textures.
type View struct {
	Re, Im       float64     // centre
	Spacing      float64     // distance between pixel centres
	W, H         int         // frame size in pixels
	Origin       image.Point // global pixel of the tile's top-left
	DRe, DIm     float64     // perturbation: centre minus reference point (fractal.Frame.DRe, DIm)
	RefRe, RefIm float64     // perturbation: the reference point rounded to float64
	// Extended-exponent perturbation (fractal.PerturbationExp): DRe, DIm and the spacing with
	// an unbounded exponent (fractal.Frame.DReX, DImX, PixelSpacing).
	DReX, DImX, SpacingX fractal.Exp
	// Julia, when set, draws the Julia set of c = (JuliaRe, JuliaIm) (fractal.Location.Julia,
	// rounded to float64): the pixel's point is the orbit's first value.
	Julia            bool
	JuliaRe, JuliaIm float64
	// RotCos, RotSin are the cosine and sine of the view's rotation (fractal.RotationCosSin of
	// fractal.Location.Rotation): the shaders turn each pixel's screen offset into the plane
	// with them, and the normal back (common.glsl's pixelOffset, screenNormal).
	RotCos, RotSin float64
}

// viewOf returns the view of frame f for a tile whose top-left is origin.
func viewOf(f fractal.Frame, origin image.Point) View {
	v := View{Re: f.Re, Im: f.Im, Spacing: f.Spacing, W: f.W, H: f.H, Origin: origin, DRe: f.DRe, DIm: f.DIm,
		DReX: f.DReX, DImX: f.DImX, SpacingX: f.PixelSpacing()}
	if f.Ref != nil {
		v.RefRe, v.RefIm = f.Ref.Point64()
	}
	if f.Loc.IsJulia() {
		v.Julia, v.JuliaRe, v.JuliaIm = true, f.JRe, f.JIm
	}
	v.RotCos, v.RotSin = fractal.RotationCosSin(f.Loc.Rotation)
	return v
}

// splitFF returns hi + lo = v to about 48 bits, hi = float32(v): the float-float form.
func splitFF(v float64) (hi, lo float32) {
	hi = float32(v)
	if math.IsInf(float64(hi), 0) {
		return hi, 0
	}
	lo = float32(v - float64(hi))
	return hi, lo
}
