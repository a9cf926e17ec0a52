package fractal

import (
	"context"
	"mandelscope/internal/cputime"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestSpecNorm holds specNorm to the largest stretch of a unit vector, found by sampling the
// circle finely, for random matrices, conformal ones and anti-conformal ones (the Mandelbar's).
func TestSpecNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 300 {
		a, b, c, d := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		switch i % 3 {
		case 1:
			c, d = -b, a // conformal: [[a, b], [-b, a]], multiplication by a - ib
		case 2:
			c, d = b, -a // anti-conformal: [[a, b], [b, -a]]
		}
		best := 0.0
		for k := range 20000 {
			th := 2 * math.Pi * float64(k) / 20000
			x, y := math.Cos(th), math.Sin(th)
			best = max(best, math.Hypot(a*x+b*y, c*x+d*y))
		}
		got := specNorm(a, b, c, d)
		if got < best*(1-1e-12) || got > best*(1+1e-7) {
			t.Fatalf("[[%g %g] [%g %g]]: specNorm %g, sampled %g", a, b, c, d, got, best)
		}
		if i%3 == 1 && math.Abs(got-math.Hypot(a, b)) > 1e-15*got {
			t.Fatalf("conformal [[%g %g] [%g %g]]: specNorm %g, modulus %g", a, b, c, d, got, math.Hypot(a, b))
		}
	}
}

// TestFormulaBLAStep: a step's block against perturbStep, for every formula, with deltas just
// inside its radius (the block's A d + dc within eps of the exact step, relative to the linear
// part) and, for the Burning Ship, a reference value near an axis: there the radius is below
// the distance to the fold, and a delta crossing the fold (whose step is not A d + dc) is
// outside it.
func TestFormulaBLAStep(t *testing.T) {
	const eps = 0x1p-20
	rng := rand.New(rand.NewPCG(7, 8))
	for _, fm := range allFormulas() {
		for range 200 {
			zr, zi := 2*rng.Float64()-1, 2*rng.Float64()-1
			e := formulaStepBLA(fm, zr, zi, eps)
			if !(e.r > 0) {
				t.Fatalf("%v at %g%+gi: radius %g", fm, zr, zi, e.r)
			}
			th := 2 * math.Pi * rng.Float64()
			dr, di := 0.999*e.r*math.Cos(th), 0.999*e.r*math.Sin(th)
			dcr, dci := 1e-3*rng.NormFloat64(), 1e-3*rng.NormFloat64()
			pr, pi := perturbStep(fm, zr, zi, dr, di, dcr, dci)
			ar, ai := e.a11*dr+e.a12*di+dcr, e.a21*dr+e.a22*di+dci
			lin := math.Hypot(ar-dcr, ai-dci)
			if err := math.Hypot(pr-ar, pi-ai); err > eps/2*1.001*lin+1e-18 {
				t.Fatalf("%v at %g%+gi, d %g%+gi: block %g%+gi, step %g%+gi (error %g of the linear part)", fm, zr, zi, dr, di, ar, ai, pr, pi, err/lin)
			}
		}
	}
	// The Burning Ship near the real axis: Y small, the radius at most |Y|/2.
	ship := Formula{Kind: BurningShip}
	zr, zi := -0.7, 1e-9
	e := formulaStepBLA(ship, zr, zi, DefaultBLAEpsilon)
	if e.r > zi/2 {
		t.Errorf("ship at %g%+gi: radius %g, more than half the distance to the fold", zr, zi, e.r)
	}
	// A delta crossing the fold: its exact step is far from the block's.
	dr, di := 0.0, -3*zi
	pr, pi := perturbStep(ship, zr, zi, dr, di, 0, 0)
	ar, ai := e.a11*dr+e.a12*di, e.a21*dr+e.a22*di
	if math.Hypot(pr-ar, pi-ai) < 0.1*math.Hypot(pr, pi) || math.Abs(dr)+math.Abs(di) < e.r {
		t.Errorf("ship: a delta across the fold is in the radius %g or linear (%g%+gi, %g%+gi)", e.r, pr, pi, ar, ai)
	}
	// On an axis: radius 0.
	if e := formulaStepBLA(ship, 0.3, 0, DefaultBLAEpsilon); e.r != 0 {
		t.Errorf("ship on the real axis: radius %g", e.r)
	}
}

// TestFormulaBLABlocks: every block of a formula's table, applied to a delta inside its radius,
// against its 2^l plain steps (perturbStep), at a deep view's reference: within a small
// multiple of eps, plus float64's rounding, times the block's length.
func TestFormulaBLABlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, fm := range allFormulas() {
		if fm.IsMandelbrot() {
			continue
		}
		f := formulaEdgeFrame(t, fm, "1e30", 1000)
		if f.Ref == nil {
			continue
		}
		bla := f.FormulaBLA()
		ent, base, r0 := bla.table()
		end := len(r0) - 1
		z := f.Ref.Z
		dcMax := f.DeltaMax()
		checked := 0
		for m := 1; m <= end; m++ {
			at := ent[base[m-1]:base[m]]
			for l := len(at) - 1; l >= 0; l-- {
				e := at[l]
				if !(e.r > 0) {
					continue
				}
				span := 1 << l
				th, ph := 2*math.Pi*rng.Float64(), 2*math.Pi*rng.Float64()
				dr, di := 0.99*e.r*math.Cos(th), 0.99*e.r*math.Sin(th)
				dcr, dci := dcMax*math.Cos(ph), dcMax*math.Sin(ph)
				pr, pi := dr, di
				for k := range span {
					zm := z[m+k]
					pr, pi = perturbStep(fm, real(zm), imag(zm), pr, pi, dcr, dci)
				}
				ar, ai := e.a11*dr+e.a12*di+e.b11*dcr+e.b12*dci, e.a21*dr+e.a22*di+e.b21*dcr+e.b22*dci
				// The linear parts' error (eps/2 a step, relative) and both sides' float64
				// rounding (a power-8 step rounds a few dozen products): 2^-46 a step.
				if err := math.Hypot(pr-ar, pi-ai); err > float64(span)*(4*bla.Eps+0x1p-46)*math.Hypot(pr, pi) {
					t.Fatalf("%v: block at %d of %d steps: %g%+gi, steps %g%+gi (relative error %g, eps %g)", fm, m, span, ar, ai, pr, pi, err/math.Hypot(pr, pi), bla.Eps)
				}
				checked++
				break
			}
		}
		if checked < 20 {
			t.Errorf("%v: only %d blocks checked", fm, checked)
		}
	}
}

// formulaEdgeFrame is formulaEdgeView's frame.
func formulaEdgeFrame(t testing.TB, fm Formula, zoom string, iter int) Frame {
	f, _, _ := formulaEdgeView(t, fm, zoom, iter)
	return f
}

// formulaEdgeView is a 64x48 Perturbation frame (whatever its zoom) of fm's edge at zoom and
// iter iterations, with its reference: the first candidate centre (formulaEdgeCentre, bisected
// at iter iterations: at 400, the deep views would lie on the 400th level set's smooth edge,
// where every pixel escapes at 400 or 401 grazing the circle) whose sample pixels are well
// conditioned (math/big at two precisions agree, no step within 1e-9 of the escape circle) for
// a third of them, with at least two counts; and those pixels and their counts in math/big.
// Fails the test when none is found.

func formulaEdgeView(t testing.TB, fm Formula, zoom string, iter int) (f Frame, pixels [][2]int, counts []int) {
	t.Helper()
	const w, h = 64, 48
	var sample [][2]int
	for i := range 24 {
		sample = append(sample, [2]int{(i * 37) % w, (i * 23) % h})
	}
	tipRe, _ := formulaEdgePoint(fm, 0, 0, -2.5, 0, 60, 200)
	z := MustDecimal(zoom)
	bits := uint(math.Ceil(z.Exp().Log2())) + 24
	// The Misiurewicz points first (candidates 3 on: off the axes, where the Burning Ship's
	// folds would stop every block of a real reference), then the real filament's edge (0 to 2).
	for k := 3; ; k++ {
		i := k
		if k >= 27 { // past the tips (formulaEdgeCentre has 24): the filament's
			i = k - 27
		}
		re, im, ok, more := formulaEdgeCentre(fm, tipRe.Float64(), i, bits, iter)
		if !more || k == 30 {
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
		f.MinPrecision = Perturbation
		if f.Precision() != Perturbation {
			t.Fatalf("%v at %s: precision %v", fm, zoom, f.Precision())
		}
		f, err := f.WithReference(context.Background(), &ReferenceCache{}, nil)
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

// TestFormulaBLAAgainstBig measures the formula BLA's error: for every formula, at views near
// its set's edge at zoom 1e6, 1e50 and 1e290 (near the deepest the formulas' float64 loop
// reaches; perturbation at every zoom), by perturbation with the table and without it against
// math/big, two ways:
//
//   - each well-conditioned sample pixel of formulaEdgeView: the BLA must agree with math/big
//     (within max(1, N/1000)) at least as often as plain perturbation, and for 19 of 20 pixels;
//   - every pixel of a 160x120 frame of the same view where the two loops' counts differ, in
//     math/big at two precisions: where these agree and only one loop has it (countWithin),
//     that loop must be the BLA at least as often as plain perturbation, give or take two
//     pixels. (With the Mandelbrot set's epsilon, 2^-44, the Burning Ship fails this: the
//     BLA's error, above a float64 step's, grows along chaotic orbits.)
//
// At 1e50 and deeper the BLA must skip a fifth of the iterations or more (the share is
// logged). The views are the first that formulaEdgeView finds, Misiurewicz points first (off
// the axes); TestFormulaPerturbAgainstBig, whose frames take the BLA too, checks the real
// filament's edge, where the Burning Ship's reference lies on its fold (without the fold's
// radius, its counts there are 10 to 16 short).
func TestFormulaBLAAgainstBig(t *testing.T) {
	zooms, side := []string{"1e6", "1e50", "1e290"}, 160
	if raceEnabled || testing.Short() { // the run without the race detector has them all
		zooms, side = []string{"1e50"}, 40
	}
	for _, zoom := range zooms {
		for _, fm := range allFormulas() {
			if fm.IsMandelbrot() {
				continue
			}
			const iter = 2000
			f, pixels, want := formulaEdgeView(t, fm, zoom, iter)
			bla := f.FormulaBLA()
			agreeBLA, agreePlain := 0, 0
			for i, p := range pixels {
				dr, di := f.Delta(p[0], p[1])
				n0, _ := PerturbEscapeFormula(f.Ref, nil, dr, di, iter, nil)
				n1, _ := PerturbEscapeFormula(f.Ref, bla, dr, di, iter, nil)
				if countWithin(n0, want[i]) {
					agreePlain++
				}
				if countWithin(n1, want[i]) {
					agreeBLA++
				}
			}
			if agreeBLA < agreePlain || 20*agreeBLA < 19*len(pixels) {
				t.Errorf("%v at %s: %d of %d pixels agree with math/big with the BLA, %d without", fm, zoom, agreeBLA, len(pixels), agreePlain)
			}
			big := NewFrame(f.Loc, side, side*3/4)
			big.MinPrecision = Perturbation
			big, err := big.WithReference(context.Background(), &ReferenceCache{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			c := compareFormulaBLA(big, big.FormulaBLA())
			t.Logf("%v at %s: samples %d of %d agree, no BLA %d; of %dx%d, %d differ from plain perturbation: math/big sides with the BLA on %d, plain on %d (%d ill-conditioned); the BLA skipped %.1f%% of the iterations",
				fm, zoom, agreeBLA, len(pixels), agreePlain, big.W, big.H, c.differ, c.blaRight, c.plainRight, c.ambiguous, 100*c.skipped())
			if c.plainRight > c.blaRight+2 {
				t.Errorf("%v at %s: of the pixels the loops differ on, math/big sides with the BLA on %d, plain perturbation on %d", fm, zoom, c.blaRight, c.plainRight)
			}
			if zoom != "1e6" && c.skipped() < 0.2 {
				t.Errorf("%v at %s: the BLA skipped %.1f%% of the iterations", fm, zoom, 100*c.skipped())
			}
		}
	}
}

// countWithin reports whether count n is m's within max(1, m/1000) (-1, inside, only -1's).
func countWithin(n, m int) bool {
	if n < 0 || m < 0 {
		return n == m
	}
	return max(n-m, m-n) <= max(1, m/1000)
}

// formulaBLATally is compareFormulaBLA's tally.
type formulaBLATally struct {
	differ               int // pixels whose counts the two loops differ on
	blaRight, plainRight int // those where only the BLA's, only plain's is math/big's (countWithin)
	ambiguous            int // those where math/big at two precisions disagrees
	iters, steps         int // the BLA loop's iterations and steps (plain steps and blocks)
}

func (c formulaBLATally) skipped() float64 { return 1 - float64(c.steps)/float64(c.iters) }

// compareFormulaBLA runs every pixel of f by perturbation without a table and with bla, and
// where the counts differ, computes the pixel's count in math/big at f's reference precision
// plus 64 bits and plus 128.
func compareFormulaBLA(f Frame, bla *FormulaBLA) formulaBLATally {
	var c formulaBLATally
	it := f.Loc.Iterations
	prec := f.ReferenceBits() + 64
	for y := range f.H {
		for x := range f.W {
			dr, di := f.Delta(x, y)
			n0, _ := PerturbEscapeFormula(f.Ref, nil, dr, di, it, nil)
			n1, _, s := perturbEscapeFormula(f.Ref, bla, dr, di, it, nil)
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

// BenchmarkFormulaPerturb is the time a pixel of a 64x64 Burning Ship view at 1e50 near its
// edge, 20000 iterations, takes by scalar perturbation without the BLA and with it (the table
// built once, before the timing), at two views: "hull", centred at the edge of the ship's
// hull (bisected at 20000 iterations between 0, which stays, and -1.77-1.77i, which escapes),
// where about half the pixels stay and their orbits leave the reference's (they rebase again
// and again with deltas the size of the values, where no block is valid, and their counts are
// chaotic: math/big at two precisions disagrees on them); and "tip", centred
// at a Misiurewicz point off the axes (the first that formulaEdgeCentre gives), whose pixels
// follow the reference until they escape. batch is the BLA's on PerturbEscapeFormulaBatch.
func BenchmarkFormulaPerturb(b *testing.B) {
	ship := Formula{Kind: BurningShip}
	l := Home()
	l.Formula, l.Iterations, l.Zoom = ship, 20000, MustDecimal("1e50")
	hull, tip := l, l
	hull.Re, hull.Im = formulaEdgePoint(ship, 0, 0, -2.5*math.Sqrt2/2, -2.5*math.Sqrt2/2, 190, l.Iterations)
	for i := 3; ; i++ {
		re, im, ok, more := formulaEdgeCentre(ship, 0, i, 190, 400)
		if !more {
			b.Fatal("no Misiurewicz point")
		}
		if ok {
			tip.Re, tip.Im = re, im
			break
		}
	}
	for _, v := range []struct {
		name string
		loc  Location
	}{{"hull", hull}, {"tip", tip}} {
		f, err := NewFrame(v.loc, 64, 64).WithReference(b.Context(), &ReferenceCache{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			bla  *FormulaBLA
		}{{"noBLA", nil}, {"BLA", f.FormulaBLA()}} {
			b.Run(v.name+"/"+c.name, func(b *testing.B) {
				iters, steps := 0, 0
				cpu0 := cputime.Process()
				for b.Loop() {
					for y := range f.H {
						for x := range f.W {
							dr, di := f.Delta(x, y)
							n, _, s := perturbEscapeFormula(f.Ref, c.bla, dr, di, l.Iterations, nil)
							if n < 0 {
								n = l.Iterations
							}
							iters += n
							steps += s
						}
					}
				}
				px := float64(b.N * f.W * f.H)
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/px, "ns/pixel")
				b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/px, "cpu-ns/pixel")
				b.ReportMetric(float64(iters)/px, "iter/pixel")
				b.ReportMetric(float64(steps)/px, "steps/pixel")
			})
		}
		// The same with the table on the batch loops (PerturbEscapeFormulaBatch: the
		// vector loops where there are), in blocks of 4x4 pixels as the CPU renderer
		// hands them over.
		b.Run(v.name+"/batch", func(b *testing.B) {
			var dcr, dci []float64
			for by := 0; by < f.H; by += 4 {
				for bx := 0; bx < f.W; bx += 4 {
					for y := by; y < by+4; y++ {
						for x := bx; x < bx+4; x++ {
							dr, di := f.Delta(x, y)
							dcr, dci = append(dcr, dr), append(dci, di)
						}
					}
				}
			}
			n, nu := make([]int, len(dcr)), make([]float64, len(dcr))
			bla := f.FormulaBLA()
			iters := 0
			cpu0 := cputime.Process()
			for b.Loop() {
				PerturbEscapeFormulaBatch(f.Ref, bla, dcr, dci, l.Iterations, nil, n, nu)
				for _, k := range n {
					if k < 0 {
						k = l.Iterations
					}
					iters += k
				}
			}
			px := float64(b.N * len(dcr))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/px, "ns/pixel")
			b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/px, "cpu-ns/pixel")
			b.ReportMetric(float64(iters)/px, "iter/pixel")
		})
	}
}

// TestFormulaBLAJuliaCut: in a Julia reference's table, no block spans the step from the
// critical orbit's last index to the reference point's first (which is no step of the map:
// a pixel rebases there), and blocks elsewhere are valid.
func TestFormulaBLAJuliaCut(t *testing.T) {
	l := Home()
	l.Formula = Formula{Kind: BurningShip}
	l.Iterations = 300
	l.Julia = JuliaParam{On: true, Re: MustDecimal("-0.1"), Im: MustDecimal("0.1")}
	l.Re, l.Im, l.Zoom = MustDecimal("0.3"), MustDecimal("0.2"), MustDecimal("1e20")
	f, err := NewFrame(l, 16, 16).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cut := f.Ref.JuliaStart() - 1
	if cut < 100 {
		t.Fatalf("critical orbit of %d values", cut+1)
	}
	bla := f.FormulaBLA()
	valid := 0
	for lv := 0; bla.steps>>lv >= 1; lv++ {
		for k := range bla.steps >> lv {
			e := bla.ent[int(bla.base[k<<lv])+lv]
			first, last := 1+k<<lv, (k+1)<<lv // the steps from m = first to last
			if first <= cut && cut <= last && e.r != 0 {
				t.Fatalf("level %d entry %d (steps %d to %d) spans the cut at %d with radius %g", lv, k, first, last, cut, e.r)
			}
			if e.r > 0 {
				valid++
			}
		}
	}
	if valid < bla.steps/2 {
		t.Errorf("%d valid blocks of %d steps", valid, bla.steps)
	}
}

// BenchmarkFormulaBLAViews is the time a pixel takes by scalar perturbation without the BLA
// and with it, for every formula at its view of TestFormulaBLAAgainstBig at 1e50 (160x120,
// 2000 iterations; the views found before the timing).
func BenchmarkFormulaBLAViews(b *testing.B) {
	for _, fm := range allFormulas() {
		if fm.IsMandelbrot() {
			continue
		}
		v, _, _ := formulaEdgeView(b, fm, "1e50", 2000)
		f := NewFrame(v.Loc, 160, 120)
		f.MinPrecision = Perturbation
		f, err := f.WithReference(b.Context(), &ReferenceCache{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			bla  *FormulaBLA
		}{{"noBLA", nil}, {"BLA", f.FormulaBLA()}} {
			b.Run(strings.ReplaceAll(fm.String(), " ", "-")+"/"+c.name, func(b *testing.B) {
				for b.Loop() {
					for y := range f.H {
						for x := range f.W {
							dr, di := f.Delta(x, y)
							PerturbEscapeFormula(f.Ref, c.bla, dr, di, f.Loc.Iterations, nil)
						}
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*f.W*f.H), "ns/pixel")
			})
		}
	}
}

// TestFormulaBLAFlat: Flat lays a formula's table out as BLA.Flat does (level l's entry k, the
// block from m = 1 + k 2^l, at Offset(l) + k), each entry the one the loops read for that start
// and level, with FormulaBLAStride values (A, B by rows, R, 0); and the GPU's lookup on it (the
// largest level from the top one down whose block is valid) takes the block the CPU's climb
// from level 0 takes, for deltas at every radius of the table.
func TestFormulaBLAFlat(t *testing.T) {
	mb3, err := MakeFormula(Mandelbar, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, fm := range []Formula{{Kind: BurningShip}, mb3} {
		f := formulaEdgeFrame(t, fm, "1e30", 1000)
		if f.Ref == nil {
			t.Fatalf("%v: no reference", fm)
		}
		bla := f.FormulaBLA()
		flat := bla.Flat()
		levels := bla.Levels()
		if levels < 5 || len(flat) != FormulaBLAStride*bla.Offset(levels) {
			t.Fatalf("%v: %d levels, %d values for %d entries", fm, levels, len(flat), bla.Offset(levels))
		}
		ent, base, r0 := bla.table()
		if bla.Offset(levels) != len(ent) {
			t.Errorf("%v: Offset(Levels) = %d, want the %d entries", fm, bla.Offset(levels), len(ent))
		}
		for m := 1; m < len(r0); m++ {
			at := ent[base[m-1]:base[m]]
			for l, e := range at {
				o := flat[FormulaBLAStride*(bla.Offset(l)+(m-1)>>l):][:FormulaBLAStride]
				want := [FormulaBLAStride]float64{e.a11, e.a12, e.a21, e.a22, e.b11, e.b12, e.b21, e.b22, e.r, 0}
				if [FormulaBLAStride]float64(o) != want {
					t.Fatalf("%v: the entry of level %d at m = %d is %v in Flat, %v in the table", fm, l, m, o, want)
				}
			}
			// The lookups, for a delta just inside each radius of this start.
			for _, e := range at {
				ad := e.r * 0.999
				climb := -1
				if ad < r0[m] {
					climb = 0
					for l := 1; l < len(at) && ad < at[l].r; l++ {
						climb = l
					}
				}
				top := levels - 1
				if m-1 != 0 {
					top = min(bits.TrailingZeros(uint(m-1)), top)
				}
				down := -1
				for l := top; l >= 0; l-- {
					if k := (m - 1) >> l; k < bla.Steps()>>l && ad < flat[FormulaBLAStride*(bla.Offset(l)+k)+8] {
						down = l
						break
					}
				}
				if climb != down {
					t.Fatalf("%v: at m = %d with |d| %g the loops take level %d, the top-down lookup %d", fm, m, ad, climb, down)
				}
			}
		}
	}
}
