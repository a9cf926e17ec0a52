package render

import (
	"context"
	"fmt"
	"image"
	"math"
	"math/bits"
	"os"
	"strconv"
	"strings"
	"testing"

	"mandelscope/fractal"
	"mandelscope/internal/cputime"
	"mandelscope/internal/deeptest"
	"mandelscope/internal/imagetest"
	"mandelscope/render/cpu"
)

// Deep test views (found by deep-core's fractal/testdata/finddeep): near a period-8007
// nucleus in seahorse valley, near a period-136119 one, and a Misiurewicz point at 1e100.
const (
	p8007Re   = "-0.743643887037158704752191506114779778215256207948181289816883901818560735783796478634787822762144461879186420389368802996"
	p8007Im   = "0.131825904205311970493132056385140678972952279328918966209127677465513481738298337234738964180367638081912623954274282987"
	p136119Re = "-0.74364388703715870475219150611476491044466678866952445054344772226076938734097049990107700002566806721938412552808498904"
	p136119Im = "0.131825904205311970493132056385130725120158741134066232432366348230023599871748424384574295717109105538252905139463817581"
	misRe     = "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030"
	misIm     = "1.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000450"
)

// deepFrame is the w x h frame of a deep location, with its reference orbit.
func deepFrame(t testing.TB, re, im, zoom string, iter, w, h int) fractal.Frame {
	t.Helper()
	f := fractal.NewFrame(loc(t, re, im, zoom, iter), w, h)
	if f.Precision() != fractal.Perturbation {
		t.Fatalf("zoom %s is %v, want perturbation", zoom, f.Precision())
	}
	// Its own orbit, at its own centre (a shared cache would hand it any orbit in reach).
	f, err := f.WithReference(context.Background(), &fractal.ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// wrappingFrame is deepFrame for a view centred on a nucleus whose periodic reference orbit
// (fractal.Reference.Period) was computed for fewer iterations (orbitIter) than the frame
// has, as the window's cache hands it on when the iterations rise: pixels that escape after
// the orbit's end go on one period back from it.
func wrappingFrame(t testing.TB, re, im, zoom string, orbitIter, iter, w, h int) fractal.Frame {
	t.Helper()
	cache := &fractal.ReferenceCache{}
	if _, err := fractal.NewFrame(loc(t, re, im, zoom, orbitIter), w, h).WithReference(context.Background(), cache, nil); err != nil {
		t.Fatal(err)
	}
	f, err := fractal.NewFrame(loc(t, re, im, zoom, iter), w, h).WithReference(context.Background(), cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Ref.Period() == 0 || len(f.Ref.Z) != orbitIter+1 {
		t.Fatalf("period %d, orbit of %d values: want a periodic orbit of %d", f.Ref.Period(), len(f.Ref.Z), orbitIter+1)
	}
	return f
}

// perturbCPU is the CPU picture of a Perturbation frame: fractal.Frame.Pixel for every pixel
// (perturbation with the frame's BLA table, the rule the shader follows, with the derivative
// where the colouring reads it), coloured.
func perturbCPU(t testing.TB, f fractal.Frame) (*image.RGBA, []int) {
	t.Helper()
	pal, err := f.Loc.Color.ColorPalette()
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
	counts := make([]int, 0, f.W*f.H)
	for y := range f.H {
		for x := range f.W {
			r := f.Pixel(x, y)
			counts = append(counts, r.N)
			img.SetRGBA(x, y, f.Loc.Color.Shade(pal, r.Sample()))
		}
	}
	return img, counts
}

// spread says how varied a view's escape counts are: the distinct counts, the least and the
// most, and how many pixels stay black.
func spread(counts []int) (distinct, lo, hi, black int) {
	seen := map[int]bool{}
	lo, hi = 1<<62, -1
	for _, n := range counts {
		if n < 0 {
			black++
			continue
		}
		seen[n] = true
		lo, hi = min(lo, n), max(hi, n)
	}
	return len(seen), lo, hi, black
}

// TestPerturbAgainstCPU renders deep views (1e20, 1e50 and 1e100, up to 300000 iterations)
// with the perturbation shader and compares them with the CPU's perturbation: >= 98% of
// pixels within 6/255 and the differing ones isolated.
func TestPerturbAgainstCPU(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	if !g.fp64 {
		t.Skipf("%s has no fp64: perturbation frames go to the CPU (TestPerturbWithoutFP64)", g.renderer)
	}
	for _, c := range []struct {
		name, re, im, zoom string
		iter, w, h         int
	}{
		{"p8007_1e20", p8007Re, p8007Im, "1e20", 20000, 48, 36},
		{"p136119_1e50", p136119Re, p136119Im, "1e50", 300000, 40, 30},
		{"p8007_2e32", p8007Re, p8007Im, "2e32", 250000, 40, 30},
		{"misiurewicz_1e100", misRe, misIm, "1e100", 12000, 44, 30},
		{"p8007_1e20_distance", p8007Re, p8007Im, "1e20", 20000, 48, 36},
		{"p8007_1e20_slopes", p8007Re, p8007Im, "1e20", 20000, 48, 36},
		{"p136119_1e50_distance", p136119Re, p136119Im, "1e50", 300000, 40, 30},
		{"misiurewicz_1e100_slopes", misRe, misIm, "1e100", 12000, 44, 30},
		{"misiurewicz_1e100_log_distance", misRe, misIm, "1e100", 12000, 44, 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := deepFrame(t, c.re, c.im, c.zoom, c.iter, c.w, c.h)
			if c.name == "p8007_2e32" {
				f = wrappingFrame(t, c.re, c.im, c.zoom, 60000, c.iter, c.w, c.h)
			}
			if _, col, ok := strings.Cut(c.name[strings.Index(c.name, "_")+1:], "_"); ok {
				plain, _ := perturbCPU(t, f)
				f.Loc = withColouring(t, f.Loc, col)
				coloured, _ := perturbCPU(t, f)
				same, _ := imagetest.Agreement(coloured, plain, 0)
				t.Logf("%s: %.1f%% of pixels differ from the smooth colouring's", col, 100*(1-same))
				if same > 0.99 {
					t.Errorf("%s changes only %.1f%% of the pixels of the smooth colouring", col, 100*(1-same))
				}
			}
			if m := g.Mode(f); m != "perturbation (fp64)" {
				t.Errorf("Mode = %q", m)
			}
			got := renderGL(t, g, f)
			want, counts := perturbCPU(t, f)
			distinct, lo, hi, black := spread(counts)
			frac := matchesCPU(t, "perturb_"+c.name, got, want)
			t.Logf("%.3f%% within 6/255; escape counts %d distinct, %d to %d, %d black", 100*frac, distinct, lo, hi, black)
			if distinct < 10 {
				t.Errorf("only %d distinct escape counts: the view tests little", distinct)
			}
			if c.name == "p8007_2e32" && (f.Ref.Period() == 0 || hi <= len(f.Ref.Z)) {
				// The centre is a nucleus: its orbit is periodic, and pixels that escape after
				// its end go on one period back from it (fractal.Reference.Period).
				t.Errorf("period %d, orbit of %d values, counts up to %d: the view does not test the periodic orbit", f.Ref.Period(), len(f.Ref.Z), hi)
			}
		})
	}
}

// TestPerturbPassesAndTiles renders deep views in passes of a forced number of steps and in
// small tiles: both must give the same bytes as the single-pass, one-piece render.
func TestPerturbPassesAndTiles(t *testing.T) {
	single := testGL(t, Options{Perturb: "gpu"})
	if !single.fp64 {
		t.Skipf("%s has no fp64", single.renderer)
	}
	for _, c := range []struct {
		name, re, im, zoom string
		iter, w, h         int
		passes             []int
	}{
		{"p8007_1e20", p8007Re, p8007Im, "1e20", 20000, 45, 31, []int{97, 2000}},
		{"p136119_1e50", p136119Re, p136119Im, "1e50", 300000, 37, 23, []int{1000}},
		{"p8007_2e32", p8007Re, p8007Im, "2e32", 250000, 37, 23, []int{1000}},
		{"p8007_1e20_distance", p8007Re, p8007Im, "1e20", 20000, 45, 31, []int{97}},
		{"p136119_1e50_slopes", p136119Re, p136119Im, "1e50", 300000, 37, 23, []int{1000}},
	} {
		f := deepFrame(t, c.re, c.im, c.zoom, c.iter, c.w, c.h)
		if c.name == "p8007_2e32" {
			f = wrappingFrame(t, c.re, c.im, c.zoom, 60000, c.iter, c.w, c.h)
		}
		if _, col, ok := strings.Cut(c.name[strings.Index(c.name, "_")+1:], "_"); ok {
			f.Loc = withColouring(t, f.Loc, col)
		}
		want := renderGL(t, single, f)
		for _, p := range c.passes {
			t.Run(fmt.Sprintf("%s/P%d", c.name, p), func(t *testing.T) {
				g := testGL(t, Options{Perturb: "gpu", PassIterations: p})
				before := g.Stats()
				got := renderGL(t, g, f)
				n := g.Stats().Passes - before.Passes
				t.Logf("%d passes of %d steps", n, p)
				if n < 3 {
					t.Errorf("%d passes: the multi-pass path was hardly taken", n)
				}
				if string(got.Pix) != string(want.Pix) {
					frac, bad := imagetest.Agreement(got, want, 0)
					saveFailed(t, fmt.Sprintf("perturb_passes_%s_P%d.png", c.name, p), got)
					t.Errorf("multi-pass render differs from the single-pass one: %.3f%% equal, first difference at %v", 100*frac, bad)
				}
			})
		}
		t.Run(c.name+"/tiles", func(t *testing.T) {
			g := testGL(t, Options{Perturb: "gpu", MaxTile: 13})
			before := g.Stats()
			got := renderGL(t, g, f)
			s := g.Stats()
			if n, want := s.Tiles-before.Tiles, ((c.w+12)/13)*((c.h+12)/13); n != want {
				t.Errorf("%d tiles, want %d", n, want)
			}
			if s.Uploads-before.Uploads > 1 {
				t.Errorf("%d uploads of the tables for one frame, want at most 1", s.Uploads-before.Uploads)
			}
			if string(got.Pix) != string(want.Pix) {
				frac, bad := imagetest.Agreement(got, want, 0)
				saveFailed(t, "perturb_tiles_"+c.name+".png", got)
				t.Errorf("tiled render differs from the one-piece render: %.3f%% equal, first difference at %v", 100*frac, bad)
			}
		})
	}
}

// TestPerturbPages forces a small texture buffer limit, so that the orbit and the BLA table
// are split into 2 and 4 pages: the same bytes as one page. Below what 4 pages hold, the
// frame goes to the CPU renderer, and Mode says so.
func TestPerturbPages(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	if !g.fp64 {
		t.Skipf("%s has no fp64", g.renderer)
	}
	f := deepFrame(t, p8007Re, p8007Im, "1e20", 20000, 33, 21)
	want := renderGL(t, g, f)
	orbit, table := tableTexels(f.Ref, blaTables{bla: f.BLA()})
	t.Logf("orbit %d texels, BLA table %d texels", orbit, table)
	defer func() { texBufferLimitOverride = 0 }()
	tested := 0
	for k := 30; k >= 0; k-- {
		page := 1 << k
		pages := (max(orbit, table) + page - 1) / page
		if pages < 2 {
			continue
		}
		if pages > maxPages {
			break
		}
		texBufferLimitOverride = page + page/2 // not a power of two: pages are 2^k within it
		if _, n, ok := pagePlan(orbit, table, texBufferLimitOverride); !ok || n != pages {
			t.Fatalf("limit %d: plan of %d pages (ok %v), want %d", texBufferLimitOverride, n, ok, pages)
		}
		before := g.Stats()
		got := renderGL(t, g, f)
		if g.Stats().Uploads == before.Uploads || g.tables == nil || g.tables.pages != pages {
			t.Errorf("pages of %d texels: the tables were not uploaded again in %d pages", page, pages)
		}
		if string(got.Pix) != string(want.Pix) {
			frac, bad := imagetest.Agreement(got, want, 0)
			t.Errorf("%d pages of %d texels: %.3f%% equal to one page, first difference at %v", pages, page, 100*frac, bad)
		}
		tested++
	}
	if tested < 2 {
		t.Errorf("only %d page splits tested", tested)
	}

	texBufferLimitOverride = table / 8
	if m := g.Mode(f); !strings.HasPrefix(m, "perturbation (CPU: ") {
		t.Errorf("Mode with tables too large = %q", m)
	}
	before := g.Stats()
	got := renderGL(t, g, f)
	if g.Stats().CPUFrames != before.CPUFrames+1 {
		t.Errorf("tables too large for the GPU: the frame did not go to the CPU renderer")
	}
	viaCPU := image.NewRGBA(got.Bounds())
	if err := (&cpu.Renderer{}).Render(context.Background(), f, viaCPU.Bounds(), viaCPU); err != nil {
		t.Fatal(err)
	}
	if string(got.Pix) != string(viaCPU.Pix) {
		t.Errorf("the frame that went to the CPU differs from the CPU renderer's picture")
	}
}

// TestPerturbWithoutFP64 makes a GL that has no fp64 (as a driver without it): a
// perturbation frame must not be drawn wrong by a double variant but go to the CPU renderer,
// and Mode must say so.
func TestPerturbWithoutFP64(t *testing.T) {
	g := newGL33(t)
	g.fp64 = false
	f := deepFrame(t, p8007Re, p8007Im, "1e20", 3000, 24, 16)
	if m := g.Mode(f); !strings.HasPrefix(m, "perturbation (CPU: ") || !strings.Contains(m, "fp64") {
		t.Errorf("Mode without fp64 = %q", m)
	}
	got := renderGL(t, g, f)
	if g.Stats().CPUFrames != 1 || g.Stats().Tiles != 0 {
		t.Errorf("without fp64: %d frames to the CPU and %d GL tiles, want 1 and 0", g.Stats().CPUFrames, g.Stats().Tiles)
	}
	viaCPU := image.NewRGBA(got.Bounds())
	if err := (&cpu.Renderer{}).Render(context.Background(), f, viaCPU.Bounds(), viaCPU); err != nil {
		t.Fatal(err)
	}
	if string(got.Pix) != string(viaCPU.Pix) {
		t.Errorf("the frame that went to the CPU differs from the CPU renderer's picture")
	}
}

// benchPerturb renders frame f with the automatic GL for b.N times and reports seconds per
// frame, the longest draw (the watchdog figure) and, given the pixels' iterations, the time
// per pixel-iteration.
func benchPerturb(b *testing.B, g *GL, f fractal.Frame, iterations int64) {
	dst := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
	if err := g.Render(context.Background(), f, dst.Bounds(), dst); err != nil { // upload, compile
		b.Fatal(err)
	}
	before := g.Stats()
	cpu0 := cputime.Process()
	b.ResetTimer()
	for range b.N {
		if err := g.Render(context.Background(), f, dst.Bounds(), dst); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := cputime.Process() - cpu0
	s := g.Stats()
	if iterations > 0 && cpu > 0 {
		// CPU time (llvmpipe's threads are this process's): steadier than wall time on a
		// shared machine; with N idle cores the wall time is up to N times less.
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(iterations), "cpu-ns/px-iter")
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/frame")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/frame")
	b.ReportMetric(float64(s.LongestDraw.Milliseconds()), "longest-draw-ms")
	b.ReportMetric(float64(s.Draws-before.Draws)/float64(b.N), "draws/op")
	if iterations > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(iterations), "ns/px-iter")
	}
}

// iterationsOf sums the iterations the pixels of f run (the escape count, or the limit for a
// pixel that does not escape), by plain perturbation on the CPU (or Escape64 for a double
// frame).
func iterationsOf(f fractal.Frame) int64 {
	var sum int64
	for y := range f.H {
		for x := range f.W {
			var n int
			if f.Ref != nil && f.Precision() == fractal.PerturbationExp {
				dr, di := f.DeltaExp(x, y)
				n, _ = fractal.PerturbEscapeExp(f.Ref, nil, dr, di, f.Loc.Iterations, nil)
			} else if f.Ref != nil {
				dr, di := f.Delta(x, y)
				n, _ = fractal.PerturbEscape(f.Ref, nil, dr, di, f.Loc.Iterations, nil)
			} else {
				n, _ = f.Escape(x, y)
			}
			if n < 0 {
				n = f.Loc.Iterations
			}
			sum += int64(n)
		}
	}
	return sum
}

// BenchmarkPerturbIteration is the cost of one perturbation iteration on the GPU: a 128x96
// view at zoom 1e20 (escape counts 8000 to 16000) drawn without the BLA table, so that each
// step is one iteration. BenchmarkDoubleIteration is the same for the native fp64 shader at
// zoom 2e6: their ratio is the perturbation shader's weight in sizing draws.
func BenchmarkPerturbIteration(b *testing.B) {
	g := testGL(b, Options{Perturb: "gpu"})
	f := deepFrame(b, p8007Re, p8007Im, "1e20", 20000, 128, 96)
	noBLA = true
	defer func() { noBLA = false }()
	benchPerturb(b, g, f, iterationsOf(f))
}

// BenchmarkPerturbExpIteration is BenchmarkPerturbIteration for the extended-exponent
// shader: 128x96 views next to c = i at zoom 1e1000 (escape counts about 2,660: the delta
// stays extended for roughly the first 1,000 iterations, then double) and 1e5000 (about
// 13,300: extended for roughly the first 6,300), without the BLA table.
func BenchmarkPerturbExpIteration(b *testing.B) {
	for _, k := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("1e%d", k), func(b *testing.B) {
			g := testGL(b, Options{Perturb: "gpu"})
			f := misiurewiczFrame(b, k, 5*k+3000, 128, 96)
			noBLA = true
			defer func() { noBLA = false }()
			benchPerturb(b, g, f, iterationsOf(f))
		})
	}
}

// BenchmarkPerturbExp4e533 renders the view misi4e533 (zoom 4e533, 120,000
// iterations, counts about 118,600 to 119,000) with the BLA table, on the GPU (the
// extended-exponent shader) and, as cpu, with the CPU renderer: size from
// MANDELSCOPE_BENCH_SIZE (default 64).
func BenchmarkPerturbExp4e533(b *testing.B) {
	size := benchSize(b, 64)
	f := deepViewFrame(b, "misi4e533", size, size)
	f.BLAExp()
	b.Run("gpu", func(b *testing.B) {
		benchPerturb(b, testGL(b, Options{Perturb: "gpu"}), f, 0)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size*size), "ns/px")
	})
	b.Run("cpu", func(b *testing.B) {
		dst := image.NewRGBA(image.Rect(0, 0, size, size))
		cpu0 := cputime.Process()
		b.ResetTimer()
		for range b.N {
			if err := (&cpu.Renderer{}).Render(context.Background(), f, dst.Bounds(), dst); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/frame")
		b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/frame")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size*size), "ns/px")
	})
}

// deepViewFrame is the w x h frame of a view of fractal/testdata/deep/locations.txt or
// testdata/tiny.txt (its centre, zoom and iterations), with its reference orbit.
func deepViewFrame(t testing.TB, name string, w, h int) fractal.Frame {
	t.Helper()
	var data []byte
	for _, file := range []string{"../fractal/testdata/deep/locations.txt", "testdata/tiny.txt"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		data = append(append(data, b...), '\n')
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v := strings.Fields(line); len(v) == 5 && v[0] == name {
			iter, err := strconv.Atoi(v[4])
			if err != nil {
				t.Fatalf("view %s: %v", name, err)
			}
			f, err := fractal.NewFrame(loc(t, v[1], v[2], v[3], iter), w, h).WithReference(context.Background(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no view %s in fractal/testdata/deep/locations.txt or testdata/tiny.txt", name)
	return fractal.Frame{}
}

func BenchmarkDoubleIteration(b *testing.B) {
	g := testGL(b, Options{})
	f := fractal.NewFrame(deepLoc(b), 128, 96) // no black pixels
	benchPerturb(b, g, f, iterationsOf(f))
}

// BenchmarkPerturb1e50 renders a view at zoom 1e50 with 300000 iterations (escape counts
// about 296,300 to 297,000) with the BLA table: size from MANDELSCOPE_BENCH_SIZE (default
// 128; the target is 1024, 1024x1024 in at most 30 s).
func BenchmarkPerturb1e50(b *testing.B) {
	size := benchSize(b, 128)
	g := testGL(b, Options{Perturb: "gpu"})
	f := deepFrame(b, p136119Re, p136119Im, "1e50", 300000, size, size)
	benchPerturb(b, g, f, 0)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size*size), "ns/px")
}

// BenchmarkPerturb1e50CPU is BenchmarkPerturb1e50 with the CPU renderer (render/cpu:
// perturbation with the BLA table on every core).
func BenchmarkPerturb1e50CPU(b *testing.B) {
	size := benchSize(b, 128)
	f := deepFrame(b, p136119Re, p136119Im, "1e50", 300000, size, size)
	f.BLA()
	dst := image.NewRGBA(image.Rect(0, 0, size, size))
	cpu0 := cputime.Process()
	b.ResetTimer()
	for range b.N {
		if err := (&cpu.Renderer{}).Render(context.Background(), f, dst.Bounds(), dst); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/frame")
	b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/frame")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(size*size), "ns/px")
}

// TestPerturbBadInput refuses a frame whose offset from its reference is not finite, with a
// one-line error.
func TestPerturbBadInput(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	f := deepFrame(t, p8007Re, p8007Im, "1e20", 1000, 8, 8)
	f.DRe = math.NaN()
	err := g.Render(context.Background(), f, image.Rect(0, 0, 8, 8), image.NewRGBA(image.Rect(0, 0, 8, 8)))
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("NaN offset from the reference: %v, want a one-line error", err)
	}
}

// TestBLAMonotone checks what the shader's binary search over BLA levels relies on: a block's
// radius is at most that of its first half, so that the levels valid at an index are all
// those up to some level.
func TestBLAMonotone(t *testing.T) {
	f := deepFrame(t, p136119Re, p136119Im, "1e50", 300000, 40, 30)
	b := f.BLA()
	flat := b.Flat()
	r := func(l, k int) float64 { return flat[fractal.BLAStride*(b.Offset(l)+k)+4] }
	checked := 0
	for l := 1; l < b.Levels(); l++ {
		for k := range b.Count(l) {
			if r(l, k) > r(l-1, 2*k) {
				t.Fatalf("level %d entry %d: R %g above its first half's %g", l, k, r(l, k), r(l-1, 2*k))
			}
			checked++
		}
	}
	if checked == 0 || b.Levels() < 10 {
		t.Errorf("%d levels, %d entries checked: the table tests little", b.Levels(), checked)
	}
}

// misiurewiczFrame is the w x h frame of i + (0.3 + 0.45i) x 10^-k at zoom 10^k, next to the
// Misiurewicz point c = i, which has structure at every depth (fractal/testdata/deep/README.md),
// with its reference orbit.
func misiurewiczFrame(t testing.TB, k, iter, w, h int) fractal.Frame {
	t.Helper()
	l := loc(t, "3e-"+strconv.Itoa(k+1), "1."+strings.Repeat("0", k)+"45", "1e"+strconv.Itoa(k), iter)
	f, err := fractal.NewFrame(l, w, h).WithReference(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPerturbExpAgainstCPU renders frames past float64's exponent range (zoom 1e304, where
// the float64 spacing is still above 0 but deltas would underflow, 1e400, 1e1000 and 1e5000
// next to c = i; the deep views misi4e533 and nucleus1e451; nucleus2e698, whose reference
// passes within 1e-350 of 0, below float64's range, every 930 iterations, so that the shader
// reads those values from the tiny table) with the extended-exponent perturbation shader and compares them with the CPU
// renderer's extended-exponent path: >= 98% of pixels within 6/255 and the differing ones
// isolated; Mode says which arithmetic draws them.
func TestPerturbExpAgainstCPU(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	if !g.fp64 {
		t.Skipf("%s has no fp64: extended-exponent frames go to the CPU (TestPerturbExpToCPU)", g.renderer)
	}
	for _, c := range []struct {
		k, iter, w, h int
		colouring     string // a colouring of render_test.go's colourings, or ""
		view          string // a view of fractal/testdata/deep instead of one next to c = i
	}{{304, 3000, 24, 16, "", ""}, {400, 3000, 40, 30, "", ""}, {1000, 6000, 36, 24, "", ""}, {1000, 6000, 36, 24, "sqrt", ""},
		{1000, 6000, 36, 24, "gradient", ""}, {5000, 30000, 20, 14, "", ""},
		{0, 0, 24, 16, "", "misi4e533"}, {0, 0, 24, 16, "", "nucleus1e451"}, {0, 0, 24, 16, "", "nucleus2e698"},
		{304, 3000, 24, 16, "distance", ""}, {1000, 6000, 36, 24, "distance", ""}, {1000, 6000, 36, 24, "slopes", ""},
		{5000, 30000, 20, 14, "log_distance", ""}, {0, 0, 24, 16, "slopes", "misi4e533"}} {
		name := fmt.Sprintf("1e%d", c.k)
		if c.view != "" {
			name = c.view
		}
		if c.colouring != "" {
			name += "_" + c.colouring
		}
		t.Run(name, func(t *testing.T) {
			var f fractal.Frame
			if c.view != "" {
				f = deepViewFrame(t, c.view, c.w, c.h)
			} else {
				f = misiurewiczFrame(t, c.k, c.iter, c.w, c.h)
			}
			if c.colouring != "" {
				plain, _ := perturbCPU(t, f)
				f.Loc = withColouring(t, f.Loc, c.colouring)
				coloured, _ := perturbCPU(t, f)
				same, _ := imagetest.Agreement(coloured, plain, 0)
				t.Logf("%s: %.1f%% of pixels differ from the smooth colouring's", c.colouring, 100*(1-same))
				if same > 0.99 {
					t.Errorf("%s changes only %.1f%% of the pixels of the smooth colouring", c.colouring, 100*(1-same))
				}
			}
			if f.Precision() != fractal.PerturbationExp {
				t.Fatalf("%s is %v, want %v", name, f.Precision(), fractal.PerturbationExp)
			}
			if c.view == "nucleus2e698" && len(f.Ref.Tiny()) == 0 {
				t.Fatal("the reference holds no tiny values: the view does not test their lookup")
			}
			if m := g.Mode(f); m != "perturbation (extended exponent, fp64)" {
				t.Errorf("Mode = %q", m)
			}
			before := g.Stats()
			got := renderGL(t, g, f)
			if s := g.Stats(); s.CPUFrames != before.CPUFrames || s.Tiles == before.Tiles {
				t.Errorf("%d frames to the CPU and %d GL tiles, want 0 and some", s.CPUFrames-before.CPUFrames, s.Tiles-before.Tiles)
			}
			want, counts := perturbCPU(t, f)
			distinct, lo, hi, black := spread(counts)
			frac := matchesCPU(t, "perturbexp_"+name, got, want)
			exact, _ := imagetest.Agreement(got, want, 0)
			t.Logf("%.3f%% within 6/255 (%.3f%% equal); escape counts %d distinct, %d to %d, %d black", 100*frac, 100*exact, distinct, lo, hi, black)
			if distinct < 10 {
				t.Errorf("only %d distinct escape counts: the view tests little", distinct)
			}
		})
	}
}

// TestPerturbExpPassesAndTiles: an extended-exponent frame drawn in passes of a forced
// number of steps (the state carrying the delta's exponent, and the derivative's in the
// slopes colouring) and in 13-pixel tiles gives the same bytes as the single-pass, one-piece
// render.
func TestPerturbExpPassesAndTiles(t *testing.T) {
	single := testGL(t, Options{Perturb: "gpu"})
	if !single.fp64 {
		t.Skipf("%s has no fp64", single.renderer)
	}
	for _, col := range []string{"smooth", "slopes"} {
		f := misiurewiczFrame(t, 1000, 6000, 33, 21)
		f.Loc = withColouring(t, f.Loc, col)
		want := renderGL(t, single, f)
		for _, p := range []int{1, 7, 150} {
			t.Run(fmt.Sprintf("%s/P%d", col, p), func(t *testing.T) {
				g := testGL(t, Options{Perturb: "gpu", PassIterations: p})
				before := g.Stats()
				got := renderGL(t, g, f)
				n := g.Stats().Passes - before.Passes
				t.Logf("%d passes of %d steps", n, p)
				if n < 3 {
					t.Errorf("%d passes: the multi-pass path was hardly taken", n)
				}
				if string(got.Pix) != string(want.Pix) {
					frac, bad := imagetest.Agreement(got, want, 0)
					saveFailed(t, fmt.Sprintf("perturbexp_passes_%s_P%d.png", col, p), got)
					t.Errorf("multi-pass render differs from the single-pass one: %.3f%% equal, first difference at %v", 100*frac, bad)
				}
			})
		}
		t.Run(col+"/tiles", func(t *testing.T) {
			g := testGL(t, Options{Perturb: "gpu", MaxTile: 13})
			before := g.Stats()
			got := renderGL(t, g, f)
			s := g.Stats()
			if n, want := s.Tiles-before.Tiles, ((f.W+12)/13)*((f.H+12)/13); n != want {
				t.Errorf("%d tiles, want %d", n, want)
			}
			if s.Uploads-before.Uploads > 1 {
				t.Errorf("%d uploads of the tables for one frame, want at most 1", s.Uploads-before.Uploads)
			}
			if string(got.Pix) != string(want.Pix) {
				frac, bad := imagetest.Agreement(got, want, 0)
				saveFailed(t, "perturbexp_tiles_"+col+".png", got)
				t.Errorf("tiled render differs from the one-piece render: %.3f%% equal, first difference at %v", 100*frac, bad)
			}
		})
	}
}

// TestPerturbExpPages splits the orbit and the extended BLA table (4 texels an entry) into 2
// to 4 pages: the same bytes as one page.
func TestPerturbExpPages(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	if !g.fp64 {
		t.Skipf("%s has no fp64", g.renderer)
	}
	f := misiurewiczFrame(t, 1000, 6000, 21, 13)
	want := renderGL(t, g, f)
	orbit, table := tableTexels(f.Ref, blaTables{blaExp: f.BLAExp()})
	defer func() { texBufferLimitOverride = 0 }()
	tested := 0
	for k := bits.Len(uint(max(orbit, table))); k >= 0; k-- {
		page := 1 << k
		pages := (max(orbit, table) + page - 1) / page
		if pages < 2 {
			continue
		}
		if pages > maxPages {
			break
		}
		texBufferLimitOverride = page
		if _, n, ok := pagePlan(orbit, table, page); !ok || n != pages {
			t.Fatalf("limit %d: plan of %d pages (ok %v), want %d", page, n, ok, pages)
		}
		got := renderGL(t, g, f)
		if g.tables == nil || g.tables.pages != pages || g.tables.blaExp == nil {
			t.Errorf("limit %d: the extended tables were not uploaded in %d pages", page, pages)
		}
		if string(got.Pix) != string(want.Pix) {
			frac, bad := imagetest.Agreement(got, want, 0)
			t.Errorf("%d pages of %d texels: %.3f%% equal to one page, first difference at %v", pages, page, 100*frac, bad)
		}
		tested++
	}
	if tested < 2 {
		t.Errorf("only %d page splits tested (orbit %d texels, table %d)", tested, orbit, table)
	}
}

// TestPerturbExpToCPU: extended-exponent frames the shader does not draw go to the CPU
// renderer, whose picture they get, and Mode says why: on a software rasteriser by default
// (the CPU is faster there), and without fp64.
func TestPerturbExpToCPU(t *testing.T) {
	f := misiurewiczFrame(t, 1000, 3000, 24, 16)
	check := func(t *testing.T, g *GL, f fractal.Frame, reason string) {
		t.Helper()
		if m := g.Mode(f); !strings.HasPrefix(m, "perturbation (CPU: ") || !strings.Contains(m, reason) {
			t.Errorf("Mode = %q, want the CPU because of %q", m, reason)
		}
		before := g.Stats()
		got := renderGL(t, g, f)
		if s := g.Stats(); s.CPUFrames != before.CPUFrames+1 || s.Tiles != before.Tiles {
			t.Errorf("%d frames to the CPU and %d GL tiles, want 1 and 0", s.CPUFrames-before.CPUFrames, s.Tiles-before.Tiles)
		}
		viaCPU := image.NewRGBA(got.Bounds())
		if err := (&cpu.Renderer{}).Render(context.Background(), f, viaCPU.Bounds(), viaCPU); err != nil {
			t.Fatal(err)
		}
		if string(got.Pix) != string(viaCPU.Pix) {
			t.Error("the frame that went to the CPU differs from the CPU renderer's picture")
		}
	}
	t.Run("software", func(t *testing.T) {
		g := testGL(t, Options{})
		if !softwareRenderer(g.renderer) {
			t.Skipf("%s is no software rasteriser", g.renderer)
		}
		check(t, g, f, "faster than")
	})
	t.Run("without_fp64", func(t *testing.T) {
		g := newGL33(t)
		g.fp64 = false
		check(t, g, f, "fp64")
	})
	if d, _, _, black := spread(countsOf(t, f)); d < 2 || black == f.W*f.H {
		t.Errorf("a flat picture (%d distinct counts, %d black): the test view shows nothing", d, black)
	}
}

// countsOf is every pixel's escape count of frame f, by the model.
func countsOf(t *testing.T, f fractal.Frame) []int {
	t.Helper()
	var c []int
	for y := range f.H {
		for x := range f.W {
			c = append(c, f.Pixel(x, y).N)
		}
	}
	return c
}

// benchSize is the square frame size a deep benchmark renders: MANDELSCOPE_BENCH_SIZE (1 to
// 8192) when set, else def.
func benchSize(b *testing.B, def int) int {
	b.Helper()
	s := os.Getenv("MANDELSCOPE_BENCH_SIZE")
	if s == "" {
		return def
	}
	size := 0
	if _, err := fmt.Sscan(s, &size); err != nil || size < 1 || size > 8192 {
		b.Fatalf("MANDELSCOPE_BENCH_SIZE=%q: want a size from 1 to 8192", s)
	}
	return size
}

// TestPerturbMinibrotEdgeAgainstCPU draws a minibrot's edge past 2^22 iterations (the view
// edge1e39, whose reference is the minibrot's nucleus: fractal's nucleusref.go) on the GPU
// and compares it with the CPU, which fractal's TestMinibrotEdgePastLengthCap checks against
// math/big: the inside stays inside, the pixels escaping past 2^21 agree. Such a frame's long
// counts are rechecked (fractal.Frame.NeedsRecheck), which the shader cannot do: it refuses
// the frame, which goes to the CPU renderer, unless the frame is Unchecked (the window's
// preview), as it is for the comparison here, of the loops alone. A corner of the 64x36 frame
// holding two pixels that escape after 2^21.
func TestPerturbMinibrotEdgeAgainstCPU(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	if !g.fp64 {
		t.Skipf("%s has no fp64: perturbation frames go to the CPU", g.renderer)
	}
	l := deeptest.Location(t, "edge1e39")
	l.Iterations = 1<<22 + 1<<16
	f, err := fractal.NewFrame(l, 64, 36).WithReference(context.Background(), &fractal.ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Ref.Period() == 0 {
		t.Fatal("the view's reference is not periodic: it does not test the nucleus reference")
	}
	if err := g.perturbFits(f); err == nil || !f.NeedsRecheck() {
		t.Fatalf("the shader takes a frame whose long counts need a recheck (%v)", err)
	}
	f.Unchecked = true
	if err := g.perturbFits(f); err != nil {
		t.Fatalf("the shader refuses the Unchecked frame: %v", err)
	}
	rect := image.Rect(0, 10, 8, 16)
	got := image.NewRGBA(rect)
	if err := g.Render(context.Background(), f, rect, got); err != nil {
		t.Fatal(err)
	}
	pal, err := f.Loc.Color.ColorPalette()
	if err != nil {
		t.Fatal(err)
	}
	want := image.NewRGBA(rect)
	past, inside := 0, 0
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			r := f.Pixel(x, y)
			switch {
			case r.N < 0:
				inside++
			case r.N > 1<<21:
				past++
			}
			want.SetRGBA(x, y, f.Loc.Color.Shade(pal, r.Sample()))
		}
	}
	if past == 0 || inside == 0 {
		t.Fatalf("%d pixels inside, %d escaping past 2^21: the corner tests little", inside, past)
	}
	frac := matchesCPU(t, "perturb_edge1e39", got, want)
	t.Logf("%.1f%% within 6/255; %d inside, %d escaping past 2^21", 100*frac, inside, past)
}

// TestTinyWordsZero: a reference value of 0 kept among the orbit's tiny values (a Julia
// reference about its critical point 0: Z at its start is 0) goes to the shader with the
// exponent ZERO_EXP (-2^30), which loses every comparison as a zero cx must, not with the low
// 32 bits of fractal's zero exponent (-2^40: 0), which made the Burning Ship's Julia set at
// 1e200 escape nowhere on the GPU once its tiny values were uploaded.
func TestTinyWordsZero(t *testing.T) {
	l := fractal.HomeOf(fractal.Formula{Kind: fractal.BurningShip}).JuliaAt(fractal.MustDecimal("-1"), fractal.MustDecimal("-1"))
	l.Re, l.Im, l.Zoom, l.Iterations = fractal.MustDecimal("0"), fractal.MustDecimal("0"), fractal.MustDecimal("1e200"), 1000
	f, err := fractal.NewFrame(l, 24, 16).WithReference(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tiny := f.Ref.Tiny()
	words := tinyWords(f.Ref)
	if len(words) != 8*len(tiny) {
		t.Fatalf("%d words for %d tiny values", len(words), len(tiny))
	}
	zeros := 0
	for i, z := range tiny {
		e := int32(words[8*i+1])
		switch {
		case z.Re == 0 && z.Im == 0:
			zeros++
			if e != -1<<30 {
				t.Errorf("Z[%d] = 0 uploaded with exponent %d, want ZERO_EXP %d", z.M, e, -1<<30)
			}
		case int(e) != z.E:
			t.Errorf("Z[%d] uploaded with exponent %d, want %d", z.M, e, z.E)
		}
	}
	if zeros == 0 {
		t.Fatalf("no zero among the %d tiny values: the view tests nothing", len(tiny))
	}
}
