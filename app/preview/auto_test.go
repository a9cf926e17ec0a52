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

func TestAutoBoostRule(t *testing.T) {
	for _, c := range []struct {
		name  string
		boost int
		s     EscapeSample
		want  int
	}{
		{"nothing sampled", 1, EscapeSample{Iterations: 500}, 1},
		{"all escape", 1, EscapeSample{Iterations: 500, Pixels: 640, Late: 40, MaxEscape: 499}, 1},
		{"all inside", 1, EscapeSample{Iterations: 500, Pixels: 640, Inside: 640}, 2},
		{"all inside, boosted", 2, EscapeSample{Iterations: 1000, Pixels: 640, Inside: 640}, 4},
		{"all inside at the cap", MaxAutoBoost, EscapeSample{Iterations: 4000, Pixels: 640, Inside: 640}, MaxAutoBoost},
		{"inside next to late escapes", 1, EscapeSample{Iterations: 500, Pixels: 640, Inside: 100, Late: 11, MaxEscape: 480}, 2},
		{"inside, one late escape", 1, EscapeSample{Iterations: 500, Pixels: 640, Inside: 100, Late: 1, MaxEscape: 480}, 1},
		{"inside, a few late escapes among many", 1, EscapeSample{Iterations: 500, Pixels: 640, Inside: 100, Late: 9, MaxEscape: 480}, 1},
		{"mostly inside, one late escape", 1, EscapeSample{Iterations: 2608, Pixels: 640, Inside: 636, Late: 1, MaxEscape: 2604}, 2},
		{"inside, early escapes only", 4, EscapeSample{Iterations: 2000, Pixels: 640, Inside: 300, MaxEscape: 900}, 4},
		{"zero boost is one", 0, EscapeSample{Iterations: 500, Pixels: 640, Inside: 300}, 1},
	} {
		if got := AutoBoost(c.boost, c.s); got != c.want {
			t.Errorf("%s: AutoBoost(%d, %+v) = %d, want %d", c.name, c.boost, c.s, got, c.want)
		}
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

// autoConverge applies AutoBoost to the frames of l at w x h from boost 1 until it stays, as
// the window does after each full frame, and returns the boost and the last sample.
func autoConverge(t *testing.T, l fractal.Location, w, h int) (int, EscapeSample) {
	t.Helper()
	s := New(nil)
	base := fractal.AutoIterations(l.ZoomFloat())
	boost := 1
	for {
		l.Iterations = base * boost
		f, err := s.Reference(context.Background(), fractal.NewFrame(l, w, h), nil)
		if err != nil {
			t.Fatal(err)
		}
		es, err := SampleEscapes(context.Background(), f, sampleCols, sampleRows)
		if err != nil {
			t.Fatal(err)
		}
		nb := AutoBoost(boost, es)
		if nb == boost {
			return boost, es
		}
		boost = nb
	}
}

// The example: at zoom 1e14 the automatic count (2608) leaves the whole picture
// black while its pixels escape after 2920 to 3084 iterations and more; the adapted count
// shows them.
func TestAutoBoostDeepView(t *testing.T) {
	l := loc(t, "-0.743643887037151", "0.131825904205330", "1e14", 1)
	if n := fractal.AutoIterations(1e14); n >= 2920 {
		t.Skipf("AutoIterations(1e14) is %d now: the example no longer starts black", n)
	}
	for _, size := range [][2]int{{1280, 720}, {392, 129}} {
		boost, es := autoConverge(t, l, size[0], size[1])
		if boost < 2 || 2*es.Inside >= es.Pixels || es.MaxEscape < 2920 {
			t.Errorf("%dx%d: boost %d, last sample %+v: want a raised count that shows escapes past 2920", size[0], size[1], boost, es)
		}
	}
	boost, es := autoConverge(t, l, 1280, 720)
	// The adapted count leaves no sampled pixel inside that would escape with a count twice as
	// high (no false black).
	l.Iterations = 2 * fractal.AutoIterations(1e14) * boost
	f, _ := New(nil).Reference(context.Background(), fractal.NewFrame(l, 1280, 720), nil)
	more, _ := SampleEscapes(context.Background(), f, sampleCols, sampleRows)
	if more.Inside < es.Inside-es.Pixels/100 {
		t.Errorf("with twice the adapted count %d samples stay inside, with it %d: the adapted count hides detail", more.Inside, es.Inside)
	}
}

// The whole set keeps the automatic count; a boundary view settles where few samples escape
// late; the interior of a bulb (all inside at any count) stops at the cap.
func TestAutoBoostKeepsAndStops(t *testing.T) {
	if b, es := autoConverge(t, loc(t, "-0.5", "0", "1.7777777777777777", 1), 640, 360); b != 1 {
		t.Errorf("home view: boost %d (last sample %+v), want 1", b, es)
	}
	b, es := autoConverge(t, loc(t, "-0.743643887037151", "0.131825904205330", "300", 1), 640, 360)
	if b >= MaxAutoBoost || AutoBoost(b, es) != b {
		t.Errorf("seahorse valley: boost %d, last sample %+v: want it settled below the cap", b, es)
	}
	if b, es := autoConverge(t, loc(t, "-0.2", "0", "1000", 1), 640, 360); b != MaxAutoBoost {
		t.Errorf("inside the cardioid: boost %d (last sample %+v), want the cap %d", b, es, MaxAutoBoost)
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
			direct.Counts, with.Counts = nil, nil
			if !reflect.DeepEqual(direct, with) {
				t.Errorf("%s: sampled at %d: %+v; from the sample at %d: %+v", c.zoom, base*b, direct, base*MaxAutoBoost, with)
			}
		}
		want, _ := autoConverge(t, l, 640, 360)
		if got := AdaptBoost(base, 1, far); got != want {
			t.Errorf("%s%+si zoom %s: AdaptBoost from one sample %d, frame by frame %d", c.re, c.im, c.zoom, got, want)
		}
		// A sample that does not reach far enough goes at most one step past its own count.
		if want > 2 {
			if got := AdaptBoost(base, 1, sample(2*base)); got < 2 || got > 4 || got > want {
				t.Errorf("zoom %s: AdaptBoost from a sample at 2x: %d (frame by frame %d)", c.zoom, got, want)
			}
		}
	}
}
