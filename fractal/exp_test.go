package fractal

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// bigOf is x exactly in math/big.
func bigOf(x Exp) *big.Float { return x.Big(64) }

// TestExpArithmetic checks Exp's operations against math/big at exponents far beyond
// float64's range: each result is the exact one rounded to 53 bits (to within an ulp for
// the sums of opposite signs).
func TestExpArithmetic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rnd := func() Exp {
		return MakeExp((r.Float64()+0.5)*float64(1-2*r.IntN(2)), r.IntN(40000)-20000)
	}
	rel := func(got Exp, want *big.Float) float64 {
		if want.Sign() == 0 {
			return math.Abs(got.m)
		}
		d := new(big.Float).SetPrec(200).Sub(bigOf(got), want)
		q, _ := new(big.Float).Quo(d, want).Float64()
		return math.Abs(q)
	}
	n := 2000
	if raceEnabled {
		n = 200 // decimal text of exponents to 2^20000 in math/big: the run without it has all
	}
	for range n {
		x, y := rnd(), rnd()
		if r.IntN(4) == 0 {
			y = MakeExp(y.m, x.e+r.IntN(120)-60) // close exponents, where sums are exact work
		}
		bx, by := bigOf(x), bigOf(y)
		nb := func() *big.Float { return new(big.Float).SetPrec(200) }
		for _, c := range []struct {
			op   string
			got  Exp
			want *big.Float
			tol  float64
		}{
			{"mul", x.Mul(y), nb().Mul(bx, by), 0x1p-53},
			{"quo", x.Quo(y), nb().Quo(bx, by), 0x1p-53},
			{"add", x.Add(y), nb().Add(bx, by), 0x1p-52},
			{"sub", x.Sub(y), nb().Sub(bx, by), 0x1p-52},
		} {
			if e := rel(c.got, c.want); !(e <= c.tol) && c.want.Sign() != 0 {
				// Cancellation in a sum of opposite signs: compare with the larger operand.
				if c.op == "add" || c.op == "sub" {
					big1 := nb().Abs(bx)
					if big1.Cmp(nb().Abs(by)) < 0 {
						big1 = nb().Abs(by)
					}
					d, _ := nb().Quo(nb().Abs(nb().Sub(bigOf(c.got), c.want)), big1).Float64()
					if d <= 0x1p-52 {
						continue
					}
				}
				t.Fatalf("%v %s %v = %v: relative error %g", x, c.op, y, c.got, e)
			}
		}
		if got, want := x.Cmp(y), bx.Cmp(by); got != want {
			t.Fatalf("Cmp(%v, %v) = %d, want %d", x, y, got, want)
		}
		// Text reads back exactly.
		d, err := ParseDecimal(x.String())
		if err != nil || d.Exp() != x {
			t.Fatalf("%v: String %q reads back as %v (%v)", x, x.String(), d.Exp(), err)
		}
		if lg, want := x.Log2(), float64(x.e)+math.Log2(math.Abs(x.m)); math.Abs(lg-want) > 1e-9 {
			t.Fatalf("Log2(%v) = %g", x, lg)
		}
	}
	if z := (Exp{}).Add(Exp{}); z.Sign() != 0 || z.String() != "0" {
		t.Errorf("0 + 0 = %v", z)
	}
	if f := MakeExp(0.75, -2000).Float64(); f != 0 {
		t.Errorf("0.75e-2000 as float64 = %g, want 0", f)
	}
	if f := MakeExp(0.75, 2000).Float64(); !math.IsInf(f, 1) {
		t.Errorf("0.75 * 2^2000 as float64 = %g, want +Inf", f)
	}
}

// TestFormatZoom checks the one display form of a zoom at every depth.
func TestFormatZoom(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"1", "1"}, {"300", "300"}, {"1.5", "1.5"}, {"500000", "500000"}, {"2.5e7", "2.5e7"},
		{"0.001", "0.001"}, {"1e14", "1e14"}, {"4.00000000000E533", "4e533"}, {"1e1086", "1e1086"},
		{"1.23456e5000", "1.235e5000"}, {"1e10000", "1e10000"}, {"3.14159e-3", "0.003142"},
		{"1e308", "1e308"}, {"1e400", "1e400"}, {"999999.5", "1e6"}, {"0.000099999", "0.0001"}, {"0.00009", "9e-5"},
	} {
		if got := FormatZoom(MustDecimal(c.in).Exp()); got != c.want {
			t.Errorf("FormatZoom(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestZoomBeyondFloat64 checks the model at zooms float64 cannot hold: validation and its
// limit, Auto iterations, the pixel spacing, the precision, zoom about the cursor and panning
// (exact in math/big), at 1e5000.
func TestZoomBeyondFloat64(t *testing.T) {
	base := Home()
	for _, z := range []string{"1e1086", "4.00000000000E533", "1e10000", "1e301"} {
		l := base
		l.Zoom = MustDecimal(z)
		if err := l.Validate(); err != nil {
			t.Errorf("zoom %s: %v", z, err)
		}
	}
	for _, z := range []string{"1e10001", "2e10000", "1e99999"} {
		l := base
		l.Zoom = MustDecimal(z)
		err := l.Validate()
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "out of range (0.001 to 1e10000)") {
			t.Errorf("zoom %s: error %v, want one line naming the range", z, err)
		}
	}
	if _, err := ParseLocationText("re=0 im=1 zoom=1e1086", base); err != nil {
		t.Errorf("location text at 1e1086: %v", err)
	}

	l := base
	l.Re, l.Im, l.Zoom = MustDecimal("0"), MustDecimal("1"), MustDecimal("1e5000")
	if n := l.AutoIterations(); n != 1_000_000 {
		t.Errorf("Auto iterations at 1e5000: %d, want the cap 1000000", n)
	}
	l.Zoom = MustDecimal("1e50")
	if n, want := l.AutoIterations(), AutoIterations(1e50); n != want {
		t.Errorf("Auto iterations at 1e50: %d, want %d", n, want)
	}
	l.Zoom = MustDecimal("1e5000")

	const w, h = 640, 360
	f := NewFrame(l, w, h)
	if f.Precision() != PerturbationExp {
		t.Fatalf("precision at 1e5000: %v", f.Precision())
	}
	if f.Spacing != 0 {
		t.Errorf("float64 spacing at 1e5000 = %g, want 0 (underflow)", f.Spacing)
	}
	if lg, want := f.SpacingX.Log10(), math.Log10(4.0/h)-5000; math.Abs(lg-want) > 1e-9 {
		t.Errorf("spacing at 1e5000: 10^%g, want 10^%g", lg, want)
	}
	if bits, want := f.ReferenceBits(), uint(math.Ceil(5000*math.Log2(10)+math.Log2(h/4.0)))+64; bits < want-1 || bits > want+1 {
		t.Errorf("reference bits at 1e5000: %d, want %d", bits, want)
	}
	if f := NewFrame(misiurewicz(290, 3000), w, h); f.Precision() != Perturbation {
		t.Errorf("precision at 1e290: %v, want perturbation (plain float64 deltas)", f.Precision())
	}

	// Zoom x2 about pixel (100, 50): the point under it stays (to a thousandth of a pixel).
	const px, py = 100, 50
	z2 := l.ZoomAt(px+0.5, py+0.5, 2, w, h)
	if r := z2.ZoomExp().Quo(l.ZoomExp()); r != NewExp(2) {
		t.Errorf("zoom after x2: ratio %v", r)
	}
	prec := f.ReferenceBits() + 64
	ar, ai := f.PointBig(px, py, prec)
	br, bi := NewFrame(z2, w, h).PointBig(px, py, prec)
	off := new(big.Float).SetPrec(prec).Sub(ar, br)
	off.Abs(off)
	offi := new(big.Float).SetPrec(prec).Sub(ai, bi)
	off.Add(off, offi.Abs(offi))
	if q := ExpFromBig(off).Quo(f.SpacingX); q.Cmp(NewExp(1e-3)) > 0 {
		t.Errorf("zoom about the cursor moved its point by %v pixels", q)
	}
	// Pan by (10, -4) pixels: the centre moves by exactly that many spacings (to 1e-3 px).
	p := l.Offset(10, -4, w, h)
	dre := ExpFromBig(new(big.Float).SetPrec(prec).Sub(p.Re.Big(prec), l.Re.Big(prec))).Quo(f.SpacingX)
	dim := ExpFromBig(new(big.Float).SetPrec(prec).Sub(p.Im.Big(prec), l.Im.Big(prec))).Quo(f.SpacingX)
	if math.Abs(dre.Float64()-10) > 1e-3 || math.Abs(dim.Float64()-4) > 1e-3 {
		t.Errorf("pan by (10, -4) px moved the centre by (%v, %v) px", dre, dim)
	}
	if len(p.Re.String()) < 5000 {
		t.Errorf("the panned centre has %d characters, too few to place a pixel at 1e5000", len(p.Re.String()))
	}
	if _, err := ParseDecimal(p.Im.String()); err != nil {
		t.Errorf("the panned centre does not read back: %v", err)
	}
	// Zooming out past MinZoom and in past MaxZoom clamps.
	if z := l.ZoomAt(0, 0, 1e-300, w, h).ZoomAt(0, 0, 1e-300, w, h); z.ZoomExp().Cmp(NewExp(MinZoom)) < 0 {
		t.Errorf("zoomed out to %v", z.Zoom)
	}
	top := l
	top.Zoom = MustDecimal("5e9999")
	if z := top.ZoomAt(0, 0, 1e3, w, h); z.Zoom.String() != DecimalFromExp(MustDecimal(MaxZoom).Exp()).String() || z.Validate() != nil {
		t.Errorf("zoom in past the maximum: %v (%v)", z.Zoom, z.Validate())
	}
}

// misiurewicz is i + (0.3 + 0.45i) 10^-k at zoom 10^k: next to the Misiurewicz point c = i,
// which has structure at every depth.
func misiurewicz(k, iterations int) Location {
	l := Home()
	l.Re = MustDecimal("3e-" + itoa(k+1))
	l.Im = MustDecimal("1." + strings.Repeat("0", k) + "45")
	l.Zoom = MustDecimal("1e" + itoa(k))
	l.Iterations = iterations
	return l
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// TestPerturbExpAgainstBig compares the extended-exponent path the pictures use (Frame.Escape
// on a PerturbationExp frame: one reference, rebasing, BLAExp), and the same without BLA,
// with math/big on sampled pixels at 1e400, 1e1000 and 1e5000 next to c = i, and at the
// benchmark view misi4e533 (120,000 iterations, where the orbit passes within 1e-60 of 0
// every 96 iterations and float64 products of a delta would underflow), and at nucleus1e451,
// centred on a minibrot's nucleus that fills half the view: the reference never escapes and
// returns within 1e-19 of 0 every 600 iterations, where pixels rebase.
// Pixels where
// math/big at two precisions disagrees are left out; at least 95% of the rest must be within
// 1 iteration, with BLA and without.
func TestPerturbExpAgainstBig(t *testing.T) {
	for _, c := range []struct {
		name    string
		loc     Location
		samples int
	}{
		{"1e400", misiurewicz(400, 3000), 32}, {"1e1000", misiurewicz(1000, 6000), 16},
		{"1e5000", misiurewicz(5000, 30000), 4}, {"misi4e533", deepLocationNamed(t, "misi4e533"), 4},
		{"nucleus1e451", deepLocationNamed(t, "nucleus1e451"), 16},
	} {
		k := c.samples
		if raceEnabled || testing.Short() {
			if c.loc.Iterations > 10000 {
				continue // 16,700 bits or 40,000+ iterations of math/big: too slow there
			}
			k = max(2, k/3)
		}
		t.Run(c.name, func(t *testing.T) {
			f, err := NewFrame(c.loc, 640, 360).WithReference(context.Background(), &ReferenceCache{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Precision() != PerturbationExp || f.Ref == nil {
				t.Fatalf("precision %v, reference %v: want an extended-exponent frame", f.Precision(), f.Ref != nil)
			}
			r := rand.New(rand.NewPCG(uint64(len(c.name)), 7))
			type px struct{ x, y, n, plain, b1, b2 int }
			pxs := make([]px, k)
			for i := range pxs {
				pxs[i] = px{x: r.IntN(f.W), y: r.IntN(f.H)}
			}
			p1 := f.ReferenceBits() + 32
			parallel(2*k, func(i int) {
				p := &pxs[i/2]
				if i%2 == 0 {
					p.n, _ = f.Escape(p.x, p.y)
					dr, di := f.DeltaExp(p.x, p.y)
					p.plain, _ = PerturbEscapeExp(f.Ref, nil, dr, di, f.Loc.Iterations, nil)
					cr, ci := f.PointBig(p.x, p.y, p1)
					p.b1 = EscapeBig(cr, ci, f.Loc.Iterations, p1)
				} else {
					cr, ci := f.PointBig(p.x, p.y, p1+128)
					p.b2 = EscapeBig(cr, ci, f.Loc.Iterations, p1+128)
				}
			})
			near := func(n, want int) bool { return n == want || n >= 0 && want >= 0 && abs(n-want) <= 1 }
			good, within, withinPlain := 0, 0, 0
			for _, p := range pxs {
				if p.b1 != p.b2 {
					t.Logf("pixel %d,%d ill-conditioned: math/big gives %d and %d", p.x, p.y, p.b1, p.b2)
					continue
				}
				good++
				if near(p.n, p.b1) {
					within++
				}
				if near(p.plain, p.b1) {
					withinPlain++
				}
				if !near(p.n, p.b1) || !near(p.plain, p.b1) {
					t.Logf("pixel %d,%d: perturbation %d (without BLA %d), math/big %d", p.x, p.y, p.n, p.plain, p.b1)
				}
			}
			t.Logf("%s: %d (without BLA %d) of %d well-conditioned pixels within 1 iteration (%d sampled)", c.name, within, withinPlain, good, len(pxs))
			if good < (len(pxs)+1)/2 || within*100 < good*95 || withinPlain*100 < good*95 {
				t.Errorf("%d (without BLA %d) of %d well-conditioned pixels (of %d) within 1 iteration of math/big, want 95%%", within, withinPlain, good, len(pxs))
			}
		})
	}
}

// TestPerturbExpMatchesPerturb runs the extended-exponent iteration on views float64
// perturbation handles (deltas near 1e-292, where it starts in extended form and changes to
// float64, and a minibrot view with 300k iterations, rebasing and long BLA jumps): nearly
// every pixel gets PerturbEscape's count (the BLA arithmetic rounds in another order).
func TestPerturbExpMatchesPerturb(t *testing.T) {
	for _, c := range []struct {
		loc  Location
		grid int
	}{{misiurewicz(290, 3000), 24}, {deepLocationNamed(t, "p136119z45"), 6}} {
		f, err := NewFrame(c.loc, 160, 90).WithReference(context.Background(), &ReferenceCache{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bla := f.BLA()
		dmax := NewExp(f.DeltaMax())
		blaX := f.Ref.BLAExp(dmax)
		g := c.grid
		if raceEnabled || testing.Short() {
			g = max(3, g/3)
		}
		same, total, stepsD, stepsX := 0, 0, 0, 0
		for j := range g {
			for i := range g {
				x, y := i*f.W/g, j*f.H/g
				dr, di := f.Delta(x, y)
				want, _, s1 := perturbEscape(f.Ref, bla, dr, di, f.Loc.Iterations, nil)
				got, _, s2 := perturbEscapeExp(f.Ref, blaX, NewExp(dr), NewExp(di), f.Loc.Iterations, nil)
				total++
				stepsD += s1
				stepsX += s2
				if got == want {
					same++
				} else {
					t.Logf("pixel %d,%d: extended %d, float64 %d", x, y, got, want)
				}
			}
		}
		t.Logf("zoom %s: %d of %d the same; steps %d (float64) and %d (extended)", c.loc.Zoom, same, total, stepsD, stepsX)
		if same*100 < total*98 {
			t.Errorf("zoom %s: only %d of %d pixels agree", c.loc.Zoom, same, total)
		}
	}
}

// TestReferenceKeepsTinyValues checks that orbit values below float64's range are kept
// exactly: c = -1 + 1e-400 has Z[2] = c(c+1), about -1e-400.
func TestReferenceKeepsTinyValues(t *testing.T) {
	re := MustDecimal("-0." + strings.Repeat("9", 400))
	im := MustDecimal("0")
	ref, err := ComputeReference(context.Background(), re, im, 1500, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := re.Big(3000)
	want := new(big.Float).SetPrec(3000).Add(c, big.NewFloat(1))
	want.Mul(want, c) // Z[2] = c^2 + c
	got := ref.zcx(2)
	if got.im != 0 || real(ref.Z[2]) != 0 {
		t.Fatalf("Z[2] = %v (float64 %v)", got, ref.Z[2])
	}
	if e := rel(ExpFromBig(MakeExp(got.re, got.e).Big(64)), want); e > 0x1p-50 {
		t.Errorf("tiny Z[2] = %v, want %v (relative error %g)", MakeExp(got.re, got.e), ExpFromBig(want), e)
	}
}

func rel(got Exp, want *big.Float) float64 {
	d := new(big.Float).SetPrec(200).Sub(got.Big(64), want)
	q, _ := d.Quo(d, want).Float64()
	return math.Abs(q)
}

// TestMemoryMillionIterationsExp is TestMemoryMillionIterations for an extended-exponent
// frame: a reference of 1,000,000 iterations and its BLAExp table (64 bytes an entry, about
// two entries an iteration) hold under 300 MB.
func TestMemoryMillionIterationsExp(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("a million-iteration orbit is slow under the race detector")
	}
	l := deepLocationNamed(t, "p136119z50")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ref := longReference(t, l, NewFrame(l, 1024, 1024).ReferenceBits(), 1_000_000)
	bla := ref.BLAExp(MakeExp(0.5, -3000)) // as for a view near 1e900
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("1,000,000 iterations: heap %.1f MB (%.0f bytes an iteration): orbit %d MB, BLAExp %d MB",
		float64(held)/1e6, float64(held)/1e6, 16*len(ref.Z)>>20, bla.Bytes()>>20)
	if held > 300<<20 {
		t.Errorf("reference and BLAExp hold %d MB, want under 300 MB", held>>20)
	}
	if len(bla.ent) < 1_999_000 {
		t.Errorf("BLAExp has %d entries, want about 2,000,000", len(bla.ent))
	}
	runtime.KeepAlive(ref)
}

// TestPerturbDEExpMatchesDE runs the extended-exponent iteration with the derivative on views
// float64 perturbation handles (1e290, where it starts in extended form, and a minibrot view
// with 300k iterations): the same counts as PerturbEscapeDE for nearly every pixel (one of 25
// at the minibrot view is chaotic: 275603 and 275732 where math/big says 275714), and for those
// the same smooth value, distance estimate and normal to 1e-6.
func TestPerturbDEExpMatchesDE(t *testing.T) {
	for _, c := range []struct {
		loc  Location
		grid int
	}{{misiurewicz(290, 3000), 16}, {deepLocationNamed(t, "p136119z45"), 5}} {
		f, err := NewFrame(c.loc, 160, 90).WithReference(context.Background(), &ReferenceCache{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		bla, blaX := f.BLA(), f.Ref.BLAExp(NewExp(f.DeltaMax()))
		same, total, finite := 0, 0, 0
		for j := range c.grid {
			for i := range c.grid {
				x, y := i*f.W/c.grid, j*f.H/c.grid
				dr, di := f.Delta(x, y)
				want := PerturbEscapeDE(f.Ref, bla, dr, di, f.Loc.Iterations, f.Spacing, nil)
				got := PerturbEscapeDEExp(f.Ref, blaX, NewExp(dr), NewExp(di), f.Loc.Iterations, NewExp(f.Spacing), nil)
				total++
				if got.N != want.N {
					t.Logf("pixel %d,%d: extended %d, float64 %d", x, y, got.N, want.N)
					continue
				}
				same++
				if want.N < 0 {
					continue
				}
				finite++
				relDE := math.Abs(got.DE-want.DE) / want.DE
				if math.Abs(got.Nu-want.Nu) > 1e-6 || !(relDE < 1e-6) || math.Abs(got.Ur-want.Ur) > 1e-6 || math.Abs(got.Ui-want.Ui) > 1e-6 {
					t.Errorf("pixel %d,%d: extended %+v, float64 %+v", x, y, got, want)
				}
			}
		}
		t.Logf("zoom %s: %d of %d the same (%d escaping)", c.loc.Zoom, same, total, finite)
		if same*100 < total*95 || finite == 0 { // chaotic pixels (both paths off math/big) may differ
			t.Errorf("zoom %s: %d of %d agree, %d escaping", c.loc.Zoom, same, total, finite)
		}
	}
}
