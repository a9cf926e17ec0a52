package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/video"
)

// TestExportCancelDiscard: after Cancel, the export's row offers Discard and Keep to Resume;
// Discard removes the .part and its checkpoint, and nothing else in the folder (a file of
// the user's named like them, the other images), and leaves Close.
func TestExportCancelDiscard(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(320, 200)})
	ui := exportUIOf(t, w)
	ui.show()
	dir := t.TempDir()
	mine := []string{filepath.Join(dir, "big.png.part.txt"), filepath.Join(dir, "other.png")}
	for _, f := range mine {
		os.WriteFile(f, []byte("mine"), 0o644)
	}
	ui.sizeSel.SetSelectedIndex(1) // 4K
	ui.ssSel.SetSelectedIndex(3)
	ui.folder.SetText(dir)
	ui.name.SetText("big.png")
	w.rend.set(&holdLastRows{r: w.cpu, minW: 3840}) // the export cannot end before the cancel
	test.Tap(ui.exportBt)
	ui.mu.Lock()
	run := ui.running
	ui.mu.Unlock()
	if run == nil {
		t.Fatal("export did not start")
	}
	waitFor(t, "the first strip", func() bool { return run.bar.Value > 0 })
	test.Tap(run.cancel2)
	run = waitExport(t, ui)
	path := filepath.Join(dir, "big.png")
	for _, f := range []string{export.PartPath(path), export.CheckpointPath(path)} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("the cancelled export kept no %s: %v", filepath.Base(f), err)
		}
	}
	row := run.row
	if row.discard == nil || row.button.Text != "Keep to Resume" {
		t.Fatalf("the cancelled export's row offers no Discard (buttons %q)", row.button.Text)
	}
	test.Tap(row.discard)
	for _, f := range []string{export.PartPath(path), export.CheckpointPath(path), path} {
		if _, err := os.Lstat(f); err == nil {
			t.Errorf("%s is still there after Discard", filepath.Base(f))
		}
	}
	for _, f := range mine {
		if b, err := os.ReadFile(f); err != nil || string(b) != "mine" {
			t.Errorf("Discard touched %s: %q, %v", filepath.Base(f), b, err)
		}
	}
	if !strings.HasPrefix(row.status.Text, "Discarded: removed big.png.part") || row.button.Text != "Close" || len(row.buttons.Objects) != 1 {
		t.Errorf("after Discard: status %q, button %q, %d buttons", row.status.Text, row.button.Text, len(row.buttons.Objects))
	}
	test.Tap(row.button)
	if len(w.progress.Objects) != 0 {
		t.Errorf("Close left %d rows", len(w.progress.Objects))
	}
}

// TestVideoCancelDiscard: a video cancelled among its keyframes offers Discard, which removes
// its work folder; Keep to Resume (the other cancelled run) keeps it and closes the row.
func TestVideoCancelDiscard(t *testing.T) {
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("ffmpeg not installed (scripts/deps.sh test installs it)")
	}
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 300)})
	l := w.Location()
	l.Re, l.Im = fractal.MustDecimal("-0.7436438870371587"), fractal.MustDecimal("0.1318259042053119")
	l.Zoom, l.Iterations = fractal.MustDecimal("1e6"), 600
	w.SetLocation(l)
	ui := w.vid
	ui.show()
	dir := t.TempDir()
	ui.folder.SetText(dir)
	ui.size.SetText("64x36")
	ui.fps.SetText("4")
	ui.duration.SetText("2")
	for _, discard := range []bool{true, false} {
		ui.name.SetText(map[bool]string{true: "a.mp4", false: "b.mp4"}[discard])
		o, err := ui.options()
		if err != nil {
			t.Fatal(err)
		}
		ui.w.closeTopDialog()
		ui.run(o)
		ui.mu.Lock()
		run := ui.running
		ui.mu.Unlock()
		waitFor(t, "a keyframe", func() bool { return run.bar.Value > 0 })
		test.Tap(run.button) // Cancel
		waitFor(t, "the video to stop", func() bool {
			select {
			case <-run.done:
				ui.mu.Lock()
				defer ui.mu.Unlock()
				return ui.running == nil
			default:
				return false
			}
		})
		work := video.WorkDir(o)
		if _, err := os.Stat(work); err != nil {
			t.Fatalf("the cancelled video kept no work folder: %v (%s)", err, run.status.Text)
		}
		row := run.row
		if row.discard == nil || row.button.Text != "Keep to Resume" {
			t.Fatalf("the cancelled video's row offers no Discard (status %q)", run.status.Text)
		}
		if discard {
			test.Tap(row.discard)
			if _, err := os.Lstat(work); err == nil {
				t.Errorf("the work folder is still there after Discard: %s", row.status.Text)
			}
		} else {
			test.Tap(row.button)
			if _, err := os.Stat(work); err != nil {
				t.Errorf("Keep to Resume lost the work folder: %v", err)
			}
		}
		test.Tap(row.button)
	}
	if len(w.progress.Objects) != 0 {
		t.Errorf("%d rows left", len(w.progress.Objects))
	}
}
