package fractal

import (
	"math"
	"math/big"
	"math/cmplx"
	"strings"
	"testing"
)

// powerOrbitRoots iterates z <- z^d + c (math/big at prec bits, dz/dc alongside in complex128
// with its scale kept apart) from c up to p steps and returns, for each k from 1 to p, the
// first-order distance |z_k| / |dz_k| from c to the nearest root of z_k, as log2: an
// independent check of a nucleus (its period P: the distance at P below a pixel, at every
// k < P well above one).
func powerOrbitRoots(d int, cr, ci *big.Float, p int, prec uint) []float64 {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	zr, zi := nf(), nf()
	pr, pi, t1, t2, t3, t4 := nf(), nf(), nf(), nf(), nf(), nf()
	dz, dzScale := complex(0, 0), 0 // dz = dz * 2^dzScale
	out := make([]float64, p+1)
	for k := 1; k <= p; k++ {
		zf := complex(mustF64(zr), mustF64(zi))
		dz = complex(float64(d), 0)*cmplx.Pow(zf, complex(float64(d-1), 0))*dz + complex(math.Ldexp(1, -dzScale), 0)
		if m := cmplx.Abs(dz); m > 0x1p100 || m < 0x1p-100 && m > 0 {
			_, e := math.Frexp(m)
			dz = complex(math.Ldexp(real(dz), -e), math.Ldexp(imag(dz), -e))
			dzScale += e
		}
		pr.Set(zr)
		pi.Set(zi)
		for range d - 1 {
			t1.Mul(pr, zr)
			t2.Mul(pi, zi)
			t3.Mul(pr, zi)
			t4.Mul(pi, zr)
			pr.Sub(t1, t2)
			pi.Add(t3, t4)
		}
		zr.Add(pr, cr)
		zi.Add(pi, ci)
		az := cxFromExp(ExpFromBig(zr), ExpFromBig(zi)).abs().Log2()
		out[k] = az - math.Log2(cmplx.Abs(dz)) - float64(dzScale)
	}
	return out
}

func mustF64(x *big.Float) float64 {
	f, _ := x.Float64()
	return f
}

// checkPowerFound checks a minibrot that find reported for the power-d set from the view
// start, independently of find's own checks: the period (the found centre's orbit returns to
// 0 at P within a fraction of the found view's pixel, and comes no nearer than a pixel to a
// root of z_k for any k < P), the nucleus inside the start view and the found view deeper,
// and the framing (the pixel at the nucleus inside the set, the view's border outside, and
// the copy of the set a fair part of the view), with the renderer's escape counts (as probe
// reads them) at w x h.
func checkPowerFound(t *testing.T, start Location, f Found, w, h int) {
	t.Helper()
	d := start.Formula.Power()
	if f.Loc.Formula != start.Formula {
		t.Fatalf("found view's formula %v, want %v", f.Loc.Formula, start.Formula)
	}
	spacing := SpacingExp(f.Loc.ZoomExp(), w, h)
	prec := bitsBelow(spacing)
	cr, ci := f.Loc.Re.Big(prec), f.Loc.Im.Big(prec)
	roots := powerOrbitRoots(d, cr, ci, f.Period, prec)
	px := spacing.Log2()
	if roots[f.Period] > px-4 {
		t.Errorf("power %d period %d: the centre is 2^%.1f pixels from a root of z_P, want below 1/16", d, f.Period, roots[f.Period]-px)
	}
	for k := 1; k < f.Period; k++ {
		if roots[k] < px {
			t.Errorf("power %d period %d: z_%d has a root within a pixel (2^%.1f): the period is not minimal", d, f.Period, k, roots[k]-px)
		}
	}
	if !inView(start, 320, 240, cr, ci) {
		t.Errorf("power %d: the nucleus %s, %s is outside the start view", d, f.Loc.Re, f.Loc.Im)
	}
	if f.Loc.ZoomExp().Cmp(start.ZoomExp()) <= 0 {
		t.Errorf("power %d: found zoom %s is not deeper than %s", d, f.Loc.Zoom, start.Zoom)
	}
	fr := NewFrame(f.Loc, w, h)
	if n, _ := fr.Escape(w/2, h/2); n != -1 {
		t.Errorf("power %d period %d: the nucleus pixel escapes after %d iterations, want inside", d, f.Period, n)
	}
	inside, border, borderIn := 0, 0, 0
	for y := range h {
		for x := range w {
			n, _ := fr.Escape(x, y)
			if n == -1 {
				inside++
			}
			if x == 0 || y == 0 || x == w-1 || y == h-1 {
				border++
				if n == -1 {
					borderIn++
				}
			}
		}
	}
	frac := float64(inside) / float64(w*h)
	if frac < 0.01 || frac > 0.3 || borderIn > border/20 {
		t.Errorf("power %d period %d: %.1f%% of the framed view inside, %d of %d border pixels; want the minibrot whole in the view, 1%% to 30%% of it",
			d, f.Period, 100*frac, borderIn, border)
	}
}

// TestFindPowerD: find (FindMinibrot) in the power-d sets, from views centred on a point of a
// minibrot's boundary (bisected between its nucleus, which stays, and a point that escapes),
// finds a nucleus whose period is right and minimal and whose framed view holds the minibrot,
// at zoom 1e4 for powers 3 to 8, and at 1e30 for power 3.
func TestFindPowerD(t *testing.T) {
	for _, c := range []struct {
		d                        int
		inRe, inIm, outRe, outIm float64 // a nucleus of the power-d set, and a point that escapes
		zoom                     string
		bits                     uint
		iter                     int // the bisection's iterations: enough that its edge is the set's within the view
		w, h                     int // the framed view's size for the escape counts
		slow                     bool
	}{
		{3, 0.26443, 1.26049, 0.6, 1.5, "1e4", 40, 1000, 48, 36, false},
		{4, -1.22908, 0, -1.22908, 0.3, "1e4", 40, 1000, 48, 36, false},
		{5, 0, 0, 1.2, 0.3, "1e4", 40, 1000, 48, 36, false},
		{8, 0, 0, 0.4, 1.2, "1e4", 40, 1000, 48, 36, false},
		{3, 0.26443, 1.26049, 0.6, 1.5, "1e30", 110, 3000, 32, 24, true}, // period 2922: 292,200 iterations a pixel inside
	} {
		if c.slow && (testing.Short() || raceEnabled) {
			continue // seconds of math/big and of deep pixels: the run without the race detector has it
		}
		fm, err := MakeFormula(Mandelbrot, c.d)
		if err != nil {
			t.Fatal(err)
		}
		start := Home()
		start.Formula, start.Zoom, start.Iterations = fm, MustDecimal(c.zoom), 1000
		start.Re, start.Im = formulaEdgePoint(fm, c.inRe, c.inIm, c.outRe, c.outIm, c.bits, c.iter)
		f, err := FindMinibrot(t.Context(), start, 320, 240, 160, 120, 100000)
		if err != nil {
			t.Errorf("power %d at %s, %s zoom %s: %v", c.d, start.Re, start.Im, c.zoom, err)
			continue
		}
		t.Logf("power %d zoom %s: period %d, zoom %s", c.d, c.zoom, f.Period, f.Loc.Zoom)
		checkPowerFound(t, start, f, c.w, c.h)
	}
}

// TestFindPowerDRefusals: the Burning Ship and the Mandelbar have no Misiurewicz search: each
// says so in one sentence naming the formula, never a "found"; every formula has the minibrot
// search, and the Mandelbrot set and its powers the Misiurewicz search.
func TestFindPowerDRefusals(t *testing.T) {
	l := Home()
	l.Zoom = MustDecimal("100")
	for _, c := range []struct {
		kind FormulaKind
		d    int
		want string
	}{
		{BurningShip, 2, "formula burning-ship has no Misiurewicz finder yet (its minibrots are found)"},
		{Mandelbar, 3, "formula mandelbar power 3 has no Misiurewicz finder yet (its minibrots are found)"},
		{Mandelbar, 8, "formula mandelbar power 8 has no Misiurewicz finder yet (its minibrots are found)"},
	} {
		fm, err := MakeFormula(c.kind, c.d)
		if err != nil {
			t.Fatal(err)
		}
		l.Formula = fm
		l.Re, l.Im = MustDecimal("-0.1"), MustDecimal("0.9")
		if e := FinderFor(fm, true); e == nil || e.Error() != c.want {
			t.Errorf("FinderFor(%v, true) = %v, want %q", fm, e, c.want)
		}
		_, err = FindMisiurewicz(t.Context(), l, 64, 48, 32, 24, 1000)
		if err == nil || err.Error() != c.want || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want %q", fm, err, c.want)
		}
	}
	for k := range numFormulaKinds {
		for d := 2; d <= MaxPower; d++ {
			fm, _ := MakeFormula(k, d)
			if err := FinderFor(fm, false); err != nil {
				t.Errorf("%v: %v, want a minibrot search", fm, err)
			}
			if err := FinderFor(fm, true); (err == nil) != (k == Mandelbrot) {
				t.Errorf("%v: Misiurewicz search %v, want one for the Mandelbrot set's powers only", fm, err)
			}
		}
	}
}

// TestShapeEstimatePower: the shape estimate tells the power-d sets' bulbs from their
// minibrots. For power 3 the period-2 nuclei +-i are bulbs (the period-2 components touch
// the main one where its multiplier is -1, at c = +-4i/(3 sqrt 3)); for power 4 so is -1. Their
// minibrots: for power 4 the period-3 nucleus on the real axis past the period-2 bulb (the
// real map x^4 + c is unimodal, as x^2 + c is, and its period-3 window is born in a
// saddle-node: primitive, the -1.7549 of the power), for power 3 the period-3 nucleus near
// 0.264 + 1.260i (the framed view shows the cardioid-like copy).
func TestShapeEstimatePower(t *testing.T) {
	for _, c := range []struct {
		d, p   int
		re, im float64
		bulb   bool
	}{
		{3, 2, 0, 1, true},
		{3, 2, 0, -1, true},
		{4, 2, -1, 0, true},
		{4, 2, 0.5, 0.8660254037844386, true}, // -1 turned by a third of a turn: the same bulb
		{4, 3, -1.22908, 0, false},
		{3, 3, 0.26443, 1.26049, false},
		{3, 3, -0.26443, 1.26049, false},
	} {
		prec := uint(120)
		nu, err := newtonNucleusD(t.Context(), big.NewFloat(c.re).SetPrec(prec), big.NewFloat(c.im).SetPrec(prec), c.p, prec, NewExp(0.01), NewExp(1), c.d)
		if err != nil {
			t.Errorf("power %d period %d near %g%+gi: %v", c.d, c.p, c.re, c.im, err)
			continue
		}
		if got := !isCardioid(nu.shape, c.d); got != c.bulb {
			re, im := nu.shape.float64s()
			t.Errorf("power %d period %d at %g%+gi: shape estimate %.3f%+.3fi says bulb %v, want %v", c.d, c.p, c.re, c.im, re, im, got, c.bulb)
		}
	}
}

// TestPowerSetReach: powerSetReach(d) is how far the power-d set reaches: nothing beyond
// it stays (a polar grid over the ring out to twice it escapes within 1000 iterations), and
// something at it or within 5% of it stays: for even d the tip -powerSetReach(d) (z_3 = z_2),
// for odd d a point found on a polar grid (as the comment of powerSetReach says).
func TestPowerSetReach(t *testing.T) {
	stays := func(c complex128, d int) bool {
		z := c
		for range 2000 {
			if cmplx.Abs(z) > 2 {
				return false
			}
			p := z
			for range d - 1 {
				p *= z
			}
			z = p + c
		}
		return true
	}
	far := map[int]complex128{
		3: 0.24511646708290297 + 1.3233034656616667i,
		5: 0.8837694158558416 + 0.7776684455543105i,
		7: 0.03653652116072109 + 1.1178651243016178i,
	}
	for d := 2; d <= MaxPower; d++ {
		r := powerSetReach(d)
		if want := math.Pow(2, 1/float64(d-1)); r != want {
			t.Errorf("powerSetReach(%d) = %v, want the escape radius %v", d, r, want)
		}
		if c, ok := far[d]; ok {
			if !stays(c, d) || cmplx.Abs(c) < 0.95*r || cmplx.Abs(c) > r {
				t.Errorf("power %d: %v (|c| %.4f) should stay, within 5%% of the reach %.4f", d, c, cmplx.Abs(c), r)
			}
		} else {
			// The tip -r: a Misiurewicz point, whose orbit float64 cannot follow for long
			// (its fixed point repels), so its landing is checked instead.
			c := complex(-r, 0)
			z2 := cmplx.Pow(c, complex(float64(d), 0)) + c
			if z3 := cmplx.Pow(z2, complex(float64(d), 0)) + c; cmplx.Abs(z3-z2) > 1e-12 || cmplx.Abs(z2) > 2 {
				t.Errorf("power %d: the tip %v has z2 %v, z3 %v", d, c, z2, z3)
			}
		}
		for i := 1; i <= 20; i++ {
			rad := r * (1 + float64(i)/20)
			for j := range 500 {
				if c := cmplx.Rect(rad, 2*math.Pi*float64(j)/500); stays(c, d) {
					t.Fatalf("power %d: %v (|c| = %.4f, beyond the reach %.4f) stays", d, c, rad, r)
				}
			}
		}
	}
}

// TestBallGrow: the ball's growth under z^d is (|Z| + R)^d - |Z|^d, and for d = 2 the
// Mandelbrot set's 2|Z|R + R^2 exactly.
func TestBallGrow(t *testing.T) {
	for _, v := range [][2]float64{{0, 1e-3}, {0.7, 1e-20}, {1.9, 0.3}, {1e-5, 1e-5}} {
		za, r := NewExp(v[0]), NewExp(v[1])
		if got, want := ballGrow(za, r, 2), za.Mul(r).Ldexp(1).Add(r.Mul(r)); got != want {
			t.Errorf("d 2 at %v: %v, want %v", v, got, want)
		}
		for d := 3; d <= MaxPower; d++ {
			want := math.Pow(v[0]+v[1], float64(d)) - math.Pow(v[0], float64(d))
			if v[1] < 1e-10*v[0] { // float64 cancels: the first-order term
				want = float64(d) * math.Pow(v[0], float64(d-1)) * v[1]
			}
			if got := ballGrow(za, r, d).Float64(); math.Abs(got-want) > 1e-12*want {
				t.Errorf("d %d at %v: %v, want %v", d, v, got, want)
			}
		}
	}
}
