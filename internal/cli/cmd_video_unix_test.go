//go:build unix

package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mandelscope/internal/fifotest"
	"mandelscope/render/cpu"
	"mandelscope/video"
)

// hangingEncoder is an ffmpeg that lists libx264, reads its input to the end, opens the named
// pipe $MANDELSCOPE_FAKE_ALIVE for writing (see fifotest.Watch), starts a child that holds its
// output and that pipe open, says so on it and on the named pipe $MANDELSCOPE_FAKE_FIFO, and
// never exits.
const hangingEncoder = `#!/bin/sh
case "$*" in *-encoders*) echo " V....D libx264              fake H.264"; exit 0;; esac
cat >/dev/null
exec 3>"$MANDELSCOPE_FAKE_ALIVE"
sleep 1000000 &
echo started >&3
echo hung >"$MANDELSCOPE_FAKE_FIFO"
wait
`

// TestVideoSIGTERMStopsHungEncoder: SIGTERM while the encoder hangs after its input ends
// stops the video at once (exit 143, advising --resume) and the encoder's whole process
// group with it: its child is not left running.
func TestVideoSIGTERMStopsHungEncoder(t *testing.T) {
	dir := t.TempDir()
	ff := filepath.Join(dir, "ffmpeg")
	os.WriteFile(ff, []byte(hangingEncoder), 0o755)
	old := video.FFmpeg
	video.FFmpeg = ff
	defer func() { video.FFmpeg = old }()
	alive, fifo := fifotest.Watch(t, filepath.Join(dir, "alive")), fifotest.Make(t, filepath.Join(dir, "hung"))
	t.Setenv("MANDELSCOPE_FAKE_ALIVE", alive.Name())
	t.Setenv("MANDELSCOPE_FAKE_FIFO", fifo)
	job, err := parseVideo(append(append([]string{}, videoView...), "-o", filepath.Join(dir, "z.mp4")), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	sigs := make(chan os.Signal, 2)
	go func() {
		if f, err := os.Open(fifo); err == nil {
			f.Read(make([]byte, 8))
			f.Close()
		}
		sigs <- syscall.SIGTERM
	}()
	var errb bytes.Buffer
	err = fifotest.Prompt(t, fifo, func() error { return doVideo(job, &cpu.Renderer{}, &errb, sigs) })
	var ee ExitError
	if !errors.As(err, &ee) || ee.Code != 143 || !errors.Is(err, video.ErrInterrupted) || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("SIGTERM with a hung encoder: %v (%s), want exit 143 advising --resume", err, errb.String())
	}
	fifotest.Ended(t, alive, "the encoder or its child")
}
