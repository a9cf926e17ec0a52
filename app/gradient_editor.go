// The gradient editor: a pop-up that shows the view's gradient as a strip and its stops as
// rows (position, colour through Fyne's colour picker, delete), adds stops up to
// colour.MaxStops, draws every change in the view at once (throttled), and saves the result
// under a name in the user's gradients folder.

package app

import (
	"errors"
	"fmt"
	"image/color"
	"sort"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/colour"
	"mandelscope/gradients"
	"mandelscope/internal/text"
)

// gradientPreviewEvery is the least time between two redraws of the view while stops change.
const gradientPreviewEvery = 120 * time.Millisecond

// gradientEditor is the state of an open editor. Its stops always have positions.
type gradientEditor struct {
	w         *Window
	g         colour.Gradient
	table     []color.RGBA // g's colours, drawn by strip
	strip     *canvas.Raster
	rows      *fyne.Container
	add       *widget.Button
	note      *widget.Label // why the stops are not applied (hidden when they are)
	name      *escEntry
	dlg       *popupDialog
	scheduled bool // a preview is due
	closed    bool
}

// showGradientEditor opens the editor on the view's gradient (a built-in palette's stops when
// it draws with one).
func (w *Window) showGradientEditor() { w.openGradientEditor() }

func (w *Window) openGradientEditor() *gradientEditor {
	name, g, err := w.viewGradient()
	if err != nil {
		w.ShowError(err)
		return nil
	}
	e := &gradientEditor{w: w, g: withPositions(g)}
	e.table = e.g.Table()
	e.strip = canvas.NewRasterWithPixels(func(x, _, wd, _ int) color.Color {
		if wd <= 0 || len(e.table) == 0 {
			return color.Black
		}
		return e.table[x*len(e.table)/wd]
	})
	e.strip.SetMinSize(fyne.NewSize(380, 32))
	e.rows = container.NewVBox()
	e.add = widget.NewButtonWithIcon("Add stop", theme.ContentAddIcon(), e.addStop)
	e.note = widget.NewLabel("")
	e.note.Importance = widget.DangerImportance
	e.note.Hide()
	e.name = newEscEntry(w)
	if _, err := colour.PaletteByName(name); err == nil {
		name += "-edited" // a built-in's name cannot be saved
	}
	e.name.SetText(name)
	save := widget.NewButton("Save as...", e.saveAsking)
	e.buildRows()
	scroll := container.NewVScroll(e.rows)
	scroll.SetMinSize(fyne.NewSize(380, 210))
	var d *popupDialog
	title := widget.NewLabelWithStyle("Edit gradient", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	closeBtn := widget.NewButton("Close", func() { d.Hide() })
	e.note.Wrapping = fyne.TextWrapWord
	bottom := container.NewVBox(e.note, container.NewBorder(nil, nil, widget.NewLabel("Name"), save, e.name),
		container.NewBorder(nil, nil, nil, closeBtn))
	content := container.NewBorder(container.NewVBox(container.NewBorder(nil, nil, nil, e.add, title), e.strip),
		bottom, nil, nil, scroll)
	// A pop-up at the window's left under the controls, not a modal dialog: the picture
	// stays in sight (a tap on it closes the editor; the view keeps the stops, so reopening
	// it carries on).
	d = newPopupDialog(content, w.win.Canvas(), func() fyne.Position {
		p := fyne.CurrentApp().Driver().AbsolutePositionForObject(w.paletteBtn)
		return fyne.NewPos(0, p.Y+w.paletteBtn.Size().Height)
	})
	d.SetOnClosed(func() { e.closed = true })
	e.dlg = d
	w.showDialog(d)
	return e
}

// withPositions is g with every stop's position written out (equally spaced stops get i/n).
func withPositions(g colour.Gradient) colour.Gradient {
	out := colour.Gradient{Stops: append([]color.RGBA(nil), g.Stops...), Pos: append([]float64(nil), g.Pos...)}
	if g.Pos == nil {
		out.Pos = make([]float64, len(g.Stops))
		for i := range out.Pos {
			out.Pos[i] = float64(i) / float64(len(g.Stops))
		}
	}
	return out
}

// buildRows remakes the stop rows from e.g.
func (e *gradientEditor) buildRows() {
	e.rows.Objects = nil
	for i := range e.g.Stops {
		e.rows.Add(e.stopRow(i))
	}
	e.rows.Refresh()
	if len(e.g.Stops) >= colour.MaxStops {
		e.add.Disable()
	} else {
		e.add.Enable()
	}
}

// stopRow is stop i's row: its position (applied on Enter or leaving the field), its colour
// (a swatch button that opens the colour picker) and a delete button (a gradient keeps at
// least two stops).
func (e *gradientEditor) stopRow(i int) fyne.CanvasObject {
	pos := newCommitEntry()
	pos.SetText(formatPos(e.g.Pos[i]))
	pos.onCommit = func(s string) { e.setPos(i, s) }
	pos.OnSubmitted = func(s string) { e.setPos(i, s) }
	swatch := canvas.NewRectangle(e.g.Stops[i])
	swatch.SetMinSize(fyne.NewSize(36, 24))
	hex := widget.NewLabel(hexColour(e.g.Stops[i]))
	pick := widget.NewButton("Pick", func() { e.pickColour(i) })
	del := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { e.deleteStop(i) })
	if len(e.g.Stops) <= 2 {
		del.Disable()
	}
	posBox := container.NewGridWrap(fyne.NewSize(90, pos.MinSize().Height), pos)
	return container.NewHBox(widget.NewLabel(fmt.Sprintf("%d", i+1)), posBox, swatch, hex, pick, del)
}

// formatPos writes a stop's position to 3 decimals ("0.143" for 1/7): the field shows that,
// and the stop keeps its exact position until another is typed (setPos).
func formatPos(p float64) string { return strconv.FormatFloat(p, 'f', 3, 64) }

func hexColour(c color.RGBA) string { return fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B) }

// setPos applies a typed position to stop i: a number from 0 to 1, between its neighbours'.
func (e *gradientEditor) setPos(i int, s string) {
	if i >= len(e.g.Pos) {
		return
	}
	if strings.TrimSpace(s) == formatPos(e.g.Pos[i]) {
		e.note.Hide()
		return // the position as shown, unchanged: the exact one stays
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case err != nil:
		e.problem(fmt.Sprintf("stop %d: position %q is not a number", i+1, text.Clip(s, 120)))
		return
	case !(v >= 0 && v <= 1):
		e.problem(fmt.Sprintf("stop %d: position %s is outside 0 to 1", i+1, text.Clip(s, 120)))
		return
	case i > 0 && v < e.g.Pos[i-1], i+1 < len(e.g.Pos) && v > e.g.Pos[i+1]:
		e.problem(fmt.Sprintf("stop %d: position %s is not between its neighbours' (positions never decrease)", i+1, text.Clip(s, 120)))
		return
	}
	if v == e.g.Pos[i] {
		e.note.Hide()
		return
	}
	e.g.Pos[i] = v
	e.changed(false)
}

func (e *gradientEditor) problem(s string) {
	e.note.SetText("Not applied: " + s + ".")
	e.note.Show()
}

// pickColour opens the colour chooser on stop i's colour; its Confirm gives the stop the
// colour chosen (a swatch only shows it).
func (e *gradientEditor) pickColour(i int) *colourChooser {
	if i >= len(e.g.Stops) {
		return nil
	}
	ch := newColourChooser(e.w, fmt.Sprintf("Colour of stop %d", i+1), e.g.Stops[i], func(c color.RGBA) {
		e.setColour(i, c)
	})
	e.w.showDialog(ch.dlg)
	return ch
}

// setColour gives stop i the colour c (opaque).
func (e *gradientEditor) setColour(i int, c color.Color) {
	if i >= len(e.g.Stops) || c == nil {
		return
	}
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	e.g.Stops[i] = color.RGBA{n.R, n.G, n.B, 255}
	e.changed(true)
}

// addStop adds a stop in the middle of the widest gap between neighbouring stops (the
// cycle's wrap included), with the colour the gradient has there.
func (e *gradientEditor) addStop() {
	n := len(e.g.Stops)
	if n >= colour.MaxStops {
		return
	}
	best, gap := n-1, 1+e.g.Pos[0]-e.g.Pos[n-1]
	for i := 0; i+1 < n; i++ {
		if d := e.g.Pos[i+1] - e.g.Pos[i]; d > gap {
			best, gap = i, d
		}
	}
	p := e.g.Pos[best] + gap/2
	if p >= 1 {
		p--
	}
	p, _ = strconv.ParseFloat(strconv.FormatFloat(p, 'f', 4, 64), 64) // a position people can read
	c := e.g.At(p)
	k := sort.SearchFloat64s(e.g.Pos, p)
	for k < n && e.g.Pos[k] == p {
		k++
	}
	e.g.Pos = append(e.g.Pos[:k], append([]float64{p}, e.g.Pos[k:]...)...)
	e.g.Stops = append(e.g.Stops[:k], append([]color.RGBA{c}, e.g.Stops[k:]...)...)
	e.changed(true)
}

// deleteStop removes stop i (two stops stay at least).
func (e *gradientEditor) deleteStop(i int) {
	if len(e.g.Stops) <= 2 || i >= len(e.g.Stops) {
		return
	}
	e.g.Stops = append(e.g.Stops[:i], e.g.Stops[i+1:]...)
	e.g.Pos = append(e.g.Pos[:i], e.g.Pos[i+1:]...)
	e.changed(true)
}

// changed redraws the strip (and the rows when rebuild), and has the view draw the stops
// soon: at most one redraw of the view each gradientPreviewEvery.
func (e *gradientEditor) changed(rebuild bool) {
	e.note.Hide()
	e.table = e.g.Table()
	e.strip.Refresh()
	if rebuild {
		e.buildRows()
	}
	if e.scheduled {
		return
	}
	e.scheduled = true
	time.AfterFunc(gradientPreviewEvery, func() { e.w.uiDo(e.preview) })
}

// preview draws the view with the edited stops, under the name in the name field (or the
// view's palette name when the field's is not a gradient name).
func (e *gradientEditor) preview() {
	e.scheduled = false
	if e.closed {
		return
	}
	g, err := colour.ParseGradientText(e.g.Text())
	if err != nil {
		e.problem(err.Error())
		return
	}
	name := strings.TrimSpace(e.name.Text)
	if colour.ValidGradientName(name) != nil {
		name = "edited"
	}
	e.w.colorChanged(true, func(c *colour.Coloring) { *c = c.WithGradient(name, g) })
}

// save writes the stops as the user gradient named in the name field, replacing one of that
// name only when replace is true; the view then draws with it under that name.
func (e *gradientEditor) save(replace bool) error {
	name := strings.TrimSpace(e.name.Text)
	if err := colour.ValidGradientName(name); err != nil {
		return err
	}
	g, err := colour.ParseGradientText(e.g.Text())
	if err != nil {
		return err
	}
	dir, err := gradients.Dir()
	if err != nil {
		return err
	}
	if err := gradients.Save(dir, name, g, replace); err != nil {
		return err
	}
	e.w.colorChanged(false, func(c *colour.Coloring) { *c = c.WithGradient(name, g) })
	e.w.setMessage("gradient " + name + " saved")
	return nil
}

// saveAsking saves, asking before it replaces a gradient of the same name.
func (e *gradientEditor) saveAsking() {
	err := e.save(false)
	if errors.Is(err, gradients.ErrExists) {
		name := strings.TrimSpace(e.name.Text)
		e.w.showConfirm("Replace gradient?", fmt.Sprintf("A gradient called %q exists already. Replace it?", name),
			"Replace", "Cancel", func(ok bool) {
				if ok {
					e.w.ShowError(e.save(true))
				}
			})
		return
	}
	e.w.ShowError(err)
}
