// Package fractal is Mandelscope's pure-Go model of the Mandelbrot set: a Location (an exact
// decimal centre, a zoom, iterations and colouring), a Frame (a location at a pixel size, with
// the pixel mapping of the rendering contract), the escape-count iteration in float32, float64
// and math/big, deep zoom by perturbation and the precision rule. Every other package
// (renderers, export, bookmarks, the window) builds on it; it imports neither Fyne nor OpenGL.
// How samples become colours (palettes, gradients, the colourings) is package colour's.
//
// The rendering contract: pixel (x, y) of a W x H image, y = 0 the top row, samples
//
//	c = centre + ((x + 0.5 - W/2) + i (H/2 - y - 0.5)) * (4/zoom) / min(W, H)
//
// and its escape count is the least n >= 1 with |z(n)| > 2 for z(0) = 0, z(k+1) = z(k)^2 + c;
// points that do not escape within the maximum are inside and drawn black.
//
// A Location's colouring is a colour.Coloring: the palette at the smooth escape count, shaded
// by a method: smooth (none), distance (the exterior distance estimate from dz/dc) or slopes
// (lighting from the normal dz/dc gives). This package computes what those need (Result):
// the smooth count and, where the colouring needs it (Frame.NeedsDerivative), the
// derivative, carried scaled by the pixel spacing, so that it neither overflows nor needs
// dividing at depth (EscapeDE32, EscapeDE64, PerturbEscapeDE; Frame.Pixel), and through BLA
// jumps by the same table.
//
// Deep zoom: past float64's reach (Precision Perturbation, from about zoom 1e13 at 1280x720
// to MaxZoom), a frame carries one Reference, the orbit of a reference point computed in
// big.Int fixed point and stored in float64, and every pixel iterates its float64 difference
// from it (PerturbEscape), rebasing to the start of the orbit when its own orbit comes closer
// to 0 than to the reference's (or, for an orbit that has settled on a cycle, going on one
// period back from its end: Reference.Period), and skipping iterations with a bilinear
// approximation table (BLA) whose layout is documented for the GLSL renderer.
// Frame.WithReference fills a frame's reference from a ReferenceCache, which reuses an orbit
// while the view stays within reach. Past float64's exponent range (Precision
// PerturbationExp, pixel spacings under ExpSpacing, about zoom 1e300) the deltas, the BLA
// coefficients (BLAExp) and the derivative carry an integer exponent beside a float64
// mantissa (Exp; PerturbEscapeExp, PerturbEscapeDEExp), and the reference keeps exactly the
// values float64 cannot hold near a nucleus.
//
// Built with GOEXPERIMENT=simd on amd64, PerturbEscapeBatch and PerturbEscapeDEBatch run
// several neighbouring pixels a vector register (AVX-512 or AVX2 as the CPU has;
// MANDELSCOPE_SIMD=avx2 or scalar narrows the choice), bit for bit PerturbEscape's and
// PerturbEscapeDE's results. Those loops (perturb_vector*.go) are written from one template
// by internal/vecgen: `go generate ./fractal/...` after a change to it.
package fractal
