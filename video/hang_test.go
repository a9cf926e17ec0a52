//go:build unix

package video

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mandelscope/internal/fifotest"
	"mandelscope/render/cpu"
)

// fakeEncoderScript is an ffmpeg that lists a libx264 encoder, reads its input to the end,
// and then never exits: it opens the named pipe $MANDELSCOPE_FAKE_ALIVE for writing (see
// fifotest.Watch), starts a child (sleep) that holds its output and that pipe open, says so on
// the pipe and, when $MANDELSCOPE_FAKE_FIFO is set, on that named pipe, then waits for the child.
const fakeEncoderScript = `#!/bin/sh
case "$*" in *-encoders*) echo " V....D libx264              fake H.264"; exit 0;; esac
cat >/dev/null
exec 3>"$MANDELSCOPE_FAKE_ALIVE"
sleep 1000000 &
echo started >&3
if [ -n "$MANDELSCOPE_FAKE_FIFO" ]; then echo hung >"$MANDELSCOPE_FAKE_FIFO"; fi
wait
`

// fakeEncoder installs fakeEncoderScript as FFmpeg for the test.
func fakeEncoder(t *testing.T) {
	t.Helper()
	ff := filepath.Join(t.TempDir(), "ffmpeg")
	if err := os.WriteFile(ff, []byte(fakeEncoderScript), 0o755); err != nil {
		t.Fatal(err)
	}
	old := FFmpeg
	FFmpeg = ff
	t.Cleanup(func() { FFmpeg = old })
}

// watchEncoder makes the named pipe that the next fakeEncoderScript run and its child hold
// open (fifotest.Watch): fifotest.Ended on it waits for both to have ended.
func watchEncoder(t *testing.T, path string) *os.File {
	t.Helper()
	f := fifotest.Watch(t, path)
	t.Setenv("MANDELSCOPE_FAKE_ALIVE", path)
	return f
}

// TestEncoderNeverExits: an encoder that reads its frames and then never exits is stopped
// (with its child) after EncoderFinish, and the video fails saying so; cancelled while it
// hangs, the video stops at once (well within the hour EncoderFinish is then) with ErrInterrupted.
func TestEncoderNeverExits(t *testing.T) {
	fakeEncoder(t)
	dir := t.TempDir()
	alive := watchEncoder(t, filepath.Join(dir, "alive"))
	opt := qualityOptions(dir)
	opt.FPS, opt.FramesDir, opt.Output = 4, "", filepath.Join(dir, "z.mp4")
	old := EncoderFinish
	defer func() { EncoderFinish = old }()
	EncoderFinish = 200 * time.Millisecond
	_, err := Make(context.Background(), &cpu.Renderer{}, opt)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 200ms of its last frame") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a hung encoder: %v", err)
	}
	fifotest.Ended(t, alive, "the encoder or its child")
	if _, err := os.Stat(opt.Output); !os.IsNotExist(err) {
		t.Errorf("a video was left: %v", err)
	}

	// Cancelled once the encoder has read its input and hangs (it says so on a named pipe).
	EncoderFinish = time.Hour
	alive = watchEncoder(t, filepath.Join(dir, "alive2"))
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
	fifotest.Ended(t, alive, "the encoder or its child")
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
