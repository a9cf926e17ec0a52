// Package fractal is Mandelscope's pure-Go model of the Mandelbrot set: a Location (an exact
// decimal centre, a zoom, iterations and colouring), a Frame (a location at a pixel size, with
// the pixel mapping of the rendering contract), the escape-count iteration in float32, float64
// and math/big, the precision rule, and palettes. Every other package (renderers, export,
// bookmarks, the window) builds on it; it imports neither Fyne nor OpenGL.
//
// The rendering contract: pixel (x, y) of a W x H image, y = 0 the top row, samples
//
//	c = centre + ((x + 0.5 - W/2) + i (H/2 - y - 0.5)) * (4/zoom) / min(W, H)
//
// and its escape count is the least n >= 1 with |z(n)| > 2 for z(0) = 0, z(k+1) = z(k)^2 + c;
// points that do not escape within the maximum are inside and drawn black.
package fractal
