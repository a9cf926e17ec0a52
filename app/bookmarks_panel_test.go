package app

import (
	"bytes"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"

	"mandelscope/bookmarks"
	"mandelscope/fractal"
)

const (
	testRe60 = "-1.74006238257933990522084416706582563829664172043617186687986"
	testIm60 = "0.00000000000000000000000000000000000000000000000000000000000000028"
)

// newBookmarksTestWindow opens a window on the CPU renderer in a test app, with its
// bookmarks file in a temporary folder.
func newBookmarksTestWindow(t *testing.T) (*Window, *bookmarksPanel, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "conf", "bookmarks.json")
	t.Setenv(bookmarks.EnvPath, path)
	// History entries are settled by hand (navigator.settle) in these tests, and the file is
	// not watched (TestBookmarksPanelWatch runs the watch by itself).
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(720, 420), historySettle: time.Hour, bookmarksWatch: -1})
	if w.marks == nil {
		t.Fatal("the bookmarks panel was not installed")
	}
	return w, w.marks, path
}

func testLoc(re, im, zoom string, iter int) fractal.Location {
	l := fractal.Home()
	l.Re, l.Im, l.Zoom = fractal.MustDecimal(re), fractal.MustDecimal(im), fractal.MustDecimal(zoom)
	l.Iterations = iter
	return l
}

func TestBookmarksPanelAddWritesFile(t *testing.T) {
	w, p, path := newBookmarksTestWindow(t)
	deep := testLoc(testRe60, testIm60, "3e11", 900)
	w.SetLocation(deep)
	done := make(chan error, 1)
	_, entry := p.addDialog(func(err error) { done <- err })
	if entry.Text != defaultName(deep) {
		t.Fatalf("offered name %q, want %q", entry.Text, defaultName(deep))
	}
	// The offered name starts selected: typing replaces it.
	test.Type(entry, "Deep spiral")
	if entry.Text != "Deep spiral" {
		t.Fatalf("typing over the offered name gave %q", entry.Text)
	}
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) // Enter submits
	var addErr error
	waitFor(t, "the bookmark to be added", func() bool {
		select {
		case addErr = <-done:
			return true
		default:
			return false
		}
	})
	if addErr != nil {
		t.Fatal(addErr)
	}
	s, err := bookmarks.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := s.Get("Deep spiral")
	if !ok || b.Location != deep {
		t.Fatalf("file has %v %v", ok, b.Location)
	}
	img, err := png.Decode(bytes.NewReader(b.Thumbnail))
	if err != nil || img.Bounds().Dx() != bookmarkThumbW || img.Bounds().Dy() != bookmarkThumbH {
		t.Fatalf("thumbnail: %v", err)
	}
	if !p.visible || p.list.Length() != 1 {
		t.Fatalf("panel visible %v with %d rows", p.visible, p.list.Length())
	}
	// A second add offers a free name and refuses a taken one.
	_, entry = p.addDialog(nil)
	if err := entry.Validate(); err != nil {
		t.Fatalf("offered name %q is not valid: %v", entry.Text, err)
	}
	entry.SetText("Deep spiral")
	if err := entry.Validate(); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("duplicate name accepted: %v", err)
	}
	if err := await(t, func(done func(error)) { p.addBookmark("Deep spiral", fractal.Home(), nil, done) }); err == nil || err.Error() != `bookmark "Deep spiral" already exists` {
		t.Fatalf("duplicate add: %v", err)
	}
}

func TestBookmarksPanelFilterClickNavigates(t *testing.T) {
	w, p, path := newBookmarksTestWindow(t)
	locs := map[string]fractal.Location{
		"Seahorse valley": testLoc("-0.75", "0.1", "20", 400),
		"Elephant valley": testLoc("0.275", "0.006", "50", 500),
		"Deep":            testLoc(testRe60, testIm60, "1e9", 3000),
	}
	for _, n := range []string{"Seahorse valley", "Elephant valley", "Deep"} {
		if err := bookmarks.Add(path, bookmarks.Bookmark{Name: n, Location: locs[n]}); err != nil {
			t.Fatal(err)
		}
	}
	w.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyF12}, func() {}) // the canvas takes more shortcuts
	w.FyneWindow().Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyB, Modifier: fyne.KeyModifierShortcutDefault})
	if !p.visible || p.list.Length() != 3 {
		t.Fatalf("Ctrl+B: visible %v, %d rows", p.visible, p.list.Length())
	}
	// The panel paints (the software painter rejects, for example, a nil fill colour). The
	// window is made as wide as its controls need, as the desktop driver does.
	w.FyneWindow().Resize(fyne.NewSize(1100, 600))
	if img := w.FyneWindow().Canvas().Capture(); img.Bounds().Dx() < 100 {
		t.Fatalf("capture %v", img.Bounds())
	}
	test.Type(p.filter, "VALLEY")
	if p.list.Length() != 2 {
		t.Fatalf("filter VALLEY: %d rows", p.list.Length())
	}
	p.filter.SetText("sea")
	if p.list.Length() != 1 || p.shown[0].Name != "Seahorse valley" {
		t.Fatalf("filter sea: %d rows", p.list.Length())
	}
	p.list.Select(0)
	if w.Location() != locs["Seahorse valley"] {
		t.Fatalf("click went to %v", w.Location())
	}
	p.filter.SetText("")
	p.list.Select(2)
	if got := w.Location(); got != locs["Deep"] || got.Re.String() != testRe60 {
		t.Fatalf("click went to %v", got)
	}
	// The same row again goes there again (after moving away).
	w.SetLocation(fractal.Home())
	p.list.Select(2)
	if w.Location() != locs["Deep"] {
		t.Fatal("second click on the same row did nothing")
	}
}

func TestBookmarksPanelDeleteUndoRename(t *testing.T) {
	_, p, path := newBookmarksTestWindow(t)
	for i, n := range []string{"a", "b", "c"} {
		l := fractal.Home()
		l.Iterations = 100 + i
		if err := bookmarks.Add(path, bookmarks.Bookmark{Name: n, Location: l}); err != nil {
			t.Fatal(err)
		}
	}
	p.toggle()
	names := func() string {
		s, err := bookmarks.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(s.Names(), ",")
	}
	if !p.undoBtn.Disabled() {
		t.Fatal("undo enabled before any delete")
	}
	if err := await(t, func(done func(error)) { p.remove("b", done) }); err != nil {
		t.Fatal(err)
	}
	if got := names(); got != "a,c" || p.list.Length() != 2 {
		t.Fatalf("after delete: %s", got)
	}
	if p.undoBtn.Disabled() {
		t.Fatal("undo disabled after delete")
	}
	test.Tap(p.undoBtn)
	waitFor(t, "the undo", func() bool { return p.undoBtn.Disabled() })
	if got := names(); got != "a,b,c" || p.list.Length() != 3 {
		t.Fatalf("after undo: %s", got)
	}
	s, _ := bookmarks.Load(path)
	if b, _ := s.Get("b"); b.Location.Iterations != 101 {
		t.Fatal("undo lost the location")
	}
	if !p.undoBtn.Disabled() {
		t.Fatal("undo still enabled")
	}
	if err := await(t, func(done func(error)) { p.rename("c", "  see ", done) }); err != nil {
		t.Fatal(err)
	}
	if got := names(); got != "a,b,see" {
		t.Fatalf("after rename: %s", got)
	}
	if err := await(t, func(done func(error)) { p.rename("a", "b", done) }); err == nil || err.Error() != `bookmark "b" already exists` {
		t.Fatalf("rename onto existing: %v", err)
	}
}

func TestBookmarksPanelDamagedFile(t *testing.T) {
	_, p, path := newBookmarksTestWindow(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	text := `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "-0.5"`
	os.WriteFile(path, []byte(text), 0o644)
	p.visible = true // show without the dialog
	err := p.reload()
	var de *bookmarks.DamagedError
	if !errors.As(err, &de) || !strings.Contains(p.status.Text, path) || !strings.Contains(p.status.Text, "damaged") {
		t.Fatalf("reload: %v; status %q", err, p.status.Text)
	}
	if err := await(t, func(done func(error)) { p.addBookmark("x", fractal.Home(), nil, done) }); !errors.As(err, &de) || !strings.Contains(err.Error(), path) {
		t.Fatalf("add: %v", err)
	}
	if err := await(t, func(done func(error)) { p.remove("a", done) }); !errors.As(err, &de) {
		t.Fatalf("remove: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != text {
		t.Fatal("the damaged file was changed")
	}
}

func TestBookmarksPanelImportExport(t *testing.T) {
	w, p, path := newBookmarksTestWindow(t)
	dir := t.TempDir()
	kfr := filepath.Join(dir, "Spiral.kfr")
	os.WriteFile(kfr, []byte("Re: "+testRe60+"\r\nIm: "+testIm60+"\r\nZoom: 2E30\r\nIterations: 8000\r\n"), 0o644)
	r, err := awaitImport(t, p, kfr)
	if err != nil || len(r.Added) != 1 || r.Added[0] != "Spiral" {
		t.Fatalf("import: %+v %v", r, err)
	}
	if err := await(t, func(done func(error)) { p.addBookmark("home", w.Location(), nil, done) }); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.json")
	wc, err := storage.Writer(storage.NewFileURI(out))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := p.exportTo(wc); err != nil || n != 2 {
		t.Fatalf("export: %d bookmarks, %v", n, err)
	}
	s, err := bookmarks.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Get("Spiral"); b.Location.Re.String() != testRe60 || b.Location.Zoom.String() != "2E30" || s.Len() != 2 {
		t.Fatalf("exported %q: %v", s.Names(), b.Location)
	}
	bad := filepath.Join(dir, "bad.kfr")
	os.WriteFile(bad, []byte("Re: x\nIm: 0\nZoom: 1\n"), 0o644)
	if _, err := awaitImport(t, p, bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("bad import: %v", err)
	}
	if s, _ := bookmarks.Load(path); s.Len() != 2 {
		t.Fatal("bad import changed the store")
	}
	// The imported bookmark's thumbnail is drawn in the background and written when done:
	// wait for it, so that the write does not land in the folder the test is removing.
	waitFor(t, "the imported bookmark's thumbnail", func() bool {
		s, _ := bookmarks.Load(path)
		b, _ := s.Get("Spiral")
		return len(b.Thumbnail) > 0
	})
}

// TestBookmarksPanelWatch checks that the open panel notices bookmarks another process adds.
func TestBookmarksPanelWatch(t *testing.T) {
	_, p, path := newBookmarksTestWindow(t)
	p.toggle()
	if p.stop != nil {
		t.Fatal("watch started while turned off")
	}
	if err := bookmarks.Add(path, bookmarks.Bookmark{Name: "a", Location: fractal.Home()}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	changed := make(chan struct{}, 100)
	go watchFile(path, fileStamp(path), 10*time.Millisecond, stop, func() { changed <- struct{}{} })
	if err := bookmarks.Add(path, bookmarks.Bookmark{Name: "from the CLI", Location: fractal.Home()}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("the change was not noticed")
	}
	p.reload() // what the notice does, on the UI goroutine
	if p.list.Length() != 2 {
		t.Fatalf("%d rows", p.list.Length())
	}
}

// The panel keeps its width whatever the names (a long name in the Undo text widened it to
// 630 px); a long name is shortened in its row and whole in the row's tooltip.
func TestBookmarksPanelKeepsItsWidth(t *testing.T) {
	w, p, _ := newBookmarksTestWindow(t)
	long := strings.Repeat("A very long bookmark name ", 7)
	long = strings.TrimSpace(long)
	if err := await(t, func(done func(error)) { p.addBookmark(long, w.Location(), nil, done) }); err != nil {
		t.Fatal(err)
	}
	p.toggle()
	if got := p.root.MinSize().Width; got != bookmarksPanelWidth {
		t.Errorf("panel asks for %v px with a long name, want %v", got, bookmarksPanelWidth)
	}
	row := newBookmarkRow(w)
	p.updateRow(0, row)
	if row.name.Truncation != fyne.TextTruncateEllipsis || row.full != row.name.Text || row.full != long {
		t.Errorf("row: truncation %v, tooltip %q, label %q", row.name.Truncation, row.full, row.name.Text)
	}
	if err := await(t, func(done func(error)) { p.remove(long, done) }); err != nil {
		t.Fatal(err)
	}
	if got := p.root.MinSize().Width; got != bookmarksPanelWidth {
		t.Errorf("panel asks for %v px after deleting a long name, want %v", got, bookmarksPanelWidth)
	}
	if p.undoBtn.Disabled() || !strings.Contains(p.status.Text, "Deleted") {
		t.Errorf("after delete: undo disabled %v, status %q", p.undoBtn.Disabled(), p.status.Text)
	}
}

// await runs a bookmarks change (which writes off the UI goroutine) and waits for its result.
func await(t *testing.T, op func(done func(error))) error {
	t.Helper()
	var got error
	finished := false
	op(func(err error) { got, finished = err, true })
	waitFor(t, "the bookmarks file", func() bool { return finished })
	return got
}

// awaitImport imports src and waits for the result.
func awaitImport(t *testing.T, p *bookmarksPanel, src string) (bookmarks.ImportResult, error) {
	t.Helper()
	var r bookmarks.ImportResult
	err := await(t, func(done func(error)) {
		p.importFile(src, func(res bookmarks.ImportResult, err error) { r = res; done(err) })
	})
	return r, err
}

// A change waits for the file's lock on a goroutine of its own: while another writer (the
// command line) holds the lock, the UI goroutine goes on (issue 9 item 7).
func TestBookmarksWriteOffTheUIGoroutine(t *testing.T) {
	w, p, path := newBookmarksTestWindow(t)
	if err := await(t, func(done func(error)) { p.addBookmark("a", w.Location(), nil, done) }); err != nil {
		t.Fatal(err)
	}
	held, release, other := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		other <- bookmarks.Update(path, func(*bookmarks.Store) error { close(held); <-release; return nil })
	}()
	<-held
	finished := false
	p.remove("a", func(err error) {
		if err != nil {
			t.Error(err)
		}
		finished = true
	})
	// The UI goroutine is free: it runs what is queued and answers input meanwhile.
	testUI.drain()
	w.zoomCentre(2)
	if finished {
		t.Fatal("the delete finished while another writer held the file")
	}
	close(release)
	if err := <-other; err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the delete", func() bool { return finished })
	if s, _ := bookmarks.Load(path); s.Len() != 0 {
		t.Errorf("after the delete the file has %v", s.Names())
	}
}

// A bookmark imported from a .kfr file (which holds no picture) gets its thumbnail in the
// background.
func TestImportedBookmarkGetsThumbnail(t *testing.T) {
	_, p, path := newBookmarksTestWindow(t)
	kfr := filepath.Join(t.TempDir(), "Spiral.kfr")
	os.WriteFile(kfr, []byte("Re: "+testRe60+"\r\nIm: "+testIm60+"\r\nZoom: 2E3\r\nIterations: 800\r\n"), 0o644)
	if _, err := awaitImport(t, p, kfr); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the thumbnail", func() bool {
		s, err := bookmarks.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		b, ok := s.Get("Spiral")
		return ok && len(b.Thumbnail) > 0
	})
	s, _ := bookmarks.Load(path)
	b, _ := s.Get("Spiral")
	img, err := bookmarks.DecodeThumbnail(b.Thumbnail)
	if err != nil || img.Bounds().Dx() != bookmarkThumbW || img.Bounds().Dy() != bookmarkThumbH {
		t.Fatalf("thumbnail %v, %v", img, err)
	}
	if b.Location.Zoom.String() != "2E3" || b.Location.Re.String() != testRe60 {
		t.Errorf("the thumbnail changed the location: %v", b.Location)
	}
	colours := map[[3]uint32]bool{}
	for y := 0; y < bookmarkThumbH; y += 3 {
		for x := 0; x < bookmarkThumbW; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r, g, bl}] = true
		}
	}
	if len(colours) < 4 {
		t.Errorf("the thumbnail has %d colours: not a picture of the view", len(colours))
	}
}
