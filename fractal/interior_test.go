package fractal

import (
	"context"
	"math"
	"math/big"
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
