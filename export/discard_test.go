package export

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Discard removes an interrupted export's .part files and checkpoint (the PNG's and the raw
// file's), and nothing else: not a file of the user's beside them, not a link at a .part's
// name (nor what it points to); it refuses while an export of the file holds its lock,
// removing nothing; a second call finds nothing left.
func TestDiscard(t *testing.T) {
	dir := t.TempDir()
	opt := relOpts()
	opt.Raw = filepath.Join(dir, "r.exr")
	path := interrupted(t, dir, opt, 3)
	want := []string{CheckpointPath(path), PartPath(path), PartPath(opt.Raw)}
	for _, f := range want {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("the interrupted export left no %s: %v", f, err)
		}
	}
	mine := filepath.Join(dir, "r.png.part.notes") // the user's, beside them
	os.WriteFile(mine, []byte("mine"), 0o644)

	lock, err := lockTarget(path) // an export of the file is running
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Discard(path, opt.Raw); !errors.Is(err, ErrBusy) || len(got) != 0 {
		t.Fatalf("Discard while the file is locked: removed %v, err %v; want ErrBusy", got, err)
	}
	lock.release()
	for _, f := range want {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("a refused Discard removed %s", f)
		}
	}

	got, err := Discard(path, opt.Raw)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("removed %v, want %v", got, want)
	}
	for _, f := range want {
		if _, err := os.Lstat(f); err == nil {
			t.Errorf("%s is still there", f)
		}
	}
	if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" {
		t.Errorf("the user's file beside them: %q, %v", b, err)
	}
	if _, err := os.Lstat(LockPath(path)); err == nil {
		t.Error("Discard left its lock file")
	}
	if got, err := Discard(path, opt.Raw); err != nil || len(got) != 0 {
		t.Errorf("a second Discard: removed %v, err %v", got, err)
	}

	// A link at the .part's name is not the export's: it stays, and so does its target.
	target := filepath.Join(dir, "precious.png")
	os.WriteFile(target, []byte("precious"), 0o644)
	if err := os.Symlink(target, PartPath(path)); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if got, err := Discard(path, ""); err != nil || len(got) != 0 {
		t.Errorf("Discard with a link at the .part: removed %v, err %v", got, err)
	}
	if b, err := os.ReadFile(PartPath(path)); err != nil || string(b) != "precious" {
		t.Errorf("the link or its target changed: %q, %v", b, err)
	}
}
