//go:build unix

package gradients

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"mandelscope/colour"
	"mandelscope/internal/fifotest"
	"mandelscope/internal/userfile"
)

// TestNamedPipeGradients: a named pipe as a gradient file, in the folder or named directly,
// or as the folder itself, is refused at once with one line naming it, and never written
// over.
func TestNamedPipeGradients(t *testing.T) {
	dir := t.TempDir()
	fifo := fifotest.Make(t, filepath.Join(dir, "pipe.txt"))
	want := "gradient file " + fifo + " is not a regular file (a named pipe)"
	for what, fn := range map[string]func() error{
		"ReadFile": func() error { _, err := ReadFile(fifo); return err },
		"Load":     func() error { _, err := Load(dir, "pipe"); return err },
		"Resolve":  func() error { _, err := Resolve(colour.DefaultColoring, dir, "pipe"); return err },
		"List": func() error {
			l, err := List(dir)
			if err != nil || len(l) != 1 {
				return fmt.Errorf("list %v %v", l, err)
			}
			return l[0].Err
		},
	} {
		if err := fifotest.Prompt(t, fifo, fn); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", what, err, want)
		}
	}
	err := fifotest.Prompt(t, fifo, func() error { _, err := List(fifo); return err })
	if !errors.Is(err, userfile.ErrNotRegular) || err.Error() != "gradients folder "+fifo+" is not a folder (a named pipe)" {
		t.Errorf("List(pipe): %v", err)
	}
	g, _ := colour.BuiltinGradient("grey")
	err = fifotest.Prompt(t, fifo, func() error { return WriteFile(fifo, g.File("grey"), true) })
	if err == nil || err.Error() != "cannot write "+fifo+": it is not a regular file (a named pipe)" {
		t.Errorf("WriteFile(pipe, replace): %v", err)
	}
	if err := fifotest.Prompt(t, fifo, func() error { return WriteFile(fifo, g.File("grey"), false) }); !errors.Is(err, ErrExists) {
		t.Errorf("WriteFile(pipe): %v", err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v", err)
	}
}

// TestWrittenModeFollowsUmask: gradient files are written 0644 less the umask, as the
// bookmarks file is (they were 0600 whatever the umask).
func TestWrittenModeFollowsUmask(t *testing.T) {
	dir := t.TempDir()
	g, _ := colour.BuiltinGradient("grey")
	old := unix.Umask(0o022)
	err := Save(dir, "mine", g, false)
	err2 := WriteFile(filepath.Join(dir, "out.txt"), g.File("grey"), false)
	unix.Umask(old)
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	for _, n := range []string{"mine.txt", "out.txt"} {
		if st, err := os.Stat(filepath.Join(dir, n)); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v %v, want 0644 under umask 022", n, st.Mode().Perm(), err)
		}
	}
}

// TestSymlinkTargetNotQuoted: a gradient in the folder that is a link to a file that is not
// a gradient (here a copy of /etc/shadow's first line) is reported without a character of
// that file.
func TestSymlinkTargetNotQuoted(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(t.TempDir(), "shadow")
	os.WriteFile(secret, []byte("root:*:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n"), 0o600)
	os.Symlink(secret, filepath.Join(dir, "s.txt"))
	l, err := List(dir)
	if err != nil || len(l) != 1 || l[0].Err == nil {
		t.Fatalf("list: %+v %v", l, err)
	}
	_, rerr := Resolve(colour.DefaultColoring, dir, "s")
	for _, e := range []error{l[0].Err, rerr} {
		if msg := e.Error(); strings.Contains(msg, "root") || strings.Contains(msg, "20228") || strings.Contains(msg, "daemon") || !strings.Contains(msg, "s.txt: line 1") {
			t.Errorf("message quotes the file or misses its line: %q", msg)
		}
	}
}
