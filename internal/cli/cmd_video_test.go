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
