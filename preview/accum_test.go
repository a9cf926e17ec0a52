package preview

import (
	"context"
	"image"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/render/cpu"
)

// Every grid point comes once, and every complete group of four averages to the pixel's
// centre (so the running mean shown from ShowAfter on is not shifted).
func TestSampleOrder(t *testing.T) {
	for n := 1; n <= 5; n++ {
		order := SampleOrder(n)
		if len(order) != n*n {
			t.Fatalf("n=%d: %d points, want %d", n, len(order), n*n)
		}
		seen := map[image.Point]bool{}
		for _, p := range order {
			if p.X < 0 || p.Y < 0 || p.X >= n || p.Y >= n || seen[p] {
				t.Fatalf("n=%d: point %v out of the grid or repeated (%v)", n, p, order)
			}
			seen[p] = true
		}
		for g := 0; g+4 <= len(order); g += 4 {
			var sx, sy float64
			for _, p := range order[g : g+4] {
				dx, dy := SampleShift(p.X, p.Y, n)
				sx, sy = sx+dx, sy+dy
			}
			if math.Abs(sx) > 1e-12 || math.Abs(sy) > 1e-12 {
				t.Errorf("n=%d: group %v averages to (%g, %g), not the centre", n, order[g:g+4], sx/4, sy/4)
			}
		}
	}
	if ShowAfter > len(SampleOrder(AccumulateN)) {
		t.Fatalf("ShowAfter %d is more than the %d samples", ShowAfter, AccumulateN*AccumulateN)
	}
}

// The shifts are those of an export's sub-pixels: sub-pixel (n x + i) of an image n times
// wider has its centre at x + (i + 0.5)/n pixels of the output.
func TestSampleShiftIsTheExportsSubPixel(t *testing.T) {
	loc := testLoc()
	const w, h, n = 160, 90, 4
	big := fractal.NewFrame(loc, w*n, h*n)
	for _, p := range []image.Point{{0, 0}, {3, 1}, {2, 3}} {
		for _, px := range []image.Point{{0, 0}, {17, 40}, {w - 1, h - 1}} {
			f := fractal.NewFrame(SampleLocation(loc, w, h, p.X, p.Y, n), w, h)
			re, im := f.Point64(px.X, px.Y)
			wre, wim := big.Point64(n*px.X+p.X, n*px.Y+p.Y)
			if sre, sim := SampleFrame(loc, w, h, p.X, p.Y, n).Point64(px.X, px.Y); math.Max(math.Abs(sre-wre), math.Abs(sim-wim)) > 1e-5*big.Spacing {
				t.Errorf("sample %v pixel %v: SampleFrame's %g%+gi, the export's sub-pixel %g%+gi", p, px, sre, sim, wre, wim)
			}
			if d := math.Max(math.Abs(re-wre), math.Abs(im-wim)); d > 1e-5*big.Spacing {
				t.Errorf("sample %v pixel %v: %g%+gi, the export's sub-pixel %g%+gi (%.3g sub-pixels off)",
					p, px, re, im, wre, wim, d/big.Spacing)
			}
		}
	}
}

// Past float64's range (zoom 1e400) the sample's centre is moved by the shift in pixels, to
// a millionth of a pixel, in math/big.
func TestSampleLocationDeep(t *testing.T) {
	loc := testLoc()
	loc.Re = fractal.MustDecimal("-1.99999911758766165543536704557")
	loc.Im = fractal.MustDecimal("0")
	loc.Zoom = fractal.MustDecimal("1e400")
	const w, h, n = 200, 120, 4
	sp := fractal.SpacingExp(loc.ZoomExp(), w, h).Big(1600)
	for _, p := range []image.Point{{0, 0}, {3, 2}} {
		l := SampleLocation(loc, w, h, p.X, p.Y, n)
		dx, dy := SampleShift(p.X, p.Y, n)
		for _, c := range []struct {
			name     string
			got, was fractal.Decimal
			want     float64
		}{{"re", l.Re, loc.Re, dx}, {"im", l.Im, loc.Im, -dy}} {
			d := c.got.Big(1600)
			d.Sub(d, c.was.Big(1600))
			d.Quo(d, sp)
			if px, _ := d.Float64(); math.Abs(px-c.want) > 1e-6 {
				t.Errorf("sample %v: %s moved by %g pixels, want %g", p, c.name, px, c.want)
			}
		}
		if f := SampleFrame(loc, w, h, p.X, p.Y, n); f.Precision() != fractal.PerturbationExp {
			t.Errorf("sample %v at 1e400: precision %v", p, f.Precision())
		}
	}
}

func TestAccumulatorMean(t *testing.T) {
	a := NewAccumulator(3, 2)
	if a.Mean() != nil {
		t.Fatal("mean of no samples is not nil")
	}
	vals := []uint8{0, 255, 1, 2} // mean 64.5 rounds up to 65
	for _, v := range vals {
		img := image.NewRGBA(image.Rect(0, 0, 3, 2))
		for i := range img.Pix {
			img.Pix[i] = v
		}
		img.Pix[4] = 10 // pixel 1's red: 10 in every sample
		if err := a.Add(img); err != nil {
			t.Fatal(err)
		}
	}
	m := a.Mean()
	if a.Count() != 4 || m.Pix[0] != 65 || m.Pix[1] != 65 || m.Pix[2] != 65 || m.Pix[3] != 255 {
		t.Fatalf("count %d, pixel 0 %v, want 65, 65, 65, 255", a.Count(), m.RGBAAt(0, 0))
	}
	if m.Pix[4] != 10 || m.Pix[3] != 255 {
		t.Errorf("pixel 1 %v, want red 10 and opaque", m.RGBAAt(1, 0))
	}
	if err := a.Add(image.NewRGBA(image.Rect(0, 0, 2, 3))); err == nil {
		t.Error("a sample of another size was added")
	}
}

// speckle is the share of pixels (the border excluded) whose grey level (the mean of R, G
// and B) differs from the mean of its eight neighbours by more than 48 of 255: salt and
// pepper at the set's boundary.
func speckle(img *image.RGBA) float64 {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	grey := func(x, y int) float64 {
		p := img.Pix[y*img.Stride+4*x:]
		return (float64(p[0]) + float64(p[1]) + float64(p[2])) / 3
	}
	n := 0
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			s := 0.0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if dx != 0 || dy != 0 {
						s += grey(x+dx, y+dy)
					}
				}
			}
			if math.Abs(grey(x, y)-s/8) > 48 {
				n++
			}
		}
	}
	return float64(n) / float64((w-2)*(h-2))
}

// boundaryLoc is a view full of filaments in seahorse valley, deep enough for double
// precision at the tests' sizes (float32's rounding differs from one centre to another by
// more than the renderers' tolerance, so sample frames and the export's would not agree).
func boundaryLoc() fractal.Location {
	l := testLoc()
	l.Zoom = fractal.MustDecimal("5000")
	l.Iterations = 1000
	return l
}

// accumulateAll renders every sample of loc's n x n grid at w x h and returns their mean.
func accumulateAll(t *testing.T, s *Scheduler, loc fractal.Location, w, h, n int) *image.RGBA {
	t.Helper()
	a := NewAccumulator(w, h)
	for _, p := range SampleOrder(n) {
		img, err := s.Sample(context.Background(), loc, w, h, p.X, p.Y, n, nil)
		if err != nil || img == nil {
			t.Fatalf("sample %v: %v (image %v)", p, err, img != nil)
		}
		if err := a.Add(img); err != nil {
			t.Fatal(err)
		}
	}
	return a.Mean()
}

// exportImage exports loc at w x h with n x n supersampling on the CPU renderer and reads it.
func exportImage(t *testing.T, loc fractal.Location, w, h, n int) *image.RGBA {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.png")
	if _, err := export.Export(context.Background(), &cpu.Renderer{}, path,
		export.Options{Location: loc, Width: w, Height: h, Supersample: n, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	return imagetest.Decode(t, path)
}

// The accumulated picture is the 4x4 export of the same view: the same pixels within the
// renderers' tolerance (6/255, differences isolated, 98%; in double precision and deeper),
// the same speckle within 10%, and, for the smooth colouring, under half the speckle of one
// sample per pixel (2.6x to 6x less is seen). The distance colouring's lines keep their
// width in output pixels in both.
func TestAccumulatedIsTheExport(t *testing.T) {
	const w, h, n = 192, 108, AccumulateN
	for _, c := range []struct {
		method string
		zoom   string
		pixels bool // compare pixels, not only the speckle
	}{
		{"", "5000", true}, {"distance", "5000", true},
		{"", "1500", true}, // samples float32 by their spacing, the export's double: MinPrecision
		{"", "1e14", true}, // perturbation, the samples with the full frame's reference
		// Both float32: float32's rounding of the pixels' coordinates differs between the
		// sample frames and the export's finer frame, and the iteration amplifies it at the
		// boundary (87% of the pixels agree), so only the speckle is compared.
		{"", "200", false},
	} {
		loc := boundaryLoc()
		loc.Color.Method = c.method
		loc.Zoom = fractal.MustDecimal(c.zoom)
		if c.zoom == "1e14" {
			loc.Re = fractal.MustDecimal("-1.99999911758766165543536704557")
			loc.Im = fractal.MustDecimal("0")
			loc.Iterations = 600
		}
		method := c.method + " zoom " + c.zoom
		t.Logf("%s: samples %v, export %v", method, SampleFrame(loc, w, h, 0, 0, n).Precision(), fractal.NewFrame(loc, n*w, n*h).Precision())
		s := New(&cpu.Renderer{})
		one, _, err := s.Full(context.Background(), loc, w, h, nil)
		if err != nil {
			t.Fatal(err)
		}
		acc := accumulateAll(t, s, loc, w, h, n)
		exp := exportImage(t, loc, w, h, n)
		if err := imagetest.Isolated(acc, exp, 6); err != nil && c.pixels {
			t.Errorf("%q: accumulated vs export: %v", method, err)
		}
		frac, at := imagetest.Agreement(acc, exp, 6)
		if frac < 0.98 && c.pixels { // as the GPU-vs-CPU tests allow
			t.Errorf("%q: only %.2f%% of the accumulated pixels within 6/255 of the export's (first at %v)", method, 100*frac, at)
		}
		s1, sa, se := speckle(one), speckle(acc), speckle(exp)
		t.Logf("%q speckle: 1 sample %.2f%%, accumulated %.2f%%, export %.2f%%; agreement %.2f%%", method, 100*s1, 100*sa, 100*se, 100*frac)
		if math.Abs(sa-se) > 0.1*se {
			t.Errorf("%q: accumulated speckle %.3f%%, export %.3f%%: more than 10%% apart", method, 100*sa, 100*se)
		}
		if c.method == "" && sa > s1/2 { // the distance colouring's 1-pixel lines stay lines
			t.Errorf("%q: accumulated speckle %.3f%% is not under half one sample's %.3f%%", method, 100*sa, 100*s1)
		}
	}
}

// A deep view's samples reuse the full frame's reference orbit.
func TestSampleReusesReference(t *testing.T) {
	loc := testLoc()
	loc.Zoom = fractal.MustDecimal("1e20")
	loc.Iterations = 2000
	const w, h = 48, 32
	s := New(&cpu.Renderer{})
	f, err := s.Reference(context.Background(), fractal.NewFrame(loc, w, h), nil)
	if err != nil || f.Ref == nil {
		t.Fatalf("no reference: %v", err)
	}
	for _, p := range []image.Point{{0, 0}, {3, 3}} {
		g, err := s.Reference(context.Background(), fractal.NewFrame(SampleLocation(loc, w, h, p.X, p.Y, 4), w, h), nil)
		if err != nil {
			t.Fatal(err)
		}
		if g.Ref != f.Ref {
			t.Errorf("sample %v got another reference orbit", p)
		}
	}
}

// The worker accumulates a view at rest up to n x n samples, counting each and giving the
// running mean from ShowAfter on; a request stops it at once (nothing more of the old view is delivered) and
// the new view accumulates afresh.
func TestWorkerAccumulatesAndStopsOnInput(t *testing.T) {
	const w, h = 64, 40
	loc := boundaryLoc()
	loc2 := loc.Offset(10, 0, w, h)
	var (
		mu      sync.Mutex
		got     []Result
		asked   uint64 // the second request's number, once made
		after   []Result
		stopped = make(chan struct{})
	)
	var wk *Worker
	wk = NewWorker(New(&cpu.Renderer{}), time.Millisecond, func(r Result) {
		mu.Lock()
		defer mu.Unlock()
		if r.Err != nil {
			t.Errorf("render error: %v", r.Err)
		}
		if asked != 0 {
			after = append(after, r)
			if r.Req.Seq == asked && r.Samples == AccumulateN*AccumulateN {
				close(stopped)
			}
			return
		}
		got = append(got, r)
		if r.Samples == ShowAfter+1 {
			// input while the first view accumulates (on the worker's goroutine: the
			// worker is between samples)
			asked = wk.Request(loc2, w, h, false)
		}
	})
	wk.SetAccumulate(AccumulateN)
	defer wk.Close()
	first := wk.Request(loc, w, h, false)
	select {
	case <-stopped:
	case <-time.After(60 * time.Second):
		t.Fatal("the second view did not reach 16 samples")
	}
	mu.Lock()
	defer mu.Unlock()
	// the first view: its full frame, then samples 1 .. ShowAfter+1 (images from ShowAfter)
	var samples []int
	for _, r := range got {
		if r.Req.Seq != first {
			t.Fatalf("a result for request %d before the second request", r.Req.Seq)
		}
		if r.Samples > 0 {
			samples = append(samples, r.Samples)
			if r.SamplesOf != AccumulateN*AccumulateN || (r.Image != nil) != (r.Samples >= ShowAfter) {
				t.Errorf("samples result %d/%d, image %v", r.Samples, r.SamplesOf, r.Image != nil)
			}
		}
	}
	if len(samples) != ShowAfter+1 || samples[0] != 1 || samples[ShowAfter] != ShowAfter+1 {
		t.Errorf("the first view delivered samples %v, want 1..%d", samples, ShowAfter+1)
	}
	if got[0].Samples != 0 || got[0].Image == nil {
		t.Errorf("the first result is not the full frame")
	}
	var second []int
	for _, r := range after {
		if r.Req.Seq != asked {
			t.Errorf("after the new request, a result of request %d (samples %d)", r.Req.Seq, r.Samples)
		}
		if r.Samples > 0 {
			second = append(second, r.Samples)
		}
	}
	if len(second) != AccumulateN*AccumulateN || second[0] != 1 {
		t.Errorf("the second view delivered samples %v, want 1..%d", second, AccumulateN*AccumulateN)
	}
}

// BenchmarkAccumulate1280x720 renders the 16 samples of a shallow view at 1280x720 on the
// CPU renderer and reports samples per second (the window's target: 16 within 10 s).
func BenchmarkAccumulate1280x720(b *testing.B) {
	loc := testLoc()
	s := New(&cpu.Renderer{})
	order := SampleOrder(AccumulateN)
	k := 0
	start := time.Now()
	for b.Loop() {
		p := order[k%len(order)]
		k++
		img, err := s.Sample(context.Background(), loc, 1280, 720, p.X, p.Y, AccumulateN, nil)
		if err != nil || img == nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(k)/time.Since(start).Seconds(), "samples/s")
}
