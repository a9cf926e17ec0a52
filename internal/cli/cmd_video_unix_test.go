//go:build unix

package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"mandelscope/internal/fifotest"
	"mandelscope/render/cpu"
	"mandelscope/video"
)

// hangingEncoder is an ffmpeg that lists libx264, reads its input to the end, starts a child
// that holds its output open (its id to $MANDELSCOPE_FAKE_PID), says so on the named pipe
// $MANDELSCOPE_FAKE_FIFO, and never exits.
const hangingEncoder = `#!/bin/sh
case "$*" in *-encoders*) echo " V....D libx264              fake H.264"; exit 0;; esac
cat >/dev/null
sleep 1000000 &
echo $! >"$MANDELSCOPE_FAKE_PID"
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
	pidFile, fifo := filepath.Join(dir, "pid"), fifotest.Make(t, filepath.Join(dir, "hung"))
	t.Setenv("MANDELSCOPE_FAKE_PID", pidFile)
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
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	// A process killed ends at once; the minute is for a machine under load.
	for deadline := time.Now().Add(time.Minute); ; {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Fields(string(st))[2] == "Z" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the encoder's child %d still runs after the video stopped", pid)
		}
		time.Sleep(10 * time.Millisecond) // polling the condition, not timing the test
	}
}
