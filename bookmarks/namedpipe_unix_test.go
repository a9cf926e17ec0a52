//go:build unix

package bookmarks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"mandelscope/internal/fifotest"
)

// TestNamedPipes: a named pipe as the bookmarks file, as a file to import or as the file to
// export to is refused at once with one line naming it, and is never replaced.
func TestNamedPipes(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.json")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	good := tempPath(t)
	if err := Add(good, Bookmark{Name: "home", Location: home()}); err != nil {
		t.Fatal(err)
	}
	const reason = "it is not a regular file (a named pipe)"
	for _, c := range []struct {
		what string
		fn   func() error
		want string
	}{
		{"Load", func() error { _, err := Load(fifo); return err }, "cannot read bookmarks file " + fifo + ": " + reason},
		{"Add", func() error { return Add(fifo, Bookmark{Name: "x", Location: home()}) }, "cannot read bookmarks file " + fifo + ": " + reason},
		{"ReadImport", func() error { _, err := ReadImport(fifo); return err }, "cannot read " + fifo + ": " + reason},
		{"Import", func() error { _, err := Import(good, fifo); return err }, "cannot read " + fifo + ": " + reason},
		{"Export --force", func() error { _, err := Export(good, fifo, nil, true); return err }, "cannot write " + fifo + ": " + reason},
		{"Export", func() error { _, err := Export(good, fifo, nil, false); return err }, fifo + " already exists; it was not overwritten"},
	} {
		if err := fifotest.Prompt(t, fifo, c.fn); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.what, err, c.want)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v", err)
	}
	// The .kfr import: a named pipe with the extension is refused just as promptly.
	kfr := filepath.Join(dir, "place.kfr")
	unix.Mkfifo(kfr, 0o644)
	if err := fifotest.Prompt(t, kfr, func() error { _, err := ReadImport(kfr); return err }); err == nil || !strings.HasSuffix(err.Error(), reason) {
		t.Errorf("ReadImport(.kfr pipe): %v", err)
	}
}

// TestNewFilesFollowUmask: a new bookmarks file and an exported one are 0644 less the umask
// (an export was chmod 0644 whatever the umask); a file that exists keeps its mode.
func TestNewFilesFollowUmask(t *testing.T) {
	path := tempPath(t)
	dst := filepath.Join(t.TempDir(), "out.json")
	old := unix.Umask(0o027)
	err := Add(path, Bookmark{Name: "home", Location: home()})
	var n int
	if err == nil {
		n, err = Export(path, dst, nil, false)
	}
	unix.Umask(old)
	if err != nil || n != 1 {
		t.Fatal(n, err)
	}
	for _, p := range []string{path, dst} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v %v, want 0640 under umask 027", p, st.Mode().Perm(), err)
		}
	}
	os.Chmod(path, 0o600)
	if err := Add(path, Bookmark{Name: "two", Location: home()}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".bak"} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v %v, want the file's 0600 kept", p, st.Mode().Perm(), err)
		}
	}
}
