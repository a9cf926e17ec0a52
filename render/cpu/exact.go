package cpu

import "mandelscope/fractal"

// ComputesExactly reports that Compute's sample of every pixel is a pure function of the
// pixel's coordinates as f computes them (Point32, Point64, or Delta with f's reference and
// its BLA table; the extended-exponent deltas for PerturbationExp), f's iterations, spacing
// and NeedsDerivative: the same bits wherever the pixel sits in the frame or the rectangle
// computed (every pixel is computed on its own, from its global index), so that a frame may
// take the samples of pixels with the same inputs from data computed before
// (preview.ExactComputer). A Perturbation frame without a reference gets one per call: only
// its frame with the reference set says which.
func (r *Renderer) ComputesExactly(f fractal.Frame) bool { return true }
