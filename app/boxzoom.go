// Box zoom, as XaoS and Kalles Fraktaler users reach for: Ctrl + left drag draws a
// rectangle of the view's aspect ratio from where the button went down; on release the view
// goes to the rectangle's centre at the zoom that fits it, one step of the history. Escape
// or a rectangle under boxMinPixels wide cancels. (A plain drag pans, Shift + left zooms
// continuously and the right button zooms out or, with Ctrl, opens the context menu: none of
// those collide with Ctrl + left.)

package app

import (
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"

	"mandelscope/fractal"
)

// boxMinPixels is the smallest box (its width, in image pixels) that zooms: a smaller one is
// a slip of the hand, and cancels.
const boxMinPixels = 6

// boxZoom is a box being drawn: where the button went down and where the pointer is, in
// image pixels (continuous: 0 is the left edge).
type boxZoom struct {
	ax, ay  float64
	px, py  float64
	dragged bool
}

// boxButton says whether a press starts a box: the left button with Ctrl, without Shift
// (Shift + left is the continuous zoom, whatever else is held).
func boxButton(ev *desktop.MouseEvent) bool {
	return ev.Button == desktop.MouseButtonPrimary &&
		ev.Modifier&fyne.KeyModifierControl != 0 && ev.Modifier&fyne.KeyModifierShift == 0
}

// rect is the box in image pixels, of the aspect ratio w:h: its corner at the anchor, its
// opposite corner toward the pointer, as wide as the pointer's reach in either direction
// asks (the larger of the two).
func (b *boxZoom) rect(w, h int) (x0, y0, bw, bh float64) {
	dx, dy := b.px-b.ax, b.py-b.ay
	bw = math.Max(math.Abs(dx), math.Abs(dy)*float64(w)/float64(h))
	bh = bw * float64(h) / float64(w)
	x0, y0 = b.ax, b.ay
	if dx < 0 {
		x0 -= bw
	}
	if dy < 0 {
		y0 -= bh
	}
	return x0, y0, bw, bh
}

// boxTarget is where a box (x0, y0, bw, bh in image pixels of a w x h view of l) zooms to:
// centred on the box's centre, at the zoom that fits the box to the view. Both steps are
// Location's exact ones (math/big centres, written with the digits the new zoom needs): a
// zoom about the centre, then the offset in pixels of the zoomed view (the offset times the
// factor the zoom actually made, which MaxZoom may have clamped).
func boxTarget(l fractal.Location, x0, y0, bw, bh float64, w, h int) fractal.Location {
	cx, cy := x0+bw/2, y0+bh/2
	z := l.ZoomAt(float64(w)/2, float64(h)/2, float64(w)/bw, w, h)
	f := z.ZoomExp().Quo(l.ZoomExp()).Float64()
	return z.Offset((cx-float64(w)/2)*f, (cy-float64(h)/2)*f, w, h)
}

// newBoxOutline is the box's outline over the picture, hidden until a box is drawn.
func newBoxOutline() *canvas.Rectangle {
	r := canvas.NewRectangle(color.NRGBA{R: 255, G: 255, B: 255, A: 36})
	r.StrokeColor = color.NRGBA{R: 255, G: 255, B: 255, A: 230}
	r.StrokeWidth = 1.5
	r.Hide()
	return r
}

// startBox begins a box at the press ev (MouseDown).
func (v *fractalView) startBox(ev *desktop.MouseEvent) {
	v.stopHold()
	x, y := v.toPixels(ev.Position)
	v.box = &boxZoom{ax: x, ay: y, px: x, py: y}
}

// dragBox moves the box's free corner to the pointer at p and redraws its outline.
func (v *fractalView) dragBox(p fyne.Position) {
	b := v.box
	b.px, b.py = v.toPixels(p)
	b.dragged = true
	pw, ph := v.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	x0, y0, bw, bh := b.rect(pw, ph)
	sc := v.scale()
	v.boxOutline.Move(fyne.NewPos(float32(x0)/sc, float32(y0)/sc))
	v.boxOutline.Resize(fyne.NewSize(float32(bw)/sc, float32(bh)/sc))
	v.boxOutline.Show()
	v.boxOutline.Refresh()
}

// endBox zooms to the box drawn (DragEnd), or cancels a box too small to mean one.
func (v *fractalView) endBox() {
	b := v.box
	v.cancelBox()
	v.boxDropped = false // the drag is over
	pw, ph := v.pixelSize()
	if b == nil || pw < 1 || ph < 1 {
		return
	}
	x0, y0, bw, bh := b.rect(pw, ph)
	if bw < boxMinPixels {
		v.w.setMessage("box zoom cancelled: the box is too small")
		return
	}
	v.w.beginGesture(gestureClick)
	v.w.navigate(boxTarget(v.w.Location(), x0, y0, bw, bh, pw, ph), true)
	v.w.endGesture()
}

// cancelBox drops the box in progress, if any, and hides its outline (Escape): the rest of
// its drag moves nothing.
func (v *fractalView) cancelBox() bool {
	if v.box == nil {
		return false
	}
	v.box = nil
	v.boxDropped = true
	v.boxOutline.Hide()
	return true
}
