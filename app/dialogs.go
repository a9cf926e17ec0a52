// Dialogs over the window: every one is shown through showDialog, so that Escape closes the
// one on top (from the picture, or from an entry in the dialog), and their text is wrapped to
// a readable width so that no dialog grows wider than the screen or squeezes its text.

package app

import (
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// shownDialog is what the window needs of a Fyne dialog (the file dialogs included).
type shownDialog interface {
	Show()
	Hide()
	SetOnClosed(func())
}

// showDialog shows d and keeps it on the window's stack of open dialogs until it closes. A
// dialog shown only once is forgotten when it closes; one kept to be shown again stays in
// dialogHooked (one entry).
func (w *Window) showDialog(d shownDialog) {
	w.dialogs = append(w.dialogs, d)
	if !w.dialogHooked[d] { // a dialog shown again (the export form) is watched once
		if w.dialogHooked == nil {
			w.dialogHooked = map[shownDialog]bool{}
		}
		w.dialogHooked[d] = true
		d.SetOnClosed(func() {
			for i, o := range w.dialogs {
				if o == d {
					w.dialogs = append(w.dialogs[:i], w.dialogs[i+1:]...)
					break
				}
			}
		})
	}
	d.Show()
}

// closeTopDialog closes the dialog shown last that is still open, as its Cancel or Close
// button would; it reports whether there was one.
func (w *Window) closeTopDialog() bool {
	w.pruneDialogs()
	if len(w.dialogs) == 0 {
		return false
	}
	w.dialogs[len(w.dialogs)-1].Hide()
	return true
}

// escEntry is an entry in a dialog: Escape closes the window's top dialog (Fyne's entries
// ignore it).
type escEntry struct {
	widget.Entry
	w *Window
}

func newEscEntry(w *Window) *escEntry {
	e := &escEntry{w: w}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey closes the dialog on Escape; other keys edit as usual.
func (e *escEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.w.closeTopDialog() {
		return
	}
	e.Entry.TypedKey(k)
}

// dialogTextWidth is where dialog and progress text is wrapped, in characters.
const dialogTextWidth = 64

// wrapText breaks s into lines of at most width characters, at spaces where it can and
// inside words (long paths) where it must; existing line breaks stay.
func wrapText(s string, width int) string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			for utf8.RuneCountInString(word) > width {
				if line != "" {
					out = append(out, line)
					line = ""
				}
				r := []rune(word)
				out = append(out, string(r[:width]))
				word = string(r[width:])
			}
			switch {
			case line == "":
				line = word
			case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= width:
				line += " " + word
			default:
				out = append(out, line)
				line = word
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// textDialog is a dialog with a title, text wrapped to dialogTextWidth and one button.
func (w *Window) textDialog(title, text, button string) dialog.Dialog {
	return dialog.NewCustom(title, button, widget.NewLabel(wrapText(text, dialogTextWidth)), w.win)
}

// ShowError shows err in a dialog over the window, its text wrapped. While a dialog with the
// same text is open no other is shown: the same error repeated (a key held, a driver's burst
// of input) gives one dialog, not a stack of them to close one by one.
func (w *Window) ShowError(err error) {
	if err == nil {
		return
	}
	text := capitalise(err.Error())
	if w.errorsShown[text] {
		return
	}
	if w.errorsShown == nil {
		w.errorsShown = map[string]bool{}
	}
	w.errorsShown[text] = true
	d := w.textDialog("Error", text, "OK")
	d.SetOnClosed(func() { delete(w.errorsShown, text) })
	w.showDialog(d)
}

// showInfo shows a message in a dialog over the window, its text wrapped.
func (w *Window) showInfo(title, text string) {
	w.showDialog(w.textDialog(title, text, "OK"))
}

// showConfirm asks a yes/no question in a dialog over the window (text wrapped); ok is called
// with the answer (false for Escape).
func (w *Window) showConfirm(title, text, yes, no string, ok func(bool)) {
	w.showDialog(dialog.NewCustomConfirm(title, yes, no, widget.NewLabel(wrapText(text, dialogTextWidth)), ok, w.win))
}

// capitalise starts s with a capital letter (errors are written lower case).
func capitalise(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || n == 0 {
		return s
	}
	return strings.ToUpper(string(r)) + s[n:]
}

// popupDialog is a pop-up that is not modal (the picture stays in sight and a tap outside
// closes it), shown through showDialog like a dialog so that Escape closes it too.
type popupDialog struct {
	p        *widget.PopUp
	at       func() fyne.Position // where it opens, in the canvas
	onClosed func()
}

func newPopupDialog(content fyne.CanvasObject, c fyne.Canvas, at func() fyne.Position) *popupDialog {
	return &popupDialog{p: widget.NewPopUp(content, c), at: at}
}

// Show shows the pop-up at its place (again, after it was taken off the canvas).
func (d *popupDialog) Show() {
	if d.p.Visible() && !d.Visible() {
		d.p.Hide() // resets its notion of being shown
	}
	d.p.ShowAtPosition(d.at())
}

// SetOnClosed adds fn to what runs when the pop-up closes (after those set before), as a
// Fyne dialog's does.
func (d *popupDialog) SetOnClosed(fn func()) {
	prev := d.onClosed
	d.onClosed = func() {
		if prev != nil {
			prev()
		}
		fn()
	}
}

// Visible reports whether the pop-up is still shown: a tap outside hides it unannounced, and
// a modal dialog closing over it may take it off the canvas's overlays while it still
// counts itself visible.
func (d *popupDialog) Visible() bool {
	if !d.p.Visible() {
		return false
	}
	for _, o := range d.p.Canvas.Overlays().List() {
		if o == d.p {
			return true
		}
	}
	return false
}

// Hide closes the pop-up and says so, once.
func (d *popupDialog) Hide() {
	if d.p.Visible() {
		d.p.Hide()
	}
	if fn := d.onClosed; fn != nil {
		d.onClosed = nil
		fn()
	}
}

// pruneDialogs closes (and so forgets) the pop-ups that a tap outside has hidden.
func (w *Window) pruneDialogs() {
	for i := len(w.dialogs) - 1; i >= 0; i-- {
		if v, ok := w.dialogs[i].(interface{ Visible() bool }); ok && !v.Visible() {
			w.dialogs[i].Hide()
		}
	}
}
