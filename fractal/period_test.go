package fractal

import (
	"context"
	"testing"
)

// minibrotView is the view of a deep location's centre at another zoom and iteration count.
func minibrotView(t testing.TB, name, zoom string, iterations int) Location {
	l := deepLocationNamed(t, name)
	z, err := ParseDecimal(zoom)
	if err != nil {
		t.Fatal(err)
	}
	l.Zoom, l.Iterations = z, iterations
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPeriodicReferenceMatchesLongOrbit checks that a reference inside a minibrot stops
// computing once it has settled onto the minibrot's cycle, and that the values it then holds
// (its last period repeated) and a pixel reads past its end (one period back,
// Reference.Period) are the values the orbit computed on, without looking for a period,
// holds there: to the last bit, or within the one rounding step that the orbit's own float64
// rounding allows.
func TestPeriodicReferenceMatchesLongOrbit(t *testing.T) {
	for _, tc := range []struct {
		name, zoom string
		period     int
	}{
		{"p8007", "1e40", 8007},
		{"nucleus1e451", "1e451", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := minibrotView(t, tc.name, tc.zoom, 2_500_000)
			f := NewFrame(l, 64, 64)
			ref, err := ComputeReference(context.Background(), l.Re, l.Im, f.ReferenceBits(), l.Iterations, nil)
			if err != nil {
				t.Fatal(err)
			}
			p, last, computed := ref.Period(), len(ref.Z)-1, ref.computed
			t.Logf("%s at %s: period %d, %d iterations computed, orbit of %d values for %d iterations", tc.name, tc.zoom, p, computed, last+1, l.Iterations)
			if p == 0 || ref.Escaped() || last != MaxReferenceLength || computed >= last/4 {
				t.Fatalf("period %d, escaped %v, last index %d, %d computed: want a periodic orbit computed in part and repeated to %d", p, ref.Escaped(), last, computed, MaxReferenceLength)
			}
			if tc.period != 0 && p != tc.period {
				t.Errorf("period %d, want %d", p, tc.period)
			}
			if !ref.Covers(MaxIterations) {
				t.Error("a periodic reference does not cover every iteration count")
			}
			extra := 3 * p
			if raceEnabled {
				extra = p
			}
			long, err := newReference(l.Re, l.Im, f.ReferenceBits(), computed+extra)
			if err != nil {
				t.Fatal(err)
			}
			long.noPeriod = true
			if err := long.iterateFixed(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if len(long.Z) != computed+extra+1 {
				t.Fatalf("long orbit has %d values, want %d", len(long.Z), computed+extra+1)
			}
			exact := 0
			for k := range long.Z {
				m := k
				for m > last {
					m -= p
				}
				got, want := ref.zcx(m), long.zcx(k)
				if got == want {
					exact++
					continue
				}
				// Within one rounding step of the larger part (the exact values differ by less
				// than half of it, and either may round the other way).
				d := cxAdd(got, cx{-want.re, -want.im, want.e})
				if d.log2Abs() > want.log2Abs()-52 {
					t.Fatalf("Z[%d]: the periodic orbit gives %v (index %d), the long one %v", k, got, m, want)
				}
			}
			t.Logf("%d of %d values past the computed part identical to the long orbit's, the rest within a rounding step", exact-computed-1, extra)
		})
	}
}

// TestPerturbInsideMinibrotAgainstBig renders pixels inside and next to deep minibrots with
// more iterations than a reference orbit held before (2^21): every pixel must agree with
// math/big (EscapeBig, at two precisions), where they used to "escape" together at the
// orbit's end plus a few thousand iterations.
func TestPerturbInsideMinibrotAgainstBig(t *testing.T) {
	cases := []struct {
		name, zoom string
		iterations int
		pixels     [][2]int
		size       int // the frame's width and height (64 where 0)
	}{
		{"p8007", "1e40", 2_500_000, [][2]int{{0, 0}, {63, 40}}, 0},
		{"p136119z50", "1e53", 10_000_000, [][2]int{{5, 60}}, 0},
		{"nucleus1e451", "1e451", 2_200_000, [][2]int{{32, 32}}, 0},
		// Next to the minibrot's edge: pixels that escape after 2.24M and 3.62M iterations
		// (math/big), past the orbit's end; the old orbit made every one 2,107,696.
		{"p136119z50", "1e50", 4_000_000, [][2]int{{2192, 2080}, {2184, 2080}}, 4096},
	}
	for _, tc := range cases {
		t.Run(tc.name+"@"+tc.zoom, func(t *testing.T) {
			if (testing.Short() || raceEnabled) && tc.name != "p8007" {
				t.Skip("millions of iterations in math/big: not in -short or -race runs")
			}
			if raceEnabled { // one pixel's 2.5M iterations in math/big: the full run has both
				tc.pixels = tc.pixels[:1]
			}
			l := minibrotView(t, tc.name, tc.zoom, tc.iterations)
			size := tc.size
			if size == 0 {
				size = 64
			}
			f, err := NewFrame(l, size, size).WithReference(context.Background(), &ReferenceCache{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Ref.Period() == 0 {
				t.Fatalf("reference not periodic (%d values)", len(f.Ref.Z))
			}
			p1 := f.ReferenceBits() + 32
			type px struct{ n, b1, b2 int }
			pxs := make([]px, len(tc.pixels))
			parallel(2*len(pxs), func(i int) {
				x, y := tc.pixels[i/2][0], tc.pixels[i/2][1]
				p := &pxs[i/2]
				if i%2 == 0 {
					p.n, _ = f.Escape(x, y)
					cr, ci := f.PointBig(x, y, p1)
					p.b1 = EscapeBig(cr, ci, l.Iterations, p1)
				} else {
					cr, ci := f.PointBig(x, y, p1+128)
					p.b2 = EscapeBig(cr, ci, l.Iterations, p1+128)
				}
			})
			for i, p := range pxs {
				if p.b1 != p.b2 {
					t.Fatalf("pixel %v: math/big gives %d and %d at two precisions: choose another", tc.pixels[i], p.b1, p.b2)
				}
				t.Logf("pixel %v: perturbation %d, math/big %d", tc.pixels[i], p.n, p.b1)
				if p.n != p.b1 {
					t.Errorf("pixel %v: perturbation %d, math/big %d", tc.pixels[i], p.n, p.b1)
				}
			}
		})
	}
}

// TestPerturbStops checks that each perturbation loop ends within stopEvery+1 steps once its
// stop channel is closed, inside a pixel: one that escapes only after many thousand plain
// steps (no BLA) gives its count with a nil channel and -1 with a closed one.
func TestPerturbStops(t *testing.T) {
	l := deepLocationNamed(t, "p8007")
	f, err := NewFrame(l, 64, 64).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	close(closed)
	// The pixel of the frame that escapes last (within the iterations), at least 3 * 4096.
	bx, by, best := 0, 0, 0
	for y := 0; y < f.H; y += 4 {
		for x := 0; x < f.W; x += 4 {
			dr, di := f.Delta(x, y)
			if n, _ := PerturbEscape(f.Ref, nil, dr, di, l.Iterations, nil); n > best {
				bx, by, best = x, y, n
			}
		}
	}
	if best < 3*(stopEvery+1) {
		t.Fatalf("the latest pixel escapes at %d: too early for this test", best)
	}
	dr, di := f.Delta(bx, by)
	dx, dy := NewExp(dr), NewExp(di)
	sp := f.PixelSpacing()
	run := func(stop <-chan struct{}) [4]int {
		n0, _, steps := perturbEscape(f.Ref, nil, dr, di, l.Iterations, stop)
		n1, _, stepsExp := perturbEscapeExp(f.Ref, nil, dx, dy, l.Iterations, stop)
		if stop != nil && (steps != stopEvery+1 || stepsExp != stopEvery+1) {
			t.Errorf("stopped after %d and %d steps, want %d", steps, stepsExp, stopEvery+1)
		}
		return [4]int{n0, n1,
			PerturbEscapeDE(f.Ref, nil, dr, di, l.Iterations, f.Spacing, stop).N,
			PerturbEscapeDEExp(f.Ref, nil, dx, dy, l.Iterations, sp, stop).N}
	}
	free, stopped := run(nil), run(closed)
	for i := range free {
		if free[i] < 3*(stopEvery+1) || stopped[i] != -1 {
			t.Errorf("loop %d: %d without a stop, %d stopped: want a late escape and -1", i, free[i], stopped[i])
		}
	}
}

// TestReferencePeriod checks the period found for simple points: attracting cycles (a
// superattracting one included), a preperiodic point whose fixed-point orbit repeats
// exactly (c = i: 0, i, -1+i, -i, -1+i, ...; its cycle repels, but the arithmetic is exact),
// and points whose orbits never repeat (parabolic ones creep towards their cycle; an
// escaping one ends).
func TestReferencePeriod(t *testing.T) {
	for _, c := range []struct {
		re, im string
		period int
	}{
		{"0", "0", 1}, {"-1", "0", 2}, {"0", "1", 2}, {"-0.1", "0.1", 1}, {"-1.3", "0.05", 4},
		{"0.25", "0", 0}, {"-0.75", "0", 0}, {"0.3", "0", 0},
	} {
		ref, err := ComputeReference(context.Background(), MustDecimal(c.re), MustDecimal(c.im), 128, 200_000, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ref.Period() != c.period {
			t.Errorf("c = %s, %s: period %d (orbit of %d values), want %d", c.re, c.im, ref.Period(), len(ref.Z), c.period)
		}
		if ref.Period() > 0 && !ref.repeats(len(ref.Z)-1, ref.Period(), 2*ref.Period()) {
			t.Errorf("c = %s, %s: the orbit's end does not repeat with its period", c.re, c.im)
		}
	}
}
