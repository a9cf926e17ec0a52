// The window's keyboard and toolbar actions: home, zoom about the centre, pan, copy location.

package app

import (
	"strconv"

	"fyne.io/fyne/v2"

	"mandelscope/fractal"
)

// copyLocation puts the current location's text form on the clipboard, and says so in the
// status bar.
func (w *Window) copyLocation() {
	w.app.Clipboard().SetContent(w.Location().String())
	w.setMessage("location copied to the clipboard")
}

// goHome resets the view to the whole set of its formula (fractal.HomeOf), upright, keeping the colouring; in a Julia view, to that
// Julia set seen whole (Location.JuliaAt with its parameter).
func (w *Window) goHome() {
	cur := w.Location()
	l := fractal.HomeOf(cur.Formula)
	if cur.IsJulia() {
		l = cur.JuliaAt(cur.Julia.Re, cur.Julia.Im)
	}
	l.Color = cur.Color
	l.Rotation = 0 // the whole set upright
	w.autoBoost = 1
	if !w.autoIter {
		l.Iterations = w.lastIters
	}
	w.moveTo(l, false, FromUser, true) // a new place
}

// zoomCentre zooms by factor about the view's centre.
func (w *Window) zoomCentre(factor float64) {
	pw, ph := w.view.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	w.navigate(w.Location().ZoomAt(float64(pw)/2, float64(ph)/2, factor, pw, ph), true)
}

// pan moves the view by (dx, dy) physical pixels of content: the centre moves by that many
// pixels right and down.
func (w *Window) pan(dx, dy float64) {
	pw, ph := w.view.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	w.navigate(w.Location().Offset(dx, dy, pw, ph), true)
}

// rotationStep and rotationFine are the turns of [ and ] and of Shift+[ and Shift+] ({ and }),
// in degrees.
const (
	rotationStep = 15
	rotationFine = 1
)

// rotate turns the picture counter-clockwise by deg degrees about the view's centre (a
// negative deg turns it clockwise); at 0 it goes back to the unrotated view. The status bar
// says the angle.
func (w *Window) rotate(deg float64) {
	l := w.Location()
	if deg == 0 {
		if l.Rotation == 0 {
			return
		}
		l.Rotation = 0
	} else {
		l.Rotation = fractal.NormaliseRotation(l.Rotation + deg)
	}
	w.navigate(l, true)
	if l.Rotation == 0 {
		w.setMessage("not turned")
	} else {
		w.setMessage("turned " + rotationText(l.Rotation) + " (\\ turns back)")
	}
}

// rotationText is an angle as the window writes it: "37°", "-12.5°".
func rotationText(deg float64) string { return strconv.FormatFloat(deg, 'g', 6, 64) + "°" }

// typedKey handles the view's keys when no entry has the focus.
func (w *Window) typedKey(ev *fyne.KeyEvent) {
	w.pruneDialogs()
	if len(w.dialogs) > 0 { // the keys belong to the dialog: Escape closes it
		if ev.Name == fyne.KeyEscape {
			w.closeTopDialog()
		}
		return
	}
	pw, ph := w.view.pixelSize()
	step := float64(min(pw, ph)) / 10
	switch ev.Name {
	case fyne.KeyLeft:
		w.pan(-step, 0)
	case fyne.KeyRight:
		w.pan(step, 0)
	case fyne.KeyUp:
		w.pan(0, -step)
	case fyne.KeyDown:
		w.pan(0, step)
	case fyne.KeyHome:
		w.goHome()
	case fyne.KeyPageUp:
		w.zoomCentre(2)
	case fyne.KeyPageDown:
		w.zoomCentre(0.5)
	case fyne.KeyEscape:
		if w.view.cancelBox() {
			w.setMessage("box zoom cancelled")
		}
	}
}

func (w *Window) typedRune(r rune) {
	w.pruneDialogs()
	if len(w.dialogs) > 0 {
		return
	}
	switch r {
	case '+', '=':
		w.zoomCentre(2)
	case '-', '_':
		w.zoomCentre(0.5)
	case 'm':
		w.findAtPointer(false)
	case 'M':
		w.findAtPointer(true)
	case 'd', 'D':
		w.findAtPointerDepth(findDepth)
	case 'j':
		w.showJulia()
	case 'J':
		w.showMandelbrot()
	case 'f':
		w.nextFormula(false)
	case 'F':
		w.nextFormula(true)
	case 'i', 'I':
		w.inset.toggle()
	case 'c', 'C':
		w.cycle.toggle()
	case '[':
		w.rotate(rotationStep)
	case ']':
		w.rotate(-rotationStep)
	case '{':
		w.rotate(rotationFine)
	case '}':
		w.rotate(-rotationFine)
	case '\\':
		w.rotate(0)
	}
}
