package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"mandelscope/bookmarks"
	"mandelscope/fractal"
)

// inRange fails the test unless w's view is one the window accepts: its centre within
// ±MaxCentre exactly, and valid.
func inRange(t *testing.T, w *Window, what string) fractal.Location {
	t.Helper()
	l := w.Location()
	if _, out := l.ClampCentre(); out {
		t.Fatalf("%s: centre %s, %s is outside |re|, |im| <= %g", what, l.Re, l.Im, fractal.MaxCentre)
	}
	if err := l.Validate(); err != nil {
		t.Fatalf("%s: the view is one the window refuses: %v", what, err)
	}
	return l
}

// noDialogs fails the test when a dialog (an error) is open over w.
func noDialogs(t *testing.T, w *Window, what string) {
	t.Helper()
	w.pruneDialogs()
	if n := len(w.dialogs); n > 0 {
		t.Fatalf("%s: %d dialog(s) open", what, n)
	}
}

// 60 presses of an arrow key from home (the issue: re=-24.5 with Left) stop at the edge of the
// centre's range, say so, and the history steps back and forth through views it accepts, with
// no error: in every direction.
func TestArrowKeysStopAtTheEdge(t *testing.T) {
	for _, c := range []struct {
		key  fyne.KeyName
		re   bool   // the key moves the real part
		edge string // where it stops
	}{
		{fyne.KeyLeft, true, "-4"}, {fyne.KeyRight, true, "4"},
		{fyne.KeyUp, false, "4"}, {fyne.KeyDown, false, "-4"},
	} {
		t.Run(string(c.key), func(t *testing.T) {
			w, _, _ := newBookmarksTestWindow(t)
			keys := w.FyneWindow().Canvas().OnTypedKey()
			for i := range 60 {
				keys(&fyne.KeyEvent{Name: c.key})
				inRange(t, w, fmt.Sprintf("%s press %d", c.key, i+1))
			}
			edge := w.Location()
			part := edge.Im
			if c.re {
				part = edge.Re
			}
			if part.String() != c.edge {
				t.Fatalf("60 presses of %s stopped at %s, %s; want the edge %s", c.key, edge.Re, edge.Im, c.edge)
			}
			if !strings.Contains(w.statusTime.Text, "at the edge") {
				t.Errorf("the status bar says %q at the edge", w.statusTime.Text)
			}
			alt := func(k fyne.KeyName) {
				w.FyneWindow().Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierAlt})
			}
			alt(fyne.KeyLeft)
			inRange(t, w, "Alt+Left")
			if !samePlace(w.Location(), fractal.Home()) {
				t.Errorf("Alt+Left went to %v, want home", w.Location())
			}
			alt(fyne.KeyRight)
			noDialogs(t, w, "Alt+Right")
			if got := inRange(t, w, "Alt+Right"); !samePlace(got, edge) {
				t.Errorf("Alt+Right went to %v, want the edge %v", got, edge)
			}
			// A bookmark of the view at the edge opens again.
			p := w.marks
			if err := await(t, func(done func(error)) { p.addBookmark("edge", w.Location(), nil, done) }); err != nil {
				t.Fatalf("bookmarking the view at the edge: %v", err)
			}
			w.SetLocation(fractal.Home())
			if len(p.shown) != 1 {
				t.Fatalf("%d bookmarks listed, want 1", len(p.shown))
			}
			p.open(0)
			noDialogs(t, w, "the edge's bookmark")
			if !samePlace(w.Location(), edge) {
				t.Errorf("the edge's bookmark went to %v", w.Location())
			}
		})
	}
}

// A drag far past the edge stops there, and the drag goes on from the edge: a move back moves
// the view at once.
func TestDragStopsAtTheEdge(t *testing.T) {
	w := newTestWindow(t)
	pw, ph := w.ViewSize()
	for i := range 20 { // 20 x 5000 px right and down: the centre goes left and up
		w.view.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 100)}, Dragged: fyne.Delta{DX: 5000, DY: 5000}})
		inRange(t, w, fmt.Sprintf("drag step %d", i+1))
	}
	l := w.Location()
	if l.Re.String() != "-4" || l.Im.String() != "4" {
		t.Fatalf("a far drag stopped at %s, %s; want -4, 4", l.Re, l.Im)
	}
	w.view.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 100)}, Dragged: fyne.Delta{DX: -100, DY: 0}})
	s := fractal.Spacing(l.ZoomFloat(), pw, ph)
	if d := w.Location().Re.Float64() - l.Re.Float64(); !near(d, 100*s, 0.011*s) {
		t.Errorf("dragging back 100 px from the edge moved re by %g, want %g", d, 100*s)
	}
	w.view.DragEnd()
	noDialogs(t, w, "the drag")
}

// The wheel zooming out at the edge, about a point on the far side of the centre (which pushes
// the centre outward), keeps the centre in range down to the least zoom.
func TestWheelOutAtTheEdgeStaysInRange(t *testing.T) {
	w := newTestWindow(t)
	w.SetLocation(testLoc("4", "-4", "1", 200)) // the corner: a view the window accepts
	inRange(t, w, "the corner")
	pos := fyne.NewPos(20, 20) // top left: zooming out about it moves the centre right and down
	for i := range 40 {
		w.view.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: pos}, Scrolled: fyne.Delta{DY: -wheelNotch}})
		inRange(t, w, fmt.Sprintf("wheel notch %d out", i+1))
	}
	if z := w.Location().ZoomFloat(); z != fractal.MinZoom {
		t.Errorf("40 notches out reached zoom %g, want the least, %g", z, fractal.MinZoom)
	}
	// A right-click zooms out too.
	test.TapSecondaryAt(w.view, fyne.NewPos(30, 30))
	inRange(t, w, "right-click")
	noDialogs(t, w, "the wheel")
}

// The same error, repeated, shows one dialog (not a stack of them); another error shows its
// own; once closed, the error shows again.
func TestErrorDialogsDoNotStack(t *testing.T) {
	w := newTestWindow(t)
	err := errors.New("centre real part -24.5 is out of range (|value| <= 4)")
	for range 90 {
		w.ShowError(err)
	}
	if n := len(w.dialogs); n != 1 {
		t.Fatalf("90 identical errors opened %d dialogs, want 1", n)
	}
	w.ShowError(errors.New("another problem"))
	if n := len(w.dialogs); n != 2 {
		t.Fatalf("a different error: %d dialogs, want 2", n)
	}
	w.closeTopDialog()
	w.closeTopDialog()
	noDialogs(t, w, "both closed")
	w.ShowError(err)
	if n := len(w.dialogs); n != 1 {
		t.Errorf("the error after its dialog closed: %d dialogs, want 1", n)
	}
}

// A view saved at the edge opens at the next start; a saved view the window refuses (one an
// older version let it pan to) is reported in a dialog, with its text, and in the status bar,
// not silently replaced by home.
func TestSavedViewAtTheEdgeAndRefused(t *testing.T) {
	t.Setenv(bookmarks.EnvPath, filepath.Join(t.TempDir(), "bookmarks.json"))
	a := test.NewTempApp(t)
	open := func() *Window {
		w := New(a, Options{Restore: true, Renderer: "cpu", Size: fyne.NewSize(500, 420), do: testUI.do, bookmarksWatch: -1})
		w.FyneWindow().Show()
		return w
	}
	closeW := func(w *Window) {
		w.FyneWindow().Close()
		w.stop()
		testUI.reset()
	}
	w := open()
	keys := w.FyneWindow().Canvas().OnTypedKey()
	for range 60 {
		keys(&fyne.KeyEvent{Name: fyne.KeyLeft})
	}
	edge := w.Location()
	closeW(w)
	w = open()
	if got := w.Location(); got != edge {
		t.Errorf("the view saved at the edge opened as %v, want %v", got, edge)
	}
	noDialogs(t, w, "the view saved at the edge")
	closeW(w)

	saved := "re=-24.5 im=0 zoom=1 iterations=200 palette=classic density=1 offset=0"
	a.Preferences().SetString(prefView, saved)
	w = open()
	defer closeW(w)
	if !samePlace(w.Location(), fractal.Home()) {
		t.Errorf("a refused saved view opened as %v, want home", w.Location())
	}
	if len(w.dialogs) != 1 {
		t.Fatalf("a refused saved view: %d dialogs, want 1 saying so", len(w.dialogs))
	}
	if s := w.statusTime.Text; !strings.Contains(s, "not opened") || !strings.Contains(s, "-24.5") {
		t.Errorf("the status bar says %q of the refused view", s)
	}
	if s := w.fullText(w.statusTime); !strings.Contains(s, "out of range") {
		t.Errorf("the status bar's full text %q does not say why", s)
	}
	// The status bar keeps saying so over the first frame's time, while the view is home.
	w.renderStatus("frame 12 ms")
	if !strings.Contains(w.fullText(w.statusTime), "not opened") {
		t.Errorf("the first frame's time replaced the note: %q", w.statusTime.Text)
	}
	if got := dialogText(w); !strings.Contains(got, "out of range") {
		t.Errorf("the dialog says %q; want why", got)
	}
	entries := dialogEntries(w)
	if len(entries) != 1 || entries[0].Text != saved {
		t.Fatalf("the dialog's entries %v; want one with the saved text", entries)
	}
	// Its button opens Go to Location with the saved text, the problem shown there.
	w.dialogs[0].(interface{ Confirm() }).Confirm()
	entries = dialogEntries(w)
	if len(entries) != 1 || entries[0].Text != saved {
		t.Fatalf("Go to Location's entries %v; want one with the saved text", entries)
	}
	if sel := entries[0].SelectedText(); sel != "" {
		t.Errorf("Go to Location opened with %q selected: a key typed would replace it", sel)
	}
	if err := entries[0].Validate(); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("Go to Location says %v of the saved text", err)
	}
}

// dialogEntries are the entries in the window's top overlay (the dialog on top).
func dialogEntries(w *Window) []*widget.Entry {
	var out []*widget.Entry
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Entry:
			out = append(out, v)
			return
		case *locationEntry:
			out = append(out, &v.Entry)
			return
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
			return
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c)
			}
		}
	}
	if top := w.win.Canvas().Overlays().Top(); top != nil {
		walk(top)
	}
	return out
}
