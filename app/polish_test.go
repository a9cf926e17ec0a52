package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"mandelscope/bookmarks"
	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/video"
)

// typeOn types s as the desktop driver does: into the focused object, else to the window's
// handler (Fyne's test.TypeOnCanvas always gives it to the window's handler).
func typeOn(c fyne.Canvas, s string) {
	for _, r := range s {
		if f := c.Focused(); f != nil {
			f.TypedRune(r)
		} else if h := c.OnTypedRune(); h != nil {
			h(r)
		}
	}
}

// keyOn presses a key as the desktop driver does (typeOn).
func keyOn(c fyne.Canvas, ev *fyne.KeyEvent) {
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
	} else if h := c.OnTypedKey(); h != nil {
		h(ev)
	}
}

// TestKeysGoWhereTyped: a click on the picture, then Ctrl+L before the click's tap arrives
// (Fyne calls Tapped a double-click's delay after the release): the dialog's field keeps the
// focus and gets the text typed, which the picture (where - zooms out) does not. After a click
// on the Auto checkbox or a slider, the picture's keys work without clicking the picture.
func TestKeysGoWhereTyped(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	c := w.FyneWindow().Canvas()
	before := w.Location()
	c.(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault})
	if len(w.dialogs) != 1 {
		t.Fatalf("Ctrl+L opened %d dialogs", len(w.dialogs))
	}
	w.view.Tapped(&fyne.PointEvent{}) // the click's tap, late
	entry, ok := c.Focused().(*locationEntry)
	if !ok {
		t.Fatalf("after the late tap the focus is on %T, want the location field", c.Focused())
	}
	typeOn(c, "-0.5, 0, 4")
	if entry.Text != "-0.5, 0, 4" {
		t.Fatalf("the field holds %q after typing", entry.Text)
	}
	if w.Location() != before {
		t.Fatalf("the typed text moved the picture to %v", w.Location())
	}
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if l := w.Location(); l.Re.String() != "-0.5" || l.Zoom.String() != "4" {
		t.Fatalf("Enter went to %v", l)
	}

	// The Auto checkbox, then Home and +: the picture's keys.
	test.Tap(w.autoCheck)
	if f := c.Focused(); f != nil {
		t.Fatalf("after a click on Auto the focus is on %T", f)
	}
	keyOn(c, &fyne.KeyEvent{Name: fyne.KeyHome})
	if l := w.Location(); l.Zoom.String() != "1" {
		t.Fatalf("Home after a click on Auto went to %v", l)
	}
	typeOn(c, "+")
	if l := w.Location(); l.Zoom.String() != "2" {
		t.Fatalf("+ after a click on Auto went to %v", l)
	}
	// A slider clicked: the arrows pan the picture, not the slider.
	test.Tap(w.offsetSl)
	if f := c.Focused(); f != nil {
		t.Fatalf("after a click on the offset slider the focus is on %T", f)
	}
	off := w.Location().Color.Offset
	here := w.Location()
	keyOn(c, &fyne.KeyEvent{Name: fyne.KeyRight})
	if l := w.Location(); samePlace(l, here) || l.Color.Offset != off {
		t.Fatalf("Right after a click on the slider: view %v, offset %v (was %v)", l, l.Color.Offset, off)
	}
	// While the iterations field is edited, the keys are its own.
	c.Focus(w.iterEntry)
	here = w.Location()
	typeOn(c, "+")
	if w.Location() != here {
		t.Fatal("+ typed into the iterations field zoomed the picture")
	}
}

// TestHistoryStepsThroughPlaces: a zoom step then three palette changes; one Alt+Left goes
// back to the place before the zoom (not to the palette before the last change), and Alt+Right
// comes back to the zoomed place with its last palette.
func TestHistoryStepsThroughPlaces(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	n := w.nav
	start := w.Location()
	w.zoomCentre(2)
	n.settle()
	zoomed := w.Location()
	names := colour.PaletteNames()
	if len(names) < 4 {
		t.Fatalf("want 4 palettes, have %v", names)
	}
	for _, name := range names[1:4] {
		w.colorChanged(false, func(c *colour.Coloring) { c.Palette = name })
		n.settle()
	}
	if n.hist.Len() != 2 {
		t.Fatalf("history has %d entries after a zoom and three palettes, want 2", n.hist.Len())
	}
	alt := func(k fyne.KeyName) {
		w.FyneWindow().Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierAlt})
	}
	alt(fyne.KeyLeft)
	if l := w.Location(); !samePlace(l, start) {
		t.Fatalf("one Alt+Left went to %v, want the start %v", l, start)
	}
	alt(fyne.KeyRight)
	if l := w.Location(); !samePlace(l, zoomed) || l.Color.Palette != names[3] {
		t.Fatalf("Alt+Right went to %v, want %v with palette %s", l, zoomed, names[3])
	}
	// A colour change before a move is settled goes into that move's entry.
	w.zoomCentre(2)
	w.colorChanged(false, func(c *colour.Coloring) { c.Offset = 0.5 })
	n.settle()
	if n.hist.Len() != 3 {
		t.Fatalf("history has %d entries, want 3", n.hist.Len())
	}
	alt(fyne.KeyLeft)
	if l := w.Location(); !samePlace(l, zoomed) {
		t.Fatalf("Alt+Left went to %v, want %v", l, zoomed)
	}
}

// TestBookmarksPanelKeepsThePicture: at a finished frame, Ctrl+B shows the panel over the
// picture's right edge, its list filled; the picture keeps its size and its frame (nothing is
// rendered again), and hiding the panel leaves both as they were.
func TestBookmarksPanelKeepsThePicture(t *testing.T) {
	w, p, path := newBookmarksTestWindow(t)
	if err := bookmarks.Add(path, bookmarks.Bookmark{Name: "home", Location: fractal.Home()}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a full frame", func() bool { return w.shownImage() != nil })
	shown := w.view.img.Image
	pw, ph := w.ViewSize()
	ctrlB := &desktop.CustomShortcut{KeyName: fyne.KeyB, Modifier: fyne.KeyModifierShortcutDefault}
	c := w.FyneWindow().Canvas()
	c.(fyne.Shortcutable).TypedShortcut(ctrlB)
	if !p.visible || !w.side.Visible() || p.list.Length() != 1 {
		t.Fatalf("Ctrl+B: panel visible %v, side visible %v, %d rows", p.visible, w.side.Visible(), p.list.Length())
	}
	// The panel lies at the picture's right edge, at its full width.
	vpos := fyne.CurrentApp().Driver().AbsolutePositionForObject(w.view)
	spos := fyne.CurrentApp().Driver().AbsolutePositionForObject(w.side)
	if right, sideRight := vpos.X+w.view.Size().Width, spos.X+w.side.Size().Width; right-sideRight > 1 || sideRight-right > 1 || w.side.Size().Width < bookmarksPanelWidth {
		t.Errorf("panel at x %v..%v, picture's right edge %v", spos.X, sideRight, right)
	}
	if nw, nh := w.ViewSize(); nw != pw || nh != ph || w.view.img.Image != shown {
		t.Fatalf("showing the panel: picture %dx%d (was %dx%d), frame kept %v", nw, nh, pw, ph, w.view.img.Image == shown)
	}
	c.(fyne.Shortcutable).TypedShortcut(ctrlB)
	if p.visible || w.side.Visible() {
		t.Fatal("the second Ctrl+B left the panel shown")
	}
	if nw, nh := w.ViewSize(); nw != pw || nh != ph || w.view.img.Image != shown {
		t.Fatalf("hiding the panel: picture %dx%d (was %dx%d), frame kept %v", nw, nh, pw, ph, w.view.img.Image == shown)
	}
}

// TestControlsRowStable: the controls row's left group keeps its width whatever the palette
// (a user's gradient of wide letters included) and the colouring method are called, so the
// row never reflows under the pointer.
func TestControlsRowStable(t *testing.T) {
	w := newTestWindow(t)
	want := w.controlsLeft.MinSize().Width
	for _, name := range colour.PaletteNames() {
		w.colorChanged(false, func(c *colour.Coloring) { c.Palette, c.Gradient = name, "" })
		if got := w.controlsLeft.MinSize().Width; got != want {
			t.Errorf("palette %s: the row's left group is %v wide, was %v", name, got, want)
		}
	}
	wide := w.Location()
	wide.Color = wide.Color.WithGradient("WMWMWMWMW", mustGradient(t, "#000000,#FFFFFF"))
	w.SetLocation(wide)
	if got := w.controlsLeft.MinSize().Width; got != want || !strings.HasSuffix(w.paletteBtn.Text, "…") {
		t.Errorf("gradient WMWMWMWMW: the row's left group is %v wide, was %v; the chooser says %q", got, want, w.paletteBtn.Text)
	}
	for _, m := range colour.Methods {
		for _, tr := range colour.Transfers {
			w.colorChanged(false, func(c *colour.Coloring) { c.Method, c.Transfer = m, tr })
			if got := w.controlsLeft.MinSize().Width; got != want {
				t.Errorf("colouring %s, transfer %s: the row's left group is %v wide, was %v", m, tr, got, want)
			}
		}
	}
}

// TestGradientEditorFromTheRow: the gradient editor opens from the controls row (the
// colouring's pop-up), not only from the File menu; its stop
// positions show to 3 decimals, and leaving a field as shown keeps the exact position.
func TestGradientEditorFromTheRow(t *testing.T) {
	w := newTestWindow(t)
	l := w.Location()
	l.Color = l.Color.WithGradient("sevenths", mustGradient(t, "0:#000000,0.142857142857:#FF0000,0.285714285714:#FFFFFF"))
	w.SetLocation(l)
	// From the colouring's pop-up.
	w.showShading()
	test.Tap(w.shade.gradient)
	w.pruneDialogs()
	if _, ok := w.dialogs[len(w.dialogs)-1].(*popupDialog); !ok || len(w.dialogs) != 1 || w.shade.dlg != nil {
		t.Fatalf("the colouring's Edit gradient left %d dialogs open (the colouring's open: %v)", len(w.dialogs), w.shade.dlg != nil)
	}
	w.closeTopDialog()
	e := w.openGradientEditor()
	if e == nil {
		t.Fatal("no editor")
	}
	var shown []string
	for _, row := range e.rows.Objects {
		entry := row.(*fyne.Container).Objects[1].(*fyne.Container).Objects[0].(*commitEntry)
		shown = append(shown, entry.Text)
		entry.onCommit(entry.Text) // left as shown
	}
	if strings.Join(shown, " ") != "0.000 0.143 0.286" {
		t.Errorf("positions shown %q, want 0.000 0.143 0.286", shown)
	}
	if e.g.Pos[1] != 0.142857142857 || !e.note.Hidden {
		t.Errorf("a position left as shown became %v (note %q)", e.g.Pos[1], e.note.Text)
	}
}

// TestColourChooserConfirms: a swatch shows its colour in the chooser and applies nothing;
// Confirm gives the stop the colour shown.
func TestColourChooserConfirms(t *testing.T) {
	w := newTestWindow(t)
	l := w.Location()
	l.Color = l.Color.WithGradient("duo", mustGradient(t, "0:#000000,0.5:#FFFFFF"))
	w.SetLocation(l)
	e := w.openGradientEditor()
	ch := e.pickColour(1)
	if ch == nil || len(w.dialogs) != 2 {
		t.Fatalf("the chooser did not open (%d dialogs)", len(w.dialogs))
	}
	red := ch.swatches[0]
	test.Tap(red)
	w.pruneDialogs()
	if got := hexColour(e.g.Stops[1]); got != "#FFFFFF" || len(w.dialogs) != 2 {
		t.Fatalf("a swatch applied %s and left %d dialogs open", got, len(w.dialogs))
	}
	if ch.hex.Text != hexColour(red.c) || ch.preview.FillColor != red.c {
		t.Errorf("the chooser shows %s, want the swatch's %s", ch.hex.Text, hexColour(red.c))
	}
	ch.hex.SetText("#12AB34")
	ch.dlg.Confirm()
	if got := hexColour(e.g.Stops[1]); got != "#12AB34" {
		t.Fatalf("Confirm gave the stop %s, want #12AB34", got)
	}
}

// TestSpeedAndTimeLeft: the export's and video's figures.
func TestSpeedAndTimeLeft(t *testing.T) {
	for _, c := range []struct {
		px   int64
		el   time.Duration
		want string
	}{
		{0, time.Minute, "measuring speed"},
		{30_000, time.Second, "30 kpx/s"}, // a deep export: not "0.0 Mpx/s"
		{2_500, time.Second, "2.5 kpx/s"},
		{40, time.Second, "40 px/s"},
		{3_200_000, time.Second, "3.2 Mpx/s"},
	} {
		if got := speedText(c.px, c.el); got != c.want {
			t.Errorf("speedText(%d, %v) = %q, want %q", c.px, c.el, got, c.want)
		}
	}
	r := &videoRun{bar: widget.NewProgressBar(), status: widget.NewLabel(""), t0: time.Unix(1000, 0)}
	r.frames.Total = 200
	r.frameEst = 30 * time.Second
	r.update(video.Progress{Phase: "keyframes", Done: 10, Total: 40}, time.Unix(1060, 0))
	// 10 keyframes a minute: 3 minutes for the 30 left, and the frames' 30 s.
	if got := r.status.Text; got != "Keyframes 10 of 40, frames 0 of 200; about 4 min left" {
		t.Errorf("status %q", got)
	}
	r.update(video.Progress{Phase: "keyframes", Done: 40, Total: 40}, time.Unix(1240, 0))
	r.update(video.Progress{Phase: "frames", Done: 1, Total: 200}, time.Unix(1240, 0))
	r.update(video.Progress{Phase: "frames", Done: 100, Total: 200, Fraction: 0.95}, time.Unix(1260, 0))
	if got := r.status.Text; got != "Keyframes 40 of 40, frames 100 of 200; about 20 s left" {
		t.Errorf("status %q", got)
	}
	if v := r.bar.Value; v < 0.94 || v > 0.96 {
		t.Errorf("bar at %v, want 0.95 (the run's share, Progress.Fraction)", v)
	}
}

// TestGoToKeepsColouring: Go to with coordinates only keeps the view's colouring (palette,
// method, density, offset); text that names a palette changes it.
func TestGoToKeepsColouring(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	n := w.nav
	l := w.Location()
	l.Color = colour.Coloring{Palette: "fire", Method: colour.Methods[len(colour.Methods)-1], Density: 0.5, Offset: 0.25}
	w.SetLocation(l)
	want := w.Location().Color
	for _, text := range []string{"-0.75, 0.1, 50", "re=-0.7 im=0.2 zoom=60", "re=-0.7 im=0.2 zoom=70 iterations=500"} {
		if err := n.goTo(text); err != nil {
			t.Fatal(err)
		}
		if got := w.Location().Color; got != want {
			t.Errorf("Go to %q: colouring %+v, want %+v", text, got, want)
		}
	}
	if err := n.goTo("re=-0.7 im=0.2 zoom=60 palette=ocean"); err != nil || w.Location().Color.Palette != "ocean" {
		t.Errorf("Go to with palette=ocean: %v %v", w.Location().Color.Palette, err)
	}
}

// TestColourUndo: Ctrl+Z takes back colour changes one at a time (a run of one slider's moves
// as one), Ctrl+Shift+Z makes them again; neither is a step of the place history.
func TestColourUndo(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	names := colour.PaletteNames()
	start := w.Location().Color
	w.colorChanged(false, func(c *colour.Coloring) { c.Palette = names[1] })
	for _, v := range []float64{0.1, 0.2, 0.3} { // one drag of the offset slider
		w.colorChanged(true, func(c *colour.Coloring) { c.Offset = v })
	}
	w.colorChanged(false, func(c *colour.Coloring) { c.Palette = names[2] })
	entries := w.nav.hist.Len()
	c := w.FyneWindow().Canvas().(fyne.Shortcutable)
	undo := &fyne.ShortcutUndo{} // Ctrl+Z, as the desktop driver names it
	redo := &desktop.CustomShortcut{KeyName: fyne.KeyZ, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	steps := []struct {
		sc      fyne.Shortcut
		palette string
		offset  float64
	}{
		{undo, names[1], 0.3}, // the second palette taken back
		{undo, names[1], 0},   // the whole drag
		{undo, start.Palette, 0},
		{undo, start.Palette, 0}, // nothing more to undo
		{redo, names[1], 0},
		{&fyne.ShortcutRedo{}, names[1], 0.3}, // Ctrl+Y
	}
	for i, s := range steps {
		c.TypedShortcut(s.sc)
		if got := w.Location().Color; got.Palette != s.palette || got.Offset != s.offset {
			t.Fatalf("step %d: palette %s offset %v, want %s %v", i, got.Palette, got.Offset, s.palette, s.offset)
		}
	}
	if n := w.nav.hist.Len(); n != entries {
		t.Errorf("undo and redo made %d history entries, had %d", n, entries)
	}
	// A new change drops what could be redone.
	w.colorChanged(false, func(c *colour.Coloring) { c.Palette = names[3] })
	c.TypedShortcut(redo)
	if got := w.Location().Color.Palette; got != names[3] {
		t.Errorf("redo after a new change went to %s", got)
	}
}
