package app

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/nav"
)

// defaultHistorySettle is how long a view must stay unchanged to enter the back/forward
// history, so that the steps of a drag or of a wheel spin make one entry, not hundreds.
const defaultHistorySettle = 700 * time.Millisecond

// navigator gives the window back/forward history (Alt+Left, Alt+Right and toolbar
// buttons), "Go to Location..." (Ctrl+L) and "Open Image..." (Ctrl+O: a PNG exported by
// Mandelscope opens at its exact view). "Copy Location" is the window's own (File menu and
// toolbar); Go to Location reads what it writes. Its state is touched on the UI goroutine
// only.
type navigator struct {
	w        *Window
	hist     nav.History
	jumping  bool   // a history step is navigating: do not record it
	pending  bool   // the view changed since the last entry
	gen      uint64 // identifies the latest settle timer
	timer    *time.Timer
	settleIn time.Duration
	stopped  bool
	back     *widget.ToolbarAction
	forward  *widget.ToolbarAction
	lastGood string // the last text the go-to dialog could read
}

// installNavigation adds the navigator's toolbar buttons, menu items and shortcuts to w.
func installNavigation(w *Window) *navigator {
	n := &navigator{w: w, settleIn: w.opts.historySettle}
	if n.settleIn <= 0 {
		n.settleIn = defaultHistorySettle
	}
	n.hist.Visit(w.Location())
	w.OnLocationChanged(n.changed)
	n.back = widget.NewToolbarAction(theme.NavigateBackIcon(), n.goBack)
	n.forward = widget.NewToolbarAction(theme.NavigateNextIcon(), n.goForward)
	w.AddToolbarItem(widget.NewToolbarSeparator())
	w.AddToolbarItem(n.back)
	w.AddToolbarItem(n.forward)
	w.AddMenuItem("Go", fyne.NewMenuItem("Back", n.goBack))
	w.AddMenuItem("Go", fyne.NewMenuItem("Forward", n.goForward))
	w.AddMenuItem("Go", fyne.NewMenuItem("Go to Location...", n.showGoTo))
	w.AddMenuItem("File", fyne.NewMenuItem("Open Image...", n.showOpenImage))
	w.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyLeft, Modifier: fyne.KeyModifierAlt}, n.goBack)
	w.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyRight, Modifier: fyne.KeyModifierAlt}, n.goForward)
	w.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault}, n.showGoTo)
	w.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierShortcutDefault}, n.showOpenImage)
	n.updateButtons()
	return n
}

// stop stops the settle timer for good (the window closed).
func (n *navigator) stop() {
	n.stopped = true
	if n.timer != nil {
		n.timer.Stop()
		n.timer = nil
	}
}

// changed is the window's location listener: it (re)starts the settle timer.
func (n *navigator) changed(_, _ fractal.Location) {
	if n.jumping || n.stopped {
		return
	}
	n.pending = true
	n.gen++
	gen := n.gen
	if n.timer != nil {
		n.timer.Stop()
	}
	n.timer = time.AfterFunc(n.settleIn, func() {
		n.w.uiDo(func() {
			if gen == n.gen && !n.stopped {
				n.settle()
			}
		})
	})
}

// settle records the current view in the history if it changed since the last entry.
func (n *navigator) settle() {
	if !n.pending {
		return
	}
	n.pending = false
	if n.timer != nil {
		n.timer.Stop()
	}
	n.hist.Visit(n.w.Location())
	n.updateButtons()
}

func (n *navigator) jump(l fractal.Location) {
	n.jumping = true
	defer func() { n.jumping = false }()
	n.w.SetLocation(l)
	n.updateButtons()
}

// goBack returns to the previous view of the history.
func (n *navigator) goBack() {
	n.settle()
	if l, ok := n.hist.Back(); ok {
		n.jump(l)
	}
}

// goForward goes to the next view of the history.
func (n *navigator) goForward() {
	n.settle()
	if l, ok := n.hist.Forward(); ok {
		n.jump(l)
	}
}

func (n *navigator) updateButtons() {
	for _, b := range []struct {
		a  *widget.ToolbarAction
		on bool
	}{{n.back, n.hist.CanBack() || n.pending}, {n.forward, n.hist.CanForward() && !n.pending}} {
		if b.a == nil {
			continue
		}
		if b.on {
			b.a.Enable()
		} else {
			b.a.Disable()
		}
	}
}

// parseGoTo reads the go-to dialog's text: fractal.Location.String()'s form or plain
// "re, im, zoom[, iterations]"; what it does not give keeps the current view's values,
// except that without iterations a window on automatic iterations follows the new zoom.
func (n *navigator) parseGoTo(s string) (fractal.Location, error) {
	base := n.w.Location()
	l, err := fractal.ParseLocationText(s, base)
	if err != nil || !n.w.autoIter {
		return l, err
	}
	other := base
	other.Iterations = base.Iterations%fractal.MaxIterations + 1
	if l2, err := fractal.ParseLocationText(s, other); err == nil && l2.Iterations != l.Iterations {
		l.Iterations = fractal.AutoIterations(l.ZoomFloat()) // the text gave no iterations
	}
	return l, nil
}

// goTo navigates to the location text s, or returns what is wrong with it (the view stays).
func (n *navigator) goTo(s string) error {
	l, err := n.parseGoTo(s)
	if err != nil {
		return err
	}
	n.lastGood = s
	n.settle()
	n.w.SetLocation(l)
	n.settle()
	return nil
}

// goToDialog shows the "Go to location" dialog: the entry shows the problem with its text
// inline and the Go button stays disabled until the text reads; it starts from the last
// good text (or the current view).
func (n *navigator) goToDialog() (*dialog.FormDialog, *locationEntry) {
	entry := newLocationEntry()
	entry.SetMinRowsVisible(3)
	text := n.w.Location().String()
	if n.lastGood != "" {
		if _, err := n.parseGoTo(n.lastGood); err == nil {
			text = n.lastGood
		}
	}
	entry.SetText(text)
	entry.Validator = func(s string) error { _, err := n.parseGoTo(s); return err }
	item := widget.NewFormItem("Location", entry)
	item.HintText = `"re=... im=... zoom=..." (as Copy Location writes it) or "re, im, zoom"`
	d := dialog.NewForm("Go to location", "Go", "Cancel", []*widget.FormItem{item}, func(ok bool) {
		if ok {
			n.w.ShowError(n.goTo(entry.Text))
		}
	}, n.w.FyneWindow())
	entry.OnSubmitted = func(string) { submitIfValid(d, &entry.Entry) }
	d.Resize(fyne.NewSize(620, 260))
	d.Show()
	focusSelected(n.w.FyneWindow(), entry)
	return d, entry
}

// locationEntry is a wrapping multi-line entry (a 60-digit location stays readable) in which
// Enter submits, as in a one-line field: a location never needs a line break.
type locationEntry struct {
	widget.Entry
}

func newLocationEntry() *locationEntry {
	e := &locationEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapBreak
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey submits on Enter and Return; other keys edit as usual.
func (e *locationEntry) TypedKey(k *fyne.KeyEvent) {
	if (k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter) && e.OnSubmitted != nil {
		e.OnSubmitted(e.Text)
		return
	}
	e.Entry.TypedKey(k)
}

func (n *navigator) showGoTo() { n.goToDialog() }

// openImage navigates to the view stored in a PNG exported by Mandelscope.
func (n *navigator) openImage(path string) error {
	md, err := export.ReadMetadata(path)
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("cannot open %s: %v", path, pe.Err)
	case err != nil:
		return fmt.Errorf("cannot open the view of %v", err) // err starts with the path
	}
	if err := md.Location.Validate(); err != nil {
		return fmt.Errorf("cannot open the view of %s: %v", path, err)
	}
	n.settle()
	n.w.SetLocation(md.Location)
	n.settle()
	return nil
}

func (n *navigator) showOpenImage() {
	d := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
		if err != nil || rc == nil {
			n.w.ShowError(err)
			return
		}
		path := rc.URI().Path()
		rc.Close()
		n.w.ShowError(n.openImage(path))
	}, n.w.FyneWindow())
	d.SetFilter(storage.NewExtensionFileFilter([]string{".png"}))
	d.Show()
}
