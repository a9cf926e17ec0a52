// The status bar: centre, zoom, iterations, precision mode, frame time, cursor point, renderer.
//
// At depth a centre has thousands of digits, the point under the cursor as many, and a
// renderer may explain its mode at length; the bar shows each field so that it fits at
// 1280 px (long numbers as their leading digits with the count, a short mode name) and keeps
// the full text a tooltip or a click away.

package app

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/fractal"
	"mandelscope/internal/text"
)

// statusBar keeps what the status bar's fields abbreviate: a field's full text, when it
// shows less, for its tooltip or its "more" button.
type statusBar struct {
	full map[*widget.Label]string
	row1 *fyne.Container // centre, zoom, iterations, mode
	row2 *fyne.Container // message (frame time), point under the cursor, renderer
	what *widget.Label   // "Centre", or in a Julia view "Julia set"

	centreMore fyne.CanvasObject // a button that shows the centre's every digit; hidden while the centre shows them
}

// The widest texts the fixed fields of the status bar hold, their widths kept whatever they
// show (so that the fields do not move as the texts change): the zoom at any depth, the
// iterations at the most with the largest boost, the longest short mode, a frame time.
const (
	zoomTemplate = "zoom 3.162e1086"
	iterTemplate = "iterations 1000000 (auto x64)"
	modeTemplate = "perturbation exp (GPU fp64)"
	timeTemplate = "frame 12345 ms (blocks 2.5 px)"
	// rendCap is the most the renderer's field takes; a longer name shows in its tooltip.
	rendCap = 340
)

// buildStatus makes the status bar: on one row the centre (selectable), zoom, iterations and
// precision mode, on the other the frame time, the point under the cursor and the renderer.
// The centre and the point take what the others leave.
func (w *Window) buildStatus() fyne.CanvasObject {
	w.bar.full = map[*widget.Label]string{}
	w.statusCentr = widget.NewLabel("")
	w.statusCentr.Selectable = true
	w.statusZoom = widget.NewLabel("")
	w.statusIter = widget.NewLabel("")
	w.statusMode = widget.NewLabel("")
	w.statusTime = widget.NewLabel("")
	w.statusPoint = widget.NewLabel("")
	w.statusRend = widget.NewLabel("")
	for _, l := range []*widget.Label{w.statusCentr, w.statusZoom, w.statusIter, w.statusMode, w.statusTime, w.statusPoint, w.statusRend} {
		l.Truncation = fyne.TextTruncateEllipsis // the bar fits the window's minimum width
	}
	more := widget.NewButtonWithIcon("", theme.MoreHorizontalIcon(), func() { w.showFullCentre() })
	more.Importance = widget.LowImportance
	w.bar.centreMore = w.withTip(more, "The centre's every digit")
	w.bar.centreMore.Hide()
	tipped := func(l *widget.Label) fyne.CanvasObject {
		return container.NewStack(l, newTipArea(w, l, func() string { return w.statusTip(l) }))
	}
	fixed := func(template string) float32 { return labelWidth(template) }
	w.bar.what = widget.NewLabel("Centre")
	w.bar.row1 = container.New(&statusRow{flex: 1, widths: []float32{-1, 0, -1, fixed(zoomTemplate), fixed(iterTemplate), fixed(modeTemplate)}},
		w.bar.what, w.statusCentr, w.bar.centreMore,
		tipped(w.statusZoom), tipped(w.statusIter), tipped(w.statusMode))
	rend := tipped(w.statusRend)
	w.bar.row2 = container.New(&statusRow{flex: 1, widths: []float32{fixed(timeTemplate), 0, -1}, natural: map[int]func() float32{
		0: func() float32 { return messageWidth(w.statusTime.Text) },
		2: func() float32 { return min(labelWidth(w.statusRend.Text), rendCap) },
	}}, tipped(w.statusTime), tipped(w.statusPoint), rend)
	return container.NewVBox(widget.NewSeparator(), w.bar.row1, w.bar.row2)
}

// messageWidth is the width of the message field (the frame time, a search's result, "at the
// edge"...) for text s: what shows it whole, in steps of messageStep so that the fields beside
// it do not move at every frame, from a frame time's width up to messageCap (a longer message
// is cut, whole in its tooltip). In a narrow window the row shrinks it with the others.
func messageWidth(s string) float32 {
	least := labelWidth(timeTemplate)
	need := labelWidth(s)
	if need <= least {
		return least
	}
	return min(float32(math.Ceil(float64(need/messageStep)))*messageStep, messageCap)
}

// messageStep and messageCap bound the message field's width (messageWidth): at 1280 px the
// cap leaves the point under the cursor and the renderer their room.
const (
	messageStep = 48
	messageCap  = 620
)

// setMessage shows s in the status bar's message field, widening or narrowing the field to it
// (messageWidth): "minibrot of period 58 · samples 3/16" shows whole, not cut after "samp".
func (w *Window) setMessage(s string) {
	if w.statusTime.Text == s {
		return
	}
	before := messageWidth(w.statusTime.Text)
	w.statusTime.SetText(s)
	if messageWidth(s) != before && w.bar.row2 != nil {
		w.bar.row2.Refresh() // lays the row out again
	}
}

// updateStatus writes the current view into the status bar.
func (w *Window) updateStatus() {
	l := w.Location()
	full := centreText(l)
	short := shortCentre(l)
	what := "Centre"
	if l.IsJulia() {
		// The mode and the parameter first: "Julia set | c = RE + IMi, centre RE + IMi".
		c := juliaC(l)
		full = "c = " + centreText(c) + ", centre " + full
		short = "c = " + shortCentre(c) + ", centre " + short
		what = "Julia set"
	}
	if !l.Formula.IsMandelbrot() {
		// The formula names the set: "Burning Ship (power 3)", "Julia set (Mandelbar)".
		name := strings.TrimPrefix(l.Formula.Title(), "the ")
		if l.IsJulia() {
			what += " (" + name + ")"
		} else {
			what = name
		}
	}
	if l.Rotation != 0 {
		what += ", turned " + rotationText(l.Rotation) // "Centre, turned 37°"
	}
	if w.bar.what.Text != what {
		w.bar.what.SetText(what)
		w.bar.row1.Refresh()
	}
	w.setField(w.statusCentr, short, full)
	if abbreviated := short != full; abbreviated != w.bar.centreMore.Visible() {
		if abbreviated {
			w.bar.centreMore.Show()
		} else {
			w.bar.centreMore.Hide()
		}
		w.bar.row1.Refresh()
	}
	setText(w.statusZoom, "zoom "+fractal.FormatZoom(l.ZoomExp()))
	iter := fmt.Sprintf("iterations %d", l.Iterations)
	if w.autoIter && w.autoBoost > 1 {
		iter += fmt.Sprintf(" (auto x%d)", w.autoBoost)
	}
	setText(w.statusIter, iter)
	pw, ph := w.view.pixelSize()
	f := fractal.NewFrame(l, max(pw, 1), max(ph, 1))
	mode := w.modeText(f)
	w.setField(w.statusMode, shortMode(mode, f.Precision()), mode)
	rend := w.rend.Name()
	if w.gpuNote != "" {
		rend = w.gpuNote
	}
	if w.statusRend.Text != rend {
		w.statusRend.SetText(rend)
		w.bar.row2.Refresh() // its width follows the text (up to rendCap)
	}
}

// setPoint shows the report of the point under the cursor (probeText; "" clears it), its
// numbers cut to their leading digits when long.
func (w *Window) setPoint(s string) { w.setField(w.statusPoint, shortPoint(s), s) }

// setField shows short in label l and keeps full for its tooltip.
func (w *Window) setField(l *widget.Label, short, full string) {
	if short == full {
		delete(w.bar.full, l)
	} else {
		w.bar.full[l] = full
	}
	setText(l, short)
}

// fullText is what field l says in full: its text, or what that abbreviates.
func (w *Window) fullText(l *widget.Label) string {
	if s, ok := w.bar.full[l]; ok {
		return s
	}
	return l.Text
}

// statusTip is the tooltip of field l: its full text when it shows less (abbreviated, or
// cut by the field's width), else none.
func (w *Window) statusTip(l *widget.Label) string {
	full := w.fullText(l)
	if full == l.Text && labelWidth(full) <= l.Size().Width {
		return ""
	}
	return text.Clip(full, 240)
}

// showFullCentre shows the centre with every digit, selectable, with a button that copies it;
// it returns the entry that holds them.
func (w *Window) showFullCentre() *widget.Entry {
	l := w.Location()
	e := widget.NewMultiLineEntry()
	e.Wrapping = fyne.TextWrapBreak
	e.SetText("re=" + l.Re.String() + "\nim=" + l.Im.String())
	e.SetMinRowsVisible(8)
	titleText := fmt.Sprintf("Centre (%d + %d digits)", countDigits(l.Re.String()), countDigits(l.Im.String()))
	if l.IsJulia() {
		// The parameter as the location text writes it (Go to Location reads it back).
		e.SetText("julia=" + l.Julia.String() + "\nre=" + l.Re.String() + "\nim=" + l.Im.String())
		titleText = fmt.Sprintf("Julia set of c (%d + %d digits), centre (%d + %d digits)",
			countDigits(l.Julia.Re.String()), countDigits(l.Julia.Im.String()), countDigits(l.Re.String()), countDigits(l.Im.String()))
	}
	var pop *widget.PopUp
	copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		w.app.Clipboard().SetContent(e.Text)
		w.setMessage("centre copied to the clipboard")
	})
	closeBtn := widget.NewButton("Close", func() { pop.Hide() })
	title := widget.NewLabel(titleText)
	content := container.NewBorder(title, container.NewHBox(copyBtn, closeBtn), nil, nil, e)
	pop = widget.NewModalPopUp(content, w.win.Canvas())
	size := w.win.Canvas().Size()
	pop.Resize(fyne.NewSize(min(size.Width*0.8, 900), min(size.Height*0.6, 420)))
	pop.Show()
	return e
}

// labelWidth is the width a label needs to show s whole: its text and padding, and labelSlack.
func labelWidth(s string) float32 {
	return fyne.MeasureText(s, theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding() + labelSlack
}

// labelSlack is room beyond the measured width: on the GL driver a truncating label given
// exactly its measure cut its last letters ("CPU renderer (chose…", seen under Xvfb at scale 1),
// the glyphs drawn on whole pixels.
const labelSlack = 3

// statusRow lays out a row of the status bar: the child at flex takes what the others
// leave, at least a quarter of the row; the others take widths[i] (> 0), their natural width
// (natural[i], or their MinSize when widths[i] is -1). When the row is too narrow for them all,
// the fixed ones shrink in proportion (their labels cut the text with an ellipsis). Hidden
// children take no room.
type statusRow struct {
	flex    int
	widths  []float32
	natural map[int]func() float32
}

func (r *statusRow) want(i int, o fyne.CanvasObject) float32 {
	if !o.Visible() || i == r.flex {
		return 0
	}
	if f := r.natural[i]; f != nil {
		return f()
	}
	if i < len(r.widths) && r.widths[i] > 0 {
		return r.widths[i]
	}
	return o.MinSize().Width
}

// keeps reports whether child i keeps its natural width in a narrow row: a short label or
// button of its own size (widths[i] -1: "Centre", "Julia set", the centre's button), which an
// ellipsis would make unreadable.
func (r *statusRow) keeps(i int) bool {
	return i < len(r.widths) && r.widths[i] < 0 && r.natural[i] == nil
}

// Layout places the children left to right.
func (r *statusRow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Padding()
	var fixed, natural float32 // the widths that shrink in a narrow row, and those that do not
	shown := 0
	for i, o := range objs {
		if r.keeps(i) {
			natural += r.want(i, o)
		} else {
			fixed += r.want(i, o)
		}
		if o.Visible() {
			shown++
		}
	}
	avail := size.Width - pad*float32(max(shown-1, 0))
	// The flexible child keeps at least a quarter of a narrow row (a label given no width at
	// all draws its whole text over its neighbours'); the fixed ones shrink to the rest.
	var flexMin float32
	if r.flex >= 0 && r.flex < len(objs) && objs[r.flex].Visible() {
		flexMin = max(avail, 0) / 4
	}
	flexW := max(avail-natural-fixed, flexMin)
	scale := float32(1)
	if rest := avail - natural - flexW; fixed > rest && fixed > 0 {
		scale = max(rest, 0) / fixed
	}
	x := float32(0)
	for i, o := range objs {
		if !o.Visible() {
			continue
		}
		w := r.want(i, o)
		if !r.keeps(i) {
			w *= scale
		}
		if i == r.flex {
			w = flexW
		}
		o.Move(fyne.NewPos(x, 0))
		o.Resize(fyne.NewSize(w, size.Height))
		x += w + pad
	}
}

// MinSize is the height of the tallest child; the row's width is the window's business (its
// labels cut their text).
func (r *statusRow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var h float32
	for _, o := range objs {
		if o.Visible() {
			h = max(h, o.MinSize().Height)
		}
	}
	return fyne.NewSize(0, h)
}

// setText sets a label's text unless it already shows it (each change lays the text out
// again: a drag would do that for every label at every step).
func setText(l *widget.Label, s string) {
	if l.Text != s {
		l.SetText(s)
	}
}

// modeText is the precision mode of frame f on the current renderer, as the renderer says it.
func (w *Window) modeText(f fractal.Frame) string {
	if m, ok := w.rend.get().(moder); ok {
		return m.Mode(f)
	}
	switch f.Precision() {
	case fractal.Float32:
		return "float32 (CPU)"
	case fractal.Double:
		return "float64 (CPU)"
	case fractal.PerturbationExp:
		return "perturbation exp (CPU)"
	default:
		return "perturbation (CPU)"
	}
}

// shortMode is mode (modeText, at precision p) as the status bar shows it: the arithmetic and
// where it runs, "perturbation (CPU)", "perturbation exp (GPU fp64)", "double (GPU
// float-float)", "rings (CPU)"; why a GPU renderer leaves a frame to the CPU goes to the
// tooltip. A text of no known form is kept.
func shortMode(mode string, p fractal.Precision) string {
	// The extended exponent's precision text carries its own parenthesis:
	// "perturbation (extended exponent) (CPU: ...)".
	if rest, ok := strings.CutPrefix(mode, fractal.PerturbationExp.String()+" ("); ok {
		mode = "perturbation exp (" + rest
	}
	head, paren, ok := strings.Cut(mode, " (")
	if !ok {
		head, paren = mode, ""
	}
	paren = strings.TrimSuffix(paren, ")")
	switch head {
	case "float32", "float64", "double", "perturbation", "perturbation exp", "rings":
	default:
		return mode
	}
	if head == "perturbation" && (p == fractal.PerturbationExp || strings.Contains(paren, "extended exponent")) {
		head = "perturbation exp"
	}
	switch {
	case paren == "CPU" || strings.HasPrefix(paren, "CPU:"):
		return head + " (CPU)"
	case strings.Contains(paren, "limit reached"):
		return head + " (GPU, limit)"
	case strings.Contains(paren, "float-float"):
		return head + " (GPU float-float)"
	case strings.Contains(paren, "fp64"):
		return head + " (GPU fp64)"
	case paren == "":
		return head + " (GPU)"
	}
	return mode
}

// juliaC is the parameter c of Julia view l as a location centred at c (for centreText and
// shortCentre).
func juliaC(l fractal.Location) fractal.Location {
	return fractal.Location{Re: l.Julia.Re, Im: l.Julia.Im}
}

// centreText is the centre with every digit: "RE + IMi".
func centreText(l fractal.Location) string {
	re, sign, im := centreParts(l)
	return re + sign + im + "i"
}

func centreParts(l fractal.Location) (re, sign, im string) {
	im = l.Im.String()
	sign = " + "
	if len(im) > 0 && im[0] == '-' {
		sign, im = " - ", im[1:]
	} else if len(im) > 0 && im[0] == '+' {
		im = im[1:]
	}
	return l.Re.String(), sign, im
}

// Past these lengths the status bar cuts a number to its leading digits: a part of the centre
// (its every digit fits at 1280 px up to here: a view at zoom 1e30), a number in the point
// report.
const (
	centreLong = 40
	pointLong  = 24
	keepDigits = 16 // significant digits a cut number keeps
)

// shortCentre is the centre as the status bar shows it: every digit, or where a part has
// more than centreLong characters, that part's leading digits and its count of digits:
// "-2.192384023324103…e-92 (1103 digits) + 1.000000000000000…i (1102 digits)".
func shortCentre(l fractal.Location) string {
	re, sign, im := centreParts(l)
	part := func(s, suffix string) string {
		if len(s) <= centreLong {
			return s + suffix
		}
		return leadingDigits(s, keepDigits) + suffix + fmt.Sprintf(" (%d digits)", countDigits(s))
	}
	return part(re, "") + sign + part(im, "i")
}

// shortPoint is the point report s (probeText) with each number longer than pointLong cut
// to its leading digits (with its exponent): the pixel and the escape count stay whole.
func shortPoint(s string) string {
	words := strings.Split(s, " ")
	for i, wd := range words {
		num := strings.TrimSuffix(wd, "i")
		if len(num) > pointLong && isNumber(num) {
			words[i] = leadingDigits(num, keepDigits) + wd[len(num):]
		}
	}
	return strings.Join(words, " ")
}

// isNumber says whether s is a decimal number as the status bar's texts write one: a sign,
// digits with a point, an exponent.
func isNumber(s string) bool {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	if hasExp {
		if _, err := strconv.Atoi(exp); err != nil {
			return false
		}
	}
	digits := 0
	for _, c := range strings.Replace(mant, ".", "", 1) {
		if c < '0' || c > '9' {
			return false
		}
		digits++
	}
	return digits > 0
}

// countDigits is how many digits decimal s writes (its mantissa's, sign, point and exponent
// aside).
func countDigits(s string) int {
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	n := 0
	for _, c := range mant {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// leadingDigits is decimal s cut to its first keep significant digits followed by "…":
// plainly while the first significant digit is at most 4 places after the point and within
// keep of it ("-1.749957683706093…", "0.0001234567890123456…"), else with an exponent
// ("-2.192384023324103…e-92"). The digits are cut, not rounded: what shows is what s says.
// s is returned as it is when it has no more than keep significant digits.
func leadingDigits(s string, keep int) string {
	sign := ""
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+") {
		sign, s = s[:1], s[1:]
		if sign == "+" {
			sign = ""
		}
	}
	mant, expText, _ := strings.Cut(strings.ToLower(s), "e")
	exp, _ := strconv.Atoi(expText)
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	first := strings.IndexFunc(digits, func(c rune) bool { return c != '0' })
	if first < 0 {
		return sign + "0"
	}
	sig := strings.TrimRight(digits[first:], "0")
	// The power of ten of the first significant digit.
	e10 := len(intPart) - 1 - first + exp
	cut := len(sig) > keep
	if cut {
		sig = sig[:keep]
	}
	more := ""
	if cut {
		more = "…"
	}
	if e10 >= -4 && e10 < keep {
		var b strings.Builder
		b.WriteString(sign)
		if e10 < 0 {
			b.WriteString("0." + strings.Repeat("0", -e10-1) + sig)
		} else {
			whole := sig
			if len(whole) < e10+1 {
				whole += strings.Repeat("0", e10+1-len(whole))
			}
			b.WriteString(whole[:e10+1])
			if len(sig) > e10+1 {
				b.WriteString("." + sig[e10+1:])
			}
		}
		return b.String() + more
	}
	out := sign + sig[:1]
	if len(sig) > 1 {
		out += "." + sig[1:]
	}
	return out + more + "e" + strconv.Itoa(e10)
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
