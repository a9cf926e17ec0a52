// The view's zoom gestures: wheel bursts computed from where they started (so the point under
// the cursor stays exactly put), and the continuous zoom of a held button (XaoS's), which
// zooms toward the pointer at a steady rate and follows it as it moves.

package app

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"mandelscope/fractal"
)

// HoldZoomRate is the zoom factor per second while a button is held.
const HoldZoomRate = 2.0

// holdDelay is how long the right button must stay down before it zooms out continuously:
// a shorter press is a right-click (zoom out x2).
const holdDelay = 250 * time.Millisecond

// holdTick is the interval at which a held button moves the view.
const holdTick = 20 * time.Millisecond

// zoomAnchor is a zoom in progress about one pixel: every step is computed from the start
// location and the whole factor so far, so that rounding never accumulates and the point
// under the pixel stays where it is.
type zoomAnchor struct {
	start, last fractal.Location
	x, y        float64 // the pixel, in image pixels
	w, h        int
	factor      float64
}

// continues reports whether a zoom about (x, y) at w x h from the current location cur
// carries on this anchor: nothing else moved the view, the pointer or the size since.
func (a *zoomAnchor) continues(cur fractal.Location, x, y float64, w, h int) bool {
	return a != nil && a.x == x && a.y == y && a.w == w && a.h == h && cur.String() == a.last.String()
}

// step multiplies the anchor's factor by f and returns the location it gives.
func (a *zoomAnchor) step(f float64) fractal.Location {
	a.factor *= f
	return a.start.ZoomAt(a.x, a.y, a.factor, a.w, a.h)
}

// holdZoom is a continuous zoom while a button is held: rate is the log of the factor per
// second (negative zooms out).
type holdZoom struct {
	rate float64
	t0   time.Time // the time the anchor's start location stands for
	// lastStep is when the view last moved
	lastStep time.Time
	a        zoomAnchor
	stop     chan struct{}
	once     sync.Once
	moved    bool // the pointer moved: re-anchor at the next tick
	px       fyne.Position
}

// holdButton says whether a button press (with its modifiers) zooms continuously, and
// which way: the middle button or Shift + left zooms in at once; the right button zooms out
// once held for holdDelay (delayed: a right-click stays a click); with Ctrl it opens the
// context menu instead.
func holdButton(ev *desktop.MouseEvent) (rate float64, delayed, ok bool) {
	switch {
	case ev.Button == desktop.MouseButtonTertiary,
		ev.Button == desktop.MouseButtonPrimary && ev.Modifier&fyne.KeyModifierShift != 0:
		return math.Log(HoldZoomRate), false, true
	case ev.Button == desktop.MouseButtonSecondary && ev.Modifier&fyne.KeyModifierControl == 0:
		return -math.Log(HoldZoomRate), true, true
	}
	return 0, false, false
}

// MouseDown starts the continuous zoom of a held button (holdButton), or a box (boxButton).
func (v *fractalView) MouseDown(ev *desktop.MouseEvent) {
	v.menuNext = ev.Button == desktop.MouseButtonSecondary && ev.Modifier&fyne.KeyModifierControl != 0
	v.cancelBox()
	v.boxDropped = false
	if boxButton(ev) {
		v.startBox(ev)
		return
	}
	rate, delayed, ok := holdButton(ev)
	if !ok {
		return
	}
	v.stopHold()
	h := &holdZoom{rate: rate, stop: make(chan struct{}), px: ev.Position, moved: true}
	v.hold = h
	v.holdUsed = false
	delay := time.Duration(0)
	if delayed {
		delay = holdDelay
	}
	go func() {
		if delay > 0 {
			select {
			case <-h.stop:
				return
			case <-time.After(delay):
			}
		}
		t := time.NewTicker(holdTick)
		defer t.Stop()
		// One step queued or running at a time: the steps go by the clock, so a tick that
		// comes while the UI is still busy with the last one is skipped, rather than queued
		// behind it (a UI slower than the ticks would fall ever further behind).
		var queued atomic.Bool
		for {
			if queued.CompareAndSwap(false, true) {
				v.w.uiDo(func() {
					defer queued.Store(false)
					v.holdStep(h)
				})
			}
			select {
			case <-h.stop:
				return
			case <-t.C:
			}
		}
	}()
}

// MouseUp ends the continuous zoom; a right button that zoomed is not also a right-click. A
// box that was drawn ends at DragEnd, which comes after; one that was not is dropped.
func (v *fractalView) MouseUp(*desktop.MouseEvent) {
	if v.box != nil && !v.box.dragged {
		v.cancelBox()
	}
	if v.hold != nil {
		v.stopHold()
		v.w.endGesture()
	}
}

// stopHold stops the held button's zoom, if any (UI goroutine).
func (v *fractalView) stopHold() {
	if v.hold != nil {
		v.hold.once.Do(func() { close(v.hold.stop) })
		v.hold = nil
	}
}

// steer moves the point a held button zooms toward to p (in the view's units).
func (v *fractalView) steer(p fyne.Position) {
	if v.hold != nil && p != v.hold.px {
		v.hold.px, v.hold.moved = p, true
	}
}

// holdStep moves the view of the held button h to where its rate has taken it by now.
func (v *fractalView) holdStep(h *holdZoom) {
	if v.hold != h {
		return // released, or another press took over
	}
	pw, ph := v.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	now := time.Now()
	x, y := v.pointerPixel(h.px)
	cur := v.w.Location()
	if !v.holdUsed {
		v.holdUsed = true
		v.w.beginGesture(gestureHold)
		h.a = zoomAnchor{start: cur, last: cur, x: x, y: y, w: pw, h: ph, factor: 1}
		h.t0, h.moved = now, false
		return
	}
	if h.moved || !h.a.continues(cur, x, y, pw, ph) {
		// Re-anchor at the view as it is, about the pointer's pixel, from the last step's
		// time, so the zoom goes on at the same rate.
		h.a = zoomAnchor{start: cur, last: cur, x: x, y: y, w: pw, h: ph, factor: 1}
		h.t0, h.moved = h.lastStep, false
	}
	h.lastStep = now
	h.a.factor = 1
	l := h.a.step(math.Exp(h.rate * now.Sub(h.t0).Seconds()))
	v.w.navigate(l, true)
	h.a.last = v.w.Location()
}
