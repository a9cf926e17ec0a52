package preview

import (
	"context"
	"reflect"
	"testing"

	"mandelscope/fractal"
)

func loc(t *testing.T, re, im, zoom string, iter int) fractal.Location {
	t.Helper()
	l := fractal.Home()
	l.Re, l.Im, l.Zoom = fractal.MustDecimal(re), fractal.MustDecimal(im), fractal.MustDecimal(zoom)
	l.Iterations = iter
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	return l
}

// counts makes a sample with iter iterations from escape counts (-1: inside).
func counts(iter int, ns ...int) EscapeSample {
	s := EscapeSample{Iterations: iter}
	for _, n := range ns {
		s.add(n)
		s.Counts = append(s.Counts, n)
	}
	return s
}

// repeat is n copies of count c.
func repeat(n, c int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = c
	}
	return out
}

func TestAutoBoostRule(t *testing.T) {
	const base = 500
	// 640 samples: inside ones, early ones escaping at 50, late ones at lateAt; taken with 8
	// times the base.
	tail := func(inside, early, late, lateAt int) EscapeSample {
		ns := append(append(repeat(inside, -1), repeat(early, 50)...), repeat(late, lateAt)...)
		return counts(8*base, ns...)
	}
	for _, c := range []struct {
		name string
		s    EscapeSample
		want int
	}{
		{"nothing sampled", EscapeSample{Iterations: 4000}, 1},
		{"all escape early", tail(0, 640, 0, 0), 1},
		{"all inside: more than the 4000 sampled", tail(640, 0, 0, 0), 16},
		{"all inside, a summary by hand", EscapeSample{Iterations: 500, Pixels: 640, Inside: 640}, 2},
		{"all inside at the cap", counts(64*base, repeat(640, -1)...), MaxAutoBoost},
		{"inside, under 1 in 100 escaping late", tail(300, 337, 3, 3000), 1},
		{"inside, 2 in 100 escaping late: 1.25 x 3000 needs 8 x 500", tail(300, 333, 7, 3000), 8},
		{"late, none inside: 1.25 x 1900 needs 8 x 500", tail(0, 600, 40, 1900), 8},
		{"late past the sample's reach", tail(100, 300, 240, 3900), 16},
		{"a summary by hand: its largest escape", EscapeSample{Iterations: 4000, Pixels: 640, Inside: 300, MaxEscape: 900}, 4},
		{"all inside, the reference on a cycle of period 6: interior", withPeriod(tail(640, 0, 0, 0), 6), 1},
		{"all inside at the cap, period 6", withPeriod(counts(64*base, repeat(640, -1)...), 6), 1},
		{"all inside, a period 62 fits 64 times in 4000", withPeriod(tail(640, 0, 0, 0), 62), 1},
		{"all inside, a period 63 does not fit 64 times", withPeriod(tail(640, 0, 0, 0), 63), 16},
		{"some escape late, period 6: the escapes rule", withPeriod(tail(300, 333, 7, 3000), 6), 8},
		{"a framed minibrot of period 5588: 100 P, past MaxAutoBoost", withPeriod(tail(64, 576, 0, 0), 5588), 2048},
		{"a speck of period 5588, under 1 in 100 inside: the escapes rule", withPeriod(tail(6, 634, 0, 0), 5588), 1},
		{"a framed minibrot that the escapes ask more for", withPeriod(tail(64, 536, 40, 3900), 30), 16},
	} {
		if got := AutoBoost(base, c.s); got != c.want {
			t.Errorf("%s: AutoBoost(%d, ...) = %d, want %d", c.name, base, got, c.want)
		}
	}
}

// withPeriod is s with its reference orbit's period set to p.
func withPeriod(s EscapeSample, p int) EscapeSample {
	s.Period = p
	return s
}

// Issue 31, item 8: at this view (inside a period-6 component at zoom 1e30) no sample escapes
// at any count, and Auto climbed to x64 (588,736 iterations) sampling 5400 interior pixels
// that far before every frame. The reference orbit settles onto its cycle, and the count
// stays at the zoom's automatic one, from below and from above.
func TestAutoBoostInterior(t *testing.T) {
	l := loc(t, "-1.7686104930146770745031756532702265202396779075886654948376772575753046", "0", "1e30", 1)
	base := fractal.AutoIterations(l.ZoomFloat())
	l.Iterations = SampleIterations(base, 1)
	f, err := New(nil).Reference(context.Background(), fractal.NewFrame(l, 800, 450), nil)
	if err != nil {
		t.Fatal(err)
	}
	es, err := SampleEscapes(context.Background(), f, sampleCols, sampleRows)
	if err != nil {
		t.Fatal(err)
	}
	if es.Inside != es.Pixels || es.Period != 6 {
		t.Fatalf("%d of %d samples inside, reference period %d: want all inside a cycle of period 6", es.Inside, es.Pixels, es.Period)
	}
	for _, b := range []int{1, 2, 8, MaxAutoBoost} {
		if got := AdaptBoost(base, b, es); got != 1 {
			t.Errorf("AdaptBoost from x%d: x%d, want x1 (%d iterations)", b, got, base)
		}
	}
	if b, _ := autoConverge(t, l, 800, 450, MaxAutoBoost); b != 1 {
		t.Errorf("from x%d the boost settles at x%d, want x1", MaxAutoBoost, b)
	}
}

func TestSampleEscapesCounts(t *testing.T) {
	// Inside the main cardioid every sample stays; far outside every one escapes at once.
	in := fractal.NewFrame(loc(t, "-0.2", "0", "1000", 300), 123, 77)
	es, err := SampleEscapes(context.Background(), in, 32, 20)
	if err != nil || es.Pixels != 640 || es.Inside != 640 || es.Iterations != 300 {
		t.Errorf("inside the cardioid: %+v %v", es, err)
	}
	out := fractal.NewFrame(loc(t, "3", "3", "10", 300), 50, 90)
	es, err = SampleEscapes(context.Background(), out, 32, 20)
	if err != nil || es.Pixels != 32*20 || es.Inside != 0 || es.Late != 0 || es.MaxEscape != 1 {
		t.Errorf("far outside: %+v %v", es, err)
	}
	// A grid larger than the frame samples each pixel once.
	es, _ = SampleEscapes(context.Background(), fractal.NewFrame(loc(t, "3", "3", "10", 300), 7, 3), 32, 20)
	if es.Pixels != 21 {
		t.Errorf("7x3 frame: %d pixels sampled, want 21", es.Pixels)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := SampleEscapes(ctx, in, 32, 20); err == nil {
		t.Error("a cancelled sample gave no error")
	}
}

// autoConverge does what the window does after it draws the view l at w x h with automatic
// iterations from boost b0: it samples escape counts with SampleIterations and applies
// AdaptBoost until the boost stays; it returns the boost and the sample at its count.
func autoConverge(t *testing.T, l fractal.Location, w, h, b0 int) (int, EscapeSample) {
	t.Helper()
	s := New(nil)
	base := fractal.AutoIterations(l.ZoomFloat())
	boost := b0
	for range 20 {
		l.Iterations = SampleIterations(base, boost)
		f, err := s.Reference(context.Background(), fractal.NewFrame(l, w, h), nil)
		if err != nil {
			t.Fatal(err)
		}
		es, err := SampleEscapes(context.Background(), f, sampleCols, sampleRows)
		if err != nil {
			t.Fatal(err)
		}
		nb := AdaptBoost(base, boost, es)
		if nb == boost {
			return boost, es.With(min(base*boost, es.Iterations))
		}
		boost = nb
	}
	t.Fatalf("%v: the boost does not settle", l)
	return 0, EscapeSample{}
}

// falseBlack is the share of the pixels of l at w x h, on a grid of 128 x 80, that escape
// within maxIter iterations but not within iter (drawn black with iter), of those that escape.
func falseBlack(t *testing.T, l fractal.Location, w, h, iter, maxIter int) float64 {
	t.Helper()
	l.Iterations = maxIter
	f, err := New(nil).Reference(context.Background(), fractal.NewFrame(l, w, h), nil)
	if err != nil {
		t.Fatal(err)
	}
	es, err := SampleEscapes(context.Background(), f, 128, 80)
	if err != nil {
		t.Fatal(err)
	}
	black := 0
	for _, n := range es.Counts {
		if n > iter {
			black++
		}
	}
	return float64(black) / float64(max(es.Pixels-es.Inside, 1))
}

// The example: at zoom 1e14 the automatic count (2608) leaves the whole picture
// black while its pixels escape after 2920 to 7100 iterations; the adapted count shows them:
// fewer than 1 in 1000 of the pixels that escape within 64 times the base are black with it.
func TestAutoBoostDeepView(t *testing.T) {
	l := loc(t, "-0.743643887037151", "0.131825904205330", "1e14", 1)
	base := fractal.AutoIterations(1e14)
	if base >= 2920 {
		t.Fatalf("AutoIterations(1e14) is %d now: the example no longer starts black; take a deeper one", base)
	}
	for _, size := range [][2]int{{1280, 720}, {640, 360}, {392, 129}} {
		boost, es := autoConverge(t, l, size[0], size[1], 1)
		if boost < 2 || 2*es.Inside >= es.Pixels || es.MaxEscape < 2920 {
			t.Errorf("%dx%d: boost %d, sample %+v: want a raised count that shows escapes past 2920", size[0], size[1], boost, es.With(es.Iterations))
		}
		if fb := falseBlack(t, l, size[0], size[1], base*boost, base*MaxAutoBoost); fb > 0.001 {
			t.Errorf("%dx%d: with %d iterations %.2f%% of the escaping pixels are black", size[0], size[1], base*boost, 100*fb)
		}
	}
}

// Seahorse valley at zoom 87, half of it the main cardioid's interior: the count settles at
// most at 3,000 (the issue saw 11,072) from below and from above, and leaves under 1 in 100
// of the escaping pixels black. Other views with a large interior settle below the cap too.
func TestAutoBoostLargeInterior(t *testing.T) {
	l := loc(t, "-0.743643887037151", "0.131825904205330", "87", 1)
	base := fractal.AutoIterations(87)
	for _, b0 := range []int{1, 32} {
		boost, es := autoConverge(t, l, 1280, 640, b0)
		if base*boost > 3000 || 4*es.Inside < es.Pixels {
			t.Errorf("from x%d: %d iterations (x%d), %d of %d samples inside", b0, base*boost, boost, es.Inside, es.Pixels)
		}
		if fb := falseBlack(t, l, 1280, 640, base*boost, base*MaxAutoBoost); fb > 0.01 {
			t.Errorf("from x%d: with %d iterations %.2f%% of the escaping pixels are black", b0, base*boost, 100*fb)
		}
	}
	for _, c := range [][3]string{{"-0.75", "0.1", "30"}, {"-0.1", "0.65", "50"}} {
		v := loc(t, c[0], c[1], c[2], 1)
		up, _ := autoConverge(t, v, 1280, 640, 1)
		down, es := autoConverge(t, v, 1280, 640, MaxAutoBoost)
		if up > 16 || down > 16 || 2*es.Inside < es.Pixels {
			t.Errorf("%s, %si zoom %s: x%d from below, x%d from above (%d of %d inside): want at most x16", c[0], c[1], c[2], up, down, es.Inside, es.Pixels)
		}
	}
}

// The whole set keeps the automatic count, and a boost from a deeper view falls back to it;
// a boundary view settles below the cap; the interior of a bulb (all inside at any count)
// stops at the cap.
func TestAutoBoostKeepsAndStops(t *testing.T) {
	home := loc(t, "-0.5", "0", "1.7777777777777777", 1)
	for _, b0 := range []int{1, 16} {
		if b, es := autoConverge(t, home, 640, 360, b0); b != 1 {
			t.Errorf("home view from x%d: boost %d (sample %+v), want 1", b0, b, es.With(es.Iterations))
		}
	}
	if b, _ := autoConverge(t, loc(t, "-0.743643887037151", "0.131825904205330", "300", 1), 640, 360, 1); b >= MaxAutoBoost {
		t.Errorf("seahorse valley: boost %d, want it settled below the cap", b)
	}
	if b, _ := autoConverge(t, loc(t, "-0.2", "0", "1000", 1), 640, 360, 1); b != MaxAutoBoost {
		t.Errorf("inside the cardioid: boost %d, want the cap %d", b, MaxAutoBoost)
	}
}

// A deep view's reference orbit is reused by the next zoom step of automatic iterations (a
// few more iterations) and by a pan, and the frames it serves keep their own iterations.
func TestReferenceReuse(t *testing.T) {
	s := New(nil)
	// The centre of a minibrot of period 136119: its orbit does not escape.
	l := loc(t, "-0.74364388703715870475219150611476491044466678896952445054344772226076938734097049990107700002566806721938412552808498904",
		"0.131825904205311970493132056385130725120158740934066232432366348230023599871748424384574295717109105538252905139463817581",
		"1e20", fractal.AutoIterations(1e20))
	f, err := s.Reference(context.Background(), fractal.NewFrame(l, 320, 200), nil)
	if err != nil || f.Ref == nil || f.Ref.Escaped() {
		t.Fatalf("no reference, or one that escaped: %v", err)
	}
	if f.Loc.Iterations != l.Iterations {
		t.Errorf("the frame's iterations became %d", f.Loc.Iterations)
	}
	for _, next := range []fractal.Location{l.Offset(50, -20, 320, 200), func() fractal.Location {
		m := l
		m.Iterations += 30 // the automatic count one wheel notch deeper
		return m
	}()} {
		g, err := s.Reference(context.Background(), fractal.NewFrame(next, 320, 200), nil)
		if err != nil || g.Ref != f.Ref {
			t.Errorf("%v: a new reference (%v)", next, err)
		}
	}
}

// A reduced frame at depth samples the same points as the full frame's block centres: its
// pixels' perturbation deltas (what every renderer computes with) and exact points agree
// with the full frame's to a hundredth of a full pixel.
func TestReducedFrameDeep(t *testing.T) {
	l := loc(t, "-0.74364388703715870475219150611476491044466678896952445054344772226076938734097049990107700002566806721938412552808498904",
		"0.131825904205311970493132056385130725120158740934066232432366348230023599871748424384574295717109105538252905139463817581",
		"1e40", 3000)
	const w, h = 301, 173
	s := New(nil)
	full, err := s.Reference(context.Background(), fractal.NewFrame(l, w, h), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []int{2, 3, 16} {
		red, err := s.Reference(context.Background(), ReducedFrame(l, w, h, sc), nil)
		if err != nil || red.Ref != full.Ref {
			t.Fatalf("1/%d: the reduced frame has another reference (%v)", sc, err)
		}
		for _, p := range [][2]int{{0, 0}, {red.W - 1, red.H - 1}, {red.W / 2, 3}} {
			fx, fy := p[0]*sc+sc/2, p[1]*sc+sc/2
			if fx >= w || fy >= h {
				continue
			}
			// With an even sc the block's centre is between two full pixels: half a pixel up-left
			// of pixel (fx, fy)'s centre.
			off := 0.0
			if sc%2 == 0 {
				off = 0.5
			}
			rr, ri := red.Delta(p[0], p[1])
			fr, fi := full.Delta(fx, fy)
			fr -= off * full.Spacing
			fi += off * full.Spacing
			if dx, dy := (rr-fr)/full.Spacing, (ri-fi)/full.Spacing; dx*dx+dy*dy > 1e-4 {
				t.Errorf("1/%d, reduced pixel %v: delta differs from the full frame's by (%.3g, %.3g) pixels", sc, p, dx, dy)
			}
		}
	}
}

// One sample taken far ahead answers as samples taken at each lower count would: With gives
// what sampling with fewer iterations gives, and AdaptBoost settles where drawing and sampling
// frame after frame would.
func TestAdaptBoostFromOneSample(t *testing.T) {
	for _, c := range []struct{ re, im, zoom string }{
		{"-0.743643887037151", "0.131825904205330", "1e14"},
		{"-0.743643887037151", "0.131825904205330", "300"},
		{"-0.743643887037151", "0.131825904205330", "87"},
		{"-0.5", "0", "1.7777777777777777"},
		{"-0.2", "0", "1000"},
	} {
		l := loc(t, c.re, c.im, c.zoom, 1)
		base := fractal.AutoIterations(l.ZoomFloat())
		s := New(nil)
		sample := func(iter int) EscapeSample {
			l.Iterations = iter
			f, err := s.Reference(context.Background(), fractal.NewFrame(l, 640, 360), nil)
			if err != nil {
				t.Fatal(err)
			}
			es, err := SampleEscapes(context.Background(), f, sampleCols, sampleRows)
			if err != nil {
				t.Fatal(err)
			}
			return es
		}
		far := sample(base * MaxAutoBoost)
		for _, b := range []int{1, 4} {
			direct, with := sample(base*b), far.With(base*b)
			if !reflect.DeepEqual(direct, with) {
				t.Errorf("%s: sampled at %d and from the sample at %d differ", c.zoom, base*b, base*MaxAutoBoost)
			}
		}
		want, _ := autoConverge(t, l, 640, 360, 1)
		if got := AdaptBoost(base, 1, far); got != want {
			t.Errorf("%s%+si zoom %s: AdaptBoost from one sample %d, frame by frame %d", c.re, c.im, c.zoom, got, want)
		}
		// A sample that does not reach far enough asks for no more than the view needs.
		if got := AdaptBoost(base, 1, sample(2*base)); got < 1 || got > want {
			t.Errorf("zoom %s: AdaptBoost from a sample at 2x: %d (frame by frame %d)", c.zoom, got, want)
		}
	}
}

// Issue 43: find frames a period-5588 minibrot at zoom 8.89e25 (from kf1e50's centre at 1e20)
// and suggests 558,800 iterations (MinibrotIterations), but the automatic count stopped at
// 114,288 (x16): the minibrot's edge, whose pixels have not escaped by then, counted as its
// inside, and it drew as a black blob. The count now reaches the minibrot's.
func TestAutoCountFramedMinibrot(t *testing.T) {
	l := loc(t, "-0.04947002906310409375156991318038", "-0.67478757584467536401135029920666", "8.89e25", 1)
	n, err := AutoCount(context.Background(), l, 1920, 1080, &fractal.ReferenceCache{})
	if err != nil {
		t.Fatal(err)
	}
	if want := fractal.MinibrotIterations(5588); n < want || n > 2*want {
		t.Errorf("automatic count %d, want %d to twice that (the boost is a power of two)", n, want)
	}
}
