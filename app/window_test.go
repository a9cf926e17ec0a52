package app

import (
	"errors"
	"image"
	"math"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// viewPos is the absolute canvas position of a point in the view.
func viewPos(w *Window, p fyne.Position) fyne.Position {
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject(w.view)
	return abs.Add(p)
}

// pointAt is the complex number under view pixel position (x, y) (continuous pixels).
func pointAt(l fractal.Location, pw, ph int, x, y float64) (float64, float64) {
	s := fractal.Spacing(l.ZoomFloat(), pw, ph)
	return l.Re.Float64() + (x-float64(pw)/2)*s, l.Im.Float64() + (float64(ph)/2-y)*s
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestDragPansWithThePointer(t *testing.T) {
	w := newTestWindow(t)
	pw, ph := w.ViewSize()
	before := w.Location()
	s := fractal.Spacing(before.ZoomFloat(), pw, ph)
	test.Drag(w.FyneWindow().Canvas(), viewPos(w, fyne.NewPos(150, 120)), 100, -40)
	after := w.Location()
	// Dragging right by 100 px moves the centre left by 100 spacings; dragging up by 40 px
	// moves it down (smaller imaginary part) by 40.
	if d := after.Re.Float64() - before.Re.Float64(); !near(d, -100*s, 0.011*s) {
		t.Errorf("drag right 100 px: centre re moved by %g, want %g", d, -100*s)
	}
	if d := after.Im.Float64() - before.Im.Float64(); !near(d, -40*s, 0.011*s) {
		t.Errorf("drag up 40 px: centre im moved by %g, want %g", d, -40*s)
	}
	if after.Zoom.String() != before.Zoom.String() {
		t.Errorf("drag changed the zoom: %s -> %s", before.Zoom, after.Zoom)
	}
}

// A long drag in many small steps stays 1:1 with the pointer: no rounding builds up.
func TestLongDragDoesNotDrift(t *testing.T) {
	w := newTestWindow(t)
	// From re 1.5: 400 pixels left at zoom 2 stay within the centre's range (|re| <= 4), which
	// from home they would leave (the drag stops at the edge: TestDragStopsAtTheEdge).
	w.SetLocation(testLoc("1.5", "0", "2", 200))
	pw, ph := w.ViewSize()
	before := w.Location()
	s := fractal.Spacing(before.ZoomFloat(), pw, ph)
	for range 300 {
		w.view.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 100)}, Dragged: fyne.Delta{DX: 1.333, DY: -0.5}})
	}
	w.view.DragEnd()
	after := w.Location()
	if d := after.Re.Float64() - before.Re.Float64(); !near(d, -399.9*s, 0.011*s) {
		t.Errorf("300 steps of 1.333 px: re moved %g pixels, want -399.9", d/s)
	}
	if d := after.Im.Float64() - before.Im.Float64(); !near(d, -150*s, 0.011*s) {
		t.Errorf("300 steps of -0.5 px: im moved %g pixels, want -150", d/s)
	}
}

// On a HiDPI canvas (scale 2) a drag of 50 logical units is 100 image pixels.
func TestDragHiDPI(t *testing.T) {
	w := newTestWindow(t)
	w.FyneWindow().Canvas().(test.WindowlessCanvas).SetScale(2)
	w.FyneWindow().Resize(fyne.NewSize(500, 420))
	pw, ph := w.ViewSize()
	lw := w.view.Size()
	if !near(float64(pw), 2*float64(lw.Width), 1) || !near(float64(ph), 2*float64(lw.Height), 1) {
		t.Fatalf("view is %v logical, %dx%d pixels; want twice", lw, pw, ph)
	}
	before := w.Location()
	s := fractal.Spacing(before.ZoomFloat(), pw, ph)
	test.Drag(w.FyneWindow().Canvas(), viewPos(w, fyne.NewPos(100, 100)), 50, 0)
	if d := w.Location().Re.Float64() - before.Re.Float64(); !near(d, -100*s, 0.011*s) {
		t.Errorf("drag 50 units at scale 2 moved re by %g, want %g (100 pixels)", d, -100*s)
	}
}

// The wheel zooms about the cursor: the point under it (at the centre of the pixel under the
// pointer, which that pixel shows) stays put.
func TestScrollZoomsAboutTheCursor(t *testing.T) {
	w := newTestWindow(t)
	pw, ph := w.ViewSize()
	before := w.Location()
	pos := fyne.NewPos(70, 210)
	re0, im0 := pointAt(before, pw, ph, 70.5, 210.5)
	w.view.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: pos}, Scrolled: fyne.Delta{DY: 2 * wheelNotch}})
	after := w.Location()
	if z := after.ZoomFloat() / before.ZoomFloat(); !near(z, WheelZoom*WheelZoom, 1e-9) {
		t.Errorf("two notches up zoomed by %g, want %g", z, WheelZoom*WheelZoom)
	}
	re1, im1 := pointAt(after, pw, ph, 70.5, 210.5)
	s := fractal.Spacing(after.ZoomFloat(), pw, ph)
	if !near(re0, re1, 0.02*s) || !near(im0, im1, 0.02*s) {
		t.Errorf("point under the cursor moved from %g%+gi to %g%+gi", re0, im0, re1, im1)
	}
	w.view.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: pos}, Scrolled: fyne.Delta{DY: -2 * wheelNotch}})
	if z := w.Location().ZoomFloat(); !near(z, before.ZoomFloat(), 1e-9) {
		t.Errorf("two notches down did not zoom back: zoom %g", z)
	}
}

func TestClicksZoom(t *testing.T) {
	w := newTestWindow(t)
	pw, ph := w.ViewSize()
	l0 := w.Location()
	re0, im0 := pointAt(l0, pw, ph, 300.5, 50.5) // the centre of the pixel under the pointer
	w.view.DoubleTapped(&fyne.PointEvent{Position: fyne.NewPos(300, 50)})
	l1 := w.Location()
	if !near(l1.ZoomFloat(), 2*l0.ZoomFloat(), 1e-9) {
		t.Errorf("double-click: zoom %g, want %g", l1.ZoomFloat(), 2*l0.ZoomFloat())
	}
	re1, im1 := pointAt(l1, pw, ph, 300.5, 50.5)
	s := fractal.Spacing(l1.ZoomFloat(), pw, ph)
	if !near(re0, re1, 0.02*s) || !near(im0, im1, 0.02*s) {
		t.Errorf("double-click moved the point under the cursor: %g%+gi -> %g%+gi", re0, im0, re1, im1)
	}
	test.TapSecondaryAt(w.view, fyne.NewPos(300, 50))
	if z := w.Location().ZoomFloat(); !near(z, l0.ZoomFloat(), 1e-9) {
		t.Errorf("right-click: zoom %g, want %g", z, l0.ZoomFloat())
	}
}

func TestKeys(t *testing.T) {
	w := newTestWindow(t)
	c := w.FyneWindow().Canvas()
	pw, ph := w.ViewSize()
	l0 := w.Location()
	s := fractal.Spacing(l0.ZoomFloat(), pw, ph)
	step := float64(min(pw, ph)) / 10
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyRight})
	if d := w.Location().Re.Float64() - l0.Re.Float64(); !near(d, step*s, 0.011*s) {
		t.Errorf("right arrow moved re by %g, want %g", d, step*s)
	}
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyUp})
	if d := w.Location().Im.Float64() - l0.Im.Float64(); !near(d, step*s, 0.011*s) {
		t.Errorf("up arrow moved im by %g, want %g", d, step*s)
	}
	c.OnTypedRune()('+')
	if z := w.Location().ZoomFloat(); !near(z, 2, 1e-12) {
		t.Errorf("+: zoom %g, want 2", z)
	}
	c.OnTypedRune()('-')
	c.OnTypedRune()('-')
	if z := w.Location().ZoomFloat(); !near(z, 0.5, 1e-12) {
		t.Errorf("- twice: zoom %g, want 0.5", z)
	}
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyHome})
	h := fractal.Home()
	if l := w.Location(); !l.Re.Equal(h.Re) || !l.Im.Equal(h.Im) || !l.Zoom.Equal(h.Zoom) || l.Iterations != h.Iterations {
		t.Errorf("Home: location %v, want %v", l, h)
	}
}

// submitIterations types s into the iterations entry and presses Enter.
func submitIterations(w *Window, s string) {
	w.win.Canvas().Focus(w.iterEntry)
	w.iterEntry.SetText(s)
	w.iterEntry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
}

// The iterations entry applies its text on Enter or when it loses the focus, never while it is
// typed; Enter hands the keyboard back to the picture; a refused value says why and the view
// keeps its iterations.
func TestIterationsEntry(t *testing.T) {
	w := newTestWindow(t)
	c := w.win.Canvas()
	if !w.autoCheck.Checked {
		t.Fatal("Auto is not checked for the home view")
	}
	auto := w.Location().Iterations
	// Focusing the entry and leaving it unchanged keeps Auto.
	c.Focus(w.iterEntry)
	c.Unfocus()
	if !w.autoCheck.Checked || w.Location().Iterations != auto {
		t.Fatalf("focus in and out: Auto %v, iterations %d", w.autoCheck.Checked, w.Location().Iterations)
	}
	// Typing does not apply: 20000000 on the way to 200000000 is never rendered.
	c.Focus(w.iterEntry)
	w.iterEntry.SetText("20000000")
	if n := w.Location().Iterations; n != auto {
		t.Fatalf("typing 20000000 applied it: iterations %d", n)
	}
	w.iterEntry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if n := w.Location().Iterations; n != 20000000 {
		t.Fatalf("Enter on 20000000: iterations %d", n)
	}
	if c.Focused() != nil {
		t.Errorf("after Enter the focus is on %T, want the picture (nothing focused)", c.Focused())
	}
	if w.autoCheck.Checked {
		t.Error("typing a count left Auto checked")
	}
	// Focus loss applies too.
	c.Focus(w.iterEntry)
	w.iterEntry.SetText("5000")
	c.Unfocus()
	if n := w.Location().Iterations; n != 5000 {
		t.Fatalf("focus lost on 5000: iterations %d", n)
	}
	for _, bad := range []string{"12x", "", "0", "-5", "200000000", "999999999999999999999"} {
		submitIterations(w, bad)
		if err := w.iterEntry.Validate(); err == nil {
			t.Errorf("%q: the entry shows no error", bad)
		}
		if n := w.Location().Iterations; n != 5000 {
			t.Errorf("%q: iterations became %d, want the last good 5000", bad, n)
		}
		if !w.iterNote.Visible() || !strings.Contains(w.iterNote.Text, "not changed") {
			t.Errorf("%q: the note says %q (visible %v)", bad, w.iterNote.Text, w.iterNote.Visible())
		}
		if c.Focused() != w.iterEntry {
			t.Errorf("%q: a refused value took the focus from the entry", bad)
		}
	}
	if !strings.Contains(w.iterNote.Text, "1 to 100000000") {
		t.Errorf("out of range: the note says %q, want the range", w.iterNote.Text)
	}
	// Escape puts the view's value back and gives the keyboard back.
	w.iterEntry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if w.iterEntry.Text != "5000" || w.iterNote.Visible() || c.Focused() != nil {
		t.Errorf("Escape: entry %q, note visible %v, focus %T", w.iterEntry.Text, w.iterNote.Visible(), c.Focused())
	}
	submitIterations(w, " 750 ")
	if n := w.Location().Iterations; n != 750 || w.iterNote.Visible() {
		t.Errorf("typed 750: iterations %d, note visible %v", n, w.iterNote.Visible())
	}
	// Auto follows the zoom.
	w.autoCheck.SetChecked(true)
	w.zoomCentre(1000)
	if n, want := w.Location().Iterations, fractal.AutoIterations(1000); n != want {
		t.Errorf("Auto at zoom 1000: iterations %d, want %d", n, want)
	}
	if w.iterEntry.Text != strconv.Itoa(w.Location().Iterations) {
		t.Errorf("entry shows %q, location has %d", w.iterEntry.Text, w.Location().Iterations)
	}
}

// The view reaches the controls without their callbacks: a location whose colouring lies
// outside the sliders' ranges keeps it (the sliders stand at their ends, the labels say the
// values), and one navigation notifies the listeners once.
func TestControlsFollowTheViewOneWay(t *testing.T) {
	w := newTestWindow(t)
	changes := 0
	w.OnLocationChanged(func(_, _ fractal.Location, _ Origin) { changes++ })
	l := testLoc("-0.75", "0.1", "3", 321)
	l.Color = colour.Coloring{Palette: colour.PaletteNames()[0], Density: 20, Offset: 0.333}
	w.SetLocation(l)
	if changes != 1 {
		t.Errorf("one SetLocation notified %d changes", changes)
	}
	if got := w.Location().Color; got != l.Color {
		t.Errorf("colouring became %+v, want %+v", got, l.Color)
	}
	if w.densitySl.Value != densityMax || w.densityVal.Text != "20" || w.offsetVal.Text != "0.333" {
		t.Errorf("density slider %g label %q, offset label %q", w.densitySl.Value, w.densityVal.Text, w.offsetVal.Text)
	}
	if w.paletteBtn.Text != l.Color.Palette || w.iterEntry.Text != "321" || w.autoCheck.Checked {
		t.Errorf("palette %q, entry %q, Auto %v", w.paletteBtn.Text, w.iterEntry.Text, w.autoCheck.Checked)
	}
}

func TestPaletteAndSliders(t *testing.T) {
	w := newTestWindow(t)
	names := colour.PaletteNames()
	menu := w.paletteMenu()
	if len(menu.Items) != len(names) {
		t.Fatalf("palette chooser offers %d palettes, want %v", len(menu.Items), names)
	}
	for i, it := range menu.Items {
		if it.Label != names[i] || it.Icon == nil || it.Checked != (names[i] == w.Location().Color.Palette) {
			t.Errorf("palette item %q: icon %v, checked %v", it.Label, it.Icon != nil, it.Checked)
		}
	}
	menu.Items[len(names)-1].Action()
	if w.paletteBtn.Text != names[len(names)-1] || w.paletteBtn.Icon != paletteIcon(colour.Coloring{Palette: names[len(names)-1]}) {
		t.Errorf("the chooser shows %q", w.paletteBtn.Text)
	}
	if p := w.Location().Color.Palette; p != names[len(names)-1] {
		t.Errorf("chose %s: palette %s", names[len(names)-1], p)
	}
	w.densitySl.SetValue(2.5)
	w.offsetSl.SetValue(0.25)
	if c := w.Location().Color; c.Density != 2.5 || c.Offset != 0.25 {
		t.Errorf("sliders: colouring %+v, want density 2.5 offset 0.25", c)
	}
	if w.densityVal.Text != "2.5" || w.offsetVal.Text != "0.25" {
		t.Errorf("value labels %q, %q", w.densityVal.Text, w.offsetVal.Text)
	}
	if err := w.Location().Validate(); err != nil {
		t.Error(err)
	}
}

func TestStatusBar(t *testing.T) {
	w := newTestWindow(t)
	l := fractal.Home()
	l.Re = fractal.MustDecimal("-0.743643887037158704752191506114774")
	l.Im = fractal.MustDecimal("0.131825904205311970493132056385139")
	l.Zoom = fractal.MustDecimal("1e5")
	l.Iterations = 1234
	w.SetLocation(l)
	if got := w.statusCentr.Text; got != "-0.743643887037158704752191506114774 + 0.131825904205311970493132056385139i" {
		t.Errorf("centre shows %q: want every digit", got)
	}
	if !w.statusCentr.Selectable {
		t.Error("the centre cannot be selected for copying")
	}
	if got := w.statusZoom.Text; got != "zoom 100000" { // fractal.FormatZoom: plain up to 1e6
		t.Errorf("zoom shows %q", got)
	}
	if got := w.statusIter.Text; got != "iterations 1234" {
		t.Errorf("iterations show %q", got)
	}
	if got := w.statusMode.Text; got != "float64 (CPU)" {
		t.Errorf("mode at zoom 1e5 shows %q, want float64 (CPU)", got)
	}
	if w.autoCheck.Checked || w.iterEntry.Text != "1234" {
		t.Errorf("after SetLocation with 1234 iterations: Auto %v, entry %q", w.autoCheck.Checked, w.iterEntry.Text)
	}
	w.SetLocation(fractal.Home())
	if got := w.statusMode.Text; got != "float32 (CPU)" {
		t.Errorf("mode at home shows %q, want float32 (CPU)", got)
	}
	if got := w.statusRend.Text; !strings.Contains(got, "CPU") {
		t.Errorf("renderer shows %q", got)
	}
	l.Im = fractal.MustDecimal("-0.5")
	w.SetLocation(l)
	if got := w.statusCentr.Text; got != "-0.743643887037158704752191506114774 - 0.5i" {
		t.Errorf("centre shows %q", got)
	}
}

// The point under the cursor is reported with the escape count the CLI's probe gives.
func TestCursorProbe(t *testing.T) {
	w := newTestWindow(t)
	pw, ph := w.ViewSize()
	l := w.Location()
	f := fractal.NewFrame(l, pw, ph)
	for _, p := range []struct{ x, y int }{{pw / 2, ph / 2}, {5, 7}, {pw/2 + 60, ph/2 - 2}} {
		n, _ := f.Escape(p.x, p.y)
		text := probeText(f, p.x, p.y)
		want := "inside"
		if n >= 0 {
			want = "escape " + strconv.Itoa(n)
		}
		if !strings.Contains(text, want) || !strings.Contains(text, strconv.Itoa(p.x)+","+strconv.Itoa(p.y)) {
			t.Errorf("pixel %d,%d: %q, want %q", p.x, p.y, text, want)
		}
	}
	// Through the widget: hovering updates the status bar (on the prober's goroutine).
	w.view.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(5, 7)}})
	want := probeText(f, 5, 7)
	waitFor(t, "cursor report", func() bool { return w.statusPoint.Text == want })
	// A view change under the still pointer reports the point that is there now.
	moved := l.Offset(40, 0, pw, ph)
	w.SetLocation(moved)
	want = probeText(fractal.NewFrame(w.Location(), pw, ph), 5, 7)
	waitFor(t, "cursor report after the view moved", func() bool { return w.statusPoint.Text == want })
	w.view.MouseOut()
	if w.statusPoint.Text != "" {
		t.Errorf("after the pointer left: %q", w.statusPoint.Text)
	}
}

func TestSetLocationNotifiesAndValidates(t *testing.T) {
	w := newTestWindow(t)
	var got [][2]fractal.Location
	w.OnLocationChanged(func(old, new fractal.Location, _ Origin) { got = append(got, [2]fractal.Location{old, new}) })
	l := fractal.Home()
	l.Re = fractal.MustDecimal("0.25")
	l.Zoom = fractal.MustDecimal("40")
	l.Iterations = 900
	w.SetLocation(l)
	if len(got) != 1 || !got[0][1].Re.Equal(l.Re) || !got[0][0].Re.Equal(fractal.Home().Re) {
		t.Fatalf("listener calls %v", got)
	}
	if cur := w.Location(); cur.String() != l.String() {
		t.Errorf("location %v, want %v", cur, l)
	}
	bad := l
	bad.Zoom = fractal.MustDecimal("-3")
	w.SetLocation(bad)
	if len(got) != 1 || w.Location().String() != l.String() {
		t.Errorf("an invalid location was applied: %v", w.Location())
	}
}

// A finished render reaches the view at the view's pixel size. A frame being refined is
// shown at that size too (its rows coarse until they are done), so the test waits for the
// status bar's "frame" time, which comes with the finished frame: under load the first
// full-size picture seen could be one being refined ("refining 62%").
func TestRenderReachesTheView(t *testing.T) {
	w := newTestWindow(t)
	pw, ph := w.ViewSize()
	waitFor(t, "a finished full-resolution frame", func() bool {
		img := w.shownImage()
		return img != nil && img.Bounds().Dx() == pw && img.Bounds().Dy() == ph && strings.HasPrefix(w.statusTime.Text, "frame ")
	})
	img := w.shownImage()
	dark, bright := 0, 0
	for y := 0; y < ph; y += 4 {
		for x := 0; x < pw; x += 4 {
			c := img.RGBAAt(x, y)
			if c.R < 10 && c.G < 10 && c.B < 10 {
				dark++
			} else {
				bright++
			}
		}
	}
	if dark == 0 || bright == 0 {
		t.Errorf("home view has %d dark and %d coloured samples: want both", dark, bright)
	}
}

// With no OpenGL the window stays on the CPU and says so in the status bar.
func TestNoGPUFallsBack(t *testing.T) {
	w := openTestWindow(t, Options{NewGPU: func() (Renderer, error) { return nil, errors.New("no GLX visual") }})
	w.startGPU()
	testUI.drain()
	if got := w.statusRend.Text; !strings.Contains(got, "CPU") || !strings.Contains(got, "no OpenGL") || !strings.Contains(got, "no GLX visual") {
		t.Errorf("status shows %q", got)
	}
	if w.rend.get() != Renderer(w.cpu) {
		t.Error("the renderer is not the CPU one")
	}
}

// The hooks the window's parts use (menus, toolbar, shortcuts, side panel, export frame,
// thumbnails) work for one more part added after New, and New adds its own parts in order.
func TestHooks(t *testing.T) {
	w := newTestWindow(t)
	w.AddMenuItem("Go", fyne.NewMenuItem("Somewhere", func() {}))
	w.AddMenuItem("Extra", fyne.NewMenuItem("Thing", func() {}))
	w.AddMenuItem("File", fyne.NewMenuItem("Later", func() {})) // goes before Quit
	n := len(w.toolbar.Items)
	w.AddToolbarItem(widget.NewToolbarSeparator())
	if len(w.toolbar.Items) != n+1 {
		t.Errorf("toolbar has %d items after adding one to %d", len(w.toolbar.Items), n)
	}
	hit := false
	w.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyF9, Modifier: fyne.KeyModifierShortcutDefault}, func() { hit = true })
	w.FyneWindow().Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyF9, Modifier: fyne.KeyModifierShortcutDefault})
	if !hit {
		t.Error("the added shortcut did not run")
	}
	menu := w.FyneWindow().MainMenu()
	labels := map[string][]string{}
	for _, m := range menu.Items {
		for _, it := range m.Items {
			labels[m.Label] = append(labels[m.Label], it.Label)
		}
	}
	if !contains(labels["Go"], "Somewhere") || !contains(labels["Extra"], "Thing") || !contains(labels["View"], "Zoom In") {
		t.Errorf("menus %v", labels)
	}
	var order []string
	for _, m := range menu.Items {
		order = append(order, m.Label)
	}
	if got := strings.Join(order, ","); got != "File,View,Go,Bookmarks,Extra,Help" {
		t.Errorf("menus in the order %s, want File,View,Go,Bookmarks,Extra,Help (Help last)", got)
	}
	if got := strings.Join(labels["File"], ","); got != "Copy Location,Export...,Export Video...,Open Image...,,Import Gradient...,Export Gradient...,Edit Gradient...,Later,,Quit" {
		t.Errorf("File menu %s", got)
	}
	panel := widget.NewLabel("bookmarks")
	w.SetSidePanel(panel)
	if !w.side.Visible() || len(w.side.Objects) == 0 || w.side.Objects[len(w.side.Objects)-1] != panel {
		t.Error("side panel not shown")
	}
	w.SetSidePanel(nil)
	if w.side.Visible() {
		t.Error("side panel not hidden")
	}
	w.SetExportFrame(1920, 1080)
	if !w.frame.obj.Visible() {
		t.Fatal("export frame hidden")
	}
	w.frame.obj.Refresh()
	sz := w.frame.rect.Size()
	if vs := w.view.Size(); !near(float64(sz.Width/sz.Height), 1920.0/1080, 0.02) || sz.Width > vs.Width+0.5 || sz.Height > vs.Height+0.5 {
		t.Errorf("export frame %v over view %v: want 16:9 inside", sz, vs)
	}
	w.SetExportFrame(0, 0)
	if w.frame.obj.Visible() {
		t.Error("export frame still shown")
	}
	th := w.RenderThumbnail(fractal.Home(), 64, 40)
	if th.Bounds().Dx() != 64 || th.Bounds().Dy() != 40 {
		t.Errorf("thumbnail %v", th.Bounds())
	}
	if c := th.RGBAAt(32, 20); c.R != 0 || c.G != 0 || c.B != 0 {
		t.Errorf("thumbnail centre (inside the set) is %v, want black", c)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Resizing shows the old frame unstretched, centred, then re-renders at the new size.
func TestResize(t *testing.T) {
	w := newTestWindow(t)
	pw, ph := w.ViewSize()
	waitFor(t, "the first frame", func() bool {
		img := w.shownImage()
		return img != nil && img.Rect.Dx() == pw && img.Rect.Dy() == ph
	})
	old := w.shownImage()
	w.FyneWindow().Resize(fyne.NewSize(620, 400))
	nw, nh := w.ViewSize()
	if nw == pw && nh == ph {
		t.Fatalf("view size unchanged at %dx%d", nw, nh)
	}
	shown, ok := w.view.img.Image.(*image.RGBA)
	if !ok || shown.Rect.Dx() != nw || shown.Rect.Dy() != nh {
		t.Fatalf("right after the resize the view shows %v, want %dx%d", shown.Rect, nw, nh)
	}
	// the old frame, unscaled, centred: pixel p of the old is pixel p+off of the new
	off := image.Pt((nw-pw)/2, (nh-ph)/2)
	for _, p := range []image.Point{{pw / 2, ph / 2}, {pw/2 - 40, ph/2 + 17}, {pw/2 + 90, ph/2 - 30}} {
		q := p.Add(off)
		if !q.In(shown.Rect) {
			continue
		}
		if a, b := old.RGBAAt(p.X, p.Y), shown.RGBAAt(q.X, q.Y); a != b {
			t.Errorf("old pixel %v is %v, new pixel %v is %v: not the old frame recentred", p, a, q, b)
		}
	}
	waitFor(t, "a frame at the new size", func() bool {
		img := w.shownImage()
		return img != nil && img.Rect.Dx() == nw && img.Rect.Dy() == nh
	})
}
