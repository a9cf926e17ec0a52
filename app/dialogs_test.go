package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"mandelscope/bookmarks"
	"mandelscope/colour"
	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/render/cpu"
)

// Long text is wrapped at spaces, and inside a word (a long path) only where it must; no
// word is lost or changed.
func TestWrapText(t *testing.T) {
	long := "/home/someone/" + strings.Repeat("a-very-long-folder-name/", 6) + "image.png"
	s := "cannot write " + long + ": no space left on device. Free some space, then export the same file again to resume it.\nSecond paragraph."
	got := wrapText(s, 40)
	for _, line := range strings.Split(got, "\n") {
		if n := utf8.RuneCountInString(line); n > 40 {
			t.Errorf("line of %d characters: %q", n, line)
		}
	}
	if strings.ReplaceAll(strings.ReplaceAll(got, "\n", ""), " ", "") != strings.ReplaceAll(strings.ReplaceAll(s, "\n", ""), " ", "") {
		t.Errorf("wrapping changed the text:\n%s", got)
	}
	if !strings.Contains(got, "\nSecond paragraph.") || !strings.Contains(got, "device. Free") {
		t.Errorf("words or paragraphs broken:\n%s", got)
	}
	if got := wrapText("short", 40); got != "short" {
		t.Errorf("short text became %q", got)
	}
}

// Escape closes whichever dialog is on top, from the picture (the window's keys) or from an
// entry inside the dialog, and the picture's keys do nothing while a dialog is open; an error
// dialog keeps a readable width for a long message.
func TestEscapeClosesDialogs(t *testing.T) {
	w, p, _ := newBookmarksTestWindow(t)
	c := w.win.Canvas()
	escape := func() { c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape}) }

	long := errors.New("cannot open " + strings.Repeat("/a/long/path", 30) + ": permission denied")
	w.ShowError(long)
	if len(w.dialogs) != 1 {
		t.Fatalf("%d dialogs open after ShowError", len(w.dialogs))
	}
	if ms := w.dialogs[0].(dialog.Dialog).MinSize(); ms.Width > 700 || ms.Width < 300 {
		t.Errorf("error dialog is %v wide for a long message", ms.Width)
	}
	before := w.Location()
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyHome})
	c.OnTypedRune()('+')
	if w.Location() != before {
		t.Error("the picture's keys moved the view under a dialog")
	}
	escape()
	if len(w.dialogs) != 0 {
		t.Fatal("Escape left the error dialog open")
	}

	w.showInfo("Import", "Imported 3 bookmarks.")
	w.showConfirm("Replace file?", "x.png already exists. Replace it?", "Replace", "Cancel", func(bool) {})
	escape()
	if len(w.dialogs) != 1 {
		t.Fatalf("Escape closed %d dialogs, want the top one", 2-len(w.dialogs))
	}
	escape()

	_, entry := p.addDialog(nil)
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(w.dialogs) != 0 {
		t.Error("Escape in the bookmark name left the dialog open")
	}
	w.exp.show()
	escape()
	if len(w.dialogs) != 0 {
		t.Error("Escape left the export dialog open")
	}
	w.exp.show() // shown again: still closes, and is forgotten again
	escape()
	if len(w.dialogs) != 0 || len(w.dialogHooked) > 8 {
		t.Errorf("export dialog again: %d open, %d watched", len(w.dialogs), len(w.dialogHooked))
	}
	// With no dialog, the keys move the picture again.
	c.OnTypedRune()('+')
	if w.Location() == before {
		t.Error("the picture's keys stopped working after the dialogs closed")
	}
}

// An interrupted export offered again after the view moved resumes with the view and settings
// it was started with (issue 12 item 6: it used to fail with "different parameters"), and
// says so; the finished file is the one an uninterrupted export of that view gives.
func TestExportResumesItsOwnView(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(320, 200)})
	ui := exportUIOf(t, w)
	dir := t.TempDir()
	path := filepath.Join(dir, "resume.png")
	orig := w.Location()
	// 600x400 at 4x4 is two strips of the dialog's default strip size; Tile as the dialog sets it.
	opt := export.Options{Location: orig, Width: 600, Height: 400, Supersample: 4, Version: ui.version(), Tile: 2048}
	// An interrupted export of the current view: cancelled after its first strip.
	ctx, cancel := context.WithCancel(context.Background())
	opt.Progress = func(export.Progress) { cancel() }
	if _, err := export.Export(ctx, &cpu.Renderer{}, path, opt); !errors.Is(err, export.ErrInterrupted) {
		t.Fatalf("setting up the interrupted export: %v", err)
	}
	opt.Progress = nil
	w.zoomCentre(4) // the view moves on

	ui.show()
	ui.sizeSel.SetSelected(customSize)
	ui.custom.SetText("1000x500")
	ui.ssSel.SetSelectedIndex(0)
	ui.folder.SetText(dir)
	ui.name.SetText("resume.png")
	test.Tap(ui.exportBt)
	if len(w.dialogs) == 0 {
		t.Fatal("no question about the interrupted export")
	}
	cd, ok := w.dialogs[len(w.dialogs)-1].(*dialog.ConfirmDialog)
	if !ok {
		t.Fatalf("top dialog is %T", w.dialogs[len(w.dialogs)-1])
	}
	text := dialogText(w)
	if !strings.Contains(text, "600x400") || !strings.Contains(text, "not the current view") {
		t.Errorf("the question does not say what would be resumed: %q", text)
	}
	cd.Confirm() // Resume
	run := waitExport(t, ui)
	if run.err != nil {
		t.Fatalf("resume failed: %v", run.err)
	}
	want := filepath.Join(t.TempDir(), "want.png")
	if _, err := export.Export(context.Background(), &cpu.Renderer{}, want, opt); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	exp, _ := os.ReadFile(want)
	if len(got) == 0 || string(got) != string(exp) {
		t.Errorf("resumed file (%d bytes) differs from an uninterrupted export of its view (%d bytes)", len(got), len(exp))
	}
}

// dialogText is the text of the labels in the window's top overlay (the dialog on top).
func dialogText(w *Window) string {
	var b strings.Builder
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Label:
			b.WriteString(v.Text + " ")
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
	return b.String()
}

// Every toolbar button has a tooltip, which shows when the pointer rests on it and goes when
// it leaves; the menu items with keys show them.
func TestTooltipsAndMenuShortcuts(t *testing.T) {
	w := newTestWindow(t)
	var first *tippedAction
	for _, it := range w.toolbar.Items {
		switch a := it.(type) {
		case *widget.ToolbarSeparator:
		case *tippedAction:
			if a.tip == "" {
				t.Error("a toolbar button with an empty tooltip")
			}
			if first == nil {
				first = a
			}
		default:
			t.Errorf("toolbar item %T has no tooltip", it)
		}
	}
	if first == nil {
		t.Fatal("no toolbar buttons")
	}
	area := newTipArea(w, nil, func() string { return first.tip })
	area.MouseIn(&desktop.MouseEvent{PointEvent: fyne.PointEvent{AbsolutePosition: fyne.NewPos(10, 10)}})
	waitFor(t, "the tooltip", func() bool { return w.tips.bg.Visible() && w.tips.text.Visible() })
	if w.tips.text.Text != first.tip {
		t.Errorf("tooltip says %q, want %q", w.tips.text.Text, first.tip)
	}
	area.MouseOut()
	if w.tips.bg.Visible() || w.tips.text.Visible() {
		t.Error("the tooltip stayed after the pointer left")
	}

	want := map[string]bool{"Copy Location": true, "Export...": true, "Open Image...": true, "Zoom In": true,
		"Zoom Out": true, "Home": true, "Back": true, "Forward": true, "Go to Location...": true,
		"Show Bookmarks": true, "Add Bookmark...": true, "Quit": true}
	for _, m := range w.menus {
		for _, it := range m.Items {
			if want[it.Label] {
				if it.Shortcut == nil {
					t.Errorf("menu item %q shows no shortcut", it.Label)
				}
				delete(want, it.Label)
			}
		}
	}
	for label := range want {
		t.Errorf("no menu item %q", label)
	}
}

// The window comes back as it was left: view (colouring and iterations included), window size
// and the bookmarks panel; a damaged saved view is refused (home instead, and said so:
// TestSavedViewAtTheEdgeAndRefused); without Restore nothing is read or written.
func TestStatePersists(t *testing.T) {
	t.Setenv(bookmarks.EnvPath, filepath.Join(t.TempDir(), "bookmarks.json"))
	a := test.NewTempApp(t)
	open := func(opts Options) *Window {
		opts.Renderer, opts.do, opts.bookmarksWatch = "cpu", testUI.do, -1
		w := New(a, opts)
		w.FyneWindow().Show()
		return w
	}
	closeW := func(w *Window) {
		w.FyneWindow().Close()
		w.stop()
		testUI.reset()
	}
	w := open(Options{Restore: true, Size: fyne.NewSize(900, 640)})
	l := testLoc("-0.743643887037151", "0.131825904205330", "5e5", 3000)
	l.Color = colour.Coloring{Palette: "ocean", Density: 2.5, Offset: 0.25}
	w.SetLocation(l)
	w.marks.toggle()
	closeW(w)

	w = open(Options{Restore: true})
	if got := w.Location(); got != l {
		t.Errorf("restored view %v, want %v", got, l)
	}
	if s := w.win.Canvas().Size(); s.Width != 900 || s.Height != 640 {
		t.Errorf("restored size %v, want 900x640", s)
	}
	if !w.marks.visible {
		t.Error("the bookmarks panel was open and did not come back")
	}
	// Home stays one key away.
	w.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyHome})
	if got := w.Location(); !got.Zoom.Equal(fractal.Home().Zoom) || got.Color != l.Color {
		t.Errorf("Home from the restored view: %v", got)
	}
	closeW(w)

	// A start location given (the command line's flags) wins over the saved one.
	given := testLoc("0.25", "0", "3", 500)
	w = open(Options{Restore: true, Start: given})
	if got := w.Location(); got != given {
		t.Errorf("Start %v ignored: %v", given, got)
	}
	closeW(w)

	a.Preferences().SetString(prefView, "re=garbage zoom=-1")
	a.Preferences().SetFloat(prefWidth, 1e9)
	w = open(Options{Restore: true})
	if got := w.Location(); !got.Zoom.Equal(fractal.Home().Zoom) {
		t.Errorf("a damaged saved view gave %v, want home", got)
	}
	if s := w.win.Canvas().Size(); s.Width > MaxWindowSide || float64(s.Width)*float64(s.Height) > MaxWindowPixels {
		t.Errorf("a damaged saved size gave %v", s)
	}
	closeW(w)
	a.Preferences().SetString(prefView, "")
	w = open(Options{})
	w.SetLocation(l)
	closeW(w)
	if a.Preferences().String(prefView) != "" {
		t.Error("a window without Restore saved its view")
	}
}

// Open Image takes a typed or pasted path (quotes, file://, ~/), opens the view, and lists it
// among the recent images, which drop a file that is gone.
func TestOpenImageTypedAndRecent(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	n := w.nav
	dir := t.TempDir()
	loc := testLoc("-0.75", "0.1", "40", 700)
	path := filepath.Join(dir, "my view.png")
	if err := os.WriteFile(path, imagetest.MetadataPNG(24, 10, export.MetadataText(loc, 24, 10, 1, "test")), 0o644); err != nil {
		t.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	for in, want := range map[string]string{
		`  "/a/b c.png" `:        "/a/b c.png",
		"'/x.png'":               "/x.png",
		"file:///a/b%20c.png":    "/a/b c.png",
		"~/p.png":                filepath.Join(home, "p.png"),
		"/plain/path/image.png ": "/plain/path/image.png",
	} {
		if got, err := cleanPath(in); err != nil || got != want {
			t.Errorf("cleanPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := cleanPath(`  ""  `); err == nil {
		t.Error("an empty path was accepted")
	}

	_, entry := n.openImageDialog()
	entry.SetText(`"` + path + `"`)
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if w.Location() != loc {
		t.Fatalf("typed path opened %v, want %v", w.Location(), loc)
	}
	if r := w.recentImages(); len(r) != 1 || r[0] != path {
		t.Fatalf("recent images %v", r)
	}
	_, entry = n.openImageDialog()
	if len(w.dialogs) != 1 {
		t.Fatalf("%d dialogs open", len(w.dialogs))
	}
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(w.dialogs) != 0 {
		t.Error("Escape left Open Image open")
	}
	os.Remove(path)
	if r := w.recentImages(); len(r) != 0 {
		t.Errorf("a deleted image is still listed: %v", r)
	}
}

// Issue 27: Open Image of an export whose density was chosen automatically makes the
// density automatic again (the control says auto), from the number the file drew; an
// export of an explicit density opens at that density.
func TestOpenImageAutoDensity(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	n := w.nav
	dir := t.TempDir()
	auto := testLoc("-0.7453", "0.1127", "180", 400)
	if !auto.Color.AutoDensity {
		t.Fatal("the test view's density is not automatic")
	}
	explicit := auto
	explicit.Color.AutoDensity, explicit.Color.Density = false, 0.5
	open := func(name string, loc fractal.Location) (fractal.Location, *export.Metadata) {
		t.Helper()
		path := filepath.Join(dir, name)
		if _, err := export.Export(context.Background(), &cpu.Renderer{}, path,
			export.Options{Location: loc, Width: 90, Height: 60, Workers: 1, Version: "test"}); err != nil {
			t.Fatal(err)
		}
		md, err := export.ReadMetadata(path)
		if err != nil {
			t.Fatal(err)
		}
		w.SetLocation(fractal.Home())
		n.settle()
		_, entry := n.openImageDialog()
		entry.SetText(path)
		entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		return w.Location(), &md
	}
	got, md := open("auto.png", auto)
	if md.Text[export.KeyDensity] != "1" || md.Text[export.KeyDensityChosen] != "auto" {
		t.Errorf("the automatic export's density chunks: %q, %q", md.Text[export.KeyDensity], md.Text[export.KeyDensityChosen])
	}
	if !got.Color.AutoDensity || w.densityVal.Text != "auto" {
		t.Errorf("opened the automatic export with density %+v, the control saying %q; want auto", got.Color, w.densityVal.Text)
	}
	got.Color.Density = auto.Color.Density // the view may follow the density it shows
	if got != auto {
		t.Errorf("opened %v, want %v", got, auto)
	}
	got, md = open("explicit.png", explicit)
	if _, ok := md.Text[export.KeyDensityChosen]; ok {
		t.Error("an explicit density's export says it was chosen automatically")
	}
	if got != explicit || w.densityVal.Text != "0.5" {
		t.Errorf("opened the explicit export at %v, the control saying %q; want %v", got, w.densityVal.Text, explicit)
	}
}
