package preview

import (
	"image"
	"sync"
	"time"

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
// interactive frame before it).
type Result struct {
	Req     Request
	Image   *image.RGBA
	Stats   FrameStats
	Err     error
	Partial bool
	Done    float64
}

// Worker renders requests one at a time on its own goroutine. At most one request waits:
// a newer one replaces it (the stale one is dropped), and a full-resolution render in
// progress stops at its next band when a newer request arrives. After an interactive
// request, once no request has come for Idle, it renders the latest one at full resolution.
type Worker struct {
	s       *Scheduler
	deliver func(Result)
	idle    time.Duration

	mu      sync.Mutex
	pending *Request
	latest  Request // the newest request seen
	seq     uint64
	wake    chan struct{}
	timer   *time.Timer
	closed  bool
	done    chan struct{}
	busy    bool
	dropped int

	last    *image.RGBA // the last image delivered, and its request
	lastReq Request
}

// NewWorker starts a worker that renders through s and hands each finished frame to
// deliver (called on the worker's goroutine). idle <= 0 means DefaultIdle.
func NewWorker(s *Scheduler, idle time.Duration, deliver func(Result)) *Worker {
	if idle <= 0 {
		idle = DefaultIdle
	}
	w := &Worker{s: s, deliver: deliver, idle: idle, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.loop()
	return w
}

// Request asks for loc at width x height; interactive asks for a quick reduced frame with a
// full-resolution refine when input stops. It returns the request's sequence number.
func (w *Worker) Request(loc fractal.Location, width, height int, interactive bool) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0
	}
	w.seq++
	r := Request{Loc: loc, W: width, H: height, Interactive: interactive, Seq: w.seq}
	if w.pending != nil {
		w.dropped++
	}
	w.pending = &r
	w.latest = r
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
	w.mu.Unlock()
	close(w.wake)
	<-w.done
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
			w.busy = true
			w.mu.Unlock()

			var res Result
			res.Req = r
			if r.Interactive {
				res.Image, res.Stats, res.Err = w.s.Interactive(r.Loc, r.W, r.H)
			} else {
				o := FullOptions{
					Stale: func() bool {
						w.mu.Lock()
						defer w.mu.Unlock()
						return w.closed || w.pending != nil
					},
					Progress: func(img *image.RGBA, done float64) {
						w.deliver(Result{Req: r, Image: img, Partial: true, Done: done})
					},
				}
				if w.last != nil && w.lastReq.W == r.W && w.lastReq.H == r.H && w.lastReq.Loc.String() == r.Loc.String() {
					o.Base = w.last
				} else if w.s.FullEstimate(r.W, r.H) > slowFull {
					// A new view that will take a while: show a quick reduced frame first.
					img, st, err := w.s.Interactive(r.Loc, r.W, r.H)
					if err == nil {
						w.deliver(Result{Req: r, Image: img, Stats: st, Partial: true})
						o.Base = img
					}
				}
				res.Image, res.Stats, res.Err = w.s.FullWith(r.Loc, r.W, r.H, o)
			}
			if res.Err == nil && res.Image != nil {
				w.last, w.lastReq = res.Image, r
			}
			if res.Err != nil || res.Image != nil {
				w.deliver(res)
			}
			w.mu.Lock()
			w.busy = false
			w.mu.Unlock()
		}
	}
}
