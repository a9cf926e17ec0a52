package app

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"mandelscope/gradients"
)

// uiQueue is the test windows' UI dispatcher (Options.do). Fyne's test driver runs fyne.Do
// inline on the caller's goroutine, so the window's background work (render worker, prober,
// timers, file watch, exports) would touch the widgets concurrently with the test. Instead
// the calls are queued here and run on the test goroutine, when the test drains the queue
// (waitFor does), as the desktop driver runs them on its UI goroutine.
type uiQueue struct {
	mu   sync.Mutex
	fns  []func()
	wake chan struct{} // has a value after a call was queued
}

func newUIQueue() *uiQueue { return &uiQueue{wake: make(chan struct{}, 1)} }

// testUI is the dispatcher of every test window (the tests run one at a time).
var testUI = newUIQueue()

func (q *uiQueue) do(fn func()) {
	q.mu.Lock()
	q.fns = append(q.fns, fn)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// drain runs the queued calls, and those they queue, on the calling goroutine.
func (q *uiQueue) drain() {
	for {
		q.mu.Lock()
		fns := q.fns
		q.fns = nil
		q.mu.Unlock()
		if len(fns) == 0 {
			return
		}
		for _, fn := range fns {
			fn()
		}
	}
}

// drainOnce runs the calls queued now (not those they queue) on the calling goroutine: a
// loop that looks at the window between passes cannot be kept in here by work that queues
// itself (a held button's zoom steps, each queueing the next tick's, slower than the ticks
// under the race detector on a busy machine).
func (q *uiQueue) drainOnce() {
	q.mu.Lock()
	fns := q.fns
	q.fns = nil
	q.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// reset drops the calls still queued (those of a window that is gone).
func (q *uiQueue) reset() {
	q.mu.Lock()
	q.fns = nil
	q.mu.Unlock()
}

// waitFor runs the window's UI work as it arrives until ok holds, failing the test after 180 s
// (a deep probe under the race detector on two busy cores has taken 66 s; a passing test waits
// only as long as it needs). Conditions that are not UI state (a file appearing) are looked at
// every 20 ms as well.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.NewTimer(180 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		testUI.drainOnce()
		if ok() {
			return
		}
		select {
		case <-testUI.wake:
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// openTestWindow opens a window built with opts in a headless test app, its UI work going
// through testUI; closing it (at the end of the test) stops its background work.
func openTestWindow(t *testing.T, opts Options) *Window {
	t.Helper()
	if !testGradientDirs[t.Name()] { // the palette menu lists no gradients of the user's
		t.Setenv(gradients.EnvDir, filepath.Join(t.TempDir(), "gradients"))
	}
	a := test.NewTempApp(t)
	opts.do = testUI.do
	w := New(a, opts)
	t.Cleanup(func() {
		if !isClosed(w.closing) { // Fyne's test driver fails a second Close
			w.FyneWindow().Close()
		}
		w.stop() // waits for the worker and the prober to end
		testUI.reset()
	})
	w.FyneWindow().Show()
	return w
}

// newTestWindow opens a CPU-rendered window in a headless test app.
func newTestWindow(t *testing.T) *Window {
	t.Helper()
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(500, 420)})
	pw, ph := w.ViewSize()
	if pw < 100 || ph < 100 || pw == ph {
		t.Fatalf("view is %dx%d; the tests want a non-square view of some size", pw, ph)
	}
	return w
}
