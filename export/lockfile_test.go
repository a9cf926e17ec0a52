package export

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/render/cpu"
)

// Issue 31, item 9: every export on Windows left FILE.png.lock beside its PNG (an open file
// cannot be removed there, and the lock file was removed while still open). On every system,
// an export (PNG, raw file, both), a resumed one, a refused one, a shard, an assembly and a
// recolour leave no lock file behind.
func TestNoLockFileLeft(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	r := &cpu.Renderer{}
	noLocks := func(what string) {
		t.Helper()
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), ".lock") {
				t.Errorf("%s left %s", what, e.Name())
			}
		}
	}

	png := filepath.Join(dir, "a.png")
	opt := relOpts()
	if _, err := Export(ctx, r, png, opt); err != nil {
		t.Fatal(err)
	}
	noLocks("an export")
	if _, err := Export(ctx, r, png, opt); err == nil {
		t.Fatal("a second export of an existing file was not refused")
	}
	noLocks("a refused export")

	raw := filepath.Join(dir, "b.exr")
	ro := relOpts()
	ro.Raw = raw
	if _, err := Export(ctx, r, filepath.Join(dir, "b.png"), ro); err != nil {
		t.Fatal(err)
	}
	noLocks("an export with a raw file")
	ro.Overwrite = true
	if _, err := Export(ctx, r, "", ro); err != nil {
		t.Fatal(err)
	}
	noLocks("a raw file alone")

	path := interrupted(t, dir, relOpts(), 2)
	noLocks("an interrupted export")
	resume := relOpts()
	resume.Resume = true
	if _, err := Export(ctx, r, path, resume); err != nil {
		t.Fatal(err)
	}
	noLocks("a resumed export")

	src, err := OpenRaw(raw)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	rc := relOpts()
	rc.Location = src.Location
	rc.Width, rc.Height, rc.Supersample = src.Width, src.Height, src.Supersample
	if _, err := Recolour(ctx, src, filepath.Join(dir, "c.png"), rc); err != nil {
		t.Fatal(err)
	}
	noLocks("a recolour")

	whole := filepath.Join(dir, "s.png")
	for i := range 2 {
		so := relOpts()
		so.Shard, so.Shards = i, 2
		if _, err := Export(ctx, r, whole, so); err != nil {
			t.Fatal(err)
		}
	}
	noLocks("the shards")
	if _, err := Assemble(ctx, whole, AssembleOptions{}); err != nil {
		t.Fatal(err)
	}
	noLocks("an assembly")
}
