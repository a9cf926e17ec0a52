package app

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"math/big"
	"strconv"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/fractal"
	"mandelscope/preview"
)

// Zoom steps of the view's gestures.
const (
	// ClickZoom is the factor of a double-click (in) and a right-click (out).
	ClickZoom = 2.0
	// WheelZoom is the factor of one wheel notch.
	WheelZoom = preview.WheelStep
	// wheelNotch is the scroll distance Fyne reports for one notch on Linux and Windows.
	wheelNotch = 25.0
)

// fractalView is the widget that shows the fractal and turns pointer input into navigation:
// a left drag pans 1:1 with the pointer (with Ctrl it draws a box to zoom into), the wheel zooms about the cursor, a double-click
// zooms in and a right-click zooms out there, a held button zooms continuously toward the
// pointer (gesture.go); hovering reports the point under the cursor.
type fractalView struct {
	widget.BaseWidget
	w     *Window
	img   *canvas.Image
	bg    *canvas.Rectangle
	lastW int
	lastH int
	drag  *dragState
	wheel *zoomAnchor // the wheel burst in progress
	hold  *holdZoom   // the held button's zoom in progress
	box   *boxZoom    // the box being drawn (Ctrl + drag, boxzoom.go)
	// boxOutline shows the box over the picture
	boxOutline *canvas.Rectangle
	// boxDropped says that a box was cancelled while its button is down: the rest of the
	// drag does nothing (it is no pan)
	boxDropped bool
	// holdUsed says that the last press zoomed continuously (its release is no click)
	holdUsed bool
	// menuNext says that the right button was pressed with Ctrl: its click opens the context
	// menu (find.go) instead of zooming out.
	menuNext bool
	// pointer is where the pointer is over the picture (pointerIn false: not over it).
	pointer   fyne.Position
	pointerIn bool
}

// pointerAt is where the pointer is over the picture, if it is.
func (v *fractalView) pointerAt() (fyne.Position, bool) { return v.pointer, v.pointerIn }

var (
	_ fyne.Draggable         = (*fractalView)(nil)
	_ fyne.Scrollable        = (*fractalView)(nil)
	_ fyne.DoubleTappable    = (*fractalView)(nil)
	_ fyne.SecondaryTappable = (*fractalView)(nil)
	_ fyne.Tappable          = (*fractalView)(nil)
	_ desktop.Hoverable      = (*fractalView)(nil)
	_ desktop.Cursorable     = (*fractalView)(nil)
	_ desktop.Mouseable      = (*fractalView)(nil)
	_ fyne.Layout            = (*frameLayout)(nil)
)

func newFractalView(w *Window) *fractalView {
	v := &fractalView{w: w}
	v.bg = canvas.NewRectangle(color.Black)
	v.img = canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1)))
	v.img.FillMode = canvas.ImageFillStretch
	v.img.ScaleMode = canvas.ImageScaleFastest
	v.boxOutline = newBoxOutline()
	v.ExtendBaseWidget(v)
	return v
}

// CreateRenderer draws the latest frame over a black background, and a box being drawn
// over it.
func (v *fractalView) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewStack(v.bg, v.img, container.NewWithoutLayout(v.boxOutline)))
}

// MinSize lets the window shrink the view freely.
func (v *fractalView) MinSize() fyne.Size { return fyne.NewSize(64, 48) }

// Resize re-renders at the new pixel size. Until the new frame arrives the old one is shown
// unstretched, centred (the view's centre stays put), with black where it does not reach.
func (v *fractalView) Resize(s fyne.Size) {
	v.BaseWidget.Resize(s)
	pw, ph := v.pixelSize()
	if pw == v.lastW && ph == v.lastH {
		return
	}
	v.lastW, v.lastH = pw, ph
	if old, ok := v.img.Image.(*image.RGBA); ok && pw > 0 && ph > 0 && old.Rect.Dx() > 1 {
		v.setImage(recentre(old, pw, ph))
	}
	v.w.updateStatus()
	if v.w.inset != nil {
		v.w.inset.follow() // its size follows the picture's
	}
	// Interactive: layout and window resizes come in bursts (the first sizes at start-up are
	// tiny); a quick frame for each, the full one when they stop.
	v.w.requestRender(true)
}

// recentre returns a w x h picture with src's centre at its centre, black elsewhere.
func recentre(src *image.RGBA, w, h int) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Rect, image.NewUniform(color.Black), image.Point{}, draw.Src)
	off := image.Pt((w-src.Rect.Dx())/2, (h-src.Rect.Dy())/2)
	draw.Draw(dst, src.Rect.Add(off), src, src.Rect.Min, draw.Src)
	return dst
}

// scale is the canvas scale: physical pixels per logical unit.
func (v *fractalView) scale() float32 {
	if v.w.win == nil {
		return 1
	}
	if s := v.w.win.Canvas().Scale(); s > 0 {
		return s
	}
	return 1
}

// pixelSize is the view's size in physical pixels.
func (v *fractalView) pixelSize() (int, int) {
	s := v.Size()
	sc := v.scale()
	return int(math.Round(float64(s.Width * sc))), int(math.Round(float64(s.Height * sc)))
}

// toPixels maps a position in the view (logical units) to image pixel coordinates.
func (v *fractalView) toPixels(p fyne.Position) (float64, float64) {
	sc := v.scale()
	return float64(p.X * sc), float64(p.Y * sc)
}

// pointerPixel is the centre of the image pixel under the pointer at p: the pointer's hotspot
// is a whole pixel (the windowing system reports its top-left corner), and that pixel shows
// the point at its centre, which is what a zoom about the pointer must keep in place (about
// the corner, the point under the pointer drifted half a pixel a notch, 40 pixels in 20).
func (v *fractalView) pointerPixel(p fyne.Position) (float64, float64) {
	x, y := v.toPixels(p)
	return math.Floor(x) + 0.5, math.Floor(y) + 0.5
}

func (v *fractalView) setImage(img *image.RGBA) {
	v.img.Image = img
	v.img.Refresh()
}

// Dragged pans so that the point under the pointer follows it. Each step is computed from
// where the drag started and the whole distance so far, so rounding never accumulates.
func (v *fractalView) Dragged(ev *fyne.DragEvent) {
	if v.box != nil {
		v.dragBox(ev.Position) // Ctrl + drag draws a box to zoom into
		return
	}
	if v.boxDropped {
		return
	}
	if v.hold != nil {
		v.steer(ev.Position) // a held button zooms: moving steers it
		x, y := v.toPixels(ev.Position)
		pw, ph := v.pixelSize()
		v.w.probe.at(v.w.Location(), pw, ph, int(x), int(y))
		return
	}
	v.w.beginGesture(gestureDrag)
	sc := float64(v.scale())
	pw, ph := v.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	cur := v.w.Location()
	if v.drag == nil || cur.String() != v.drag.last.String() || pw != v.drag.w || ph != v.drag.h {
		v.drag = &dragState{start: cur, w: pw, h: ph}
	}
	v.drag.dx += float64(ev.Dragged.DX) * sc
	v.drag.dy += float64(ev.Dragged.DY) * sc
	l := v.drag.start.Offset(-v.drag.dx, -v.drag.dy, pw, ph)
	v.w.navigate(l, true)
	v.drag.last = v.w.Location()
	if _, atEdge := l.ClampCentre(); atEdge {
		// The view stopped at the edge of the centre's range: the drag goes on from there, so
		// that a move back moves the view at once, not once the pointer has come all the way.
		v.drag.start, v.drag.dx, v.drag.dy = v.drag.last, 0, 0
	}
}

// DragEnd ends the drag (one step of the history); the refine follows when input stops.
func (v *fractalView) DragEnd() {
	if v.box != nil {
		v.endBox()
		return
	}
	v.boxDropped = false
	if v.drag != nil {
		v.drag = nil
		v.w.endGesture()
	}
}

// dragState is a drag in progress: where it started and how far it has gone, in pixels.
type dragState struct {
	start, last fractal.Location
	w, h        int
	dx, dy      float64
}

// Scrolled zooms about the point under the cursor: wheel up zooms in. The notches of a burst
// at one pointer position are one zoom from where the burst started (the point under the
// cursor stays exactly there, at any depth) and one step of the history.
func (v *fractalView) Scrolled(ev *fyne.ScrollEvent) {
	v.w.focusView() // the picture takes the keyboard, as a click on it does
	dy := math.Max(-10*wheelNotch, math.Min(10*wheelNotch, float64(ev.Scrolled.DY)))
	if dy == 0 {
		return
	}
	pw, ph := v.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	v.w.beginGesture(gestureWheel)
	x, y := v.pointerPixel(ev.Position)
	cur := v.w.Location()
	if !v.wheel.continues(cur, x, y, pw, ph) {
		v.wheel = &zoomAnchor{start: cur, x: x, y: y, w: pw, h: ph, factor: 1}
	}
	v.w.navigate(v.wheel.step(math.Pow(WheelZoom, dy/wheelNotch)), true)
	v.wheel.last = v.w.Location()
}

// DoubleTapped zooms in about the point.
func (v *fractalView) DoubleTapped(ev *fyne.PointEvent) { v.clickZoom(ev.Position, ClickZoom) }

// TappedSecondary zooms out about the point, unless the press zoomed out continuously or
// came with Ctrl (the context menu).
func (v *fractalView) TappedSecondary(ev *fyne.PointEvent) {
	if v.menuNext {
		v.menuNext = false
		v.showContextMenu(ev.Position)
		return
	}
	if v.holdUsed {
		v.holdUsed = false
		return
	}
	v.clickZoom(ev.Position, 1/ClickZoom)
}

// clickZoom is a click's zoom: one step of the history.
func (v *fractalView) clickZoom(p fyne.Position, factor float64) {
	v.w.beginGesture(gestureClick)
	v.zoomAt(p, factor)
	v.w.endGesture()
}

// Tapped takes the keyboard focus away from the controls, so the keys navigate the view. Fyne
// calls it a double-click's delay after the click (the view also takes double-clicks), by
// which time a shortcut may have opened a dialog and focused its field: that focus stays, so
// the text typed goes to the field (the press itself has already unfocused the controls).
func (v *fractalView) Tapped(*fyne.PointEvent) {
	v.w.pruneDialogs()
	if v.w.win != nil && len(v.w.dialogs) == 0 {
		v.w.win.Canvas().Unfocus()
	}
}

// Cursor is a crosshair over the fractal.
func (v *fractalView) Cursor() desktop.Cursor { return desktop.CrosshairCursor }

func (v *fractalView) zoomAt(p fyne.Position, factor float64) {
	pw, ph := v.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	x, y := v.pointerPixel(p)
	v.w.navigate(v.w.Location().ZoomAt(x, y, factor, pw, ph), true)
}

// MouseIn starts reporting the point under the cursor.
func (v *fractalView) MouseIn(ev *desktop.MouseEvent) { v.MouseMoved(ev) }

// MouseMoved reports the point under the cursor and its escape count.
func (v *fractalView) MouseMoved(ev *desktop.MouseEvent) {
	v.pointer, v.pointerIn = ev.Position, true
	v.steer(ev.Position)
	x, y := v.toPixels(ev.Position)
	pw, ph := v.pixelSize()
	v.w.probe.at(v.w.Location(), pw, ph, int(x), int(y))
	v.w.inset.follow()
}

// MouseOut clears the point report; the inset shows the Julia set of the view's centre.
func (v *fractalView) MouseOut() {
	v.pointerIn = false
	v.w.probe.at(fractal.Location{}, 0, 0, -1, -1)
	v.w.inset.follow()
}

// prober computes the escape count under the cursor on its own goroutine (an inside point
// can take many iterations, a deep view a reference orbit), keeping only the newest request;
// a newer request (or the pointer leaving) cancels the one in progress, and a report older
// than the latest request is dropped.
type prober struct {
	w       *Window
	mu      sync.Mutex
	next    *probeReq
	gen     uint64
	ctx     context.Context // cancelled when a newer request comes or the prober closes
	cancel  context.CancelFunc
	wake    chan struct{}
	started bool
	closed  bool
	done    chan struct{}
	// the pixel last reported, so a view change under a still pointer updates the report
	lastX, lastY int
	hasLast      bool
}

// viewChanged reports the pixel under a pointer that stayed still while the view changed
// (a key, a menu item, go-to, back/forward): the point under it is another one now.
func (p *prober) viewChanged(loc fractal.Location, w, h int) {
	p.mu.Lock()
	x, y, ok := p.lastX, p.lastY, p.hasLast
	p.mu.Unlock()
	if ok {
		p.at(loc, w, h, x, y)
	}
}

type probeReq struct {
	loc  fractal.Location
	w, h int
	x, y int
	gen  uint64
}

func newProber(w *Window) *prober {
	p := &prober{w: w, wake: make(chan struct{}, 1), done: make(chan struct{})}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p
}

// at asks for the report of pixel (x, y) of loc at w x h; a pixel outside clears it.
func (p *prober) at(loc fractal.Location, w, h, x, y int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.gen++
	p.cancel()
	p.ctx, p.cancel = context.WithCancel(context.Background())
	if x < 0 || y < 0 || x >= w || y >= h {
		p.next = nil
		p.hasLast = false
		p.w.setPoint("")
		return
	}
	p.next = &probeReq{loc, w, h, x, y, p.gen}
	p.lastX, p.lastY, p.hasLast = x, y, true
	if !p.started {
		p.started = true
		go p.loop()
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// close stops the prober's goroutine and waits for it (every call waits).
func (p *prober) close() {
	p.mu.Lock()
	if !p.closed {
		p.closed = true
		p.cancel()
		close(p.wake)
	}
	started := p.started
	p.mu.Unlock()
	if started {
		<-p.done
	}
}

func (p *prober) loop() {
	defer close(p.done)
	for range p.wake {
		p.mu.Lock()
		r := p.next
		p.next = nil
		ctx := p.ctx
		p.mu.Unlock()
		if r == nil {
			continue
		}
		f, err := p.w.sched.Reference(ctx, fractal.NewFrame(r.loc, r.w, r.h), nil)
		if err != nil {
			continue // cancelled: a newer request follows, or the window closed
		}
		text := probeTextUntil(ctx.Done(), f, r.x, r.y)
		if ctx.Err() != nil {
			continue // a newer request, or the window closed: the text may be cut short
		}
		p.w.uiDo(func() {
			p.mu.Lock()
			current := r.gen == p.gen && !p.closed
			p.mu.Unlock()
			if current {
				p.w.setPoint(text)
			}
		})
	}
}

// probeText describes pixel (x, y) of frame f: its point c, computed exactly from the
// decimal centre and written to about a tenth of the pixel spacing at any depth (with an
// exponent when that is shorter: near 0 at zoom 1e100, "3.05e-102", not 102 zeros), and its
// escape count, the same as `mandelscope probe` gives (a Perturbation frame should carry its
// reference: Scheduler.Reference).
func probeText(f fractal.Frame, x, y int) string { return probeTextUntil(nil, f, x, y) }

// probeTextUntil is probeText that gives up when stop closes (nil: never), with a text to
// throw away: the recheck of a long count (fractal.Frame.Recheck) can take a minute of math/big.
func probeTextUntil(stop <-chan struct{}, f fractal.Frame, x, y int) string {
	// The spacing with an unbounded exponent: past zoom 1e308 the float64 one is 0.
	logS := f.SpacingX.Log10()
	if f.SpacingX.Sign() <= 0 || math.IsInf(logS, 0) || math.IsNaN(logS) {
		logS = 0
	}
	digits := max(3, int(math.Ceil(-logS))+1)
	prec := max(uint(float64(digits)*math.Log2(10))+64, f.Loc.Re.SignificantBits(), f.Loc.Im.SignificantBits())
	re, im := f.PointBig(x, y, prec)
	text := func(v *big.Float) string {
		// significant digits down to a tenth of the spacing
		logMag := logS
		if v.Sign() != 0 {
			logMag = max(fractal.ExpFromBig(new(big.Float).Abs(v)).Log10(), logS)
		}
		sig := max(3, int(math.Ceil(logMag-logS))+1)
		fixed := v.Text('f', digits)
		if g := v.Text('g', sig); len(g) < len(fixed) {
			return g
		}
		return fixed
	}
	var n int
	if stop == nil || f.Ref == nil {
		n, _ = f.Escape(x, y)
	} else {
		var nu float64
		n, nu = f.EscapeEstimate(x, y)
		n, _ = f.Recheck(x, y, n, nu, stop)
	}
	esc := "inside (no escape)"
	if n >= 0 {
		esc = "escape " + strconv.Itoa(n)
	}
	sign := "+"
	if im.Sign() < 0 {
		sign = "-"
		im.Neg(im)
	}
	return fmt.Sprintf("pixel %d,%d: %s %s %si  %s", x, y, text(re), sign, text(im), esc)
}

// exportFrame outlines the part of the preview an export covers.
type exportFrame struct {
	obj    *fyne.Container
	rect   *canvas.Rectangle
	layout *frameLayout
}

type frameLayout struct{ w, h int }

func newExportFrame() *exportFrame {
	r := canvas.NewRectangle(color.Transparent)
	r.StrokeColor = theme.Color(theme.ColorNamePrimary)
	r.StrokeWidth = 2
	fl := &frameLayout{}
	f := &exportFrame{rect: r, layout: fl, obj: container.New(fl, r)}
	f.obj.Hide()
	return f
}

func (f *exportFrame) set(w, h int) {
	f.layout.w, f.layout.h = w, h
	if w <= 0 || h <= 0 {
		f.obj.Hide()
		return
	}
	f.obj.Show()
	f.obj.Refresh()
}

// Layout places the outline: the largest centred rectangle of the export's aspect ratio.
func (l *frameLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	if l.w <= 0 || l.h <= 0 {
		return
	}
	fw, fh := size.Width, size.Width*float32(l.h)/float32(l.w)
	if fh > size.Height {
		fw, fh = size.Height*float32(l.w)/float32(l.h), size.Height
	}
	for _, o := range objs {
		o.Resize(fyne.NewSize(fw, fh))
		o.Move(fyne.NewPos((size.Width-fw)/2, (size.Height-fh)/2))
	}
}

// MinSize is zero: the outline never asks for room.
func (l *frameLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.Size{} }

func homeIcon() fyne.Resource    { return theme.HomeIcon() }
func zoomInIcon() fyne.Resource  { return theme.ZoomInIcon() }
func zoomOutIcon() fyne.Resource { return theme.ZoomOutIcon() }
func copyIcon() fyne.Resource    { return theme.ContentCopyIcon() }
