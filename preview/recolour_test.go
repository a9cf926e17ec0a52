package preview

import (
	"bytes"
	"context"
	"image"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// countingRenderer is the CPU renderer counting its calls; gate, when set, is called before
// every Compute with its number (1 for the first).
type countingRenderer struct {
	cpu.Renderer
	renders, computes atomic.Int64
	gate              func(n int64)
}

func (c *countingRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	c.renders.Add(1)
	return c.Renderer.Render(ctx, f, rect, dst)
}

func (c *countingRenderer) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	n := c.computes.Add(1)
	if c.gate != nil {
		c.gate(n)
	}
	return c.Renderer.Compute(ctx, f, rect, dst)
}

func (c *countingRenderer) calls() int64 { return c.renders.Load() + c.computes.Load() }

// renderOnly is the CPU renderer without Compute: today's path, pixels only.
type renderOnly struct{ r cpu.Renderer }

func (r *renderOnly) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	return r.r.Render(ctx, f, rect, dst)
}

// noData answers Compute with ErrNoData, as the window's renderer does for a renderer that
// gives no data.
type noData struct{ renderOnly }

func (r *noData) Compute(context.Context, fractal.Frame, image.Rectangle, *colour.Data) error {
	return ErrNoData
}

// A full frame and a sample computed as data and coloured are byte for byte the pictures
// rendered as before (pixels only, no derivative), in a colouring that reads the derivative
// and in one that does not; a renderer whose Compute says ErrNoData renders them.
func TestDataPicturesAreRendered(t *testing.T) {
	const w, h = 53, 31
	ctx := context.Background()
	for _, c := range []colour.Coloring{colour.DefaultColoring, {Palette: "fire", Density: 2, Method: colour.MethodSlopes, Light: 30}} {
		loc := boundaryLoc()
		loc.Color = c
		want, _, err := New(&renderOnly{}).FullWith(ctx, loc, w, h, FullOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, data, _, err := New(&cpu.Renderer{}).FullData(ctx, loc, w, h, FullOptions{})
		if err != nil || data == nil {
			t.Fatalf("FullData: %v (data %v)", err, data != nil)
		}
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%+v: the full frame computed then coloured differs from the one rendered", c)
		}
		if s := data.At(w/2, h/2); !s.Inside() && !(s.DE() > 0) {
			t.Errorf("the full frame's data has no derivative: %+v", s)
		}
		nd, ndData, _, err := New(&noData{}).FullData(ctx, loc, w, h, FullOptions{})
		if err != nil || ndData != nil || !bytes.Equal(nd.Pix, want.Pix) {
			t.Errorf("without data: err %v, data %v, same picture %v", err, ndData != nil, err == nil && bytes.Equal(nd.Pix, want.Pix))
		}
		wantS, err := New(&renderOnly{}).Sample(ctx, loc, w, h, 0, 1, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := New(&cpu.Renderer{}).SampleData(ctx, loc, w, h, 0, 1, 4, nil)
		if err != nil || d == nil {
			t.Fatalf("SampleData: %v", err)
		}
		k, _ := colour.NewColourer(c)
		gotS := image.NewRGBA(wantS.Rect)
		k.Paint(gotS, d)
		if !bytes.Equal(gotS.Pix, wantS.Pix) {
			t.Errorf("%+v: a sample computed then coloured differs from the one rendered", c)
		}
		if _, err := New(&noData{}).SampleData(ctx, loc, w, h, 0, 1, 4, nil); err != ErrNoData {
			t.Errorf("SampleData without data: %v, want ErrNoData", err)
		}
	}
}

// results collects a worker's results and lets a test wait for one.
type results struct {
	t  *testing.T
	mu sync.Mutex
	rs []Result
	ch chan struct{}
}

func newResults(t *testing.T) *results { return &results{t: t, ch: make(chan struct{}, 1)} }

func (rs *results) deliver(r Result) {
	if r.Err != nil {
		rs.t.Errorf("worker error: %v", r.Err)
	}
	rs.mu.Lock()
	rs.rs = append(rs.rs, r)
	rs.mu.Unlock()
	select {
	case rs.ch <- struct{}{}:
	default:
	}
}

// wait returns the first result from index from on that ok accepts, and its index.
func (rs *results) wait(what string, from int, ok func(Result) bool) (Result, int) {
	rs.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		rs.mu.Lock()
		for i := from; i < len(rs.rs); i++ {
			if ok(rs.rs[i]) {
				r := rs.rs[i]
				rs.mu.Unlock()
				return r, i
			}
		}
		rs.mu.Unlock()
		select {
		case <-rs.ch:
		case <-deadline:
			rs.t.Fatalf("no %s within 60 s", what)
		}
	}
}

func (rs *results) since(from int) []Result {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]Result(nil), rs.rs[from:]...)
}

// freshMean is the picture at rest of loc rendered anew as before data: the mean of its
// n x n samples rendered to pixels.
func freshMean(t *testing.T, loc fractal.Location, w, h, n int) *image.RGBA {
	return accumulateAll(t, New(&renderOnly{}), loc, w, h, n)
}

// A change of colouring only, once the view has accumulated its 16 samples, is answered by
// colouring the kept data: the picture equals a fresh render in the new colouring, byte for
// byte, nothing is computed or rendered, and the accumulation stays at 16/16. Another view
// renders again.
func TestWorkerRecoloursAtRest(t *testing.T) {
	const w, h = 48, 30
	all := AccumulateN * AccumulateN
	r := &countingRenderer{}
	rs := newResults(t)
	wk := NewWorker(New(r), time.Millisecond, rs.deliver)
	wk.SetAccumulate(AccumulateN)
	defer wk.Close()
	loc := boundaryLoc()
	wk.Request(loc, w, h, false)
	_, i := rs.wait("16 samples", 0, func(r Result) bool { return r.Samples == all })
	if got, want := wk.KeptBytes(), int(sampleSize)*w*h*(1+all)+4*3*w*h; got != want {
		t.Errorf("kept %d bytes, want %d", got, want)
	}
	before := r.calls()
	for _, c := range []colour.Coloring{
		{Palette: "fire", Density: 3, Offset: 0.25},
		{Palette: "ocean", Density: 0.5, Method: colour.MethodDistance, Width: 2},
		{Palette: "classic", Density: 1, Method: colour.MethodSlopes, Light: -40, Transfer: colour.TransferLog},
	} {
		l := loc
		l.Color = c
		seq := wk.Request(l, w, h, true) // a slider's change is interactive: no matter
		res, j := rs.wait("the recoloured picture", i+1, func(r Result) bool { return r.Req.Seq == seq })
		i = j
		if !res.Stats.Recoloured || res.Samples != all || res.SamplesOf != all || res.Image == nil {
			t.Fatalf("%+v: result recoloured %v, samples %d/%d, image %v", c, res.Stats.Recoloured, res.Samples, res.SamplesOf, res.Image != nil)
		}
		if n := r.calls(); n != before {
			t.Errorf("%+v: the recolour called the renderer %d times", c, n-before)
		}
		want := freshMean(t, l, w, h, AccumulateN)
		if !bytes.Equal(res.Image.Pix, want.Pix) {
			t.Errorf("%+v: the recoloured picture differs from a fresh one", c)
		}
	}
	settle(t, wk) // anything delivered after the recolours has been by now (nothing should be)
	if later := rs.since(i + 1); len(later) > 0 {
		t.Errorf("after the recolour, %d more results (samples %d)", len(later), later[0].Samples)
	}
	if n := r.calls(); n != before {
		t.Errorf("the renderer was called %d times after the recolours", n-before)
	}
	// Another view (iterations) is rendered.
	l := loc
	l.Iterations++
	seq := wk.Request(l, w, h, false)
	res, _ := rs.wait("the new view", i+1, func(r Result) bool { return r.Req.Seq == seq && r.Image != nil })
	if res.Stats.Recoloured || r.calls() == before {
		t.Errorf("another view was recoloured, not rendered")
	}
}

// A change of colouring while the view accumulates recolours the samples so far at once
// (the full frame before ShowAfter of them, their mean after), and the accumulation goes on
// in the new colouring to a picture byte for byte that of a fresh render in it.
func TestWorkerRecoloursWhileAccumulating(t *testing.T) {
	const w, h = 48, 30
	all := AccumulateN * AccumulateN
	for _, at := range []int{2, 6} { // samples done when the colouring changes
		hold, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		r := &countingRenderer{}
		r.Renderer.Workers = 2
		s := New(r)
		s.Bands = 1 // one Compute per frame: the full frame is the 1st, sample k the (k+1)-th
		r.gate = func(n int64) {
			if n == int64(at)+2 {
				once.Do(func() { close(hold) })
				<-release
			}
		}
		rs := newResults(t)
		wk := NewWorker(s, time.Millisecond, rs.deliver)
		wk.SetAccumulate(AccumulateN)
		loc := boundaryLoc()
		wk.Request(loc, w, h, false)
		<-hold // sample at+1 computing
		l := loc
		l.Color = colour.Coloring{Palette: "fire", Density: 2, Offset: 0.5, Method: colour.MethodDistance}
		seq := wk.Request(l, w, h, false)
		res, i := rs.wait("the recoloured picture", 0, func(r Result) bool { return r.Req.Seq == seq })
		if !res.Stats.Recoloured || res.Samples != at || res.SamplesOf != all {
			t.Fatalf("at %d: recoloured %v, samples %d/%d", at, res.Stats.Recoloured, res.Samples, res.SamplesOf)
		}
		// What it shows: the full frame until ShowAfter samples, then their mean.
		var want *image.RGBA
		if at < ShowAfter {
			want, _, _ = New(&renderOnly{}).FullWith(context.Background(), l, w, h, FullOptions{})
		} else {
			a := NewAccumulator(w, h)
			for _, p := range SampleOrder(AccumulateN)[:at] {
				img, _ := New(&renderOnly{}).Sample(context.Background(), l, w, h, p.X, p.Y, AccumulateN, nil)
				_ = a.Add(img)
			}
			want = a.Mean()
		}
		if !bytes.Equal(res.Image.Pix, want.Pix) {
			t.Errorf("at %d: the recoloured picture differs from a fresh one", at)
		}
		close(release)
		last, _ := rs.wait("16 samples", i, func(r Result) bool { return r.Samples == all })
		if last.Req.Seq != seq || !bytes.Equal(last.Image.Pix, freshMean(t, l, w, h, AccumulateN).Pix) {
			t.Errorf("at %d: the accumulation did not end in the new colouring (request %d, want %d)", at, last.Req.Seq, seq)
		}
		if n := r.computes.Load(); n != int64(1+all) || r.renders.Load() != 0 {
			t.Errorf("at %d: %d computes and %d renders, want %d and 0", at, n, r.renders.Load(), 1+all)
		}
		wk.Close()
	}
}

// A renderer that gives no data renders as before, and a change of colouring renders again.
func TestWorkerWithoutDataRenders(t *testing.T) {
	const w, h = 40, 24
	rs := newResults(t)
	wk := NewWorker(New(&noData{}), time.Millisecond, rs.deliver)
	wk.SetAccumulate(2)
	defer wk.Close()
	loc := boundaryLoc()
	wk.Request(loc, w, h, false)
	_, i := rs.wait("4 samples", 0, func(r Result) bool { return r.Samples == 4 })
	if wk.KeptBytes() != 0 {
		t.Errorf("data kept without a Computer")
	}
	l := loc
	l.Color.Palette = "fire"
	seq := wk.Request(l, w, h, false)
	res, _ := rs.wait("the new colouring", i+1, func(r Result) bool { return r.Req.Seq == seq && r.Samples == 4 })
	if res.Stats.Recoloured || !bytes.Equal(res.Image.Pix, freshMean(t, l, w, h, 2).Pix) {
		t.Errorf("recoloured %v, or the picture differs from a fresh one", res.Stats.Recoloured)
	}
}

// deepData is w x h realistic deep data: escape counts of 1e5 to 3e5 that vary smoothly
// with a little noise, about 5% of the pixels inside, and distance estimates with normals.
func deepData(w, h int, seed uint64) *colour.Data {
	d := colour.NewData(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(seed, 1))
	for y := range h {
		for x := range w {
			s := &d.Pix[y*w+x]
			if rng.Float64() < 0.05 {
				*s = colour.Sample{Nu: colour.Inside}
				continue
			}
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			s.Nu = 1e5 + 2e5*(0.5+0.5*math.Sin(7*fx+3*fy)*math.Cos(5*fy)) + 30*rng.Float64()
			a := rng.Float64() * 2 * math.Pi
			de := math.Exp(rng.NormFloat64())
			s.DEX, s.DEY = float32(de*math.Cos(a)), float32(de*math.Sin(a))
		}
	}
	return d
}

// BenchmarkRecolour1280x720x16 is the window's recolour of a view at rest at 1280x720 with
// its 4 x 4 samples of deep data (escape counts 1e5..3e5): the full frame painted (what the
// next drag starts from) and the 16 samples summed and averaged, as recolourKept does. It
// reports the memory the data takes (kept-MB).
func BenchmarkRecolour1280x720x16(b *testing.B) {
	const w, h = 1280, 720
	all := AccumulateN * AccumulateN
	k := &kept{req: Request{Loc: boundaryLoc(), W: w, H: h}, full: deepData(w, h, 0), of: all, sum: make([]uint32, 3*w*h)}
	for i := range all {
		k.samples = append(k.samples, deepData(w, h, uint64(i+1)))
	}
	wk := &Worker{s: New(&cpu.Renderer{}), kept: k, deliver: func(Result) {}}
	colourings := []colour.Coloring{
		{Palette: "fire", Density: 0.003},
		{Palette: "classic", Density: 0.003, Method: colour.MethodSlopes},
	}
	b.ReportMetric(float64(k.Bytes())/1e6, "kept-MB")
	i := 0
	for b.Loop() {
		r := k.req
		r.Loc.Color = colourings[i%len(colourings)]
		i++
		wk.recolourKept(r)
	}
}

// A view whose data would exceed KeepBudget keeps none: 1920x1080 with 4 x 4 samples fits,
// 2560x1440 does not.
func TestKeepBudget(t *testing.T) {
	if !keepable(1920, 1080, AccumulateN) || keepable(2560, 1440, AccumulateN) || !keepable(2560, 1440, 1) {
		t.Errorf("keepable: 1080p %v, 1440p %v, 1440p without samples %v", keepable(1920, 1080, AccumulateN),
			keepable(2560, 1440, AccumulateN), keepable(2560, 1440, 1))
	}
	wk := NewWorker(New(&cpu.Renderer{}), time.Millisecond, func(Result) {})
	defer wk.Close()
	r := Request{Loc: boundaryLoc(), W: 2560, H: 1440}
	if wk.keep(r, image.NewRGBA(image.Rect(0, 0, 1, 1)), computed{data: colour.NewData(image.Rect(0, 0, 1, 1))}, AccumulateN) || wk.KeptBytes() != 0 {
		t.Errorf("a 2560x1440 view's data was kept")
	}
}

// The angle and stripe colourings recolour the kept data as the others do, once it holds the
// orbit channels: between them (and to smooth at a radius other than 2) nothing is computed
// and the picture is a fresh render's; from data without the channels (smooth at radius 2)
// the view is computed again.
func TestWorkerRecoloursOrbitChannels(t *testing.T) {
	const w, h = 40, 24
	all := AccumulateN * AccumulateN
	r := &countingRenderer{}
	rs := newResults(t)
	wk := NewWorker(New(r), time.Millisecond, rs.deliver)
	wk.SetAccumulate(AccumulateN)
	defer wk.Close()
	loc := boundaryLoc()
	wk.Request(loc, w, h, false)
	_, i := rs.wait("16 samples", 0, func(r Result) bool { return r.Samples == all })
	before := r.calls()
	loc.Color = colour.Coloring{Palette: "fire", Density: 1, Method: colour.MethodAngle}
	seq := wk.Request(loc, w, h, false)
	res, i := rs.wait("the angle picture", i+1, func(r Result) bool { return r.Req.Seq == seq && r.Samples == all })
	if res.Stats.Recoloured || r.calls() == before {
		t.Fatal("data without the orbit channels was recoloured to the angle colouring")
	}
	before = r.calls()
	for _, c := range []colour.Coloring{
		{Palette: "ocean", Density: 0.5, Method: colour.MethodStripe, Strength: 0.5},
		{Palette: "classic", Density: 2, Method: colour.MethodAngle, Strength: 0.3},
	} {
		l := loc
		l.Color = c
		seq := wk.Request(l, w, h, true)
		res, j := rs.wait("the recoloured picture", i+1, func(r Result) bool { return r.Req.Seq == seq })
		i = j
		if !res.Stats.Recoloured || res.Image == nil {
			t.Fatalf("%+v: recoloured %v, image %v", c, res.Stats.Recoloured, res.Image != nil)
		}
		if n := r.calls(); n != before {
			t.Errorf("%+v: the recolour called the renderer %d times", c, n-before)
		}
		if want := freshMean(t, l, w, h, AccumulateN); !bytes.Equal(res.Image.Pix, want.Pix) {
			t.Errorf("%+v: the recoloured picture differs from a fresh one", c)
		}
	}
}

// A colouring of the inside needs data with the inside's cycles: the first change from a
// black inside computes the view again (it is not a recolour of data without them), and a
// change between the inside's colourings after that is a recolour; both pictures are a fresh
// render's, byte for byte.
func TestWorkerInteriorRecolours(t *testing.T) {
	const w, h = 48, 30
	all := AccumulateN * AccumulateN
	r := &countingRenderer{}
	rs := newResults(t)
	wk := NewWorker(New(r), time.Millisecond, rs.deliver)
	wk.SetAccumulate(AccumulateN)
	defer wk.Close()
	loc := fractal.Home()
	loc.Zoom, loc.Iterations = fractal.MustDecimal("1.5"), 300
	wk.Request(loc, w, h, false)
	_, i := rs.wait("16 samples", 0, func(r Result) bool { return r.Samples == all })
	for _, c := range []struct {
		interior   string
		recoloured bool
	}{{colour.InteriorPeriod, false}, {colour.InteriorMultiplier, true}} {
		l := loc
		l.Color.Interior = c.interior
		before := r.calls()
		seq := wk.Request(l, w, h, false)
		res, j := rs.wait(c.interior, i+1, func(r Result) bool { return r.Req.Seq == seq && r.Samples == all })
		i = j
		if res.Stats.Recoloured != c.recoloured || (r.calls() == before) != c.recoloured {
			t.Fatalf("%s: recoloured %v with %d renderer calls, want recoloured %v", c.interior, res.Stats.Recoloured, r.calls()-before, c.recoloured)
		}
		if want := freshMean(t, l, w, h, AccumulateN); !bytes.Equal(res.Image.Pix, want.Pix) {
			t.Errorf("%s: the picture differs from a fresh one", c.interior)
		}
	}
}
