package cpu

import "mandelscope/fractal"

// Identity names what decides the CPU renderer's pixels for frame f: the renderer and the
// frame's precision, not the thread count (which changes no pixel). An export's checkpoint
// records it, so that a resume by another renderer is refused.
func (r *Renderer) Identity(f fractal.Frame) string {
	return "CPU (pure Go), " + f.Precision().String()
}
