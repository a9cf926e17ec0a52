package app

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// TestVideoDialogTimeline: the form's waypoints (the view the last row, at the duration)
// replace the start zoom, bad rows and a missing sound file are refused with the reason and
// the button disabled, and the video made has the timeline's frames and the sound.
func TestVideoDialogTimeline(t *testing.T) {
	for _, p := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip("ffmpeg not installed (scripts/deps.sh test installs it)")
		}
	}
	dir := t.TempDir()
	tone := filepath.Join(dir, "tone.wav")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", tone).CombinedOutput(); err != nil {
		t.Fatalf("making the tone: %v: %s", err, out)
	}
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 300)})
	l := w.Location()
	l.Re, l.Im = fractal.MustDecimal("-0.7436438870371587"), fractal.MustDecimal("0.1318259042053119")
	l.Zoom, l.Iterations = fractal.MustDecimal("8"), 300
	w.SetLocation(l)
	ui := w.vid
	ui.show()
	ui.folder.SetText(dir)
	ui.name.SetText("zoom.mp4")
	ui.size.SetText("64x36")
	ui.fps.SetText("4")
	ui.duration.SetText("1.5")
	ui.waypts.SetText("0 1\n0.3 3\n0.9 3")
	if !ui.start.Disabled() || !strings.Contains(ui.lastRow.Text, "1.5 s (the duration): this view, zoom 8") {
		t.Errorf("with waypoints: start zoom disabled %v, last row %q", ui.start.Disabled(), ui.lastRow.Text)
	}
	rows := ui.waypts.Text
	for _, c := range []struct {
		entry           func(string)
		text, want, old string
	}{
		{ui.waypts.SetText, "0 1\n0.3", `aypoint line 2 "0.3": give a time in seconds and a zoom`, rows},
		{ui.waypts.SetText, "0.2 1\n0.9 3", "the first waypoint is at 0.2 s; it must be at 0", rows},
		{ui.waypts.SetText, "0 1\n0.9 3\n0.3 3", "waypoint 3 at 0.3 s is not after waypoint 2", rows},
		{ui.waypts.SetText, "0 1\n0.9 30", "waypoint 2's zoom 30 is deeper than the end view's 8", rows},
		{ui.audio.SetText, filepath.Join(dir, "nope.wav"), "no such file", ""},
	} {
		old := c.old
		c.entry(c.text)
		if !ui.makeBt.Disabled() || !strings.Contains(ui.problem.Text, c.want) {
			t.Errorf("%q: button disabled %v, problem %q; want %q", c.text, ui.makeBt.Disabled(), ui.problem.Text, c.want)
		}
		c.entry(old)
	}
	ui.audio.SetText(tone)
	if ui.makeBt.Disabled() {
		t.Fatalf("good settings: disabled, %q", ui.problem.Text)
	}
	waitFor(t, "the estimate of the video's time", func() bool { return strings.Contains(ui.estimate.Text, " here") })
	if !strings.Contains(ui.estimate.Text, "6 frames from 5 keyframes (rings of") { // zoom 1 to 8: rings at 0, 1, 2, 3 and the centre
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
	out := filepath.Join(dir, "zoom.mp4")
	b, err := exec.Command("ffprobe", "-v", "error", "-count_frames", "-show_entries", "stream=codec_type,nb_read_frames", "-of", "csv=p=0", out).Output()
	if got := strings.Fields(string(b)); err != nil || !slices.Contains(got, "video,6") || !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "audio,") }) {
		t.Errorf("ffprobe: %q, %v; want 6 video frames and a sound stream (%s)", b, err, run.status.Text)
	}
	// The frames are the timeline's: those of the same video made by the video package.
	o, err := ui.options()
	if err != nil || len(o.Waypoints) != 4 {
		t.Fatalf("the form's options: %d waypoints, %v", len(o.Waypoints), err)
	}
	p, _ := video.PlanFor(o)
	if p.Level(1) != p.Level(3) || p.Level(1) == p.Level(0) {
		t.Errorf("frames 1 to 3 lie on the hold: levels %g, %g, %g", p.Level(1), p.Level(2), p.Level(3))
	}
}

// TestVideoDialogColourCycling: the form's colour cycling field goes into the video's options
// (video.Options.PaletteCycle, as --palette-cycle takes it); a field that is not a number or is
// out of range is refused in a line naming it, with Make Video disabled.
func TestVideoDialogColourCycling(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 300)})
	l := w.Location()
	l.Zoom, l.Iterations = fractal.MustDecimal("8"), 300
	w.SetLocation(l)
	ui := w.vid
	ui.show()
	ui.folder.SetText(t.TempDir())
	ui.name.SetText("zoom.mp4")
	if o, err := ui.options(); err != nil || o.PaletteCycle != 0 {
		t.Fatalf("default: cycle %g, %v; want 0 (none)", o.PaletteCycle, err)
	}
	for _, c := range []struct {
		text, want string
	}{
		{"fast", `colour cycling "fast" must be a number of turns a second from -100 to 100 (0: none)`},
		{"101", `colour cycling "101" must be a number`},
		{"NaN", `colour cycling "NaN" must be a number`},
	} {
		ui.cycle.SetText(c.text)
		if !ui.makeBt.Disabled() || !strings.HasPrefix(ui.problem.Text, capitalise(c.want)) {
			t.Errorf("%q: button disabled %v, problem %q; want %q", c.text, ui.makeBt.Disabled(), ui.problem.Text, c.want)
		}
	}
	for _, c := range []struct {
		text string
		want float64
	}{{"0.25", 0.25}, {" -2 ", -2}, {"100", 100}} {
		ui.cycle.SetText(c.text)
		o, err := ui.options()
		if err != nil || o.PaletteCycle != c.want || ui.makeBt.Disabled() {
			t.Errorf("%q: cycle %g, %v, button disabled %v (%q); want %g", c.text, o.PaletteCycle, err, ui.makeBt.Disabled(), ui.problem.Text, c.want)
		}
	}
}

// TestVideoDialogPlot: the form plots zoom against time as the frames will follow it: a
// timeline with a hold is flat on the hold at the hold's zoom, climbs to the view's zoom at
// the duration, and the plot is hidden while the form is refused.
func TestVideoDialogPlot(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(600, 500)})
	l := w.Location()
	l.Zoom = fractal.MustDecimal("1e6")
	w.SetLocation(l)
	ui := w.vid
	ui.show()
	ui.fps.SetText("10")
	ui.duration.SetText("8")
	ui.waypts.SetText("0 1\n3 1e3\n5 1e3")
	if !ui.plot.obj.Visible() {
		t.Fatalf("no plot for a good timeline (%q)", ui.problem.Text)
	}
	p := ui.plot
	if want := "zoom " + fractal.FormatZoom(l.ZoomExp()); p.top.Text != want || p.bottom.Text != "zoom "+fractal.FormatZoom(fractal.MustDecimal("1").Exp()) || p.end.Text != "8 s" {
		t.Errorf("the axis says %q, %q and %q; want %q, zoom 1 and 8 s", p.top.Text, p.bottom.Text, p.end.Text, want)
	}
	const W, H = 207, 67
	img := p.draw(W, H)
	// The column of each time: the rows the curve takes there.
	rows := func(s float64) []int {
		var out []int
		x := p.col(s, W)
		for y := range H {
			if _, _, _, a := img.At(x, y).RGBA(); a != 0 {
				out = append(out, y)
			}
		}
		return out
	}
	want := func(v float64) int { return p.row(v, H) }
	if p.lo != 0 || math.Abs(p.hi-6) > 1e-9 {
		t.Fatalf("the plot spans log zoom %g to %g, want 0 to 6", p.lo, p.hi)
	}
	for _, s := range []float64{3.5, 4, 4.5} {
		if got := rows(s); len(got) != 1 || got[0] != want(3) {
			t.Errorf("at %g s (the hold at 1e3) the curve is at rows %v, want %d", s, got, want(3))
		}
	}
	if got := rows(1.5); len(got) == 0 || got[0] >= want(0) || got[len(got)-1] <= want(3) {
		t.Errorf("at 1.5 s the curve is at rows %v, want between %d and %d", got, want(3), want(0))
	}
	if got := rows(7.9); len(got) == 0 || got[0] > want(5.5) {
		t.Errorf("near the end the curve is at rows %v, want near %d (the view's zoom)", got, want(6))
	}
	ui.waypts.SetText("0 1\n0.3")
	if p.obj.Visible() || !ui.makeBt.Disabled() {
		t.Errorf("a refused timeline still plotted (visible %v)", p.obj.Visible())
	}
	// A palette change at a row, as --waypoints takes it.
	ui.waypts.SetText("0 1\n3 1e3 palette=fire\n5 1e3")
	if o, err := ui.options(); err != nil || len(o.Waypoints) != 4 || o.Waypoints[1].Palette != "fire" {
		t.Errorf("a row with palette=fire: %v, %+v", err, o.Waypoints)
	}
	ui.waypts.SetText("0 1\n3 1e3 palette=nope\n5 1e3")
	if !ui.makeBt.Disabled() || !strings.Contains(ui.problem.Text, "nope") {
		t.Errorf("an unknown palette in a row: button disabled %v, problem %q", ui.makeBt.Disabled(), ui.problem.Text)
	}
}

// TestVideoDialogFitsASmallWindow: in a small window the form scrolls inside a dialog that
// fits the window, buttons included (it was taller than a 600-pixel window, its problem line
// under the buttons).
func TestVideoDialogFitsASmallWindow(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(563, 420)})
	ui := w.vid
	ui.show()
	ui.waypts.SetText("0 1\n3 3\n5 3")
	h := w.win.Canvas().Size().Height
	if got := ui.scroll.MinSize().Height + videoDialogChrome; got > h {
		t.Errorf("the form's scroll area is %g high, which with the dialog's title and buttons passes the window's %g", ui.scroll.MinSize().Height, h)
	}
	if ui.scroll.Content.MinSize().Height <= ui.scroll.MinSize().Height {
		t.Errorf("the whole form (%g) fits %g: the test wants a window smaller than the form", ui.scroll.Content.MinSize().Height, ui.scroll.MinSize().Height)
	}
}
