// The controls row: iterations (entry and Auto), palette, density and offset.

package app

import (
	"fmt"
	"math"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"mandelscope/fractal"
)

// buildControls makes the iterations entry and Auto checkbox, the palette chooser and the
// density and offset sliders.
func (w *Window) buildControls() fyne.CanvasObject {
	w.iterEntry = widget.NewEntry()
	w.iterEntry.Validator = validateIterations
	w.iterEntry.OnChanged = func(s string) {
		if w.updatingUI {
			return
		}
		n, err := parseIterations(s)
		if err != nil {
			return // the validator shows the problem; the last good value stays
		}
		if n == w.Location().Iterations && !w.autoIter {
			return
		}
		w.autoIter = false
		w.lastIters = n
		l := w.Location()
		l.Iterations = n
		w.navigate(l, false)
	}
	w.autoCheck = widget.NewCheck("Auto", func(on bool) {
		if w.updatingUI {
			return
		}
		w.autoIter = on
		l := w.Location()
		if !on {
			l.Iterations = w.lastIters
			if n, err := parseIterations(w.iterEntry.Text); err == nil {
				l.Iterations = n
			}
		}
		w.navigate(l, false)
	})
	w.paletteSel = widget.NewSelect(fractal.PaletteNames(), func(name string) {
		w.colorChanged(false, func(c *fractal.Coloring) { c.Palette = name })
	})
	w.densitySl = widget.NewSlider(0.1, 8)
	w.densitySl.Step = 0.05
	w.densitySl.OnChanged = func(v float64) {
		w.colorChanged(true, func(c *fractal.Coloring) { c.Density = v })
	}
	w.offsetSl = widget.NewSlider(0, 1)
	w.offsetSl.Step = 0.01
	w.offsetSl.OnChanged = func(v float64) {
		w.colorChanged(true, func(c *fractal.Coloring) { c.Offset = v })
	}
	w.syncControls()
	iter := container.NewGridWrap(fyne.NewSize(130, w.iterEntry.MinSize().Height), w.iterEntry)
	return container.NewHBox(
		widget.NewLabel("Iterations"), iter, w.autoCheck,
		widget.NewLabel("Palette"), w.paletteSel,
		widget.NewLabel("Density"), container.NewGridWrap(fyne.NewSize(160, w.densitySl.MinSize().Height), w.densitySl),
		widget.NewLabel("Offset"), container.NewGridWrap(fyne.NewSize(160, w.offsetSl.MinSize().Height), w.offsetSl),
	)
}

// syncControls shows the current location in the controls without triggering their callbacks.
func (w *Window) syncControls() {
	l := w.Location()
	w.updatingUI = true
	defer func() { w.updatingUI = false }()
	if n, err := parseIterations(w.iterEntry.Text); err != nil || n != l.Iterations {
		w.iterEntry.SetText(strconv.Itoa(l.Iterations))
	}
	w.autoCheck.SetChecked(w.autoIter)
	if w.paletteSel.Selected != l.Color.Palette {
		w.paletteSel.SetSelected(l.Color.Palette)
	}
	if math.Abs(w.densitySl.Value-l.Color.Density) > 1e-9 {
		w.densitySl.SetValue(l.Color.Density)
	}
	if math.Abs(w.offsetSl.Value-l.Color.Offset) > 1e-9 {
		w.offsetSl.SetValue(l.Color.Offset)
	}
}

func parseIterations(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", clip(s))
	}
	if n < 1 || n > fractal.MaxIterations {
		return 0, fmt.Errorf("iterations must be 1 to %d", fractal.MaxIterations)
	}
	return n, nil
}

func validateIterations(s string) error {
	_, err := parseIterations(s)
	return err
}

// colorChanged applies a colouring control's change to the view (ignored while the window
// itself updates the controls); interactive is passed on to navigate.
func (w *Window) colorChanged(interactive bool, set func(*fractal.Coloring)) {
	if w.updatingUI {
		return
	}
	l := w.Location()
	set(&l.Color)
	w.navigate(l, interactive)
}
