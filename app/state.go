// The window's state between runs, in the Fyne app's preferences: the last view (its text
// form), the window's size and whether the bookmarks panel was open. Saved when the window
// closes (its close button, Quit, Ctrl+Q, SIGINT, SIGTERM, SIGHUP: quit.go), restored by New when
// Options.Restore is set. Values read back are checked like any input: a view that does not
// parse or validate is refused, and the window, opened at home, says so (reportRefusedView);
// a size that is not one is ignored; a size larger than the screen or than the memory budget
// (limits.go) is made to fit.

package app

import (
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"mandelscope/fractal"
)

// Preference keys.
const (
	prefView      = "window.view"
	prefWidth     = "window.width"
	prefHeight    = "window.height"
	prefBookmarks = "window.bookmarks_open"
)

// restoredView is the last session's view, if one was saved and reads as a valid location;
// err says why a saved view was refused (nil when none was saved, or it reads).
func restoredView(p fyne.Preferences) (l fractal.Location, ok bool, err error) {
	s := p.String(prefView)
	if s == "" {
		return fractal.Location{}, false, nil
	}
	l, err = fractal.ParseLocationText(s, fractal.Home())
	if err == nil {
		err = l.Validate()
	}
	if err != nil {
		return fractal.Location{}, false, err
	}
	return l, true, nil
}

// reportRefusedView says, in a dialog and in the status bar while the view is still home,
// that the last session's view (its text saved) was refused and why: the window opened at
// home instead. The dialog shows the saved text whole (selectable) and offers to open it in
// Go to Location, which says what is wrong with it until it is mended: nothing is replaced
// unannounced, and the text is not lost.
func (w *Window) reportRefusedView(saved string, err error) {
	msg := "the last session's view was not opened: " + firstLine(err.Error())
	w.note = foundNote{at: w.Location(), msg: msg}
	w.setMessage(msg)
	body := widget.NewLabel(wrapText(capitalise(msg)+". The window opened at the whole set instead. The saved view:", dialogTextWidth))
	savedText := widget.NewMultiLineEntry()
	savedText.Wrapping = fyne.TextWrapBreak
	savedText.SetText(saved)
	savedText.SetMinRowsVisible(3)
	d := dialog.NewCustomConfirm("Last view not opened", "Mend in Go to Location...", "Close", container.NewBorder(body, nil, nil, nil, savedText), func(mend bool) {
		if mend && w.nav != nil {
			_, e := w.nav.goToDialog()
			e.SetText(savedText.Text)
			// The cursor at the start, nothing selected: the text is there to be mended, not
			// replaced by the first key typed.
			e.CursorRow = 0
			e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyHome})
			e.Validate()
		}
	}, w.win)
	d.Resize(fyne.NewSize(620, 300))
	w.showDialog(d)
}

// restoredSize is the last session's window size, if one was saved and is a size (New clamps
// it to the screen and to the memory budget: a saved size may be larger than either).
func restoredSize(p fyne.Preferences) (fyne.Size, bool) {
	w, h := p.Float(prefWidth), p.Float(prefHeight)
	if !(w >= 1 && w <= math.MaxFloat32 && h >= 1 && h <= math.MaxFloat32) {
		return fyne.Size{}, false
	}
	return fyne.NewSize(float32(w), float32(h)), true
}

// saveState writes the window's state to the app's preferences (on the UI goroutine).
func (w *Window) saveState() {
	if !w.opts.Restore {
		return
	}
	w.saved.Store(true)
	p := w.app.Preferences()
	p.SetString(prefView, w.Location().String())
	if s := w.win.Canvas().Size(); s.Width >= 1 && s.Height >= 1 {
		p.SetFloat(prefWidth, float64(s.Width))
		p.SetFloat(prefHeight, float64(s.Height))
	}
	p.SetBool(prefBookmarks, w.marks != nil && w.marks.visible)
}

// SettlePreferences is called once the app has stopped (ShowAndRun returned), before the
// program ends. Fyne saves the preferences on a change, and again 100 ms after a save during
// which they changed (resetSavedRecently, on a goroutine of its own). That write truncates the
// file (os.Create), then encodes: a program that ended in between left preferences.json
// empty, the session lost (TestWindowQuitSavesView, SIGHUP, once under load). This waits for
// those writes to be done, then writes the whole state once more.
func SettlePreferences(a fyne.App) {
	time.Sleep(prefSettle)
	flushPreferences(a)
}

// prefSettle outlasts Fyne's delayed preference writes: two rounds of its 100 ms wait and the
// writes themselves.
const prefSettle = 300 * time.Millisecond

// flushPreferences writes the app's preferences to disk now, all of them. Fyne writes them on a
// change unless it wrote them less than 100 ms before, then 100 ms later through the UI
// goroutine, and last as the app stops (its stopped hook); a quit loses the last two when the
// driver, stopping, acknowledges queued calls without running them (fyne v2.7.1): a SIGTERM
// kept the view but lost the size written just after it, one run in three. The stopped hook
// (this window's, which does nothing once the state is saved, then Fyne's forced write) is the
// one way to ask for that write; an app without one is left as it is.
func flushPreferences(a fyne.App) {
	if lc, ok := a.Lifecycle().(interface{ OnStopped() func() }); ok {
		if stopped := lc.OnStopped(); stopped != nil {
			stopped()
		}
	}
}
