package app

import (
	"bytes"
	"context"
	"image"
	"strings"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/preview"
	"mandelscope/render/cpu"
)

// placeStart is a shallow view whose picture at rest takes a moment.
func placeStart() fractal.Location {
	l := fractal.Home()
	l.Re = fractal.MustDecimal("-0.7436438870371")
	l.Im = fractal.MustDecimal("0.1318259042053")
	l.Zoom = fractal.MustDecimal("2000")
	l.Iterations = 500
	return l
}

// Back to a view finished before (the history), the window shows its picture byte for byte
// as it was, its 16 samples included, from the worker's cache: nothing rendered, the status
// bar and the frame trace saying so.
func TestWindowReturnsToCachedView(t *testing.T) {
	var traced []preview.Result
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(500, 420), Start: placeStart(),
		Accumulate: preview.AccumulateN, OnFrame: func(r preview.Result) { traced = append(traced, r) }})
	done := "samples 16/16"
	waitFor(t, "A at rest", func() bool { return w.statusTime.Text == done })
	a := w.shownImage()
	b := placeStart().Offset(40, -25, w.view.lastW, w.view.lastH)
	if err := w.nav.goTo(b.String()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B at rest", func() bool { return w.statusTime.Text == done && w.shownImage() != a })
	counting := &countingCPU{}
	w.rend.set(counting)
	n := len(traced)
	w.nav.goBack()
	waitFor(t, "A from the cache", func() bool { return w.statusTime.Text == "cached, "+done })
	if !bytes.Equal(w.shownImage().Pix, a.Pix) || w.view.img.Image != w.shownImage() {
		t.Errorf("A from the cache is not A's picture")
	}
	if c := counting.calls.Load(); c != 0 {
		t.Errorf("%d renders to go back to A", c)
	}
	var cached bool
	for _, r := range traced[n:] {
		cached = cached || r.Stats.Cached && r.Stats.Scale == 1 && !r.Req.Interactive && r.Samples == 16
	}
	if !cached {
		t.Errorf("the frame trace got no cached full frame")
	}
}

// blockingCPU is the CPU renderer that, once armed, blocks every call until its context ends,
// counting the calls so cancelled.
type blockingCPU struct {
	cpu.Renderer
	armed     atomic.Bool
	blocked   atomic.Int64 // calls blocked
	cancelled atomic.Int64 // calls whose context ended
}

func (b *blockingCPU) wait(ctx context.Context) error {
	b.blocked.Add(1)
	<-ctx.Done()
	b.cancelled.Add(1)
	return ctx.Err()
}

func (b *blockingCPU) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if b.armed.Load() {
		return b.wait(ctx)
	}
	return b.Renderer.Render(ctx, f, rect, dst)
}

func (b *blockingCPU) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	if b.armed.Load() {
		return b.wait(ctx)
	}
	return b.Renderer.Compute(ctx, f, rect, dst)
}

// Go to Location to a deep place while the old view's work hangs in a slow renderer: the old
// work is cancelled at once, the old picture dimmed, and the status bar says nothing of the
// old view's samples or refining.
func TestNewPlaceReplacesTheOldState(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(500, 420), Start: placeStart(),
		Accumulate: preview.AccumulateN})
	done := "samples 16/16"
	waitFor(t, "the view at rest", func() bool { return w.statusTime.Text == done })
	old := w.shownImage()
	slow := &blockingCPU{}
	slow.armed.Store(true)
	w.rend.set(slow)
	w.pan(30, 0) // the old view's work, hanging
	waitFor(t, "the old work to hang", func() bool { return slow.blocked.Load() > 0 })

	deep := "re=-1.768610493014677074503175653270226520239677907588665 im=-0.002177783846345509845313778327026271482657446994866 zoom=1e40 iterations=3000"
	if err := w.nav.goTo(deep); err != nil {
		t.Fatal(err)
	}
	st := w.statusTime.Text
	if strings.Contains(st, "samples") || strings.Contains(st, "refining") {
		t.Errorf("status %q right after the new place", st)
	}
	shown, _ := w.view.img.Image.(*image.RGBA)
	if shown == nil || !bytes.Equal(shown.Pix, dimmed(old).Pix) {
		t.Errorf("the old picture is not dimmed")
	}
	waitFor(t, "the old work cancelled", func() bool { return slow.cancelled.Load() > 0 })
	waitFor(t, "the new place's work", func() bool { return slow.blocked.Load() > slow.cancelled.Load() })
	st = w.statusTime.Text
	if strings.Contains(st, "samples") || strings.Contains(st, "refining") || strings.HasPrefix(st, "frame") {
		t.Errorf("status %q while the new place renders", st)
	}
}
