package app

import (
	"math"
	"math/big"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"mandelscope/fractal"
)

// pointUnder is the point under position (x, y) (image pixels, continuous: 0 is the left
// edge) of l at w x h, exactly (but for the offset's turn into the plane in a rotated view,
// rounded to float64 as fractal.Frame.Offsets rounds it).
func pointUnder(l fractal.Location, x, y float64, w, h int) (re, im *big.Float) {
	const prec = 1024
	s := new(big.Float).SetPrec(prec).SetFloat64(fractal.Spacing(l.ZoomFloat(), w, h))
	ox, oy := l.PlaneOffset(x-float64(w)/2, float64(h)/2-y)
	dx := new(big.Float).SetPrec(prec).SetFloat64(ox)
	dy := new(big.Float).SetPrec(prec).SetFloat64(oy)
	re = l.Re.Big(prec)
	re.Add(re, dx.Mul(dx, s))
	im = l.Im.Big(prec)
	im.Add(im, dy.Mul(dy, s))
	return re, im
}

// drift is how far, in pixels of b at w x h, the point under (x, y) of b is from the point
// under (x, y) of a.
func drift(a, b fractal.Location, x, y float64, w, h int) float64 {
	ar, ai := pointUnder(a, x, y, w, h)
	br, bi := pointUnder(b, x, y, w, h)
	dr, _ := new(big.Float).Sub(br, ar).Float64()
	di, _ := new(big.Float).Sub(bi, ai).Float64()
	s := fractal.Spacing(b.ZoomFloat(), w, h)
	return max(abs(dr), abs(di)) / s
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// Twenty wheel notches with the pointer on a pixel keep the point that pixel shows (the one at
// its centre, which the status bar reports) there, to a hundredth of a pixel, at a shallow view and past float64's reach (1e30, a 60-digit centre); zooming back
// out by as many notches returns to the start.
func TestWheelKeepsThePointUnderTheCursor(t *testing.T) {
	for _, start := range []fractal.Location{
		testLoc("-0.75", "0.1", "2", 400),
		testLoc(testRe60, testIm60, "1e30", 3000),
	} {
		w := newTestWindow(t)
		w.SetLocation(start)
		pw, ph := w.ViewSize()
		pos := fyne.NewPos(float32(pw)*0.8+0.25, float32(ph)*0.2+0.5) // off centre, off the pixel grid
		x, y := w.view.pointerPixel(pos)
		for range 20 {
			w.view.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: pos}, Scrolled: fyne.NewDelta(0, wheelNotch)})
		}
		got := w.Location()
		if z, want := got.ZoomFloat(), start.ZoomFloat()*math.Pow(WheelZoom, 20); abs(z/want-1) > 1e-12 {
			t.Errorf("zoom %g after 20 notches from %g, want %g", z, start.ZoomFloat(), want)
		}
		if d := drift(start, got, x, y, pw, ph); d > 0.01 {
			t.Errorf("zoom %s: the point under the cursor moved %.4f pixels in 20 notches", start.Zoom, d)
		}
		for range 20 {
			w.view.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: pos}, Scrolled: fyne.NewDelta(0, -wheelNotch)})
		}
		if d := drift(start, w.Location(), x, y, pw, ph); d > 0.01 || abs(w.Location().ZoomFloat()/start.ZoomFloat()-1) > 1e-12 {
			t.Errorf("zoom %s: 20 notches in and out end %.4f pixels away at zoom %s", start.Zoom, d, w.Location().Zoom)
		}
	}
}

// The history records gestures: a burst of wheel notches with pauses longer than the settle
// time, one drag with pauses, one held-button zoom and one click are a step back each.
func TestHistoryRecordsGestures(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(500, 420),
		historySettle: 20 * time.Millisecond, wheelGap: 2 * time.Second, bookmarksWatch: -1})
	n := w.nav
	clock := &fakeTimers{}
	n.afterFunc = clock.afterFunc
	v := w.view
	start := w.Location()
	pause := func() { // longer than the settle time, well within the wheel gap
		clock.advance(60 * time.Millisecond)
		testUI.drain()
	}
	pos := fyne.NewPos(200, 150)
	for range 5 {
		v.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: pos}, Scrolled: fyne.NewDelta(0, wheelNotch)})
		pause()
	}
	if n.hist.Len() != 1 {
		t.Fatalf("history has %d entries during a wheel burst, want 1 (the start)", n.hist.Len())
	}
	afterWheel := w.Location()
	// A drag ends the burst: its first step records where the wheel left the view.
	for range 4 {
		v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: pos}, Dragged: fyne.NewDelta(15, -5)})
		pause()
	}
	v.DragEnd()
	afterDrag := w.Location()
	if n.hist.Len() != 3 {
		t.Fatalf("history has %d entries after a wheel burst and a drag, want 3", n.hist.Len())
	}
	// A held middle button zooms in until released.
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonTertiary})
	waitFor(t, "the held button to zoom", func() bool { return w.Location().ZoomFloat() > afterDrag.ZoomFloat()*1.1 })
	v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonTertiary})
	afterHold := w.Location()
	pause()
	pause()
	if w.Location() != afterHold {
		t.Fatalf("the view moved after the button was released: %v, then %v", afterHold, w.Location())
	}
	// A double-click.
	v.DoubleTapped(&fyne.PointEvent{Position: pos})
	if n.hist.Len() != 5 {
		t.Fatalf("history has %d entries, want 5 (start, wheel, drag, hold, click)", n.hist.Len())
	}
	for i, want := range []fractal.Location{afterHold, afterDrag, afterWheel, start} {
		n.goBack()
		if got := w.Location(); got.String() != want.String() {
			t.Fatalf("back step %d went to %v, want %v", i+1, got, want)
		}
	}
}

// A held button zooms toward the pointer (the point under it stays), the right button out
// once held (and its release is then no right-click), and moving the pointer steers.
func TestHoldZoom(t *testing.T) {
	w := newTestWindow(t)
	v := w.view
	pw, ph := w.ViewSize()
	pos := fyne.NewPos(float32(pw)/4, float32(ph)/3)
	x, y := v.pointerPixel(pos)
	start := w.Location()
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonPrimary, Modifier: fyne.KeyModifierShift})
	waitFor(t, "Shift + left held to zoom in", func() bool { return w.Location().ZoomFloat() > start.ZoomFloat()*1.2 })
	v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonPrimary})
	in := w.Location()
	if d := drift(start, in, x, y, pw, ph); d > 0.01 {
		t.Errorf("the point under the pointer moved %.4f pixels while zooming in", d)
	}
	// Steering: the pointer moves while the button is held; the zoom goes on about the new
	// point, which stays put from then on.
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonTertiary})
	pos2 := fyne.NewPos(float32(pw)*0.7, float32(ph)*0.6)
	x2, y2 := v.pointerPixel(pos2)
	waitFor(t, "the zoom to start", func() bool { return w.Location().ZoomFloat() > in.ZoomFloat()*1.05 })
	v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: pos2}, Dragged: fyne.NewDelta(10, 10)})
	testUI.drainOnce()
	steered := w.Location()
	waitFor(t, "the zoom to go on", func() bool { return w.Location().ZoomFloat() > steered.ZoomFloat()*1.2 })
	v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos2}, Button: desktop.MouseButtonTertiary})
	v.DragEnd()
	if d := drift(steered, w.Location(), x2, y2, pw, ph); d > 0.01 {
		t.Errorf("after steering, the point under the pointer moved %.4f pixels", d)
	}
	// The right button held zooms out; its release is no right-click.
	before := w.Location()
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonSecondary})
	waitFor(t, "the right button held to zoom out", func() bool { return w.Location().ZoomFloat() < before.ZoomFloat()/1.2 })
	v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonSecondary})
	out := w.Location()
	v.TappedSecondary(&fyne.PointEvent{Position: pos})
	if w.Location() != out {
		t.Errorf("the release of a held right button zoomed out x2 as well")
	}
	// A short right-click zooms out x2.
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonSecondary})
	v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonSecondary})
	v.TappedSecondary(&fyne.PointEvent{Position: pos})
	if z := w.Location().ZoomFloat(); abs(z/(out.ZoomFloat()/ClickZoom)-1) > 1e-12 {
		t.Errorf("a right-click went to zoom %g from %g, want x1/2", z, out.ZoomFloat())
	}
}

// fakeTimers is a clock for the navigator's settle timers that moves only when a test
// advances it: a pause is then exactly as long as the test says, whatever the machine's load.
type fakeTimers struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*fakeTimer
}

type fakeTimer struct {
	c       *fakeTimers
	at      time.Duration
	f       func()
	stopped bool
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

func (c *fakeTimers) afterFunc(d time.Duration, f func()) interface{ Stop() bool } {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now + d, f: f}
	c.timers = append(c.timers, t)
	return t
}

// advance moves the clock on by d and runs the timers then due, in the order they were set.
func (c *fakeTimers) advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	var due, left []*fakeTimer
	for _, t := range c.timers {
		switch {
		case t.stopped:
		case t.at <= c.now:
			t.stopped = true
			due = append(due, t)
		default:
			left = append(left, t)
		}
	}
	c.timers = left
	c.mu.Unlock()
	for _, t := range due {
		t.f()
	}
}

// A held button queues one zoom step at a time: while the UI goroutine is busy (here: not
// running the queue at all for 300 ms, 15 ticks), the ticks that come are skipped, not queued
// behind it; the steps go by the clock, so none is lost. Before, every tick queued a step, and
// a UI slower than the ticks fell ever further behind (a test draining the queue never ended).
func TestHoldZoomQueuesOneStep(t *testing.T) {
	w := newTestWindow(t)
	v := w.view
	pw, ph := w.ViewSize()
	pos := fyne.NewPos(float32(pw)/4, float32(ph)/3)
	waitFor(t, "the view at rest", func() bool {
		want := w.Location().String()
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.lastFullLoc.String() == want
	})
	time.Sleep(100 * time.Millisecond)
	testUI.drain()
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonTertiary})
	time.Sleep(15 * holdTick)
	testUI.mu.Lock()
	queued := len(testUI.fns)
	testUI.mu.Unlock()
	v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: pos}, Button: desktop.MouseButtonTertiary})
	testUI.drain()
	if queued > 3 {
		t.Errorf("%d calls queued for the UI after 15 ticks of a held button it did not run, want at most 3 (one zoom step)", queued)
	}
}
