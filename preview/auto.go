package preview

import (
	"context"
	"runtime"
	"slices"
	"sync"

	"mandelscope/fractal"
)

// The grid of pixels a worker samples escape counts on before a full frame (5400): enough that
// the count a hundredth of the escaping ones exceed (AutoBoost) is read from some 25 to 50 of
// them, not from the largest one or two (with 640 it varied by 2x between window sizes).
const (
	sampleCols = 90
	sampleRows = 60
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
	// Period is the period of the cycle the frame's reference orbit settled onto within the
	// iterations (fractal.Reference.Period), 0 when it did not or the frame has none: with
	// no sample escaping, a short one says the view is inside that cycle's component.
	Period int
	// Counts are the sampled pixels' escape counts (-1: inside), from which With gives the
	// sample for any lower maximum and AutoBoost the count the picture needs; nil in a
	// summary made by hand.
	Counts []int
}

// With returns the sample as the same pixels would give it with maxIter iterations at most
// (maxIter <= s.Iterations; a pixel's escape count does not depend on the maximum once it
// escapes within it).
func (s EscapeSample) With(maxIter int) EscapeSample {
	out := EscapeSample{Iterations: maxIter, Counts: make([]int, 0, len(s.Counts))}
	out.Period = s.Period
	for _, n := range s.Counts {
		if n > maxIter {
			n = -1
		}
		out.add(n)
		out.Counts = append(out.Counts, n)
	}
	return out
}

// SampleEscapes computes the escape counts of cols x rows pixels spread evenly over frame f
// (the centres of a cols x rows grid of cells), in f's precision through
// fractal.Frame.EscapeEstimate: what the renderers draw, for the GL renderer too, before the
// recheck of a far reference's long counts (fractal.Frame.Recheck), whose math/big can take
// seconds a pixel. A Perturbation frame should carry its
// reference (Scheduler.Reference). The rows are shared among the CPUs; each checks ctx
// between rows.
func SampleEscapes(ctx context.Context, f fractal.Frame, cols, rows int) (EscapeSample, error) {
	es := EscapeSample{Iterations: f.Loc.Iterations}
	cols, rows = min(max(cols, 1), f.W), min(max(rows, 1), f.H)
	counts := make([]int, cols*rows)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		next int
	)
	for range min(runtime.GOMAXPROCS(0), rows) {
		wg.Go(func() {
			for ctx.Err() == nil {
				mu.Lock()
				j := next
				next++
				mu.Unlock()
				if j >= rows {
					return
				}
				y := (2*j + 1) * f.H / (2 * rows)
				for i := range cols {
					counts[j*cols+i], _ = f.EscapeEstimate((2*i+1)*f.W/(2*cols), y)
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return es, err
	}
	for _, n := range counts {
		es.add(n)
	}
	es.Counts = counts
	if f.Ref != nil && !f.Ref.Escaped() {
		es.Period = f.Ref.Period()
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

// The count the picture needs, as AutoBoost reads it from the sampled escape counts: the
// count that fewer than autoTail of the escaping samples exceed, times autoMargin. Escape
// counts near the set's boundary have a long tail (near a bulb's edge the share of pixels
// escaping after n iterations falls as 1/n), so that every doubling of the iterations halves
// the pixels drawn black that would escape; 1 in 100 times 1.5 leaves about 1 in 150 of the
// escaping pixels black, a rim a pixel wide along the interior: at zoom 87 in seahorse valley
// that is 2,768 iterations (0.45% of the escaping pixels black), where 1 in 1000 would be
// about 11,000 (TestAutoBoostLargeInterior).
const (
	autoTail   = 100 // 1 in autoTail
	autoMargin = 1.25
)

// interiorPeriods is how many times its period a reference orbit's cycle must fit in a
// sample's iterations for a sample where no pixel escapes to be taken as the interior of
// the cycle's component (AutoBoost): a pixel outside a component, near it, follows the
// cycle a few times before it escapes (a deep minibrot of period 136119, its pixels needing
// some 600,000 iterations, is not taken for interior), where one inside follows it for ever.
const interiorPeriods = 64

// AutoBoost is the rule by which automatic iterations adapt to the picture: given the zoom's
// automatic count base (fractal.AutoIterations) and escape counts sampled from the frame with
// s.Iterations iterations, it returns the boost (a power of two up to MaxAutoBoost: the
// iterations are base times it) that the picture needs, no more: the least whose count
// reaches autoMargin times the count that fewer than 1 in autoTail of the escaping samples
// exceed. Samples that reach s.Iterations count as interior, except when all do (a deep view
// near a minibrot whose pixels all need more than the count): then the boost is the least
// whose count exceeds s.Iterations, for a sample further on to tell, unless the reference
// orbit settled onto a cycle that fits interiorPeriods times in the sample's iterations
// (s.Period): the view is then inside that cycle's component, no count shows more, and the
// boost is 1. A view that frames a minibrot (framedMinibrot) needs at least the count that
// shows it whole, fractal.MinibrotIterations, past MaxAutoBoost if need be. A sample of no
// pixel asks for no boost.
func AutoBoost(base int, s EscapeSample) int {
	base = max(base, 1)
	if s.Pixels == 0 {
		return 1
	}
	if s.Inside == s.Pixels && s.Period > 0 && interiorPeriods*s.Period <= s.Iterations {
		return 1 // interior: nothing escapes at any count
	}
	need := s.Iterations + 1 // all inside: more than the sample shows
	if escaped := s.Pixels - s.Inside; escaped > 0 {
		q := s.MaxEscape // a summary made by hand has no counts: its largest
		if len(s.Counts) == s.Pixels {
			esc := make([]int, 0, escaped)
			for _, n := range s.Counts {
				if n >= 0 {
					esc = append(esc, n)
				}
			}
			slices.Sort(esc)
			q = esc[len(esc)-1-len(esc)/autoTail]
		}
		need = int(autoMargin*float64(q) + 0.5)
	}
	top := MaxAutoBoost
	if m := framedMinibrot(s); m > need {
		// A minibrot in view: its copy of the set's edge needs MinibrotIterations, and the
		// pixels there that have not escaped yet count as inside above, so the escape counts
		// alone stop short of it (a period-5588 minibrot framed at zoom 8.89e25: 114,288
		// where find suggests 558,800).
		need = m
		top = max(top, fractal.MaxIterations/base)
	}
	boost := 1
	for boost < top && base*boost < need {
		boost *= 2
	}
	return boost
}

// minibrotShare is the least share of a sample's pixels inside the set (1 in minibrotShare)
// for the reference's cycle to count as a minibrot in view (framedMinibrot): a speck of a few
// pixels is not shown whole by any count worth its cost.
const minibrotShare = 100

// framedMinibrot is the count that shows whole a minibrot the sample s frames, 0 for none: a
// reference orbit that settled onto a cycle of period P (s.Period) and, of the sample's
// pixels, at least one in minibrotShare inside and some escaping: MinibrotIterations(P).
func framedMinibrot(s EscapeSample) int {
	if s.Period <= 0 || s.Inside == s.Pixels || s.Inside*minibrotShare < s.Pixels {
		return 0
	}
	return fractal.MinibrotIterations(s.Period)
}

// SampleAhead is how far past the iterations in use a worker samples escape counts (see
// Worker.SetSampling): one sample then serves AdaptBoost for three doublings.
const SampleAhead = 8

// SampleIterations is the iteration count the window samples escape counts with while the
// automatic count is base times boost: SampleAhead times that, up to what MaxAutoBoost
// reaches.
func SampleIterations(base, boost int) int {
	it := min(base*max(boost, 1), fractal.MaxIterations)
	return max(min(it*SampleAhead, base*MaxAutoBoost, fractal.MaxIterations), it)
}

// AdaptBoost returns the boost to draw with next, from boost now in use and a sample s of
// the view's escape counts: where the window, sampling with SampleIterations before each full
// frame and applying AutoBoost, would settle, as far as s reaches (s, taken with up to
// s.Iterations iterations, answers for every count up to that: With). It rises while the
// picture needs more and falls when it needs less (after a deep excursion, say), and settles:
// a lower boost samples fewer pixels escaping, never more, so it never asks to rise again.
func AdaptBoost(base, boost int, s EscapeSample) int {
	boost = max(boost, 1)
	for range 2 * MaxAutoBoost {
		at := s
		if it := SampleIterations(base, boost); it < s.Iterations && s.Counts != nil {
			at = s.With(it)
		}
		nb := AutoBoost(base, at)
		if nb == boost {
			break
		}
		boost = nb
	}
	return boost
}

// AutoCount is the automatic iteration count of view l at w x h pixels as the window settles
// on it, computed without a window: the zoom's count (fractal.Location.AutoIterations) times
// the boost that AdaptBoost reaches from escape counts sampled over the view (a 90 x 60 grid
// at SampleIterations, as the window samples before each full frame), the reference orbit
// from refs (nil: fractal.DefaultReferences) where the view is deep. So `export` and `probe`
// without --iterations draw the count the window shows (a view beside a minibrot of period
// 58 at zoom 23000: 2452, where the zoom's count alone is 613 and draws its edge as blobs).
func AutoCount(ctx context.Context, l fractal.Location, w, h int, refs *fractal.ReferenceCache) (int, error) {
	base := l.AutoIterations()
	boost := 1
	for range 8 {
		s := l
		s.Iterations = SampleIterations(base, boost)
		f, err := fractal.NewFrame(s, w, h).WithReference(ctx, refs, nil)
		if err != nil {
			return 0, err
		}
		es, err := SampleEscapes(ctx, f, sampleCols, sampleRows)
		if err != nil {
			return 0, err
		}
		nb := AdaptBoost(base, boost, es)
		if nb == boost {
			break
		}
		boost = nb
	}
	return min(base*boost, fractal.MaxIterations), nil
}
