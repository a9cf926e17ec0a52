//go:build unix

package export

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"mandelscope/internal/userfile"
)

// TestReadMetadataNamedPipe: --from, Open Image and the export dialog's look at a .part read
// a PNG's metadata; a named pipe there is refused at once (it hung waiting for a writer).
func TestReadMetadataNamedPipe(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "view.png")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadMetadata(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, userfile.ErrNotRegular) || err.Error() != fifo+" is not a regular file (a named pipe)" {
			t.Errorf("ReadMetadata(pipe): %v", err)
		}
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatal("ReadMetadata still blocked on a named pipe after 10 s")
	}
}
