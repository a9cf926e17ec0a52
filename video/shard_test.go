package video

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// A video's keyframes computed by shards (run in turn, one of them twice) and assembled: the
// same decoded frames as one process's video; an assembly before every shard has finished
// names the missing keyframes and their shard and encodes nothing; a shard of another video
// is refused.
func TestShards(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	mk := func(name string) Options {
		o := qualityOptions(filepath.Join(dir, name))
		o.FPS, o.Output, o.FramesDir = 12, filepath.Join(dir, name, "zoom.mp4"), ""
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		return o
	}
	whole := mk("whole")
	if _, err := Make(context.Background(), &cpu.Renderer{}, whole); err != nil {
		t.Fatal(err)
	}
	sh := mk("sharded")
	shard := func(i int) Summary {
		t.Helper()
		o := sh
		o.Shard, o.Shards = i, 2
		if err := Check(o); err != nil {
			t.Fatal(err)
		}
		sum, err := Make(context.Background(), &cpu.Renderer{}, o)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	if s := shard(0); s.Computed != 3 || s.Reused != 0 {
		t.Errorf("shard 0: computed %d, reused %d; want 3 and 0 (keyframes 0, 2, 4 of 6: five rings and the centre)", s.Computed, s.Reused)
	}
	if _, err := os.Stat(sh.Output); !os.IsNotExist(err) {
		t.Error("a shard wrote the video")
	}
	_, _, err := Assemble(context.Background(), &cpu.Renderer{}, sh.Output, false, false, nil)
	if !errors.Is(err, ErrShards) || !strings.Contains(err.Error(), "shard 1 of 2 (not finished): keyframes 1, 3, 5") || strings.Contains(err.Error(), "\n") {
		t.Errorf("assembling with shard 1 missing: %v", err)
	}
	for _, p := range []string{sh.Output, filepath.Join(WorkDir(sh), encodingDir)} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after a refused assembly", p)
		}
	}
	// Another video's shard into the same work folder: refused, naming what differs.
	other := sh
	other.Location.Iterations = 999
	other.Shard, other.Shards = 1, 2
	if _, err := Make(context.Background(), &cpu.Renderer{}, other); !errors.Is(err, ErrParamsDiffer) || !strings.Contains(err.Error(), "iterations was 1000, now 999") {
		t.Errorf("a shard of another video: %v", err)
	}
	shard(1)
	if s := shard(0); s.Computed != 0 || s.Reused != 3 {
		t.Errorf("shard 0 run again: computed %d, reused %d; want 0 and 3", s.Computed, s.Reused)
	}
	sum, opt, err := Assemble(context.Background(), &cpu.Renderer{}, sh.Output, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Computed != 0 || sum.Reused != 6 || opt.FPS != 12 {
		t.Errorf("assembly: computed %d, reused %d, fps %d", sum.Computed, sum.Reused, opt.FPS)
	}
	da, db := decode(t, whole.Output, 64, 36), decode(t, sh.Output, 64, 36)
	if len(da) != 12 || len(db) != 12 {
		t.Fatalf("frames: %d and %d, want 12", len(da), len(db))
	}
	for k := range da {
		if !bytes.Equal(da[k].Pix, db[k].Pix) {
			t.Errorf("decoded frame %d differs between the assembled and the one-process video", k)
		}
	}
	if _, err := os.Stat(WorkDir(sh)); !os.IsNotExist(err) {
		ents, _ := os.ReadDir(WorkDir(sh))
		t.Errorf("the work folder is left after the assembly: %v", ents)
	}
	// Assembling again: the video exists.
	if _, _, err := Assemble(context.Background(), &cpu.Renderer{}, sh.Output, false, false, nil); !errors.Is(err, ErrShards) {
		t.Errorf("assembling again without a work folder: %v", err)
	}
}

// Two runs of one shard at once take turns: the second waits for the first's lock.
func TestShardLockWaits(t *testing.T) {
	defer func(d time.Duration) { shardLockPoll = d }(shardLockPoll)
	shardLockPoll = 10 * time.Millisecond
	work := filepath.Join(t.TempDir(), "v.mp4.work")
	lk, lp, err := lockShard(context.Background(), work, 1, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan string, 1)
	got := make(chan error, 1)
	go func() {
		l2, _, err := lockShard(context.Background(), work, 1, 3, func(p string) { waiting <- p })
		if err == nil {
			l2.Unlock()
		}
		got <- err
	}()
	if p := <-waiting; p != lp {
		t.Errorf("waiting for %s, want %s", p, lp)
	}
	lk.Unlock()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// Cancelled while waiting: an interrupt.
	lk, _, _ = lockShard(context.Background(), work, 1, 3, nil)
	defer lk.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := lockShard(ctx, work, 1, 3, nil); !errors.Is(err, ErrInterrupted) {
		t.Errorf("cancelled while waiting: %v", err)
	}
}

// A deep video's shards compute the deepest keyframe's reference orbit once: the first keeps
// it in the work folder, the others read it; the video is one process's.
func TestShardsShareTheReference(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	mk := func(name string) Options {
		o := Options{Location: testLoc("1e16", 2000), StartZoom: fractal.MustDecimal("1e15"), Width: 32, Height: 18, FPS: 8, Duration: 1,
			Output: filepath.Join(dir, name, "deep.mp4")}
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		return o
	}
	whole := mk("whole")
	if s, err := Make(context.Background(), &cpu.Renderer{}, whole); err != nil || s.References != 1 {
		t.Fatalf("one process: %d orbits, %v", s.References, err)
	}
	sh := mk("sharded")
	for i := range 3 {
		o := sh
		o.Shard, o.Shards = i, 3
		s, err := Make(context.Background(), &cpu.Renderer{}, o)
		if err != nil {
			t.Fatal(err)
		}
		if (i == 0) != (s.References == 1) || (i > 0) != s.ReferenceRead {
			t.Errorf("shard %d: computed %d orbits, read one: %v", i, s.References, s.ReferenceRead)
		}
	}
	if _, err := os.Stat(filepath.Join(WorkDir(sh), referenceName)); err != nil {
		t.Fatalf("no kept orbit: %v", err)
	}
	if _, _, err := Assemble(context.Background(), &cpu.Renderer{}, sh.Output, false, false, nil); err != nil {
		t.Fatal(err)
	}
	da, db := decode(t, whole.Output, 32, 18), decode(t, sh.Output, 32, 18)
	if len(da) != 8 || len(da) != len(db) {
		t.Fatalf("frames: %d and %d", len(da), len(db))
	}
	for k := range da {
		if !bytes.Equal(da[k].Pix, db[k].Pix) {
			t.Errorf("decoded frame %d differs", k)
		}
	}
	if _, err := os.Stat(WorkDir(sh)); !os.IsNotExist(err) {
		t.Error("the work folder is left after the assembly")
	}
}
