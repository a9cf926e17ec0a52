// The gradient editor's colour chooser: swatches, a hex field and red, green and blue
// sliders set the colour shown; only Confirm gives it to the stop (Fyne's colour picker
// applies a swatch and closes at once, so its Confirm confirmed nothing).

package app

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// chooserSwatches are the colours offered as swatches: eight hues bright and dark, then greys.
var chooserSwatches = func() []color.RGBA {
	hues := []color.RGBA{{255, 0, 0, 255}, {255, 128, 0, 255}, {255, 230, 0, 255}, {0, 200, 0, 255},
		{0, 220, 220, 255}, {0, 80, 255, 255}, {140, 0, 255, 255}, {255, 0, 160, 255}}
	var out []color.RGBA
	out = append(out, hues...)
	for _, h := range hues {
		out = append(out, color.RGBA{h.R / 2, h.G / 2, h.B / 2, 255})
	}
	for i := range 8 {
		g := uint8(i * 255 / 7)
		out = append(out, color.RGBA{g, g, g, 255})
	}
	return out
}()

// colourChooser is an open chooser: the colour it shows, not yet confirmed, and its widgets.
type colourChooser struct {
	chosen   color.RGBA
	preview  *canvas.Rectangle
	hex      *widget.Entry
	sliders  [3]*widget.Slider
	swatches []*swatchButton
	dlg      *dialog.ConfirmDialog
	syncing  bool // the widgets are being set from chosen: their callbacks do nothing
}

// newColourChooser makes (without showing it) a chooser titled title starting at c; Confirm
// calls apply with the colour shown, Cancel and Escape leave everything as it was.
func newColourChooser(w *Window, title string, c color.RGBA, apply func(color.RGBA)) *colourChooser {
	ch := &colourChooser{chosen: c}
	ch.preview = canvas.NewRectangle(c)
	ch.preview.SetMinSize(fyne.NewSize(96, 40))
	was := canvas.NewRectangle(c)
	was.SetMinSize(fyne.NewSize(48, 40))
	ch.hex = widget.NewEntry()
	ch.hex.OnChanged = func(s string) {
		if ch.syncing {
			return
		}
		if v, ok := parseHexColour(s); ok {
			ch.set(v, false)
		}
	}
	grid := container.NewGridWithColumns(8)
	for _, s := range chooserSwatches {
		b := newSwatchButton(s, func() { ch.set(s, true) })
		ch.swatches = append(ch.swatches, b)
		grid.Add(b)
	}
	rows := []fyne.CanvasObject{}
	for k, name := range []string{"Red", "Green", "Blue"} {
		sl := widget.NewSlider(0, 255)
		sl.OnChanged = func(v float64) {
			if ch.syncing {
				return
			}
			n := ch.chosen
			*[]*uint8{&n.R, &n.G, &n.B}[k] = uint8(v)
			ch.set(n, true)
		}
		ch.sliders[k] = sl
		rows = append(rows, container.NewBorder(nil, nil, widget.NewLabel(name), nil, sl))
	}
	top := container.NewHBox(widget.NewLabel("New"), ch.preview, widget.NewLabel("Was"), was,
		container.NewGridWrap(fyne.NewSize(110, ch.hex.MinSize().Height), ch.hex))
	content := container.NewVBox(top, grid, container.NewVBox(rows...))
	ch.dlg = dialog.NewCustomConfirm(title, "Confirm", "Cancel", content, func(ok bool) {
		if ok {
			apply(ch.chosen)
		}
	}, w.win)
	ch.dlg.Resize(fyne.NewSize(460, content.MinSize().Height)) // sliders long enough to aim
	ch.set(c, true)
	return ch
}

// set shows c as the chosen colour; the hex field is rewritten unless it is what was typed.
func (ch *colourChooser) set(c color.RGBA, rewriteHex bool) {
	c.A = 255
	ch.chosen = c
	ch.preview.FillColor = c
	ch.preview.Refresh()
	ch.syncing = true
	defer func() { ch.syncing = false }()
	if rewriteHex {
		ch.hex.SetText(hexColour(c))
	}
	for k, v := range []uint8{c.R, c.G, c.B} {
		ch.sliders[k].SetValue(float64(v))
	}
}

// parseHexColour reads "#RRGGBB" or "RRGGBB".
func parseHexColour(s string) (color.RGBA, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "#")
	if len(s) != 6 {
		return color.RGBA{}, false
	}
	v, err := strconv.ParseUint(s, 16, 32)
	if err != nil {
		return color.RGBA{}, false
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}, true
}

// swatchButton is a colour to choose: a tap chooses it (shows it), nothing more.
type swatchButton struct {
	widget.BaseWidget
	c     color.RGBA
	onTap func()
}

func newSwatchButton(c color.RGBA, onTap func()) *swatchButton {
	b := &swatchButton{c: c, onTap: onTap}
	b.ExtendBaseWidget(b)
	return b
}

// CreateRenderer draws the colour.
func (b *swatchButton) CreateRenderer() fyne.WidgetRenderer {
	r := canvas.NewRectangle(b.c)
	r.SetMinSize(fyne.NewSize(28, 22))
	return widget.NewSimpleRenderer(r)
}

// Tapped chooses the colour.
func (b *swatchButton) Tapped(*fyne.PointEvent) { b.onTap() }

// String names the colour (for tests and messages).
func (b *swatchButton) String() string { return fmt.Sprintf("swatch %s", hexColour(b.c)) }
