package render

import (
	"math"

	"github.com/go-gl/gl/v3.3-core/gl"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/shaders"
)

// The orbit path (fractal/orbit.go: an escape radius other than 2, or the orbit channels T and
// STRIPE) on the GPU: mandel.frag compiled with orbitDefine draws and computes such frames of
// the Mandelbrot set and its Julia sets in float, double and the emulated double, and
// perturb.frag (and perturbexp.frag) compiled with it those drawn by perturbation, in one
// pass or in passes. In passes, fifth to seventh state textures carry a checkpoint, the state
// K iterations (perturbation: K steps) before each pass's end, from which the pass where an
// orbit escapes runs again to record its last K iterates, which cannot be carried from pass
// to pass (up to 64 complex values a pixel, against the state textures' 16 words). No
// orbit-path frame goes to the CPU renderer for its orbit: the float variants' smooth value
// and estimate hold |z| up to R^2 (common.glsl's smoothValueF, absF).

// orbitDefine is the define of mandel.frag's orbit-path programs.
const orbitDefine = "ORBIT"

// setOrbit loads the orbit path's uniforms of location l (the program must be in use and
// compiled with orbitDefine): the squared radius in the escape test's type, K and S.
func (p *program) setOrbit(l fractal.Location) {
	r := l.BailoutRadius()
	b2 := r * r
	if p.variant == shaders.F64 || p.variant == shaders.Perturb {
		gl.Uniform2ui(p.loc["uBail2"], lo(b2), hi(b2))
	} else {
		gl.Uniform1f(p.loc["uBail2"], float32(b2))
	}
	gl.Uniform1i(p.loc["uStripeK"], int32(l.StripeK()))
	gl.Uniform1f(p.loc["uStripeS"], float32(l.StripeS()))
}

// channelSamples adds the orbit channels to one row of samples: texels is that row of the
// orbit programs' second sample target, (T, STRIPE, 0, 0) as float bits (0 inside).
func channelSamples(dst []colour.Sample, texels []uint32) {
	for x := range dst {
		dst[x].T = math.Float32frombits(texels[4*x])
		dst[x].Stripe = math.Float32frombits(texels[4*x+1])
	}
}
