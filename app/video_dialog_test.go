package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/fractal"
	"mandelscope/video"
)

// TestVideoDialog: File > Export Video... refuses bad input with the reason and its button
// disabled, then makes a small zoom to the window's view, decoded back with ffprobe.
func TestVideoDialog(t *testing.T) {
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skip("ffmpeg not installed (scripts/deps.sh test installs it)")
	}
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 300)})
	l := w.Location()
	l.Re, l.Im = fractal.MustDecimal("-0.7436438870371587"), fractal.MustDecimal("0.1318259042053119")
	l.Zoom, l.Iterations = fractal.MustDecimal("8"), 300
	w.SetLocation(l)
	ui := w.vid
	if ui == nil {
		t.Fatal("the video dialog was not installed")
	}
	ui.show()
	dir := t.TempDir()
	ui.folder.SetText(dir)
	ui.name.SetText("zoom.mp4")
	ui.size.SetText("64x36")
	ui.fps.SetText("4")
	ui.duration.SetText("1")
	for _, c := range []struct {
		entry      func(string)
		text, want string
	}{
		{ui.fps.SetText, "0", "frame rate 0 is out of range"},
		{ui.duration.SetText, "1e9", "more than"},
		{ui.size.SetText, "63x36", "even width and height"},
		{ui.start.SetText, "100", "must be below the end zoom"},
		{ui.name.SetText, "zoom.gif", "must end in .mp4"},
	} {
		old := map[string]string{"0": "4", "1e9": "1", "63x36": "64x36", "100": "1", "zoom.gif": "zoom.mp4"}[c.text]
		c.entry(c.text)
		if !ui.makeBt.Disabled() || !strings.Contains(strings.ToLower(ui.problem.Text), c.want) {
			t.Errorf("%q: button disabled %v, problem %q; want %q", c.text, ui.makeBt.Disabled(), ui.problem.Text, c.want)
		}
		c.entry(old)
	}
	if ui.makeBt.Disabled() {
		t.Fatalf("good settings: disabled, %q", ui.problem.Text)
	}
	// Before it starts, the form says about how long the video takes here (from a sample).
	waitFor(t, "the estimate of the video's time", func() bool { return strings.Contains(ui.estimate.Text, " here") })
	if !strings.Contains(ui.estimate.Text, "4 frames from") {
		t.Errorf("estimate %q", ui.estimate.Text)
	}
	ui.confirm()
	ui.mu.Lock()
	run := ui.running
	ui.mu.Unlock()
	if run == nil {
		t.Fatal("no video started")
	}
	waitFor(t, "the video to be made", func() bool {
		select {
		case <-run.done:
			return true
		default:
			return false
		}
	})
	// Its progress is a row in the window (not a window over the menus), which counted the
	// frames as well as the keyframes and says it is done.
	if len(w.progress.Objects) != 1 || !strings.HasPrefix(run.status.Text, "Done: 4 frames") {
		t.Errorf("%d progress rows, status %q", len(w.progress.Objects), run.status.Text)
	}
	run.button.OnTapped() // Close
	if len(w.progress.Objects) != 0 {
		t.Errorf("Close left %d progress rows", len(w.progress.Objects))
	}
	out := filepath.Join(dir, "zoom.mp4")
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("no video: %v (%s)", err, run.status.Text)
	}
	b, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames,width,height", "-of", "csv=p=0", out).Output()
	if err != nil || strings.TrimSpace(string(b)) != "64,36,4" {
		t.Errorf("ffprobe: %q, %v; want 64,36,4", b, err)
	}
	if _, err := os.Stat(video.WorkDir(video.Options{Output: out})); !os.IsNotExist(err) {
		t.Errorf("the work folder stayed: %v", err)
	}
}
