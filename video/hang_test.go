//go:build unix

package video

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mandelscope/internal/fifotest"
	"mandelscope/render/cpu"
)

// fakeEncoderScript is an ffmpeg that lists a libx264 encoder, reads its input to the end,
// and then never exits: it starts a child (sleep) that holds its output open, writes the
// child's process id to $MANDELSCOPE_FAKE_PID and, when $MANDELSCOPE_FAKE_FIFO is set,
// writes a line to that named pipe, then waits for the child.
const fakeEncoderScript = `#!/bin/sh
case "$*" in *-encoders*) echo " V....D libx264              fake H.264"; exit 0;; esac
cat >/dev/null
sleep 1000000 &
echo $! >"$MANDELSCOPE_FAKE_PID"
if [ -n "$MANDELSCOPE_FAKE_FIFO" ]; then echo hung >"$MANDELSCOPE_FAKE_FIFO"; fi
wait
`

// fakeEncoder installs fakeEncoderScript as FFmpeg for the test and returns the file its
// child's process id is written to.
func fakeEncoder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ff := filepath.Join(dir, "ffmpeg")
	if err := os.WriteFile(ff, []byte(fakeEncoderScript), 0o755); err != nil {
		t.Fatal(err)
	}
	old := FFmpeg
	FFmpeg = ff
	t.Cleanup(func() { FFmpeg = old })
	pid := filepath.Join(dir, "pid")
	t.Setenv("MANDELSCOPE_FAKE_PID", pid)
	return pid
}

// processGone waits until the process whose id is in pidFile has ended (it is gone, or a
// zombie no one has reaped yet), failing the test if it is still running after a minute
// (a killed process ends at once; the minute is for a machine under load).
func processGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the encoder's child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			if _, serr := os.Stat("/proc/self/stat"); serr != nil {
				t.Skip("no /proc to look at the encoder's child in")
			}
			return
		}
		if f := strings.Fields(string(st)); len(f) > 2 && f[2] == "Z" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the encoder's child %d still runs: %s", pid, st)
		}
		time.Sleep(10 * time.Millisecond) // polling the condition, not timing the test
	}
}

// TestEncoderNeverExits: an encoder that reads its frames and then never exits is stopped
// (with its child) after EncoderFinish, and the video fails saying so; cancelled while it
// hangs, the video stops at once (well within the hour EncoderFinish is then) with ErrInterrupted.
func TestEncoderNeverExits(t *testing.T) {
	pid := fakeEncoder(t)
	dir := t.TempDir()
	opt := qualityOptions(dir)
	opt.FPS, opt.FramesDir, opt.Output = 4, "", filepath.Join(dir, "z.mp4")
	old := EncoderFinish
	defer func() { EncoderFinish = old }()
	EncoderFinish = 200 * time.Millisecond
	_, err := Make(context.Background(), &cpu.Renderer{}, opt)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 200ms of its last frame") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a hung encoder: %v", err)
	}
	processGone(t, pid)
	if _, err := os.Stat(opt.Output); !os.IsNotExist(err) {
		t.Errorf("a video was left: %v", err)
	}

	// Cancelled once the encoder has read its input and hangs (it says so on a named pipe).
	EncoderFinish = time.Hour
	fifo := fifotest.Make(t, filepath.Join(dir, "hung"))
	t.Setenv("MANDELSCOPE_FAKE_FIFO", fifo)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		if f, err := os.Open(fifo); err == nil {
			f.Read(make([]byte, 8))
			f.Close()
		}
		cancel()
	}()
	opt.Resume = true
	_, err = Make(ctx, &cpu.Renderer{}, opt)
	if !errors.Is(err, ErrInterrupted) {
		t.Errorf("cancelled while the encoder hangs: %v, want ErrInterrupted", err)
	}
	processGone(t, pid)
}

// TestEncoderStopsEarly: an encoder that exits at once without reading, or reads every frame
// and exits writing nothing, fails the video with one line saying what it did (not a rename
// of a file that is not there), and leaves no video.
func TestEncoderStopsEarly(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"exits at once", "exit 0", "without"}, // read every frame, or not (the pipe holds them)
		{"writes nothing", "cat >/dev/null; exit 0", "exited without writing segment 0 of the video (frames 0 to 3)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ff := filepath.Join(dir, "ffmpeg")
			script := "#!/bin/sh\ncase \"$*\" in *-encoders*) echo \" V....D libx264              fake H.264\"; exit 0;; esac\n" + c.body + "\n"
			os.WriteFile(ff, []byte(script), 0o755)
			old := FFmpeg
			FFmpeg = ff
			defer func() { FFmpeg = old }()
			opt := qualityOptions(dir)
			opt.FPS, opt.FramesDir, opt.Output = 4, "", filepath.Join(dir, "z.mp4")
			_, err := Make(context.Background(), &cpu.Renderer{}, opt)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "rename") || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v, want one line containing %q", err, c.want)
			}
			if _, err := os.Stat(opt.Output); !os.IsNotExist(err) {
				t.Errorf("a video was left: %v", err)
			}
		})
	}
}
