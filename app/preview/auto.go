package preview

import (
	"context"

	"mandelscope/fractal"
)

// The grid of pixels a worker samples escape counts on after a full frame.
const (
	sampleCols = 32
	sampleRows = 20
)

// EscapeSample is what a sample of a frame's pixels says about its iteration count: how many
// pixels were sampled, how many reached the maximum without escaping, and how many escaped
// late (in the last fifth of the iterations).
type EscapeSample struct {
	Iterations int // the maximum iteration count
	Pixels     int // pixels sampled
	Inside     int // of them, reached Iterations without escaping
	Late       int // of them, escaped after 0.8 * Iterations
	MaxEscape  int // the largest escape count among those that escaped (0 when none)
	// Counts are the sampled pixels' escape counts (-1: inside), from which With gives the
	// sample for any lower maximum; nil in a summary made by hand.
	Counts []int
}

// With returns the sample as the same pixels would give it with maxIter iterations at most
// (maxIter <= s.Iterations; a pixel's escape count does not depend on the maximum once it
// escapes within it).
func (s EscapeSample) With(maxIter int) EscapeSample {
	out := EscapeSample{Iterations: maxIter}
	for _, n := range s.Counts {
		if n > maxIter {
			n = -1
		}
		out.add(n)
	}
	return out
}

// SampleEscapes computes the escape counts of cols x rows pixels spread evenly over frame f
// (the centres of a cols x rows grid of cells), in f's precision through fractal.Frame.Escape:
// what the renderers draw, for the GL renderer too. A Perturbation frame should carry its
// reference (Scheduler.Reference). It checks ctx between rows of the grid.
func SampleEscapes(ctx context.Context, f fractal.Frame, cols, rows int) (EscapeSample, error) {
	es := EscapeSample{Iterations: f.Loc.Iterations}
	cols, rows = min(max(cols, 1), f.W), min(max(rows, 1), f.H)
	es.Counts = make([]int, 0, cols*rows)
	for j := range rows {
		if err := ctx.Err(); err != nil {
			return es, err
		}
		y := (2*j + 1) * f.H / (2 * rows)
		for i := range cols {
			x := (2*i + 1) * f.W / (2 * cols)
			n, _ := f.Escape(x, y)
			es.add(n)
			es.Counts = append(es.Counts, n)
		}
	}
	return es, nil
}

// add counts one pixel whose escape count is n (-1: did not escape).
func (es *EscapeSample) add(n int) {
	es.Pixels++
	switch {
	case n < 0:
		es.Inside++
	default:
		es.MaxEscape = max(es.MaxEscape, n)
		if 5*n > 4*es.Iterations {
			es.Late++
		}
	}
}

// MaxAutoBoost bounds how far AutoBoost raises the automatic iterations: a view that stays
// all inside the set (the interior of a bulb) stops at this multiple. It is large because
// deep views centred on a minibrot need more than its period: at zoom 1e45 on one of period
// 136119 the automatic 19100 iterations draw only black, and 32 times that shows it.
const MaxAutoBoost = 64

// AutoBoost is the rule by which automatic iterations adapt to the picture: given the boost
// now in use (a power of two: the iterations are fractal.AutoIterations times it) and the
// escape counts sampled from the frame drawn with it, it returns the boost to draw with
// next. The iterations are too low when pixels that reach the maximum sit next to pixels
// that escape late, in the last fifth of the count (the boundary's detail is cut off and
// shows as false black): at least 2% of the escaping samples (and two pixels), or any when
// most samples are inside; or when no sampled pixel escapes at all (a deep view near the
// boundary whose pixels all need more than the automatic count). Then the boost doubles, up
// to MaxAutoBoost. Otherwise it stays: it never falls by itself (a view that needed more
// keeps it while the user explores near it; going home resets it).
func AutoBoost(boost int, s EscapeSample) int {
	boost = max(boost, 1)
	if s.Pixels == 0 || s.Inside == 0 || boost >= MaxAutoBoost {
		return boost
	}
	escaped := s.Pixels - s.Inside
	allInside := escaped == 0
	late := s.Late >= max(2, escaped/50)
	mostlyInside := 2*s.Inside >= s.Pixels && s.Late > 0
	if allInside || late || mostlyInside {
		return min(2*boost, MaxAutoBoost)
	}
	return boost
}

// SampleAhead is how far past the iterations in use a worker samples escape counts (see
// Worker.SetSampling): one sample then serves AdaptBoost for three doublings.
const SampleAhead = 8

// AdaptBoost applies AutoBoost from boost as long as sample s covers the iterations it leads
// to: the automatic count is base*boost, and s, taken with up to s.Iterations iterations,
// answers for every count up to that (With). It returns the boost to draw with, which is
// where the window, drawing each full frame and sampling it, would settle, as far as s
// reaches.
func AdaptBoost(base, boost int, s EscapeSample) int {
	boost = max(boost, 1)
	for {
		it := min(base*boost, fractal.MaxIterations)
		var at EscapeSample
		switch {
		case it == s.Iterations:
			at = s
		case it < s.Iterations && s.Counts != nil:
			at = s.With(it)
		default:
			return boost
		}
		nb := AutoBoost(boost, at)
		if nb == boost {
			return boost
		}
		boost = nb
	}
}
