package cpu

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"strings"
	"sync"
	"testing"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/cputime"
	"mandelscope/internal/deeptest"
)

// deepLocation is deeptest.Location.
func deepLocation(t testing.TB, name string) fractal.Location { return deeptest.Location(t, name) }

// renderInTiles renders f into dst in tiles of tw x th pixels (smaller at the right and
// bottom edges), each Render call on its own.
func renderInTiles(t *testing.T, r *Renderer, f fractal.Frame, dst *image.RGBA, tw, th int) {
	t.Helper()
	w, h := dst.Bounds().Dx(), dst.Bounds().Dy()
	for y := 0; y < h; y += th {
		for x := 0; x < w; x += tw {
			rect := image.Rect(x, y, min(x+tw, w), min(y+th, h))
			if err := r.Render(context.Background(), f, rect, dst.SubImage(rect).(*image.RGBA)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestDeepTilesMatchWhole renders a deep view (zoom 2e32, 100k+ iterations near a period
// 8007 minibrot) in odd-sized tiles, each Render call on its own, and compares the bytes with
// a one-piece render, and a sample of pixels with the model's Frame.Escape and palette.
func TestDeepTilesMatchWhole(t *testing.T) {
	l := deepLocation(t, "p8007")
	l.Iterations = 150000
	w, h := 120, 70
	if testing.Short() {
		w, h = 60, 35
	}
	f := fractal.NewFrame(l, w, h)
	if f.Precision() != fractal.Perturbation {
		t.Fatalf("precision %v, want perturbation", f.Precision())
	}
	r := &Renderer{Workers: 3, References: &fractal.ReferenceCache{}}
	whole := image.NewRGBA(image.Rect(0, 0, w, h))
	if err := r.Render(context.Background(), f, whole.Bounds(), whole); err != nil {
		t.Fatal(err)
	}
	tiled := image.NewRGBA(whole.Bounds())
	renderInTiles(t, r, f, tiled, 37, 23)
	if !bytes.Equal(whole.Pix, tiled.Pix) {
		t.Error("deep tiles differ from the one-piece render")
	}
	sampledMatchModel(t, r, f, whole, 9, 6, "the deep view")
}

// TestDeepRenderCancelled checks that a cancelled context ends a deep render with its error,
// the reference orbit included.
func TestDeepRenderCancelled(t *testing.T) {
	f := fractal.NewFrame(deepLocation(t, "p136119z50"), 64, 64)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	if err := (&Renderer{References: &fractal.ReferenceCache{}}).Render(ctx, f, img.Bounds(), img); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled deep render: %v, want context.Canceled", err)
	}
}

// TestCancelInsideDeepPixel cancels renders whose every pixel runs 1e8 iterations (the
// issue's view: zoom 1e400 at c = 0, inside the main cardioid, where no BLA step applies and a
// pixel takes seconds of CPU), in each perturbation loop: the render must end with the cancel,
// inside the pixels it is drawing. The process's CPU time after the cancel tells: a render
// that sees the cancel only between pixels finishes the two in progress first (seconds each;
// tens under the race detector), one that sees it inside them stops within microseconds.
func TestCancelInsideDeepPixel(t *testing.T) {
	refs := &fractal.ReferenceCache{} // one orbit and BLA table a zoom, for both colourings
	for _, c := range []struct{ zoom, colouring string }{
		{"1e400", "smooth"}, {"1e400", "distance"}, {"1e200", "smooth"}, {"1e200", "slopes"},
	} {
		t.Run(c.zoom+"_"+c.colouring, func(t *testing.T) {
			l, err := fractal.ParseLocationText("re=0 im=0 zoom="+c.zoom+" iterations=100000000 colouring="+c.colouring, fractal.Home())
			if err != nil {
				t.Fatal(err)
			}
			f, err := fractal.NewFrame(l, 4, 4).WithReference(context.Background(), refs, nil)
			if err != nil {
				t.Fatal(err)
			}
			// The BLA table too (the render takes it from the reference): its building is not
			// what this test measures.
			if f.Precision() == fractal.PerturbationExp {
				f.BLAExp()
			} else {
				f.BLA()
			}
			base, cancel := context.WithCancel(context.Background())
			ctx := &pixelGate{Context: base, started: make(chan struct{})}
			done := make(chan error, 1)
			img := image.NewRGBA(image.Rect(0, 0, 4, 4))
			go func() { done <- (&Renderer{Workers: 2}).Render(ctx, f, img.Bounds(), img) }()
			<-ctx.started // a pixel's loop has its stop channel: the cancel comes inside it
			cpu0 := cputime.Process()
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("render ended with %v, want context.Canceled", err)
				}
			case <-time.After(5 * time.Minute):
				t.Fatal("the render went on 5 minutes after its cancel")
			}
			spent := cputime.Process() - cpu0
			t.Logf("%v of CPU time after the cancel", spent)
			if spent > time.Second {
				t.Errorf("%v of CPU time after the cancel: the pixels in progress did not look at it", spent)
			}
		})
	}
}

// pixelGate is a context that tells when a render first asks for its Done channel: the
// channel the perturbation loops watch, asked for as a pixel (or a batch of them) starts.
type pixelGate struct {
	context.Context
	once    sync.Once
	started chan struct{} // closed at the first call of Done
}

func (g *pixelGate) Done() <-chan struct{} {
	g.once.Do(func() { close(g.started) })
	return g.Context.Done()
}

// BenchmarkRenderDeep renders 1024x1024 deep views on every core, reference orbit and BLA
// table included (a fresh cache each time), as an export of that view does.
func BenchmarkRenderDeep(b *testing.B) {
	for _, c := range []struct {
		name string
		rows int // rows rendered, from the middle (1024 = the whole image)
	}{{"p136119z45", 1024}, {"p136119z50", 1024}, {"p136119near", 1024}, {"p8007", 1024}, {"p136119z45", 64}} {
		b.Run(fmt.Sprintf("%s/rows=%d", c.name, c.rows), func(b *testing.B) {
			f := fractal.NewFrame(deepLocation(b, c.name), 1024, 1024)
			rect := image.Rect(0, 512-c.rows/2, 1024, 512+c.rows/2)
			img := image.NewRGBA(rect)
			cpu0 := cputime.Process()
			for b.Loop() {
				r := &Renderer{References: &fractal.ReferenceCache{}}
				if err := r.Render(context.Background(), f, rect, img); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/frame")
			b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/frame")
		})
	}
}

// misiurewicz is i + (0.3 + 0.45i) 10^-k at zoom 10^k, next to the Misiurewicz point c = i
// (structure at every depth), with its digits written out.
func misiurewicz(t testing.TB, k, iterations int) fractal.Location {
	l, err := fractal.ParseLocationText(fmt.Sprintf("re=3e-%d im=1.%s45 zoom=1e%d iterations=%d",
		k+1, strings.Repeat("0", k), k, iterations), fractal.Home())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestDeepExpTilesMatchWhole is TestDeepTilesMatchWhole past float64's exponent (zoom
// 1e1000, an extended-exponent frame): tiles equal the one-piece render byte for byte, and
// sampled pixels equal the model's Frame.Escape and palette.
func TestDeepExpTilesMatchWhole(t *testing.T) {
	l := misiurewicz(t, 1000, 6000)
	w, h := 90, 52
	f := fractal.NewFrame(l, w, h)
	if f.Precision() != fractal.PerturbationExp {
		t.Fatalf("precision %v, want %v", f.Precision(), fractal.PerturbationExp)
	}
	r := &Renderer{Workers: 3, References: &fractal.ReferenceCache{}}
	whole := image.NewRGBA(image.Rect(0, 0, w, h))
	if err := r.Render(context.Background(), f, whole.Bounds(), whole); err != nil {
		t.Fatal(err)
	}
	tiled := image.NewRGBA(whole.Bounds())
	renderInTiles(t, r, f, tiled, 29, 17)
	if !bytes.Equal(whole.Pix, tiled.Pix) {
		t.Error("tiles at 1e1000 differ from the one-piece render")
	}
	sampledMatchModel(t, r, f, whole, 7, 5, "the view at 1e1000")
	// The distance colouring (the derivative, in extended form too): tiles equal the whole,
	// pixels equal Frame.Pixel shaded.
	l.Color.Method = colour.MethodDistance
	f = fractal.NewFrame(l, w, h)
	if err := r.Render(context.Background(), f, whole.Bounds(), whole); err != nil {
		t.Fatal(err)
	}
	renderInTiles(t, r, f, tiled, 29, 17)
	if !bytes.Equal(whole.Pix, tiled.Pix) {
		t.Error("distance-coloured tiles at 1e1000 differ from the one-piece render")
	}
	pal, err := f.Loc.Color.ColorPalette()
	if err != nil {
		t.Fatal(err)
	}
	fr, err := f.WithReference(context.Background(), r.References, nil)
	if err != nil {
		t.Fatal(err)
	}
	colours := map[[3]uint8]bool{}
	for y := 1; y < h; y += 5 {
		for x := 2; x < w; x += 7 {
			res := fr.Pixel(x, y)
			want := l.Color.Shade(pal, res.Sample())
			if got := whole.RGBAAt(x, y); got != want {
				t.Fatalf("distance colouring, pixel %d,%d = %v, want %v (%+v)", x, y, got, want, res)
			}
			colours[[3]uint8{want.R, want.G, want.B}] = true
		}
	}
	if len(colours) < 3 {
		t.Errorf("only %d colours in the distance-coloured view at 1e1000", len(colours))
	}
}

// BenchmarkRenderDeepExp renders 1024x1024 views past float64's exponent (misi4e533: zoom
// 4e533, 120,000 iterations; misi1e1086: 1e1086, 600,000) and, for comparison with the
// float64 path, one just below 1e300, on every core, reference orbit and BLA table included
// (a fresh cache each time). rows < 1024 renders that many rows from the middle.
func BenchmarkRenderDeepExp(b *testing.B) {
	for _, c := range []struct {
		name string
		rows int
	}{{"misi4e533", 1024}, {"misi4e533", 64}, {"misi1e1086", 1024}, {"misi1e1086", 64}, {"misiurewicz1e290", 1024}, {"p136119z50", 64}} {
		b.Run(fmt.Sprintf("%s/rows=%d", c.name, c.rows), func(b *testing.B) {
			f := fractal.NewFrame(deepLocation(b, c.name), 1024, 1024)
			b.Logf("%s: %v", c.name, f.Precision())
			rect := image.Rect(0, 512-c.rows/2, 1024, 512+c.rows/2)
			img := image.NewRGBA(rect)
			cpu0 := cputime.Process()
			for b.Loop() {
				r := &Renderer{References: &fractal.ReferenceCache{}}
				if err := r.Render(context.Background(), f, rect, img); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/frame")
			b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/frame")
		})
	}
}

// sampledMatchModel checks every dx-th pixel of every dy-th row of whole, the renderer's
// picture of frame f, against the model's colour for it (Frame.Escape with the renderer's
// reference, then the palette), and that the sampled pixels show at least five colours (what
// names the view in the message).
func sampledMatchModel(t *testing.T, r *Renderer, f fractal.Frame, whole *image.RGBA, dx, dy int, what string) {
	t.Helper()
	pal, err := f.Loc.Color.ColorPalette()
	if err != nil {
		t.Fatal(err)
	}
	fr, err := f.WithReference(context.Background(), r.References, nil)
	if err != nil {
		t.Fatal(err)
	}
	colours := map[[3]uint8]bool{}
	for y := 1; y < f.H; y += dy {
		for x := 2; x < f.W; x += dx {
			n, nu := fr.Escape(x, y)
			want := pal.Color(fractal.Result{N: n, Nu: nu}.Sample(), f.Loc.Color)
			if got := whole.RGBAAt(x, y); got != want {
				t.Fatalf("pixel %d,%d = %v, want %v (escape %d)", x, y, got, want, n)
			}
			colours[[3]uint8{want.R, want.G, want.B}] = true
		}
	}
	if len(colours) < 5 {
		t.Errorf("only %d colours in %s: not a picture", len(colours), what)
	}
}

// BenchmarkRenderJuliaDeep renders, as an export does (every core, the reference and the
// BLA table included, a fresh cache each time), the Mandelbrot set at 1e50 next to the
// Misiurewicz point c = i and the Julia set of c = i at the same place (z = i is on it, and
// the two pictures are alike there), 1024x1024, and reports each one's CPU time per
// iteration (the sum of the pixels' counts, the iterations for those inside): issue 29 asks
// that a deep Julia view cost no more per iteration than the Mandelbrot view of its depth.
func BenchmarkRenderJuliaDeep(b *testing.B) {
	for _, julia := range []bool{false, true} {
		name := map[bool]string{false: "mandelbrot", true: "julia"}[julia]
		b.Run(name+"/1e50", func(b *testing.B) {
			l := misiurewicz(b, 50, 4000)
			if julia {
				l.Julia = fractal.JuliaParam{On: true, Re: fractal.MustDecimal("0"), Im: fractal.MustDecimal("1")}
			}
			f := fractal.NewFrame(l, 1024, 1024)
			iters := frameIterations(b, f)
			img := image.NewRGBA(image.Rect(0, 0, 1024, 1024))
			cpu0 := cputime.Process()
			for b.Loop() {
				r := &Renderer{References: &fractal.ReferenceCache{}}
				if err := r.Render(context.Background(), f, img.Rect, img); err != nil {
					b.Fatal(err)
				}
			}
			cpu := (cputime.Process() - cpu0).Seconds() / float64(b.N)
			b.ReportMetric(cpu, "cpu-s/frame")
			b.ReportMetric(cpu/float64(iters)*1e9, "cpu-ns/iter")
			b.ReportMetric(float64(iters)/1024/1024, "iter/pixel")
		})
	}
}

// frameIterations is the sum of f's pixels' escape counts (the iterations for those inside).
func frameIterations(b *testing.B, f fractal.Frame) int {
	f, err := f.WithReference(context.Background(), &fractal.ReferenceCache{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	sum := 0
	dcr, dci := make([]float64, f.W), make([]float64, f.W)
	n, nu := make([]int, f.W), make([]float64, f.W)
	for y := range f.H {
		for x := range f.W {
			dcr[x], dci[x] = f.Delta(x, y)
		}
		fractal.PerturbEscapeBatch(f.Ref, f.BLA(), dcr, dci, f.Loc.Iterations, nil, n, nu)
		for _, k := range n {
			if k < 0 {
				k = f.Loc.Iterations
			}
			sum += k
		}
	}
	return sum
}
