// The way back to the automatic density once the slider has made it a number: a click on
// the density's value (which says "auto" while it is automatic), or View > Automatic
// Density. Ctrl+Z also takes a slider move back, but only while it is the last change.

package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"

	"mandelscope/colour"
)

// setAutoDensity makes the view's density automatic again (a colour change: Ctrl+Z takes it
// back); the next full frame chooses the number from the view, as for a fresh view.
func (w *Window) setAutoDensity() {
	if w.Location().Color.AutoDensity {
		return
	}
	if w.undo != nil {
		w.undo.endStep() // one step, not the end of the slider's drag
	}
	w.colorChanged(false, func(c *colour.Coloring) {
		_ = c.SetDensityText("auto") // "auto" is always accepted
	})
	w.setMessage("density: automatic again, chosen from the view")
}

// densityTap lies over the density's value: a click on it makes the density automatic; its
// tooltip says so while the density is a number.
type densityTap struct {
	tipArea
}

var (
	_ fyne.Tappable      = (*densityTap)(nil)
	_ desktop.Cursorable = (*densityTap)(nil)
)

// withDensityTap lays a densityTap over the density's value label.
func (w *Window) withDensityTap(value fyne.CanvasObject) fyne.CanvasObject {
	d := &densityTap{}
	d.w = w
	d.tip = func() string {
		if w.Location().Color.AutoDensity {
			return "automatic: chosen from the view (the slider makes it a number)"
		}
		return "click: back to the automatic density"
	}
	d.ExtendBaseWidget(d)
	return container.NewStack(value, d)
}

// Tapped makes the density automatic.
func (d *densityTap) Tapped(*fyne.PointEvent) { d.w.setAutoDensity() }

// Cursor is a pointing hand: the value is a button of a kind.
func (d *densityTap) Cursor() desktop.Cursor { return desktop.PointerCursor }
