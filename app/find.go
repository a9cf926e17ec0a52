// One step to the nearest minibrot or Misiurewicz point: the M key (Shift+M), the Go menu
// and the picture's context menu (Ctrl + right click) search from the point under the pointer
// (fractal.FindMinibrot, FindMisiurewicz) off the UI thread and go there.

package app

import (
	"context"
	"fmt"

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

// findNearest searches for the minibrot (or Misiurewicz point) nearest pixel (x, y) of the
// view (physical pixels; the centre when x < 0) on a goroutine of its own, saying so in the
// status bar, and goes there as Go to Location does: the view's colouring kept, the found
// view's iterations exactly. A newer search, or a move to another place (cancelFind), cancels
// it; a search whose place is no longer shown goes nowhere.
func (w *Window) findNearest(misiurewicz bool, x, y float64) {
	pw, ph := w.view.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	if x < 0 {
		x, y = float64(pw)/2, float64(ph)/2
	}
	loc := w.Location()
	w.cancelFind()
	ctx, cancel := context.WithCancel(context.Background())
	w.mu.Lock()
	w.findCancel = cancel
	w.mu.Unlock()
	what := findWhat(misiurewicz)
	setText(w.statusTime, "looking for the nearest "+what+"...")
	find := fractal.FindMinibrot
	if misiurewicz {
		find = fractal.FindMisiurewicz
	}
	go func() {
		f, err := find(ctx, loc, pw, ph, x, y, findLimit)
		w.uiDo(func() {
			defer cancel() // here, not when the search returns: the check below reads ctx
			if ctx.Err() != nil || !samePlace(w.Location(), loc) {
				return // cancelled, or the view moved on: the result is not for it
			}
			w.mu.Lock()
			w.findCancel = nil
			w.mu.Unlock()
			if err != nil {
				setText(w.statusTime, "no "+what+" found: "+firstLine(err.Error()))
				return
			}
			l := f.Loc
			l.Color = loc.Color
			w.SetLocation(l)
			msg := fmt.Sprintf("%s of period %d", what, f.Period)
			if misiurewicz {
				msg = fmt.Sprintf("%s, preperiod %d, period %d", what, f.Preperiod, f.Period)
			}
			setText(w.statusTime, msg)
		})
	}()
}

// samePlace reports whether a and b are the same place: centre and zoom (the iterations and
// the colouring aside, which Auto and the automatic density change while a search runs).
func samePlace(a, b fractal.Location) bool {
	return a.Re.String() == b.Re.String() && a.Im.String() == b.Im.String() && a.Zoom.String() == b.Zoom.String()
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
	setText(w.statusTime, "the point's location copied to the clipboard")
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
