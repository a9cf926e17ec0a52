package video

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gofrs/flock"

	"mandelscope/render/cpu"
)

// Discard removes an interrupted video's work folder: refused while the folder is locked (a
// video being made), removing nothing; afterwards the folder is gone. A file of the user's
// put in the folder stays, and so does the folder, holding it.
func TestDiscard(t *testing.T) {
	for _, userFile := range []bool{false, true} {
		dir := t.TempDir()
		opt := qualityOptions(dir)
		ctx, cancel := context.WithCancel(context.Background())
		opt.Progress = func(p Progress) {
			if p.Phase == "keyframes" && p.Done == 2 {
				cancel()
			}
		}
		_, err := Make(ctx, &cpu.Renderer{}, opt)
		cancel()
		if !errors.Is(err, ErrInterrupted) {
			t.Fatalf("cancelled video: %v, want ErrInterrupted", err)
		}
		work := WorkDir(opt)
		keys, _ := filepath.Glob(filepath.Join(work, "key-*"))
		if len(keys) == 0 {
			t.Fatalf("the interrupted video kept no keyframes in %s", work)
		}
		mine := filepath.Join(work, "notes.txt")
		if userFile {
			os.WriteFile(mine, []byte("mine"), 0o644)
		}

		lk := flock.New(work + ".lock") // a video being made holds it
		if ok, err := lk.TryLock(); !ok || err != nil {
			t.Fatalf("lock: %v, %v", ok, err)
		}
		if kept, err := Discard(opt); !errors.Is(err, ErrBusy) || !kept {
			t.Fatalf("Discard while locked: kept %v, err %v; want ErrBusy", kept, err)
		}
		lk.Unlock()
		os.Remove(work + ".lock")
		if k, _ := filepath.Glob(filepath.Join(work, "key-*")); len(k) != len(keys) {
			t.Fatalf("a refused Discard removed keyframes: %d of %d left", len(k), len(keys))
		}

		kept, err := Discard(opt)
		if err != nil {
			t.Fatal(err)
		}
		if k, _ := filepath.Glob(filepath.Join(work, "key-*")); len(k) != 0 {
			t.Errorf("keyframes left: %v", k)
		}
		if _, err := os.Lstat(work + ".lock"); err == nil {
			t.Error("Discard left the lock file")
		}
		if !userFile {
			if _, err := os.Lstat(work); err == nil || kept {
				t.Errorf("the work folder is still there (kept %v)", kept)
			}
			continue
		}
		if b, err := os.ReadFile(mine); err != nil || string(b) != "mine" || !kept {
			t.Errorf("the user's file in the work folder: %q, %v; kept %v", b, err, kept)
		}
	}
}
