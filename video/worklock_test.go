package video

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// gated computes as the CPU renderer does, but its first call says so on started and waits
// for release: the run that uses it is held in the middle of its keyframes.
type gated struct {
	once             sync.Once
	started, release chan struct{}
}

// Identity is the CPU renderer's, so that the keyframes are the same video's.
func (g *gated) Identity(f fractal.Frame) string { return (&cpu.Renderer{}).Identity(f) }

func newGated() *gated { return &gated{started: make(chan struct{}), release: make(chan struct{})} }

func (g *gated) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	g.once.Do(func() {
		close(g.started)
		<-g.release
	})
	return (&cpu.Renderer{}).Compute(ctx, f, rect, dst)
}

// TestWorkFolderLockedAgainstShards (issue 39: a shard started beside a whole-video run of the
// same output wrote the same keyframe temporary files, and the whole run failed renaming
// one): while a whole video is being made, a shard of the same output (of another palette,
// as in the report, or of the same options) is refused at once with one line naming the
// running video, and the running one finishes; while a shard runs, a whole-video run and an
// assembly are refused naming the shard, and a compatible shard runs beside it.
func TestWorkFolderLockedAgainstShards(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	base := qualityOptions(dir)
	base.FPS, base.Output, base.FramesDir = 6, filepath.Join(dir, "cv.mp4"), ""

	// A whole video running; shards beside it.
	g := newGated()
	done := make(chan error, 1)
	go func() {
		_, err := Make(context.Background(), g, base)
		done <- err
	}()
	<-g.started
	fire := base
	fire.Location.Color.Palette = "fire"
	same := base
	for _, o := range []Options{fire, same} {
		o.Shard, o.Shards = 1, 2
		_, err := Make(context.Background(), &cpu.Renderer{}, o)
		if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "making the whole video "+base.Output) ||
			!strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) || strings.Contains(err.Error(), "\n") {
			t.Errorf("a shard beside a whole-video run: %v", err)
		}
	}
	// Another whole-video run (--resume, as a person would try next) is refused as well.
	again := base
	again.Resume = true
	if _, err := Make(context.Background(), &cpu.Renderer{}, again); !errors.Is(err, ErrBusy) {
		t.Errorf("a second whole-video run: %v", err)
	}
	close(g.release)
	if err := <-done; err != nil {
		t.Fatalf("the whole-video run failed beside a refused shard: %v", err)
	}
	if _, err := os.Stat(base.Output); err != nil {
		t.Fatal(err)
	}

	// A shard running; a whole-video run, an assembly and a compatible shard beside it.
	out2 := filepath.Join(dir, "sh.mp4")
	s1 := base
	s1.Output, s1.Shard, s1.Shards = out2, 1, 2
	g = newGated()
	go func() {
		_, err := Make(context.Background(), g, s1)
		done <- err
	}()
	<-g.started
	whole := base
	whole.Output = out2
	for _, resume := range []bool{false, true} {
		whole.Resume = resume
		_, err := Make(context.Background(), &cpu.Renderer{}, whole)
		if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "shards of "+out2+" are running") || !strings.Contains(err.Error(), "shard 1 of 2") {
			t.Errorf("a whole-video run beside a shard (resume %v): %v", resume, err)
		}
	}
	if _, _, err := Assemble(context.Background(), &cpu.Renderer{}, out2, false, false, nil); !errors.Is(err, ErrBusy) {
		t.Errorf("an assembly beside a running shard: %v", err)
	}
	s0 := s1
	s0.Shard = 0
	if _, err := Make(context.Background(), &cpu.Renderer{}, s0); err != nil {
		t.Errorf("a compatible shard beside a running one: %v", err)
	}
	close(g.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(WorkDir(s1) + ".lock"); err == nil {
		t.Error("the work folder's lock file is left after the last shard")
	}
	if _, _, err := Assemble(context.Background(), &cpu.Renderer{}, out2, false, false, nil); err != nil {
		t.Fatalf("assembly after the shards: %v", err)
	}
}
