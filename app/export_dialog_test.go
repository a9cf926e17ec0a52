package app

import (
	"bytes"
	"context"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/version"
	"mandelscope/render/cpu"
)

func exportUIOf(t *testing.T, w *Window) *exportUI {
	t.Helper()
	if w.exp == nil {
		t.Fatal("the export dialog was not installed")
	}
	return w.exp
}

// waitExport waits until no export is running.
func waitExport(t *testing.T, ui *exportUI) *exportRun {
	t.Helper()
	ui.mu.Lock()
	run := ui.running
	ui.mu.Unlock()
	if run == nil {
		t.Fatal("no export started")
	}
	// The export's goroutine closes done, then hands the end to the UI goroutine.
	waitFor(t, "the export to end", func() bool {
		select {
		case <-run.done:
		default:
			return false
		}
		ui.mu.Lock()
		defer ui.mu.Unlock()
		return ui.running == nil
	})
	return run
}

// TestExportDialog: a custom non-square size with 2x2 supersampling exported from the dialog
// gives the bytes export.Export writes for the window's view, its automatic density
// recorded as such; bad input disables Export; an existing file is not replaced without
// asking.
func TestExportDialog(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 300)})
	ui := exportUIOf(t, w)
	ui.show()
	dir := t.TempDir()

	ui.sizeSel.SetSelected(customSize)
	ui.custom.SetText("")
	test.Type(ui.custom, "97x61")
	ui.ssSel.SetSelectedIndex(1)
	ui.folder.SetText(dir)
	ui.name.SetText("view.txt")
	if !ui.exportBt.Disabled() || !strings.Contains(ui.problem.Text, ".png") {
		t.Errorf("bad file name: button disabled %v, problem %q", ui.exportBt.Disabled(), ui.problem.Text)
	}
	ui.name.SetText("view.png")
	ui.folder.SetText(filepath.Join(dir, "missing"))
	if !ui.exportBt.Disabled() || !strings.Contains(ui.problem.Text, "does not exist") {
		t.Errorf("missing folder: problem %q", ui.problem.Text)
	}
	ui.folder.SetText(dir)
	ui.custom.SetText("0x5")
	if !ui.exportBt.Disabled() || !strings.Contains(ui.problem.Text, "out of range") {
		t.Errorf("bad size: problem %q", ui.problem.Text)
	}
	ui.custom.SetText("97x61")
	ui.name.SetText("view.png")
	if ui.exportBt.Disabled() {
		t.Fatalf("Export disabled: %q", ui.problem.Text)
	}
	if !strings.Contains(ui.estimate.Text, "Mpx") {
		t.Errorf("estimate %q", ui.estimate.Text)
	}
	if ui.w.frame.layout.w != 97 || ui.w.frame.layout.h != 61 {
		t.Errorf("export frame %dx%d, want 97x61 (aspect differs from the view)", ui.w.frame.layout.w, ui.w.frame.layout.h)
	}

	test.Tap(ui.exportBt)
	run := waitExport(t, ui)
	if run.err != nil {
		t.Fatal(run.err)
	}
	path := filepath.Join(dir, "view.png")
	want := filepath.Join(t.TempDir(), "want.png")
	if _, err := export.Export(context.Background(), &cpu.Renderer{}, want, export.Options{
		Location: w.Location(), Width: 97, Height: 61, Supersample: 2, Version: ui.version()}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	exp, _ := os.ReadFile(want)
	if len(got) == 0 || !bytes.Equal(got, exp) {
		t.Fatalf("dialog export (%d bytes) differs from export.Export (%d bytes)", len(got), len(exp))
	}
	if md, err := export.ReadMetadata(path); err != nil || md.Version != version.Version {
		t.Errorf("the window's export says version %q (%v), want %q as the command line writes", md.Version, err, version.Version)
	}
	// The window's density is automatic (its default): the file says so, and Open Image
	// makes it automatic again (issue 27).
	if !w.Location().Color.AutoDensity {
		t.Fatal("the window's density is not automatic")
	}
	if md, err := export.ReadMetadata(path); err != nil || !md.Location.Color.AutoDensity || md.Text[export.KeyDensityChosen] != "auto" {
		t.Errorf("the window's export of an automatic density reads back %+v (%v)", md.Location.Color, err)
	}
	w.densitySl.SetValue(0.5)
	if err := w.nav.openImage(path); err != nil {
		t.Fatal(err)
	}
	if !w.Location().Color.AutoDensity || w.densityVal.Text != "auto" {
		t.Errorf("opened the window's export at %+v, the control saying %q; want auto", w.Location().Color, w.densityVal.Text)
	}
	if !strings.HasPrefix(run.status.Text, "Done") {
		t.Errorf("status %q", run.status.Text)
	}

	// Opened again, the dialog offers a name not yet used; the same name typed again asks
	// first and changes nothing by itself.
	ui.show()
	if ui.name.Text != "view-2.png" {
		t.Errorf("opened again, the dialog offers %q, want view-2.png", ui.name.Text)
	}
	ui.name.SetText("view.png")
	test.Tap(ui.exportBt)
	testUI.drain()
	ui.mu.Lock()
	started := ui.running != nil
	ui.mu.Unlock()
	if started {
		t.Error("an export over an existing file started without asking")
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, got) {
		t.Error("the existing file changed")
	}
}

// TestExportDialogCancel: Cancel in the progress window stops the export: no FILE.png, the
// .part kept for resuming; the window stays usable meanwhile.
func TestExportDialogCancel(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(320, 200)})
	ui := exportUIOf(t, w)
	ui.show()
	dir := t.TempDir()
	ui.sizeSel.SetSelectedIndex(1) // 4K
	ui.ssSel.SetSelectedIndex(3)   // 4x4: long enough to cancel
	ui.folder.SetText(dir)
	ui.name.SetText("big.png")
	// The export's last strip waits for the cancel: the export cannot end before it.
	w.rend.set(&holdLastRows{r: w.cpu, minW: 3840})
	test.Tap(ui.exportBt)
	ui.mu.Lock()
	run := ui.running
	ui.mu.Unlock()
	if run == nil {
		t.Fatal("export did not start")
	}
	// The explorer window still navigates while the export runs.
	before := w.Location()
	w.zoomCentre(2)
	if w.Location().Zoom.Equal(before.Zoom) {
		t.Error("the window did not zoom during the export")
	}
	// Cancel once the export has written its first strip.
	waitFor(t, "the first strip", func() bool { return run.bar.Value > 0 })
	// The progress is a row in the window, with a real speed and the time left.
	if !regexp.MustCompile(`^\d+%  [\d.]+ [kM]?px/s  (about \d+ (s|min|h)|under a second) left$`).MatchString(run.status.Text) || len(w.progress.Objects) != 1 {
		t.Errorf("progress %q in %d rows", run.status.Text, len(w.progress.Objects))
	}
	test.Tap(run.cancel2)
	run = waitExport(t, ui)
	if run.err == nil {
		t.Fatal("the export finished before Cancel")
	}
	if !strings.Contains(run.err.Error(), "interrupted") {
		t.Fatalf("err %v", run.err)
	}
	path := filepath.Join(dir, "big.png")
	if _, err := os.Stat(path); err == nil {
		t.Fatal("FILE.png exists after Cancel")
	}
	if _, err := os.Stat(export.PartPath(path)); err != nil {
		t.Errorf(".part not kept: %v", err)
	}
}

// holdLastRows renders through r but for the last rows of frames at least minW pixels wide
// (an export's, not the window's preview), which wait for their render's cancel.
type holdLastRows struct {
	r    export.TileRenderer
	minW int
}

func (h *holdLastRows) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if f.W >= h.minW && rect.Max.Y >= f.H {
		<-ctx.Done()
		return ctx.Err()
	}
	return h.r.Render(ctx, f, rect, dst)
}

func (h *holdLastRows) MaxTile() int { return h.r.MaxTile() }
func (h *holdLastRows) Name() string { return h.r.Name() }

// The estimate scales with the samples for the time and the pixels for the size, the size
// within export.EstimateRange; the dialog shows it once the view's sample is measured.
func TestExportEstimate(t *testing.T) {
	s := exportSample{perSample: 100 * time.Nanosecond, bpp: 0.5}
	t1, z1 := s.estimate(1000, 1000, 1)
	t2, z2 := s.estimate(1000, 1000, 2)
	if t1 != exportFixedCost+160*time.Millisecond || t2 != 4*(t1-exportFixedCost)+exportFixedCost {
		t.Errorf("times %v, %v: want %v and 160ms (1M samples at 100+60 ns), and 4 times the samples' time", t1, t2, exportFixedCost)
	}
	if z1 != 500000+4096 || z2 != z1 {
		t.Errorf("sizes %d, %d: want 504096 for both", z1, z2)
	}
	lo, hi := export.EstimateRange(1000, 1000)
	if _, z := (exportSample{bpp: 40}).estimate(1000, 1000, 1); z != hi {
		t.Errorf("size %d above the range's top %d", z, hi)
	}
	if _, z := (exportSample{bpp: 0}).estimate(1000, 1000, 1); z != lo {
		t.Errorf("size %d below the range's bottom %d", z, lo)
	}
	for d, want := range map[time.Duration]string{300 * time.Millisecond: "under a second", 40 * time.Second: "about 40 s",
		10 * time.Minute: "about 10 min", 3 * time.Hour: "about 3.0 h"} {
		if got := roughDuration(d); got != want {
			t.Errorf("roughDuration(%v) = %q, want %q", d, got, want)
		}
	}

	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 300)})
	ui := exportUIOf(t, w)
	ui.show()
	waitFor(t, "the sample", func() bool { return strings.Contains(ui.estimate.Text, "time") })
	if !strings.Contains(ui.estimate.Text, "up to about") {
		t.Errorf("estimate %q", ui.estimate.Text)
	}
}

// TestExportDialogLowSpace: with less free space in the folder than the export may need, the
// dialog warns in its problem line (naming the folder and both sizes) and still lets the
// export start, as the command line does.
func TestExportDialogLowSpace(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 300)})
	ui := exportUIOf(t, w)
	ui.show()
	dir := t.TempDir()
	var asked string
	lowSpace = func(d string, w, h int) string {
		asked = d
		if w*h > 1_000_000 {
			return d + " has 1.0 MB free; the image may need up to about 3.5 MB"
		}
		return ""
	}
	defer func() { lowSpace = export.LowSpace }()
	ui.folder.SetText(dir)
	ui.name.SetText("big.png")
	ui.sizeSel.SetSelected(customSize)
	ui.custom.SetText("1920x1080")
	if asked != dir || !strings.HasPrefix(ui.problem.Text, "Warning: "+dir+" has 1.0 MB free") || ui.exportBt.Disabled() {
		t.Errorf("low space: asked about %q, problem %q, Export disabled %v", asked, ui.problem.Text, ui.exportBt.Disabled())
	}
	ui.custom.SetText("640x360")
	if ui.problem.Text != "" || ui.exportBt.Disabled() {
		t.Errorf("enough space: problem %q, Export disabled %v", ui.problem.Text, ui.exportBt.Disabled())
	}
}
