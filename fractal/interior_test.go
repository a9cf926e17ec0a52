package fractal

import (
	"context"
	"math"
	"math/big"
	"math/cmplx"
	"testing"
)

// TestInteriorOrbitMatchesBulbs checks the period search on points of the main cardioid and
// the period-2 bulb, whose multipliers have closed forms (bulbInterior): the orbit's own
// period and |lambda| must be theirs.
func TestInteriorOrbitMatchesBulbs(t *testing.T) {
	f := NewFrame(Location{Iterations: 2000}, 8, 8)
	for _, c := range []complex128{0.2, complex(-0.3, 0.4), -1.2, complex(-1.05, 0.1), 0} {
		wantP, wantL := bulbInterior(real(c), imag(c))
		o := f.directOrbit(real(c), imag(c))
		if o == nil {
			t.Fatalf("c = %v escaped", c)
		}
		p, l := (&cycleScratch{}).cycleOf(o, 0, 1000, nil)
		if p != wantP || math.Abs(l-wantL) > 1e-9 {
			t.Errorf("c = %v: period %d, |lambda| %.12f; want %d, %.12f", c, p, l, wantP, wantL)
		}
	}
}

// TestInteriorNuclei checks points near the nuclei of components of periods 3 and 4 (the
// rabbit's and the period-4 bulb on the real axis): the period, and a multiplier near 0.
func TestInteriorNuclei(t *testing.T) {
	for _, tc := range []struct {
		c complex128
		p int
	}{
		{complex(-0.12256116687665, 0.74486176661974), 3},
		{-1.3107026413368328, 4},
		{-1.7548776662466927, 3},
		{complex(0.2822713907669139, 0.5300606175785253), 4},
	} {
		l := Location{Iterations: 5000}
		l.Re, l.Im = DecimalFromFloat(real(tc.c)), DecimalFromFloat(imag(tc.c))
		l.Zoom = DecimalFromFloat(1e6)
		f := NewFrame(l, 8, 8)
		p, m := f.Interior(4, 4)
		if p != tc.p || !(m < 1e-3) {
			t.Errorf("c = %v: period %d, |lambda| %g; want %d, near 0", tc.c, p, m, tc.p)
		}
	}
}

// TestInteriorDeep checks the period search at depth: the centre of p8007 (a Perturbation
// frame inside a period-8007 minibrot), against the orbit computed in math/big, and the centre
// of nucleus1e451 (PerturbationExp, a period-600 minibrot beside the Misiurewicz point i,
// whose cycle shadows i's repelling 2-cycle for most of its turn: a search that takes the
// first close return says period 2 there).
func TestInteriorDeep(t *testing.T) {
	for _, tc := range []struct {
		name string
		prec Precision
		p    int
	}{{"p8007", Perturbation, 8007}, {"nucleus1e451", PerturbationExp, 600}} {
		l := deepLocationNamed(t, tc.name)
		f, err := NewFrame(l, 16, 9).WithReference(context.Background(), &ReferenceCache{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.Precision() != tc.prec {
			t.Fatalf("%s: precision %v, want %v", tc.name, f.Precision(), tc.prec)
		}
		p, m := f.Interior(8, 4)
		if p != tc.p || !(m >= 0 && m < 1) {
			t.Errorf("%s: period %d, |lambda| %g; want %d and below 1", tc.name, p, m, tc.p)
		}
		if tc.name != "p8007" {
			continue
		}
		// The same pixel's orbit in math/big: its multiplier over one turn after the count.
		prec := f.ReferenceBits() + 64
		cr, ci := f.PointBig(8, 4, prec)
		zr, zi := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
		t1, t2 := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
		l2 := 0.0
		for n := range l.Iterations + p {
			t1.Mul(zr, zr)
			t2.Mul(zi, zi)
			t1.Sub(t1, t2)
			t2.Mul(zr, zi)
			zi.Add(t2, t2)
			zi.Add(zi, ci)
			zr.Add(t1, cr)
			if n >= l.Iterations {
				x, _ := zr.Float64()
				y, _ := zi.Float64()
				l2 += 1 + math.Log2(math.Hypot(x, y))
			}
		}
		if want := math.Exp2(l2); math.Abs(m-want) > 1e-6 {
			t.Errorf("%s: |lambda| %.9f, math/big %.9f", tc.name, m, want)
		}
	}
}

// TestInteriorNearEdge checks points inside components by the seahorse valley whose orbits
// settle slowly (|lambda| from 0.70 to 0.993): after 700 iterations they are still far from
// their cycles, and the search found no period there (a black ring inside each bulb's edge),
// or, where lambda is near -1, twice the period (a thin ring of another colour).
// The period and |lambda| must be those of the orbit run two million iterations on in float64
// (its first return within 1e-12, and the product of 2 z over it).
func TestInteriorNearEdge(t *testing.T) {
	for _, c := range []complex128{
		complex(-0.7396370370370371, 0.1348),
		complex(-0.7386, 0.13413333333333333),
		complex(-0.7399333333333333, 0.13524444444444444),
		complex(-0.7368222222222223, 0.13665185185185186),
		complex(-0.739812962962963, 0.13595740740740742), // lambda near -0.9: the search said 46
	} {
		z := complex(0, 0)
		for range 2_000_000 {
			z = z*z + c
		}
		wantP, best, w := 0, math.Inf(1), z
		for k := 1; k <= 1000 && wantP == 0; k++ {
			w = w*w + c
			if best = cmplx.Abs(w - z); best < 1e-12 {
				wantP = k
			}
		}
		lambda := complex(1, 0)
		for range wantP {
			lambda *= 2 * z
			z = z*z + c
		}
		wantL := cmplx.Abs(lambda)
		if best > 1e-12 || !(wantL < 1) {
			t.Fatalf("c = %v: the long orbit's closest return is %g at %d, |lambda| %g", c, best, wantP, wantL)
		}
		l := Location{Iterations: 700}
		l.Re, l.Im = DecimalFromFloat(real(c)), DecimalFromFloat(imag(c))
		l.Zoom = DecimalFromFloat(300)
		f := NewFrame(l, 3, 3)
		re, im := f.Point64(1, 1)
		if complex(re, im) != c {
			t.Fatalf("pixel (1, 1) is %v, not %v", complex(re, im), c)
		}
		if p, m := f.Interior(1, 1); p != wantP || math.Abs(m-wantL) > 1e-6 {
			t.Errorf("c = %v: period %d, |lambda| %.9f; want %d, %.9f", c, p, m, wantP, wantL)
		}
	}
}
