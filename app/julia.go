// Julia sets in the window: J shows the Julia set of the point c under the pointer (the
// view's centre when the pointer is not over the picture), Home shows that Julia set whole,
// Shift+J goes back to the Mandelbrot set centred at c; the inset (I, View > Julia Inset)
// shows, in the picture's top right corner, the Julia set of the point under the pointer as
// it moves (preview.Latest: the newest point only, never a queue of them).

package app

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"

	"mandelscope/fractal"
	"mandelscope/preview"
)

// The inset's size: insetSide screen units a side, at most a third of the picture's width
// and half its height, insetMargin from its edges.
const (
	insetSide   = 256
	insetMargin = 8
)

// insetMaxIterations bounds the inset's iterations: a deep view's count (a million) would
// make a picture that follows the pointer slow, and a Julia set seen whole needs far fewer.
const insetMaxIterations = 1000

// pointerC is the point c the Julia keys and the inset take: the Mandelbrot point under the
// pointer, with every digit the view's zoom gives it (Location.Offset, as the context menu's
// copy writes it), or the view's centre when the pointer is not over the picture.
func (w *Window) pointerC() (re, im fractal.Decimal) {
	l := w.Location()
	pw, ph := w.view.pixelSize()
	if p, in := w.view.pointerAt(); in && pw > 0 && ph > 0 {
		x, y := w.view.pointerPixel(p)
		l = l.Offset(x-float64(pw)/2, y-float64(ph)/2, pw, ph)
	}
	return l.Re, l.Im
}

// showJulia is the J key: the main view becomes the Julia set of c under the pointer, seen
// whole (Location.JuliaAt), a place of its own in the history. In a Julia view it says how
// to go back instead (the point under the pointer there is no parameter).
func (w *Window) showJulia() {
	cur := w.Location()
	if cur.IsJulia() {
		w.setMessage("this is a Julia set already: Shift+J goes back to the Mandelbrot set")
		return
	}
	re, im := w.pointerC()
	l := cur.JuliaAt(re, im)
	if err := l.Validate(); err != nil {
		w.setMessage("no Julia set here: " + firstLine(err.Error()))
		return
	}
	w.autoBoost = 1
	w.goPlace(l)
}

// showMandelbrot is Shift+J: from a Julia view, the Mandelbrot set centred at its parameter
// c at the same zoom (Location.Mandelbrot), a place of its own in the history.
func (w *Window) showMandelbrot() {
	cur := w.Location()
	if !cur.IsJulia() {
		return
	}
	w.goPlace(cur.Mandelbrot())
}

// goPlace moves to l as one step of the history: what was pending enters it first, then l.
func (w *Window) goPlace(l fractal.Location) {
	w.beginGesture(gestureClick)
	w.moveTo(l, false, FromUser, true)
	w.endGesture()
}

// juliaInset is the picture of the Julia set of the point under the pointer, over the
// picture's top right corner (left of the side panel when that is open). Its state is the UI
// goroutine's; its renders run on preview.Latest's goroutine.
type juliaInset struct {
	w    *Window
	on   bool
	img  *canvas.Image
	note *canvas.Text    // the c of the picture shown, short, along its bottom edge
	box  *fyne.Container // the inset and its frame, laid out by insetLayout
	r    *preview.Latest
	item *fyne.MenuItem // View > Julia Inset, checked while on

	seq      uint64           // the newest request
	shownSeq uint64           // the request whose picture shows
	req      fractal.Location // the newest request's view (zero: none yet)
}

func newJuliaInset(w *Window) *juliaInset {
	in := &juliaInset{w: w}
	in.img = canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))
	in.img.FillMode = canvas.ImageFillStretch
	in.img.ScaleMode = canvas.ImageScaleFastest
	frame := canvas.NewRectangle(color.Transparent)
	frame.StrokeColor = theme.Color(theme.ColorNameForeground)
	frame.StrokeWidth = 1
	bg := canvas.NewRectangle(color.Black)
	in.note = canvas.NewText("", color.White)
	in.note.TextSize = theme.CaptionTextSize()
	noteBg := canvas.NewRectangle(color.NRGBA{A: 150})
	note := container.NewBorder(nil, container.NewStack(noteBg, container.NewPadded(in.note)), nil, nil)
	in.box = container.New(&insetLayout{w: w}, container.NewStack(bg, in.img, note, frame))
	in.box.Hide()
	in.r = preview.NewLatest(w.rend, in.deliver)
	in.item = fyne.NewMenuItem("Julia Inset", in.toggle)
	in.item.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyI}
	return in
}

// toggle turns the inset on or off (the I key, View > Julia Inset).
func (in *juliaInset) toggle() {
	in.on = !in.on
	in.item.Checked = in.on
	in.w.rebuildMenu()
	if in.on && in.w.Location().IsJulia() {
		in.w.setMessage("the Julia inset shows over the Mandelbrot set: Shift+J goes back to it")
	}
	in.follow()
}

// shows says whether the inset is to be seen: on, and the view is of the Mandelbrot set.
func (in *juliaInset) shows() bool { return in.on && !in.w.Location().IsJulia() }

// follow shows or hides the inset as the mode says and asks for the Julia set of the point
// under the pointer now (called when the pointer moves and when the view changes).
func (in *juliaInset) follow() {
	if !in.shows() {
		if in.box.Visible() {
			in.box.Hide()
		}
		return
	}
	if !in.box.Visible() {
		in.img.Image = image.NewRGBA(image.Rect(0, 0, 1, 1)) // no old c's picture
		in.note.Text = ""
		in.req = fractal.Location{} // so the picture is drawn again
		in.box.Show()
		in.box.Refresh()
	}
	pw, ph := in.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	cur := in.w.Location()
	re, im := in.w.pointerC()
	l := cur.JuliaAt(re, im)
	l.Iterations = min(l.Iterations, insetMaxIterations)
	if l == in.req {
		return // the same picture: nothing to draw
	}
	in.req = l
	if seq := in.r.Request(l, pw, ph); seq > 0 {
		in.seq = seq
	}
}

// pixelSize is the inset's size in physical pixels.
func (in *juliaInset) pixelSize() (int, int) {
	side := insetSideFor(in.w.view.Size())
	px := int(math.Round(float64(side * in.w.view.scale())))
	return px, px
}

// insetSideFor is the inset's side (screen units) over a picture of size s.
func insetSideFor(s fyne.Size) float32 {
	return max(0, min(insetSide, s.Width/3, s.Height/2))
}

// deliver runs on the Latest's goroutine with a picture: the newest one shows, if the inset
// still does.
func (in *juliaInset) deliver(res preview.Result) {
	in.w.uiDo(func() {
		if res.Err != nil || res.Image == nil || res.Req.Seq <= in.shownSeq || !in.shows() {
			return
		}
		in.shownSeq = res.Req.Seq
		in.img.Image = res.Image
		in.img.Refresh()
		in.note.Text = "Julia set of c = " + shortC(res.Req.Loc.Julia)
		in.note.Refresh()
	})
}

// shortC is parameter j as the inset's caption writes it: six significant digits a part.
func shortC(j fractal.JuliaParam) string {
	return fmt.Sprintf("%.6g %+.6gi", j.Re.Float64(), j.Im.Float64())
}

// close stops the inset's renders and waits for the one in progress.
func (in *juliaInset) close() { in.r.Close() }

// insetLayout places the inset at the top right of the picture, left of the side panel when
// that shows.
type insetLayout struct{ w *Window }

func (l *insetLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	side := insetSideFor(size)
	right := size.Width - insetMargin
	if s := l.w.side; s != nil && s.Visible() {
		right -= s.Size().Width
	}
	for _, o := range objs {
		o.Resize(fyne.NewSize(side, side))
		o.Move(fyne.NewPos(max(right-side, 0), insetMargin))
	}
}

// MinSize is zero: the inset never asks for room.
func (l *insetLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.Size{} }
