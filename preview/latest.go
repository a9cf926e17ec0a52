package preview

import (
	"context"
	"image"
	"sync"

	"mandelscope/fractal"
)

// Latest renders small pictures that follow the pointer (the window's Julia inset): one at a
// time, on a goroutine of its own started with the first request, always the newest request.
// At most one request waits; a newer one replaces it (the stale one is dropped, never
// rendered), so work never queues up and the pictures come at the rate the renderer draws
// them. The render in progress is finished (it is small, and a moving pointer keeps seeing
// pictures), unless Close cancels it.
type Latest struct {
	r       Renderer
	deliver func(Result)

	mu      sync.Mutex
	pending *Request
	seq     uint64
	started bool
	closed  bool
	dropped int
	cancel  context.CancelFunc // cancels the render in progress (Close)
	wake    chan struct{}
	done    chan struct{}
}

// NewLatest makes a Latest that renders through r and hands each picture (or error) to
// deliver, on its goroutine. No goroutine runs until the first request.
func NewLatest(r Renderer, deliver func(Result)) *Latest {
	return &Latest{r: r, deliver: deliver, cancel: func() {}, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// Request asks for loc at width x height, replacing the request still waiting (if any); it
// returns the request's sequence number (increasing), or 0 after Close or for an empty size.
// It never blocks on rendering.
func (l *Latest) Request(loc fractal.Location, width, height int) uint64 {
	if width < 1 || height < 1 {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0
	}
	if l.pending != nil {
		l.dropped++
	}
	l.seq++
	l.pending = &Request{Loc: loc, W: width, H: height, Seq: l.seq}
	if !l.started {
		l.started = true
		go l.loop()
	}
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return l.seq
}

// Dropped is how many requests were replaced by newer ones before they were rendered.
func (l *Latest) Dropped() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dropped
}

// Close drops the waiting request, cancels the render in progress and waits for the
// goroutine to end; every call waits, and requests after it are ignored.
func (l *Latest) Close() {
	l.mu.Lock()
	first := !l.closed
	if first {
		l.closed = true
		l.pending = nil
		l.cancel()
		close(l.wake)
	}
	started := l.started
	l.mu.Unlock()
	if started {
		<-l.done
	}
}

func (l *Latest) loop() {
	defer close(l.done)
	for range l.wake {
		for {
			l.mu.Lock()
			if l.closed || l.pending == nil {
				l.mu.Unlock()
				break
			}
			r := *l.pending
			l.pending = nil
			ctx, cancel := context.WithCancel(context.Background())
			l.cancel = cancel
			l.mu.Unlock()

			img := image.NewRGBA(image.Rect(0, 0, r.W, r.H))
			var err error
			if err = r.Loc.Validate(); err == nil {
				err = l.r.Render(ctx, fractal.NewFrame(r.Loc, r.W, r.H), img.Rect, img)
			}
			cancelled := ctx.Err() != nil
			cancel()
			if cancelled {
				continue // Close: nothing more is delivered
			}
			res := Result{Req: r, Err: err}
			if err == nil {
				res.Image = img
			}
			l.deliver(res)
		}
	}
}
