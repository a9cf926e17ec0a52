// Package shaders holds Mandelscope's GLSL sources as real .vert, .frag and .glsl files,
// embedded with go:embed. The files carry no #version line: package render prepends a header
// with the version and the defines that select a variant (PREC_F32, PREC_F64 or
// PREC_EMULATED, MAX_STOPS, and for the perturbation shader PAGES and EXPONENT), then gives the fragment
// shaders common.glsl and the variant's file as source strings of their own, each after a
// #line directive, so that compiler messages name the file and its own lines. This package
// knows nothing of OpenGL; render compiles every variant in its tests.
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
