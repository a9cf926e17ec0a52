package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"sync/atomic"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/cputime"
	"mandelscope/internal/imagetest"
	"mandelscope/render/cpu"
	"mandelscope/shaders"
)

// sampleTol is how close a GPU sample must be to the CPU's where both escaped: nu within
// nuRel of it (at least 1e-5 absolute), the distance estimate within deRel of it, the normal's
// components within norm, on at least share of the pixels.
type sampleTol struct{ nuRel, deRel, norm, share float64 }

// exactTol is the tolerance where the GPU runs the CPU's arithmetic (float32, fp64,
// perturbation): the GPU carries nu as a float32 from the shader's log2, the CPU as a
// float64; nu up to 300000 has a float32 ulp of 1/64, so the bound is relative: 4 float32
// ulp (2^-21; measured on llvmpipe: 99th percentile 5e-8, worst 2.2e-7). The distance
// estimate and the normal are float32 from a derivative in the orbit's own type (99th
// percentile 2e-7 and 6e-8 at zoom 1e10, a view now perturbed): 1e-5. A pixel whose escape
// count differs (a rounding that sends an orbit out one iteration sooner) differs by about 1
// in nu and counts against the 99% that must agree.
var exactTol = sampleTol{nuRel: 1.0 / (1 << 21), deRel: 1e-5, norm: 1e-5, share: 0.99}

// emulatedTol is the tolerance of the emulated double (forced): its c carries 48 bits, not
// 53, its smooth value's last steps and its derivative run in float, so at depth it departs
// from the CPU's float64 (measured 99th percentiles at zoom 1e10: nu 1.4e-3 relative,
// distance 0.12, normal 0.045; 99.1% of pixels within the bounds below): 98% must agree, as
// TestAgainstCPU asks of its pictures.
var emulatedTol = sampleTol{nuRel: 2e-3, deRel: 0.2, norm: 0.1, share: 0.98}

// sampleAgreement compares GPU samples with the CPU's: the share of pixels on which inside
// and escaped agree, and of the pixels both computed as escaped, the share whose nu lies
// within the tolerance and, with the derivative, whose distance estimate and normal do. It
// also returns the largest relative nu difference among the pixels within tolerance.
type sampleAgreement struct {
	pixels, sameSide, escaped, nuOK, deOK int
	worstNu                               float64
	firstBad                              image.Point
}

func compareSamples(got, want *colour.Data, deriv bool, tol sampleTol) sampleAgreement {
	a := sampleAgreement{firstBad: image.Pt(-1, -1)}
	bad := func(x, y int) {
		if a.firstBad.X < 0 {
			a.firstBad = image.Pt(x, y)
		}
	}
	for y := range got.Rect.Dy() {
		g, w := got.Row(got.Rect.Min.Y+y), want.Row(want.Rect.Min.Y+y)
		for x := range g {
			a.pixels++
			if g[x].Inside() != w[x].Inside() {
				bad(x, y)
				continue
			}
			a.sameSide++
			if g[x].Inside() {
				continue
			}
			a.escaped++
			d := math.Abs(g[x].Nu - w[x].Nu)
			if d > max(tol.nuRel*math.Abs(w[x].Nu), 1e-5) {
				bad(x, y)
				continue
			}
			a.nuOK++
			if w[x].Nu != 0 {
				a.worstNu = max(a.worstNu, d/math.Abs(w[x].Nu))
			}
			if !deriv {
				if g[x].DEX != 0 || g[x].DEY != 0 {
					bad(x, y) // no derivative asked for: none given
					continue
				}
				a.deOK++
				continue
			}
			gd, wd := g[x].DE(), w[x].DE()
			gr, gi := g[x].Normal()
			wr, wi := w[x].Normal()
			if math.Abs(gd-wd) <= tol.deRel*wd && math.Abs(gr-wr) <= tol.norm && math.Abs(gi-wi) <= tol.norm {
				a.deOK++
			} else {
				bad(x, y)
			}
		}
	}
	return a
}

// computeGL computes all of frame f with g into new data.
func computeGL(t testing.TB, g *GL, f fractal.Frame) *colour.Data {
	t.Helper()
	d := colour.NewData(image.Rect(0, 0, f.W, f.H))
	if err := g.Compute(context.Background(), f, d.Rect, d); err != nil {
		t.Fatalf("Compute %dx%d: %v", f.W, f.H, err)
	}
	return d
}

// computeCPU computes all of frame f with the CPU renderer.
func computeCPU(t testing.TB, f fractal.Frame) *colour.Data {
	t.Helper()
	d := colour.NewData(image.Rect(0, 0, f.W, f.H))
	if err := (&cpu.Renderer{}).Compute(context.Background(), f, d.Rect, d); err != nil {
		t.Fatal(err)
	}
	return d
}

// computeViews are the views Compute is tested on, every precision the GL draws, at
// non-square sizes: float32, double, perturbation on the GPU, and extended exponents both on
// the GPU and (the automatic GL on a software rasteriser) handed to the CPU renderer.
func computeViews(t *testing.T) []struct {
	name string
	opts Options
	f    fractal.Frame
	prec fractal.Precision
} {
	home := fractal.Home()
	home.Iterations = 300
	return []struct {
		name string
		opts Options
		f    fractal.Frame
		prec fractal.Precision
	}{
		{"home_f32", Options{}, fractal.NewFrame(home, 150, 97), fractal.Float32},
		{"seahorse_f32", Options{}, fractal.NewFrame(seahorseLoc(t), 173, 91), fractal.Float32},
		{"deep_double", Options{}, fractal.NewFrame(deepLoc(t), 90, 133), fractal.Double},
		{"emulated", Options{Precision: "emulated"}, fractal.NewFrame(deepLoc(t), 70, 51), fractal.Double},
		{"perturb_1e20", Options{Perturb: "gpu"}, deepFrame(t, p8007Re, p8007Im, "1e20", 20000, 48, 36), fractal.Perturbation},
		{"perturbexp_1e1000", Options{Perturb: "gpu"}, misiurewiczFrame(t, 1000, 6000, 36, 24), fractal.PerturbationExp},
		{"perturbexp_cpu", Options{}, misiurewiczFrame(t, 1000, 3000, 24, 16), fractal.PerturbationExp},
	}
}

// TestComputeAgainstCPU: the GPU's samples agree with the CPU renderer's in every precision,
// with and without the derivative (asked for with Frame.Derivative in the default colouring):
// inside or escaped on at least 99% of pixels, and of the pixels both give as escaped at
// least 99% within the tolerances above. A frame the GL hands to the CPU renderer gets
// exactly its samples.
func TestComputeAgainstCPU(t *testing.T) {
	for _, v := range computeViews(t) {
		for _, deriv := range []bool{false, true} {
			name := v.name
			if deriv {
				name += "_derivative"
			}
			t.Run(name, func(t *testing.T) {
				g := testGL(t, v.opts)
				f := v.f
				if f.Precision() != v.prec {
					t.Fatalf("frame is %v, want %v", f.Precision(), v.prec)
				}
				if v.prec.Perturbs() && v.opts.Perturb == "gpu" && !g.fp64 {
					t.Skipf("%s has no fp64", g.renderer)
				}
				f.Derivative = deriv
				before := g.Stats()
				got := computeGL(t, g, f)
				want := computeCPU(t, f)
				toCPU := g.Stats().CPUFrames - before.CPUFrames
				t.Logf("%s: %d frames to the CPU", g.Mode(f), toCPU)
				if v.name == "perturbexp_cpu" {
					if softwareRenderer(g.renderer) && toCPU != 1 {
						t.Errorf("%d frames to the CPU, want 1", toCPU)
					}
					if toCPU == 1 && !sameSamples(got, want) {
						t.Error("the frame handed to the CPU renderer has other samples than its Compute")
					}
				} else if toCPU != 0 {
					t.Errorf("%d frames to the CPU, want 0", toCPU)
				}
				tol := exactTol
				if v.opts.Precision == "emulated" {
					tol = emulatedTol
				}
				a := compareSamples(got, want, deriv, tol)
				side := float64(a.sameSide) / float64(a.pixels)
				nu := float64(a.nuOK) / float64(max(a.escaped, 1))
				de := float64(a.deOK) / float64(max(a.escaped, 1))
				t.Logf("%d pixels, %d escaped: inside/escaped agree on %.3f%%, nu on %.3f%% (worst relative %.2g), DE and normal on %.3f%%; first disagreement %v",
					a.pixels, a.escaped, 100*side, 100*nu, a.worstNu, 100*de, a.firstBad)
				if side < 0.99 || nu < tol.share || de < tol.share {
					t.Errorf("agreement below 99%% (inside or escaped) or %.0f%%: inside/escaped %.3f%%, nu %.3f%%, DE and normal %.3f%%; first disagreement at %v: GPU %+v, CPU %+v",
						100*tol.share, 100*side, 100*nu, 100*de, a.firstBad, got.At(a.firstBad.X, a.firstBad.Y), want.At(a.firstBad.X, a.firstBad.Y))
				}
				if a.escaped == 0 {
					t.Error("no pixel escaped: the view tests nothing")
				}
			})
		}
	}
}

// sameSamples reports whether a and b hold the same samples bit for bit (NaN included).
func sameSamples(a, b *colour.Data) bool {
	if a.Rect.Size() != b.Rect.Size() {
		return false
	}
	for y := range a.Rect.Dy() {
		ra, rb := a.Row(a.Rect.Min.Y+y), b.Row(b.Rect.Min.Y+y)
		for x := range ra {
			if math.Float64bits(ra[x].Nu) != math.Float64bits(rb[x].Nu) ||
				math.Float32bits(ra[x].DEX) != math.Float32bits(rb[x].DEX) ||
				math.Float32bits(ra[x].DEY) != math.Float32bits(rb[x].DEY) {
				return false
			}
		}
	}
	return true
}

// TestComputeThenColourMatchesRender: the GPU's samples coloured by the Go colour pass
// (colour.Colourer.Paint) give the GPU Render's picture: at least 99% of pixels within 6/255
// and the differing ones isolated, in every precision and colouring (the colour pass runs in
// float64 on the CPU, in float32 in the shader).
func TestComputeThenColourMatchesRender(t *testing.T) {
	cols := []string{"smooth", "distance", "slopes", "sqrt", "log_distance", "gradient_slopes"}
	for _, v := range computeViews(t) {
		for _, col := range cols {
			t.Run(v.name+"_"+col, func(t *testing.T) {
				g := testGL(t, v.opts)
				if v.prec.Perturbs() && v.opts.Perturb == "gpu" && !g.fp64 {
					t.Skipf("%s has no fp64", g.renderer)
				}
				f := v.f
				f.Loc = withColouring(t, f.Loc, col)
				want := renderGL(t, g, f)
				data := computeGL(t, g, f)
				k, err := colour.NewColourer(f.Loc.Color)
				if err != nil {
					t.Fatal(err)
				}
				got := image.NewRGBA(want.Bounds())
				k.Paint(got, data)
				frac, bad := imagetest.Agreement(got, want, 6)
				exact, _ := imagetest.Agreement(got, want, 0)
				sc := imagetest.Scattering(got, want, 6)
				t.Logf("%.3f%% within 6/255, %.3f%% equal; longest run %d", 100*frac, 100*exact, sc.LongestRun)
				if frac < 0.99 {
					saveFailed(t, "compute_"+v.name+"_"+col+"_paint.png", got)
					saveFailed(t, "compute_"+v.name+"_"+col+"_render.png", want)
					t.Errorf("only %.2f%% of pixels within 6/255 of Render (want >= 99%%); first bad pixel %v", 100*frac, bad)
				}
				if err := imagetest.Isolated(got, want, 6); err != nil {
					t.Errorf("compute then colour vs Render: %v", err)
				}
			})
		}
	}
}

// TestComputeTilesAndPasses: computing in small tiles, in passes of a forced length (the
// iterate stage, where one piece of a shallow view is computed by the single-pass
// STAGE_SAMPLE program), and into a rect wider and taller than the state textures (several
// bands per tile) gives the one-piece computation's samples bit for bit, with and without
// the derivative.
func TestComputeTilesAndPasses(t *testing.T) {
	seahorse := seahorseLoc(t)
	seahorse.Iterations = 300
	for _, c := range []struct {
		name  string
		opts  Options
		f     fractal.Frame
		other []Options
	}{
		{"f32_bands", Options{}, fractal.NewFrame(seahorse, stateW+77, stateH+40),
			[]Options{{PassIterations: 150}, {PassIterations: 150, MaxTile: 301}}},
		{"double", Options{}, fractal.NewFrame(deepLoc(t), 130, 70),
			[]Options{{MaxTile: 61}, {PassIterations: 7}}},
		{"emulated", Options{Precision: "emulated"}, fractal.NewFrame(deepLoc(t), 97, 45),
			[]Options{{Precision: "emulated", MaxTile: 29}, {Precision: "emulated", PassIterations: 64}}},
		{"perturb", Options{Perturb: "gpu"}, deepFrame(t, p8007Re, p8007Im, "1e20", 20000, 45, 31),
			[]Options{{Perturb: "gpu", MaxTile: 13}, {Perturb: "gpu", PassIterations: 97}}},
		{"perturbexp", Options{Perturb: "gpu"}, misiurewiczFrame(t, 1000, 6000, 36, 24),
			[]Options{{Perturb: "gpu", MaxTile: 13}, {Perturb: "gpu", PassIterations: 500}}},
	} {
		for _, deriv := range []bool{false, true} {
			f := c.f
			f.Derivative = deriv
			for _, o := range c.other {
				t.Run(fmt.Sprintf("%s_deriv%v/tile%d_P%d", c.name, deriv, o.MaxTile, o.PassIterations), func(t *testing.T) {
					whole := testGL(t, c.opts)
					if f.Precision().Perturbs() && !whole.fp64 {
						t.Skipf("%s has no fp64", whole.renderer)
					}
					b0 := whole.Stats()
					want := computeGL(t, whole, f)
					// Where Render draws in one pass, so does Compute (the STAGE_SAMPLE program);
					// perturbation and the emulated double at 1600 iterations in passes.
					v := whole.variant(f)
					single := v != shaders.Perturb && int64(f.Loc.Iterations)*variantWeight(v) <= passCost
					if n := whole.Stats().Passes - b0.Passes; (n == 0) != single {
						t.Errorf("one piece: %d passes, want them only where Render takes passes", n)
					}
					t.Logf("one piece: %d passes", whole.Stats().Passes-b0.Passes)
					g := testGL(t, o)
					before := g.Stats()
					got := computeGL(t, g, f)
					s := g.Stats()
					t.Logf("%d tiles, %d passes", s.Tiles-before.Tiles, s.Passes-before.Passes)
					if o.PassIterations > 0 && s.Passes-before.Passes < 2 {
						t.Errorf("forced passes of %d: %d passes", o.PassIterations, s.Passes-before.Passes)
					}
					if o.MaxTile > 0 {
						if n, w := s.Tiles-before.Tiles, len(tilesOf(image.Rect(0, 0, f.W, f.H), o.MaxTile)); n != w {
							t.Errorf("%d tiles, want %d", n, w)
						}
					}
					if !sameSamples(got, want) {
						a := compareSamples(got, want, deriv, sampleTol{})
						t.Errorf("samples differ from the one-piece computation; first disagreement at %v", a.firstBad)
					}
				})
			}
		}
	}
}

// TestComputeIntoSubData computes a rect away from the frame's origin into the middle of
// bigger data (a stride wider than the rect): the rect's samples are the whole frame's, and
// the samples around it stay untouched.
func TestComputeIntoSubData(t *testing.T) {
	g := testGL(t, Options{MaxTile: 23})
	f := fractal.NewFrame(seahorseLoc(t), 90, 60)
	whole := computeGL(t, g, f)
	big := colour.NewData(image.Rect(-5, -3, 85, 57))
	mark := colour.Sample{Nu: -7, DEX: 3}
	for i := range big.Pix {
		big.Pix[i] = mark
	}
	rect := image.Rect(17, 11, 67, 49)
	into := image.Rect(2, 4, 2+rect.Dx(), 4+rect.Dy())
	if err := g.Compute(context.Background(), f, rect, big.SubData(into)); err != nil {
		t.Fatal(err)
	}
	for y := big.Rect.Min.Y; y < big.Rect.Max.Y; y++ {
		for x := big.Rect.Min.X; x < big.Rect.Max.X; x++ {
			s := big.At(x, y)
			p := image.Pt(x, y)
			if !p.In(into) {
				if s != mark {
					t.Fatalf("sample %v outside the rect was written: %+v", p, s)
				}
				continue
			}
			w := whole.At(p.X-into.Min.X+rect.Min.X, p.Y-into.Min.Y+rect.Min.Y)
			if s != w {
				t.Fatalf("sample %v: %+v, the whole frame's %+v", p, s, w)
			}
		}
	}
}

// countdown is a context that reports itself cancelled once Err has been asked n times:
// cancelling at a known point in a computation, without timing.
type countdown struct {
	context.Context
	n atomic.Int64
}

func (c *countdown) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestComputeCancel: a cancelled context stops Compute before any pass, and a context
// cancelled part way stops it before the next pass or draw, with the context's error.
func TestComputeCancel(t *testing.T) {
	g := testGL(t, Options{PassIterations: 50})
	f := fractal.NewFrame(seahorseLoc(t), 64, 40) // 600 iterations: 12 passes
	d := colour.NewData(image.Rect(0, 0, f.W, f.H))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := g.Stats()
	if err := g.Compute(ctx, f, d.Rect, d); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: %v, want context.Canceled", err)
	}
	if n := g.Stats().Draws - before.Draws; n != 0 {
		t.Errorf("cancelled before: %d draws", n)
	}

	before = g.Stats()
	if err := g.Compute(context.Background(), f, d.Rect, d); err != nil {
		t.Fatal(err)
	}
	full := g.Stats().Passes - before.Passes
	c := &countdown{Context: context.Background()}
	c.n.Store(4) // the tile's check, then three passes
	before = g.Stats()
	if err := g.Compute(c, f, d.Rect, d); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled part way: %v, want context.Canceled", err)
	}
	if n := g.Stats().Passes - before.Passes; n >= full || n == 0 {
		t.Errorf("cancelled part way: %d passes of %d", n, full)
	}
	// The single-pass path (STAGE_SAMPLE) checks before each draw: a frame of four bands
	// stops after the first.
	single := testGL(t, Options{})
	wide := seahorseLoc(t)
	wide.Iterations = 100
	fw := fractal.NewFrame(wide, stateW+10, stateH+10)
	dw := colour.NewData(image.Rect(0, 0, fw.W, fw.H))
	c = &countdown{Context: context.Background()}
	c.n.Store(2) // the tile's check, then the first band's draw
	before = single.Stats()
	if err := single.Compute(c, fw, dw.Rect, dw); !errors.Is(err, context.Canceled) {
		t.Errorf("single pass cancelled part way: %v, want context.Canceled", err)
	}
	if s := single.Stats(); s.Draws-before.Draws != 1 || s.Passes != before.Passes {
		t.Errorf("single pass cancelled after one draw: %d draws, %d passes", s.Draws-before.Draws, s.Passes-before.Passes)
	}
	// The GL computes the next frame as if nothing had happened.
	again := computeGL(t, g, f)
	if !sameSamples(again, computeGL(t, testGL(t, Options{}), f)) {
		t.Error("after a cancelled Compute the samples differ")
	}
}

// TestComputeBadInput: one-line errors, no panics.
func TestComputeBadInput(t *testing.T) {
	g := testGL(t, Options{})
	f := fractal.NewFrame(seahorseLoc(t), 40, 30)
	ctx := context.Background()
	small := colour.NewData(image.Rect(0, 0, 10, 10))
	for name, err := range map[string]error{
		"nil":         g.Compute(ctx, f, image.Rect(0, 0, 40, 30), nil),
		"small":       g.Compute(ctx, f, image.Rect(0, 0, 40, 30), small),
		"malformed":   g.Compute(ctx, f, image.Rect(0, 0, 10, 10), &colour.Data{Pix: small.Pix[:50], Stride: 10, Rect: small.Rect}),
		"outside":     g.Compute(ctx, f, image.Rect(35, 0, 45, 10), small),
		"no_iter":     g.Compute(ctx, fractal.Frame{W: 40, H: 30, Loc: fractal.Location{}}, image.Rect(0, 0, 10, 10), small),
		"bad_palette": g.Compute(ctx, func() fractal.Frame { f := f; f.Loc.Color.Palette = "nope"; return f }(), image.Rect(0, 0, 10, 10), small),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		} else if msg := err.Error(); len(msg) == 0 || containsNewline(msg) {
			t.Errorf("%s: error %q is not one line", name, msg)
		}
	}
	if err := g.Compute(ctx, f, image.Rectangle{}, nil); err != nil {
		t.Errorf("empty rect: %v", err)
	}
}

func containsNewline(s string) bool {
	for _, r := range s {
		if r == '\n' {
			return true
		}
	}
	return false
}

// benchFrames are the views BenchmarkCompute and BenchmarkRender draw at 1280x720: the
// export's whole-set view at 200 iterations (shallow, float32) and the zoom 2e6 view at
// 1600 iterations (deep, native fp64 or emulated double).
func benchFrames(b *testing.B) map[string]fractal.Frame {
	return map[string]fractal.Frame{
		"shallow": exportFrame(1280, 720),
		"deep":    fractal.NewFrame(deepLoc(b), 1280, 720),
	}
}

// BenchmarkCompute computes 1280x720 samples on the GPU (the compute stage alone: passes
// into the state textures, read back and turned into samples), with and without the
// derivative; paint adds the Go colour pass (colour.Colourer.Paint), the cost of a picture
// by compute then colour.
func BenchmarkCompute(b *testing.B) {
	for _, name := range []string{"shallow", "deep"} {
		for _, mode := range []string{"", "_derivative", "_paint"} {
			b.Run(name+mode, func(b *testing.B) {
				g := testGL(b, Options{})
				f := benchFrames(b)[name]
				f.Derivative = mode == "_derivative"
				d := colour.NewData(image.Rect(0, 0, f.W, f.H))
				img := image.NewRGBA(d.Rect)
				k, err := colour.NewColourer(f.Loc.Color)
				if err != nil {
					b.Fatal(err)
				}
				if err := g.Compute(context.Background(), f, d.Rect, d); err != nil { // compile
					b.Fatal(err)
				}
				before := g.Stats()
				cpu0 := cputime.Process()
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if err := g.Compute(context.Background(), f, d.Rect, d); err != nil {
						b.Fatal(err)
					}
					if mode == "_paint" {
						k.Paint(img, d)
					}
				}
				b.StopTimer()
				s := g.Stats()
				b.ReportMetric(float64((cputime.Process()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64((s.ReadBack-before.ReadBack).Milliseconds())/float64(b.N), "readback-ms/op")
				b.ReportMetric(float64(s.Draws-before.Draws)/float64(b.N), "draws/op")
			})
		}
	}
}

// BenchmarkRender renders the same 1280x720 views as BenchmarkCompute: with the single-pass
// programs (Render's path at these iteration counts), and as passes, through the multi-pass
// path (iterate into the state textures, then the GPU colour pass), the cost of making every
// Render compute then colour.
func BenchmarkRender(b *testing.B) {
	for _, name := range []string{"shallow", "deep"} {
		for _, mode := range []string{"", "_passes"} {
			b.Run(name+mode, func(b *testing.B) {
				alwaysPasses = mode == "_passes"
				defer func() { alwaysPasses = false }()
				g := testGL(b, Options{})
				f := benchFrames(b)[name]
				dst := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
				if err := g.Render(context.Background(), f, dst.Bounds(), dst); err != nil { // compile
					b.Fatal(err)
				}
				before := g.Stats()
				cpu0 := cputime.Process()
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if err := g.Render(context.Background(), f, dst.Bounds(), dst); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				s := g.Stats()
				b.ReportMetric(float64((cputime.Process()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
				b.ReportMetric(float64(s.Draws-before.Draws)/float64(b.N), "draws/op")
			})
		}
	}
}

// TestComputeGL33 computes on a GL 3.3 core context with GLSL 3.30 shaders, in one pass and
// in forced passes, with and without the derivative: the samples agree with the CPU's as on
// GL 4, and the two paths give the same samples.
func TestComputeGL33(t *testing.T) {
	g := newGL33(t)
	for _, c := range []struct {
		prec string
		l    fractal.Location
		tol  sampleTol
	}{{"f32", seahorseLoc(t), exactTol}, {"f64", deepLoc(t), exactTol}, {"emulated", deepLoc(t), emulatedTol}} {
		g.opts.Precision = c.prec
		f := fractal.NewFrame(c.l, 97, 61)
		if g.progs[g.variant(f)] == nil {
			t.Logf("%s: not available on %s with GLSL 3.30", c.prec, g.renderer)
			continue
		}
		for _, deriv := range []bool{false, true} {
			f.Derivative = deriv
			g.opts.PassIterations = 0
			one := computeGL(t, g, f)
			g.opts.PassIterations = 100
			passes := computeGL(t, g, f)
			g.opts.PassIterations = 0
			if !sameSamples(one, passes) {
				t.Errorf("GLSL 3.30 %s derivative %v: one pass and passes give other samples", c.prec, deriv)
			}
			a := compareSamples(one, computeCPU(t, f), deriv, c.tol)
			nu, de := float64(a.nuOK)/float64(max(a.escaped, 1)), float64(a.deOK)/float64(max(a.escaped, 1))
			t.Logf("GLSL 3.30 %s derivative %v: nu %.3f%%, DE %.3f%% within tolerance", c.prec, deriv, 100*nu, 100*de)
			if a.sameSide < a.pixels*99/100 || nu < c.tol.share || de < c.tol.share || a.escaped == 0 {
				t.Errorf("GLSL 3.30 %s derivative %v: %d of %d pixels on the same side, nu %.3f%%, DE %.3f%% (want %.0f%%); first disagreement %v",
					c.prec, deriv, a.sameSide, a.pixels, 100*nu, 100*de, 100*c.tol.share, a.firstBad)
			}
		}
	}
}

// TestGLInterior: with a colouring of the inside, the GL renderer's samples carry the CPU
// renderer's periods and multipliers, and its Render draws what compute then colour gives
// (the colour shaders do not read the cycles, so Render goes through Compute).
func TestGLInterior(t *testing.T) {
	g := testGL(t, Options{})
	l := fractal.Home()
	l.Zoom, l.Iterations = fractal.MustDecimal("1.5"), 400
	l.Color = colour.Coloring{Palette: "classic", Density: 1, Interior: colour.InteriorPeriod}
	const w, h = 48, 30
	f := fractal.NewFrame(l, w, h)
	ctx := context.Background()
	data := colour.NewData(image.Rect(0, 0, w, h))
	if err := g.Compute(ctx, f, data.Rect, data); err != nil {
		t.Fatal(err)
	}
	k, _ := colour.NewColourer(l.Color)
	want := image.NewRGBA(data.Rect)
	k.Paint(want, data)
	n := 0
	for y := range h {
		for x := range w {
			if s := data.At(x, y); s.Inside() {
				p, m := f.Interior(x, y)
				if s.Period() != p || math.Abs(s.Multiplier()-m) > 1e-6 {
					t.Fatalf("pixel (%d, %d): period %d, multiplier %g; want %d, %g", x, y, s.Period(), s.Multiplier(), p, m)
				}
				n += min(p, 1)
			}
		}
	}
	if n == 0 {
		t.Fatal("no inside pixel with a period")
	}
	got := image.NewRGBA(data.Rect)
	if err := g.Render(ctx, f, got.Rect, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Pix, want.Pix) {
		t.Error("Render with the inside coloured differs from Compute then colour")
	}
}
