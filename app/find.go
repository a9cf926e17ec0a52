// One step to the nearest minibrot or Misiurewicz point: the M key (Shift+M), the Go menu
// and the picture's context menu (Ctrl + right click) search from the point under the pointer
// (fractal.FindMinibrot, FindMisiurewicz) off the UI thread and go there.

package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"mandelscope/fractal"
)

// findLimit is the highest period (or preperiod plus period) a search looks for: the
// command line's default (a search ends at the first period found, so a high limit costs
// time only where there is none).
const findLimit = 1_000_000

// findWhat names what a search looks for.
func findWhat(misiurewicz bool) string {
	if misiurewicz {
		return "Misiurewicz point"
	}
	return "minibrot"
}

// findDepth is how far the D key goes toward the nearest minibrot, in log zoom: halfway,
// where the pattern around it doubles.
const findDepth = 0.5

// findMaxTime bounds one search.
const findMaxTime = 60 * time.Second

// foundNote is a note on a place (what the last search found there or why it found nothing,
// or that a move stopped at the edge), kept in the status bar until the view moves on.
type foundNote struct {
	at  fractal.Location
	msg string
}

// renderStatus shows a renderer's progress or time in the status bar, after what the last
// search found while the view is still the one it went to, and after the window's note on the
// view (Window.note: at the edge, a saved view refused) while it is still that view.
func (w *Window) renderStatus(s string) {
	cur := w.Location()
	for _, n := range []foundNote{w.found, w.note} {
		if n.msg != "" && samePlace(cur, n.at) {
			s = n.msg + " · " + s
		}
	}
	w.setMessage(s)
}

// findNearest searches for the minibrot (or Misiurewicz point) nearest pixel (x, y) of the
// view (physical pixels; the centre when x < 0) on a goroutine of its own, saying so in the
// status bar, and goes there as Go to Location does: the view's colouring kept, and the
// iterations too while Auto is on (Auto chooses the new view's count), else the found
// view's. A newer search, or a move to another place (cancelFind), cancels it; a search
// whose place is no longer shown goes nowhere.
func (w *Window) findNearest(misiurewicz bool, x, y float64) {
	w.findNearestDepth(misiurewicz, x, y, 1)
}

// findAtPointerDepth is findAtPointer for a minibrot, stopping depth of the way there in
// log zoom (fractal.Found.AtDepth).
func (w *Window) findAtPointerDepth(depth float64) {
	x, y := -1.0, -1.0
	if p, ok := w.view.pointerAt(); ok {
		x, y = w.view.pointerPixel(p)
	}
	w.findNearestDepth(false, x, y, depth)
}

// findNearestDepth is findNearest, stopping depth (0 < depth <= 1) of the way to a minibrot.
func (w *Window) findNearestDepth(misiurewicz bool, x, y, depth float64) {
	pw, ph := w.view.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	if x < 0 {
		x, y = float64(pw)/2, float64(ph)/2
	}
	loc := w.Location()
	if loc.IsJulia() {
		w.setMessage("the " + findWhat(misiurewicz) + " search is for the Mandelbrot set: Shift+J goes back to it")
		return
	}
	if err := fractal.FinderFor(loc.Formula, misiurewicz); err != nil {
		w.refuse(err.Error())
		return
	}
	w.cancelFind()
	ctx, cancel := context.WithCancel(context.Background())
	w.mu.Lock()
	w.findCancel = cancel
	w.mu.Unlock()
	what := findWhat(misiurewicz)
	w.setMessage("looking for the nearest " + what + "...")
	opt := fractal.FindOptions{Limit: findLimit, MaxTime: findMaxTime}
	var last time.Time
	opt.Progress = func(stage string, _ float64) {
		if time.Since(last) < 250*time.Millisecond {
			return
		}
		last = time.Now()
		w.uiDo(func() {
			if ctx.Err() == nil {
				w.setMessage("looking for the nearest " + what + ": " + stage + " (Esc or a move cancels)")
			}
		})
	}
	go func() {
		var f fractal.Found
		var err error
		var whole fractal.Location // the minibrot's own view, when D stops short of it
		if misiurewicz {
			f, err = fractal.FindMisiurewicz(ctx, loc, pw, ph, x, y, findLimit)
		} else {
			f, err = fractal.FindMinibrotWith(ctx, loc, pw, ph, x, y, opt)
			if err == nil && depth < 1 {
				whole = f.Loc
				f.Loc, err = f.AtDepth(loc, depth)
			}
		}
		w.uiDo(func() {
			defer cancel() // here, not when the search returns: the check below reads ctx
			if ctx.Err() != nil && !errors.Is(context.Cause(ctx), fractal.ErrSearchTimeout) || !samePlace(w.Location(), loc) {
				return // cancelled, or the view moved on: the result is not for it
			}
			w.mu.Lock()
			w.findCancel = nil
			w.mu.Unlock()
			if err != nil {
				// Kept before the render's time while the view stays, as a find is: the
				// frame that ends a moment later would otherwise wipe it before it is read.
				w.found = foundNote{at: w.Location(), msg: findErrorText(err, what)}
				w.setMessage(w.found.msg)
				return
			}
			l := f.Loc
			l.Color = loc.Color
			if w.autoIter {
				l.Iterations = w.autoIterations(l.ZoomFloat())
				if !misiurewicz {
					// The automatic count that shows the minibrot whole, as its view's
					// samples will ask (preview.AutoBoost), at once.
					l.Iterations = max(l.Iterations, autoMinibrotIterations(l.ZoomFloat(), f.Period))
				}
			}
			msg := fmt.Sprintf("%s of period %d", what, f.Period)
			switch {
			case misiurewicz:
				msg = fmt.Sprintf("%s, preperiod %d, period %d", what, f.Preperiod, f.Period)
			case depth < 1:
				msg = depthNote(loc, l, whole, f.Period, depth)
			}
			w.SetLocation(l)
			w.found = foundNote{at: w.Location(), msg: msg}
			w.setMessage(msg)
		})
	}()
}

// depthNote says what D did, going from from to at, depth of the way (in log zoom) to the
// minibrot of period p framed by whole: "halfway to the minibrot of period 58 (zoom 2.3e+07):
// zoom x41, centred on it".
func depthNote(from, at, whole fractal.Location, p int, depth float64) string {
	way := "halfway"
	if depth != 0.5 {
		way = fmt.Sprintf("%.0f%% of the way", depth*100)
	}
	factor := at.ZoomExp().Quo(from.ZoomExp())
	return fmt.Sprintf("%s to the minibrot of period %d (zoom %s): zoom ×%s, centred on it", way, p,
		fractal.FormatZoom(whole.ZoomExp()), factor.Text(3))
}

// findErrorText is a search's error in plain words for the status bar.
func findErrorText(err error, what string) string {
	var nm *fractal.NoMinibrotError
	switch {
	case errors.As(err, &nm):
		return fmt.Sprintf("no minibrot near the pointer in this view (%s): zoom out a little or move to the set's edge", nm.Why)
	case errors.Is(err, fractal.ErrPeriodLimit):
		return fmt.Sprintf("no minibrot near the pointer with a period up to %d: zoom out a little or move to the set's edge", findLimit)
	case errors.Is(err, fractal.ErrSearchTimeout):
		return fmt.Sprintf("no minibrot near the pointer found in %v: zoom out a little or move to the set's edge", findMaxTime)
	case errors.Is(err, fractal.ErrNoMisiurewicz):
		return "no Misiurewicz point found inside this view near the pointer: the view stays; zoom out a little or move to the set's edge"
	}
	return "no " + what + " found: " + firstLine(err.Error())
}

// samePlace reports whether a and b are the same place: centre, zoom, formula and Julia parameter (the iterations and
// the colouring aside, which Auto and the automatic density change while a search runs).
func samePlace(a, b fractal.Location) bool {
	return a.Re.String() == b.Re.String() && a.Im.String() == b.Im.String() && a.Zoom.String() == b.Zoom.String() &&
		a.Julia.String() == b.Julia.String() && a.Formula == b.Formula
}

// cancelFind cancels the search in progress, if any.
func (w *Window) cancelFind() {
	w.mu.Lock()
	c := w.findCancel
	w.findCancel = nil
	w.mu.Unlock()
	if c != nil {
		c()
	}
}

// findAtPointer is findNearest from the pixel under the pointer when it is over the picture,
// else from the centre.
func (w *Window) findAtPointer(misiurewicz bool) {
	x, y := -1.0, -1.0
	if p, ok := w.view.pointerAt(); ok {
		x, y = w.view.pointerPixel(p)
	}
	w.findNearest(misiurewicz, x, y)
}

// copyLocationAt puts the text form of the view centred on pixel (x, y) on the clipboard: the
// point under the pointer with every digit its zoom needs.
func (w *Window) copyLocationAt(x, y float64) {
	pw, ph := w.view.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	l := w.Location().Offset(x-float64(pw)/2, y-float64(ph)/2, pw, ph)
	w.app.Clipboard().SetContent(l.String())
	w.setMessage("the point's location copied to the clipboard")
}

// showContextMenu shows the picture's context menu at p (in the view's coordinates): the
// searches and the copy, from the point there.
func (v *fractalView) showContextMenu(p fyne.Position) {
	if v.w.win == nil {
		return
	}
	x, y := v.pointerPixel(p)
	m := fyne.NewMenu("",
		fyne.NewMenuItem("Zoom to the Nearest Minibrot", func() { v.w.findNearest(false, x, y) }),
		fyne.NewMenuItem("Zoom to the Nearest Misiurewicz Point", func() { v.w.findNearest(true, x, y) }),
		fyne.NewMenuItem("Copy the Location of This Point", func() { v.w.copyLocationAt(x, y) }),
	)
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(v).Add(p)
	widget.ShowPopUpMenuAtPosition(m, v.w.win.Canvas(), abs)
}

// autoMinibrotIterations is the least automatic count at zoom z (fractal.AutoIterations times
// a power of two) that reaches fractal.MinibrotIterations(p): what Auto draws a minibrot of
// period p with, framed.
func autoMinibrotIterations(z float64, p int) int {
	base := max(fractal.AutoIterations(z), 1)
	need := fractal.MinibrotIterations(p)
	b := 1
	for base*b < need && base*b < fractal.MaxIterations {
		b *= 2
	}
	return min(base*b, fractal.MaxIterations)
}
