package gradients

import (
	"errors"
	"image/color"
	"mandelscope/colour"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustText(t *testing.T, s string) colour.Gradient {
	t.Helper()
	g, err := colour.ParseGradientText(s)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestSaveLoadList(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "gradients")
	if l, err := List(dir); err != nil || len(l) != 0 {
		t.Fatalf("missing folder: %v %v", l, err)
	}
	g := mustText(t, "0:#1A0A3C,0.4:#E0503C,0.4:#FFD070,1:#1A0A3C")
	if err := Save(dir, "sunset", g, false); err != nil {
		t.Fatal(err)
	}
	back, err := Load(dir, "sunset")
	if err != nil || back.Text() != g.Text() {
		t.Fatalf("loaded %q, %v", back.Text(), err)
	}
	// Never replaced unless asked; the file stays as it was. The message names no command-line
	// flag: the window shows it too (the command line adds its --force).
	before, _ := os.ReadFile(filepath.Join(dir, "sunset.txt"))
	h := mustText(t, "#000000,#FFFFFF")
	if err := Save(dir, "sunset", h, false); !errors.Is(err, ErrExists) || strings.Contains(err.Error(), "--") {
		t.Errorf("save over an existing gradient: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "sunset.txt")); string(after) != string(before) {
		t.Error("the existing gradient changed")
	}
	if err := Save(dir, "sunset", h, true); err != nil {
		t.Fatal(err)
	}
	if back, _ := Load(dir, "sunset"); back.Text() != h.Text() {
		t.Errorf("replaced gradient reads %q", back.Text())
	}
	for _, bad := range []string{"classic", "../x", "a b", ".hidden", ""} {
		if err := Save(dir, bad, g, true); err == nil {
			t.Errorf("Save(%q) accepted", bad)
		}
	}
	// A damaged file is listed with its error naming the line; other files are skipped.
	os.WriteFile(filepath.Join(dir, "broken.txt"), []byte("#000000\n#12345\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.md"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad name.txt"), []byte("#000000\n#FFFFFF\n"), 0o644)
	l, err := List(dir)
	if err != nil || len(l) != 2 || l[0].Name != "broken" || l[1].Name != "sunset" {
		t.Fatalf("list: %+v %v", l, err)
	}
	if l[0].Err == nil || !strings.Contains(l[0].Err.Error(), "line 2") || l[1].Err != nil {
		t.Errorf("list errors: %v, %v", l[0].Err, l[1].Err)
	}
	// No temporary files are left behind.
	des, _ := os.ReadDir(dir)
	for _, de := range des {
		if strings.HasSuffix(de.Name(), ".tmp") {
			t.Errorf("left %s", de.Name())
		}
	}
}

func TestReadFileHostile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a folder: %v", err)
	}
	big := filepath.Join(dir, "big.txt")
	os.WriteFile(big, []byte(strings.Repeat("#000000\n", colour.MaxGradientBytes/8+1)), 0o644)
	if _, err := ReadFile(big); err == nil || !strings.Contains(err.Error(), big) {
		t.Errorf("a file over the limit: %v", err)
	}
	kfr := filepath.Join(dir, "place.kfr")
	os.WriteFile(kfr, []byte("Re: 0\r\nIm: 0\r\nZoom: 1\r\nColors: 0,0,0,255,128,0,\r\n"), 0o644)
	if g, err := ReadFile(kfr); err != nil || g.Text() != "#000000,#FF8000" {
		t.Errorf("kfr: %q %v", g.Text(), err)
	}
}

func TestResolve(t *testing.T) {
	dir := t.TempDir()
	g := mustText(t, "#102030,#405060,#708090")
	if err := Save(dir, "mine", g, false); err != nil {
		t.Fatal(err)
	}
	c, err := Resolve(colour.DefaultColoring, dir, "mine")
	if err != nil || c.Palette != "mine" || c.Gradient != g.Text() {
		t.Fatalf("mine: %+v %v", c, err)
	}
	c, err = Resolve(c, dir, "fire")
	if err != nil || c.Palette != "fire" || c.Gradient != "" {
		t.Fatalf("fire: %+v %v", c, err)
	}
	for _, name := range []string{"nope", "a/b"} {
		if _, err := Resolve(c, dir, name); err == nil || !strings.Contains(err.Error(), "built in: classic") || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestNameFor(t *testing.T) {
	for in, want := range map[string]string{
		"/x/Sunset Glow.txt":              "Sunset-Glow",
		"a.kfr":                           "a",
		"/x/.hidden.txt":                  "hidden",
		"/x/été.txt":                      "--t--", // each byte of é
		"/x/.txt":                         "gradient",
		strings.Repeat("x", 100) + ".txt": strings.Repeat("x", 64),
	} {
		if got := NameFor(in); got != want || colour.ValidGradientName(got) != nil {
			t.Errorf("NameFor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestWindowsReservedNames: names Windows keeps for devices (alone or before a '.', in any
// case) are refused for a new gradient on every system, so that the folder can be copied to
// Windows; a file of such a name made before is still read, and a name made from a file's
// name steps around them.
func TestWindowsReservedNames(t *testing.T) {
	dir := t.TempDir()
	g := mustText(t, "#000000,#FFFFFF")
	for _, n := range []string{"CON", "con", "Prn", "aux", "NUL", "nul.x", "COM1", "com9", "COM0", "LPT1", "lpt9.a.b", "LPT0"} {
		err := Save(dir, n, g, true)
		if err == nil || !strings.Contains(err.Error(), "reserved") || strings.Contains(err.Error(), "\n") {
			t.Errorf("Save(%q): %v", n, err)
		}
		if CheckName(n) == nil {
			t.Errorf("CheckName(%q) accepted", n)
		}
	}
	for _, n := range []string{"CONS", "console", "con-1", "nul_", "COM10", "com", "LPT", "auxiliary", "x.con", "PRN1"} {
		if err := CheckName(n); err != nil {
			t.Errorf("CheckName(%q): %v", n, err)
		}
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Errorf("files written: %v", des)
	}
	// Read as before.
	os.WriteFile(filepath.Join(dir, "nul.txt"), g.File("nul"), 0o644)
	if back, err := Load(dir, "nul"); err != nil || back.Text() != g.Text() {
		t.Errorf("Load(nul): %q %v", back.Text(), err)
	}
	for in, want := range map[string]string{"/x/CON.txt": "CON_", "/x/nul.kfr": "nul_", "/x/com1.a.txt": "com1_.a", "/x/conte.txt": "conte"} {
		if got := NameFor(in); got != want || CheckName(got) != nil {
			t.Errorf("NameFor(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSaveRefusesBuiltinNamesInAnyCase (issue 39: a gradient named "Classic" was saved,
// against the message that refuses "classic"): every built-in palette's name, in any
// capitals, is refused with one line naming the built-in, and nothing is written; a name
// that only begins like one is a gradient like any other.
func TestSaveRefusesBuiltinNamesInAnyCase(t *testing.T) {
	dir := t.TempDir()
	g := colour.Gradient{Stops: []color.RGBA{{0, 0, 0, 255}, {255, 255, 255, 255}}}
	for _, b := range colour.PaletteNames() {
		for _, name := range []string{b, strings.ToUpper(b), strings.ToUpper(b[:1]) + b[1:]} {
			err := Save(dir, name, g, true)
			if err == nil || !strings.Contains(err.Error(), "is the name of a built-in palette") || (name != b && !strings.Contains(err.Error(), "("+b+")")) {
				t.Errorf("Save %q: %v", name, err)
			}
		}
		if err := Save(dir, strings.ToUpper(b[:1])+b[1:]+"2", g, false); err != nil {
			t.Errorf("Save %q: %v", b+"2", err)
		}
	}
	list, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		if _, ok := colour.BuiltinNameFold(e.Name); ok {
			t.Errorf("%s was saved", e.Name)
		}
	}
}
