//go:build unix

package video

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/render/cpu"
)

// copyWork copies the regular files of work folder src into a new folder dst.
func copyWork(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNoWritesThroughLinks plants, in turn, a symbolic link to a victim file at each name a
// video writes in its work folder or frames folder (a keyframe's scratch file, a keyframe's
// temporary file, the manifest's, a PNG frame's, an encoded segment's, the folder the
// encoder writes in), resumes the video from a copy of a finished one's kept work folder,
// and checks that the victim is untouched and the video made. The same for an assembly of
// shards whose shared work folder holds such a link.
func TestNoWritesThroughLinks(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	base := qualityOptions(dir)
	base.FPS, base.Duration = 4, 2
	base.Output, base.KeepWork = filepath.Join(dir, "base.mp4"), true
	if _, err := Make(context.Background(), &cpu.Renderer{}, base); err != nil {
		t.Fatal(err)
	}
	const precious = "the user's own file\n"
	for i, c := range []struct {
		name   string // the planted link, in the work folder or (frames/...) the frames folder
		remove string // a file of the copied work folder removed first ("": none)
		force  bool   // Force without Resume: the work folder is made anew
	}{
		{name: "key-0002.raw"},
		{name: "key-0003.msk.tmp", remove: "key-0003.msk"},
		{name: "manifest.json.tmp", force: true},
		{name: "frames/frame-000004.png.tmp"},
		{name: "frames/frame-000005.png"},
		{name: "seg-000000-*.mp4"}, // a kept segment replaced by a link
		{name: encodingDir},
	} {
		t.Run(filepath.Base(c.name), func(t *testing.T) {
			sub := filepath.Join(dir, "run", string(rune('a'+i)))
			os.MkdirAll(sub, 0o755)
			victim := filepath.Join(sub, "victim.txt")
			os.WriteFile(victim, []byte(precious), 0o644)
			opt := base
			opt.Output, opt.FramesDir, opt.KeepWork = filepath.Join(sub, "s.mp4"), filepath.Join(sub, "frames"), false
			copyWork(t, WorkDir(base), WorkDir(opt))
			os.Mkdir(opt.FramesDir, 0o755)
			if c.remove != "" {
				os.Remove(filepath.Join(WorkDir(opt), c.remove))
			}
			at := filepath.Join(WorkDir(opt), c.name)
			if filepath.Dir(c.name) == "frames" {
				at = filepath.Join(sub, c.name)
			}
			if m, _ := filepath.Glob(at); strings.Contains(c.name, "*") {
				if len(m) != 1 {
					t.Fatalf("%s: %v", c.name, m)
				}
				at = m[0]
				os.Remove(at)
			}
			if err := os.Symlink(victim, at); err != nil {
				t.Fatal(err)
			}
			opt.Resume, opt.Force = !c.force, c.force
			if _, err := Make(context.Background(), &cpu.Renderer{}, opt); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(victim); err != nil || string(b) != precious {
				t.Errorf("the victim behind %s holds %d bytes (%v), not its own", c.name, len(b), err)
			}
			if n, w, h := probe(t, opt.Output); n != 8 || w != 64 || h != 36 {
				t.Errorf("%d frames of %dx%d, want 8 of 64x36", n, w, h)
			}
		})
	}
	t.Run("assemble", func(t *testing.T) {
		sub := filepath.Join(dir, "shards")
		os.MkdirAll(sub, 0o755)
		victim := filepath.Join(sub, "victim.txt")
		os.WriteFile(victim, []byte(precious), 0o644)
		opt := base
		opt.Output, opt.FramesDir, opt.KeepWork = filepath.Join(sub, "s.mp4"), "", false
		for i := range 2 {
			o := opt
			o.Shard, o.Shards = i, 2
			if _, err := Make(context.Background(), &cpu.Renderer{}, o); err != nil {
				t.Fatal(err)
			}
		}
		for _, n := range []string{"key-0001.raw", "key-0002.raw", encodingDir} {
			if err := os.Symlink(victim, filepath.Join(WorkDir(opt), n)); err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := Assemble(context.Background(), &cpu.Renderer{}, opt.Output, false, false, nil); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(victim); err != nil || string(b) != precious {
			t.Errorf("the victim holds %d bytes (%v), not its own", len(b), err)
		}
	})
}

// TestLockFileLink: a link planted at a video's lock file, or a shard's, is refused in one
// line, and what it points to is neither opened nor made.
func TestLockFileLink(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "made-by-the-lock")
	video := qualityOptions(dir)
	shard := video
	shard.Output, shard.FramesDir, shard.Shards = filepath.Join(dir, "s.mp4"), "", 2
	for _, c := range []struct {
		opt  Options
		lock string
	}{{video, WorkDir(video) + ".lock"}, {shard, WorkDir(shard) + ".shard-0-of-2.lock"}} {
		if err := os.Symlink(missing, c.lock); err != nil {
			t.Fatal(err)
		}
		_, err := Make(context.Background(), &cpu.Renderer{}, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.lock+" is a symbolic link, not a lock file") || strings.Contains(err.Error(), "\n") {
			t.Errorf("a link at %s: %v", filepath.Base(c.lock), err)
		}
		if _, err := os.Lstat(missing); !os.IsNotExist(err) {
			t.Errorf("the lock made the file its link names: %v", err)
		}
	}
}
