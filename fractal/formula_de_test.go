package fractal

import (
	"math"
	"math/big"
	"testing"
)

// formulaOrbitBig is z_m of the orbit z1 = (zr, zi), z <- f(z)^D + (cr, ci), in math/big at
// prec bits.
func formulaOrbitBig(fm Formula, zr, zi, cr, ci *big.Float, m int, prec uint) (*big.Float, *big.Float) {
	xr, xi := new(big.Float).SetPrec(prec).Set(zr), new(big.Float).SetPrec(prec).Set(zi)
	st := newFormulaBig(fm, prec)
	for range m - 1 {
		st.step(xr, xi, cr, ci)
	}
	return xr, xi
}

// formulaDEBig is the distance estimate in pixels and the normal of the pixel (re, im) of a
// view of fm, from math/big alone: the orbit's escape count n (which must be want), its
// continuation to SmoothBailout (at most 8 more steps) as the float64 loops continue it, and
// the Jacobian of z_m by central differences in math/big (for a Julia set, with parameter
// (jr, ji), in z1; else in c), scaled by spacing. ok is false where the count is not want.
func formulaDEBig(fm Formula, re, im, jr, ji *big.Float, julia bool, want int, spacing Exp, prec uint) (de, ur, ui float64, ok bool) {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	cr, ci := re, im
	if julia {
		cr, ci = jr, ji
	}
	// The count and the continuation's end m.
	xr, xi := nf().Set(re), nf().Set(im)
	st := newFormulaBig(fm, prec)
	abs2 := func() float64 {
		r, _ := xr.Float64()
		i, _ := xi.Float64()
		return r*r + i*i
	}
	n := 1
	for ; abs2() <= 4; n++ {
		if n >= want {
			return 0, 0, 0, false
		}
		st.step(xr, xi, cr, ci)
	}
	if n != want {
		return 0, 0, 0, false
	}
	m := n
	for abs2() <= SmoothBailout && m < n+8 {
		st.step(xr, xi, cr, ci)
		m++
	}
	zr, _ := xr.Float64()
	zi, _ := xi.Float64()
	// Central differences: h a 2^-50 of the spacing.
	h := nf().SetMantExp(spacing.Big(prec), -50)
	col := func(dr, di *big.Float) (float64, float64) {
		at := func(sign float64) (*big.Float, *big.Float) {
			s := nf().SetFloat64(sign)
			pr := nf().Add(re, nf().Mul(s, dr))
			pi := nf().Add(im, nf().Mul(s, di))
			if julia {
				return formulaOrbitBig(fm, pr, pi, cr, ci, m, prec)
			}
			return formulaOrbitBig(fm, pr, pi, pr, pi, m, prec)
		}
		ar, ai := at(1)
		br, bi := at(-1)
		// (z(+h) - z(-h)) / 2h * spacing = (z(+h) - z(-h)) * 2^49.
		gr, _ := nf().SetMantExp(ar.Sub(ar, br), 49).Float64()
		gi, _ := nf().SetMantExp(ai.Sub(ai, bi), 49).Float64()
		return gr, gi
	}
	zero := nf()
	ja, jc := col(h, zero) // d/da: the first column
	jb, jd := col(zero, h) // d/db
	// The estimate's definition, written out: 2 |z|^2 ln|z| / |J^T z|, normal J^T z.
	gr, gi := ja*zr+jc*zi, jb*zr+jd*zi
	az, ag := math.Hypot(zr, zi), math.Hypot(gr, gi)
	return 2 * az * az * math.Log(az) / ag, gr / ag, gi / ag, true
}

// TestFormulaDerivativeAgainstBig: the distance estimate and the normal of every formula's
// pixels, from the float64 loop (zoom 1e4), the float32 one (zoom 10) and perturbation with
// the formula's BLA table (zoom 1e30), against the Jacobian taken by central differences of
// the math/big orbit. The Burning Ship's and the Mandelbar's Jacobians are not conformal (a
// complex dz/dc would be wrong), and a fold's sign dropped or applied to the wrong row moves
// the normal.
func TestFormulaDerivativeAgainstBig(t *testing.T) {
	const w, h = 40, 30
	var pixels [][2]int
	for i := range 24 {
		pixels = append(pixels, [2]int{(i * 37) % w, (i * 23) % h})
	}
	for _, fm := range allFormulas() {
		if raceEnabled && fm != (Formula{Kind: BurningShip}) {
			continue // the race detector's run: the Burning Ship's Jacobian alone
		}
		tipRe, _ := formulaEdgePoint(fm, 0, 0, -2.5, 0, 60, 200)
		tip := tipRe.Float64()
		for _, c := range []struct {
			zoom string
			tol  float64
			want Precision
		}{
			// float32: its own orbit strays from the exact one by up to a few per cent
			// after a hundred steps near the edge.
			{"10", 0.1, Float32},
			{"1e4", 1e-6, Double},
			{"1e30", 1e-6, Perturbation},
		} {
			found := false
			for i := 0; !found; i++ {
				l := Home()
				l.Formula = fm
				l.Iterations = 400
				re, im, ok, more := formulaEdgeCentre(fm, tip, i, 120, l.Iterations)
				if !more {
					break
				}
				if !ok {
					continue
				}
				l.Re, l.Im, l.Zoom = re, im, MustDecimal(c.zoom)
				l.Color.Method = "distance"
				if err := l.Validate(); err != nil {
					t.Fatal(err)
				}
				f := NewFrame(l, w, h)
				if f.Precision() != c.want {
					t.Fatalf("%v at %s: precision %v, want %v", fm, c.zoom, f.Precision(), c.want)
				}
				prec := f.ReferenceBits() + 128
				checked := 0
				for _, p := range pixels {
					r := f.Pixel(p[0], p[1])
					if r.N < 0 {
						continue
					}
					re, im := f.PointBig(p[0], p[1], prec)
					de, ur, ui, ok := formulaDEBig(fm, re, im, nil, nil, false, r.N, f.PixelSpacing(), prec)
					if !ok {
						continue
					}
					checked++
					if math.Abs(r.DE-de) > c.tol*de || math.Hypot(r.Ur-ur, r.Ui-ui) > c.tol*10 {
						t.Errorf("%v at %s, pixel %v (n %d): distance %.9g normal (%.6f, %.6f), math/big %.9g (%.6f, %.6f)",
							fm, c.zoom, p, r.N, r.DE, r.Ur, r.Ui, de, ur, ui)
					}
				}
				if checked < len(pixels)/3 {
					continue // not a view of the edge: try the next
				}
				found = true
				t.Logf("%v at %s: %d pixels checked", fm, c.zoom, checked)
			}
			if !found {
				t.Errorf("%v at %s: no view of the edge", fm, c.zoom)
			}
		}
	}
}

// TestFormulaJuliaDerivativeAgainstBig: as TestFormulaDerivativeAgainstBig for Julia sets of
// the folds (the Jacobian in z1, its steps adding nothing), directly and by perturbation.
func TestFormulaJuliaDerivativeAgainstBig(t *testing.T) {
	const w, h = 40, 30
	cubic, _ := MakeFormula(Mandelbar, 3)
	for _, fm := range []Formula{{Kind: BurningShip}, {Kind: Mandelbar}, cubic} {
		// A point of the Julia set's edge: bisected on z = t (2 + 0.6i) between 0, which
		// stays (c is in the set), and 2 + 0.6i, which escapes.
		const bits = 100
		prec := uint(bits + 64)
		nf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
		julia := JuliaParam{On: true, Re: MustDecimal("-0.1"), Im: MustDecimal("0.1")}
		jr, ji := julia.Re.Big(prec), julia.Im.Big(prec) // the decimals' values, not the float64s'
		lo, hi, mid := nf(0), nf(1), nf(0)
		for range bits {
			mid.Add(lo, hi)
			mid.SetMantExp(mid, -1)
			if EscapeFormulaBig(fm, nf(0).Mul(mid, nf(2)), nf(0).Mul(mid, nf(0.6)), jr, ji, 300, prec) < 0 {
				lo.Set(mid)
			} else {
				hi.Set(mid)
			}
		}
		for _, zoom := range []string{"1e4", "1e20"} {
			l := Home()
			l.Formula = fm
			l.Iterations = 300
			l.Julia = julia
			l.Re = MustDecimal(trimZeros(nf(0).Mul(lo, nf(2)).Text('f', 40)))
			l.Im = MustDecimal(trimZeros(nf(0).Mul(lo, nf(0.6)).Text('f', 40)))
			l.Zoom = MustDecimal(zoom)
			l.Color.Method = "slopes"
			if err := l.Validate(); err != nil {
				t.Fatal(err)
			}
			f := NewFrame(l, w, h)
			prec := f.ReferenceBits() + 128
			jr, ji := julia.Re.Big(prec), julia.Im.Big(prec)
			checked := 0
			for i := range 24 {
				x, y := (i*37)%w, (i*23)%h
				r := f.Pixel(x, y)
				if r.N < 0 {
					continue
				}
				re, im := f.PointBig(x, y, prec)
				de, ur, ui, ok := formulaDEBig(fm, re, im, jr, ji, true, r.N, f.PixelSpacing(), prec)
				if !ok {
					continue
				}
				checked++
				if math.Abs(r.DE-de) > 1e-6*de || math.Hypot(r.Ur-ur, r.Ui-ui) > 1e-5 {
					t.Errorf("%v Julia at %s, pixel (%d, %d) (n %d): distance %.9g normal (%.6f, %.6f), math/big %.9g (%.6f, %.6f)",
						fm, zoom, x, y, r.N, r.DE, r.Ur, r.Ui, de, ur, ui)
				}
			}
			if checked < 8 {
				t.Errorf("%v Julia at %s (%v): only %d pixels escaped to check", fm, zoom, f.Precision(), checked)
			}
			t.Logf("%v Julia at %s (%v): %d pixels checked", fm, zoom, f.Precision(), checked)
		}
	}
}

// TestFormulaDerivativeExpAgainstBig: the distance estimate and normal at zoom 1e400 (a
// PerturbationExp frame: PerturbEscapeFormulaDEExp, its Jacobian with an exponent of its own,
// through the extended table's blocks by J' = A J + spacing·B) against central differences of the math/big orbit, at Misiurewicz points of the Burning
// Ship (-1 - i) and of its cube (1/2 + i sqrt(3)/2), within 1e-6.
func TestFormulaDerivativeExpAgainstBig(t *testing.T) {
	const w, h = 24, 16
	cube, _ := MakeFormula(BurningShip, 3)
	for _, c := range []struct {
		fm     Formula
		re, im string
	}{
		{Formula{Kind: BurningShip}, "-1", "-1"},
		{cube, "0.5", "0.8660254037844386467637231707529361834714026269051903140279034897259665084544000185405730933786242878378514825"},
	} {
		l := Home()
		l.Formula, l.Iterations = c.fm, 3000
		l.Re, l.Im, l.Zoom = MustDecimal(c.re), MustDecimal(c.im), MustDecimal("1e400")
		l.Color.Method = "slopes"
		if err := l.Validate(); err != nil {
			t.Fatal(err)
		}
		f := NewFrame(l, w, h)
		if f.Precision() != PerturbationExp {
			t.Fatalf("%v: precision %v", c.fm, f.Precision())
		}
		prec := f.ReferenceBits() + 128
		checked := 0
		for i := range 10 {
			x, y := (i*37)%w, (i*23)%h
			r := f.Pixel(x, y)
			if r.N < 0 {
				continue
			}
			re, im := f.PointBig(x, y, prec)
			de, ur, ui, ok := formulaDEBig(c.fm, re, im, nil, nil, false, r.N, f.PixelSpacing(), prec)
			if !ok {
				continue
			}
			checked++
			if math.Abs(r.DE-de) > 1e-6*de || math.Hypot(r.Ur-ur, r.Ui-ui) > 1e-6 {
				t.Errorf("%v at 1e400, pixel (%d, %d) (n %d): distance %.9g normal (%.6f, %.6f), math/big %.9g (%.6f, %.6f)",
					c.fm, x, y, r.N, r.DE, r.Ur, r.Ui, de, ur, ui)
			}
		}
		if checked < 5 {
			t.Errorf("%v at 1e400: only %d pixels checked", c.fm, checked)
		}
		t.Logf("%v at 1e400: %d pixels checked", c.fm, checked)
	}
}
