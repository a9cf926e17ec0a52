package fractal

import (
	"math"
	"strings"
	"testing"
)

// turnDiff is the distance between two turns on the circle.
func turnDiff(a, b float64) float64 {
	d := math.Abs(a - b)
	return math.Min(d, 1-d)
}

// checkChannels compares the orbit path's count, T and STRIPE (Frame.Pixel) with ChannelsBig
// at a grid of pixels of l at w x h: every escaping pixel with the same count within 0.002
// turns and 0.01; it returns how many escaped.
func checkChannels(t *testing.T, l Location, w, h, step int, wantPrec Precision) int {
	t.Helper()
	f := NewFrame(l, w, h)
	f.Channels = true
	if p := f.Precision(); p != wantPrec {
		t.Fatalf("%s: precision %v, want %v", l, p, wantPrec)
	}
	prec := max(f.ReferenceBits(), l.Re.SignificantBits(), l.Im.SignificantBits()) + 64
	escaped, same := 0, 0
	total := 0
	for y := step / 2; y < h; y += step {
		for x := step / 2; x < w; x += step {
			total++
			r := f.PixelChannels(x, y)
			re, im := f.PointBig(x, y, prec)
			n, tt, st := ChannelsBig(l, re, im, re, im, prec)
			if n < 0 || r.N < 0 {
				if n != r.N && n >= 0 && n < l.Iterations/2 {
					t.Errorf("%s: pixel %d,%d: count %d, exact %d", l, x, y, r.N, n)
				}
				continue
			}
			escaped++
			if n != r.N || !wantPrec.Perturbs() && r.DE < 1e-4 {
				// Direct float64 iteration rounds z at every step, an error like moving c by
				// about 1e-9 of a pixel here; within 1e-4 pixels of the set T turns by over
				// 0.002 in that distance (T turns ln|z| / (pi DE) a pixel): no float64 orbit
				// holds such a pixel's T (perturbation does, below).
				continue
			}
			same++
			if d := turnDiff(r.T, tt); d > 0.002 {
				t.Errorf("%s: pixel %d,%d (n %d, de %g): T %.6f, exact %.6f", l, x, y, n, r.DE, r.T, tt)
			}
			if d := math.Abs(r.Stripe - st); d > 0.01 {
				t.Errorf("%s: pixel %d,%d (n %d): STRIPE %.6f, exact %.6f", l, x, y, n, r.Stripe, st)
			}
			if !(r.T >= 0 && r.T < 1 && r.Stripe >= 0 && r.Stripe <= 1) {
				t.Errorf("%s: pixel %d,%d: T %v STRIPE %v out of range", l, x, y, r.T, r.Stripe)
			}
		}
	}
	if same < escaped*9/10 {
		t.Errorf("%s: %d of %d escaping pixels have the exact count", l, same, escaped)
	}
	return escaped
}

// TestChannelsAgainstBig checks T and STRIPE against math/big at a shallow view (float64),
// at zoom 1e100 (perturbation with BLA, whose blocks the last K iterates must not take), with
// the default radius and with radius 1000, density 7 and the last 20 iterates.
func TestChannelsAgainstBig(t *testing.T) {
	shallow := Location{Re: MustDecimal("-0.743643887"), Im: MustDecimal("0.131825904"), Zoom: MustDecimal("3e5"), Iterations: 3000}
	deep := deepLocationNamed(t, "misiurewicz1e100")
	for _, o := range []struct {
		bail      float64
		s, k      int
		shallowOK Precision
	}{{0, 0, 0, Double}, {1000, 7, 20, Double}} {
		for _, c := range []struct {
			l    Location
			prec Precision
		}{{shallow, o.shallowOK}, {deep, Perturbation}} {
			l := c.l
			l.Bailout, l.StripeDensity, l.StripeLast = o.bail, o.s, o.k
			if n := checkChannels(t, l, 160, 90, 10, c.prec); n < 20 {
				t.Errorf("%s: only %d pixels escaped", l, n)
			}
		}
	}
}

// TestChannelsAgainstBigExp is TestChannelsAgainstBig past float64's exponent range
// (perturbLoopDEExp with the orbit record), at a few pixels of a view at 1e451.
func TestChannelsAgainstBigExp(t *testing.T) {
	if testing.Short() {
		t.Skip("math/big orbits of 40,000 iterations at 1600 bits")
	}
	l := deepLocationNamed(t, "nucleus1e451")
	l.Bailout = 100
	if n := checkChannels(t, l, 64, 36, 18, PerturbationExp); n < 3 {
		t.Errorf("only %d pixels escaped", n)
	}
}

// TestChannelsRollBackBLA: with a coarse BLA table (eps 2^-18), whose blocks reach into the
// last K iterates of most pixels at 1e100, T and STRIPE are still those of the orbit stepped
// one by one (no table): the pixels are run again with blocks only up to N-K.
func TestChannelsRollBackBLA(t *testing.T) {
	l := deepLocationNamed(t, "misiurewicz1e100")
	f := NewFrame(l, 64, 36)
	f, err := f.WithReference(t.Context(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	coarse := f.Ref.BLAWithEpsilon(f.DeltaMax(), 0x1p-18)
	rolled, compared := 0, 0
	for y := 1; y < 36; y += 3 {
		for x := 1; x < 64; x += 3 {
			dr, di := f.Delta(x, y)
			rec := newOrbitRec(l)
			if _, ok := perturbOnceCh(rec, f.Ref, coarse, dr, di, l.Iterations, l.Iterations, f.Spacing, nil); !ok {
				rolled++
			}
			got := perturbCh(newOrbitRec(l), f.Ref, coarse, dr, di, l.Iterations, f.Spacing, nil)
			want := perturbCh(newOrbitRec(l), f.Ref, nil, dr, di, l.Iterations, f.Spacing, nil)
			if got.N < 0 || got.N != want.N {
				continue
			}
			compared++
			if turnDiff(got.T, want.T) > 0.002 || math.Abs(got.Stripe-want.Stripe) > 0.01 {
				t.Errorf("pixel %d,%d (n %d): T %.6f STRIPE %.6f, stepped one by one %.6f %.6f", x, y, got.N, got.T, got.Stripe, want.T, want.Stripe)
			}
		}
	}
	t.Logf("%d pixels rolled back, %d compared", rolled, compared)
	if rolled < 50 || compared < 50 {
		t.Errorf("%d pixels rolled back, %d compared: the test needs more of both", rolled, compared)
	}
}

// TestOrbitLocationText: the orbit parameters go into the location text only where they are
// not the defaults, read back exactly (the defaults written out read as the defaults), belong
// to the view (View), and bad ones are refused in one line.
func TestOrbitLocationText(t *testing.T) {
	l := Home()
	if s := l.String(); strings.Contains(s, "bailout") || strings.Contains(s, "stripe") {
		t.Errorf("the default location's text %q", s)
	}
	l.Bailout, l.StripeDensity, l.StripeLast = 1e10, 64, 1
	back, err := ParseLocationText(l.String(), Home())
	if err != nil || back != l {
		t.Fatalf("%q read back as %+v, %v", l.String(), back, err)
	}
	if l.View() == Home().View() {
		t.Error("the bailout is not part of the view")
	}
	if back, err := ParseLocationText("re=0 im=0 zoom=1 bailout=2 stripe-density=5 stripe-last=16", Home()); err != nil || back.Bailout != 0 || back.StripeDensity != 0 || back.StripeLast != 0 {
		t.Errorf("defaults written out: %+v, %v", back, err)
	}
	for _, tc := range []struct{ text, want string }{
		{"bailout=1.99", `bailout "1.99" must be a number from 2 to 1e10`},
		{"bailout=1e10.5", `bailout "1e10.5" must be a number from 2 to 1e10`},
		{"stripe-density=x", `stripe density "x" must be a whole number from 1 to 64`},
		{"stripe-last=0", `stripe last "0" must be a whole number from 1 to 64`},
	} {
		if _, err := ParseLocationText("re=0 im=0 zoom=1 "+tc.text, Home()); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.text, err, tc.want)
		}
	}
	b := Home()
	b.Formula, _ = MakeFormula(BurningShip, 2)
	b.Bailout = 10
	if err := b.Validate(); err == nil || !strings.Contains(err.Error(), "bailout 10 is not yet available for formula") {
		t.Errorf("a bailout with another formula: %v", err)
	}
}
