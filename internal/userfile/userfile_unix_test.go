//go:build unix

package userfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"mandelscope/internal/fifotest"
)

func TestFIFORefusedPromptly(t *testing.T) {
	dir := t.TempDir()
	fifo := fifotest.Make(t, filepath.Join(dir, "pipe.txt"))
	want := fifo + " is not a regular file (a named pipe)"
	err := fifotest.Prompt(t, fifo, func() error { _, err := Open(fifo); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != want {
		t.Errorf("Open: %v, want %q", err, want)
	}
	err = fifotest.Prompt(t, fifo, func() error { _, err := ReadFile(fifo, 100); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != want || Reason(err) != "it is not a regular file (a named pipe)" {
		t.Errorf("ReadFile: %v", err)
	}
	err = fifotest.Prompt(t, fifo, func() error { _, err := ReadDir(fifo); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != fifo+" is not a folder (a named pipe)" {
		t.Errorf("ReadDir: %v", err)
	}
	// A link to the pipe is the pipe.
	link := filepath.Join(dir, "link.txt")
	os.Symlink(fifo, link)
	err = fifotest.Prompt(t, fifo, func() error { _, err := ReadFile(link, 100); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != link+" is not a regular file (a named pipe)" {
		t.Errorf("ReadFile(link): %v", err)
	}
	// Writing onto the pipe: refused with replace, left alone without; the pipe stays.
	err = fifotest.Prompt(t, fifo, func() error { return WriteAtomic(fifo, []byte("x"), 0, true) })
	if !errors.Is(err, ErrNotRegular) || err.Error() != "it is not a regular file (a named pipe)" {
		t.Errorf("WriteAtomic(replace): %v", err)
	}
	if err := fifotest.Prompt(t, fifo, func() error { return WriteAtomic(fifo, []byte("x"), 0, false) }); err == nil || err.Error() != "it already exists" {
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

// TestCreateNeverFollowsLinks: CreateNew refuses a link (dangling or not) and a file;
// CreateFresh replaces a link by a new file and leaves what it pointed to as it was.
func TestCreateNeverFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	os.WriteFile(victim, []byte("precious"), 0o644)
	link := filepath.Join(dir, "key.raw")
	os.Symlink(victim, link)
	dangling := filepath.Join(dir, "dangling.raw")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	for _, p := range []string{link, dangling, victim} {
		if f, err := CreateNew(p, 0o600); !errors.Is(err, os.ErrExist) {
			if f != nil {
				f.Close()
			}
			t.Errorf("CreateNew(%s): %v, want it to exist", filepath.Base(p), err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !os.IsNotExist(err) {
		t.Errorf("CreateNew created the dangling link's target")
	}
	for _, p := range []string{link, dangling} {
		f, err := CreateFresh(p, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("scratch")
		f.Close()
		if st, err := os.Lstat(p); err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s after CreateFresh: %v %v", filepath.Base(p), st.Mode(), err)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the link's target was written: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); !os.IsNotExist(err) {
		t.Errorf("CreateFresh created the dangling link's target")
	}
	if _, err := CreateFresh(dir, 0o600); !errors.Is(err, ErrNotRegular) {
		t.Errorf("CreateFresh(folder): %v", err)
	}
}
