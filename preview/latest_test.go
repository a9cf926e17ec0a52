package preview

import (
	"context"
	"image"
	"sync"
	"testing"
	"time"

	"mandelscope/fractal"
)

// gateRenderer blocks each render until released (or its context ends), records the frames
// it was asked for and how many ran at once.
type gateRenderer struct {
	mu      sync.Mutex
	frames  []fractal.Frame
	running int
	most    int
	started chan struct{}
	gate    chan struct{}
}

func (g *gateRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	g.mu.Lock()
	g.frames = append(g.frames, f)
	g.running++
	g.most = max(g.most, g.running)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.running--
		g.mu.Unlock()
	}()
	g.started <- struct{}{}
	select {
	case <-g.gate:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Latest renders the newest request only: those that come while a render runs replace each
// other, one render at a time, and the result is the newest request's.
func TestLatestRendersTheNewest(t *testing.T) {
	g := &gateRenderer{started: make(chan struct{}, 8), gate: make(chan struct{})}
	results := make(chan Result, 8)
	l := NewLatest(g, func(r Result) { results <- r })
	defer l.Close()
	base := testLoc()
	if seq := l.Request(base, 0, 10); seq != 0 {
		t.Errorf("empty size: request %d, want none", seq)
	}
	l.Request(base, 64, 48)
	waitStarted(t, g)
	var last uint64
	var want fractal.Location
	for i := 1; i <= 5; i++ {
		want = base.Offset(float64(7*i), 0, 64, 48)
		last = l.Request(want, 64, 48)
	}
	if d := l.Dropped(); d != 4 {
		t.Errorf("dropped %d stale requests, want 4", d)
	}
	g.gate <- struct{}{} // the first render ends
	first := <-results
	if first.Err != nil || first.Image == nil || first.Image.Rect.Dx() != 64 || first.Image.Rect.Dy() != 48 {
		t.Fatalf("first result: %+v", first)
	}
	waitStarted(t, g)
	g.gate <- struct{}{}
	second := <-results
	if second.Req.Seq != last || second.Req.Loc.String() != want.String() {
		t.Errorf("second render is request %d (%v), want the newest %d (%v)", second.Req.Seq, second.Req.Loc, last, want)
	}
	g.mu.Lock()
	n, most := len(g.frames), g.most
	g.mu.Unlock()
	if n != 2 || most != 1 {
		t.Errorf("%d renders, at most %d at once; want 2, 1", n, most)
	}
}

// Close cancels the render in progress, delivers nothing more, waits for the goroutine and
// ignores later requests; a Latest never asked for anything closes at once.
func TestLatestClose(t *testing.T) {
	NewLatest(&gateRenderer{}, func(Result) { t.Error("delivered without a request") }).Close()

	g := &gateRenderer{started: make(chan struct{}, 8), gate: make(chan struct{})}
	l := NewLatest(g, func(r Result) { t.Errorf("delivered %+v after Close", r.Req) })
	l.Request(testLoc(), 32, 32)
	waitStarted(t, g)
	l.Request(testLoc().Offset(3, 0, 32, 32), 32, 32) // waiting: dropped by Close
	l.Close()                                         // returns only once the render was cancelled
	l.Close()
	if seq := l.Request(testLoc(), 32, 32); seq != 0 {
		t.Errorf("request after Close: %d", seq)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.frames) != 1 || g.running != 0 {
		t.Errorf("%d renders, %d running after Close; want 1, 0", len(g.frames), g.running)
	}
}

// An invalid location is an error delivered, not a render.
func TestLatestInvalid(t *testing.T) {
	g := &gateRenderer{started: make(chan struct{}, 8), gate: make(chan struct{})}
	results := make(chan Result, 1)
	l := NewLatest(g, func(r Result) { results <- r })
	defer l.Close()
	bad := testLoc()
	bad.Re = fractal.MustDecimal("9")
	l.Request(bad, 16, 16)
	if r := <-results; r.Err == nil || r.Image != nil {
		t.Errorf("invalid location: %+v", r)
	}
}

func waitStarted(t *testing.T, g *gateRenderer) {
	t.Helper()
	select {
	case <-g.started:
	case <-time.After(60 * time.Second):
		t.Fatal("the renderer was not called")
	}
}
