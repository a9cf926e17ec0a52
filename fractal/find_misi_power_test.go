package fractal

import (
	"context"
	"fmt"
	"math/big"
	"testing"
)

// powerOrbitBig iterates z <- z^d + c and dz <- d z^(d-1) dz + 1 from 0 in math/big at prec
// bits, n steps, and returns z_k and dz_k for k = 0..n: the test's own orbit, by none of
// find's code.
func powerOrbitBig(d int, cr, ci *big.Float, n int, prec uint) (zs, dzs [][2]*big.Float) {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	mul := func(ar, ai, br, bi *big.Float) (*big.Float, *big.Float) {
		return nf().Sub(nf().Mul(ar, br), nf().Mul(ai, bi)), nf().Add(nf().Mul(ar, bi), nf().Mul(ai, br))
	}
	zr, zi, dr, di := nf(), nf(), nf(), nf()
	zs = [][2]*big.Float{{zr, zi}}
	dzs = [][2]*big.Float{{dr, di}}
	for range n {
		wr, wi := nf().SetInt64(1), nf() // z^(d-1)
		for range d - 1 {
			wr, wi = mul(wr, wi, zr, zi)
		}
		dd := nf().SetInt64(int64(d))
		ndr, ndi := mul(wr, wi, dr, di)
		dr, di = ndr.Mul(ndr, dd), ndi.Mul(ndi, dd)
		dr.Add(dr, big.NewFloat(1))
		pr, pi := mul(wr, wi, zr, zi)
		zr, zi = pr.Add(pr, cr), pi.Add(pi, ci)
		zs = append(zs, [2]*big.Float{zr, zi})
		dzs = append(dzs, [2]*big.Float{dr, di})
	}
	return zs, dzs
}

// checkMisiurewiczD is checkMisiurewicz for the power-d set: from f's printed centre, in
// math/big, z_{Q+P} - z_Q has a root within a hundredth of a pixel, z_{Q-1+P} - z_{Q-1} and
// z_{Q+k} - z_Q for the proper divisors k of P have none; the orbit never comes within a
// pixel of 0 (not a nucleus), and the cycle it lands on is repelling (|prod d z^(d-1)| > 1).
func checkMisiurewiczD(t *testing.T, name string, d int, f Found, w, h int) {
	t.Helper()
	spacing := SpacingExp(f.Loc.ZoomExp(), w, h)
	prec := bitsBelow(spacing) + 64
	q, p := f.Preperiod, f.Period
	zs, dzs := powerOrbitBig(d, f.Loc.Re.Big(prec), f.Loc.Im.Big(prec), q+p, prec)
	sub := func(a, b [2]*big.Float) [2]*big.Float {
		return [2]*big.Float{new(big.Float).SetPrec(prec).Sub(a[0], b[0]), new(big.Float).SetPrec(prec).Sub(a[1], b[1])}
	}
	rootAt := func(q, p int) Exp { return rootDist(sub(zs[q+p], zs[q]), sub(dzs[q+p], dzs[q])) }
	here := spacing.MulFloat(0.01)
	if r := rootAt(q, p); r.Cmp(here) > 0 {
		t.Errorf("%s: z_{Q+P} = z_Q is %s away, more than a hundredth of a pixel (%s)", name, r.Text(3), spacing.Text(3))
	}
	if r := rootAt(q-1, p); r.Cmp(here) <= 0 {
		t.Errorf("%s: preperiod %d is not minimal: z_{Q-1+P} = z_{Q-1} %s away", name, q, r.Text(3))
	}
	for k := 1; k < p; k++ {
		if r := rootAt(q, k); p%k == 0 && r.Cmp(here) <= 0 {
			t.Errorf("%s: period %d is not minimal: z_{Q+%d} = z_Q %s away", name, p, k, r.Text(3))
		}
	}
	mult := cxOne
	for k := 1; k <= q+p; k++ {
		z := cxFromExp(ExpFromBig(zs[k][0]), ExpFromBig(zs[k][1]))
		if z.abs().Cmp(spacing) < 0 {
			t.Errorf("%s: z_%d is within a pixel of 0: periodic, a nucleus", name, k)
		}
		if k >= q && k < q+p {
			mult = cxMul(mult, cxMul(cxPow(z, d-1), cxFrom(float64(d), 0)))
		}
	}
	if mult.abs().Cmp(NewExp(1)) <= 0 {
		t.Errorf("%s: the cycle's multiplier %s is not repelling", name, mult.abs().Text(3))
	}
}

// TestMisiurewiczPowerD: the Misiurewicz search in the power-d sets (D = 3, 4) finds, from
// views on a minibrot's boundary (bisected between its nucleus and a point that escapes) at
// zoom 1e4 to 1e20, a point inside the view that checkMisiurewiczD confirms; at the power-4
// set's tip -2^(1/3) it finds the tip itself (preperiod 2, period 1: z_2 = 2^(1/3) is fixed).
func TestMisiurewiczPowerD(t *testing.T) {
	const w, h = 320, 240
	for _, c := range []struct {
		d                        int
		inRe, inIm, outRe, outIm float64 // with zoom above 1: the bisection's ends; else the centre (inRe, inIm)
		zoom                     string
		want                     string
		slow                     bool
	}{
		{3, 0.26443, 1.26049, 0.6, 1.5, "1e4", "", true},
		{4, -1.22908, 0, -1.22908, 0.3, "1e4", "", false},
		{3, 0.26443, 1.26049, 0.6, 1.5, "1e12", "", true},
		{3, 0.26443, 1.26049, 0.6, 1.5, "1e20", "", true},
		{4, -1.259921, 0, 0, 0, "1", "re=-1.25992 im=0 preperiod=2 period=1", false},
	} {
		if c.slow && (testing.Short() || raceEnabled) {
			continue // preperiods in the thousands in math/big: the run without the race detector has them
		}
		fm, err := MakeFormula(Mandelbrot, c.d)
		if err != nil {
			t.Fatal(err)
		}
		l := Home()
		l.Formula, l.Zoom, l.Iterations = fm, MustDecimal(c.zoom), 1000
		if c.want == "" {
			l.Re, l.Im = formulaEdgePoint(fm, c.inRe, c.inIm, c.outRe, c.outIm, 80, 3000)
		} else {
			l.Re, l.Im = MustDecimal(fmt.Sprint(c.inRe)), MustDecimal(fmt.Sprint(c.inIm))
		}
		name := fmt.Sprintf("power %d at %s,%s zoom %s", c.d, l.Re, l.Im, c.zoom)
		f, err := FindMisiurewicz(context.Background(), l, w, h, w/2, h/2, 1_000_000)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		t.Logf("%s: %s", name, f.Text())
		if f.Loc.Formula != fm || !f.InView(l, w, h) {
			t.Errorf("%s: %s (formula %v) is not in the view or not the power-%d set's", name, f.Text(), f.Loc.Formula, c.d)
		}
		if got := fmt.Sprintf("re=%s im=%s preperiod=%d period=%d", f.Loc.Re, f.Loc.Im, f.Preperiod, f.Period); c.want != "" && got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
		checkMisiurewiczD(t, name, c.d, f, w, h)
	}
}

// TestMisiurewiczPowerDNeverPeriodic: TestMisiurewiczNeverPeriodic for the power-d sets: from
// views where Newton's method stops at a nucleus (0, and the power-4 set's period-2 nucleus -1)
// or near one, what is found is never periodic (checkMisiurewiczD: its orbit never comes
// within a pixel of 0 and lands on a repelling cycle), or the search says it found none.
func TestMisiurewiczPowerDNeverPeriodic(t *testing.T) {
	const w, h = 320, 240
	for _, c := range []struct {
		d            int
		re, im, zoom string
	}{
		{3, "0", "0", "0.5"},
		{3, "-0.1", "0.05", "2"},
		{4, "0", "0", "0.8"},
		{4, "-1", "0", "3"},
	} {
		fm, _ := MakeFormula(Mandelbrot, c.d)
		l := Home()
		l.Formula, l.Re, l.Im, l.Zoom = fm, MustDecimal(c.re), MustDecimal(c.im), MustDecimal(c.zoom)
		name := fmt.Sprintf("power %d at %s,%s zoom %s", c.d, c.re, c.im, c.zoom)
		f, err := FindMisiurewicz(context.Background(), l, w, h, w/2, h/2, 1000)
		if err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		t.Logf("%s: %s", name, f.Text())
		checkMisiurewiczD(t, name, c.d, f, w, h)
	}
}
