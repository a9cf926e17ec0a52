package fractal

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
)

// foldRootDistances iterates formula fm's z <- f(z)^D + c in math/big at prec bits at c and at
// c + h, c + ih, and returns for each k from 1 to p the first-order distance |J^-1 z_k(c)|
// (log2) from c to a root of z_k, with J the Jacobian by finite differences of step h: an
// independent check of a nucleus, by neither foldPass's orbit nor its Jacobian.
func foldRootDistances(fm Formula, cr, ci *big.Float, p int, prec uint, h Exp) []float64 {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	type pt struct{ cr, ci, zr, zi *big.Float }
	hb := h.Big(prec)
	pts := []pt{
		{cr, ci, nf(), nf()},
		{nf().Add(cr, hb), ci, nf(), nf()},
		{cr, nf().Add(ci, hb), nf(), nf()},
	}
	st := newFormulaBig(fm, prec)
	out := make([]float64, p+1)
	sub := func(a, b *big.Float) Exp { return ExpFromBig(nf().Sub(a, b)).Quo(h) }
	for k := 1; k <= p; k++ {
		for i := range pts {
			st.step(pts[i].zr, pts[i].zi, pts[i].cr, pts[i].ci)
		}
		z := pts[0]
		a, c := sub(pts[1].zr, z.zr), sub(pts[1].zi, z.zi) // d/d Re c
		b, d := sub(pts[2].zr, z.zr), sub(pts[2].zi, z.zi) // d/d Im c
		det := a.Mul(d).Sub(b.Mul(c))
		zr, zi := ExpFromBig(z.zr), ExpFromBig(z.zi)
		xr := d.Mul(zr).Sub(b.Mul(zi)).Quo(det)
		xi := a.Mul(zi).Sub(c.Mul(zr)).Quo(det)
		out[k] = cxFromExp(xr, xi).abs().Log2()
	}
	return out
}

// ownInside is the fraction of w x h pixels inside formula fm's own set in the view that
// frames it as find frames a minibrot of size 1 at its nucleus 0: zoom 1/powerSetReach.
func ownInside(fm Formula, w, h int) float64 {
	l := Home()
	l.Formula, l.Iterations = fm, 1000
	l.Re, l.Im = MustDecimal("0"), MustDecimal("0")
	l.Zoom = MustDecimal(NewExp(1 / powerSetReach(fm.Power())).Text(3))
	fr := NewFrame(l, w, h)
	in := 0
	for y := range h {
		for x := range w {
			if n, _ := fr.Escape(x, y); n == -1 {
				in++
			}
		}
	}
	return float64(in) / float64(w*h)
}

// checkFoldFound checks a minibrot that find reported for a fold from the view start,
// independently of find's own checks: the period (a root of z_P within 1/16 of the found
// view's pixel (at w x h) of its centre, none of z_k for k < P within a pixel, by
// foldRootDistances), the nucleus inside the start view (w0 x h0) and the found view deeper,
// and its text read back the same.
func checkFoldFound(t *testing.T, start Location, w0, h0 int, f Found, w, h int) {
	t.Helper()
	name := start.Formula.String()
	if f.Loc.Formula != start.Formula {
		t.Fatalf("%s: found view's formula %v", name, f.Loc.Formula)
	}
	back, err := ParseLocationText(strings.TrimSuffix(f.Text(), fmt.Sprintf(" period=%d", f.Period)), Home())
	if err != nil || back.Formula != f.Loc.Formula || back.Re != f.Loc.Re || back.Zoom != f.Loc.Zoom {
		t.Errorf("%s: the found text %q reads back as %v (%v), want %v", name, f.Text(), back, err, f.Loc)
	}
	spacing := SpacingExp(f.Loc.ZoomExp(), w, h)
	prec := bitsBelow(spacing) + 64
	cr, ci := f.Loc.Re.Big(prec), f.Loc.Im.Big(prec)
	roots := foldRootDistances(start.Formula, cr, ci, f.Period, prec, spacing.Ldexp(-24))
	px := spacing.Log2()
	if roots[f.Period] > px-4 {
		t.Errorf("%s period %d: the centre is 2^%.1f pixels from a root of z_P, want below 1/16", name, f.Period, roots[f.Period]-px)
	}
	for k := 1; k < f.Period; k++ {
		if roots[k] < px {
			t.Errorf("%s period %d: z_%d has a root within a pixel (2^%.1f): the period is not minimal", name, f.Period, k, roots[k]-px)
		}
	}
	if !inView(start, w0, h0, cr, ci) {
		t.Errorf("%s: the nucleus %s, %s is outside the start view", name, f.Loc.Re, f.Loc.Im)
	}
	if f.Loc.ZoomExp().Cmp(start.ZoomExp()) <= 0 {
		t.Errorf("%s: found zoom %s is not deeper than %s", name, f.Loc.Zoom, start.Zoom)
	}
}

// checkFoldFraming checks the framing of a found view with the renderer's escape counts at
// w x h: the nucleus pixel inside, at most 1/20 of the border inside, and the copy at most 30%
// of the view and at least a quarter of what the formula's own set fills of the view that
// frames it the same way (the Mandelbrot set fills 2% of that view, the Burning Ship 2.1%,
// the Mandelbar 0.8%: its set is mostly filaments).
func checkFoldFraming(t *testing.T, start Location, f Found, w, h int) {
	t.Helper()
	name := start.Formula.String()
	fr := NewFrame(f.Loc, w, h)
	if n, _ := fr.Escape(w/2, h/2); n != -1 {
		t.Errorf("%s period %d: the nucleus pixel escapes after %d iterations, want inside", name, f.Period, n)
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
	t.Logf("%s period %d zoom %s: %.1f%% of the framed view inside, %d of %d border pixels", name, f.Period, f.Loc.Zoom, 100*frac, borderIn, border)
	if own := ownInside(start.Formula, w, h); frac < own/4 || frac > 0.3 || borderIn > border/20 {
		t.Errorf("%s period %d: %.1f%% of the framed view inside, %d of %d border pixels; want the minibrot whole in the view, %.1f%% to 30%% of it",
			name, f.Period, 100*frac, borderIn, border, 100*own/4)
	}
}

// TestFindFold: find (FindMinibrot) in the Burning Ship and the Mandelbar finds a nucleus whose
// period is right and minimal and whose framed view holds the minibrot: the period-3 "ship"
// near -1.755 and the period-4 one near -1.941 on the real axis (whose orbits stay real, on
// the Burning Ship's fold), a ship of the Burning Ship's armada off the axis, a Mandelbar
// minibrot off the axis from a view centred on a point of a minibrot's boundary (bisected
// between a nucleus and a point that escapes), and minibrots deep on the antenna of each from
// views at zoom 1e30.
func TestFindFold(t *testing.T) {
	for _, c := range []struct {
		kind       FormulaKind
		re, im     string // the view's centre, or with bits the nucleus to bisect from
		zoom       string
		edge       [2]float64 // with bits: a point that escapes, for the bisection
		bits       uint
		wantPeriod int // 0: any
		wantRe     float64
		w, h       int
		slow       bool
	}{
		{BurningShip, "-1.75", "0.01", "10", [2]float64{}, 0, 3, -1.7548776662466927, 48, 36, false},
		{BurningShip, "-1.94", "0.002", "100", [2]float64{}, 0, 4, -1.9407998065294848, 48, 36, false},
		{Mandelbar, "-1.755", "0.001", "10", [2]float64{}, 0, 3, -1.7548776662466927, 48, 36, false},
		{Mandelbar, "-1.9408", "0", "100", [2]float64{}, 0, 4, -1.9407998065294848, 48, 36, false},
		{BurningShip, "-1.7626", "-0.0284", "40", [2]float64{}, 0, 11, -1.7625677606, 48, 36, false},
		{Mandelbar, "-1.7548776662466927", "0", "1e4", [2]float64{-1.7548776662466927 + 0.1*math.Cos(0.7), 0.1 * math.Sin(0.7)}, 60, 0, 0, 48, 36, false},
		{BurningShip, "-1.8000000000000000444089209850062616169452667236328125", "0", "1e30", [2]float64{}, 0, 0, 0, 32, 24, true},
		{Mandelbar, "-1.95", "0", "1e30", [2]float64{}, 0, 0, 0, 32, 24, true},
		// The nearest nucleus, of period 175, is a sliver thinner than a pixel of its view.
		{Mandelbar, "-1.8000000000000000444089209850062616169452667236328125", "0", "1e30", [2]float64{}, 0, 0, 0, 32, 24, true},
	} {
		if c.slow && (testing.Short() || raceEnabled) {
			continue // deep pixels at thousands of iterations: the run without the race detector has them
		}
		fm, err := MakeFormula(c.kind, 2)
		if err != nil {
			t.Fatal(err)
		}
		start := Home()
		start.Formula, start.Zoom, start.Iterations = fm, MustDecimal(c.zoom), 1000
		start.Re, start.Im = MustDecimal(c.re), MustDecimal(c.im)
		if c.bits > 0 {
			inRe, _ := start.Re.Big(64).Float64()
			inIm, _ := start.Im.Big(64).Float64()
			start.Re, start.Im = formulaEdgePoint(fm, inRe, inIm, c.edge[0], c.edge[1], c.bits, 3000)
		}
		f, err := FindMinibrot(t.Context(), start, 320, 240, 160, 120, 100000)
		if err != nil {
			t.Errorf("%v at %s, %s zoom %s: %v", fm, start.Re, start.Im, c.zoom, err)
			continue
		}
		if c.wantPeriod != 0 {
			got, _ := f.Loc.Re.Big(64).Float64()
			if tol := 1e-3 / f.Loc.ZoomExp().Float64(); f.Period != c.wantPeriod || math.Abs(got-c.wantRe) > tol {
				t.Errorf("%v at %s, %s: period %d at %s, want %d at %v", fm, start.Re, start.Im, f.Period, f.Loc.Re, c.wantPeriod, c.wantRe)
			}
		}
		checkFoldFound(t, start, 320, 240, f, c.w, c.h)
		checkFoldFraming(t, start, f, c.w, c.h)
	}
}

// TestFindFoldNeverWrong: from views where Newton's method has a hard time (the Burning Ship's
// edge next to the ship, at zoom 1e4, where the orbits of every candidate's disc pass near the
// folds), find either finds a nucleus that the independent check confirms (period, minimality,
// inside the view) or says in one sentence that it found none: never a wrong "found".
func TestFindFoldNeverWrong(t *testing.T) {
	fm := Formula{Kind: BurningShip}
	found, refused := 0, 0
	for _, a := range []float64{0.1, 3.7, 4.3} {
		if a == 0.1 && (testing.Short() || raceEnabled) {
			continue // a search that fails tries every candidate: the run without the race detector has it
		}
		start := Home()
		start.Formula, start.Zoom, start.Iterations = fm, MustDecimal("1e4"), 1000
		start.Re, start.Im = formulaEdgePoint(fm, -1.7548776662466927, 0, -1.7548776662466927+0.1*math.Cos(a), 0.1*math.Sin(a), 60, 3000)
		f, err := FindMinibrot(t.Context(), start, 320, 240, 160, 120, 100000)
		if err != nil {
			if !errors.Is(err, ErrNoMinibrot) || strings.Contains(err.Error(), "\n") {
				t.Errorf("at %s, %s: %q, want a one-line no-minibrot sentence", start.Re, start.Im, err)
			}
			refused++
			continue
		}
		found++
		checkFoldFound(t, start, 320, 240, f, 48, 36)
	}
	t.Logf("%d found and confirmed, %d refused in a sentence", found, refused)
}
