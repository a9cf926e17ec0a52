// Help > Keys (and F1): a dialog with the table of the window's keys and mouse inputs. The
// table is docs/keys.md, embedded by package docs, so that the dialog and the documentation
// cannot disagree; installKeysHelp is the window's one hook into this file.

package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/docs"
)

// Columns of the keys dialog, in characters: an input, and what it does.
// The second column is wrapped narrower in a small window, down to keysDoesMin.
const keysInputWidth, keysDoesWidth, keysDoesMin = 26, 72, 24

// keysHelp is the Help > Keys dialog of a window.
type keysHelp struct {
	w     *Window
	dlg   dialog.Dialog   // the dialog while it is open, else nil
	table *fyne.Container // its table, as last laid out
}

// installKeysHelp adds Help > Keys to the window's menu, and F1, which opens it from the
// picture: F1 has no modifier, so it is not a Fyne shortcut, and the canvas's key handler is
// wrapped to take it before the window's own handler sees the other keys.
func installKeysHelp(w *Window) *keysHelp {
	k := &keysHelp{w: w}
	item := fyne.NewMenuItem("Keys", k.show)
	item.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyF1}
	w.AddMenuItem("Help", item)
	c := w.win.Canvas()
	next := c.OnTypedKey()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyF1 {
			k.show()
			return
		}
		if next != nil {
			next(ev)
		}
	})
	return k
}

// show opens the dialog, or leaves it as it is when it is open.
func (k *keysHelp) show() {
	if k.dlg != nil {
		return
	}
	k.dlg = dialog.NewCustom("Keys and mouse", "Close", k.content(), k.w.win)
	k.dlg.SetOnClosed(func() { k.dlg = nil })
	k.w.showDialog(k.dlg)
}

// content is the table: a row for each of docs.Keys, the input in bold beside what it does,
// each wrapped to its column, in a scroll area that fits a small window. The second column
// is wrapped narrower until the table fits 0.9 of the window's width: the scroll area only
// scrolls up and down, so a wider table had its right side cut (TestKeysHelpFitsTheWindow).
func (k *keysHelp) content() fyne.CanvasObject {
	limit := k.w.win.Canvas().Size()
	var table *fyne.Container
	for does := keysDoesWidth; ; does -= 4 {
		table = keysTable(does)
		if does <= keysDoesMin || table.MinSize().Width+2*theme.ScrollBarSize() <= limit.Width*0.9 {
			break
		}
	}
	k.table = table
	scroll := container.NewVScroll(table)
	size := table.MinSize()
	scroll.SetMinSize(fyne.NewSize(size.Width+2*theme.ScrollBarSize(), min(size.Height, max(limit.Height*0.7, 200))))
	return scroll
}

// keysTable is the keys table with the second column wrapped to does characters.
func keysTable(does int) *fyne.Container {
	var cells []fyne.CanvasObject
	for _, row := range docs.Keys() {
		in := widget.NewLabelWithStyle(wrapText(row.Input, keysInputWidth), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		cells = append(cells, in, widget.NewLabel(wrapText(row.Does, does)))
	}
	return container.New(layout.NewFormLayout(), cells...)
}
