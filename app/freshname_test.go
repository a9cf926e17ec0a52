package app

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
)

// freshName offers the name itself when it is free, else the first free name-N.
func TestFreshName(t *testing.T) {
	dir := t.TempDir()
	touch := func(n string) {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, want string
		after      string // made before the next case
	}{
		{"mandelscope.png", "mandelscope.png", "mandelscope.png"},
		{"mandelscope.png", "mandelscope-2.png", "mandelscope-2.png"},
		{"mandelscope-2.png", "mandelscope-3.png", ""},
		{"mandelscope.png", "mandelscope-3.png", ""},
		{"scan-007.png", "scan-007.png", "scan-007.png"},
		{"scan-007.png", "scan-007-2.png", ""}, // a -N with a leading zero is part of the name
		{"  zoom.mp4 ", "zoom.mp4", "zoom.mp4"},
		{"zoom.mp4", "zoom-2.mp4", ""},
	} {
		if got := freshName(dir, c.name); got != c.want {
			t.Errorf("freshName(%q) = %q, want %q", c.name, got, c.want)
		}
		if c.after != "" {
			touch(c.after)
		}
	}
	if got := freshName(filepath.Join(dir, "missing"), "mandelscope.png"); got != "mandelscope.png" {
		t.Errorf("a missing folder: %q", got)
	}
}

// The export and video dialogs, opened again after their file was written, offer a name not
// yet used instead of the same one (which asked "Replace file?"); a free name typed stays.
func TestDialogsOfferAFreshName(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 300)})
	dir := t.TempDir()
	ui := exportUIOf(t, w)
	ui.show()
	ui.folder.SetText(dir)
	ui.name.SetText("mandelscope.png")
	w.closeTopDialog()
	if err := os.WriteFile(filepath.Join(dir, "mandelscope.png"), []byte("an export"), 0o644); err != nil {
		t.Fatal(err)
	}
	ui.show()
	if ui.name.Text != "mandelscope-2.png" {
		t.Errorf("the export dialog offers %q after mandelscope.png was written, want mandelscope-2.png", ui.name.Text)
	}
	ui.name.SetText("mine.png")
	w.closeTopDialog()
	ui.show()
	if ui.name.Text != "mine.png" {
		t.Errorf("a free name typed became %q", ui.name.Text)
	}
	w.closeTopDialog()

	v := w.vid
	v.show()
	v.folder.SetText(dir)
	v.name.SetText("mandelscope-zoom.mp4")
	w.closeTopDialog()
	if err := os.WriteFile(filepath.Join(dir, "mandelscope-zoom.mp4"), []byte("a video"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.show()
	if v.name.Text != "mandelscope-zoom-2.mp4" {
		t.Errorf("the video dialog offers %q after mandelscope-zoom.mp4 was written, want mandelscope-zoom-2.mp4", v.name.Text)
	}
}
