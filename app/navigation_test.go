package app

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"mandelscope/colour"
	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
)

func TestNavigationHistory(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	n := w.nav
	if n == nil {
		t.Fatal("navigation was not installed")
	}
	start := w.Location()
	if n.back.Disabled() == false || n.forward.Disabled() == false {
		t.Fatal("back/forward enabled at start")
	}
	a := testLoc("-0.75", "0.1", "20", 400)
	b := testLoc(testRe60, testIm60, "1e9", 3000)
	w.SetLocation(a)
	n.settle()
	// Several quick changes (a drag) make one entry.
	w.SetLocation(testLoc("-0.7", "0.1", "20", 400))
	w.SetLocation(testLoc("-0.6", "0.1", "20", 400))
	w.SetLocation(b)
	n.settle()
	if n.hist.Len() != 3 {
		t.Fatalf("history has %d entries, want 3", n.hist.Len())
	}
	alt := func(k fyne.KeyName) {
		w.FyneWindow().Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierAlt})
	}
	alt(fyne.KeyLeft)
	if w.Location() != a {
		t.Fatalf("Alt+Left went to %v", w.Location())
	}
	alt(fyne.KeyLeft)
	if w.Location() != start || !n.back.Disabled() || n.forward.Disabled() {
		t.Fatalf("second Alt+Left went to %v", w.Location())
	}
	alt(fyne.KeyLeft) // nothing further back
	if w.Location() != start {
		t.Fatal("moved past the start")
	}
	alt(fyne.KeyRight)
	n.forward.OnActivated()
	if got := w.Location(); got != b || got.Re.String() != testRe60 {
		t.Fatalf("forward twice went to %v", got)
	}
	// A back step, then a new view drops the forward entries.
	n.back.OnActivated()
	w.SetLocation(fractal.Home())
	n.settle()
	if n.hist.CanForward() || !n.forward.Disabled() {
		t.Fatal("forward entries kept after a new visit")
	}
	// An unsettled change is recorded before going back.
	c := testLoc("0.3", "0", "4", 250)
	w.SetLocation(c)
	n.goBack()
	n.goForward()
	if w.Location() != c {
		t.Fatalf("pending change lost: %v", w.Location())
	}
}

func TestNavigationGoTo(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	n := w.nav
	before := w.Location()
	for _, bad := range []string{"", "hello", "1, 2", "re=5 im=0 zoom=1", "-0.5, 0, -3", "re=0.1.2"} {
		if err := n.goTo(bad); err == nil {
			t.Errorf("goTo(%q) accepted", bad)
		}
		if w.Location() != before {
			t.Fatalf("goTo(%q) moved the view", bad)
		}
	}
	if err := n.goTo("-0.75, 0.1, 50"); err != nil {
		t.Fatal(err)
	}
	if l := w.Location(); l.Re.String() != "-0.75" || l.Im.String() != "0.1" || l.Zoom.String() != "50" || l.Iterations != fractal.AutoIterations(50) {
		t.Fatalf("plain form went to %v (automatic iterations %d)", l, fractal.AutoIterations(50))
	}
	if err := n.goTo("-0.75, 0.1, 60, 777"); err != nil || w.Location().Iterations != 777 {
		t.Fatalf("given iterations: %v %v", w.Location(), err)
	}
	deep := testLoc(testRe60, testIm60, "2.5e40", 7000)
	deep.Color = colour.Coloring{Palette: "fire", Density: 0.5, Offset: 0.25}
	if err := n.goTo(deep.String()); err != nil {
		t.Fatal(err)
	}
	if w.Location() != deep {
		t.Fatalf("compact form went to %v", w.Location())
	}
	// Copy Location writes the text that goes back there exactly.
	w.copyLocation()
	if got := w.app.Clipboard().Content(); got != deep.String() {
		t.Fatalf("clipboard %q", got)
	}
	// The dialog: bad text shows an error and is not submitted; good text goes there.
	d, entry := n.goToDialog()
	if entry.Text != deep.String() {
		t.Fatalf("dialog starts with %q", entry.Text)
	}
	entry.SetText("re=nonsense")
	if err := entry.Validate(); err == nil || !strings.Contains(err.Error(), "re") {
		t.Fatalf("bad text: %v", err)
	}
	d.Submit()
	if w.Location() != deep {
		t.Fatal("bad text moved the view")
	}
	entry.SetText("-0.1, 0.9, 3")
	if err := entry.Validate(); err != nil {
		t.Fatal(err)
	}
	d.Submit()
	if l := w.Location(); l.Re.String() != "-0.1" || l.Im.String() != "0.9" || l.Zoom.String() != "3" {
		t.Fatalf("dialog went to %v", l)
	}
	// It opens with the current view, not the text last typed (Enter must stay here).
	w.zoomCentre(2)
	here := w.Location()
	if _, entry = n.goToDialog(); entry.Text != here.String() {
		t.Fatalf("dialog opens with %q, want the current view %q", entry.Text, here.String())
	}
	// Escape in the entry closes the dialog and goes nowhere.
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(w.dialogs) != 0 || w.Location() != here {
		t.Fatalf("Escape: %d dialogs open, view %v", len(w.dialogs), w.Location())
	}
	_, entry = n.goToDialog()
	// The text shown starts selected: typing replaces it, and Enter goes there.
	test.Type(entry, "-0.2, 0.1, 5")
	if entry.Text != "-0.2, 0.1, 5" {
		t.Fatalf("typing into the opened dialog gave %q, want the text replaced", entry.Text)
	}
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if l := w.Location(); l.Re.String() != "-0.2" || l.Zoom.String() != "5" {
		t.Fatalf("Enter went to %v", l)
	}
	// Enter on bad text does nothing.
	_, entry = n.goToDialog()
	test.Type(entry, "nonsense")
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if l := w.Location(); l.Re.String() != "-0.2" {
		t.Fatalf("Enter on bad text went to %v", l)
	}
}

func TestNavigationOpenImage(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	n := w.nav
	dir := t.TempDir()
	loc := testLoc(testRe60, testIm60, "7e20", 5000)
	loc.Color.Palette = "ocean"
	path := filepath.Join(dir, "view.png")
	if err := os.WriteFile(path, imagetest.MetadataPNG(24, 10, export.MetadataText(loc, 24, 10, 1, "test")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := n.openImage(path); err != nil {
		t.Fatal(err)
	}
	if w.Location() != loc {
		t.Fatalf("opened at %v, want %v", w.Location(), loc)
	}
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte("not a png"), 0o644)
	for _, p := range []string{plain, filepath.Join(dir, "missing.png")} {
		err := n.openImage(p)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("openImage(%s) = %v", p, err)
		}
	}
	if w.Location() != loc {
		t.Fatal("a failed open moved the view")
	}
}

// TestOpenImageKeepsItsCount: an image whose count is its zoom's automatic one (613 at zoom
// 23000, as `export` wrote before it counted as the window does) opens with that count and
// Auto off: before, Auto came on and the window drew Auto's count for the view (2452), not
// the file's picture.
func TestOpenImageKeepsItsCount(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	n := w.nav
	loc := testLoc("0.3513073802", "0.0953035978", "23000", 1)
	loc.Iterations = fractal.AutoIterations(loc.ZoomFloat())
	path := filepath.Join(t.TempDir(), "view.png")
	if err := os.WriteFile(path, imagetest.MetadataPNG(24, 10, export.MetadataText(loc, 24, 10, 1, "test")), 0o644); err != nil {
		t.Fatal(err)
	}
	w.autoCheck.SetChecked(true)
	if err := n.openImage(path); err != nil {
		t.Fatal(err)
	}
	if w.Location().Iterations != loc.Iterations || w.autoIter || w.autoCheck.Checked || w.iterEntry.Text != strconv.Itoa(loc.Iterations) {
		t.Errorf("opened with %d iterations, Auto %v (checkbox %v), the entry %q; want the file's %d, Auto off",
			w.Location().Iterations, w.autoIter, w.autoCheck.Checked, w.iterEntry.Text, loc.Iterations)
	}
}

// TestAutoMinibrotIterations: M's automatic count for a minibrot of period p is the least
// automatic count (the zoom's times a power of two) that reaches fractal.MinibrotIterations,
// and the window reads it back as Auto's (autoOf).
func TestAutoMinibrotIterations(t *testing.T) {
	for _, c := range []struct {
		z float64
		p int
	}{{8.89e25, 5588}, {3.65e21, 3480}, {23000, 58}, {1e6, 1}} {
		n := autoMinibrotIterations(c.z, c.p)
		base := fractal.AutoIterations(c.z)
		if need := fractal.MinibrotIterations(c.p); n < need || (n >= 2*need && n > base) {
			t.Errorf("zoom %g, period %d: %d, want the least of %d times a power of two from %d", c.z, c.p, n, base, need)
		}
		l := fractal.Home()
		l.Zoom, l.Iterations = fractal.DecimalFromFloat(c.z), n
		if auto, b := autoOf(l); !auto || base*b != n {
			t.Errorf("zoom %g, period %d: autoOf(%d) = %v, x%d", c.z, c.p, n, auto, b)
		}
	}
}
