// The controls row: iterations (entry and Auto), palette, colouring (colouring.go), density
// and offset.
//
// Data flows one way. A control's callback is a user's event: it makes the new location and
// navigates there. The view reaches the controls only through syncControls, which writes the
// location into the widgets' fields and refreshes them, firing none of their callbacks, so no
// flag is needed to break a loop.

package app

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"strconv"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// commitEntry is a one-line entry whose text is applied when the user is done with it: on
// Enter (OnSubmitted) or when it loses the keyboard focus (onCommit), not at every keystroke.
type commitEntry struct {
	widget.Entry
	onCommit func(string)
	onEscape func()
}

func newCommitEntry() *commitEntry {
	e := &commitEntry{}
	e.ExtendBaseWidget(e)
	return e
}

// FocusLost applies the text, then lets the entry lose the focus as usual.
func (e *commitEntry) FocusLost() {
	e.Entry.FocusLost()
	if e.onCommit != nil {
		e.onCommit(e.Text)
	}
}

// TypedKey gives the picture the keyboard back on Escape (the text goes back to the view's).
func (e *commitEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}

// Slider ranges of the colouring controls (a location may hold values outside them, from the
// command line or a file: the slider then stands at its end and the value label says the
// real value).
const (
	densityMin, densityMax = 0.1, 8
	offsetMin, offsetMax   = 0, 1
)

// buildControls makes the iterations entry and Auto checkbox, the palette chooser and the
// density and offset sliders with their values. The row fits the window's minimum width: the
// sliders take the width that is left.
func (w *Window) buildControls() fyne.CanvasObject {
	w.iterEntry = newCommitEntry()
	w.iterEntry.Validator = validateIterations
	w.iterEntry.OnSubmitted = func(s string) {
		if w.applyIterations(s) {
			w.focusView()
		}
	}
	w.iterEntry.onCommit = func(s string) { w.applyIterations(s) }
	w.iterEntry.onEscape = func() {
		w.iterEntry.SetText(strconv.Itoa(w.Location().Iterations))
		w.focusView()
		w.iterNote.Hide()
	}
	w.iterNote = widget.NewLabel("")
	w.iterNote.Importance = widget.DangerImportance
	w.iterNote.Truncation = fyne.TextTruncateEllipsis
	w.iterNote.Hide()
	w.autoCheck = newKeyCheck(w, "Auto", func(on bool) {
		if on == w.autoIter {
			return
		}
		w.autoIter = on
		l := w.Location()
		if !on {
			l.Iterations = w.lastIters
			if n, err := fractal.ParseIterations(w.iterEntry.Text); err == nil {
				l.Iterations = n
			}
		}
		w.navigate(l, false)
	})
	w.paletteBtn = widget.NewButton("", func() {
		widget.ShowPopUpMenuAtRelativePosition(w.paletteMenu(), w.win.Canvas(), fyne.NewPos(0, w.paletteBtn.Size().Height), w.paletteBtn)
	})
	w.paletteBtn.Alignment = widget.ButtonAlignLeading
	w.paletteBtn.IconPlacement = widget.ButtonIconTrailingText
	w.densitySl = newKeySlider(w, densityMin, densityMax)
	w.densitySl.Step = 0.05
	w.densitySl.OnChanged = func(v float64) {
		w.colorChanged(true, func(c *colour.Coloring) { c.Density, c.AutoDensity = v, false })
	}
	w.densityVal = widget.NewLabel("")
	w.offsetSl = newKeySlider(w, offsetMin, offsetMax)
	w.offsetSl.Step = 0.01
	w.offsetSl.OnChanged = func(v float64) {
		w.colorChanged(true, func(c *colour.Coloring) { c.Offset = v })
	}
	w.offsetVal = widget.NewLabel("")
	shading := w.buildShading()
	w.syncControls()

	iter := container.NewGridWrap(fyne.NewSize(110, w.iterEntry.MinSize().Height), w.iterEntry)
	// The palette's chooser is as wide as its widest label, whatever the palette's name, so
	// that the row does not move under the pointer when the palette changes.
	w.paletteWidth = paletteButtonWidth(w.paletteBtn)
	palette := container.New(fixedWidth(w.paletteWidth), w.paletteBtn)
	shadingBox := container.New(fixedWidth(widestLabel(shading, shadingLabels())), shading)
	left := container.NewHBox(widget.NewLabel("Iterations"), iter, w.autoCheck,
		widget.NewLabel("Palette"), palette, shadingBox)
	w.controlsLeft = left
	value := func(l *widget.Label) fyne.CanvasObject {
		return container.NewGridWrap(fyne.NewSize(52, l.MinSize().Height), l)
	}
	density := container.NewBorder(nil, nil, widget.NewLabel("Density"), w.withDensityTap(value(w.densityVal)), w.densitySl)
	offset := container.NewBorder(nil, nil, widget.NewLabel("Offset"), value(w.offsetVal), w.offsetSl)
	row := container.New(&controlsLayout{w: w, rows: 1}, left, container.NewGridWithColumns(2, density, offset))
	return container.NewVBox(row, w.iterNote)
}

// minSliderGroup is the least width the density and offset sliders get on the controls row.
const minSliderGroup = 420

// controlsLayout puts the iterations and palette controls (objs[0]) and the sliders (objs[1])
// on one row when the window is wide enough for both, else on two rows, so that the window's
// minimum width is that of the wider group, not of both. Its minimum height follows the rows
// of its last layout; when they change it has the window laid out again.
type controlsLayout struct {
	w    *Window
	rows int
}

func (l *controlsLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	a, b := objs[0].MinSize(), objs[1].MinSize()
	h := max(a.Height, b.Height)
	return fyne.NewSize(max(a.Width, b.Width, minSliderGroup), h*float32(l.rows)+theme.Padding()*float32(l.rows-1))
}

func (l *controlsLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	a, b := objs[0].MinSize(), objs[1].MinSize()
	h := max(a.Height, b.Height)
	pad := theme.Padding()
	rows := 1
	if a.Width+pad+max(b.Width, minSliderGroup) > size.Width {
		rows = 2
	}
	objs[0].Move(fyne.Position{})
	objs[0].Resize(fyne.NewSize(a.Width, h))
	if rows == 1 {
		objs[1].Move(fyne.NewPos(a.Width+pad, 0))
		objs[1].Resize(fyne.NewSize(size.Width-a.Width-pad, h))
	} else {
		objs[1].Move(fyne.NewPos(0, h+pad))
		objs[1].Resize(fyne.NewSize(size.Width, h))
	}
	if rows != l.rows {
		l.rows = rows
		if l.w.win != nil {
			l.w.uiDo(func() { l.w.win.Content().Refresh() }) // the new height
		}
	}
}

// applyIterations applies the iterations typed into the entry; it says in the note under the
// controls why a value is refused (the view keeps its iterations) and reports whether the
// value was good.
func (w *Window) applyIterations(s string) bool {
	n, err := fractal.ParseIterations(strings.TrimSpace(s))
	if err != nil {
		w.iterNote.SetText("Iterations not changed: " + err.Error() + ".")
		w.iterNote.Show()
		return false
	}
	w.iterNote.Hide()
	if n == w.Location().Iterations {
		return true // nothing changed (Auto stays on when the text is its count)
	}
	w.autoIter = false
	w.lastIters = n
	l := w.Location()
	l.Iterations = n
	w.navigate(l, false)
	return true
}

// keyCheck is a checkbox that, once clicked, gives the keyboard back to the picture (Fyne's
// focuses itself on a click and would keep the picture's keys: Home, +, PageUp). Reached with
// Tab it keeps the focus, as any control does.
type keyCheck struct {
	widget.Check
	w *Window
}

func newKeyCheck(w *Window, label string, changed func(bool)) *keyCheck {
	c := &keyCheck{w: w}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

// Tapped toggles the box, then gives the keys back to the picture.
func (c *keyCheck) Tapped(ev *fyne.PointEvent) {
	c.Check.Tapped(ev)
	c.w.focusView()
}

// keySlider is a slider that, once clicked, gives the keyboard back to the picture, so that
// the arrows pan it rather than move the slider; reached with Tab it keeps the arrows.
type keySlider struct {
	widget.Slider
	w *Window
}

func newKeySlider(w *Window, lo, hi float64) *keySlider {
	s := &keySlider{w: w}
	s.Value, s.Min, s.Max, s.Step, s.Orientation = lo, lo, hi, 1, widget.Horizontal
	s.ExtendBaseWidget(s)
	return s
}

// Tapped moves the slider to the click, then gives the keys back to the picture.
func (s *keySlider) Tapped(ev *fyne.PointEvent) {
	s.Slider.Tapped(ev)
	s.w.focusView()
}

// focusView gives the keyboard back to the picture: with no widget focused, the window's
// keys (arrows, Home, +, -) navigate the view.
func (w *Window) focusView() {
	if w.win != nil {
		w.win.Canvas().Unfocus()
	}
}

// syncControls shows the current location in the controls. It sets the widgets' fields and
// refreshes them, which calls none of their callbacks (those are the user's events). An
// entry the user is editing keeps its text.
func (w *Window) syncControls() {
	l := w.Location()
	if w.win == nil || w.win.Canvas().Focused() != w.iterEntry {
		if n, err := fractal.ParseIterations(w.iterEntry.Text); err != nil || n != l.Iterations {
			w.iterEntry.SetText(strconv.Itoa(l.Iterations)) // OnChanged is not used
		}
	}
	if w.autoCheck.Checked != w.autoIter {
		w.autoCheck.Checked = w.autoIter
		w.autoCheck.Refresh()
	}
	// A gradient's name may be 64 characters: the chooser shows at most maxPaletteLabel, so
	// that the row keeps fitting the window's minimum width.
	if icon, text := paletteIcon(l.Color), w.paletteLabel(l.Color.Palette); w.paletteBtn.Text != text || w.paletteBtn.Icon != icon {
		w.paletteBtn.SetText(text)
		w.paletteBtn.SetIcon(icon)
	}
	if d := clampF(l.Color.Density, densityMin, densityMax); math.Abs(w.densitySl.Value-d) > 1e-9 {
		w.densitySl.Value = d
		w.densitySl.Refresh()
	}
	if o := clampF(l.Color.Offset, offsetMin, offsetMax); math.Abs(w.offsetSl.Value-o) > 1e-9 {
		w.offsetSl.Value = o
		w.offsetSl.Refresh()
	}
	if l.Color.AutoDensity {
		setText(w.densityVal, "auto") // until the slider moves: chosen from the view
	} else {
		setText(w.densityVal, formatValue(l.Color.Density))
	}
	setText(w.offsetVal, formatValue(l.Color.Offset))
	w.syncShading()
}

// paletteButtonWidth is the width of the palette's chooser b: a swatch and maxPaletteLabel
// letters of a usual width, the last an ellipsis (paletteLabel fits wider names to it).
func paletteButtonWidth(b *widget.Button) float32 {
	return max(paletteButtonFor(b, strings.Repeat("n", maxPaletteLabel-1)+"…").MinSize().Width, b.MinSize().Width)
}

// paletteButtonFor is a button like b saying text with a swatch, to measure.
func paletteButtonFor(b *widget.Button, text string) *widget.Button {
	probe := widget.NewButtonWithIcon(text, paletteIcon(colour.Coloring{}), nil)
	probe.Alignment, probe.IconPlacement = b.Alignment, b.IconPlacement
	return probe
}

// paletteLabel is what the chooser says for the palette called name: the name, cut to
// maxPaletteLabel characters, and further where its letters are wide, so that it fits the
// chooser's fixed width.
func (w *Window) paletteLabel(name string) string {
	text := clipLabel(name, maxPaletteLabel)
	for n := maxPaletteLabel - 1; n >= 2 && w.paletteWidth > 0 && paletteButtonFor(w.paletteBtn, text).MinSize().Width > w.paletteWidth; n-- {
		text = clipLabel(name, n)
	}
	return text
}

// widestLabel is the width of button b with the widest of labels (its text as it is included).
func widestLabel(b *widget.Button, labels []string) float32 {
	width := b.MinSize().Width
	for _, l := range labels {
		width = max(width, widget.NewButton(l, nil).MinSize().Width)
	}
	return width
}

// maxPaletteLabel is the most characters of a palette's name the chooser shows.
const maxPaletteLabel = 7

// clipLabel is s cut to n characters, the last an ellipsis, when it is longer.
func clipLabel(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func clampF(v, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, v)) }

// formatValue writes a colouring value shortly: "2.5", "0.25", "1e-05".
func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// paletteMenu lists the built-in palettes, then the user's gradients (userPaletteItems), each
// with its colours, the current one checked; choosing one applies it.
func (w *Window) paletteMenu() *fyne.Menu {
	cur := w.Location().Color
	var items []*fyne.MenuItem
	for _, name := range colour.PaletteNames() {
		item := fyne.NewMenuItem(name, func() {
			w.colorChanged(false, func(c *colour.Coloring) { c.Palette, c.Gradient = name, "" }) // a built-in, by name
		})
		item.Icon = paletteIcon(colour.Coloring{Palette: name})
		item.Checked = name == cur.Palette && cur.Gradient == ""
		items = append(items, item)
	}
	items = append(items, w.userPaletteItems(cur)...)
	return fyne.NewMenu("Palette", items...)
}

// paletteIcon is the swatch of the palette a colouring draws with (a user's gradient by
// value included) as an icon resource (PNG), made once per palette.
func paletteIcon(c colour.Coloring) fyne.Resource {
	key := c.Palette + "\x00" + c.Gradient
	paletteIconsMu.Lock()
	defer paletteIconsMu.Unlock()
	if r, ok := paletteIcons[key]; ok {
		return r
	}
	p, _ := c.ColorPalette() // an unknown palette has no stops: a black swatch
	src := paletteSwatch(p)
	const iw, ih = 64, 24
	img := image.NewRGBA(image.Rect(0, 0, iw, ih))
	for y := 0; y < ih; y++ {
		for x := 0; x < iw; x++ {
			img.Set(x, y, src.At(x*src.Bounds().Dx()/iw, 0))
		}
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img) // cannot fail on an in-memory RGBA
	r := fyne.NewStaticResource(fmt.Sprintf("palette-%d.png", len(paletteIcons)), buf.Bytes())
	paletteIcons[key] = r
	return r
}

var (
	paletteIconsMu sync.Mutex
	paletteIcons   = map[string]fyne.Resource{}
)

// paletteSwatch is one cycle of palette p, left to right (black when it has no stops).
func paletteSwatch(p colour.Palette) image.Image {
	const sw, sh = 64, 1
	img := image.NewRGBA(image.Rect(0, 0, sw, sh))
	for x := 0; x < sw; x++ {
		img.SetRGBA(x, 0, p.Color(colour.Sample{Nu: 32 * (float64(x) + 0.5) / sw}, colour.Coloring{Density: 1}))
	}
	return img
}

func validateIterations(s string) error {
	_, err := fractal.ParseIterations(strings.TrimSpace(s))
	return err
}

// colorChanged applies a colouring control's change to the view, unless the control stands
// where the view already has it; interactive is passed on to navigate.
func (w *Window) colorChanged(interactive bool, set func(*colour.Coloring)) {
	l := w.Location()
	old := l.Color
	set(&l.Color)
	if l.Color == old {
		return
	}
	w.navigate(l, interactive)
}
