package app

import (
	"errors"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/gradients"
)

// gradientsDir points the gradients folder at a fresh temporary folder, for the rest of the
// test (call it before opening the window: openTestWindow otherwise gives the window an empty
// folder, never the user's own).
func gradientsDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "gradients")
	t.Setenv(gradients.EnvDir, dir)
	testGradientDirs[t.Name()] = true
	t.Cleanup(func() { delete(testGradientDirs, t.Name()) })
	return dir
}

// testGradientDirs holds the tests that chose their gradients folder (gradientsDir).
var testGradientDirs = map[string]bool{}

func mustGradient(t *testing.T, text string) colour.Gradient {
	t.Helper()
	g, err := colour.ParseGradientText(text)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func menuLabels(m *fyne.Menu) []string {
	var out []string
	for _, it := range m.Items {
		if it.IsSeparator {
			out = append(out, "---")
		} else {
			out = append(out, it.Label)
		}
	}
	return out
}

func TestPaletteMenuListsUserGradients(t *testing.T) {
	dir := gradientsDir(t)
	sunset := mustGradient(t, "0:#1A0A3C,0.4:#E0503C,0.4:#FFD070,1:#1A0A3C")
	if err := gradients.Save(dir, "sunset", sunset, false); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.txt"), []byte("#12345\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newTestWindow(t)
	names := colour.PaletteNames()
	menu := w.paletteMenu()
	want := append(append([]string{}, names...), "---", "broken (damaged)", "sunset")
	if got := menuLabels(menu); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("palette menu %q, want %q", got, want)
	}
	if !menu.Items[len(names)+1].Disabled {
		t.Error("the damaged gradient can be chosen")
	}
	menu.Items[len(names)+2].Action()
	c := w.Location().Color
	if c.Palette != "sunset" || c.Gradient != sunset.Text() {
		t.Fatalf("chose sunset: palette %q gradient %q", c.Palette, c.Gradient)
	}
	if w.paletteBtn.Text != "sunset" {
		t.Errorf("the chooser says %q", w.paletteBtn.Text)
	}
	menu = w.paletteMenu()
	for i, it := range menu.Items {
		if it.Checked != (it.Label == "sunset") {
			t.Errorf("item %d %q checked %v", i, it.Label, it.Checked)
		}
	}
	// A bookmark's gradient that is not installed is shown by its name, checked.
	l := w.Location()
	l.Color = l.Color.WithGradient("faraway", mustGradient(t, "#000000,#00FF00"))
	w.SetLocation(l)
	menu = w.paletteMenu()
	last := menu.Items[len(menu.Items)-1]
	if last.Label != "faraway (this view's)" || !last.Checked || last.Icon == nil {
		t.Errorf("the view's own gradient is listed as %q (checked %v)", last.Label, last.Checked)
	}
	if w.paletteBtn.Text != "faraway" {
		t.Errorf("the chooser says %q", w.paletteBtn.Text)
	}
}

// TestImportPaletteLibrary: File > Import Gradient... reads every gradient of an Ultra
// Fractal .ugr into the folder (each under its own name; the palette menu lists them; the
// view draws with the first and the status bar says how many), a second import of it asks
// once, naming both, and a hostile file is refused in one line naming it and its line.
func TestImportPaletteLibrary(t *testing.T) {
	dir := gradientsDir(t)
	w := newTestWindow(t)
	src := filepath.Join(t.TempDir(), "lib.ugr")
	ugr := "Dusk {\ngradient:\n index=0 color=4194304 index=200 color=32767\n}\nDawn {\ngradient:\n index=0 color=255 index=100 color=65535\n}\n"
	if err := os.WriteFile(src, []byte(ugr), 0o644); err != nil {
		t.Fatal(err)
	}
	w.importGradientAsking(src)
	if len(w.dialogs) != 0 {
		t.Fatal("the first import showed a dialog")
	}
	for name, want := range map[string]string{"Dusk": "0:#000040,0.5:#FF7F00", "Dawn": "0:#FF0000,0.25:#FFFF00"} {
		if g, err := gradients.Load(dir, name); err != nil || g.Text() != want {
			t.Errorf("%s: %q %v, want %q", name, g.Text(), err, want)
		}
	}
	if c := w.Location().Color; c.Palette != "Dusk" || c.Gradient != "0:#000040,0.5:#FF7F00" {
		t.Errorf("the view draws %q %q", c.Palette, c.Gradient)
	}
	if m := w.statusTime.Text; m != "2 gradients imported (in the palette menu); the view draws with Dusk" {
		t.Errorf("status: %q", m)
	}
	var labels []string
	for _, it := range w.paletteMenu().Items {
		labels = append(labels, it.Label)
	}
	if l := strings.Join(labels, ","); !strings.Contains(l, "Dawn,Dusk") {
		t.Errorf("the palette menu lists %s", l)
	}
	w.importGradientAsking(src)
	if len(w.dialogs) != 1 {
		t.Fatalf("a second import showed %d dialogs, want the question", len(w.dialogs))
	}
	w.closeTopDialog()
	bad := filepath.Join(t.TempDir(), "bad.map")
	os.WriteFile(bad, []byte("0 0 0\n0 0 999\n"), 0o644)
	if _, err := w.importGradient(bad, false); err == nil || err.Error() != "gradient file "+bad+": line 2: the blue value 999 is outside 0 to 255" {
		t.Errorf("a hostile .map: %v", err)
	}
}

func TestImportAndExportGradient(t *testing.T) {
	dir := gradientsDir(t)
	w := newTestWindow(t)
	src := filepath.Join(t.TempDir(), "My Dusk.txt")
	if err := os.WriteFile(src, []byte("# dusk\n0 #000040\n0.5 #FF8000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const wantText = "0:#000040,0.5:#FF8000"
	w.importGradientAsking(src)
	if len(w.dialogs) != 0 {
		t.Fatal("the first import showed a dialog")
	}
	g, err := gradients.Load(dir, "My-Dusk")
	if err != nil || g.Text() != wantText {
		t.Fatalf("the folder holds %q (%v), want %q", g.Text(), err, wantText)
	}
	if c := w.Location().Color; c.Palette != "My-Dusk" || c.Gradient != wantText {
		t.Errorf("after the import the view draws %q %q", c.Palette, c.Gradient)
	}
	// Importing again asks before replacing.
	if _, err := w.importGradient(src, false); !errors.Is(err, gradients.ErrExists) {
		t.Errorf("a second import without replace: %v", err)
	}
	w.importGradientAsking(src)
	if len(w.dialogs) != 1 {
		t.Errorf("a second import showed %d dialogs, want the question", len(w.dialogs))
	}
	w.closeTopDialog()
	// A damaged file is refused with its line named, and nothing is saved.
	bad := filepath.Join(t.TempDir(), "bad.txt")
	if err := os.WriteFile(bad, []byte("0 #000000\nzzz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := w.importGradient(bad, false); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("importing a damaged file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.txt")); err == nil {
		t.Error("a damaged file was saved")
	}
	// Export writes the view's gradient, read back equal; a built-in palette writes its stops.
	out := filepath.Join(t.TempDir(), "out.txt")
	if err := w.exportGradient(out); err != nil {
		t.Fatal(err)
	}
	if g, err := gradients.ReadFile(out); err != nil || g.Text() != wantText {
		t.Errorf("exported %q (%v), want %q", g.Text(), err, wantText)
	}
	w.paletteMenu().Items[0].Action()
	name := colour.PaletteNames()[0]
	if err := w.exportGradient(out); err != nil {
		t.Fatal(err)
	}
	b, _ := colour.BuiltinGradient(name)
	if g, err := gradients.ReadFile(out); err != nil || g.Text() != b.Text() {
		t.Errorf("exported %s as %q (%v), want %q", name, g.Text(), err, b.Text())
	}
}

func TestGradientEditor(t *testing.T) {
	dir := gradientsDir(t)
	w := newTestWindow(t)
	l := w.Location()
	l.Color = l.Color.WithGradient("duo", mustGradient(t, "0:#000000,0.5:#FFFFFF"))
	w.SetLocation(l)
	e := w.openGradientEditor()
	if e == nil || len(w.dialogs) != 1 || len(e.rows.Objects) != 2 {
		t.Fatal("the editor did not open with two stop rows")
	}
	// The widest gap is the wrap from 0.5 to 1 (as wide as 0 to 0.5, and looked at first): a
	// stop at 0.75, half way from white back to black, in the colour the gradient had there.
	e.addStop()
	if got := e.g.Text(); got != "0:#000000,0.5:#FFFFFF,0.75:#808080" {
		t.Errorf("after add: %s", got)
	}
	if len(e.g.Stops) != 3 || len(e.rows.Objects) != 3 {
		t.Fatalf("after add: %d stops, %d rows", len(e.g.Stops), len(e.rows.Objects))
	}
	e.deleteStop(1)
	e.setColour(1, fyneColour(255, 0, 0))
	e.setPos(1, "0.25")
	const want = "0:#000000,0.25:#FF0000"
	waitFor(t, "the view to draw the edited stops", func() bool { return w.Location().Color.Gradient == want })
	if e.g.Text() != want {
		t.Errorf("stops %q", e.g.Text())
	}
	// Bad positions are refused with a note, and not applied.
	for _, s := range []string{"x", "1.5", "-0.1"} {
		e.setPos(1, s)
		if e.note.Hidden || e.g.Pos[1] != 0.25 {
			t.Errorf("position %q: note hidden %v, position %g", s, e.note.Hidden, e.g.Pos[1])
		}
	}
	e.deleteStop(0) // two stops stay
	if len(e.g.Stops) != 2 {
		t.Errorf("deleted down to %d stops", len(e.g.Stops))
	}
	e.name.SetText("warm")
	if err := e.save(false); err != nil {
		t.Fatal(err)
	}
	if g, err := gradients.Load(dir, "warm"); err != nil || g.Text() != want {
		t.Errorf("saved %q (%v)", g.Text(), err)
	}
	if c := w.Location().Color; c.Palette != "warm" || c.Gradient != want {
		t.Errorf("after saving the view draws %q %q", c.Palette, c.Gradient)
	}
	if err := e.save(false); !errors.Is(err, gradients.ErrExists) {
		t.Errorf("saving over warm without asking: %v", err)
	}
	e.name.SetText("classic")
	if err := e.save(true); err == nil {
		t.Error("saved under a built-in palette's name")
	}
	e.name.SetText("../x")
	if err := e.save(true); err == nil {
		t.Error("saved under a name with a path in it")
	}
	w.typedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if !e.closed || len(w.dialogs) != 0 {
		t.Error("Escape did not close the editor")
	}
}

func TestResolveLocationText(t *testing.T) {
	dir := gradientsDir(t)
	mine := mustGradient(t, "#102030,#A0B0C0,#FFFFFF")
	if err := gradients.Save(dir, "mine", mine, false); err != nil {
		t.Fatal(err)
	}
	base := fractal.Home()
	l, err := resolveLocationText("re=-0.5 im=0.25 zoom=4 palette=mine density=2", base)
	if err != nil {
		t.Fatal(err)
	}
	if l.Color.Palette != "mine" || l.Color.Gradient != mine.Text() || l.Color.Density != 2 || l.Re.String() != "-0.5" {
		t.Errorf("resolved %v", l)
	}
	if l, err := resolveLocationText("re=0 im=0 zoom=1 palette=fire", l); err != nil || l.Color.Gradient != "" || l.Color.Palette != "fire" {
		t.Errorf("a built-in palette: %v %v", l, err)
	}
	if _, err := resolveLocationText("re=0 im=0 zoom=1 palette=nowhere", base); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("an unknown palette: %v", err)
	}
	if _, err := resolveLocationText("re=0 im=0 zoom=x palette=mine", base); err == nil {
		t.Error("bad text with a user palette was read")
	}
}

func fyneColour(r, g, b uint8) color.Color { return color.NRGBA{r, g, b, 255} }
