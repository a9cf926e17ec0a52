//go:build unix

package export

import (
	"path/filepath"
	"syscall"
	"testing"
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
