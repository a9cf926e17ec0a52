package fractal

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// deepEdgeCentre is the i-th candidate centre of a view of fm's edge at any depth, to bits
// bits, for i from 0 to 24 (more false past it; ok false where a candidate does not exist):
// formulaEdgeCentre's Misiurewicz points (z3 = z2, Newton's method from 1.3 e^(i pi i/12)) by
// misiurewiczPoint, whose convergence test holds past float64's exponent range (formulaTip's
// does not: at 3,400 bits its residual underflows), their critical orbit within |z| < 2; then,
// for the Mandelbar, whose candidates have none, z5 = z4 near -1.19 + 0.22i (as
// TestFormulaExpAgainstBig). Bisecting to the thousands of bits of zoom 1e1000 at thousands
// of iterations (formulaEdgePoint) would take minutes; a Misiurewicz point lies on the edge
// exactly, and the set about it is filaments whose counts vary at any depth.
func deepEdgeCentre(fm Formula, i int, bits uint) (re, im Decimal, ok, more bool) {
	prec := 2 * bits // misiurewiczPoint's result holds about prec/2 bits
	var cr, ci *big.Float
	switch {
	case i < 24:
		a := float64(i) * math.Pi / 12
		if cr, ci, ok = misiurewiczPoint(fm, 2, 1.3*math.Cos(a), 1.3*math.Sin(a), prec); ok {
			zr, zi := formulaOrbitBig(fm, cr, ci, cr, ci, 2, prec)
			r2, _ := new(big.Float).Add(new(big.Float).Mul(zr, zr), new(big.Float).Mul(zi, zi)).Float64()
			ok = r2 < 3.9 && r2 > 1e-6
		}
	case i == 24:
		cr, ci, ok = misiurewiczPoint(fm, 4, -1.19, 0.22, prec)
	default:
		return Decimal{}, Decimal{}, false, false
	}
	if !ok {
		return Decimal{}, Decimal{}, false, true
	}
	digits := int(float64(bits)*0.30103) + 3
	return MustDecimal(trimZeros(cr.Text('f', digits))), MustDecimal(trimZeros(ci.Text('f', digits))), true, true
}

// formulaExpEdgeView is formulaEdgeView past float64's exponent range: a 64x48
// PerturbationExp frame of fm's edge at zoom and iter iterations, with its reference, centred
// at the first candidate of deepEdgeCentre whose sample pixels are well conditioned (math/big at two
// precisions agree, no step within 1e-9 of the escape circle) for a third of them, with at
// least two counts; and those pixels and their counts in math/big. Fails the test when none is
// found.
func formulaExpEdgeView(t testing.TB, fm Formula, zoom string, iter int) (f Frame, pixels [][2]int, counts []int) {
	t.Helper()
	const w, h = 64, 48
	var sample [][2]int
	for i := range 24 {
		sample = append(sample, [2]int{(i * 37) % w, (i * 23) % h})
	}
	z := MustDecimal(zoom)
	bits := uint(math.Ceil(z.Exp().Log2())) + 40
	for i := 0; ; i++ {
		re, im, ok, more := deepEdgeCentre(fm, i, bits)
		if !more {
			break
		}
		if !ok {
			continue
		}
		l := Home()
		l.Formula, l.Iterations = fm, iter
		l.Re, l.Im, l.Zoom = re, im, z
		if err := l.Validate(); err != nil {
			t.Fatal(err)
		}
		f = NewFrame(l, w, h)
		if f.Precision() != PerturbationExp {
			t.Fatalf("%v at %s: precision %v", fm, zoom, f.Precision())
		}
		f, err := f.WithReference(t.Context(), &ReferenceCache{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		prec := f.ReferenceBits() + 64
		pixels, counts = nil, nil
		distinct := map[int]bool{}
		for _, p := range sample {
			cr, ci := f.PointBig(p[0], p[1], prec+64)
			n1, margin := exactMargin(fm, cr, ci, iter, prec)
			if n1 != EscapeFormulaBig(fm, cr, ci, cr, ci, iter, prec+64) || margin < 1e-9 {
				continue
			}
			pixels, counts = append(pixels, p), append(counts, n1)
			distinct[n1] = true
		}
		if len(pixels) >= len(sample)/3 && len(distinct) >= 2 {
			return f, pixels, counts
		}
	}
	t.Fatalf("%v at %s: no candidate centre gave a view of the edge", fm, zoom)
	return Frame{}, nil, nil
}

// deepBLAFormulas are the formulas the extended table's tests run: the Burning Ship, the
// Mandelbar and the cubic Mandelbrot set (a fold, the conjugate and a power), or under the
// race detector the Burning Ship alone.
func deepBLAFormulas() []Formula {
	cubic, _ := MakeFormula(Mandelbrot, 3)
	if raceEnabled {
		return []Formula{{Kind: BurningShip}}
	}
	return []Formula{{Kind: BurningShip}, {Kind: Mandelbar}, cubic}
}

// cxNeg is -z.
func cxNeg(z cx) cx { return cx{-z.re, -z.im, z.e} }

// cxRel is |a - b| / |b| (as a float64: 0 where a = b, +Inf where b is 0 and a is not).
func cxRel(a, b cx) float64 {
	d := cxAdd(a, cxNeg(b))
	if d.re == 0 && d.im == 0 {
		return 0
	}
	return math.Exp2(d.log2Abs() - b.log2Abs())
}

// stepExactCx is the perturbation step of delta d at the reference value z, in cx, with the
// Burning Ship's |X + x| - |X| taken by diffAbs's cases whatever the sizes (foldDeltaCx takes
// a tiny delta's sign from the reference's part alone, which a delta across the fold breaks).
func stepExactCx(fm Formula, z, d, dc cx) cx {
	w, u := foldDeltaCx(fm.Kind, z, d)
	if fm.Kind == BurningShip {
		re := diffAbsExp(MakeExp(z.re, z.e), MakeExp(d.re, d.e))
		im := diffAbsExp(MakeExp(z.im, z.e), MakeExp(d.im, d.e))
		u = cxFromExp(re, im)
	}
	return powerDeltaCx(fm.Power(), w, u, dc)
}

// TestFormulaBLAExpStep: a step's extended block (formulaStepBLAX) against the exact step
// (stepExactCx), for every formula, at reference values of any size (2^-1500 to 1) and deltas
// just inside the radius: A d + dc within eps/2 of the exact step, relative to the linear part.
// For the Burning Ship, a reference value 2^-1500 from the real axis (far below float64's
// range): the radius is at most half that distance, and a delta across the fold (whose step is
// not A d + dc) lies outside it; on the axis, radius 0.
func TestFormulaBLAExpStep(t *testing.T) {
	const eps = 0x1p-20
	rng := rand.New(rand.NewPCG(13, 14))
	for _, fm := range allFormulas() {
		for range 200 {
			z := cx{2*rng.Float64() - 1, 2*rng.Float64() - 1, -rng.IntN(1500)}.norm()
			b := formulaStepBLAX(fm, z, eps)
			if b.r.Sign() <= 0 {
				t.Fatalf("%v at %v: radius %v", fm, z, b.r)
			}
			th := 2 * math.Pi * rng.Float64()
			d := cx{0.999 * b.r.Mant() * math.Cos(th), 0.999 * b.r.Mant() * math.Sin(th), b.r.Exponent()}.norm()
			dc := cx{rng.NormFloat64(), rng.NormFloat64(), d.e - 10}.norm()
			e := fblaExpEntry{a11: b.a.a, a12: b.a.b, a21: b.a.c, a22: b.a.d, ae: int32(b.a.e), b11: 0.5, b22: 0.5, be: 1}
			got, want := e.applyCx(d, dc), stepExactCx(fm, z, d, dc)
			lin := e.applyCx(d, cx{e: cxZeroExp})
			// The linear part's error, and float64's rounding of the sum (dc may dominate it).
			if err := cxAdd(got, cxNeg(want)); err.re != 0 || err.im != 0 {
				rel := math.Exp2(err.log2Abs() - lin.log2Abs())
				if round := math.Exp2(want.log2Abs() - lin.log2Abs() - 50); rel > eps/2*1.001+round {
					t.Fatalf("%v at %v, d %v: block %v, step %v (error %g of the linear part)", fm, z, d, got, want, rel)
				}
			}
		}
	}
	ship := Formula{Kind: BurningShip}
	y := MakeExp(1, -1500)
	z := cxFromExp(NewExp(-0.7), y)
	b := formulaStepBLAX(ship, z, FormulaBLAEpsilon)
	if b.r.Cmp(y.Ldexp(-1)) > 0 {
		t.Errorf("ship at -0.7 + 2^-1500 i: radius %v, more than half the distance to the fold", b.r)
	}
	d := cxFromExp(Exp{}, y.MulFloat(-3)) // across the fold
	e := fblaExpEntry{a11: b.a.a, a12: b.a.b, a21: b.a.c, a22: b.a.d, ae: int32(b.a.e)}
	zero := cx{e: cxZeroExp}
	got, want := e.applyCx(d, zero), stepExactCx(ship, z, d, zero)
	if rel := math.Exp2(cxAdd(got, cxNeg(want)).log2Abs() - want.log2Abs()); rel < 0.1 || !(b.r.Cmp(y.MulFloat(3)) < 0) {
		t.Errorf("ship: a delta across the fold is in the radius %v or linear (block %v, step %v)", b.r, got, want)
	}
	if b := formulaStepBLAX(ship, cx{0.6, 0, -1200}, FormulaBLAEpsilon); b.r.Sign() != 0 {
		t.Errorf("ship on the real axis: radius %v", b.r)
	}
}

// TestFormulaBLAExpBlocks: every block of the extended table (FormulaBLAExp) at views at
// zoom 1e400 and 1e1000, applied to a delta inside its radius (0.99 R in a random direction,
// and 2^-300 of that; dc of size DcMax in another), against its 2^l plain steps in cx (stepExactCx): within the
// float64 table's bound (TestFormulaBLABlocks: 4 eps + 2^-46 a step, relative); and each block
// of its float64 form (float64Table) valid for a float64 delta (R >= 2^-949), likewise, to
// a float64 delta: A d + B' dcs against the same plain steps. The largest valid block at every
// start, and the first step's, are checked.
func TestFormulaBLAExpBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	zooms := []string{"1e400", "1e1000"}
	if raceEnabled {
		zooms = zooms[:1]
	}
	for _, zoom := range zooms {
		for _, fm := range deepBLAFormulas() {
			l := Home()
			l.Formula, l.Iterations, l.Zoom = fm, 3000, MustDecimal(zoom)
			bits := uint(math.Ceil(l.Zoom.Exp().Log2())) + 40
			for i := 0; ; i++ {
				re, im, ok, more := deepEdgeCentre(fm, i, bits)
				if !more {
					t.Fatalf("%v: no Misiurewicz point", fm)
				}
				if ok {
					l.Re, l.Im = re, im
					break
				}
			}
			f, err := NewFrame(l, 64, 48).WithReference(t.Context(), &ReferenceCache{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Precision() != PerturbationExp {
				t.Fatalf("%v at %s: precision %v", fm, zoom, f.Precision())
			}
			bla := f.FormulaBLAExp()
			ent, base, fent, r0 := bla.table()
			dcMax := cxFromExp(bla.DcMax, Exp{})
			checked, checked64, maxSpan := 0, 0, 0
			for m := 1; m < len(r0); m++ {
				at := ent[base[m-1]:base[m]]
				top := len(at) - 1
				for top > 0 && at[top].rm == 0 {
					top--
				}
				for _, l := range []int{top, 0}[:min(top+1, 2)] { // the largest valid block, and the first step's
					e := &at[l]
					if e.rm == 0 {
						continue
					}
					span := 1 << l
					th, ph := 2*math.Pi*rng.Float64(), 2*math.Pi*rng.Float64()
					dc := cxMul(dcMax, cxFrom(math.Cos(ph), math.Sin(ph)))
					tol := float64(span) * (4*bla.Eps + 0x1p-46)
					for _, shrink := range []int{0, -300} { // at the radius, and far inside it
						d := cx{0.99 * e.rm * math.Cos(th), 0.99 * e.rm * math.Sin(th), int(e.re) + shrink}.norm()
						p := d
						for k := range span {
							p = stepExactCx(fm, f.Ref.zcx(m+k), p, dc)
						}
						if err := cxRel(e.applyCx(d, dc), p); !(err <= tol) {
							t.Fatalf("%v at %s: block at %d of %d steps, |d| 2^%d R: relative error %g (tolerance %g)", fm, zoom, m, span, shrink, err, tol)
						}
					}
					checked++
					maxSpan = max(maxSpan, span)
					i := int(base[m-1]) + l
					if r := fent[i].r; r >= 0x1p-949 {
						dr, di := 0.99*r*math.Cos(th), 0.99*r*math.Sin(th)
						p := cxFrom(dr, di)
						for k := range span {
							p = stepExactCx(fm, f.Ref.zcx(m+k), p, dc)
						}
						dsr, dsi := bla.scaledDC(dc)
						g := &fent[i]
						ar, ai := g.a11*dr+g.a12*di+g.b11*dsr+g.b12*dsi, g.a21*dr+g.a22*di+g.b21*dsr+g.b22*dsi
						if err := cxRel(cxFrom(ar, ai), p); !(err <= tol) {
							t.Fatalf("%v at %s: float64 block at %d of %d steps, relative error %g (tolerance %g)", fm, zoom, m, span, err, tol)
						}
						checked64++
					}
				}
			}
			t.Logf("%v at %s: %d blocks checked (%d in float64), up to %d steps", fm, zoom, checked, checked64, maxSpan)
			if checked < 100 || maxSpan < 64 || checked64 < 10 {
				t.Errorf("%v at %s: %d blocks checked (%d in float64), the longest %d steps", fm, zoom, checked, checked64, maxSpan)
			}
		}
	}
}

// TestFormulaBLAExpMatchesFloat64Table: where float64 holds every value (zoom 1e30), the
// extended table's entries are the float64 table's (FormulaBLA, the same DcMax and eps):
// radii, A and B within 1e-12 relative (of the larger matrix's spectral norm), and valid at
// the same places, for every formula.
func TestFormulaBLAExpMatchesFloat64Table(t *testing.T) {
	for _, fm := range allFormulas() {
		if fm.IsMandelbrot() {
			continue
		}
		f := formulaEdgeFrame(t, fm, "1e30", 1000)
		b64 := f.FormulaBLA()
		bx := f.Ref.FormulaBLAExp(NewExp(f.DeltaMax()), FormulaBLAEpsilon)
		if bx.DcMax.Float64() != b64.DcMax {
			t.Fatalf("%v: DcMax %g, float64 table's %g", fm, bx.DcMax.Float64(), b64.DcMax)
		}
		if len(bx.ent) != len(b64.ent) || bx.steps != b64.steps {
			t.Fatalf("%v: %d entries over %d steps, the float64 table %d over %d", fm, len(bx.ent), bx.steps, len(b64.ent), b64.steps)
		}
		rel := func(x, y float64, scale float64) float64 { return math.Abs(x-y) / scale }
		valid := 0
		for i := range bx.ent {
			x, g := &bx.ent[i], &b64.ent[i]
			r := MakeExp(x.rm, int(x.re)).Float64()
			if (r > 0) != (g.r > 0) || g.r > 0 && rel(r, g.r, g.r) > 1e-12 {
				t.Fatalf("%v: entry %d radius %g, float64 table %g", fm, i, r, g.r)
			}
			if g.r == 0 {
				continue
			}
			valid++
			a, b := math.Ldexp(1, int(x.ae)), math.Ldexp(1, int(x.be))
			na, nb := specNorm(g.a11, g.a12, g.a21, g.a22), specNorm(g.b11, g.b12, g.b21, g.b22)
			for k, p := range [...][3]float64{
				{x.a11 * a, g.a11, na}, {x.a12 * a, g.a12, na}, {x.a21 * a, g.a21, na}, {x.a22 * a, g.a22, na},
				{x.b11 * b, g.b11, nb}, {x.b12 * b, g.b12, nb}, {x.b21 * b, g.b21, nb}, {x.b22 * b, g.b22, nb},
			} {
				if rel(p[0], p[1], p[2]) > 1e-12 {
					t.Fatalf("%v: entry %d coefficient %d: %g, float64 table %g", fm, i, k, p[0], p[1])
				}
			}
		}
		if valid < len(bx.ent)/4 {
			t.Errorf("%v: %d valid entries of %d", fm, valid, len(bx.ent))
		}
	}
}

// TestFormulaBLAExpAgainstBig measures the extended table's error as TestFormulaBLAAgainstBig
// measures the float64 one's, past float64's exponent range: for the Burning Ship, the
// Mandelbar and the cubic Mandelbrot set at views near each set's edge (formulaExpEdgeView)
// at zoom 1e400 with 3,000 iterations (TestFormulaBLAExpAgainstBig1000: 1e1000 with 6,000), by
// the extended loop (PerturbEscapeFormulaExp) with the table and without it, against math/big:
//
//   - each well-conditioned sample pixel: the table's count must agree with math/big (within
//     max(1, N/1000)) at least as often as the plain loop's, and for 19 of 20 pixels;
//   - every pixel of an 80x60 frame of the view (64x48 at 1e1000) where the two loops' counts differ, in
//     math/big at two precisions: where these agree and only one loop has it, that loop must
//     be the table's at least as often as the plain loop, give or take two pixels.
//
// The table must skip nine tenths of the iterations or more (the share is logged).
func TestFormulaBLAExpAgainstBig(t *testing.T) { formulaBLAExpAgainstBig(t, "1e400", 3000) }

// TestFormulaBLAExpAgainstBig1000 is TestFormulaBLAExpAgainstBig at zoom 1e1000 (not under the
// race detector, whose run has 1e400's).
func TestFormulaBLAExpAgainstBig1000(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's run has TestFormulaBLAExpAgainstBig at 1e400")
	}
	formulaBLAExpAgainstBig(t, "1e1000", 6000)
}

func formulaBLAExpAgainstBig(t *testing.T, zoom string, iter int) {
	side := 80
	if raceEnabled {
		side = 16
	} else if zoom == "1e1000" {
		side = 64 // 64x48: its pixels take twice 1e400's iterations
	}
	for _, fm := range deepBLAFormulas() {
		f, pixels, want := formulaExpEdgeView(t, fm, zoom, iter)
		bla := f.FormulaBLAExp()
		agreeBLA, agreePlain := 0, 0
		for i, p := range pixels {
			dr, di := f.DeltaExp(p[0], p[1])
			n0, _ := PerturbEscapeFormulaExp(f.Ref, nil, dr, di, iter, nil)
			n1, _ := PerturbEscapeFormulaExp(f.Ref, bla, dr, di, iter, nil)
			if countWithin(n0, want[i]) {
				agreePlain++
			}
			if countWithin(n1, want[i]) {
				agreeBLA++
			}
		}
		if agreeBLA < agreePlain || 20*agreeBLA < 19*len(pixels) {
			t.Errorf("%v at %s: %d of %d pixels agree with math/big with the table, %d without", fm, zoom, agreeBLA, len(pixels), agreePlain)
		}
		big := NewFrame(f.Loc, side, side*3/4)
		big, err := big.WithReference(t.Context(), &ReferenceCache{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c := compareFormulaBLAExp(big, big.FormulaBLAExp())
		t.Logf("%v at %s (%.16s, %.16s): samples %d of %d agree, no table %d; of %dx%d, %d differ from the plain loop: math/big sides with the table on %d, plain on %d (%d ill-conditioned); the table skipped %.1f%% of the iterations",
			fm, zoom, f.Loc.Re, f.Loc.Im, agreeBLA, len(pixels), agreePlain, big.W, big.H, c.differ, c.blaRight, c.plainRight, c.ambiguous, 100*c.skipped())
		if c.plainRight > c.blaRight+2 {
			t.Errorf("%v at %s: of the pixels the loops differ on, math/big sides with the table on %d, the plain loop on %d", fm, zoom, c.blaRight, c.plainRight)
		}
		if c.skipped() < 0.9 {
			t.Errorf("%v at %s: the table skipped %.1f%% of the iterations", fm, zoom, 100*c.skipped())
		}
	}
}

// compareFormulaBLAExp is compareFormulaBLA for a PerturbationExp frame: its pixels by the
// extended loop without a table and with bla.
func compareFormulaBLAExp(f Frame, bla *FormulaBLAExp) formulaBLATally {
	var c formulaBLATally
	it := f.Loc.Iterations
	prec := f.ReferenceBits() + 64
	for y := range f.H {
		for x := range f.W {
			dr, di := f.DeltaExp(x, y)
			n0, _ := PerturbEscapeFormulaExp(f.Ref, nil, dr, di, it, nil)
			n1, _, s := perturbEscapeFormulaExp(f.Ref, bla, dr, di, it, nil)
			c.steps += s
			if n1 < 0 {
				c.iters += it
			} else {
				c.iters += n1
			}
			if n0 == n1 {
				continue
			}
			c.differ++
			cr, ci := f.PointBig(x, y, prec+64)
			e1 := EscapeFormulaBig(f.Loc.Formula, cr, ci, cr, ci, it, prec)
			e2 := EscapeFormulaBig(f.Loc.Formula, cr, ci, cr, ci, it, prec+64)
			switch b, p := countWithin(n1, e1), countWithin(n0, e1); {
			case e1 != e2:
				c.ambiguous++
			case b && !p:
				c.blaRight++
			case p && !b:
				c.plainRight++
			}
		}
	}
	return c
}

// TestFormulaBLAExpJuliaCut is TestFormulaBLAJuliaCut for the extended table: a Julia
// reference's (at zoom 1e400) has no valid block spanning the step from the critical orbit's
// last index to the reference point's first, and its float64 form none either; blocks
// elsewhere are valid.
func TestFormulaBLAExpJuliaCut(t *testing.T) {
	l := Home()
	l.Formula = Formula{Kind: BurningShip}
	l.Iterations = 300
	l.Julia = JuliaParam{On: true, Re: MustDecimal("-0.1"), Im: MustDecimal("0.1")}
	l.Re, l.Im, l.Zoom = MustDecimal("0.3"), MustDecimal("0.2"), MustDecimal("1e400")
	f, err := NewFrame(l, 16, 16).WithReference(t.Context(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Precision() != PerturbationExp {
		t.Fatalf("precision %v", f.Precision())
	}
	cut := f.Ref.JuliaStart() - 1
	if cut < 100 {
		t.Fatalf("critical orbit of %d values", cut+1)
	}
	bla := f.FormulaBLAExp()
	if bla.DcMax.Sign() != 0 {
		t.Errorf("a Julia set's table has DcMax %v, not 0", bla.DcMax)
	}
	valid := 0
	for lv := 0; bla.steps>>lv >= 1; lv++ {
		for k := range bla.steps >> lv {
			i := int(bla.base[k<<lv]) + lv
			e, g := bla.ent[i], bla.f64.ent[i]
			first, last := 1+k<<lv, (k+1)<<lv // the steps from m = first to last
			if first <= cut && cut <= last && (e.rm != 0 || g.r != 0) {
				t.Fatalf("level %d entry %d (steps %d to %d) spans the cut at %d with radius %v (float64 %g)", lv, k, first, last, cut, MakeExp(e.rm, int(e.re)), g.r)
			}
			if e.rm > 0 {
				valid++
			}
		}
	}
	if valid < bla.steps/2 {
		t.Errorf("%d valid blocks of %d steps", valid, bla.steps)
	}
}

// TestFormulaBLAExpFlat: Flat lays a formula's extended table out as FormulaBLA.Flat does
// (level l's entry k, the block from m = 1 + k 2^l, at Offset(l) + k), each entry the extended
// one the loops read for that start and level followed by its float64 form, and the GPU's
// lookup on it (the largest level from the top one down whose block is valid) takes the block
// perturbFormulaLoopExp's climbs from level 0 take: climbFormulaExp's for a cx delta (on Rm,
// Re) and climbFormula's for a float64 one (on R64), for deltas just inside every radius;
// also with a float64 one-step block zeroed under a valid two-step one, which the top-down
// lookup would take but for R64's least over the levels below.
func TestFormulaBLAExpFlat(t *testing.T) {
	for _, fm := range deepBLAFormulas() {
		l := Home()
		l.Formula, l.Iterations, l.Zoom = fm, 1000, MustDecimal("1e400")
		prec := uint(math.Ceil(l.Zoom.Exp().Log2())) + 40
		for i := 0; ; i++ {
			re, im, ok, more := deepEdgeCentre(fm, i, prec)
			if !more {
				t.Fatalf("%v: no Misiurewicz point", fm)
			}
			if ok {
				l.Re, l.Im = re, im
				break
			}
		}
		f, err := NewFrame(l, 24, 16).WithReference(t.Context(), &ReferenceCache{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, bla := range []*FormulaBLAExp{f.FormulaBLAExp(), zeroedFloat64Step(f.FormulaBLAExp())} {
			checkFormulaBLAExpFlat(t, fm, bla)
		}
	}
}

// zeroedFloat64Step is b with the float64 form's one-step block at the first start with more
// than one level zeroed (as float64Table zeroes a block whose A leaves float64's range), the
// blocks above it left as they are.
func zeroedFloat64Step(b *FormulaBLAExp) *FormulaBLAExp {
	c := *b
	f := *b.f64
	f.ent = append([]fblaEntry(nil), f.ent...)
	f.r0 = append([]float64(nil), f.r0...)
	for k := 1; k < c.steps; k++ {
		if c.base[k]-c.base[k-1] > 1 && f.ent[c.base[k-1]+1].r > 0 {
			f.ent[c.base[k-1]] = fblaEntry{}
			f.r0[k] = 0
			break
		}
	}
	c.f64 = &f
	return &c
}

// checkFormulaBLAExpFlat is TestFormulaBLAExpFlat's check of one table.
func checkFormulaBLAExpFlat(t *testing.T, fm Formula, bla *FormulaBLAExp) {
	t.Helper()
	if bla == nil {
		t.Fatalf("%v: no extended table", fm)
	}
	mant, exp := bla.Flat()
	levels := bla.Levels()
	n := bla.Offset(levels)
	if levels < 5 || len(mant) != FormulaBLAExpStride*n || len(exp) != FormulaBLAExpExpStride*n {
		t.Fatalf("%v: %d levels, %d mantissas and %d exponents for %d entries", fm, levels, len(mant), len(exp), n)
	}
	ent, base, fent, r0 := bla.table()
	if n != len(ent) {
		t.Errorf("%v: Offset(Levels) = %d, want the %d entries", fm, n, len(ent))
	}
	for m := 1; m < len(r0); m++ {
		at, fat := ent[base[m-1]:base[m]], fent[base[m-1]:base[m]]
		for l := range at {
			i := bla.Offset(l) + (m-1)>>l
			e, g := &at[l], &fat[l]
			o := mant[FormulaBLAExpStride*i:][:FormulaBLAExpStride]
			x := exp[FormulaBLAExpExpStride*i:][:FormulaBLAExpExpStride]
			want := [FormulaBLAExpStride]float64{e.a11, e.a12, e.a21, e.a22, e.b11, e.b12, e.b21, e.b22, e.rm, o[9],
				g.a11, g.a12, g.a21, g.a22, g.b11, g.b12, g.b21, g.b22}
			if [FormulaBLAExpStride]float64(o) != want || [3]int32(x) != [3]int32{e.ae, e.be, e.re} {
				t.Fatalf("%v: the entry of level %d at m = %d is %v %v in Flat, %v %v in the table", fm, l, m, o, x, want, [3]int32{e.ae, e.be, e.re})
			}
			if o[9] > g.r {
				t.Fatalf("%v: level %d at m = %d: R64 %g above the float64 form's radius %g", fm, l, m, o[9], g.r)
			}
		}
		top := levels - 1
		if m-1 != 0 {
			top = min(bits.TrailingZeros(uint(m-1)), top)
		}
		// down is the top-down lookup with valid telling whether level l's block is.
		down := func(valid func(i int) bool) int {
			for l := top; l >= 0; l-- {
				if k := (m - 1) >> l; k < bla.Steps()>>l && valid(bla.Offset(l)+k) {
					return l
				}
			}
			return -1
		}
		for _, e := range at {
			if e.rm == 0 {
				continue
			}
			d := cx{re: e.rm * 0.999, e: int(e.re)} // |d|_1 just inside R
			_, span := climbFormulaExp(ent, base, m, 0, math.MaxInt, d)
			got := down(func(i int) bool {
				x := exp[FormulaBLAExpExpStride*i:]
				return lessExp(d.re, d.e, mant[FormulaBLAExpStride*i+8], int(x[2]))
			})
			if want := bits.Len(uint(span)) - 1; got != want {
				t.Fatalf("%v: at m = %d with a cx |d| %g 2^%d the loop takes level %d, the top-down lookup %d", fm, m, d.re, d.e, want, got)
			}
		}
		for _, g := range fat {
			ad := g.r * 0.999
			if !(ad >= toExp) {
				continue // a delta the loop takes in cx
			}
			want := -1
			if ad < r0[m] {
				_, span := climbFormula(fent, base, m, 0, math.MaxInt, ad)
				want = bits.Len(uint(span)) - 1
			}
			if got := down(func(i int) bool { return ad < mant[FormulaBLAExpStride*i+9] }); got != want {
				t.Fatalf("%v: at m = %d with a float64 |d| %g the loop takes level %d, the top-down lookup %d", fm, m, ad, want, got)
			}
		}
	}
}
