package export

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mandelscope/render/cpu"
)

// Issue 16, items 6 and 7 (export part): an output that is a folder, and a lock file that is
// not a plain file, are refused up front with a message that says so.

// An output path that is a folder (or a link to one) is refused before anything is
// done, with and without Overwrite or Resume, as "PATH is a folder, not a file"; nothing is
// created beside it or in it.
func TestOutputIsAFolder(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "d.png")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	paths := []string{folder}
	link := filepath.Join(dir, "l.png")
	if err := os.Symlink(folder, link); err == nil {
		paths = append(paths, link)
	} else {
		t.Logf("no symbolic links here: %v", err)
	}
	for _, path := range paths {
		for _, o := range []struct{ resume, force bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
			want := path + " is a folder, not a file"
			opt := relOpts()
			opt.Resume, opt.Overwrite = o.resume, o.force
			for what, err := range map[string]error{
				"Precheck": Precheck(path, o.resume, o.force),
				"Export":   second(Export(context.Background(), &cpu.Renderer{}, path, opt)),
			} {
				if !errors.Is(err, ErrIsFolder) || err.Error() != want {
					t.Errorf("%s(%s, resume %v, force %v) = %v, want ErrIsFolder %q", what, filepath.Base(path), o.resume, o.force, err, want)
				}
				noAdvice(t, err)
			}
		}
	}
	// Nothing was made: no .part, checkpoint or lock beside it, nothing in it.
	for _, p := range paths {
		for _, f := range []string{PartPath(p), CheckpointPath(p), LockPath(p)} {
			if _, err := os.Lstat(f); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s: %v, want none", filepath.Base(f), err)
			}
		}
	}
	if ents, _ := os.ReadDir(folder); len(ents) > 0 {
		t.Errorf("%d files made in the folder", len(ents))
	}

	// A .part or a checkpoint that is a folder is named the same way (a fresh export would
	// fail to remove it, a resume to read it).
	for _, name := range []func(string) string{PartPath, CheckpointPath} {
		path := filepath.Join(t.TempDir(), "p.png")
		if err := os.Mkdir(name(path), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, o := range []struct{ resume, force bool }{{false, true}, {true, false}, {true, true}} {
			opt := relOpts()
			opt.Resume, opt.Overwrite = o.resume, o.force
			want := name(path) + " is a folder, not a file"
			if err := Precheck(path, o.resume, o.force); !errors.Is(err, ErrIsFolder) || err.Error() != want {
				t.Errorf("Precheck with %s a folder (resume %v, force %v) = %v, want %q", filepath.Base(name(path)), o.resume, o.force, err, want)
			}
			if _, err := Export(context.Background(), &cpu.Renderer{}, path, opt); !errors.Is(err, ErrIsFolder) || err.Error() != want {
				t.Errorf("Export with %s a folder (resume %v, force %v) = %v, want %q", filepath.Base(name(path)), o.resume, o.force, err, want)
			}
		}
	}
}

// A folder that appears at the output during the export, with or without Overwrite,
// is said to be a folder (not "it appeared; replace it"), and the finished image is kept as
// the .part with its checkpoint, so that a resume publishes it once the folder is gone.
func TestFolderAppearsDuringExport(t *testing.T) {
	for _, force := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "a.png")
		opt := relOpts()
		opt.Overwrite = force
		opt.Progress = func(p Progress) {
			if p.Strip == 2 {
				os.Mkdir(path, 0o755)
			}
		}
		_, err := Export(context.Background(), &cpu.Renderer{}, path, opt)
		var ee *Error
		if !errors.Is(err, ErrIsFolder) || !errors.As(err, &ee) || !ee.Kept {
			t.Fatalf("force %v: %v, want ErrIsFolder with the image kept", force, err)
		}
		want := path + " is a folder, not a file (it appeared during the export); the finished image is kept as " + PartPath(path)
		if err.Error() != want {
			t.Errorf("force %v: %q, want %q", force, err, want)
		}
		noAdvice(t, err)
		if st, err := os.Stat(path); err != nil || !st.IsDir() {
			t.Fatalf("the folder: %v", err)
		}
		os.Remove(path)
		res := relOpts()
		res.Resume = true
		if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
			t.Fatalf("resume once the folder is gone: %v", err)
		}
		whole, _ := export(t, t.TempDir(), relOpts())
		sameFile(t, path, whole)
	}
}

// lockRefused checks that an export to path, and its Precheck, are refused (within a few
// seconds: a lock file must never be waited on) with ErrBadLock saying what is wrong, not
// that another export is running, and that the lock file is left as it was.
func lockRefused(t *testing.T, path, what string) {
	t.Helper()
	before, _ := os.Lstat(LockPath(path))
	want := LockPath(path) + " is " + what + ", not a lock file"
	opt := relOpts()
	for _, o := range []struct{ resume, force bool }{{false, false}, {false, true}} {
		opt.Resume, opt.Overwrite = o.resume, o.force
		done := make(chan [2]error, 1)
		go func() {
			done <- [2]error{Precheck(path, o.resume, o.force), second(Export(context.Background(), &cpu.Renderer{}, path, opt))}
		}()
		var errs [2]error
		select {
		case errs = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: the export waits on its lock file", what)
		}
		for i, err := range errs {
			if !errors.Is(err, ErrBadLock) || errors.Is(err, ErrBusy) || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("%s (%s, force %v): %v, want ErrBadLock %q", []string{"Precheck", "Export"}[i], what, o.force, err, want)
			}
			noAdvice(t, err)
		}
	}
	after, err := os.Lstat(LockPath(path))
	if err != nil || !os.SameFile(before, after) || before.Mode() != after.Mode() {
		t.Errorf("%s: the lock file changed: %v", what, err)
	}
	for _, f := range []string{path, PartPath(path), CheckpointPath(path)} {
		if _, err := os.Lstat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %s made", what, filepath.Base(f))
		}
	}
}

// A lock file that is a symbolic link (dangling, or to a file elsewhere) or a folder is
// refused as such, never taken for another export's lock, and never followed: the file a
// link names is neither made nor locked. A plain lock file left behind (no export holds it)
// does not stop an export.
func TestLockFileNotPlain(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(t.TempDir(), "target")
	path := filepath.Join(dir, "dangling.png")
	if err := os.Symlink(elsewhere, LockPath(path)); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	lockRefused(t, path, "a symbolic link")
	if _, err := os.Lstat(elsewhere); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dangling link's target was made: %v", err)
	}

	os.WriteFile(elsewhere, []byte("someone's file"), 0o644)
	path = filepath.Join(dir, "linked.png")
	os.Symlink(elsewhere, LockPath(path))
	lockRefused(t, path, "a symbolic link")
	if b := mustRead(t, elsewhere); string(b) != "someone's file" {
		t.Error("the linked file changed")
	}

	path = filepath.Join(dir, "folder.png")
	os.Mkdir(LockPath(path), 0o755)
	lockRefused(t, path, "a folder")

	// A plain lock file nobody holds is an old export's: taken, and removed when done.
	path = filepath.Join(dir, "stale.png")
	os.WriteFile(LockPath(path), nil, 0o644)
	if err := Precheck(path, false, false); err != nil {
		t.Errorf("Precheck with a stale lock file: %v", err)
	}
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, relOpts()); err != nil {
		t.Errorf("export with a stale lock file: %v", err)
	}
	if _, err := os.Lstat(LockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left: %v", err)
	}
}

func second[T any](_ T, err error) error { return err }
