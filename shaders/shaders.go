// Package shaders holds Mandelscope's GLSL sources as real .vert and .frag files, embedded
// with go:embed. The files carry no #version line: package render prepends a header with the
// version and the defines that select a variant (PREC_F32, PREC_F64 or PREC_EMULATED, and
// MAX_STOPS), then a #line directive so that compiler messages name the file's own lines.
// This package knows nothing of OpenGL; render compiles every variant in its tests.
package shaders

import _ "embed"

// FullscreenVert is the vertex shader: one triangle covering the viewport, from gl_VertexID.
//
//go:embed fullscreen.vert
var FullscreenVert string

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

// Variants lists every variant, for tests that compile them all.
var Variants = []Variant{F32, F64, Emulated}
