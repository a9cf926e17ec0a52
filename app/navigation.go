package app

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/nav"
)

// defaultHistorySettle is how long a view moved by keys must stay unchanged to enter the
// back/forward history, so that a run of key presses makes one entry, not dozens.
const defaultHistorySettle = 700 * time.Millisecond

// defaultWheelGap is how long the wheel must rest to end a burst of notches: the burst, with
// the pauses a person makes to look, is one entry of the history.
const defaultWheelGap = 1500 * time.Millisecond

// gestureKind is the kind of input moving the view. The history records gestures: the view
// before one and where it ends, so a burst of wheel notches, one drag, one held-button zoom
// or one click is one step back.
type gestureKind int

const (
	gestureNone  gestureKind = iota // keys, menus, controls: entries after settleIn of rest
	gestureDrag                     // ends with the drag
	gestureWheel                    // ends when the wheel rests for wheelGap
	gestureHold                     // ends when the button is released
	gestureClick                    // a double-click or right-click: begins and ends at once
)

// beginGesture says that input of kind is moving the view: a different gesture than the one
// in progress first ends that one (recording where it left the view).
func (w *Window) beginGesture(kind gestureKind) {
	if w.nav != nil {
		w.nav.begin(kind)
	}
}

// endGesture says that the gesture in progress ended: its view enters the history.
func (w *Window) endGesture() {
	if w.nav != nil {
		w.nav.end()
	}
}

// navigator gives the window back/forward history (Alt+Left, Alt+Right and toolbar
// buttons), "Go to Location..." (Ctrl+L) and "Open Image..." (Ctrl+O: a PNG exported by
// Mandelscope opens at its exact view). "Copy Location" is the window's own (File menu and
// toolbar); Go to Location reads what it writes. Its state is touched on the UI goroutine
// only.
type navigator struct {
	w        *Window
	hist     nav.History
	pending  bool   // the view changed since the last entry
	gen      uint64 // identifies the latest settle timer
	timer    interface{ Stop() bool }
	settleIn time.Duration
	wheelGap time.Duration
	kind     gestureKind // the gesture in progress
	stopped  bool
	back     *widget.ToolbarAction
	forward  *widget.ToolbarAction

	// afterFunc starts a settle timer: time.AfterFunc (a test gives a clock of its own).
	afterFunc func(time.Duration, func()) interface{ Stop() bool }
}

// installNavigation adds the navigator's toolbar buttons, menu items and shortcuts to w.
func installNavigation(w *Window) *navigator {
	n := &navigator{w: w, settleIn: w.opts.historySettle, afterFunc: func(d time.Duration, f func()) interface{ Stop() bool } {
		return time.AfterFunc(d, f)
	}}
	if n.settleIn <= 0 {
		n.settleIn = defaultHistorySettle
	}
	n.wheelGap = w.opts.wheelGap
	if n.wheelGap <= 0 {
		n.wheelGap = defaultWheelGap
	}
	n.hist.Visit(w.Location())
	w.OnLocationChanged(n.changed)
	n.back = widget.NewToolbarAction(theme.NavigateBackIcon(), n.goBack)
	n.forward = widget.NewToolbarAction(theme.NavigateNextIcon(), n.goForward)
	w.AddToolbarItem(widget.NewToolbarSeparator())
	w.AddToolbarAction(n.back, "Back (Alt+Left)")
	w.AddToolbarAction(n.forward, "Forward (Alt+Right)")
	w.AddMenuShortcut("Go", "Back", &desktop.CustomShortcut{KeyName: fyne.KeyLeft, Modifier: fyne.KeyModifierAlt}, n.goBack)
	w.AddMenuShortcut("Go", "Forward", &desktop.CustomShortcut{KeyName: fyne.KeyRight, Modifier: fyne.KeyModifierAlt}, n.goForward)
	w.AddMenuShortcut("Go", "Go to Location...", &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault}, n.showGoTo)
	w.AddMenuShortcut("File", "Open Image...", &desktop.CustomShortcut{KeyName: fyne.KeyO, Modifier: fyne.KeyModifierShortcutDefault}, n.showOpenImage)
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

// begin starts a gesture of kind, ending the one in progress if it is of another kind.
func (n *navigator) begin(kind gestureKind) {
	if n.kind != kind {
		n.settle()
		n.kind = kind
	}
}

// end ends the gesture in progress: the view enters the history now.
func (n *navigator) end() {
	n.kind = gestureNone
	n.settle()
}

// changed is the window's location listener: it (re)starts the settle timer, except during
// a drag or a held button, which end the entry themselves; the history's own steps
// (FromHistory) are not recorded. The history holds places: a change that leaves the place
// where it was (colouring, iterations) is no step of its own but goes into the place's entry
// (or into the one being made), so that Back and Forward step through places, each as it
// was last seen.
func (n *navigator) changed(old, l fractal.Location, origin Origin) {
	if origin == FromHistory || n.stopped {
		return
	}
	if samePlace(old, l) {
		if !n.pending {
			n.hist.Replace(l)
		}
		return
	}
	n.pending = true
	n.gen++
	gen := n.gen
	if n.timer != nil {
		n.timer.Stop()
		n.timer = nil
	}
	wait := n.settleIn
	switch n.kind {
	case gestureDrag, gestureHold:
		return
	case gestureWheel:
		wait = n.wheelGap
	}
	n.timer = n.afterFunc(wait, func() {
		n.w.uiDo(func() {
			if gen == n.gen && !n.stopped {
				n.kind = gestureNone
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
	n.kind = gestureNone
	n.w.setLocationFrom(l, FromHistory)
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
	l, err := resolveLocationText(s, base)
	if err != nil || !n.w.autoIter {
		return l, err
	}
	other := base
	other.Iterations = base.Iterations%fractal.MaxIterations + 1
	if l2, err := resolveLocationText(s, other); err == nil && l2.Iterations != l.Iterations {
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
	n.settle()
	n.w.SetLocation(l)
	n.settle()
	return nil
}

// goToDialog shows the "Go to location" dialog: the entry shows the problem with its text
// inline and the Go button stays disabled until the text reads; it always starts from the
// current view (so that Enter stays here), selected, so that a paste replaces it.
func (n *navigator) goToDialog() (*dialog.FormDialog, *locationEntry) {
	entry := newLocationEntry(n.w)
	entry.SetMinRowsVisible(3)
	entry.SetText(n.w.Location().String())
	entry.Validator = func(s string) error { _, err := n.parseGoTo(s); return err }
	item := widget.NewFormItem("Location", entry)
	item.HintText = `"re=... im=... zoom=..." (as Copy Location writes it; julia=RE,IM for a Julia set) or "re, im, zoom"`
	d := dialog.NewForm("Go to location", "Go", "Cancel", []*widget.FormItem{item}, func(ok bool) {
		if ok {
			n.w.ShowError(n.goTo(entry.Text))
		}
	}, n.w.FyneWindow())
	entry.OnSubmitted = func(string) { submitIfValid(d, &entry.Entry) }
	d.Resize(fyne.NewSize(620, 260))
	n.w.showDialog(d)
	focusSelected(n.w.FyneWindow(), entry)
	return d, entry
}

// locationEntry is a wrapping multi-line entry (a 60-digit location stays readable) in which
// Enter submits, as in a one-line field: a location never needs a line break.
type locationEntry struct {
	escEntry
}

func newLocationEntry(w *Window) *locationEntry {
	e := &locationEntry{escEntry: escEntry{w: w}}
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
	e.escEntry.TypedKey(k) // Escape closes the dialog
}

func (n *navigator) showGoTo() { n.goToDialog() }

// openImage navigates to the view stored in a PNG exported by Mandelscope, with the file's own
// iteration count (Auto off: setFileLocation).
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
	n.w.setFileLocation(md.Location)
	n.settle()
	return nil
}
