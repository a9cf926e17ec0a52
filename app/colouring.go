// The colouring controls: the method (smooth, distance, slopes, angle, stripe, histogram), the
// transfer function, the inside's colouring (black, period, multiplier) and the method's
// parameters, in a small "Colouring" pop-up opened from the controls row (the
// row has no room for them at the window's minimum width). The pop-up also holds the escape
// radius (Location.Bailout), which shapes the angle and stripe colourings, and the stripe
// channel's density and count of last iterates (Location.StripeDensity, StripeLast), which
// shape the stripe colouring; they belong to the view: a change computes the view again, and
// only the Mandelbrot formula takes them.
//
// As with the other controls, data flows one way: a widget's callback is the user's event and
// navigates; syncShading writes the view's colouring into the widgets without firing them.

package app

import (
	"math"
	"strconv"

	"mandelscope/colour"
	"mandelscope/fractal"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Slider range of the light direction, in degrees (a location may hold up to
// ±colour.MaxLight: the slider then stands at its end and the label says the value).
const lightMin, lightMax = -180, 180

// shadingControls are the colouring method's widgets. They live as long as the window; the
// dialog that shows them is made when it is opened.
type shadingControls struct {
	button   *widget.Button // on the controls row: the method (and transfer); opens the dialog
	method   *escSelect
	transfer *escSelect
	interior *escSelect // how the inside is coloured: black, period, multiplier
	width    *escSlider // log10 of the line width in pixels
	widthVal *widget.Label
	light    *escSlider
	lightVal *widget.Label
	strength *escSlider
	strVal   *widget.Label
	bailout  *commitEntry   // the view's escape radius (Mandelbrot only); Enter or leaving it sets it
	stripeS  *commitEntry   // the view's stripe density S (stripe colouring, Mandelbrot only), likewise
	stripeK  *commitEntry   // the view's stripe last K (stripe colouring, Mandelbrot only), likewise
	dlg      *popupDialog   // the open pop-up, nil when closed
	gradient *widget.Button // in the pop-up: opens the gradient editor
}

// buildShading makes the colouring widgets and the row's button that opens them.
func (w *Window) buildShading() *widget.Button {
	s := &shadingControls{}
	w.shade = s
	s.method = newEscSelect(w, colour.Methods, func(m string) {
		if m == colour.MethodSmooth {
			m = ""
		}
		if why := w.formulaRefusal(m); why != "" {
			w.refuse(why)
			w.syncShading() // the method the view keeps
			return
		}
		w.colorChanged(false, func(c *colour.Coloring) { c.Method = m })
	})
	s.transfer = newEscSelect(w, colour.Transfers, func(t string) {
		if t == colour.TransferLinear {
			t = ""
		}
		w.colorChanged(false, func(c *colour.Coloring) { c.Transfer = t })
	})
	s.interior = newEscSelect(w, colour.Interiors, func(in string) {
		if in == colour.InteriorBlack {
			in = ""
		}
		w.colorChanged(false, func(c *colour.Coloring) { c.Interior = in })
	})
	s.width = newEscSlider(w, math.Log10(colour.MinWidth), math.Log10(colour.MaxWidth))
	s.width.Step = 0.01
	s.width.OnChanged = func(v float64) {
		px := roundWidth(math.Pow(10, v))
		w.colorChanged(true, func(c *colour.Coloring) { c.Width = px })
	}
	s.widthVal = widget.NewLabel("")
	s.light = newEscSlider(w, lightMin, lightMax)
	s.light.Step = 1
	s.light.OnChanged = func(v float64) {
		w.colorChanged(true, func(c *colour.Coloring) { c.Light = v })
	}
	s.lightVal = widget.NewLabel("")
	s.strength = newEscSlider(w, colour.MinStrength, colour.MaxStrength)
	s.strength.Step = 0.01
	s.strength.OnChanged = func(v float64) {
		w.colorChanged(true, func(c *colour.Coloring) { c.Strength = v })
	}
	s.strVal = widget.NewLabel("")
	s.bailout = newCommitEntry()
	s.bailout.OnSubmitted = func(v string) { w.applyBailout(v) }
	s.bailout.onCommit = func(v string) { w.applyBailout(v) }
	s.bailout.onEscape = func() {
		setEntry(s.bailout, formatBailout(w.Location()))
		w.closeTopDialog()
	}
	s.stripeS = w.newOrbitEntry(stripeDensityParam)
	s.stripeK = w.newOrbitEntry(stripeLastParam)
	s.button = widget.NewButton("", w.showShading)
	return s.button
}

// stripeParam is one of the view's stripe parameters as the pop-up edits it: its parser
// (fractal.ParseStripeDensity or ParseStripeLast: 1 to 64, the default's form 0), its value
// in a location (the default's form 0 included) and the value in effect.
type stripeParam struct {
	parse func(string) (int, error)
	ptr   func(*fractal.Location) *int
	shown func(fractal.Location) int
}

var (
	stripeDensityParam = stripeParam{fractal.ParseStripeDensity,
		func(l *fractal.Location) *int { return &l.StripeDensity }, fractal.Location.StripeS}
	stripeLastParam = stripeParam{fractal.ParseStripeLast,
		func(l *fractal.Location) *int { return &l.StripeLast }, fractal.Location.StripeK}
)

// newOrbitEntry makes the pop-up's field for the stripe parameter p: Enter or leaving it sets
// it (applyStripe), Escape shows the view's value again and closes the pop-up.
func (w *Window) newOrbitEntry(p stripeParam) *commitEntry {
	e := newCommitEntry()
	e.OnSubmitted = func(v string) { w.applyStripe(e, p, v) }
	e.onCommit = func(v string) { w.applyStripe(e, p, v) }
	e.onEscape = func() {
		setEntry(e, strconv.Itoa(p.shown(w.Location())))
		w.closeTopDialog()
	}
	return e
}

// applyStripe sets the view's stripe parameter p from its field e's text v, computing the
// view again (the STRIPE channel is the view's data, not its colouring); a value that is not
// a whole number from 1 to 64 is said in the status bar and the field shows the view's value
// again.
func (w *Window) applyStripe(e *commitEntry, p stripeParam, v string) {
	l := w.Location()
	k, err := p.parse(v)
	if err == nil && k != *p.ptr(&l) {
		*p.ptr(&l) = k
		err = l.Validate()
	}
	if err != nil {
		w.refuse(firstLine(err.Error()))
		setEntry(e, strconv.Itoa(p.shown(w.Location())))
		return
	}
	if cur := w.Location(); k != *p.ptr(&cur) {
		w.navigate(l, false)
	}
}

// applyBailout sets the view's escape radius from the pop-up's text v (fractal.ParseBailout:
// 2 to 1e10), computing the view again; a radius that is not a number in range, or one
// other than 2 for a formula other than Mandelbrot (Location.Validate's refusal), is said in
// the status bar and the field shows the view's radius again.
func (w *Window) applyBailout(v string) {
	l := w.Location()
	b, err := fractal.ParseBailout(v)
	if err == nil && b != l.Bailout {
		l.Bailout = b
		err = l.Validate()
	}
	if err != nil {
		w.refuse(firstLine(err.Error()))
		setEntry(w.shade.bailout, formatBailout(w.Location()))
		return
	}
	if b != w.Location().Bailout {
		w.navigate(l, false)
	}
}

// refuse says msg, why something asked was not done, in the status bar's message field as a
// note of the view, so that the frames still coming for it do not wipe it out.
func (w *Window) refuse(msg string) {
	w.note = foundNote{at: w.Location(), msg: msg}
	w.setMessage(msg)
}

// formatBailout is l's escape radius as the pop-up shows it.
func formatBailout(l fractal.Location) string {
	return strconv.FormatFloat(l.BailoutRadius(), 'g', -1, 64)
}

// roundWidth keeps a line width from the slider to three significant digits within the
// valid range, so that the value stored is the one the label shows.
func roundWidth(px float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(px, 'g', 3, 64), 64)
	return clampF(v, colour.MinWidth, colour.MaxWidth)
}

// shadingLabel is the row button's text: the method, and the transfer function when it is
// not linear ("smooth · log"), so that a picture drawn through log or sqrt says so (the
// histogram colouring, which no transfer function goes through, says its name alone).
func shadingLabel(c colour.Coloring) string {
	m := c.Method
	if m == "" {
		m = colour.MethodSmooth
	}
	if colour.TransferIndex(c.Transfer) > 0 && !c.IsHistogram() {
		return m + " · " + c.Transfer
	}
	return m
}

// shadingLabels is every text the row button can show (shadingLabel), whose widest sets its
// width.
func shadingLabels() []string {
	var out []string
	for _, m := range colour.Methods {
		for _, t := range colour.Transfers {
			out = append(out, shadingLabel(colour.Coloring{Method: m, Transfer: t}))
		}
	}
	return out
}

// showShading opens the Colouring pop-up under its button (Escape, Close or a tap outside
// closes it; the picture stays in sight, so each change shows as it is made).
func (w *Window) showShading() {
	w.pruneDialogs() // one hidden by a tap outside
	s := w.shade
	if s.dlg != nil {
		return
	}
	value := func(l *widget.Label) fyne.CanvasObject {
		return container.NewGridWrap(fyne.NewSize(64, l.MinSize().Height), l)
	}
	row := func(sl *escSlider, l *widget.Label) fyne.CanvasObject {
		return container.NewBorder(nil, nil, nil, value(l), sl)
	}
	form := widget.NewForm(
		widget.NewFormItem("Colouring", s.method),
		widget.NewFormItem("Transfer", s.transfer),
		widget.NewFormItem("Inside", s.interior),
		widget.NewFormItem("Line width", row(s.width, s.widthVal)),
		widget.NewFormItem("Light", row(s.light, s.lightVal)),
		widget.NewFormItem("Strength", row(s.strength, s.strVal)),
		widget.NewFormItem("Escape radius", container.NewBorder(nil, nil, nil, widget.NewLabel("2 to 1e10 (Mandelbrot)"), s.bailout)),
		widget.NewFormItem("Stripe density", container.NewBorder(nil, nil, nil,
			container.NewHBox(widget.NewLabel("last"), container.NewGridWrap(fyne.NewSize(64, s.stripeK.MinSize().Height), s.stripeK), widget.NewLabel("1 to 64")),
			s.stripeS)),
	)
	// Short lines, and the buttons on a row of their own, so that the pop-up fits a window of
	// the minimum width (TestPopUpsFitTheMinimumWidth).
	hint := widget.NewLabel("Line width is for distance; light and strength for slopes;\nstrength for angle and stripe; stripe density and last (the\niterates averaged) for stripe. The escape radius and the\nstripe's parameters belong to the view: a change computes it\nagain.")
	var d *popupDialog
	title := widget.NewLabelWithStyle("Colouring", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	closeBtn := widget.NewButton("Close", func() { d.Hide() })
	// The gradient editor, beside the colouring (not only under File).
	s.gradient = widget.NewButtonWithIcon("Edit gradient...", theme.ColorPaletteIcon(), func() {
		d.Hide()
		w.showGradientEditor()
	})
	content := container.NewVBox(title, form, hint, container.NewHBox(layout.NewSpacer(), s.gradient, closeBtn))
	d = newPopupDialog(content, w.win.Canvas(), func() fyne.Position {
		p := fyne.CurrentApp().Driver().AbsolutePositionForObject(s.button)
		return p.AddXY(0, s.button.Size().Height)
	})
	d.SetOnClosed(func() { s.dlg = nil })
	s.dlg = d
	w.syncShading()
	w.showDialog(d)
}

// syncShading shows the view's colouring method and parameters in their widgets, firing none
// of their callbacks; the parameters the method does not use are disabled.
func (w *Window) syncShading() {
	s := w.shade
	c := w.Location().Color
	setButton(s.button, shadingLabel(c))
	m := c.Method
	if m == "" {
		m = colour.MethodSmooth
	}
	t := c.Transfer
	if t == "" {
		t = colour.TransferLinear
	}
	setSelected(&s.method.Select, m)
	setSelected(&s.transfer.Select, t)
	in := c.Interior
	if in == "" {
		in = colour.InteriorBlack
	}
	setSelected(&s.interior.Select, in)
	setSlider(&s.width.Slider, clampF(math.Log10(c.LineWidth()), s.width.Min, s.width.Max))
	setSlider(&s.light.Slider, clampF(c.Light, lightMin, lightMax))
	setSlider(&s.strength.Slider, clampF(c.LightStrength(), colour.MinStrength, colour.MaxStrength))
	setText(s.widthVal, formatValue(c.LineWidth())+" px")
	setText(s.lightVal, formatValue(c.Light)+"°")
	setText(s.strVal, formatValue(c.LightStrength()))
	enable(m == colour.MethodDistance, s.width)
	enable(m == colour.MethodSlopes, s.light, s.strength)
	if w.win == nil || w.win.Canvas().Focused() != s.bailout {
		setEntry(s.bailout, formatBailout(w.Location()))
	}
	enable(w.Location().Formula.IsMandelbrot(), s.bailout)
	for _, f := range []struct {
		e *commitEntry
		v int
	}{{s.stripeS, w.Location().StripeS()}, {s.stripeK, w.Location().StripeK()}} {
		if w.win == nil || w.win.Canvas().Focused() != f.e {
			setEntry(f.e, strconv.Itoa(f.v))
		}
	}
	enable(w.Location().Formula.IsMandelbrot() && m == colour.MethodStripe, s.stripeS, s.stripeK)
}

// setEntry shows text in e without firing its callbacks (OnChanged is not used by the
// pop-up's entry).
func setEntry(e *commitEntry, text string) {
	if e.Text != text {
		e.SetText(text)
	}
}

func setButton(b *widget.Button, text string) {
	if b.Text != text {
		b.SetText(text)
	}
}

func setSelected(s *widget.Select, v string) {
	if s.Selected != v {
		s.Selected = v // SetSelected would call OnChanged
		s.Refresh()
	}
}

func setSlider(s *widget.Slider, v float64) {
	if math.Abs(s.Value-v) > 1e-9 {
		s.Value = v // SetValue would call OnChanged
		s.Refresh()
	}
}

func enable(on bool, ws ...fyne.Disableable) {
	for _, x := range ws {
		if on && x.Disabled() {
			x.Enable()
		} else if !on && !x.Disabled() {
			x.Disable()
		}
	}
}

// escSelect and escSlider are the pop-up's select and slider: Escape closes the pop-up while
// they have the keyboard focus too (Fyne's ignore it, and the window's key handler does not
// see keys a focused widget takes).
type escSelect struct {
	widget.Select
	w *Window
}

func newEscSelect(w *Window, options []string, changed func(string)) *escSelect {
	s := &escSelect{w: w}
	s.Options, s.OnChanged = options, changed
	s.ExtendBaseWidget(s)
	return s
}

// TypedKey closes the pop-up on Escape; other keys work as in a select.
func (s *escSelect) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && s.w.closeTopDialog() {
		return
	}
	s.Select.TypedKey(k)
}

type escSlider struct {
	widget.Slider
	w *Window
}

func newEscSlider(w *Window, lo, hi float64) *escSlider {
	s := &escSlider{w: w}
	s.Value, s.Min, s.Max, s.Step, s.Orientation = lo, lo, hi, 1, widget.Horizontal
	s.ExtendBaseWidget(s)
	return s
}

// TypedKey closes the pop-up on Escape; other keys work as in a slider.
func (s *escSlider) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && s.w.closeTopDialog() {
		return
	}
	s.Slider.TypedKey(k)
}
