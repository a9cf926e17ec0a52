package preview

import (
	"context"
	"errors"
	"image"
	"sync"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// slowFull is the estimated time past which a full frame of a new view starts with a quick
// reduced frame.
const slowFull = 150 * time.Millisecond

// DefaultIdle is how long input must stop before the worker refines to full resolution.
const DefaultIdle = 150 * time.Millisecond

// Request is one render the worker is asked for.
type Request struct {
	Loc         fractal.Location
	W, H        int
	Interactive bool   // render at reduced resolution, then refine when input stops
	Seq         uint64 // increasing number given by the worker
}

// Result is a render handed to the worker's deliver function: a finished frame, or with
// Partial set, a full-resolution frame in progress (Done of it rendered, the rest showing the
// interactive frame before it), or with Reference set, no image but the progress of the
// reference orbit the request's deep view needs (Done of it computed).
type Result struct {
	Req       Request
	Image     *image.RGBA
	Stats     FrameStats
	Err       error
	Partial   bool
	Reference bool
	Done      float64
	// Escapes, when the worker samples escape counts (SetSampling), is the sample of a
	// full-resolution request's escape counts, delivered on its own (no image) before the
	// frame is rendered, so that the iterations can be corrected before the costly part.
	// It is taken with the iterations SetSampling's function gives (Escapes.Iterations), at
	// least the request's.
	Escapes *EscapeSample
	// Samples, when not 0, says that this many samples per pixel of the request's view, of
	// SamplesOf, have been accumulated (SetAccumulate): Image, when not nil, is their mean,
	// the picture at rest refined (the first few come without one).
	Samples, SamplesOf int
}

// Worker renders requests one at a time on its own goroutine. At most one request waits:
// a newer one replaces it (the stale one is dropped), and the work in progress that a newer
// request makes stale is cancelled at once: a full-resolution render, or the reference orbit
// of a deep view that the newer request does not share (an interactive frame past its
// reference is quick and is finished, so that a drag keeps showing frames). After an
// interactive request, once no request has come for Idle, it renders the latest one at full
// resolution. A full request for a new view that will take a while (an estimate over
// slowFull, or a deep view that needed a new reference orbit) shows a reduced frame first.
// A request that changes only the colouring of the view at rest is answered from the data
// kept of its picture, nothing rendered (recolour.go).
type Worker struct {
	s       *Scheduler
	deliver func(Result)
	idle    time.Duration

	mu      sync.Mutex
	pending *Request
	latest  Request // the newest request seen
	seq     uint64
	// autoDensity is the automatic density chosen last from a full frame (followDensity; 0
	// before any): requests of an automatic density are drawn in it.
	autoDensity float64
	wake        chan struct{}
	timer       *time.Timer
	closed      bool
	done        chan struct{}
	busy        bool
	dropped     int
	cur         Request                    // the request in progress (while busy)
	inRef       bool                       // cur is computing its reference orbit
	cancel      context.CancelFunc         // cancels cur
	sample      func(fractal.Location) int // iterations to sample full requests' escape counts with
	accumN      int                        // samples per side accumulated at rest (0 or 1: none)

	last    *image.RGBA // the last image delivered, and its request
	lastReq Request
	lastRef *fractal.Reference // the reference orbit of the last deep frame

	keptReq  *Request      // (mu) the view whose data is kept, nil when none
	restReq  *Request      // (mu) the view at rest (its picture kept), nil when none
	cache    viewCache     // the views left (cache.go)
	recolour *Request      // (mu) the newest colour-only request not yet answered
	rwake    chan struct{} // wakes recolourLoop
	rdone    chan struct{} // closed when recolourLoop has returned
	rmu      sync.Mutex    // guards kept, held through each colour pass and its delivery
	kept     *kept         // the data of the view at rest (recolour.go)
	// equal is the histogram colouring's equalisation made last from a full frame
	// (followDensity; nil: none yet), which later requests colour with until their own
	// frame's counts are known.
	equal *colour.Equalisation
}

// NewWorker starts a worker that renders through s and hands each finished frame to
// deliver (called on the worker's goroutine). idle <= 0 means DefaultIdle.
func NewWorker(s *Scheduler, idle time.Duration, deliver func(Result)) *Worker {
	if idle <= 0 {
		idle = DefaultIdle
	}
	w := &Worker{s: s, deliver: deliver, idle: idle, wake: make(chan struct{}, 1), done: make(chan struct{}),
		rwake: make(chan struct{}, 1), rdone: make(chan struct{})}
	go w.loop()
	go w.recolourLoop()
	return w
}

// Request asks for loc at width x height; interactive asks for a quick reduced frame with a
// full-resolution refine when input stops. It returns the request's sequence number. A
// request that changes only the colouring of the view at rest, whose data the worker keeps,
// is answered by colouring that data anew (interactive or not): nothing is rendered, and the
// accumulation in progress goes on in the new colouring.
//
// A request of a view in the cache (or of the view at rest) is answered from it as a full
// request, interactive or not: its picture shows at once (cache.go).
func (w *Worker) Request(loc fractal.Location, width, height int, interactive bool) uint64 {
	return w.request(loc, width, height, interactive, false)
}

// RequestPlace is Request for a new place (Go to Location, a bookmark, the history): a full
// request that cancels whatever work is in progress, the reference orbit of an interactive
// frame included.
func (w *Worker) RequestPlace(loc fractal.Location, width, height int) uint64 {
	return w.request(loc, width, height, false, true)
}

func (w *Worker) request(loc fractal.Location, width, height int, interactive, place bool) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0
	}
	w.seq++
	if loc.Color.AutoDensity && w.autoDensity > 0 {
		loc.Color.Density = w.autoDensity // the automatic density chosen last (followDensity)
	}
	if loc.Color.IsHistogram() && loc.Color.Equal == nil {
		// The counts of the last full frame (followDensity), until this one's are known.
		loc.Color.Equal = w.equal
	}
	r := Request{Loc: loc, W: width, H: height, Interactive: interactive, Seq: w.seq}
	if w.recolourOnly(r) {
		r.Interactive = false
		w.latest = r
		w.recolour = &r
		select {
		case w.rwake <- struct{}{}:
		default:
		}
		return r.Seq
	}
	if r.Interactive && w.servable(r) {
		r.Interactive, interactive = false, false // whole at once: nothing to refine
	}
	if w.pending != nil {
		w.dropped++
	}
	w.pending = &r
	w.latest = r
	if w.busy && (place || w.staleBy(r)) {
		w.cancel()
	}
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if interactive {
		seq := r.Seq
		w.timer = time.AfterFunc(w.idle, func() { w.refine(seq) })
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
	return r.Seq
}

// staleBy reports whether the newer request r makes the work in progress not worth
// finishing (w.mu held): a full frame, or a reference orbit that r (another zoom or
// iteration count: not a pan, which keeps an orbit in reach, nor the refine of the same
// view) will not use.
func (w *Worker) staleBy(r Request) bool {
	if !w.cur.Interactive {
		return true
	}
	return w.inRef && !(r.Loc.Zoom.Equal(w.cur.Loc.Zoom) && r.Loc.Iterations == w.cur.Loc.Iterations)
}

// SetSampling turns on (limit not nil) or off the sampling of full requests' escape counts
// (Result.Escapes): limit gives, for a request's location, the iterations to sample with
// (at least the request's are used; sampling further ahead lets one sample answer for
// higher counts). It is called on the worker's goroutine.
func (w *Worker) SetSampling(limit func(fractal.Location) int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sample = limit
}

// SetAccumulate sets the samples per side that the picture at rest accumulates (n x n; 0
// or 1 turns it off): once a full-resolution frame is delivered and no request waits, the
// worker renders the view's samples one by one in SampleOrder (Scheduler.Sample) and
// delivers the count after each (Result.Samples), with their running mean from the
// ShowAfter-th on. A new request stops it at once.
func (w *Worker) SetAccumulate(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.accumN = n
}

// refine queues the full-resolution render of request seq if nothing newer came since.
func (w *Worker) refine(seq uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.latest.Seq != seq {
		return
	}
	w.seq++
	r := w.latest
	r.Interactive = false
	r.Seq = w.seq
	w.latest = r
	w.pending = &r
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Dropped returns how many requests were replaced before they were rendered.
func (w *Worker) Dropped() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// Recolourable reports whether a request of loc at width x height would be answered by
// colouring the kept data of the view at rest anew (Request's recolour: nothing rendered), as
// a change of its colouring alone is when the worker holds that view's data and has nothing
// else to do first.
func (w *Worker) Recolourable(loc fractal.Location, width, height int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.recolourOnly(Request{Loc: loc, W: width, H: height})
}

// Idle reports whether the worker has nothing pending or in progress.
func (w *Worker) Idle() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending == nil && !w.busy
}

// Close stops the worker after the render in progress and waits for it; every call waits,
// the second included.
func (w *Worker) Close() {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		<-w.done
		return
	}
	w.closed = true
	w.pending = nil
	if w.timer != nil {
		w.timer.Stop()
	}
	if w.busy {
		w.cancel()
	}
	w.mu.Unlock()
	close(w.wake)
	close(w.rwake)
	<-w.done
	<-w.rdone
}

func (w *Worker) loop() {
	defer close(w.done)
	for range w.wake {
		for {
			w.mu.Lock()
			if w.closed || w.pending == nil {
				w.mu.Unlock()
				break
			}
			r := *w.pending
			w.pending = nil
			w.keptReq = nil // the view at rest changes: its data answers no colouring
			ctx, cancel := context.WithCancel(context.Background())
			w.busy, w.cur, w.cancel, w.inRef = true, r, cancel, true
			sample, n := w.sample, w.accumN
			w.mu.Unlock()
			w.leave() // the view at rest goes into the cache

			if !w.fromCache(ctx, r, n) {
				res, data := w.render(ctx, r, sample)
				if res.Err == nil && res.Image != nil && data.data != nil && !r.Interactive {
					r, res = w.followDensity(r, res, data.data)
				}
				kept := res.Err == nil && res.Image != nil && !r.Interactive && w.keep(r, res.Image, data, n)
				if res.Err != nil || res.Image != nil {
					w.deliver(res)
				}
				if res.Err == nil && res.Image != nil && !r.Interactive && n > 1 {
					w.accumulate(ctx, r, n, kept)
				}
			}
			cancel()
			w.mu.Lock()
			w.busy = false
			w.mu.Unlock()
		}
	}
}

// followDensity chooses an automatic density from a full frame's data (colour.Coloring.
// FollowDensity: from the one chosen before, with hysteresis) and the histogram colouring's
// equalisation (colour.Coloring.Equalise: the frame's own counts), and, when that changes the
// colouring, colours the frame again in it. The request and result come back in the colouring
// drawn; later requests of an automatic density are drawn in it (Request), and the window
// learns it from the result's request (its exports and bookmarks then record the number).
func (w *Worker) followDensity(r Request, res Result, data *colour.Data) (Request, Result) {
	c := r.Loc.Color.FollowDensity(data).Equalise(data)
	if c == r.Loc.Color {
		return r, res
	}
	k, err := colour.NewColourer(c)
	if err != nil {
		return r, res
	}
	img := image.NewRGBA(res.Image.Rect)
	k.Paint(img, data)
	r.Loc.Color = c
	res.Req, res.Image = r, img
	w.mu.Lock()
	if c.AutoDensity {
		w.autoDensity = c.Density
	}
	if c.IsHistogram() {
		w.equal = c.Equal
	}
	w.mu.Unlock()
	w.last, w.lastReq = img, r
	w.s.recoloured(img, r.Loc) // what the next interactive frame starts from
	return r, res
}

// AutoDensity is the automatic density the worker chose last from a full frame (0 before
// any).
func (w *Worker) AutoDensity() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.autoDensity
}

// render does request r: the reference orbit of a deep view first (its progress delivered),
// then for a full request the sample of escape counts (when sampling is on), then the frame;
// a cancelled render gives a Result with neither image nor error. A full frame comes with its
// data when the renderer gives it, taking what it can from the data of the views cached
// (exact.go).
func (w *Worker) render(ctx context.Context, r Request, sample func(fractal.Location) int) (Result, computed) {
	res := Result{Req: r}
	progress := func(done, total int) {
		if done < total {
			w.deliver(Result{Req: r, Reference: true, Done: float64(done) / float64(total)})
		}
	}
	full := fractal.NewFrame(r.Loc, r.W, r.H)
	var sf fractal.Frame // the frame sampled, with more iterations: its orbit serves full's
	if sample != nil && !r.Interactive {
		sf = full
		sf.Loc.Iterations = min(max(sample(r.Loc), r.Loc.Iterations), fractal.MaxIterations)
		var err error
		if sf, err = w.s.Reference(ctx, sf, progress); err != nil {
			sample = nil // full's own orbit below reports the error, or the cancellation
		}
	}
	full, err := w.s.Reference(ctx, full, progress)
	w.mu.Lock()
	w.inRef = false
	w.mu.Unlock()
	if err != nil {
		if ctx.Err() == nil {
			res.Err = err
		}
		return res, computed{}
	}
	newRef := full.Ref != nil && full.Ref != w.lastRef
	if full.Ref != nil {
		w.lastRef = full.Ref
	}
	if r.Interactive {
		res.Image, res.Stats, res.Err = w.s.Interactive(ctx, r.Loc, r.W, r.H)
		if res.Err == nil && res.Image != nil {
			w.last, w.lastReq = res.Image, r
		}
		return res, computed{}
	}
	o := FullOptions{
		Stale: func() bool {
			w.mu.Lock()
			defer w.mu.Unlock()
			return w.closed || w.pending != nil
		},
		Progress: func(img *image.RGBA, done float64) {
			w.last, w.lastReq = img, r // what a repeated request of this view starts from
			w.deliver(Result{Req: r, Image: img, Partial: true, Done: done})
		},
	}
	if sample != nil && !r.Interactive {
		es, err := SampleEscapes(ctx, sf, sampleCols, sampleRows)
		if err != nil {
			return res, computed{} // cancelled
		}
		w.deliver(Result{Req: r, Escapes: &es})
	}
	if w.last != nil && w.lastReq.W == r.W && w.lastReq.H == r.H && w.lastReq.Loc.String() == r.Loc.String() {
		o.Base = w.last
	} else if est := w.s.FullEstimateFor(r.Loc.Iterations, r.W, r.H); newRef || est > slowFull || full.Ref != nil && est == 0 {
		// A new view that will take a while: show a quick reduced frame first (at least 1/4
		// per side for a deep view whose cost the estimate has not seen yet).
		sc := w.s.ChooseScaleFor(r.Loc.Iterations, r.W, r.H)
		if newRef || est == 0 {
			sc = max(sc, 4)
		}
		img, st, err := w.s.InteractiveAt(ctx, r.Loc, r.W, r.H, sc)
		if err == nil && img != nil {
			w.last, w.lastReq = img, r
			w.deliver(Result{Req: r, Image: img, Stats: st, Partial: true})
			o.Base = img
		}
	}
	var data computed
	res.Image, data, res.Stats, res.Err = w.s.fullData(ctx, r.Loc, r.W, r.H, o, w.cache.computedOf(-1, 0))
	if res.Err == nil && res.Image != nil {
		w.last, w.lastReq = res.Image, r
	}
	return res, data
}

// accumulate renders the n x n samples of request r's view in SampleOrder and after each
// delivers the count (Result.Samples), with their running mean as the image from the
// ShowAfter-th on (or the last, when fewer; before, no image); it stops, delivering nothing
// more, as soon as a request waits or ctx is cancelled. With data (the full frame's data is
// kept: the renderer gives it and it fits KeepBudget) it computes the samples' data and keeps it (addSample), in the colouring of the
// newest colour-only request; should the renderer give no data from then on, the samples so
// far are coloured into pictures and the rest rendered.
func (w *Worker) accumulate(ctx context.Context, r Request, n int, data bool) {
	stale := func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.closed || w.pending != nil
	}
	order := SampleOrder(n)
	var acc *Accumulator
	start := 0 // the samples kept already (a view from the cache goes on from them)
	if !data {
		acc = NewAccumulator(r.W, r.H)
	} else {
		w.rmu.Lock()
		if w.kept != nil {
			start = len(w.kept.samples)
		}
		w.rmu.Unlock()
	}
	for k, p := range order {
		if k < start {
			continue
		}
		if ctx.Err() != nil || stale() {
			return
		}
		if acc == nil {
			d, err := w.s.sampleData(ctx, r.Loc, r.W, r.H, p.X, p.Y, n, stale, w.cache.computedOf(k, len(order)))
			switch {
			case errors.Is(err, ErrNoData):
				if acc, r = w.keptPictures(r); acc == nil {
					return
				}
			case err != nil:
				w.deliver(Result{Req: r, Err: err})
				return
			case d.data == nil || !w.addSample(r, d):
				return
			default:
				continue
			}
		}
		img, err := w.s.Sample(ctx, r.Loc, r.W, r.H, p.X, p.Y, n, stale)
		if err != nil {
			w.deliver(Result{Req: r, Err: err})
			return
		}
		if img == nil {
			return
		}
		if err := acc.Add(img); err != nil {
			w.deliver(Result{Req: r, Err: err})
			return
		}
		res := Result{Req: r, Samples: k + 1, SamplesOf: len(order)}
		if k+1 >= min(ShowAfter, len(order)) {
			res.Image = acc.Mean()
			res.Stats = FrameStats{Scale: 1, Width: r.W, Height: r.H, RenderW: r.W, RenderH: r.H, Block: 1, BlockP95: 1}
			w.restPicture(r, res.Image, k+1)
		}
		w.deliver(res)
	}
}

// keptPictures turns the kept samples of r's view into an Accumulator of their pictures, in
// the colouring of the newest request of the view (returned with it), and forgets the data:
// the renderer gives no more of it. Nil when the data kept is not r's view.
func (w *Worker) keptPictures(r Request) (*Accumulator, Request) {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	k := w.kept
	if k == nil || k.full == nil || !sameView(k.req, r) {
		return nil, r
	}
	col, err := colour.NewColourer(k.req.Loc.Color)
	if err != nil {
		return nil, r
	}
	acc := NewAccumulator(r.W, r.H)
	img := image.NewRGBA(image.Rect(0, 0, r.W, r.H))
	for _, d := range k.samples {
		col.Paint(img, d)
		_ = acc.Add(img) // the size matches
	}
	k.dropData() // its picture stays
	w.mu.Lock()
	w.keptReq = nil
	w.mu.Unlock()
	return acc, k.req
}

// restPicture makes img, the mean of samples samples of r's view, the picture of the view at
// rest when that is r's.
func (w *Worker) restPicture(r Request, img *image.RGBA, samples int) {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	if k := w.kept; k != nil && sameView(k.req, r) {
		k.pic, k.picN = img, samples
	}
}
