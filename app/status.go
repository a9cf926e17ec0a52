// The status bar: centre, zoom, iterations, precision mode, frame time, cursor point, renderer.

package app

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"mandelscope/fractal"
	"mandelscope/internal/text"
)

// buildStatus makes the status bar: centre (selectable), zoom, iterations, precision mode,
// frame time, the point under the cursor and the renderer.
func (w *Window) buildStatus() fyne.CanvasObject {
	w.statusCentr = widget.NewLabel("")
	w.statusCentr.Selectable = true
	w.statusCentr.Truncation = fyne.TextTruncateEllipsis
	w.statusZoom = widget.NewLabel("")
	w.statusIter = widget.NewLabel("")
	w.statusMode = widget.NewLabel("")
	w.statusTime = widget.NewLabel("")
	for _, l := range []*widget.Label{w.statusZoom, w.statusIter, w.statusMode, w.statusTime} {
		l.Truncation = fyne.TextTruncateEllipsis // the bar fits the window's minimum width
	}
	w.statusPoint = widget.NewLabel("")
	w.statusPoint.Truncation = fyne.TextTruncateEllipsis
	w.statusRend = widget.NewLabel("")
	w.statusRend.Truncation = fyne.TextTruncateEllipsis
	row1 := container.NewGridWithColumns(2,
		container.NewBorder(nil, nil, widget.NewLabel("Centre"), nil, w.statusCentr),
		container.NewGridWithColumns(2, w.statusZoom, w.statusIter))
	row2 := container.NewGridWithColumns(4, w.statusMode, w.statusTime, w.statusPoint, w.statusRend)
	return container.NewVBox(widget.NewSeparator(), row1, row2)
}

// updateStatus writes the current view into the status bar.
func (w *Window) updateStatus() {
	l := w.Location()
	setText(w.statusCentr, centreText(l))
	setText(w.statusZoom, "zoom "+fractal.FormatZoom(l.ZoomExp()))
	iter := fmt.Sprintf("iterations %d", l.Iterations)
	if w.autoIter && w.autoBoost > 1 {
		iter += fmt.Sprintf(" (auto x%d)", w.autoBoost)
	}
	setText(w.statusIter, iter)
	pw, ph := w.view.pixelSize()
	setText(w.statusMode, w.modeText(fractal.NewFrame(l, max(pw, 1), max(ph, 1))))
	if w.gpuNote != "" {
		setText(w.statusRend, w.gpuNote)
	} else {
		setText(w.statusRend, w.rend.Name())
	}
}

// setText sets a label's text unless it already shows it (each change lays the text out
// again: a drag would do that for every label at every step).
func setText(l *widget.Label, s string) {
	if l.Text != s {
		l.SetText(s)
	}
}

// modeText is the precision mode of frame f on the current renderer.
func (w *Window) modeText(f fractal.Frame) string {
	if m, ok := w.rend.get().(moder); ok {
		return m.Mode(f)
	}
	switch f.Precision() {
	case fractal.Float32:
		return "float32 (CPU)"
	case fractal.Double:
		return "float64 (CPU)"
	default:
		return "perturbation (CPU)"
	}
}

// centreText is the centre with every digit: "RE + IMi".
func centreText(l fractal.Location) string {
	im := l.Im.String()
	sign := " + "
	if len(im) > 0 && im[0] == '-' {
		sign, im = " - ", im[1:]
	} else if len(im) > 0 && im[0] == '+' {
		im = im[1:]
	}
	return l.Re.String() + sign + im + "i"
}

// firstLine is s up to its first newline, clipped for the status bar: an error's headline.
func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			s = s[:i]
			break
		}
	}
	return text.Clip(s, 120)
}
