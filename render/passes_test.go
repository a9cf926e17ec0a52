package render

import (
	"context"
	"fmt"
	"image"
	"testing"

	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/render/cpu"
)

// TestPassPlan checks the multi-pass plan without GL: the bands cover a tile exactly, fit the
// state textures, and each pass of a band keeps within the draw budget.
func TestPassPlan(t *testing.T) {
	for _, c := range []struct {
		w, h, iter int
		weight     int64
	}{{16384, 16384, 100_000_000, 1}, {1100, 300, 20_000, 16}, {61, 7, 1_000_000, 4}, {3000, 257, 17_000, 1}} {
		area := 0
		for _, b := range stateBands(c.w, c.h) {
			area += b.Dx() * b.Dy()
			if b.Dx() > stateW || b.Dy() > stateH || b.Empty() {
				t.Errorf("band %v of %dx%d does not fit the %dx%d state", b, c.w, c.h, stateW, stateH)
			}
			p := passIterations(b.Dx()*b.Dy(), c.iter, c.weight, 0)
			if p < 1 || p > c.iter {
				t.Errorf("band %v at %d iterations: P = %d", b, c.iter, p)
			}
			if cost := int64(b.Dx()*b.Dy()) * int64(p) * c.weight; cost > drawBudget {
				t.Errorf("band %v at %d iterations: a pass costs %d, over the budget %d", b, c.iter, cost, drawBudget)
			}
		}
		if area != c.w*c.h {
			t.Errorf("bands of %dx%d cover %d pixels", c.w, c.h, area)
		}
	}
	if p := passIterations(1000, 500, 1, 7); p != 7 {
		t.Errorf("forced P = %d, want 7", p)
	}
	if p := passIterations(1000, 5, 1, 7); p != 5 {
		t.Errorf("forced P = %d at 5 iterations, want 5", p)
	}
	// 1e6 iterations over a full band: 977 passes of 1024 (the budget's 2^10), the last shorter.
	if p := passIterations(stateW*stateH, 1_000_000, 1, 0); p != 1024 {
		t.Errorf("P at 1e6 iterations over a full band = %d, want 1024", p)
	}
	// 2000 iterations where the budget allows 1024: two passes of 1000, not 1024 + 976.
	if p := passIterations(stateW*stateH, 2000, 1, 0); p != 1000 {
		t.Errorf("P at 2000 iterations over a full band = %d, want 1000", p)
	}
}

// TestPassesMatchSinglePass renders non-square frames near the set's boundary (orbits that
// escape inside a pass, and periodic ones that the periodicity test stops) in passes of 7 and
// of 64 iterations: every variant must give the same bytes as its single-pass render.
func TestPassesMatchSinglePass(t *testing.T) {
	home := func(iter int) func(testing.TB) fractal.Location {
		return func(testing.TB) fractal.Location { l := fractal.Home(); l.Iterations = iter; return l }
	}
	cases := []struct {
		prec string
		name string
		loc  func(testing.TB) fractal.Location
		iter int
		w, h int
		deep bool // a zoom 2e6 view with no black pixels
	}{
		{"f32", "home", home(1000), 1000, 170, 110, false},
		{"f32", "seahorse_1e3", seahorseLoc, 2000, 130, 90, false},
		{"f64", "home", home(700), 700, 150, 100, false},
		{"f64", "seahorse_1e3", seahorseLoc, 1500, 110, 80, false},
		{"f64", "deep_2e6", deepLoc, 1600, 90, 130, true},
		{"emulated", "home", home(500), 500, 150, 100, false},
		{"emulated", "seahorse_1e3", seahorseLoc, 1200, 110, 80, false},
		{"emulated", "deep_2e6", deepLoc, 1600, 90, 130, true},
	}
	type run struct {
		p   int
		col string
	}
	runs := []run{{7, "smooth"}, {64, "smooth"}}
	for _, c := range colourings {
		runs = append(runs, run{7, c.name})
	}
	for _, c := range cases {
		for _, r := range runs {
			p := r.p
			t.Run(fmt.Sprintf("%s/%s/P%d/%s", c.prec, c.name, p, r.col), func(t *testing.T) {
				single := testGL(t, Options{Precision: c.prec})
				passes := testGL(t, Options{Precision: c.prec, PassIterations: p})
				l := withColouring(t, c.loc(t), r.col)
				l.Iterations = c.iter
				f := fractal.NewFrame(l, c.w, c.h)
				want := renderGL(t, single, f)
				before := passes.Stats()
				got := renderGL(t, passes, f)
				after := passes.Stats()
				if n, most := after.Passes-before.Passes, (c.iter+p-1)/p; n < 3 || n > most {
					t.Errorf("%d passes, want 3 to %d", n, most)
				}
				black, lit := 0, 0
				for i := 0; i < len(want.Pix); i += 4 {
					if want.Pix[i] == 0 && want.Pix[i+1] == 0 && want.Pix[i+2] == 0 {
						black++
					} else {
						lit++
					}
				}
				if (black == 0 && !c.deep) || lit == 0 {
					t.Fatalf("view has %d black and %d coloured pixels: it tests nothing", black, lit)
				}
				if string(got.Pix) != string(want.Pix) {
					frac, bad := imagetest.Agreement(got, want, 0)
					saveFailed(t, fmt.Sprintf("passes_%s_%s_P%d_%s.png", c.prec, c.name, p, r.col), got)
					t.Errorf("multi-pass render differs from the single-pass one: %.3f%% equal, first difference at %v", 100*frac, bad)
				}
			})
		}
	}
}

// TestPassesTilesAndBands renders a frame wider than the state textures (several bands per
// tile) in passes, whole and in 301-pixel tiles: both must match the single-pass render.
func TestPassesTilesAndBands(t *testing.T) {
	single := testGL(t, Options{})
	whole := testGL(t, Options{PassIterations: 150})
	tiled := testGL(t, Options{PassIterations: 150, MaxTile: 301})
	l := seahorseLoc(t)
	l.Iterations = 300
	f := fractal.NewFrame(l, stateW+77, stateH+40)
	want := renderGL(t, single, f)
	for name, g := range map[string]*GL{"whole": whole, "tiled": tiled} {
		got := renderGL(t, g, f)
		if string(got.Pix) != string(want.Pix) {
			frac, bad := imagetest.Agreement(got, want, 0)
			saveFailed(t, "passes_bands_"+name+".png", got)
			t.Errorf("%s: multi-pass render differs: %.3f%% equal, first difference at %v", name, 100*frac, bad)
		}
	}
}

// TestHighIterationsInPasses renders at 200000 iterations: the automatic plan must draw in
// passes (none longer than a pass's budget allows), record the longest draw, and agree with
// the CPU renderer.
func TestHighIterationsInPasses(t *testing.T) {
	g := testGL(t, Options{})
	l := loc(t, "-0.7436438870371587", "0.1318259042053120", "300", 200_000)
	f := fractal.NewFrame(l, 96, 64)
	before := g.Stats()
	got := renderGL(t, g, f)
	s := g.Stats()
	if s.Passes-before.Passes < 2 {
		t.Errorf("%d passes at %d iterations: the multi-pass path was not taken", s.Passes-before.Passes, l.Iterations)
	}
	if s.LongestDraw <= 0 {
		t.Errorf("longest draw not recorded")
	}
	t.Logf("%d passes, %d draws, longest draw %v, %s", s.Passes-before.Passes, s.Draws-before.Draws, s.LongestDraw, g.Mode(f))
	want := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
	if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
		t.Fatal(err)
	}
	frac := matchesCPU(t, "passes_200k", got, want)
	t.Logf("%.3f%% within 6/255 of the CPU", 100*frac)
}

// TestPassIterationsOption refuses a negative pass length.
func TestPassIterationsOption(t *testing.T) {
	if _, err := NewGL(Options{PassIterations: -1}); err == nil {
		t.Error("NewGL with PassIterations -1: no error")
	}
}

// TestPassesGL33 draws in passes on a GL 3.3 core context with GLSL 3.30 shaders (fp64
// through GL_ARB_gpu_shader_fp64 where the driver has it): the same bytes as one pass.
func TestPassesGL33(t *testing.T) {
	g := newGL33(t)
	l := seahorseLoc(t)
	l.Iterations = 900
	f := fractal.NewFrame(l, 120, 70)
	for _, prec := range []string{"f32", "f64", "emulated"} {
		g.opts.Precision = prec
		if g.progs[g.variant(f)] == nil {
			t.Logf("%s: not available on %s with GLSL 3.30", prec, g.renderer)
			continue
		}
		g.opts.PassIterations = 0
		want := renderGL(t, g, f)
		g.opts.PassIterations = 50
		got := renderGL(t, g, f)
		if string(got.Pix) != string(want.Pix) {
			frac, bad := imagetest.Agreement(got, want, 0)
			t.Errorf("GLSL 3.30 %s: multi-pass render differs: %.3f%% equal, first difference at %v", prec, 100*frac, bad)
		}
	}
	if g.Stats().Passes < 3*3 {
		t.Errorf("%d passes, want at least 3 x 3", g.Stats().Passes)
	}
}

// TestPassesStopEarly renders a view whose orbits all finish within a few iterations, at
// 100000 iterations in passes of 64: a band's passes stop once every pixel has finished (one
// pass to finish them, one to copy the last of them into both state sets, one that lets
// nothing through), and the picture still matches one pass.
func TestPassesStopEarly(t *testing.T) {
	single := testGL(t, Options{})
	passes := testGL(t, Options{PassIterations: 64})
	l := loc(t, "1.5", "1.5", "4", 100_000) // |c| > 1.1 everywhere
	f := fractal.NewFrame(l, 130, 70)
	want := renderGL(t, single, f)
	before := passes.Stats()
	got := renderGL(t, passes, f)
	if n := passes.Stats().Passes - before.Passes; n != 3 {
		t.Errorf("%d passes, want 3 (all orbits escape in the first)", n)
	}
	if string(got.Pix) != string(want.Pix) {
		frac, bad := imagetest.Agreement(got, want, 0)
		t.Errorf("multi-pass render differs: %.3f%% equal, first difference at %v", 100*frac, bad)
	}
}

// BenchmarkRenderHighIterations renders 240x160 pixels around the Feigenbaum point at 100000
// iterations (the multi-pass path: orbits there neither escape nor settle quickly); the
// longest-draw metric is the watchdog figure.
func BenchmarkRenderHighIterations(b *testing.B) {
	l := loc(b, "-1.4011551890920506", "0", "1e5", 100_000)
	f := fractal.NewFrame(l, 240, 160)
	benchRender(b, f, image.Rect(0, 0, f.W, f.H))
}
