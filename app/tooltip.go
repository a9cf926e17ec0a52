// Tooltips: Fyne 2.7 has none, so the window draws its own. A tipArea lies over a widget
// (a toolbar button, a bookmark's name) and, when the pointer rests on it, shows a short text
// near the pointer in the window's tip layer, a layer of plain canvas objects above the
// content that takes no input (so the pointer keeps reaching what lies under the tip).

package app

import (
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// tipDelay is how long the pointer rests before a tooltip shows.
const tipDelay = 500 * time.Millisecond

// tipBox is the tooltip drawn in the tip layer (one per window).
type tipBox struct {
	layer *fyne.Container // without layout: the box is placed by hand
	bg    *canvas.Rectangle
	text  *canvas.Text
	owner *tipArea // the area whose tip shows, nil when hidden
}

func newTipBox() *tipBox {
	b := &tipBox{
		bg:   canvas.NewRectangle(color.NRGBA{0x20, 0x20, 0x20, 0xf0}),
		text: canvas.NewText("", color.White),
	}
	b.bg.StrokeColor = color.NRGBA{0x80, 0x80, 0x80, 0xff}
	b.bg.StrokeWidth = 1
	b.bg.CornerRadius = 3
	b.text.TextSize = theme.CaptionTextSize()
	b.layer = container.NewWithoutLayout(b.bg, b.text)
	b.bg.Hide()
	b.text.Hide()
	return b
}

// show puts s near pos (absolute, in canvas c), kept inside the tip layer. The layer need not
// start at the canvas's origin (a window's main menu bar lies above its content, the layer
// with it): the box is placed in the layer's own coordinates, else it would show a menu bar's
// height below the pointer (off the window at the status bar).
func (b *tipBox) show(c fyne.Canvas, owner *tipArea, s string, pos fyne.Position) {
	within := b.layer.Size()
	if within.IsZero() {
		within = c.Size()
	} else {
		pos = pos.Subtract(fyne.CurrentApp().Driver().AbsolutePositionForObject(b.layer))
	}
	const pad = 4
	b.owner = owner
	b.text.Text = s
	ts := b.text.MinSize()
	size := fyne.NewSize(ts.Width+2*pad, ts.Height+2*pad)
	p := pos.Add(fyne.NewPos(8, 20)) // below and right of the pointer
	if p.X+size.Width > within.Width {
		p.X = max(0, within.Width-size.Width)
	}
	if p.Y+size.Height > within.Height {
		p.Y = max(0, pos.Y-size.Height-4) // above the pointer near the bottom edge
	}
	b.bg.Move(p)
	b.bg.Resize(size)
	b.text.Move(p.Add(fyne.NewPos(pad, pad)))
	b.text.Resize(ts)
	b.bg.Show()
	b.text.Show()
	b.repaint(c)
}

func (b *tipBox) hide(c fyne.Canvas, owner *tipArea) {
	if b.owner != owner {
		return
	}
	b.owner = nil
	b.bg.Hide()
	b.text.Hide()
	b.repaint(c)
}

// repaint has the canvas draw the box again. It names the canvas: the driver does not know
// which canvas objects belong to until they have been drawn once (obj.Refresh() alone
// would not repaint a box hidden until now).
func (b *tipBox) repaint(c fyne.Canvas) {
	c.Refresh(b.bg)
	c.Refresh(b.text)
}

// tipArea is a transparent widget laid over another that shows a tooltip; it passes the
// pointer's comings and goings on to the widget under it when that one reacts to them (a
// button's hover highlight). Taps and drags are not its business: they reach what lies under.
type tipArea struct {
	widget.BaseWidget
	w     *Window
	tip   func() string
	under desktop.Hoverable // may be nil
	gen   int
	pos   fyne.Position // the pointer, absolute
}

var _ desktop.Hoverable = (*tipArea)(nil)

func newTipArea(w *Window, under fyne.CanvasObject, tip func() string) *tipArea {
	t := &tipArea{w: w, tip: tip}
	t.under, _ = under.(desktop.Hoverable)
	t.ExtendBaseWidget(t)
	return t
}

// withTip lays a tooltip over obj.
func (w *Window) withTip(obj fyne.CanvasObject, tip string) fyne.CanvasObject {
	return container.NewStack(obj, newTipArea(w, obj, func() string { return tip }))
}

// CreateRenderer draws nothing.
func (t *tipArea) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(canvas.NewRectangle(color.Transparent))
}

// MinSize is nothing: the area takes the size of what it covers.
func (t *tipArea) MinSize() fyne.Size { return fyne.Size{} }

// MouseIn starts the wait before the tip shows.
func (t *tipArea) MouseIn(ev *desktop.MouseEvent) {
	if t.under != nil {
		t.under.MouseIn(ev)
	}
	t.pos = ev.AbsolutePosition
	t.gen++
	gen := t.gen
	time.AfterFunc(tipDelay, func() {
		t.w.uiDo(func() {
			if gen == t.gen && t.w.tips != nil && t.tip != nil {
				if s := t.tip(); s != "" {
					t.w.tips.show(t.w.win.Canvas(), t, s, t.pos)
				}
			}
		})
	})
}

// MouseMoved follows the pointer (the tip shows where it rests).
func (t *tipArea) MouseMoved(ev *desktop.MouseEvent) {
	if t.under != nil {
		t.under.MouseMoved(ev)
	}
	t.pos = ev.AbsolutePosition
}

// MouseOut hides the tip.
func (t *tipArea) MouseOut() {
	if t.under != nil {
		t.under.MouseOut()
	}
	t.gen++
	if t.w.tips != nil {
		t.w.tips.hide(t.w.win.Canvas(), t)
	}
}

// tippedAction is a toolbar button with a tooltip.
type tippedAction struct {
	*widget.ToolbarAction
	w   *Window
	tip string
}

// ToolbarObject is the action's button with the tip laid over it.
func (a *tippedAction) ToolbarObject() fyne.CanvasObject {
	return a.w.withTip(a.ToolbarAction.ToolbarObject(), a.tip)
}

// AddToolbarAction appends a button to the toolbar with a tooltip (its name and shortcut).
func (w *Window) AddToolbarAction(a *widget.ToolbarAction, tip string) {
	w.AddToolbarItem(&tippedAction{ToolbarAction: a, w: w, tip: tip})
}
