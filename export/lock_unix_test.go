//go:build unix

package export

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mandelscope/render/cpu"
)

// A lock file that is a named pipe is refused as one; opening it to lock it would
// wait for a writer forever.
func TestLockFileNamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo.png")
	if err := syscall.Mkfifo(LockPath(path), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	lockRefused(t, path, "a named pipe")
}

// A checkpoint that is a named pipe is refused as damaged, naming it, instead of waiting
// for a writer forever.
func TestCheckpointNamedPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.png")
	if err := os.WriteFile(PartPath(path), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(CheckpointPath(path), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	opt := relOpts()
	opt.Resume = true
	done := make(chan error, 1)
	go func() {
		_, err := Export(context.Background(), &cpu.Renderer{}, path, opt)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("resume with a named pipe for a checkpoint: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a resume still waits on a named pipe checkpoint after 10 s")
	}
}
