//go:build unix

package userfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mkfifo makes a named pipe that nothing writes: opening it for reading the usual way waits
// for a writer forever.
func mkfifo(t *testing.T, path string) string {
	t.Helper()
	if err := unix.Mkfifo(path, 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	return path
}

// prompt runs fn and fails the test if it has not returned within a few seconds (instead of
// hanging the test run). A reader still blocked on the named pipe fifo is then released by
// opening it for writing, so that the test binary can finish.
func prompt(t *testing.T, fifo string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatalf("still blocked on the named pipe %s after 10 s", fifo)
		return nil
	}
}

func TestFIFORefusedPromptly(t *testing.T) {
	dir := t.TempDir()
	fifo := mkfifo(t, filepath.Join(dir, "pipe.txt"))
	want := fifo + " is not a regular file (a named pipe)"
	err := prompt(t, fifo, func() error { _, err := Open(fifo); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != want {
		t.Errorf("Open: %v, want %q", err, want)
	}
	err = prompt(t, fifo, func() error { _, err := ReadFile(fifo, 100); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != want || Reason(err) != "it is not a regular file (a named pipe)" {
		t.Errorf("ReadFile: %v", err)
	}
	err = prompt(t, fifo, func() error { _, err := ReadDir(fifo); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != fifo+" is not a folder (a named pipe)" {
		t.Errorf("ReadDir: %v", err)
	}
	// A link to the pipe is the pipe.
	link := filepath.Join(dir, "link.txt")
	os.Symlink(fifo, link)
	err = prompt(t, fifo, func() error { _, err := ReadFile(link, 100); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != link+" is not a regular file (a named pipe)" {
		t.Errorf("ReadFile(link): %v", err)
	}
	// Writing onto the pipe: refused with replace, left alone without; the pipe stays.
	err = prompt(t, fifo, func() error { return WriteAtomic(fifo, []byte("x"), 0, true) })
	if !errors.Is(err, ErrNotRegular) || err.Error() != "it is not a regular file (a named pipe)" {
		t.Errorf("WriteAtomic(replace): %v", err)
	}
	if err := prompt(t, fifo, func() error { return WriteAtomic(fifo, []byte("x"), 0, false) }); err == nil || err.Error() != "it already exists" {
		t.Errorf("WriteAtomic: %v", err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st.Mode(), err)
	}
}

func TestDeviceRefused(t *testing.T) {
	_, err := ReadFile(os.DevNull, 10)
	if !errors.Is(err, ErrNotRegular) || err.Error() != os.DevNull+" is not a regular file (a device)" {
		t.Errorf("ReadFile(%s): %v", os.DevNull, err)
	}
}

// TestNewFileModeFollowsUmask: a new file is 0644 less the umask's bits, as a shell makes
// it, not os.CreateTemp's 0600 whatever the umask.
func TestNewFileModeFollowsUmask(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ umask, want int }{{0o022, 0o644}, {0o002, 0o644}, {0o077, 0o600}, {0o027, 0o640}} {
		old := unix.Umask(c.umask)
		p := filepath.Join(dir, fmt.Sprintf("f%03o", c.umask))
		err := WriteAtomic(p, []byte("x"), 0, false)
		unix.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(p); int(st.Mode().Perm()) != c.want {
			t.Errorf("umask %03o: mode %03o, want %03o", c.umask, st.Mode().Perm(), c.want)
		}
	}
}
