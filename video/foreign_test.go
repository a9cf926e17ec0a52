package video

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/render/cpu"
)

// TestForeignKeyframe copies another video's first keyframe (same size, another view) over
// this video's last, and this video's keyframe 1 over its keyframe 2, then resumes: both are
// found, said to be another's, computed again, and every frame is the uninterrupted run's.
func TestForeignKeyframe(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, iter int) Options {
		o := qualityOptions(filepath.Join(dir, name))
		o.FPS, o.KeepWork = 9, true
		o.Location.Iterations = iter
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		return o
	}
	other, this := mk("other", 700), mk("this", 1000)
	for _, o := range []Options{other, this} {
		if _, err := Make(context.Background(), &cpu.Renderer{}, o); err != nil {
			t.Fatal(err)
		}
	}
	cp := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cp(filepath.Join(WorkDir(other), keyName(0)), filepath.Join(WorkDir(this), keyName(4)))
	cp(filepath.Join(WorkDir(this), keyName(1)), filepath.Join(WorkDir(this), keyName(2)))
	orig := filepath.Join(dir, "this", "orig")
	if err := os.Rename(this.FramesDir, orig); err != nil {
		t.Fatal(err)
	}
	again := this
	again.Resume, again.Force = true, true
	var notes []string
	again.Notice = func(m string) { notes = append(notes, m) }
	sum, err := Make(context.Background(), &cpu.Renderer{}, again)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Computed != 2 || sum.Reused != 4 { // of five rings keyframes and the centre
		t.Errorf("computed %d and reused %d keyframes, want 2 and 4", sum.Computed, sum.Reused)
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "key-0002.msk: keyframe of another video: it is keyframe 1 of this video, not 2; computing keyframe 2 again") ||
		!strings.Contains(notes[1], "key-0004.msk: keyframe of another video (its parameters' digest differs); computing keyframe 4 again") {
		t.Errorf("notices: %q", notes)
	}
	sameFiles(t, orig, again.FramesDir, 9)
	a, _ := os.ReadFile(filepath.Join(orig, "frame-000008.png"))
	b, _ := os.ReadFile(filepath.Join(again.FramesDir, "frame-000008.png"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("the last frame is not the end view's")
	}
}
