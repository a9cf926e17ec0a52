package cli

import (
	"bytes"
	"context"
	"errors"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"mandelscope/bookmarks"
	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
	"mandelscope/video"
)

// videoCmd runs `mandelscope video` in-process.
func videoCmd(args ...string) (code int, stderr string) {
	var out, errb bytes.Buffer
	code = Run(append([]string{"video"}, args...), &out, &errb)
	return code, errb.String()
}

// videoView is a small, quick video's view flags: the seahorse valley to zoom 16.
var videoView = []string{"--renderer=cpu", "--center=-0.7436438870371587,0.1318259042053119", "--zoom=16", "--iterations=500",
	"--size=64x36", "--fps=6", "--duration=1"}

// TestVideoValidation: every bad command line gives exit 2, one line naming what is wrong,
// and no file.
func TestVideoValidation(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(bookmarks.EnvPath, filepath.Join(dir, "bookmarks.json"))
	existing := filepath.Join(dir, "exists.mp4")
	os.WriteFile(existing, []byte("user's file"), 0o644)
	out := filepath.Join(dir, "out.mp4")
	needsFFmpeg := func() bool { _, err := exec.LookPath("ffmpeg"); return err == nil }()
	for _, tc := range []struct {
		args []string
		want string
		ff   bool // the check needs ffmpeg installed (it comes after the encoder's)
	}{
		{[]string{"--fps=0", "-o", out}, "--fps: frame rate 0 is out of range", false},
		{[]string{"--duration=1e9", "-o", out}, "--duration: duration 1e+09 s at 6 fps", false},
		{[]string{"--duration=ten", "-o", out}, `--duration: "ten" is not a number`, false},
		{[]string{"--size=63x36", "-o", out}, "--size: size 63x36: h264 video in yuv420p needs an even width and height (try 62x36)", false},
		{[]string{"--size=0x36", "-o", out}, "--size:", false},
		{[]string{"--start-zoom=100", "-o", out}, "--start-zoom: the start zoom 100 must be below the end zoom 16", false},
		{[]string{"--start-zoom=-1", "-o", out}, "--start-zoom:", false},
		{[]string{"--codec=mpeg2", "-o", out}, "--codec: unknown codec", false},
		{[]string{"--crf=0", "-o", out}, "--crf: 0 is out of range", false},
		{[]string{"--crf=99", "-o", out}, "--crf: crf 99 is out of range for h264", false},
		{[]string{"--supersample=9", "-o", out}, "--supersample: supersample 9 is out of range", false},
		{[]string{"--supersample=0", "-o", out}, "--supersample: supersample 0 is out of range (1 to 4)", false},
		{[]string{"--keyframe-scale=0", "-o", out}, "--keyframe-scale: keyframe scale 0 is out of range (1 to 4)", false},
		{[]string{"--keyframe-scale=9", "-o", out}, "--keyframe-scale: keyframe scale 9 is out of range", false},
		{[]string{"--keyframe-layout=spiral", "-o", out}, `--keyframe-layout: keyframe layout "spiral" is unknown (rings or flat)`, false},
		{[]string{"-o", filepath.Join(dir, "out.gif")}, `-o: "out.gif" must end in .mp4`, false},
		{[]string{"--codec=h264", "-o", filepath.Join(dir, "out.webm")}, "-o: a .webm file cannot hold h264", false},
		{[]string{}, "-o: no output given", false},
		{[]string{"--renderer=tpu", "-o", out}, "--renderer: unknown renderer", false},
		{[]string{"--bookmark=nope", "-o", out}, "--bookmark: no bookmark named", false},
		{[]string{"-o", existing}, "exists; add --force to overwrite it", true},
		{[]string{"--resume", "-o", out}, "nothing to resume", true},
	} {
		if tc.ff && !needsFFmpeg {
			continue
		}
		code, errs := videoCmd(append(append([]string{}, videoView...), tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("video %v: exit %d, %q; want exit 2 and one line containing %q", tc.args, code, errs, tc.want)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "user's file" {
		t.Errorf("the existing file was changed")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused command left %s", out)
	}
	// Without ffmpeg on PATH: one line naming the package and --frames; frames only work.
	t.Setenv("PATH", t.TempDir())
	code, errs := videoCmd(append(append([]string{}, videoView...), "-o", out)...)
	if code != 2 || !strings.Contains(errs, "Debian's package ffmpeg") || !strings.Contains(errs, "--frames") || strings.Count(errs, "\n") != 1 {
		t.Errorf("without ffmpeg: exit %d, %q", code, errs)
	}
	frames := filepath.Join(dir, "frames")
	if code, errs := videoCmd(append(append([]string{}, videoView...), "--size=63x35", "--frames", frames)...); code != 0 {
		t.Fatalf("frames only, odd size, without ffmpeg: exit %d: %s", code, errs)
	}
	if m, _ := filepath.Glob(filepath.Join(frames, "frame-*.png")); len(m) != 6 {
		t.Errorf("%d frames written, want 6", len(m))
	}
}

// signallingComputer sends a signal on sigs at its compute call number at, and counts calls.
type signallingComputer struct {
	cpu.Renderer
	calls atomic.Int32
	at    int32
	sigs  chan<- os.Signal
}

func (s *signallingComputer) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	if s.calls.Add(1) == s.at {
		s.sigs <- os.Interrupt
	}
	return s.Renderer.Compute(ctx, f, rect, dst)
}

// TestVideoInterruptResume interrupts a video (a signal during its keyframes: exit 130, the
// keyframes done kept, no video), then resumes it with --resume to the same frames as an
// uninterrupted run, and a different --fps on resume is fine (the keyframes serve any).
func TestVideoInterruptResume(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed (scripts/deps.sh test installs it)")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "zoom.mp4")
	args := append(append([]string{}, videoView...), "--frames", filepath.Join(dir, "cut"), "-o", out)
	job, err := parseVideo(args, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	sigs := make(chan os.Signal, 2)
	c := &signallingComputer{at: 4, sigs: sigs}
	var errb bytes.Buffer
	err = doVideo(job, c, &errb, sigs)
	var ee ExitError
	if !errors.As(err, &ee) || ee.Code != 130 || !errors.Is(err, video.ErrInterrupted) || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("interrupted: %v (%s), want exit 130 advising --resume", err, errb.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an interrupted video left %s", out)
	}
	keys, _ := filepath.Glob(filepath.Join(video.WorkDir(job.opt), "key-*.msk"))
	if len(keys) == 0 {
		t.Errorf("no keyframes kept in %s", video.WorkDir(job.opt))
	}
	if code, errs := videoCmd(append(args, "--resume")...); code != 0 || !strings.Contains(errs, "reused") {
		t.Fatalf("resume: exit %d: %s", code, errs)
	}
	whole := append(append([]string{}, videoView...), "--frames", filepath.Join(dir, "whole"))
	if code, errs := videoCmd(whole...); code != 0 {
		t.Fatalf("uninterrupted: exit %d: %s", code, errs)
	}
	for k := range 6 {
		name := "frame-00000" + string(rune('0'+k)) + ".png"
		a, _ := os.ReadFile(filepath.Join(dir, "cut", name))
		b, _ := os.ReadFile(filepath.Join(dir, "whole", name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the resumed and the uninterrupted video", name)
		}
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("no video after the resume: %v", err)
	}
}

// video --shard=I/N for every I, then assemble OUT.mp4: the video one process makes (the
// same decoded frames); an assembly before every shard has run names the missing shard;
// bad --shard values are refused in one line.
func TestVideoShardsAndAssemble(t *testing.T) {
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Skip("ffmpeg not installed (scripts/deps.sh test installs it)")
	}
	dir := t.TempDir()
	one := filepath.Join(dir, "one.mp4")
	if code, errs := videoCmd(append(videoView, "-o", one)...); code != 0 {
		t.Fatalf("video: exit %d: %s", code, errs)
	}
	out := filepath.Join(dir, "s.mp4")
	if code, errs := videoCmd(append(videoView, "--shard=0/2", "-o", out)...); code != 0 || !strings.Contains(errs, "shard 0 of 2") {
		t.Fatalf("shard 0: exit %d: %s", code, errs)
	}
	var so, se bytes.Buffer
	if code := Run([]string{"assemble", out}, &so, &se); code != 1 || !strings.Contains(se.String(), "shard 1 of 2 (not finished)") || strings.Count(se.String(), "\n") != 1 {
		t.Errorf("assemble with shard 1 missing: exit %d: %q", code, se.String())
	}
	if code, errs := videoCmd(append(videoView, "--shard=1/2", "-o", out)...); code != 0 {
		t.Fatalf("shard 1: exit %d: %s", code, errs)
	}
	se.Reset()
	if code := Run([]string{"assemble", out}, &so, &se); code != 0 {
		t.Fatalf("assemble: exit %d: %s", code, se.String())
	}
	decode := func(p string) []byte {
		b, err := exec.Command("ffmpeg", "-v", "error", "-i", p, "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := decode(one), decode(out); len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("the assembled video's frames differ from one process's")
	}
	// A shard of other options than the work folder's: the advice names no flag a shard refuses.
	other := append(append([]string{}, videoView...), "--iterations=400", "--shard=1/2", "-o", filepath.Join(dir, "t.mp4"))
	if code, errs := videoCmd(append(videoView, "--shard=0/2", "-o", filepath.Join(dir, "t.mp4"))...); code != 0 {
		t.Fatalf("shard 0 of t.mp4: exit %d: %s", code, errs)
	}
	if code, errs := videoCmd(other...); code != 1 || !strings.Contains(errs, "iterations was 500, now 400") || !strings.Contains(errs, "video.json records them") ||
		strings.Contains(errs, "--resume") || strings.Contains(errs, "--force") {
		t.Errorf("a shard of other options: exit %d: %q", code, errs)
	}
	for _, bad := range [][]string{{"--shard=2/2", "-o", out}, {"--shard=0/2", "--frames=" + filepath.Join(dir, "f")}, {"--shard=0/2", "--frames=" + filepath.Join(dir, "f"), "-o", out}, {"--shard=0/2", "--force", "-o", out}} {
		code, errs := videoCmd(append(videoView, bad...)...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--shard") {
			t.Errorf("%v: exit %d: %q", bad, code, errs)
		}
	}
}

// waypointView is videoView without --duration (the waypoints give it).
func waypointView() []string {
	var v []string
	for _, a := range videoView {
		if !strings.HasPrefix(a, "--duration") {
			v = append(v, a)
		}
	}
	return v
}

// TestVideoWaypointsAudioValidation: each bad --waypoints or --audio is refused with exit 2
// in one line naming what is wrong, before any work, leaving no file.
func TestVideoWaypointsAudioValidation(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.mp4")
	notSound := filepath.Join(dir, "notes.txt")
	os.WriteFile(notSound, []byte("not a sound"), 0o644)
	needsFFmpeg := func() bool { _, err := exec.LookPath("ffmpeg"); return err == nil }()
	view := waypointView()
	for _, tc := range []struct {
		args []string
		want string
		ff   bool
	}{
		{[]string{"--waypoints=0:1,1:16", "--duration=1", "-o", out}, "--waypoints: give either --waypoints or --duration and --start-zoom", false},
		{[]string{"--waypoints=0:1,1:16", "--start-zoom=2", "-o", out}, "--waypoints: give either --waypoints or --duration and --start-zoom", false},
		{[]string{"--waypoints=0:1,2:4,1.5:8,3:16", "-o", out}, "--waypoints: waypoint 3 at 1.5 s is not after waypoint 2 at 2 s: the times must increase", false},
		{[]string{"--waypoints=0.5:1,3:16", "-o", out}, "--waypoints: the first waypoint is at 0.5 s; it must be at 0", false},
		{[]string{"--waypoints=0:1,2,3:16", "-o", out}, `--waypoints: waypoint 2 "2" has no colon: write TIME:ZOOM`, false},
		{[]string{"--waypoints=0:1,2:1e-9,3:16", "-o", out}, "--waypoints: waypoint 2: zoom 1e-9 is out of range", false},
		{[]string{"--waypoints=0:1,2:1e99999,3:16", "-o", out}, "--waypoints: waypoint 2: zoom 1e99999 is out of range", false},
		{[]string{"--waypoints=0:1,2:x,3:16", "-o", out}, `--waypoints: waypoint 2: zoom "x" is not a decimal number`, false},
		{[]string{"--waypoints=0:1,3:32", "-o", out}, "--waypoints: the last waypoint's zoom 32 is not --zoom's 16", false},
		{[]string{"--waypoints=0:1,1:100,3:16", "-o", out}, "--waypoints: waypoint 2's zoom 100 is deeper than the end view's 16", false},
		{[]string{"--waypoints=0:16,3:end", "-o", out}, "--waypoints: every waypoint's zoom is the end view's 16", false},
		{[]string{"--waypoints=0:1,0.1:16", "-o", out}, "--waypoints: the last waypoint's time: duration 0.1 s at 6 fps", false},
		{[]string{"--waypoints=", "-o", out}, "--waypoints: no waypoints", false},
		{[]string{"--duration=1", "--audio=", "-o", out}, "--audio: empty file name", false},
		{[]string{"--duration=1", "--audio=" + notSound, "--frames=" + filepath.Join(dir, "f")}, "--audio: audio " + notSound + ": PNG frames carry no sound", false},
		{[]string{"--duration=1", "--audio=" + filepath.Join(dir, "nope.wav"), "-o", out}, "--audio: audio " + filepath.Join(dir, "nope.wav") + ": no such file", true},
		{[]string{"--duration=1", "--audio=" + dir, "-o", out}, "is not a file", true},
		{[]string{"--duration=1", "--audio=" + notSound, "-o", out}, "ffmpeg cannot read its sound", true},
	} {
		if tc.ff && !needsFFmpeg {
			continue
		}
		code, errs := videoCmd(append(append([]string{}, view...), tc.args...)...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("video %v: exit %d, %q; want exit 2 and one line containing %q", tc.args, code, errs, tc.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("refused commands left files: %v", ents)
	}
}

// TestVideoWaypointsEnd: the last waypoint's zoom sets the end view's when --zoom is not
// given (the frames are those of --zoom with T:end), and two waypoints are --start-zoom and
// --duration, frame for frame.
func TestVideoWaypointsEnd(t *testing.T) {
	dir := t.TempDir()
	var noZoom []string
	for _, a := range waypointView() {
		if !strings.HasPrefix(a, "--zoom") {
			noZoom = append(noZoom, a)
		}
	}
	runs := map[string][]string{
		"last":    append(append([]string{}, noZoom...), "--waypoints=0:1,0.4:3,0.6:3,1:16"),
		"end":     append(append([]string{}, waypointView()...), "--waypoints=0:1,0.4:3,0.6:3,1:end"),
		"two":     append(append([]string{}, waypointView()...), "--waypoints=0:2,1:16"),
		"classic": append(append([]string{}, videoView...), "--start-zoom=2"),
	}
	for name, args := range runs {
		if code, errs := videoCmd(append(args, "--frames", filepath.Join(dir, name))...); code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
	}
	for _, pair := range [][2]string{{"last", "end"}, {"two", "classic"}} {
		for k := range 6 {
			name := "frame-00000" + string(rune('0'+k)) + ".png"
			a, _ := os.ReadFile(filepath.Join(dir, pair[0], name))
			b, _ := os.ReadFile(filepath.Join(dir, pair[1], name))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s differs between %s and %s", name, pair[0], pair[1])
			}
		}
	}
	a, _ := os.ReadFile(filepath.Join(dir, "last", "frame-000000.png"))
	b, _ := os.ReadFile(filepath.Join(dir, "two", "frame-000000.png"))
	if bytes.Equal(a, b) {
		t.Error("the first frames at zoom 1 and at zoom 2 are the same")
	}
}

// TestVideoWaypointsShardsAudio: shards of a video with waypoints and a sound assemble into
// the video one process makes (the same decoded frames, and the sound); a shard given other
// waypoints is refused, naming them.
func TestVideoWaypointsShardsAudio(t *testing.T) {
	for _, p := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed (scripts/deps.sh test installs it)", p)
		}
	}
	dir := t.TempDir()
	tone := filepath.Join(dir, "tone.wav")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=330:duration=3", tone).CombinedOutput(); err != nil {
		t.Fatalf("making the tone: %v: %s", err, out)
	}
	args := append(waypointView(), "--waypoints=0:1,0.4:3,0.6:3,1:16", "--audio="+tone)
	one := filepath.Join(dir, "one.mp4")
	if code, errs := videoCmd(append(args, "-o", one)...); code != 0 || !strings.Contains(errs, "through 4 waypoints, sound from") {
		t.Fatalf("video: exit %d: %s", code, errs)
	}
	out := filepath.Join(dir, "s.mp4")
	for _, s := range []string{"0/2", "1/2"} {
		if code, errs := videoCmd(append(args, "--shard="+s, "-o", out)...); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", s, code, errs)
		}
	}
	other := append(waypointView(), "--waypoints=0:1,0.5:3,0.6:3,1:16", "--audio="+tone, "--shard=1/2", "-o", out)
	if code, errs := videoCmd(other...); code != 1 || !strings.Contains(errs, "waypoints was 0:1,0.4:3,0.6:3,1:16, now 0:1,0.5:3,0.6:3,1:16") {
		t.Errorf("a shard of other waypoints: exit %d: %q", code, errs)
	}
	var so, se bytes.Buffer
	if code := Run([]string{"assemble", out}, &so, &se); code != 0 {
		t.Fatalf("assemble: exit %d: %s", code, se.String())
	}
	decode := func(p string) []byte {
		b, err := exec.Command("ffmpeg", "-v", "error", "-i", p, "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := decode(one), decode(out); len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("the assembled video's frames differ from one process's")
	}
	for _, p := range []string{one, out} {
		b, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=codec_name", "-of", "csv=p=0", p).Output()
		if err != nil || strings.TrimSpace(string(b)) != "aac" {
			t.Errorf("%s: sound %q (%v), want aac", p, b, err)
		}
	}
}
