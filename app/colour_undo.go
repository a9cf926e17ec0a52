// Undo and redo of colour changes (Ctrl+Z, Ctrl+Shift+Z): the history steps through places
// only (navigation.go), so a colouring tried and not liked is taken back here. A drag of one
// slider (or the gradient editor's changes of the stops) is one step.

package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// maxColourUndo is the most colour changes kept for undo.
const maxColourUndo = 100

// colourUndo is the window's stacks of colourings; it is touched on the UI goroutine only.
type colourUndo struct {
	w         *Window
	undo      []colour.Coloring // the colourings before each change, the last one most recent
	redo      []colour.Coloring
	lastField string // what the last change changed alone ("" for several, or a choice)
	applying  bool   // an undo or redo is being applied: not a change of its own
}

// installColourUndo adds View > Undo Colour Change (Ctrl+Z) and Redo Colour Change
// (Ctrl+Shift+Z or Ctrl+Y) to w, and View > Automatic Density (the way back to it that is
// no undo: densityauto.go), and records the colour changes. The keys are the window's,
// not the menu's (Fyne gives a menu's keys first): a text field being edited keeps its own
// undo.
func installColourUndo(w *Window) *colourUndo {
	u := &colourUndo{w: w}
	w.OnLocationChanged(func(old, l fractal.Location, _ Origin) { u.changed(old, l) })
	w.AddMenuItem("View", fyne.NewMenuItem("Undo Colour Change (Ctrl+Z)", u.undoLast))
	w.AddMenuItem("View", fyne.NewMenuItem("Redo Colour Change (Ctrl+Shift+Z)", u.redoLast))
	w.AddMenuItem("View", fyne.NewMenuItem("Automatic Density", w.setAutoDensity))
	w.AddShortcut(&fyne.ShortcutUndo{}, u.undoLast) // Ctrl+Z, as the desktop driver names it
	w.AddShortcut(&fyne.ShortcutRedo{}, u.redoLast) // Ctrl+Y
	w.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyZ, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}, u.redoLast)
	return u
}

// changed records a change of colouring at the same place (a new place's colouring, from a
// bookmark or Go to, is the place's, not an undoable change).
func (u *colourUndo) changed(old, l fractal.Location) {
	if u.applying || !samePlace(old, l) || sameColouring(old.Color, l.Color) {
		return
	}
	f := changedField(old.Color, l.Color)
	if f != "" && f == u.lastField && len(u.undo) > 0 {
		return // the same slider still moving: one step
	}
	u.lastField = f
	u.undo = append(u.undo, old.Color)
	if len(u.undo) > maxColourUndo {
		u.undo = append(u.undo[:0], u.undo[1:]...)
	}
	u.redo = nil
}

// sameColouring reports whether a and b draw alike: an automatic density is the same
// whatever number it drew last.
func sameColouring(a, b colour.Coloring) bool {
	if a.AutoDensity && b.AutoDensity {
		a.Density = b.Density
	}
	return a == b
}

// changedField names the one slider-like field b changes from a, or "" when it changes a
// choice (palette, method, transfer) or several fields.
func changedField(a, b colour.Coloring) string {
	var fields []string
	if a.Density != b.Density || a.AutoDensity != b.AutoDensity {
		fields = append(fields, "density")
	}
	for _, f := range []struct {
		name string
		x, y float64
	}{{"offset", a.Offset, b.Offset}, {"width", a.Width, b.Width}, {"light", a.Light, b.Light}, {"strength", a.Strength, b.Strength}} {
		if f.x != f.y {
			fields = append(fields, f.name)
		}
	}
	if a.Gradient != b.Gradient && a.Palette == b.Palette {
		fields = append(fields, "stops") // the gradient editor at work
	}
	if len(fields) != 1 || a.Palette != b.Palette || a.Method != b.Method || a.Transfer != b.Transfer {
		return ""
	}
	return fields[0]
}

// endStep ends the run of slider moves in progress: the next change, of the same field or
// not, is a step of its own (a click that puts the density back to auto after its slider).
func (u *colourUndo) endStep() { u.lastField = "" }

// undoLast brings back the colouring before the last change.
func (u *colourUndo) undoLast() {
	if len(u.undo) == 0 {
		return
	}
	c := u.undo[len(u.undo)-1]
	u.undo = u.undo[:len(u.undo)-1]
	u.redo = append(u.redo, u.w.Location().Color)
	u.apply(c)
}

// redoLast makes the last change undone again.
func (u *colourUndo) redoLast() {
	if len(u.redo) == 0 {
		return
	}
	c := u.redo[len(u.redo)-1]
	u.redo = u.redo[:len(u.redo)-1]
	u.undo = append(u.undo, u.w.Location().Color)
	u.apply(c)
}

func (u *colourUndo) apply(c colour.Coloring) {
	u.applying = true
	defer func() { u.applying = false }()
	u.lastField = ""
	l := u.w.Location()
	l.Color = c
	u.w.navigate(l, false)
}
