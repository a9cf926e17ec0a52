package fractal

import (
	"math"
	"math/big"
	"testing"
)

// TestFormulaExpAgainstBig: every formula at zoom 1e400, past float64's exponent range (a
// PerturbationExp frame: the deltas in cx while they are tiny), at a Misiurewicz point of
// its set (formulaTip, or for the Mandelbar misiurewiczPoint: the orbits chaotic at any
// depth): the frame's counts of 20 pixels against math/big at two precisions,
// where those agree and no step came within 1e-9 of the escape circle; and the Julia sets'
// likewise at 1e400 (their deltas raised to the power D near the critical point).
func TestFormulaExpAgainstBig(t *testing.T) {
	const w, h, bits = 48, 32, 1400
	var pixels [][2]int
	for i := range 20 {
		pixels = append(pixels, [2]int{(i * 37) % w, (i * 23) % h})
	}
	for _, fm := range allFormulas() {
		if fm.IsMandelbrot() {
			continue // the Mandelbrot set's own loops (perturbexp.go), tested on their own
		}
		if raceEnabled && fm.Power() != 2 {
			continue // the race detector's run: the two folds at power 2
		}
		found := false
		for i := 3; !found; i++ {
			l := Home()
			l.Formula = fm
			l.Iterations = 3000
			re, im, ok, more := formulaEdgeCentre(fm, 0, i, bits, l.Iterations)
			if !more {
				if i > 3+24 {
					break
				}
				// The last candidate: a c with z4 = z5 near -1.19 + 0.22i (the Mandelbar's
				// points with z2 = z3 all have |z2| = 2, on the escape circle).
				var cr, ci *big.Float
				cr, ci, ok = misiurewiczPoint(fm, 4, -1.19, 0.22, 2*bits)
				if ok {
					re, im = MustDecimal(trimZeros(cr.Text('f', 430))), MustDecimal(trimZeros(ci.Text('f', 430)))
				}
				i = 3 + 24
			}
			if !ok {
				continue
			}
			l.Re, l.Im, l.Zoom = re, im, MustDecimal("1e400")
			if err := l.Validate(); err != nil {
				t.Fatal(err)
			}
			f := NewFrame(l, w, h)
			if f.Precision() != PerturbationExp {
				t.Fatalf("%v: precision %v", fm, f.Precision())
			}
			prec := f.ReferenceBits() + 64
			good, agree := 0, 0
			counts := map[int]bool{}
			for _, p := range pixels {
				re, im := f.PointBig(p[0], p[1], prec+64)
				n1, margin := exactMargin(fm, re, im, l.Iterations, prec)
				n2 := EscapeFormulaBig(fm, re, im, re, im, l.Iterations, prec+64)
				if n1 != n2 || margin < 1e-9 {
					continue
				}
				good++
				counts[n1] = true
				if n, _ := f.Escape(p[0], p[1]); n == n1 {
					agree++
				} else {
					t.Errorf("%v at 1e400 (%.20s, %.20s), pixel %v: %d, math/big %d", fm, l.Re, l.Im, p, n, n1)
				}
			}
			if good < len(pixels)/3 || len(counts) < 2 {
				continue // not a view of the edge: try the next
			}
			found = true
			t.Logf("%v at 1e400 (%.20s, %.20s): %d of %d well-conditioned pixels agree, %d counts", fm, l.Re, l.Im, agree, good, len(counts))
		}
		if !found {
			t.Errorf("%v at 1e400: no candidate centre gave a view of the edge", fm)
		}
	}
}

// newton2 is a zero of g near guess, by Newton's method in math/big at prec bits (the
// Jacobian by differences, to about prec/2 bits); ok false where it does not converge.
func newton2(g func(x, y *big.Float) (*big.Float, *big.Float), guessRe, guessIm float64, prec uint) (re, im *big.Float, ok bool) {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	zr, zi := nf().SetFloat64(guessRe), nf().SetFloat64(guessIm)
	h := new(big.Float).SetMantExp(big.NewFloat(1), -int(prec/2))
	for range 40 {
		gr, gi := g(zr, zi)
		ar, ai := g(nf().Add(zr, h), zi)
		br, bi := g(zr, nf().Add(zi, h))
		ar.Sub(ar, gr).Quo(ar, h)
		ai.Sub(ai, gi).Quo(ai, h)
		br.Sub(br, gr).Quo(br, h)
		bi.Sub(bi, gi).Quo(bi, h)
		det := nf().Sub(nf().Mul(ar, bi), nf().Mul(br, ai))
		if det.Sign() == 0 {
			return nil, nil, false
		}
		dr := nf().Sub(nf().Mul(bi, gr), nf().Mul(br, gi))
		di := nf().Sub(nf().Mul(ar, gi), nf().Mul(ai, gr))
		zr.Sub(zr, dr.Quo(dr, det))
		zi.Sub(zi, di.Quo(di, det))
		if v, _ := zr.Float64(); math.IsNaN(v) || math.Abs(v) > 4 {
			return nil, nil, false
		}
		if (dr.Sign() == 0 || dr.MantExp(nil) < -int(prec)+16) && (di.Sign() == 0 || di.MantExp(nil) < -int(prec)+16) {
			break // converged
		}
	}
	gr, gi := g(zr, zi)
	res := nf().Add(nf().Abs(gr), nf().Abs(gi)) // below float64's range: compared by exponent
	return zr, zi, res.Sign() == 0 || res.MantExp(nil) < -int(prec)/2+8
}

// juliaFixedPoint is a fixed point z = f(z)^D + c of fm near guess (newton2). A repelling one
// lies on the Julia set's edge, which about it is self-similar: its pixels' counts vary at any
// depth.
func juliaFixedPoint(fm Formula, cr, ci *big.Float, guessRe, guessIm float64, prec uint) (re, im *big.Float, ok bool) {
	st := newFormulaBig(fm, prec)
	return newton2(func(zr, zi *big.Float) (*big.Float, *big.Float) {
		wr, wi := new(big.Float).SetPrec(prec).Set(zr), new(big.Float).SetPrec(prec).Set(zi)
		st.step(wr, wi, cr, ci)
		return wr.Sub(wr, zr), wi.Sub(wi, zi)
	}, guessRe, guessIm, prec)
}

// misiurewiczPoint is a c near guess whose critical orbit under fm has z(k+1) = z(k)
// (newton2): the orbit lands on a repelling fixed point, and the set about c is filaments
// whose pixels' counts vary at any depth.
func misiurewiczPoint(fm Formula, k int, guessRe, guessIm float64, prec uint) (re, im *big.Float, ok bool) {
	st := newFormulaBig(fm, prec)
	return newton2(func(cr, ci *big.Float) (*big.Float, *big.Float) {
		zr, zi := formulaOrbitBig(fm, cr, ci, cr, ci, k, prec)
		wr, wi := new(big.Float).SetPrec(prec).Set(zr), new(big.Float).SetPrec(prec).Set(zi)
		st.step(wr, wi, cr, ci)
		return wr.Sub(wr, zr), wi.Sub(wi, zi)
	}, guessRe, guessIm, prec)
}

// exactMarginJulia is exactMargin for the orbit z1 = (zr, zi) with parameter (cr, ci).
func exactMarginJulia(fm Formula, zr, zi, cr, ci *big.Float, maxIter int, prec uint) (int, float64) {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	xr, xi, t, u := nf().Set(zr), nf().Set(zi), nf(), nf()
	st := newFormulaBig(fm, prec)
	four := big.NewFloat(4)
	margin := math.Inf(1)
	for n := 1; n <= maxIter; n++ {
		if n > 1 {
			st.step(xr, xi, cr, ci)
		}
		t.Mul(xr, xr)
		u.Mul(xi, xi)
		t.Add(t, u)
		r2, _ := u.Sub(t, four).Float64()
		margin = math.Min(margin, math.Abs(r2))
		if t.Cmp(four) > 0 {
			return n, margin
		}
	}
	return -1, margin
}

// TestFormulaExpJuliaAgainstBig: Julia sets of the folds at zoom 1e400, centred at a repelling fixed point (juliaFixedPoint): the counts of 16 pixels against
// math/big at two precisions, where those agree and no step came within 1e-9 of the escape
// circle.
func TestFormulaExpJuliaAgainstBig(t *testing.T) {
	const w, h, bits = 40, 24, 1400
	cubic, _ := MakeFormula(Mandelbar, 3)
	for _, c := range []struct {
		fm             Formula
		cr, ci         string
		guessR, guessI float64
	}{
		// The Burning Ship's fixed point for c = -0.1 + 0.1i attracts; for this c, z = 1.2 +
		// 0.3i (in the first quadrant, where the fold does nothing) is z^2 + c: repelling.
		{Formula{Kind: BurningShip}, "-0.15", "-0.42", 1.2, 0.3},
		{Formula{Kind: Mandelbar}, "-0.1", "0.1", 1.1, -0.1},
		{cubic, "-0.1", "0.1", 1.1, -0.1},
	} {
		fm := c.fm
		if raceEnabled && fm.Kind != BurningShip {
			continue // the race detector's run: one Julia set
		}
		prec := uint(2*bits + 64)
		julia := JuliaParam{On: true, Re: MustDecimal(c.cr), Im: MustDecimal(c.ci)}
		zr, zi, ok := juliaFixedPoint(fm, julia.Re.Big(prec), julia.Im.Big(prec), c.guessR, c.guessI, prec)
		if !ok {
			t.Fatalf("%v: no fixed point found", fm)
		}
		l := Home()
		l.Formula = fm
		l.Iterations = 1500
		l.Julia = julia
		const digits = bits*30103/100000 + 3
		l.Re, l.Im = MustDecimal(trimZeros(zr.Text('f', digits))), MustDecimal(trimZeros(zi.Text('f', digits)))
		l.Zoom = MustDecimal("1e400")
		if err := l.Validate(); err != nil {
			t.Fatal(err)
		}
		f := NewFrame(l, w, h)
		if f.Precision() != PerturbationExp {
			t.Fatalf("%v: precision %v", fm, f.Precision())
		}
		p := f.ReferenceBits() + 64
		good, agree := 0, 0
		counts := map[int]bool{}
		for i := range 16 {
			x, y := (i*37)%w, (i*23)%h
			re, im := f.PointBig(x, y, p+64)
			jr, ji := julia.Re.Big(p+64), julia.Im.Big(p+64)
			n1, margin := exactMarginJulia(fm, re, im, jr, ji, l.Iterations, p)
			n2 := EscapeFormulaBig(fm, re, im, jr, ji, l.Iterations, p+64)
			if n1 != n2 || margin < 1e-9 {
				continue
			}
			good++
			counts[n1] = true
			if n, _ := f.Escape(x, y); n == n1 {
				agree++
			} else {
				t.Errorf("%v Julia at 1e400, pixel (%d, %d): %d, math/big %d", fm, x, y, n, n1)
			}
		}
		if good < 8 || len(counts) < 2 {
			t.Errorf("%v Julia at 1e400: %d well-conditioned pixels, %d counts: not a view of the edge", fm, good, len(counts))
		}
		t.Logf("%v Julia at 1e400 (%.12s, %.12s): %d of %d pixels agree, %d counts", fm, l.Re, l.Im, agree, good, len(counts))
	}
}

// TestFormulaExpMatchesFloat64: at zoom 1e290, where both the float64 loop
// (PerturbEscapeFormula, no BLA) and the extended one (PerturbEscapeFormulaExp, its deltas in
// cx for their first hundred steps or so: below 2^-900) can run, their counts are the same and
// their smooth values within 1e-6: the cx steps are the float64 steps. A fold's sign wrong
// in the cx step moves the smooth values (which the counts at 1e400 may not see: the deltas'
// growth does not depend on their direction).
func TestFormulaExpMatchesFloat64(t *testing.T) {
	const w, h = 24, 16
	for _, fm := range allFormulas() {
		if fm.IsMandelbrot() {
			continue
		}
		for i := 3; ; i++ {
			re, im, ok, more := formulaEdgeCentre(fm, 0, i, 1000, 2000)
			if !more {
				// The Mandelbar's: see TestFormulaExpAgainstBig.
				cr, ci, found := misiurewiczPoint(fm, 4, -1.19, 0.22, 1100)
				if !found {
					t.Fatalf("%v: no Misiurewicz point found", fm)
				}
				re, im, ok = MustDecimal(trimZeros(cr.Text('f', 310))), MustDecimal(trimZeros(ci.Text('f', 310))), true
			}
			if !ok {
				continue
			}
			l := Home()
			l.Formula, l.Iterations = fm, 2000
			l.Re, l.Im, l.Zoom = re, im, MustDecimal("1e290")
			f, err := NewFrame(l, w, h).WithReference(t.Context(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			escaped, inCx := 0, 0
			for y := range h {
				for x := range w {
					dr, di := f.Delta(x, y)
					if math.Abs(dr)+math.Abs(di) < 0x1p-900 {
						inCx++
					}
					n1, nu1 := PerturbEscapeFormula(f.Ref, nil, dr, di, l.Iterations, nil)
					n2, nu2 := PerturbEscapeFormulaExp(f.Ref, nil, NewExp(dr), NewExp(di), l.Iterations, nil)
					if n1 != n2 || math.Abs(nu1-nu2) > 1e-6 {
						t.Fatalf("%v at (%.12s, %.12s) 1e290, pixel (%d, %d): float64 %d %.9f, extended %d %.9f", fm, l.Re, l.Im, x, y, n1, nu1, n2, nu2)
					}
					if n1 > 0 {
						escaped++
					}
				}
			}
			if escaped < w*h/2 || inCx < w*h/2 {
				t.Fatalf("%v: %d of %d pixels escaped, %d started in cx", fm, escaped, w*h, inCx)
			}
			t.Logf("%v at (%.12s, %.12s): %d of %d pixels escaped, the same", fm, l.Re, l.Im, escaped, w*h)
			break
		}
	}
}

// TestFormulaDEExpMatchesFloat64: the derivative past float64's range
// (PerturbEscapeFormulaDEExp, its Jacobian with an exponent of its own) against the float64
// loop's (PerturbEscapeFormulaDE, no BLA) at zoom 1e290, where both run: the same counts and
// smooth values, distance estimates within 1e-6 relative and normals within 1e-6 (a pixel
// 1e-7 pixels from the set differs by 1e-8: the two round the full value Z + d apart).
func TestFormulaDEExpMatchesFloat64(t *testing.T) {
	const w, h = 16, 12
	for _, fm := range allFormulas() {
		if fm.IsMandelbrot() {
			continue
		}
		for i := 3; ; i++ {
			re, im, ok, more := formulaEdgeCentre(fm, 0, i, 1000, 2000)
			if !more {
				cr, ci, found := misiurewiczPoint(fm, 4, -1.19, 0.22, 1100)
				if !found {
					t.Fatalf("%v: no Misiurewicz point found", fm)
				}
				re, im, ok = MustDecimal(trimZeros(cr.Text('f', 310))), MustDecimal(trimZeros(ci.Text('f', 310))), true
			}
			if !ok {
				continue
			}
			l := Home()
			l.Formula, l.Iterations = fm, 2000
			l.Re, l.Im, l.Zoom = re, im, MustDecimal("1e290")
			f, err := NewFrame(l, w, h).WithReference(t.Context(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			escaped := 0
			for y := range h {
				for x := range w {
					dr, di := f.Delta(x, y)
					a := PerturbEscapeFormulaDE(f.Ref, nil, dr, di, l.Iterations, f.Spacing, nil)
					b := PerturbEscapeFormulaDEExp(f.Ref, nil, NewExp(dr), NewExp(di), l.Iterations, NewExp(f.Spacing), nil)
					if a.N != b.N || math.Abs(a.Nu-b.Nu) > 1e-6 || math.Abs(a.DE-b.DE) > 1e-6*a.DE || math.Hypot(a.Ur-b.Ur, a.Ui-b.Ui) > 1e-6 {
						t.Fatalf("%v at 1e290, pixel (%d, %d): float64 %+v, extended %+v", fm, x, y, a, b)
					}
					if a.N > 0 {
						escaped++
					}
				}
			}
			if escaped < w*h/2 {
				t.Fatalf("%v: %d of %d pixels escaped", fm, escaped, w*h)
			}
			break
		}
	}
}

// TestFormulaReferencePeriod: a formula's reference inside a minibrot settles onto its cycle
// and stops there (period.go), as the Mandelbrot set's does: the Burning Ship's period-3
// mini ship (on the real axis, where its orbits are the Mandelbrot set's) at 1e30 with
// 100,000 iterations has period 3, is computed for a few hundred values and repeated, covers
// any count; its stored values are those of the orbit computed on without a period (within
// a rounding step), and the frame's pixels are those the long orbit gives, all inside.
func TestFormulaReferencePeriod(t *testing.T) {
	l := Home()
	l.Formula = Formula{Kind: BurningShip}
	l.Re = MustDecimal("-1.754877666246692760049508896358528691894606617772793143989")
	l.Im = MustDecimal("0")
	l.Zoom, l.Iterations = MustDecimal("1e30"), 100_000
	f, err := NewFrame(l, 16, 12).WithReference(t.Context(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref := f.Ref
	p, last, computed := ref.Period(), len(ref.Z)-1, ref.computed
	t.Logf("period %d, %d computed, orbit of %d values", p, computed, last+1)
	if p != 3 || ref.Escaped() || computed > 1000 || last != l.Iterations || !ref.Covers(MaxIterations) {
		t.Fatalf("period %d, escaped %v, %d computed, last index %d: want period 3, a few hundred computed, repeated to %d", p, ref.Escaped(), computed, last, l.Iterations)
	}
	long, err := newReference(l.Re, l.Im, f.ReferenceBits(), computed+30)
	if err != nil {
		t.Fatal(err)
	}
	long.noPeriod = true
	if err := long.setFormula(l.Formula); err != nil {
		t.Fatal(err)
	}
	if err := long.iterateFormula(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	for k := range long.Z {
		got, want := ref.zcx(k), long.zcx(k)
		if d := cxAdd(got, cx{-want.re, -want.im, want.e}); got != want && d.log2Abs() > want.log2Abs()-52 {
			t.Fatalf("Z[%d]: the periodic orbit gives %v, the long one %v", k, got, want)
		}
	}
	for y := range f.H {
		for x := range f.W {
			if n, _ := f.Escape(x, y); n != -1 {
				t.Fatalf("pixel (%d, %d) escapes at %d inside the mini ship", x, y, n)
			}
		}
	}
}
