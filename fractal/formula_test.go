package fractal

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// allFormulas is every formula kind at powers 2 and 3, and one at the highest power.
func allFormulas() []Formula {
	var out []Formula
	for k := range numFormulaKinds {
		for _, d := range []int{2, 3} {
			fm, _ := MakeFormula(k, d)
			out = append(out, fm)
		}
	}
	fm, _ := MakeFormula(BurningShip, MaxPower)
	return append(out, fm)
}

func TestFormulaLocationText(t *testing.T) {
	home := Home()
	if s := home.String(); strings.Contains(s, "formula") || strings.Contains(s, "power") {
		t.Fatalf("the Mandelbrot set's text names a formula: %s", s)
	}
	for _, fm := range allFormulas() {
		l := home
		l.Formula = fm
		s := l.String()
		back, err := ParseLocationText(s, Home())
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if back != l {
			t.Errorf("%s read back as %s", s, back)
		}
		if fm.IsMandelbrot() != !strings.Contains(s, "formula=") && fm.Power() == 2 {
			t.Errorf("%v: text %s", fm, s)
		}
	}
	// power=2 and formula=mandelbrot are the defaults' one form.
	l, err := ParseLocationText("re=0 im=0 zoom=1 formula=Mandelbrot power=2", Home())
	if err != nil || !l.Formula.IsMandelbrot() || l.String() != "re=0 im=0 zoom=1 iterations=200 palette=classic density=auto offset=0" {
		t.Errorf("defaults spelt out: %v, %v, %s", l.Formula, err, l)
	}
}

func TestFormulaLocationErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"formula=burning-boat", `unknown formula "burning-boat" (mandelbrot, burning-ship, mandelbar)`},
		{"power=9", `power "9" must be a whole number from 2 to 8`},
		{"power=1", `power "1" must be a whole number from 2 to 8`},
		{"power=2.5", `power "2.5" must be a whole number from 2 to 8`},
	} {
		_, err := ParseLocationText("re=0 im=0 "+c.text, Home())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.text, err, c.want)
		}
	}
	// Past float64's exponent range, with every colouring (perturb_formula_exp.go).
	for _, s := range []string{"formula=burning-ship zoom=1e300 colouring=distance", "formula=mandelbar power=8 julia=0,0 zoom=1e40 colouring=slopes",
		"power=3 julia=0,0 zoom=1e96 colouring=distance", "formula=burning-ship zoom=1e300", "formula=mandelbar power=8 julia=0,0 zoom=1e4000"} {
		if _, err := ParseLocationText("re=0 im=0 "+s, Home()); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// stepBig64 is the formula's math/big step at 200 bits, rounded to float64.
func stepBig64(fm Formula, zr, zi, cr, ci float64) (float64, float64) {
	b := newFormulaBig(fm, 200)
	nf := func(v float64) *big.Float { return new(big.Float).SetPrec(200).SetFloat64(v) }
	xr, xi := nf(zr), nf(zi)
	b.step(xr, xi, nf(cr), nf(ci))
	r, _ := xr.Float64()
	i, _ := xi.Float64()
	return r, i
}

// TestFormulaStepsAgree holds a formula's three steps to each other: the float64 step and the
// math/big one, and the perturbation step against the exact difference of two math/big steps,
// for every kind and power, with deltas from 1e-3 down to 1e-200 of the value (where a plain
// difference of float64 steps would have cancelled to nothing).
func TestFormulaStepsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, fm := range allFormulas() {
		for range 200 {
			zr, zi := 2*rng.Float64()-1, 2*rng.Float64()-1
			cr, ci := 2*rng.Float64()-1, 2*rng.Float64()-1
			gr, gi := formulaStep(fm, zr, zi, cr, ci)
			wr, wi := stepBig64(fm, zr, zi, cr, ci)
			if math.Abs(gr-wr)+math.Abs(gi-wi) > 1e-14 {
				t.Fatalf("%v at %g%+gi: float64 step %g%+gi, math/big %g%+gi", fm, zr, zi, gr, gi, wr, wi)
			}
			scale := math.Pow(10, -3-197*rng.Float64())
			dr, di := scale*(2*rng.Float64()-1), scale*(2*rng.Float64()-1)
			if rng.IntN(4) == 0 {
				dr = -zr - dr/2 // a delta that crosses an axis: the fold's other case
			}
			pr, pi := perturbStep(fm, zr, zi, dr, di, 0, 0)
			// The exact delta: f(Z + d)^D - f(Z)^D in math/big.
			const prec = 1200
			nf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
			b := newFormulaBig(fm, prec)
			ar, ai := nf(zr), nf(zi)
			ar.Add(ar, nf(dr))
			ai.Add(ai, nf(di))
			br, bi := nf(zr), nf(zi)
			b.step(ar, ai, nf(0), nf(0))
			b.step(br, bi, nf(0), nf(0))
			er, _ := ar.Sub(ar, br).Float64()
			ei, _ := ai.Sub(ai, bi).Float64()
			if e := math.Hypot(pr-er, pi-ei); e > 1e-13*math.Hypot(er, ei) {
				t.Fatalf("%v: Z %g%+gi, d %g%+gi: perturbation step %g%+gi, exact %g%+gi", fm, zr, zi, dr, di, pr, pi, er, ei)
			}
		}
	}
}

func TestEscapeFormulaAgainstBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, fm := range allFormulas() {
		agree, total := 0, 0
		for range 300 {
			cr, ci := 4*rng.Float64()-2, 4*rng.Float64()-2
			n, _ := EscapeFormula64(fm, cr, ci, cr, ci, 200)
			b := new(big.Float).SetPrec(200)
			want := EscapeFormulaBig(fm, b.SetFloat64(cr), new(big.Float).SetFloat64(ci), new(big.Float).SetFloat64(cr), new(big.Float).SetFloat64(ci), 200, 200)
			total++
			if n == want {
				agree++
			}
		}
		if agree < total*98/100 {
			t.Errorf("%v: %d of %d points agree with math/big", fm, agree, total)
		}
	}
}

// formulaEdgePoint is a point on the boundary of fm's set (at maxIter iterations) to within
// 2^-bits of the segment from in (which stays) to out (which escapes): bisected in math/big,
// as decimal text.
func formulaEdgePoint(fm Formula, inRe, inIm, outRe, outIm float64, bits uint, maxIter int) (re, im Decimal) {
	prec := bits + 64
	nf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	at := func(t *big.Float) (*big.Float, *big.Float) {
		cr := nf(outRe - inRe)
		cr.Mul(cr, t).Add(cr, nf(inRe))
		ci := nf(outIm - inIm)
		ci.Mul(ci, t).Add(ci, nf(inIm))
		return cr, ci
	}
	lo, hi, mid := nf(0), nf(1), nf(0)
	for range bits {
		mid.Add(lo, hi)
		mid.SetMantExp(mid, -1)
		cr, ci := at(mid)
		if EscapeFormulaBig(fm, cr, ci, cr, ci, maxIter, prec) < 0 {
			lo.Set(mid)
		} else {
			hi.Set(mid)
		}
	}
	cr, ci := at(lo)
	digits := int(float64(bits)*0.30103) + 3
	return MustDecimal(trimZeros(cr.Text('f', digits))), MustDecimal(trimZeros(ci.Text('f', digits)))
}

// exactMargin is EscapeFormulaBig's count of the pixel c with how near the orbit came to the
// escape circle: the least ||z_k|^2 - 4| over its steps (k up to the count). Where it is
// below float64's rounding, float64 arithmetic (which holds z to about 1e-16 however deep
// the view) cannot say on which side of the circle z is: such a pixel's count is not the
// frame's to match.
func exactMargin(fm Formula, cr, ci *big.Float, maxIter int, prec uint) (int, float64) {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	xr, xi, t, u := nf().Set(cr), nf().Set(ci), nf(), nf()
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

// formulaEdgeCentre is the i-th candidate centre of a view of fm's edge (tip: the set's tip on
// the negative real axis), bisected to 2^-bits at iter iterations; more is false past the last
// candidate, and ok false where a candidate does not exist (try the next). The
// candidates, tried in turn until one gives a view of the edge: up from a point of the real
// axis short of the tip (which stays: the real orbit keeps within the tip's) to 0.2 above it
// (which escapes), the edge of the set's thin real filament, along which the orbits are
// chaotic; then Misiurewicz points (formulaTip) near a few guesses.
func formulaEdgeCentre(fm Formula, tip float64, i int, bits uint, iter int) (re, im Decimal, ok, more bool) {
	if ats := []float64{0.97, 0.995, 0.93}; i < len(ats) {
		re, im := formulaEdgePoint(fm, ats[i]*tip, 0, ats[i]*tip, 0.2, bits, iter)
		return re, im, true, true
	}
	i -= 3
	if i >= 24 {
		return Decimal{}, Decimal{}, false, false
	}
	a := float64(i) * math.Pi / 12
	cr, ci, ok := formulaTip(fm, 1.3*math.Cos(a), 1.3*math.Sin(a), bits+64)
	if !ok {
		return Decimal{}, Decimal{}, false, true
	}
	digits := int(float64(bits)*0.30103) + 3
	return MustDecimal(trimZeros(cr.Text('f', digits))), MustDecimal(trimZeros(ci.Text('f', digits))), true, true
}

// formulaTip is a point c of fm's set, near guess, whose critical orbit lands on a repelling
// fixed point at its second step (z3 = z2, as c = -2 for the Mandelbrot set): a Misiurewicz
// point, about which the set is all filaments and the orbits chaotic at any depth. Newton's
// method in math/big at prec bits, the Jacobian by differences; ok false when it does not
// converge to an orbit within |z| < 2.
func formulaTip(fm Formula, guessRe, guessIm float64, prec uint) (re, im *big.Float, ok bool) {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	st := newFormulaBig(fm, prec)
	// g is z3 - z2 at c.
	g := func(cr, ci *big.Float) (*big.Float, *big.Float, float64) {
		zr, zi := nf().Set(cr), nf().Set(ci)
		st.step(zr, zi, cr, ci)
		z2r, z2i := nf().Set(zr), nf().Set(zi)
		st.step(zr, zi, cr, ci)
		r2, _ := new(big.Float).Add(new(big.Float).Mul(z2r, z2r), new(big.Float).Mul(z2i, z2i)).Float64()
		return zr.Sub(zr, z2r), zi.Sub(zi, z2i), r2
	}
	cr, ci := nf().SetFloat64(guessRe), nf().SetFloat64(guessIm)
	h := new(big.Float).SetMantExp(big.NewFloat(1), -int(prec/2))
	for range 60 {
		gr, gi, _ := g(cr, ci)
		if gr.Sign() == 0 && gi.Sign() == 0 {
			break
		}
		// Jacobian columns: dg/dRe, dg/dIm.
		ar, ai, _ := g(nf().Add(cr, h), ci)
		br, bi, _ := g(cr, nf().Add(ci, h))
		ar.Sub(ar, gr).Quo(ar, h)
		ai.Sub(ai, gi).Quo(ai, h)
		br.Sub(br, gr).Quo(br, h)
		bi.Sub(bi, gi).Quo(bi, h)
		det := nf().Sub(nf().Mul(ar, bi), nf().Mul(br, ai))
		if det.Sign() == 0 {
			return nil, nil, false
		}
		// (dr, di) = J^-1 g
		dr := nf().Sub(nf().Mul(bi, gr), nf().Mul(br, gi))
		di := nf().Sub(nf().Mul(ar, gi), nf().Mul(ai, gr))
		cr.Sub(cr, dr.Quo(dr, det))
		ci.Sub(ci, di.Quo(di, det))
		if v, _ := cr.Float64(); math.IsNaN(v) || math.Abs(v) > 4 {
			return nil, nil, false
		}
		if v, _ := ci.Float64(); math.IsNaN(v) || math.Abs(v) > 4 {
			return nil, nil, false
		}
	}
	gr, gi, r2 := g(cr, ci)
	res, _ := new(big.Float).Add(new(big.Float).Abs(gr), new(big.Float).Abs(gi)).Float64()
	return cr, ci, res < math.Ldexp(1, -int(prec)/2) && r2 < 3.9 && r2 > 1e-6
}

// TestFormulaProbeAgainstBig is probe against probe --exact for every formula: at views near
// each set's edge at zoom 1e6 (float64; 1e50, perturbation, in TestFormulaPerturbAgainstBig), the escape counts of a few
// pixels by the frame's own arithmetic (Frame.Escape, as the CPU renderer computes them) and
// in math/big at two precisions; where the two precisions agree and no step of the orbit
// came within 1e-9 of the escape circle (the pixel is well conditioned), the frame's count
// must be theirs. The views' centres are the tips of the sets on the negative real axis
// (bisected between 0, which stays, and -2.5, which escapes), where the critical orbit lands
// on a repelling cycle: the counts vary from pixel to pixel at any depth, and the Burning
// Ship's orbits cross the real axis, its fold.
func TestFormulaProbeAgainstBig(t *testing.T) { formulaProbeAgainstBig(t, "1e6") }

// TestFormulaPerturbAgainstBig is TestFormulaProbeAgainstBig at zoom 1e50 (perturbation).
func TestFormulaPerturbAgainstBig(t *testing.T) { formulaProbeAgainstBig(t, "1e50") }

func formulaProbeAgainstBig(t *testing.T, zoom string) {
	const w, h = 64, 48
	var pixels [][2]int
	for i := range 20 {
		pixels = append(pixels, [2]int{(i * 37) % w, (i * 23) % h})
	}
	for _, fm := range allFormulas() {
		// The set's tip on the negative real axis (0 stays, -2.5 escapes).
		tipRe, _ := formulaEdgePoint(fm, 0, 0, -2.5, 0, 60, 200)
		tip := tipRe.Float64()
		{
			bits := uint(40)
			if zoom == "1e50" {
				bits = 190
			}
			found := false
			for i := 0; ; i++ {
				l := Home()
				l.Formula = fm
				l.Iterations = 400
				re, im, ok, more := formulaEdgeCentre(fm, tip, i, bits, l.Iterations)
				if !more {
					break
				}
				if !ok {
					continue
				}
				l.Re, l.Im = re, im
				l.Zoom = MustDecimal(zoom)
				if err := l.Validate(); err != nil {
					t.Fatal(err)
				}
				f := NewFrame(l, w, h)
				if want := map[string]Precision{"1e6": Double, "1e50": Perturbation}[zoom]; f.Precision() != want {
					t.Fatalf("%v at %s: precision %v, want %v", fm, zoom, f.Precision(), want)
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
						t.Errorf("%v at %s (%s, %s), pixel %v: %d, math/big %d", fm, zoom, l.Re, l.Im, p, n, n1)
					}
				}
				if good < len(pixels)/3 || len(counts) < 2 {
					continue // not a view of the edge: try the next segment
				}
				found = true
				t.Logf("%v at %s (%.20s, %.8g): %d of %d well-conditioned pixels agree, %d counts", fm, zoom, l.Re, l.Im.Float64(), agree, good, len(counts))
				break
			}
			if !found {
				t.Errorf("%v at %s: no candidate centre gave a view of the edge", fm, zoom)
			}
		}
	}
}

// TestFormulaJuliaAgainstBig: Julia sets of each formula at zoom 1e20 (perturbation, with the
// critical orbit of c ahead of the reference point's: julia.go), at a point of the Julia set's
// edge bisected between 0 (which stays: c is inside the set) and 2 + 0.6i (which escapes): the
// frame's counts against math/big at two precisions, where they are well conditioned.
func TestFormulaJuliaAgainstBig(t *testing.T) {
	const w, h = 48, 32
	var pixels [][2]int
	for i := range 16 {
		pixels = append(pixels, [2]int{(i * 37) % w, (i * 23) % h})
	}
	cubic, _ := MakeFormula(Mandelbar, 3)
	for _, fm := range []Formula{{Kind: BurningShip}, {Kind: Mandelbar}, cubic} {
		cr, ci := -0.1, 0.1
		l := Home()
		l.Formula = fm
		l.Iterations = 300
		l.Julia = JuliaParam{On: true, Re: DecimalFromFloat(cr), Im: DecimalFromFloat(ci)}
		// The z that stays and the one that escapes, bisected with c fixed.
		const bits = 130
		prec := uint(bits + 64)
		nf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
		bc, bci := l.Julia.Re.Big(prec), l.Julia.Im.Big(prec) // the decimals' values, not the float64s'
		if EscapeFormulaBig(fm, nf(0), nf(0), bc, bci, l.Iterations, prec) >= 0 {
			t.Fatalf("%v: c = %g%+gi is not in the set", fm, cr, ci)
		}
		// z = t (2 + 0.6i), t from 0 to 1.
		at := func(t *big.Float) (*big.Float, *big.Float) {
			return new(big.Float).SetPrec(prec).Mul(t, nf(2)), new(big.Float).SetPrec(prec).Mul(t, nf(0.6))
		}
		lo, hi, mid := nf(0), nf(1), nf(0)
		for range bits {
			mid.Add(lo, hi)
			mid.SetMantExp(mid, -1)
			if zr, zi := at(mid); EscapeFormulaBig(fm, zr, zi, bc, bci, l.Iterations, prec) < 0 {
				lo.Set(mid)
			} else {
				hi.Set(mid)
			}
		}
		zr, zi := at(lo)
		l.Re, l.Im = MustDecimal(trimZeros(zr.Text('f', 45))), MustDecimal(trimZeros(zi.Text('f', 45)))
		l.Zoom = MustDecimal("1e20")
		if err := l.Validate(); err != nil {
			t.Fatal(err)
		}
		f := NewFrame(l, w, h)
		if f.Precision() != Perturbation {
			t.Fatalf("%v: precision %v", fm, f.Precision())
		}
		p := f.ReferenceBits() + 64
		good := 0
		counts := map[int]bool{}
		for _, px := range pixels {
			re, im := f.PointBig(px[0], px[1], p+64)
			jr, ji := l.Julia.Re.Big(p+64), l.Julia.Im.Big(p+64)
			n1 := EscapeFormulaBig(fm, re, im, jr, ji, l.Iterations, p)
			n2 := EscapeFormulaBig(fm, re, im, jr, ji, l.Iterations, p+64)
			if n1 != n2 {
				continue
			}
			good++
			counts[n1] = true
			if n, _ := f.Escape(px[0], px[1]); n != n1 {
				t.Errorf("%v Julia at %s, %s: pixel %v: %d, math/big %d", fm, l.Re, l.Im, px, n, n1)
			}
		}
		t.Logf("%v: %d well-conditioned pixels, %d counts", fm, good, len(counts))
		if good < len(pixels)/2 || len(counts) < 2 {
			t.Errorf("%v: %d well-conditioned pixels, %d counts: not a view of the edge", fm, good, len(counts))
		}
	}
}

// TestFormulaKindsDistinct: every kind has its own name and title, reads back from its name,
// and its step differs from every other kind's at some point (a kind given no case in the
// steps would be the identity's: TestFormulaStepsAgree alone would not see it).
func TestFormulaKindsDistinct(t *testing.T) {
	names, titles := map[string]bool{}, map[string]bool{}
	for k := range numFormulaKinds {
		fm := Formula{Kind: k}
		if back, err := ParseFormulaKind(k.String()); err != nil || back != k {
			t.Errorf("kind %d: name %q reads back as %v, %v", k, k, back, err)
		}
		if names[k.String()] || titles[fm.Title()] || fm.Title() == "" {
			t.Errorf("kind %d: name %q or title %q empty or not its own", k, k, fm.Title())
		}
		names[k.String()], titles[fm.Title()] = true, true
		for j := range k {
			other := Formula{Kind: j}
			same := true
			for _, z := range [][2]float64{{-0.3, -0.7}, {0.4, -0.2}, {-0.6, 0.5}} {
				ar, ai := formulaStep(fm, z[0], z[1], 0.1, 0.2)
				br, bi := formulaStep(other, z[0], z[1], 0.1, 0.2)
				same = same && ar == br && ai == bi
			}
			if same {
				t.Errorf("%v and %v take the same steps", fm, other)
			}
		}
	}
}

// BenchmarkPerturbFormula is the time an iteration of the scalar perturbation loops takes:
// the Mandelbrot set's (PerturbEscape without a BLA table) and each formula's
// (PerturbEscapeFormula), at the same 1e30 view of the real filament's edge, every pixel of a
// 32x32 frame; ns/iter is the figure to compare.
func BenchmarkPerturbFormula(b *testing.B) {
	cubic, _ := MakeFormula(Mandelbrot, 3)
	ship3, _ := MakeFormula(BurningShip, 3)
	for _, fm := range []Formula{{}, {Kind: BurningShip}, {Kind: Mandelbar}, cubic, ship3} {
		b.Run(strings.ReplaceAll(fm.String(), " ", "-"), func(b *testing.B) {
			tipRe, _ := formulaEdgePoint(fm, 0, 0, -2.5, 0, 60, 200)
			l := Home()
			l.Formula, l.Iterations = fm, 2000
			l.Re, l.Im = formulaEdgePoint(fm, 0.97*tipRe.Float64(), 0, 0.97*tipRe.Float64(), 0.2, 120, l.Iterations)
			l.Zoom = MustDecimal("1e30")
			f, err := NewFrame(l, 32, 32).WithReference(b.Context(), &ReferenceCache{}, nil)
			if err != nil {
				b.Fatal(err)
			}
			iters := 0
			b.ResetTimer()
			for range b.N {
				for y := range f.H {
					for x := range f.W {
						dr, di := f.Delta(x, y)
						var n int
						if fm.IsMandelbrot() {
							n, _ = PerturbEscape(f.Ref, nil, dr, di, l.Iterations, nil)
						} else {
							n, _ = PerturbEscapeFormula(f.Ref, nil, dr, di, l.Iterations, nil)
						}
						if n < 0 {
							n = l.Iterations
						}
						iters += n
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(iters), "ns/iter")
		})
	}
}
