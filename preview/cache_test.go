package preview

import (
	"bytes"
	"context"
	"image"
	"sync"
	"testing"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// finish requests loc at w x h and waits for its picture at rest with all n x n samples; it
// returns that result and its index.
func finish(rs *results, wk *Worker, loc fractal.Location, w, h, n, from int) (Result, int) {
	seq := wk.Request(loc, w, h, false)
	return rs.wait("the view at rest", from, func(r Result) bool {
		return r.Req.Seq == seq && r.Image != nil && (n < 2 || r.Samples == n*n)
	})
}

// otherView is boundaryLoc panned by 5 pixels of a w x h view.
func otherView(w, h int) fractal.Location { return boundaryLoc().Offset(5, 0, w, h) }

// Going to view A, then B, then back to A shows A's picture byte for byte as it was, its 16
// samples included, with nothing rendered or computed; in another colouring, A's data
// coloured anew equals a fresh render in that colouring, still with nothing computed. An
// interactive request of a cached view is answered the same way, whole.
func TestWorkerCacheRevisits(t *testing.T) {
	const w, h = 48, 30
	all := AccumulateN * AccumulateN
	r := &countingRenderer{}
	rs := newResults(t)
	wk := NewWorker(New(r), time.Hour, rs.deliver)
	wk.SetAccumulate(AccumulateN)
	defer wk.Close()
	a, b := boundaryLoc(), otherView(w, h)
	resA, i := finish(rs, wk, a, w, h, AccumulateN, 0)
	_, i = finish(rs, wk, b, w, h, AccumulateN, i+1)
	before := r.calls()

	for _, interactive := range []bool{false, true} {
		seq := wk.Request(a, w, h, interactive)
		res, j := rs.wait("A again", i+1, func(r Result) bool { return r.Req.Seq == seq && r.Image != nil })
		if !res.Stats.Cached || res.Stats.Scale != 1 || res.Req.Interactive || res.Samples != all || res.SamplesOf != all {
			t.Errorf("interactive %v: A again: cached %v scale %d interactive %v samples %d/%d", interactive,
				res.Stats.Cached, res.Stats.Scale, res.Req.Interactive, res.Samples, res.SamplesOf)
		}
		if !bytes.Equal(res.Image.Pix, resA.Image.Pix) {
			t.Errorf("interactive %v: A from the cache differs from A's picture", interactive)
		}
		if n := r.calls(); n != before {
			t.Fatalf("interactive %v: %d renders to return to A", interactive, n-before)
		}
		_, i = finish(rs, wk, b, w, h, AccumulateN, j+1) // B from the cache in turn
	}
	l := a
	l.Color = colour.Coloring{Palette: "fire", Density: 2, Method: colour.MethodSlopes, Light: 30}
	seq := wk.Request(l, w, h, false)
	res, _ := rs.wait("A in another colouring", i+1, func(r Result) bool { return r.Req.Seq == seq && r.Image != nil })
	if !res.Stats.Cached || res.Samples != all || !bytes.Equal(res.Image.Pix, freshMean(t, l, w, h, AccumulateN).Pix) {
		t.Errorf("A recoloured from the cache: cached %v samples %d, or its picture differs from a fresh one", res.Stats.Cached, res.Samples)
	}
	if n := r.calls(); n != before {
		t.Errorf("%d renders to recolour A from the cache", n-before)
	}
	if views, data, _ := wk.CacheStats(); views != 1 || data != 1 {
		t.Errorf("cache: %d views, %d with data; want B's", views, data)
	}
}

// Under a budget that holds the view at rest and one more view's data, the least recently
// used view loses its data and keeps its complete picture (which still answers its own
// colouring, not another); under one too small for any picture the views go.
func TestWorkerCacheEvictsLeastRecent(t *testing.T) {
	const w, h, n = 40, 24, 2
	r := &countingRenderer{}
	rs := newResults(t)
	wk := NewWorker(New(r), time.Hour, rs.deliver)
	wk.SetAccumulate(n)
	defer wk.Close()
	wk.SetCacheBudget(2*keptBytes(w, h, n, true) + 4*w*h + 100) // C at rest, B, A's picture
	a, b, c := boundaryLoc(), otherView(w, h), boundaryLoc().Offset(0, 7, w, h)
	resA, i := finish(rs, wk, a, w, h, n, 0)
	_, i = finish(rs, wk, b, w, h, n, i+1)
	_, i = finish(rs, wk, c, w, h, n, i+1)
	views, data, used := wk.CacheStats()
	if views != 2 || data != 1 || used > keptBytes(w, h, n, true)+4*w*h {
		t.Fatalf("cache: %d views, %d with data, %d bytes; want A's picture and B's data", views, data, used)
	}
	before := r.calls()
	resA2, i := finish(rs, wk, a, w, h, n, i+1)
	if !resA2.Stats.Cached || !bytes.Equal(resA2.Image.Pix, resA.Image.Pix) || r.calls() != before {
		t.Errorf("A's picture alone: cached %v, same picture %v, %d renders", resA2.Stats.Cached,
			bytes.Equal(resA2.Image.Pix, resA.Image.Pix), r.calls()-before)
	}
	l := c
	l.Color.Palette = "fire"
	// C, at rest before A, is in the cache with its data; A's picture in another colouring
	// is not usable: it renders.
	_, i = finish(rs, wk, c, w, h, n, i+1)
	before = r.calls()
	la := a
	la.Color.Palette = "fire"
	res, _ := finish(rs, wk, la, w, h, n, i+1)
	if res.Stats.Cached || r.calls() == before {
		t.Errorf("A's picture answered another colouring (cached %v, %d renders)", res.Stats.Cached, r.calls()-before)
	}
	wk.SetCacheBudget(keptBytes(w, h, n, true) + 1)
	if views, _, used := wk.CacheStats(); views != 0 || used != 0 {
		t.Errorf("under a budget for the view at rest alone: %d views, %d bytes cached", views, used)
	}
}

// A view left partway through its accumulation keeps its samples: back to it, its picture
// so far shows at once and the accumulation goes on from there, computing only the samples
// it lacked, to the picture a fresh render gives.
func TestWorkerCacheGoesOnAccumulating(t *testing.T) {
	const w, h = 48, 30
	all := AccumulateN * AccumulateN
	const at = 6 // samples A has when B is asked for
	hold, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	r := &countingRenderer{}
	s := New(r)
	s.Bands = 1 // one Compute per frame: A's full frame is the 1st, sample k the (k+1)-th
	r.gate = func(n int64) {
		if n == at+2 {
			once.Do(func() { close(hold) })
			<-release
		}
	}
	rs := newResults(t)
	wk := NewWorker(s, time.Hour, rs.deliver)
	wk.SetAccumulate(AccumulateN)
	defer wk.Close()
	a, b := boundaryLoc(), otherView(w, h)
	wk.Request(a, w, h, false)
	<-hold
	seqB := wk.Request(b, w, h, false) // cancels sample at+1
	close(release)
	_, i := rs.wait("B at rest", 0, func(r Result) bool { return r.Req.Seq == seqB && r.Samples == all })
	before := r.computes.Load()
	seq := wk.Request(a, w, h, false)
	res, _ := rs.wait("A from the cache", i+1, func(r Result) bool { return r.Req.Seq == seq && r.Image != nil })
	if !res.Stats.Cached || res.Samples != at || res.SamplesOf != all {
		t.Errorf("A from the cache: cached %v samples %d/%d, want %d/%d", res.Stats.Cached, res.Samples, res.SamplesOf, at, all)
	}
	last, _ := rs.wait("A's 16 samples", i+1, func(r Result) bool { return r.Req.Seq == seq && r.Samples == all })
	if n := r.computes.Load() - before; n != int64(all-at) {
		t.Errorf("%d computes to finish A, want %d", n, all-at)
	}
	if !bytes.Equal(last.Image.Pix, freshMean(t, a, w, h, AccumulateN).Pix) {
		t.Errorf("A's accumulation, gone on from the cache, differs from a fresh one")
	}
}

// A view within rounding of one the worker holds (a burst of wheel notches in and back out)
// snaps to it, in its own colouring; a view a pixel away does not, nor one whose iterations
// the caller refuses.
func TestWorkerSnap(t *testing.T) {
	const w, h = 48, 30
	rs := newResults(t)
	wk := NewWorker(New(&countingRenderer{}), time.Hour, rs.deliver)
	defer wk.Close()
	a := boundaryLoc()
	finish(rs, wk, a, w, h, 1, 0)
	any := func(int) bool { return true }
	round := a.ZoomAt(10.5, 3.5, WheelStep, w, h).ZoomAt(10.5, 3.5, 1/WheelStep, w, h)
	round.Color.Palette = "fire"
	if viewKey(round) == viewKey(a) {
		t.Logf("the round trip came back exactly")
	}
	if s, ok := wk.Snap(round, w, h, any); viewKey(s) != viewKey(a) || s.Color != round.Color || ok == (viewKey(round) == viewKey(a)) {
		t.Errorf("snap of %s: %s %v, want %s", round, s, ok, a)
	}
	if _, ok := wk.Snap(a.Offset(1, 0, w, h), w, h, any); ok {
		t.Errorf("a view a pixel away snapped")
	}
	if _, ok := wk.Snap(round, w, h, func(int) bool { return false }); ok {
		t.Errorf("snapped to refused iterations")
	}
	if _, ok := wk.Snap(round, w+1, h, any); ok {
		t.Errorf("snapped to another size")
	}
	// Another set at the same place (the window's F, or J at a view centred where the
	// Julia set's home is) is another picture: it never snaps to the one held.
	ship := round
	ship.Formula = fractal.Formula{Kind: fractal.BurningShip}
	if s, ok := wk.Snap(ship, w, h, any); ok {
		t.Errorf("the Burning Ship at the same place snapped to %s", s)
	}
	julia := round
	julia.Julia = fractal.JuliaParam{On: true, Re: fractal.MustDecimal("0"), Im: fractal.MustDecimal("1")}
	if s, ok := wk.Snap(julia, w, h, any); ok {
		t.Errorf("a Julia set at the same place snapped to %s", s)
	}
	// Another escape radius or stripe parameter (the window's Colouring pop-up) is other
	// data at the same place: it never snaps to the data held.
	for _, set := range []func(*fractal.Location){
		func(l *fractal.Location) { l.Bailout = 1000 },
		func(l *fractal.Location) { l.StripeDensity = 7 },
		func(l *fractal.Location) { l.StripeLast = 3 },
	} {
		o := round
		set(&o)
		if s, ok := wk.Snap(o, w, h, any); ok {
			t.Errorf("%s snapped to %s", o, s)
		}
	}
}

// BenchmarkCachedView1280x720x16 is the time to show a cached 1280x720 view with its 4 x 4
// samples of deep data: in the colouring it had (its picture as it was) and in another (its
// data coloured anew), fromCache from the cache's lookup to the delivery.
func BenchmarkCachedView1280x720x16(b *testing.B) {
	const w, h = 1280, 720
	all := AccumulateN * AccumulateN
	for _, tc := range []struct {
		name   string
		colour []colour.Coloring // the colourings asked for in turn
	}{
		{"same-colouring", []colour.Coloring{boundaryLoc().Color}},
		{"recoloured", []colour.Coloring{{Palette: "fire", Density: 0.003}, {Palette: "classic", Density: 0.003, Method: colour.MethodSlopes}}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			req := Request{Loc: boundaryLoc(), W: w, H: h}
			req.Loc.Color = tc.colour[len(tc.colour)-1]
			k := &kept{req: req, full: deepData(w, h, 0), of: all, sum: make([]uint32, 3*w*h)}
			for i := range all {
				k.samples = append(k.samples, deepData(w, h, uint64(i+1)))
			}
			if err := k.colourIn(req); err != nil {
				b.Fatal(err)
			}
			wk := &Worker{s: New(&renderOnly{}), deliver: func(Result) {}}
			ctx := context.Background()
			b.ReportMetric(float64(k.Bytes())/1e6, "cached-MB")
			wk.cache.put(k)
			i := 0
			for b.Loop() {
				r := req
				r.Loc.Color = tc.colour[i%len(tc.colour)]
				i++
				if !wk.fromCache(ctx, r, AccumulateN) {
					b.Fatal("not in the cache")
				}
				wk.leave()
			}
		})
	}
}

// Issue 31, item 5: the cache's accounted bytes are everything its entries hold (pictures,
// data, and the reference orbits with their BLA tables that the entries' frames keep, each
// counted once however many entries share it), and they stay within its budget less the
// view at rest's reserve as views come in, lose their data and go.
func TestCacheAccountsEverything(t *testing.T) {
	const w, h = 48, 30
	s := New(nil)
	var frames []fractal.Frame
	for _, c := range [][2]string{{"-0.743643887037151", "0.131825904205330"}, {"-1.7497591451303665", "0"}} {
		l := fractal.Home()
		l.Re, l.Im, l.Zoom, l.Iterations = fractal.MustDecimal(c[0]), fractal.MustDecimal(c[1]), fractal.MustDecimal("1e20"), 20000
		f, err := s.Reference(context.Background(), fractal.NewFrame(l, w, h), nil)
		if err != nil || f.Ref == nil {
			t.Fatalf("no reference orbit: %v", err)
		}
		f.BLA() // its table is held too
		frames = append(frames, f)
	}
	refBytes := frames[0].Ref.Bytes()
	if refBytes < 16*20000 {
		t.Fatalf("a reference of 20,000 iterations takes %d bytes", refBytes)
	}
	entry := func(i int, data bool) *kept {
		l := boundaryLoc().Offset(float64(i), 0, w, h)
		k := &kept{req: Request{Loc: l, W: w, H: h}, of: 4, picN: 4, pic: image.NewRGBA(image.Rect(0, 0, w, h))}
		if data {
			f := frames[i%2]
			k.full, k.fullAt = colour.NewData(image.Rect(0, 0, w, h)), &f
			for range 4 {
				k.samples = append(k.samples, colour.NewData(image.Rect(0, 0, w, h)))
				k.sampleAt = append(k.sampleAt, &f)
			}
			k.sum = make([]uint32, 4*w*h)
		}
		return k
	}
	// What the entries hold, counted here on its own.
	held := func(c *viewCache) int64 {
		n := int64(0)
		refs := map[*fractal.Reference]bool{}
		for e := c.order.Front(); e != nil; e = e.Next() {
			k := e.Value.(*kept)
			n += int64(len(k.pic.Pix))
			if k.full != nil {
				n += sampleSize*int64(w*h)*int64(1+len(k.samples)) + 4*int64(len(k.sum))
				for _, f := range append([]*fractal.Frame{k.fullAt}, k.sampleAt...) {
					refs[f.Ref] = true
				}
			}
		}
		for r := range refs {
			n += r.Bytes()
		}
		return n
	}
	dataBytes := int64(4*w*h) + sampleSize*int64(w*h*5+w*h)
	c := &viewCache{budget: 2*refBytes + 5*dataBytes}
	c.setReserve(dataBytes)
	for i := range 12 {
		c.put(entry(i, i%3 != 2))
		views, withData, bytes := c.stats()
		if want := held(c); bytes != want {
			t.Fatalf("after %d views: %d bytes accounted, %d held (%d views, %d with data)", i+1, bytes, want, views, withData)
		}
		if room := c.limit() - c.reserve; bytes > room {
			t.Fatalf("after %d views: %d bytes, over the %d the budget leaves", i+1, bytes, room)
		}
	}
	if _, withData, _ := c.stats(); withData == 0 || withData > 3 {
		t.Errorf("%d views with data: the reference orbits should leave room for a few", withData)
	}
	for e := c.order.Front(); e != nil; e = c.order.Front() {
		c.remove(e)
	}
	if _, _, bytes := c.stats(); bytes != 0 {
		t.Errorf("empty cache: %d bytes accounted", bytes)
	}
}
