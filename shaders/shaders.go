// Package shaders holds Mandelscope's GLSL sources as real .vert, .frag and .glsl files,
// embedded with go:embed. The files carry no #version line: package render prepends a header
// with the version and the defines that select a variant, then gives the fragment shaders
// common.glsl and the variant's files as source strings of their own, each after a #line
// directive, so that compiler messages name the file and its own lines. The vertex shader's
// header is the version alone; a fragment shader's header (render's shaderHeader, with the
// defines of its linkProgram and lazyProgram) can define:
//
//   - PREC_F32, PREC_F64 or PREC_EMULATED: the arithmetic of mandel.frag's variant (F32,
//     F64, Emulated); the perturbation programs have PREC_F64 (Perturb names their variant
//     but is not defined);
//   - MAX_STOPS n: the size of the palette uniform array, in every fragment shader;
//   - PAGES n (1 to 4): the perturbation programs' texture buffers per table;
//   - EXPONENT: a perturbation program with PerturbExpFrag after PerturbFrag;
//   - STAGE_ITERATE or STAGE_COLOUR: one stage of a multi-pass render, iterating a slice of
//     every orbit with its state in textures (mandel.frag and the perturbation programs) or
//     colouring that state (mandel.frag); STAGE_SAMPLE: mandel.frag's single pass writing
//     the pixel's sample (smooth value, distance estimate, normal) instead of its colour, the
//     compute stage alone; none of them for a single-pass program;
//   - SHADE: the colourings other than the default (a method or transfer function);
//   - DERIV: the colourings that read the derivative dz/dc (distance, slopes);
//   - JULIA: the Julia set of the view's parameter (common.glsl);
//   - ORBIT: the orbit path (fractal/orbit.go; common.glsl's ORBIT block): mandel.frag's in
//     each precision and stage, and perturb.frag's, of the Mandelbrot set or a Julia set: the
//     escape radius (uBail2), the channels T and STRIPE (a second STAGE_SAMPLE target, a
//     fifth multi-pass state texture; perturb.frag's passes a sixth, with EXPONENT a
//     seventh), the angle and stripe colourings (common.glsl's shadeOrbit); a formula is a
//     compile error;
//   - FORMULA_MANDELBROT, FORMULA_BURNING_SHIP or FORMULA_MANDELBAR, with POWER d (2 to 8):
//     the programs (mandel.frag's and perturb.frag's) for a formula other than the Mandelbrot
//     set's z^2 + c, which iterate z <- f(z)^d + c (common.glsl's formulaStep, perturb.frag's
//     formulaDelta; render's formulaDefines names them); a POWER with no kind common.glsl
//     knows is a compile error;
//   - precise, as nothing, below GLSL 4.00 where GL_ARB_gpu_shader5 (which the header
//     enables there) is missing; below 4.00 PREC_F64 also requires GL_ARB_gpu_shader_fp64.
//
// This package knows nothing of OpenGL; render compiles every variant in its tests.
package shaders

import _ "embed"

// FullscreenVert is the vertex shader: one triangle covering the viewport, from gl_VertexID.
//
//go:embed fullscreen.vert
var FullscreenVert string

// Common is the code every fragment shader shares (the pixel's index, colouring, smooth
// value, multi-pass state): render gives it to GL before MandelFrag or PerturbFrag.
//
//go:embed common.glsl
var Common string

// PerturbFrag is the perturbation fragment shader: every pixel iterates its difference from
// one reference orbit, with rebasing and bilinear approximation, in native double, reading the
// orbit and the BLA table from texture buffers.
//
//go:embed perturb.frag
var PerturbFrag string

// PerturbExpFrag is the extended-exponent perturbation (past float64's exponent range): it
// comes after PerturbFrag in the programs compiled with the define Exponent, whose tables and
// lookups it shares, and carries every delta and BLA coefficient with an integer exponent
// beside a double mantissa.
//
//go:embed perturbexp.frag
var PerturbExpFrag string

// MandelFrag is the fragment shader: the escape-time colouring of the rendering contract,
// computed from each pixel's global index, in the variant the header's defines select.
//
//go:embed mandel.frag
var MandelFrag string

// ColourFrag is the prelude of a colouring shader in Kalles Fraktaler's form: the accessors
// of a pixel's raw data and its neighbours', and main(), which calls the user's
// `vec3 colour()` (render's colour shaders).
//
//go:embed colour.frag
var ColourFrag string

// Variant names one build of MandelFrag.
type Variant string

// The variants of MandelFrag, by the define each one sets.
const (
	F32      Variant = "PREC_F32"      // float arithmetic (fractal.Frame.Point32)
	F64      Variant = "PREC_F64"      // native double (GL 4.0 or GL_ARB_gpu_shader_fp64)
	Emulated Variant = "PREC_EMULATED" // double emulated with float-float pairs
)

// Perturb is the perturbation shader (PerturbFrag), built on PREC_F64: it needs native fp64.
const Perturb Variant = "PERTURB"

// Exponent is the define that builds the perturbation programs with PerturbExpFrag.
const Exponent = "EXPONENT"

// Variants lists every variant of MandelFrag, for tests that compile them all.
var Variants = []Variant{F32, F64, Emulated}
