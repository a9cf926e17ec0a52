package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// TestExportErrorText: the window's messages for export errors say what to do in the window,
// never a command-line flag.
func TestExportErrorText(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.png")
	opt := export.Options{Location: fractal.Home(), Width: 40, Height: 30, StripBytes: 4 * 40 * 3, Version: "t"}
	// A real refusal from the library: a .part without a checkpoint, resumed.
	os.WriteFile(export.PartPath(path), []byte("half"), 0o644)
	o := opt
	o.Resume = true
	_, err := export.Export(context.Background(), &cpu.Renderer{}, path, o)
	if !errors.Is(err, export.ErrNothingToResume) {
		t.Fatalf("resume of a .part without checkpoint: %v", err)
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{err, "nothing to resume"},
		{&export.Error{Kind: export.ErrInterrupted, Kept: true, Msg: "interrupted after 2 of 5 strips"}, "Export the same file again to resume"},
		{&export.Error{Kind: export.ErrNoSpace, Kept: true, Msg: "no space left on /x"}, "Free some space"},
		{&export.Error{Kind: export.ErrRendererDiffers, Msg: "cannot resume: drawn by OpenGL"}, "Start over"},
		{&export.Error{Kind: export.ErrDamaged, Msg: "cannot resume: damaged"}, "Start over"},
		{&export.Error{Kind: export.ErrBusy, Msg: "another export of x.png is running"}, "Wait"},
		{&export.Error{Kind: export.ErrIsFolder, Msg: "x.png is a folder, not a file"}, "Choose another file name"},
		{&export.Error{Kind: export.ErrIsFolder, Kept: true, Msg: "x.png appeared as a folder"}, "Move that folder away"},
		{&export.Error{Kind: export.ErrBadLock, Msg: "x.png.lock is a symbolic link, not a lock file"}, "move it away"},
		{errors.New("plain"), "plain"},
	} {
		got := exportErrorText(tc.err)
		if !strings.Contains(got, tc.want) || strings.Contains(got, "--") {
			t.Errorf("exportErrorText(%v) = %q, want %q and no flags", tc.err, got, tc.want)
		}
	}
	if got := exportErrorText(&export.Error{Kind: export.ErrInterrupted, Msg: "interrupted before anything was written"}); strings.Contains(got, "resume") {
		t.Errorf("nothing kept, yet: %q", got)
	}
}

// TestExportPresetsShared: the dialog's sizes and limit are the command line's.
func TestExportPresetsShared(t *testing.T) {
	if len(exportPresets) != len(export.Presets) || exportMaxSide != export.MaxSide {
		t.Fatalf("%d presets, max side %d", len(exportPresets), exportMaxSide)
	}
	for _, p := range export.Presets {
		w, h, err := export.ParseSize(p.Name)
		if err != nil || w != p.W || h != p.H {
			t.Errorf("preset %s: %d %d %v", p.Name, w, h, err)
		}
	}
	if _, _, err := parseWxH("65537x10"); err == nil {
		t.Error("the dialog accepts a side over export.MaxSide")
	}
}

// TestExportDialogPartWithoutCheckpoint: a .part that saved no progress is not run into an
// error: the dialog asks to start over first and changes nothing by itself.
func TestExportDialogPartWithoutCheckpoint(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 300)})
	ui := exportUIOf(t, w)
	ui.show()
	dir := t.TempDir()
	ui.sizeSel.SetSelected(customSize)
	ui.custom.SetText("40x30")
	ui.folder.SetText(dir)
	ui.name.SetText("p.png")
	part := export.PartPath(filepath.Join(dir, "p.png"))
	os.WriteFile(part, []byte("half"), 0o644)
	if ui.exportBt.Disabled() {
		t.Fatalf("Export disabled: %q", ui.problem.Text)
	}
	test.Tap(ui.exportBt)
	testUI.drain()
	ui.mu.Lock()
	started := ui.running != nil
	ui.mu.Unlock()
	if started {
		t.Error("an export over a .part without checkpoint started without asking")
	}
	if b, _ := os.ReadFile(part); string(b) != "half" {
		t.Error("the .part changed")
	}
}
