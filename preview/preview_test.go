package preview

import (
	"context"
	"image"
	"math"
	"testing"
	"time"

	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

func testLoc() fractal.Location {
	l := fractal.Home()
	l.Re = fractal.MustDecimal("-0.7436438870371")
	l.Im = fractal.MustDecimal("0.1318259042053")
	l.Zoom = fractal.MustDecimal("300")
	l.Iterations = 400
	return l
}

// The reduced frame's pixel centres fall on the centres of the full image's sc x sc blocks,
// also when the view's sides are not multiples of sc.
func TestReducedFrameLinesUp(t *testing.T) {
	loc := testLoc()
	for _, c := range []struct{ w, h, sc int }{{101, 67, 3}, {160, 90, 2}, {97, 203, 4}, {1280, 720, 6}, {640, 480, 1}} {
		full := fractal.NewFrame(loc, c.w, c.h)
		f := ReducedFrame(loc, c.w, c.h, c.sc)
		if f.W != ceilDiv(c.w, c.sc) || f.H != ceilDiv(c.h, c.sc) {
			t.Fatalf("%+v: reduced size %dx%d", c, f.W, f.H)
		}
		for _, p := range []image.Point{{0, 0}, {f.W - 1, 0}, {0, f.H - 1}, {f.W - 1, f.H - 1}, {f.W / 2, f.H / 3}} {
			re, im := f.Point64(p.X, p.Y)
			// the full image's continuous position of the block centre
			bx := float64(p.X*c.sc) + float64(c.sc)/2
			by := float64(p.Y*c.sc) + float64(c.sc)/2
			wre := full.Re + (bx-float64(c.w)/2)*full.Spacing
			wim := full.Im + (float64(c.h)/2-by)*full.Spacing
			if d := math.Max(math.Abs(re-wre), math.Abs(im-wim)); d > 1e-6*full.Spacing {
				t.Errorf("%+v pixel %v: c = %g%+gi, want %g%+gi (off by %.3g pixels)", c, p, re, im, wre, wim, d/full.Spacing)
			}
		}
	}
}

func TestScaleUp(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for i := range src.Pix {
		src.Pix[i] = uint8(i)
	}
	dst := image.NewRGBA(image.Rect(0, 0, 8, 5)) // 3*3 > 8, 2*3 > 5: clipped blocks
	ScaleUp(dst, src, 3)
	for y := range 5 {
		for x := range 8 {
			if got, want := dst.RGBAAt(x, y), src.RGBAAt(x/3, y/3); got != want {
				t.Fatalf("pixel %d,%d = %v, want %v", x, y, got, want)
			}
		}
	}
}

// Interactive output has the view's size, and at an odd scale each block's centre pixel
// matches a full-resolution render of the same pixel.
func TestInteractiveMatchesFull(t *testing.T) {
	loc := testLoc()
	loc.Zoom = fractal.MustDecimal("2e4") // double precision in both frames: float32 rounding would differ
	const w, h = 151, 95
	s := New(&cpu.Renderer{})
	img, st, err := s.InteractiveAt(context.Background(), loc, w, h, 3)
	if err != nil {
		t.Fatal(err)
	}
	if img.Rect.Dx() != w || img.Rect.Dy() != h || st.Width != w || st.Height != h {
		t.Fatalf("interactive image %v, stats %dx%d; want %dx%d", img.Rect, st.Width, st.Height, w, h)
	}
	if st.Scale != 3 || st.RenderW != 51 || st.RenderH != 32 || !st.Interactive {
		t.Fatalf("stats %+v", st)
	}
	full, fst, err := s.Full(context.Background(), loc, w, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fst.Scale != 1 || fst.Interactive || full.Rect.Dx() != w || full.Rect.Dy() != h {
		t.Fatalf("full stats %+v, image %v", fst, full.Rect)
	}
	n, bad := 0, 0
	for y := 1; y < h; y += 3 {
		for x := 1; x < w; x += 3 {
			n++
			a, b := img.RGBAAt(x, y), full.RGBAAt(x, y)
			if absDiff(a.R, b.R) > 6 || absDiff(a.G, b.G) > 6 || absDiff(a.B, b.B) > 6 {
				bad++
			}
		}
	}
	if bad*50 > n {
		t.Errorf("%d of %d block centres differ from the full render", bad, n)
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// A full frame rendered in bands is pixel-identical to a one-piece render.
func TestFullBandsIdentical(t *testing.T) {
	loc := testLoc()
	const w, h = 120, 77
	r := &cpu.Renderer{}
	one := image.NewRGBA(image.Rect(0, 0, w, h))
	if err := r.Render(context.Background(), fractal.NewFrame(loc, w, h), one.Rect, one); err != nil {
		t.Fatal(err)
	}
	s := New(r)
	s.Bands = 7
	img, st, err := s.Full(context.Background(), loc, w, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.PixelsRendered != w*h {
		t.Errorf("rendered %d pixels, want %d", st.PixelsRendered, w*h)
	}
	for i := range one.Pix {
		if one.Pix[i] != img.Pix[i] {
			t.Fatalf("banded full frame differs at byte %d", i)
		}
	}
}

func TestFullStale(t *testing.T) {
	s := New(&cpu.Renderer{})
	s.Bands = 4
	calls := 0
	img, st, err := s.Full(context.Background(), testLoc(), 64, 48, func() bool { calls++; return calls > 2 })
	if err != nil || img != nil || !st.Canceled {
		t.Fatalf("stale full frame: img %v, stats %+v, err %v; want canceled", img != nil, st, err)
	}
	if st.PixelsRendered != 64*24 {
		t.Errorf("rendered %d pixels before giving up, want two bands (%d)", st.PixelsRendered, 64*24)
	}
}

func TestEmptySize(t *testing.T) {
	s := New(&cpu.Renderer{})
	if _, _, err := s.Interactive(context.Background(), testLoc(), 0, 10); err == nil {
		t.Error("Interactive at 0x10: no error")
	}
	if _, _, err := s.Full(context.Background(), testLoc(), 10, 0, nil); err == nil {
		t.Error("Full at 10x0: no error")
	}
}

// The scale follows the measured cost: slow frames choose a coarser scale, fast ones full.
func TestChooseScale(t *testing.T) {
	s := New(&cpu.Renderer{})
	if sc := s.ChooseScale(1280, 720); sc != 3 {
		t.Errorf("unmeasured scale %d, want 3", sc)
	}
	s.observe(time.Millisecond, 1280*720, 0) // ~1 ns a pixel: full resolution fits
	if sc := s.ChooseScale(1280, 720); sc != 1 {
		t.Errorf("fast renderer: scale %d, want 1", sc)
	}
	s.Reset()
	s.observe(100*time.Millisecond, 1000, 0) // 100 us a pixel: even 1/16 is too slow
	if sc := s.ChooseScale(1280, 720); sc != 16 {
		t.Errorf("very slow renderer: scale %d, want 16", sc)
	}
	s.Reset()
	s.observe(24*time.Millisecond, 640*360, 0) // 1/2 just fits
	if sc := s.ChooseScale(1280, 720); sc != 2 {
		t.Errorf("scale %d, want 2", sc)
	}
	// Only a full frame measured (as after a renderer switch): its cost guides the choice.
	s.Reset()
	if _, _, err := s.Full(context.Background(), testLoc(), 64, 48, nil); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.fullNsPerPx = float64(time.Millisecond) / 100 // 10 us a pixel
	s.mu.Unlock()
	if sc := s.ChooseScale(1280, 720); sc != 16 {
		t.Errorf("slow full frames only: scale %d, want 16", sc)
	}
	s.MaxScale = 4
	s.Reset()
	s.observe(100*time.Millisecond, 1000, 0)
	if sc := s.ChooseScale(1280, 720); sc != 4 {
		t.Errorf("MaxScale 4: scale %d", sc)
	}
}

// blockRenderer is a fake renderer that waits for a signal before each render and says on
// called when a render starts.
type blockRenderer struct {
	gate   chan struct{}
	called chan struct{}
}

func (b *blockRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	select {
	case b.called <- struct{}{}:
	default:
	}
	if b.gate != nil {
		<-b.gate
	}
	return nil
}

// The worker keeps at most one pending request (newer ones replace it), renders the latest,
// and refines it at full resolution once requests stop.
func TestWorkerCoalescesAndRefines(t *testing.T) {
	br := &blockRenderer{gate: make(chan struct{}), called: make(chan struct{}, 1)}
	s := New(br)
	s.Bands = 1
	results := make(chan Result, 16)
	wk := NewWorker(s, 20*time.Millisecond, func(r Result) { results <- r })
	defer wk.Close()

	base := testLoc()
	locs := make([]fractal.Location, 5)
	for i := range locs {
		locs[i] = base.Offset(float64(10*i), 0, 200, 100)
	}
	wk.Request(locs[0], 200, 100, true)
	select { // the first render is in progress, blocked
	case <-br.called:
	case <-time.After(10 * time.Second):
		t.Fatal("the renderer was not called")
	}
	for _, l := range locs[1:] {
		wk.Request(l, 200, 100, true)
	}
	if d := wk.Dropped(); d != 3 {
		t.Errorf("dropped %d stale requests, want 3", d)
	}
	close(br.gate) // let everything through
	first := recv(t, results)
	if !first.Req.Interactive || !first.Req.Loc.Re.Equal(locs[0].Re) {
		t.Fatalf("first result %+v, want the interactive render of the first request", first.Req)
	}
	second := recv(t, results)
	if !second.Req.Interactive || !second.Req.Loc.Re.Equal(locs[4].Re) {
		t.Fatalf("second result is for %s, want the latest request %s", second.Req.Loc.Re, locs[4].Re)
	}
	if second.Image.Rect.Dx() != 200 || second.Image.Rect.Dy() != 100 {
		t.Errorf("interactive result is %v, want the view's 200x100", second.Image.Rect)
	}
	refine := recv(t, results)
	if refine.Req.Interactive || refine.Stats.Scale != 1 || !refine.Req.Loc.Re.Equal(locs[4].Re) {
		t.Fatalf("third result %+v (scale %d), want the full-resolution refine of the latest", refine.Req, refine.Stats.Scale)
	}
	settle(t, wk)
	select {
	case r := <-results:
		t.Fatalf("unexpected extra result %+v", r.Req)
	default:
	}
}

// A non-interactive request is rendered once at full resolution, with no refine after it.
func TestWorkerFullRequest(t *testing.T) {
	s := New(&cpu.Renderer{})
	results := make(chan Result, 4)
	wk := NewWorker(s, 10*time.Millisecond, func(r Result) { results <- r })
	defer wk.Close()
	wk.Request(testLoc(), 90, 61, false)
	r := recv(t, results)
	if r.Err != nil || r.Stats.Scale != 1 || r.Image.Rect.Dx() != 90 || r.Image.Rect.Dy() != 61 {
		t.Fatalf("result %+v err %v", r.Stats, r.Err)
	}
	settle(t, wk)
	select {
	case r := <-results:
		t.Fatalf("unexpected extra result %+v", r.Req)
	default:
	}
}

func recv(t *testing.T, ch chan Result) Result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no result from the worker")
	}
	return Result{}
}

// Progress reports of a full frame show the rendered bands over the base picture.
func TestFullProgress(t *testing.T) {
	loc := testLoc()
	const w, h = 90, 64
	s := New(&cpu.Renderer{})
	s.Bands = 4
	base := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range base.Pix {
		base.Pix[i] = 77
	}
	var dones []float64
	var partials []*image.RGBA
	img, _, err := s.FullWith(context.Background(), loc, w, h, FullOptions{Base: base, Every: -1, Progress: func(p *image.RGBA, done float64) {
		dones = append(dones, done)
		partials = append(partials, p)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(dones) != 3 || dones[0] != 0.25 || dones[1] != 0.5 || dones[2] != 0.75 {
		t.Fatalf("progress %v, want 0.25 0.5 0.75", dones)
	}
	for i, p := range partials {
		split := h * (i + 1) / 4
		for y := 0; y < h; y++ {
			row := p.Pix[y*p.Stride : y*p.Stride+w*4]
			want := img.Pix[y*img.Stride : y*img.Stride+w*4]
			if y >= split {
				want = base.Pix[y*base.Stride : y*base.Stride+w*4]
			}
			for x := range row {
				if row[x] != want[x] {
					t.Fatalf("report %d, row %d: not the %s", i, y, map[bool]string{true: "base", false: "rendered band"}[y >= split])
				}
			}
		}
	}
	for i := range img.Pix {
		if img.Pix[i] == 77 && i%4 != 3 {
			// a channel may legitimately be 77; make sure not all of a pixel is the base
			if img.Pix[i-i%4] == 77 && img.Pix[i-i%4+1] == 77 && img.Pix[i-i%4+2] == 77 {
				t.Fatalf("final frame shows the base at byte %d", i)
			}
		}
	}
}

// A full request for a new view that will be slow starts with a quick reduced frame, which
// the full frame's progress reports then build on.
func TestWorkerSlowFullStartsWithPreview(t *testing.T) {
	s := New(&cpu.Renderer{})
	s.observe(time.Second, 1000, 0) // 1 ms a pixel: any full frame is slow
	results := make(chan Result, 64)
	wk := NewWorker(s, time.Hour, func(r Result) { results <- r })
	defer wk.Close()
	wk.Request(testLoc(), 40, 30, false)
	first := recv(t, results)
	if !first.Partial || first.Stats.Scale < 2 || first.Image.Rect.Dx() != 40 || first.Image.Rect.Dy() != 30 {
		t.Fatalf("first result: partial %v, scale %d, %v; want a reduced preview at the view's size", first.Partial, first.Stats.Scale, first.Image.Rect)
	}
	for {
		r := recv(t, results)
		if !r.Partial {
			if r.Stats.Scale != 1 || r.Req.Interactive {
				t.Fatalf("final result scale %d, interactive %v", r.Stats.Scale, r.Req.Interactive)
			}
			return
		}
	}
}

// ctxRenderer blocks every render of a frame at zoom block until its ctx is cancelled, and
// draws the others at once.
type ctxRenderer struct {
	block   string
	started chan struct{}
}

func (c *ctxRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if f.Loc.Zoom.String() != c.block {
		return nil
	}
	select {
	case c.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return ctx.Err()
}

// A newer request cancels a full-resolution render in progress at once (the renderer's ctx
// ends), and only the newer one is delivered.
func TestWorkerCancelsStaleFullFrame(t *testing.T) {
	slow := testLoc()
	slow.Zoom = fractal.MustDecimal("3")
	cr := &ctxRenderer{block: "3", started: make(chan struct{}, 1)}
	s := New(cr)
	s.Bands = 1
	results := make(chan Result, 16)
	wk := NewWorker(s, time.Hour, func(r Result) { results <- r })
	defer wk.Close()
	wk.Request(slow, 64, 48, false)
	select {
	case <-cr.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the full frame did not start")
	}
	fast := testLoc()
	seq := wk.Request(fast, 64, 48, false) // blocks forever unless the first is cancelled
	for {
		r := recv(t, results)
		if r.Req.Loc.Zoom.String() == "3" && !r.Partial {
			t.Fatalf("the stale frame was delivered: %+v", r.Stats)
		}
		if r.Req.Seq == seq && !r.Partial {
			if r.Err != nil || r.Image == nil {
				t.Fatalf("newer frame: %v", r.Err)
			}
			return
		}
	}
}

// A deep view's reference orbit is computed before its frame, its progress delivered; a
// request for another zoom cancels it at once.
func TestWorkerReferenceProgressAndCancel(t *testing.T) {
	// The cusp c = 1/4 at zoom 1e20: its orbit neither escapes nor settles on a cycle (it
	// creeps towards the parabolic fixed point 1/2), so the reference runs to the iteration
	// count (2,000,000: long enough for progress reports).
	deep := testLoc()
	deep.Re, deep.Im, deep.Zoom = fractal.MustDecimal("0.25"), fractal.MustDecimal("0"), fractal.MustDecimal("1e20")
	deep.Iterations = 2_000_000
	if p := fractal.NewFrame(deep, 64, 48).Precision(); p != fractal.Perturbation {
		t.Fatalf("the deep view is %v", p)
	}
	s := New(&blockRenderer{})
	results := make(chan Result, 64)
	wk := NewWorker(s, time.Hour, func(r Result) { results <- r })
	defer wk.Close()
	wk.Request(deep, 64, 48, false)
	r := recv(t, results)
	if !r.Reference || r.Image != nil || r.Done <= 0 || r.Done >= 1 {
		t.Fatalf("first result: reference %v, done %g, image %v; want the orbit's progress", r.Reference, r.Done, r.Image != nil)
	}
	shallow := testLoc()
	seq := wk.Request(shallow, 64, 48, false)
	late := 0 // progress reports of the deep orbit after the newer request: one may be under way
	for {
		r := recv(t, results)
		if r.Req.Seq == seq && !r.Partial && !r.Reference {
			break
		}
		if r.Req.Seq != seq {
			if !r.Reference {
				t.Fatal("the deep view's frame was delivered after a newer request")
			}
			late++
		}
	}
	if late > 1 {
		t.Errorf("the deep orbit reported progress %d more times after a newer request: not cancelled", late)
	}
}

// With sampling on, a full request's escape counts come first, on their own, then its frame;
// interactive requests are not sampled.
func TestWorkerSamplesBeforeTheFrame(t *testing.T) {
	s := New(&cpu.Renderer{})
	results := make(chan Result, 16)
	wk := NewWorker(s, time.Hour, func(r Result) { results <- r })
	defer wk.Close()
	wk.SetSampling(func(l fractal.Location) int { return 3 * l.Iterations })
	wk.Request(testLoc(), 90, 61, true)
	if r := recv(t, results); r.Escapes != nil || r.Image == nil {
		t.Fatalf("interactive request: escapes %v, image %v", r.Escapes, r.Image != nil)
	}
	wk.Request(testLoc(), 90, 61, false)
	first := recv(t, results)
	if first.Escapes == nil || first.Image != nil || first.Escapes.Pixels != sampleCols*sampleRows ||
		first.Escapes.Iterations != 3*testLoc().Iterations || len(first.Escapes.Counts) != sampleCols*sampleRows {
		t.Fatalf("first result of a full request: escapes %+v, image %v; want a sample with 3 times the iterations", first.Escapes, first.Image != nil)
	}
	for {
		r := recv(t, results)
		if r.Escapes != nil {
			t.Fatal("a second sample")
		}
		if !r.Partial {
			if r.Image == nil || r.Err != nil {
				t.Fatalf("final result: %v", r.Err)
			}
			return
		}
	}
}

// The cost estimates follow the iterations up: a frame with 100 times the iterations of the
// measured ones is estimated 100 times slower (and gets a coarser interactive scale), one
// with fewer is not estimated faster.
func TestEstimatesFollowIterations(t *testing.T) {
	s := New(nil)
	s.observe(10*time.Millisecond, 1280*720, 200)
	base := s.FullEstimateFor(200, 1280, 720)
	if base <= 0 {
		t.Fatal("no estimate")
	}
	if got := s.FullEstimateFor(20000, 1280, 720); got != 100*base {
		t.Errorf("estimate at 100 times the iterations: %v, want %v", got, 100*base)
	}
	if got := s.FullEstimateFor(50, 1280, 720); got != base {
		t.Errorf("estimate at fewer iterations: %v, want %v", got, base)
	}
	if lo, hi := s.ChooseScaleFor(200, 1280, 720), s.ChooseScaleFor(20000, 1280, 720); hi <= lo {
		t.Errorf("interactive scale %d at 200 iterations, %d at 20000: want coarser", lo, hi)
	}
}
