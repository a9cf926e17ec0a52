package render

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/render/cpu"
	"mandelscope/shaders"
)

// everyFormula lists every formula fractal knows other than the zero one, kind by kind (from
// fractal.FormulaNames, so that a kind added there is tested here) and power by power.
func everyFormula(t testing.TB, powers ...int) []fractal.Formula {
	t.Helper()
	var out []fractal.Formula
	for _, name := range fractal.FormulaNames() {
		k, err := fractal.ParseFormulaKind(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range powers {
			fm, err := fractal.MakeFormula(k, d)
			if err != nil {
				t.Fatal(err)
			}
			if !fm.IsMandelbrot() {
				out = append(out, fm)
			}
		}
	}
	return out
}

// formulaEdge is a point on the edge of formula fm's set along the ray at angle a (radians),
// to float64's precision: bisected between 0 (a fixed point of every formula: inside) and
// 2.5 e^(ia) (escapes at once) on whether the orbit stays within 1000 iterations.
func formulaEdge(t testing.TB, fm fractal.Formula, a float64) (re, im float64) {
	t.Helper()
	stays := func(s float64) bool {
		cr, ci := s*math.Cos(a), s*math.Sin(a)
		n, _ := fractal.EscapeFormula64(fm, cr, ci, cr, ci, 1000)
		return n < 0
	}
	lo, hi := 0.0, 2.5
	if !stays(lo) || stays(hi) {
		t.Fatalf("%v: the ray at %g does not cross the set's edge", fm, a)
	}
	for range 60 {
		mid := (lo + hi) / 2
		if stays(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi * math.Cos(a), hi * math.Sin(a)
}

// formulaView is formula fm's set about (re, im) at zoom with iter iterations (a Julia set of
// parameter (jre, jim) where julia).
func formulaView(t testing.TB, fm fractal.Formula, re, im float64, zoom string, iter int, julia bool, jre, jim float64) fractal.Location {
	t.Helper()
	l := fractal.HomeOf(fm)
	if julia {
		l = l.JuliaAt(decimalOf(t, jre), decimalOf(t, jim))
	}
	l.Re, l.Im, l.Zoom = decimalOf(t, re), decimalOf(t, im), fractal.MustDecimal(zoom)
	l.Iterations = iter
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	return l
}

func decimalOf(t testing.TB, v float64) fractal.Decimal {
	t.Helper()
	d, err := fractal.ParseDecimal(strconv.FormatFloat(v, 'g', 17, 64))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// formulaCase is one GPU-CPU comparison: a formula's view and the precision its frame must
// have.
type formulaCase struct {
	name string
	loc  fractal.Location
	prec fractal.Precision
}

// formulaCases are the views of TestFormulaAgainstCPU: for each formula of power 2, 3 and 8,
// its set near its edge at zoom 20 (float32), 1e5 and 1e7 (double; 1e7 the deepest double
// view at 2000 iterations at this size: 1e8 is a perturbation frame) and 1e8 (perturbation), each on a ray
// of its own; and two Julia sets (the Burning Ship's and the power-3 Mandelbar's, the
// parameter just inside the set's edge) whole (float32) and at zoom 1e6 (double) and 1e9
// (perturbation) about a point of their edge.
func formulaCases(t testing.TB) []formulaCase {
	var out []formulaCase
	for i, fm := range everyFormula(t, 2, 3, 8) {
		re, im := formulaEdge(t, fm, 0.7+0.9*float64(i))
		out = append(out,
			formulaCase{fm.String() + "_edge_20", formulaView(t, fm, re, im, "20", 300, false, 0, 0), fractal.Float32},
			formulaCase{fm.String() + "_edge_1e5", formulaView(t, fm, re, im, "1e5", 1000, false, 0, 0), fractal.Double},
			formulaCase{fm.String() + "_edge_1e7", formulaView(t, fm, re, im, "1e7", 2000, false, 0, 0), fractal.Double},
			formulaCase{fm.String() + "_edge_1e8", formulaView(t, fm, re, im, "1e8", 2000, false, 0, 0), fractal.Perturbation})
	}
	bs, mb3 := fractal.Formula{Kind: fractal.BurningShip}, must(fractal.MakeFormula(fractal.Mandelbar, 3))
	for _, j := range []struct {
		fm fractal.Formula
		a  float64
	}{{bs, 2.2}, {mb3, 1.1}} {
		cr, ci := formulaEdge(t, j.fm, j.a)
		cr, ci = 0.98*cr, 0.98*ci
		zr, zi := juliaEdge(t, j.fm, cr, ci, 0.4)
		out = append(out,
			formulaCase{j.fm.String() + "_julia_whole", formulaView(t, j.fm, 0, 0, "1", 300, true, cr, ci), fractal.Float32},
			formulaCase{j.fm.String() + "_julia_1e6", formulaView(t, j.fm, zr, zi, "1e6", 2000, true, cr, ci), fractal.Double},
			formulaCase{j.fm.String() + "_julia_1e9", formulaView(t, j.fm, zr, zi, "1e9", 2000, true, cr, ci), fractal.Perturbation})
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// juliaEdge is formulaEdge for the Julia set of parameter (cr, ci): a point of its edge on the
// ray at angle a, bisected between 0 (whose orbit must stay) and 2.5 e^(ia).
func juliaEdge(t testing.TB, fm fractal.Formula, cr, ci, a float64) (re, im float64) {
	t.Helper()
	stays := func(s float64) bool {
		n, _ := fractal.EscapeFormula64(fm, s*math.Cos(a), s*math.Sin(a), cr, ci, 1000)
		return n < 0
	}
	lo, hi := 0.0, 2.5
	if !stays(lo) || stays(hi) {
		t.Fatalf("%v: the Julia set of %g%+gi has no edge on the ray at %g", fm, cr, ci, a)
	}
	for range 60 {
		mid := (lo + hi) / 2
		if stays(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi * math.Cos(a), hi * math.Sin(a)
}

// TestFormulaAgainstCPU: the GPU draws and computes every formula's float32, double and
// perturbation frames itself (no frame to the CPU renderer), its own set and its Julia sets,
// in the automatic precision and in the emulated double: the pictures as TestAgainstCPU asks (>= 98% of pixels
// within 6/255 of the CPU renderer's, the differing ones isolated), the samples as
// TestComputeAgainstCPU (inside/escaped and the smooth value on >= 99% of the pixels, the
// emulated double 98%).
func TestFormulaAgainstCPU(t *testing.T) {
	for _, prec := range []string{"", "emulated"} {
		for _, c := range formulaCases(t) {
			name := map[string]string{"": "auto"}[prec] + prec
			t.Run(name+"/"+c.name, func(t *testing.T) {
				if prec == "emulated" && c.prec != fractal.Double {
					t.Skip("the emulated double draws double frames")
				}
				if prec == "emulated" && (strings.HasSuffix(c.name, "_1e7") || c.loc.Formula.Power() > 3) {
					// As TestAgainstCPU's deep_seahorse_1e10: these views are too chaotic for
					// the float-float's 48 bits to give float64's counts. Rounding each pixel's
					// c to 48 bits alone, in float64 on the CPU, changes 6.3% of mandelbrot
					// power 3's escape counts at 1e7 (the GPU's emulated double: 6.1%), and
					// 2.7% of mandelbrot power 8's at 1e5 (the GPU's: 2.5%). The emulated
					// double is checked at 1e5 for the powers 2 and 3, and on the Julia sets
					// at 1e6.
					t.Skip("too chaotic for 48-bit float-float to match float64")
				}
				g := testGL(t, Options{Precision: prec, Perturb: "gpu"})
				f := fractal.NewFrame(c.loc, 96, 64)
				if f.Precision() != c.prec {
					t.Fatalf("the frame is %v, want %v", f.Precision(), c.prec)
				}
				before := g.Stats()
				got := renderGL(t, g, f)
				samples := computeGL(t, g, f)
				if s := g.Stats(); s.CPUFrames != before.CPUFrames {
					t.Errorf("%d frames to the CPU renderer (%s), want 0", s.CPUFrames-before.CPUFrames, g.Mode(f))
				}
				if m := g.Mode(f); strings.Contains(m, "CPU") {
					t.Errorf("Mode = %q", m)
				}
				want := image.NewRGBA(got.Bounds())
				if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
					t.Fatal(err)
				}
				// The view must have structure, and must not be the Mandelbrot set's.
				colours := map[[3]uint8]bool{}
				for i := 0; i < len(want.Pix); i += 4 {
					colours[[3]uint8{want.Pix[i], want.Pix[i+1], want.Pix[i+2]}] = true
				}
				if len(colours) < 20 {
					t.Fatalf("the CPU's picture has %d colours: the view tests little", len(colours))
				}
				m := f
				m.Loc.Formula = fractal.Formula{}
				if same, _ := imagetest.Agreement(want, renderGL(t, g, m), 6); same > 0.9 {
					t.Errorf("the picture is %.1f%% the Mandelbrot set's", 100*same)
				}
				frac := matchesCPU(t, fmt.Sprintf("formula_%s_%s", name, c.name), got, want)
				tol := exactTol
				if g.variant(f) == shaders.Emulated {
					tol = emulatedTol
				}
				a := compareSamples(samples, computeCPU(t, f), false, tol)
				side := float64(a.sameSide) / float64(a.pixels)
				nu := float64(a.nuOK) / float64(max(a.escaped, 1))
				t.Logf("%s (%s): picture %.3f%% within 6/255; samples: %d escaped of %d, inside/escaped agree on %.3f%%, nu on %.3f%% (worst %.2g)",
					c.name, g.Mode(f), 100*frac, a.escaped, a.pixels, 100*side, 100*nu, a.worstNu)
				if side < tol.share || nu < tol.share || a.escaped == 0 {
					t.Errorf("samples: inside/escaped %.3f%%, nu %.3f%% (want %.0f%%), %d escaped; first disagreement at %v",
						100*side, 100*nu, 100*tol.share, a.escaped, a.firstBad)
				}
			})
		}
	}
}

// TestFormulaKindsHaveGLSL: every formula kind fractal lists, at every power, has its own
// defines, and its programs (with the derivative too) compile and draw its set as the CPU does (a kind or power that
// the shaders do not know fails here: common.glsl refuses a POWER with no kind it knows);
// a kind define the shaders do not know does not compile.
func TestFormulaKindsHaveGLSL(t *testing.T) {
	g := testGL(t, Options{})
	seen := map[string]fractal.Formula{}
	powers := make([]int, 0, fractal.MaxPower-1)
	for d := 2; d <= fractal.MaxPower; d++ {
		powers = append(powers, d)
	}
	for _, fm := range everyFormula(t, powers...) {
		defs := strings.Join(formulaDefines(fm), " ")
		if other, ok := seen[defs]; ok {
			t.Errorf("%v and %v have the same defines %q", fm, other, defs)
		}
		seen[defs] = fm
		kindDef := formulaDefines(fm)[0]
		if !strings.Contains(shaders.Common, "defined("+kindDef+")") {
			t.Errorf("%v: common.glsl does not test its define %s", fm, kindDef)
		}
		// Every program of the formula: each variant and stage of mandel.frag, and perturb.frag's.
		keys := []progKey{
			{v: shaders.F32, stage: stageIterate}, {v: shaders.F64, stage: stageSample},
			{v: shaders.Emulated, stage: stageSingle}, {v: shaders.Perturb, pages: 1, stage: stageSingle},
			{v: shaders.Perturb, pages: 2, stage: stageIterate, julia: true},
		}
		if fm.Power() <= 3 || fm.Power() == 8 {
			// With the derivative (the Jacobian: jacStep's fold), in each arithmetic, and with
			// extended exponents (foldDeltaCx's and jacStepX's folds): a fold's case is its kind's, the power a
			// define every loop takes alike, so the powers 2 and 3 of each kind test them, and 8, whose
			// step has its own form (formulaDelta's and formulaStepCx's factored sum).
			keys = append(keys,
				progKey{v: shaders.F32, stage: stageSingle, deriv: true}, progKey{v: shaders.Emulated, stage: stageSample, deriv: true},
				progKey{v: shaders.F64, stage: stageIterate, deriv: true}, progKey{v: shaders.Perturb, pages: 1, stage: stageIterate, deriv: true},
				progKey{v: shaders.Perturb, pages: 1, stage: stageSingle, exp: true},
				progKey{v: shaders.Perturb, pages: 1, stage: stageIterate, exp: true, julia: true, deriv: true})
		}
		for _, key := range keys {
			if (key.v == shaders.F64 || key.v == shaders.Perturb) && !g.fp64 {
				continue
			}
			key.formula = fm
			if err := g.th.call(func() error { _, err := g.lazyProgram(key); return err }); err != nil {
				t.Errorf("%v, %s %s: %v", fm, key.v, key.stage, err)
			}
		}
		l := fractal.HomeOf(fm)
		l.Iterations = 100
		f := fractal.NewFrame(l, 48, 32)
		got := renderGL(t, g, f)
		want := image.NewRGBA(got.Bounds())
		if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
			t.Fatal(err)
		}
		if frac, bad := imagetest.Agreement(got, want, 6); frac < 0.98 {
			saveFailed(t, "formula_kind_"+fm.String()+".png", got)
			t.Errorf("%v: only %.2f%% of pixels within 6/255 of the CPU; first bad pixel %v", fm, 100*frac, bad)
		}
	}
	if len(seen) != len(fractal.FormulaNames())*len(powers)-1 {
		t.Errorf("%d formulas tested, want every kind at every power but the zero formula", len(seen))
	}
	err := g.th.call(func() error {
		_, err := linkProgram(g.glsl, shaders.F32, stageSingle, shaders.FullscreenVert,
			[]source{{"mandel.frag", shaders.MandelFrag}}, []string{string(shaders.F32), "FORMULA_UNKNOWN_KIND", "POWER 2"})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "POWER without a formula kind") {
		t.Errorf("a program with an unknown formula kind: %v, want common.glsl's #error", err)
	}
}

// TestFormulaDerivativeAgainstCPU: a formula's frame in a colouring that reads the derivative
// (its Jacobian, common.glsl's jacStep) is drawn and computed on the GPU, never handed to the
// CPU renderer, in float32, native double and perturbation, its own set and a Julia set, in
// one pass and in passes (the Jacobian carried in the state textures): the picture as
// TestAgainstCPU asks, the samples (inside/escaped, nu, and the distance estimate and normal)
// within exactTol of the CPU renderer's on >= 99% of the pixels. The emulated double, whose
// c carries 48 bits, within emulatedTol.
func TestFormulaDerivativeAgainstCPU(t *testing.T) {
	cases := map[string]formulaCase{}
	for _, c := range formulaCases(t) {
		cases[c.name] = c
	}
	for i, v := range []struct {
		view, prec string
		passes     bool
	}{
		{"burning-ship_edge_20", "", false}, {"burning-ship_edge_20", "", true}, {"burning-ship_edge_1e5", "", false},
		{"burning-ship_edge_1e5", "", true}, {"burning-ship_edge_1e8", "", false}, {"burning-ship_edge_1e8", "", true},
		{"burning-ship_julia_1e6", "", false}, {"burning-ship_julia_1e9", "", true},
		{"mandelbar_edge_20", "", false}, {"mandelbar_edge_1e7", "", false}, {"mandelbar_edge_1e8", "", false},
		{"mandelbrot power 3_edge_20", "", false}, {"mandelbrot power 3_edge_1e5", "", false},
		{"mandelbrot power 3_edge_1e8", "", true}, {"burning-ship power 3_edge_1e8", "", false},
		{"mandelbar power 3_julia_1e9", "", false}, {"mandelbar power 3_edge_1e5", "emulated", false},
	} {
		c, ok := cases[v.view]
		if !ok {
			t.Fatalf("no view %q", v.view)
		}
		// The distance and slopes colourings in turn: both read the same samples.
		for _, col := range []string{[]string{"distance", "slopes"}[i%2]} {
			name := strings.ReplaceAll(v.view, " ", "_") + "_" + col
			if v.passes {
				name += "_passes"
			}
			if v.prec != "" {
				name += "_" + v.prec
			}
			t.Run(name, func(t *testing.T) {
				opts := Options{Precision: v.prec, Perturb: "gpu"}
				if v.passes {
					opts.PassIterations = 37
				}
				g := testGL(t, opts)
				if g.variant(fractal.NewFrame(c.loc, 1, 1)) == shaders.Perturb && !g.fp64 {
					t.Skipf("%s has no fp64", g.renderer)
				}
				f := fractal.NewFrame(withColouring(t, c.loc, col), 48, 32)
				if !f.NeedsDerivative() || f.Precision() != c.prec {
					t.Fatalf("the frame is %v and reads the derivative: %v", f.Precision(), f.NeedsDerivative())
				}
				before := g.Stats()
				got := renderGL(t, g, f)
				samples := computeGL(t, g, f)
				if s := g.Stats(); s.CPUFrames != before.CPUFrames {
					t.Errorf("%d frames to the CPU renderer (%s), want 0", s.CPUFrames-before.CPUFrames, g.Mode(f))
				}
				if m := g.Mode(f); strings.Contains(m, "CPU") {
					t.Errorf("Mode = %q", m)
				}
				want := image.NewRGBA(got.Bounds())
				if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
					t.Fatal(err)
				}
				frac := matchesCPU(t, "formula_deriv_"+name, got, want)
				tol := exactTol
				if g.variant(f) == shaders.Emulated {
					tol = emulatedTol
				}
				a := compareSamples(samples, computeCPU(t, f), true, tol)
				side := float64(a.sameSide) / float64(a.pixels)
				de := float64(a.deOK) / float64(max(a.escaped, 1))
				t.Logf("%s (%s): picture %.3f%% within 6/255; samples: %d escaped of %d, inside/escaped %.3f%%, nu and DE %.3f%%",
					name, g.Mode(f), 100*frac, a.escaped, a.pixels, 100*side, 100*de)
				if side < tol.share || de < tol.share || a.escaped < a.pixels/10 {
					t.Errorf("samples: inside/escaped %.3f%%, nu and DE %.3f%% (want %.0f%%), %d of %d escaped; first disagreement at %v",
						100*side, 100*de, 100*tol.share, a.escaped, a.pixels, a.firstBad)
				}
			})
		}
	}
}

// TestFormulaPasses: a formula's frame drawn in passes (the orbit carried between them in
// the state textures) is the single pass's picture byte for byte, and its samples from
// Compute in passes are the single pass's bit for bit, in float32, double and perturbation.
func TestFormulaPasses(t *testing.T) {
	single := testGL(t, Options{Perturb: "gpu"})
	passes := testGL(t, Options{PassIterations: 7, Perturb: "gpu"})
	for _, c := range formulaCases(t) {
		if !strings.HasPrefix(c.name, "burning-ship power 3_edge") && !strings.HasPrefix(c.name, "mandelbar power 3_julia") &&
			!strings.HasPrefix(c.name, "mandelbar_edge") {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			l := c.loc
			l.Iterations = 400
			f := fractal.NewFrame(l, 80, 50)
			want := renderGL(t, single, f)
			if got := renderGL(t, passes, f); string(got.Pix) != string(want.Pix) {
				frac, bad := imagetest.Agreement(got, want, 0)
				t.Errorf("in passes: %.3f%% equal to the single pass, first difference at %v", 100*frac, bad)
			}
			if !sameSamples(computeGL(t, passes, f), computeGL(t, single, f)) {
				t.Errorf("Compute in passes differs from Compute in one pass")
			}
		})
	}
}

// TestFormulaGL33 draws formulas on a GL 3.3 core context with GLSL 3.30 shaders (fp64 through
// GL_ARB_gpu_shader_fp64 where the driver has it), in every variant it has and perturbation,
// against the CPU renderer.
func TestFormulaGL33(t *testing.T) {
	g := newGL33(t)
	g.opts.Perturb = "gpu"
	cases := map[string]formulaCase{}
	for _, c := range formulaCases(t) {
		cases[c.name] = c
	}
	for _, c := range []struct {
		prec, view string
	}{{"", "burning-ship power 3_edge_20"}, {"", "mandelbar_edge_1e7"}, {"emulated", "mandelbar power 3_edge_1e5"},
		{"", "burning-ship_edge_1e8"}, {"", "mandelbar power 3_julia_1e9"}} {
		v, ok := cases[c.view]
		if !ok {
			t.Fatalf("no view %q", c.view)
		}
		f := fractal.NewFrame(v.loc, 96, 64)
		g.opts.Precision = c.prec
		if vr := g.variant(f); g.progs[vr] == nil && vr != shaders.Perturb || vr == shaders.Perturb && !g.fp64 {
			t.Logf("%s: %s not available on %s with GLSL 3.30", c.view, vr, g.renderer)
			continue
		}
		before := g.Stats()
		got := renderGL(t, g, f)
		if n := g.Stats().CPUFrames - before.CPUFrames; n != 0 {
			t.Errorf("%s: %d frames to the CPU renderer (%s)", c.view, n, g.Mode(f))
		}
		want := image.NewRGBA(got.Bounds())
		if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
			t.Fatal(err)
		}
		frac := matchesCPU(t, fmt.Sprintf("formula_gl33_%s_%s", c.prec, c.view), got, want)
		t.Logf("GLSL 3.30 %s (%s): %.3f%% within 6/255", c.view, g.Mode(f), 100*frac)
	}
}

// misiurewiczCubic is a Misiurewicz point of the cubic Mandelbrot set z <- z^3 + c, to 400
// digits: c = sqrt(w - 1), w = e^(2 pi i/3), whose z_2 = c^3 + c = w c is a repelling fixed
// point (multiplier 3 w^2 c^2, of size 3 sqrt 3), so that a view about it has structure at
// every depth and its reference never meets an axis.
func misiurewiczCubic(t testing.TB) (re, im fractal.Decimal) {
	t.Helper()
	const prec = 1400
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	s3 := nf().Sqrt(nf().SetInt64(3)) // |w - 1| = sqrt 3, w - 1 = -3/2 + i sqrt(3)/2
	a := nf().SetFloat64(-1.5)
	r := nf().Sqrt(nf().Quo(nf().Add(s3, a), nf().SetInt64(2))) // sqrt((|z| + a) / 2)
	i := nf().Sqrt(nf().Quo(nf().Sub(s3, a), nf().SetInt64(2))) // sqrt((|z| - a) / 2), Im > 0
	var err error
	if re, err = fractal.ParseDecimal(r.Text('f', 400)); err != nil {
		t.Fatal(err)
	}
	if im, err = fractal.ParseDecimal(i.Text('f', 400)); err != nil {
		t.Fatal(err)
	}
	return re, im
}

// TestFormulaBLAAgainstCPU: a formula's deep frame (zoom 1e50) is drawn and computed on the GPU
// with its BLA table (fractal.FormulaBLA, uploaded as FormulaBLA.Flat: 2x2 real matrices) and
// agrees with the CPU renderer, which takes the same table's blocks: the picture as
// TestAgainstCPU asks, the samples within exactTol on >= 99% of the pixels, in one pass and
// in passes, with the derivative through the blocks (J <- A J + spacing B): the Burning Ship
// about its Misiurewicz point -1 - i (its orbit -1 + i, never on an axis, where a fold would
// stop every block) and the cubic Mandelbrot set about one of its Misiurewicz points.
func TestFormulaBLAAgainstCPU(t *testing.T) {
	bs, p3 := fractal.Formula{Kind: fractal.BurningShip}, must(fractal.MakeFormula(fractal.Mandelbrot, 3))
	cre, cim := misiurewiczCubic(t)
	for _, c := range []struct {
		name     string
		fm       fractal.Formula
		re, im   fractal.Decimal
		col      string
		passIter int
	}{
		{"burning-ship", bs, fractal.MustDecimal("-1"), fractal.MustDecimal("-1"), "", 0},
		{"burning-ship_passes", bs, fractal.MustDecimal("-1"), fractal.MustDecimal("-1"), "", 37},
		{"burning-ship_distance", bs, fractal.MustDecimal("-1"), fractal.MustDecimal("-1"), "distance", 0},
		{"mandelbrot_power_3", p3, cre, cim, "", 0},
		{"mandelbrot_power_3_slopes_passes", p3, cre, cim, "slopes", 37},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := testGL(t, Options{Perturb: "gpu", PassIterations: c.passIter})
			if !g.fp64 {
				t.Skipf("%s has no fp64", g.renderer)
			}
			l := fractal.HomeOf(c.fm)
			l.Re, l.Im, l.Zoom, l.Iterations = c.re, c.im, fractal.MustDecimal("1e50"), 1500
			l = withColouring(t, l, c.col)
			f, err := fractal.NewFrame(l, 64, 48).WithReference(context.Background(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Precision() != fractal.Perturbation {
				t.Fatalf("the frame is %v", f.Precision())
			}
			before := g.Stats()
			got := renderGL(t, g, f)
			samples := computeGL(t, g, f)
			if s := g.Stats(); s.CPUFrames != before.CPUFrames {
				t.Errorf("%d frames to the CPU renderer (%s), want 0", s.CPUFrames-before.CPUFrames, g.Mode(f))
			}
			if tb := g.tables; tb == nil || tb.fbla != f.FormulaBLA() || tb.fbla.Levels() < 5 {
				t.Fatal("the frame's formula BLA table is not the one uploaded")
			}
			want := image.NewRGBA(got.Bounds())
			if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
				t.Fatal(err)
			}
			colours := map[[3]uint8]bool{}
			for i := 0; i < len(want.Pix); i += 4 {
				colours[[3]uint8{want.Pix[i], want.Pix[i+1], want.Pix[i+2]}] = true
			}
			if len(colours) < 20 {
				t.Fatalf("the CPU's picture has %d colours: the view tests little", len(colours))
			}
			frac := matchesCPU(t, "formula_bla_"+c.name, got, want)
			a := compareSamples(samples, computeCPU(t, f), f.NeedsDerivative(), exactTol)
			side := float64(a.sameSide) / float64(a.pixels)
			ok := float64(a.deOK) / float64(max(a.escaped, 1))
			t.Logf("%s (%s): picture %.3f%% within 6/255; samples: %d escaped of %d, inside/escaped %.3f%%, nu (and DE) %.3f%% (worst nu %.2g)",
				c.name, g.Mode(f), 100*frac, a.escaped, a.pixels, 100*side, 100*ok, a.worstNu)
			if side < exactTol.share || ok < exactTol.share || a.escaped < a.pixels/2 {
				t.Errorf("samples: inside/escaped %.3f%%, nu (and DE) %.3f%%, %d of %d escaped; first disagreement at %v",
					100*side, 100*ok, a.escaped, a.pixels, a.firstBad)
			}
		})
	}
}

// TestFormulaPerturbPages: a formula's orbit and BLA table split into several texture buffers
// (a texel limit that needs 2 to maxPages pages for the table, whose entries are five texels
// and so straddle the pages' ends) draw as in one; a limit too small for maxPages pages sends
// the frame to the CPU renderer, and Mode says why.
func TestFormulaPerturbPages(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	if !g.fp64 {
		t.Skipf("%s has no fp64", g.renderer)
	}
	l := fractal.HomeOf(fractal.Formula{Kind: fractal.BurningShip})
	l.Re, l.Im, l.Zoom, l.Iterations = fractal.MustDecimal("-1"), fractal.MustDecimal("-1"), fractal.MustDecimal("1e30"), 1500
	f, err := fractal.NewFrame(l, 48, 32).WithReference(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	orbit, table := tableTexels(f.Ref, frameBLA(f, false))
	if f.FormulaBLA() == nil || table <= orbit {
		t.Fatalf("orbit %d texels, table %d: the test needs a formula table longer than the orbit", orbit, table)
	}
	whole := renderGL(t, g, f)
	defer func() { texBufferLimitOverride = 0 }()
	limit := 1
	for limit*maxPages < table {
		limit *= 2
	}
	texBufferLimitOverride = limit // maxPages pages or fewer, more than one
	if err := g.perturbFits(f); err != nil {
		t.Fatalf("a table of %d texels in pages of %d: %v", table, limit, err)
	}
	before := g.Stats()
	got := renderGL(t, g, f)
	if n := g.Stats().CPUFrames - before.CPUFrames; n != 0 || g.tables.pages < 2 {
		t.Errorf("%d frames to the CPU renderer (%s), %d pages", n, g.Mode(f), g.tables.pages)
	}
	if !bytes.Equal(got.Pix, whole.Pix) {
		frac, bad := imagetest.Agreement(got, whole, 0)
		t.Errorf("in pages of %d texels: %.2f%% of the picture in one page's, first difference at %v", limit, 100*frac, bad)
	}
	texBufferLimitOverride = limit / 2
	if m := g.Mode(f); !strings.Contains(m, "CPU: the reference orbit and BLA table") {
		t.Errorf("a table of %d texels in pages of %d: Mode = %q", table, limit/2, m)
	}
	before = g.Stats()
	got = renderGL(t, g, f)
	if n := g.Stats().CPUFrames - before.CPUFrames; n != 1 {
		t.Errorf("%d frames to the CPU renderer, want 1", n)
	}
	want := image.NewRGBA(got.Bounds())
	if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Pix, want.Pix) {
		t.Error("the frame sent to the CPU renderer is not its picture")
	}
	matchesCPU(t, "formula_perturb_pages", whole, want)
}

// TestFormulaExpAgainstCPU: a formula's frame past float64's exponent range (a PerturbationExp
// frame: its deltas start below 1e-308) is drawn and computed on the GPU with extended
// exponents (perturbexp.frag's formulaStepCx, fractal/perturb_formula_exp.go's step) and the
// formula's extended BLA table (fractal.FormulaBLAExp, uploaded as its Flat with the orbit's
// tiny values: formulaBlockCx, formulaBlock64), with the derivative (jacStepX, jacBlock: the
// Jacobian with an exponent of its own) where the colouring reads it, and agrees with the CPU
// renderer, which takes the same blocks: the picture as TestAgainstCPU asks, the samples
// (with the distance estimate and normal) within exactTol on >= 99% of the pixels, in one
// pass and in passes: the Burning Ship about its
// Misiurewicz point -1 - i at 1e320 (its folds' signs decided in cx on the first steps, where
// Z is the tiny delta's size), the cubic Mandelbrot set about a Misiurewicz point at 1e320, and
// the Burning Ship's Julia set of -1 - i about 0 (its critical
// point, in the Julia set) at 1e200, past a Julia view's 2^-505.
func TestFormulaExpAgainstCPU(t *testing.T) {
	bs := fractal.Formula{Kind: fractal.BurningShip}
	p3 := must(fractal.MakeFormula(fractal.Mandelbrot, 3))
	cre, cim := misiurewiczCubic(t)
	for _, c := range []struct {
		name     string
		fm       fractal.Formula
		re, im   fractal.Decimal
		zoom     string
		julia    bool
		col      string
		passIter int
	}{
		{"burning-ship", bs, fractal.MustDecimal("-1"), fractal.MustDecimal("-1"), "1e320", false, "", 0},
		{"burning-ship_distance_passes", bs, fractal.MustDecimal("-1"), fractal.MustDecimal("-1"), "1e320", false, "distance", 53},
		{"mandelbrot_power_3_slopes", p3, cre, cim, "1e320", false, "slopes", 0},
		{"burning-ship_julia_distance", bs, fractal.MustDecimal("0"), fractal.MustDecimal("0"), "1e200", true, "distance", 0},
		{"burning-ship_julia_slopes_passes", bs, fractal.MustDecimal("0"), fractal.MustDecimal("0"), "1e200", true, "slopes", 53},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := testGL(t, Options{Perturb: "gpu", PassIterations: c.passIter})
			if !g.fp64 {
				t.Skipf("%s has no fp64", g.renderer)
			}
			l := fractal.HomeOf(c.fm)
			if c.julia {
				l = l.JuliaAt(fractal.MustDecimal("-1"), fractal.MustDecimal("-1"))
			}
			l.Re, l.Im, l.Zoom, l.Iterations = c.re, c.im, fractal.MustDecimal(c.zoom), 1000
			l = withColouring(t, l, c.col)
			if err := l.Validate(); err != nil {
				t.Fatal(err)
			}
			f, err := fractal.NewFrame(l, 24, 16).WithReference(context.Background(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Precision() != fractal.PerturbationExp {
				t.Fatalf("the frame is %v", f.Precision())
			}
			before := g.Stats()
			got := renderGL(t, g, f)
			samples := computeGL(t, g, f)
			if s := g.Stats(); s.CPUFrames != before.CPUFrames {
				t.Errorf("%d frames to the CPU renderer (%s), want 0", s.CPUFrames-before.CPUFrames, g.Mode(f))
			}
			if m := g.Mode(f); m != "perturbation (extended exponent, fp64)" {
				t.Errorf("Mode = %q", m)
			}
			if tb := g.tables; tb == nil || tb.fblaExp != f.FormulaBLAExp() || tb.fblaExp.Levels() < 5 || tb.tiny != len(f.Ref.Tiny()) {
				t.Fatal("the frame's extended formula BLA table (and the orbit's tiny values) are not the ones uploaded")
			}
			want := image.NewRGBA(got.Bounds())
			if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
				t.Fatal(err)
			}
			colours := map[[3]uint8]bool{}
			for i := 0; i < len(want.Pix); i += 4 {
				colours[[3]uint8{want.Pix[i], want.Pix[i+1], want.Pix[i+2]}] = true
			}
			if len(colours) < 20 {
				t.Fatalf("the CPU's picture has %d colours: the view tests little", len(colours))
			}
			frac := matchesCPU(t, "formula_exp_"+c.name, got, want)
			a := compareSamples(samples, computeCPU(t, f), f.NeedsDerivative(), exactTol)
			side := float64(a.sameSide) / float64(a.pixels)
			ok := float64(a.deOK) / float64(max(a.escaped, 1))
			t.Logf("%s (%s): picture %.3f%% within 6/255; samples: %d escaped of %d, inside/escaped %.3f%%, nu (and DE) %.3f%% (worst nu %.2g)",
				c.name, g.Mode(f), 100*frac, a.escaped, a.pixels, 100*side, 100*ok, a.worstNu)
			if side < exactTol.share || ok < exactTol.share || a.escaped < a.pixels/2 {
				t.Errorf("samples: inside/escaped %.3f%%, nu (and DE) %.3f%%, %d of %d escaped; first disagreement at %v",
					100*side, 100*ok, a.escaped, a.pixels, a.firstBad)
			}
		})
	}
}

// TestFormulaExpTakesBLA: the GPU skips a formula's iterations by its extended table past
// float64's exponent range, as the CPU does: the Burning Ship about -1 - i at 1e400 (its
// pixels escape after some 600 iterations, about 430 of them while the delta is below
// float64's range), computed in passes of 53 steps (a block is one step), needs several times
// fewer passes with the table than without it (noBLA: every iteration a step), and the two
// agree with the CPU renderer's counts where the table is taken.
func TestFormulaExpTakesBLA(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu", PassIterations: 53})
	if !g.fp64 {
		t.Skipf("%s has no fp64", g.renderer)
	}
	l := fractal.HomeOf(fractal.Formula{Kind: fractal.BurningShip})
	l.Re, l.Im, l.Zoom, l.Iterations = fractal.MustDecimal("-1"), fractal.MustDecimal("-1"), fractal.MustDecimal("1e400"), 3000
	f, err := fractal.NewFrame(l, 24, 16).WithReference(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Precision() != fractal.PerturbationExp {
		t.Fatalf("the frame is %v", f.Precision())
	}
	passes := func(plain bool) (int, *colour.Data) {
		noBLA = plain
		defer func() { noBLA = false }()
		before := g.Stats()
		d := computeGL(t, g, f)
		s := g.Stats()
		if s.CPUFrames != before.CPUFrames {
			t.Fatalf("%d frames to the CPU renderer, want 0", s.CPUFrames-before.CPUFrames)
		}
		return s.Passes - before.Passes, d
	}
	withTable, samples := passes(false)
	if tb := g.tables; tb == nil || tb.fblaExp != f.FormulaBLAExp() {
		t.Fatal("the frame's extended formula BLA table is not the one uploaded")
	}
	plain, _ := passes(true)
	t.Logf("passes of 53 steps: %d with the table, %d without", withTable, plain)
	if withTable*3 > plain {
		t.Errorf("%d passes with the table, %d without: the table skips too little", withTable, plain)
	}
	a := compareSamples(samples, computeCPU(t, f), false, exactTol)
	if a.escaped < a.pixels/2 || float64(a.deOK)/float64(a.escaped) < exactTol.share {
		t.Errorf("with the table: %d of %d escaped, %d within tolerance of the CPU's", a.escaped, a.pixels, a.deOK)
	}
}
