package fractal

import "context"

// Pixel is Escape with what the frame's colouring needs: for the methods that read the
// derivative (Frame.NeedsDerivative), the escape count, smooth value, distance estimate
// and normal from EscapeDE32, EscapeDE64 or PerturbEscapeDE in the frame's precision, exactly
// as the CPU renderer computes them (for a formula other than the Mandelbrot set's, from its
// Jacobian: formulaPixelDE); otherwise Escape's n and nu.
//
// A frame on the orbit path (OrbitPath: another escape radius, or the channels asked for)
// takes the loops of orbit.go (PixelChannels gives their T and STRIPE too).
//
// The normal is the screen's (ScreenNormal): in a rotated view, turned back from the plane.
func (f Frame) Pixel(x, y int) Result { return f.ScreenNormal(f.planePixel(x, y)) }

// ScreenNormal is r with its normal (Ur, Ui), computed in the complex plane, turned into the
// screen's axes by the view's rotation (Location.ScreenOffset), so that the slopes colouring's
// light, which is in screen space, shades a rotated view as the rotated unrotated picture.
// Every renderer's samples pass through it; at rotation 0 it is r.
func (f Frame) ScreenNormal(r Result) Result {
	if f.Loc.Rotation != 0 {
		r.Ur, r.Ui = f.Loc.ScreenOffset(r.Ur, r.Ui)
	}
	return r
}

// planePixel is Pixel with the normal in the complex plane's axes.
func (f Frame) planePixel(x, y int) Result {
	if f.OrbitPath() {
		return f.channelPixel(x, y).Result
	}
	if !f.NeedsDerivative() {
		n, nu := f.Escape(x, y)
		return Result{N: n, Nu: nu}
	}
	if !f.Loc.Formula.IsMandelbrot() {
		return f.formulaPixelDE(x, y)
	}
	p := f.Precision()
	if p.Perturbs() && f.Ref == nil {
		var err error
		if f, err = f.WithReference(context.Background(), DefaultReferences, nil); err != nil {
			return Result{N: -1}
		}
	}
	switch p {
	case PerturbationExp:
		dr, di := f.DeltaExp(x, y)
		return PerturbEscapeDEExp(f.Ref, f.BLAExp(), dr, di, f.Loc.Iterations, f.spacing(), nil)
	case Perturbation:
		dr, di := f.Delta(x, y)
		return f.RecheckResult(x, y, PerturbEscapeDE(f.Ref, f.BLA(), dr, di, f.Loc.Iterations, f.Spacing, nil), nil)
	case Float32:
		re, im := f.Point32(x, y)
		if f.Loc.Julia.On {
			return EscapeJuliaDE32(re, im, float32(f.JRe), float32(f.JIm), f.Loc.Iterations, float32(f.Spacing))
		}
		return EscapeDE32(re, im, f.Loc.Iterations, float32(f.Spacing))
	}
	re, im := f.Point64(x, y)
	if f.Loc.Julia.On {
		return EscapeJuliaDE64(re, im, f.JRe, f.JIm, f.Loc.Iterations, f.Spacing)
	}
	return EscapeDE64(re, im, f.Loc.Iterations, f.Spacing)
}
