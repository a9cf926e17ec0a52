package gradients

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadImportNames: the names ReadImport gives a .ugr's gradients are gradient names that
// Save takes: made from the file's (blanks and other bytes made '-', a Windows device name
// stepped around), a built-in's name with -imported, a name given twice (in any case)
// numbered, each with a note saying why it differs.
func TestReadImportNames(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "lib.ugr")
	g := " { gradient: index=0 color=0 index=200 color=16777215 }\n"
	os.WriteFile(p, []byte("blue moon"+g+"Fire"+g+"Blue-Moon"+g+"nul"+g+strings.Repeat("x", 80)+g+strings.Repeat("x", 70)+g), 0o644)
	list, err := ReadImport(p)
	if err != nil {
		t.Fatal(err)
	}
	x64 := strings.Repeat("x", 64)
	want := []struct{ name, note string }{
		{"blue-moon", ""},
		{"Fire-imported", "fire is a built-in palette"},
		{"Blue-Moon-2", "the file has more than one gradient called Blue-Moon"},
		{"nul_", ""},
		{x64, ""},
		{x64[:62] + "-2", "the file has more than one gradient called " + x64},
	}
	if len(list) != len(want) {
		t.Fatalf("%d gradients, want %d", len(list), len(want))
	}
	for i, w := range want {
		if list[i].Name != w.name || list[i].Note != w.note || CheckName(list[i].Name) != nil {
			t.Errorf("gradient %d: %q (%q), want %q (%q)", i+1, list[i].Name, list[i].Note, w.name, w.note)
		}
	}
	out := t.TempDir()
	if err := SaveAll(out, list, false); err != nil {
		t.Fatal(err)
	}
	if l, _ := List(out); len(l) != len(want) {
		t.Errorf("saved %d", len(l))
	}
	// A .map names its one gradient from the file's name.
	mp := filepath.Join(dir, "Ocean Deep.MAP")
	os.WriteFile(mp, []byte("0 0 0\n10 20 30\n"), 0o644)
	if l, err := ReadImport(mp); err != nil || len(l) != 1 || l[0].Name != "Ocean-Deep" || l[0].Gradient.Text() != "#000000,#0A141E" {
		t.Errorf("map: %+v %v", l, err)
	}
}

// TestSaveAllAllOrNothing: one name already in the folder refuses the whole list before
// anything is written (the error wraps ErrExists and names it); replace writes them all.
func TestSaveAllAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	a, b := mustText(t, "#000000,#FFFFFF"), mustText(t, "#FF0000,#00FF00")
	if err := Save(dir, "b", a, false); err != nil {
		t.Fatal(err)
	}
	list := []Imported{{Name: "a", Gradient: b}, {Name: "b", Gradient: b}}
	err := SaveAll(dir, list, false)
	if !errors.Is(err, ErrExists) || err.Error() != filepath.Join(dir, "b.txt")+" already exists" {
		t.Fatalf("SaveAll over b: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
		t.Error("a was written though b refused the list")
	}
	if err := SaveAll(dir, []Imported{{Name: "ok", Gradient: a}, {Name: "classic", Gradient: a}}, false); err == nil || !strings.Contains(err.Error(), "built-in") {
		t.Errorf("a built-in's name: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ok.txt")); err == nil {
		t.Error("ok was written though classic refused the list")
	}
	if err := SaveAll(dir, list, true); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b"} {
		if g, err := Load(dir, n); err != nil || g.Text() != b.Text() {
			t.Errorf("%s: %q %v", n, g.Text(), err)
		}
	}
}
