package video

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/render/cpu"
)

// TestSegmentsResume cancels a video among its frames, in its third segment of five, damages
// the second segment kept, and resumes: the first is reused, the second (said to be damaged)
// and the rest are composed and encoded again, and the video's decoded frames are the
// uninterrupted run's, frame for frame.
func TestSegmentsResume(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	mk := func(name string) Options {
		o := qualityOptions(filepath.Join(dir, name))
		o.FPS, o.Duration, o.FramesDir, o.Output, o.segFrames = 12, 2, "", filepath.Join(dir, name+".mp4"), 5
		return o
	}
	whole := mk("whole")
	sum, err := Make(context.Background(), &cpu.Renderer{}, whole)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Segments != 5 || sum.SegmentsReused != 0 || sum.Composed != 24 {
		t.Errorf("uninterrupted: %d segments, %d reused, %d frames composed; want 5, 0, 24", sum.Segments, sum.SegmentsReused, sum.Composed)
	}
	cut := mk("cut")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cut.Progress = func(p Progress) {
		if p.Phase == "frames" && p.Done == 13 {
			cancel()
		}
	}
	_, err = Make(ctx, &cpu.Renderer{}, cut)
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "2 encoded segments") {
		t.Fatalf("interrupted: %v, want ErrInterrupted keeping 2 segments", err)
	}
	segs, _ := filepath.Glob(filepath.Join(WorkDir(cut), "seg-*.mp4"))
	if len(segs) != 2 {
		t.Fatalf("segments kept: %v", segs)
	}
	if _, err := os.Stat(filepath.Join(WorkDir(cut), encodingDir)); !os.IsNotExist(err) {
		t.Errorf("the encoding folder is left: %v", err)
	}
	b, _ := os.ReadFile(segs[1])
	os.WriteFile(segs[1], b[:len(b)/2], 0o644)
	cut.Progress, cut.Resume = nil, true
	var notes []string
	cut.Notice = func(m string) { notes = append(notes, m) }
	sum, err = Make(context.Background(), &cpu.Renderer{}, cut)
	if err != nil {
		t.Fatal(err)
	}
	if sum.SegmentsReused != 1 || sum.Composed != 19 || sum.Computed != 0 {
		t.Errorf("resume: %d segments reused, %d frames composed, %d keyframes computed; want 1, 19, 0", sum.SegmentsReused, sum.Composed, sum.Computed)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "its bytes do not hold") || !strings.Contains(notes[0], "encoding segment 1 again") {
		t.Errorf("notices: %q", notes)
	}
	da, db := decode(t, whole.Output, 64, 36), decode(t, cut.Output, 64, 36)
	if len(da) != 24 || len(db) != 24 {
		t.Fatalf("%d and %d frames, want 24", len(da), len(db))
	}
	for k := range da {
		if !bytes.Equal(da[k].Pix, db[k].Pix) {
			t.Errorf("decoded frame %d differs between the resumed and the uninterrupted video", k)
		}
	}
	if _, err := os.Stat(WorkDir(cut)); !os.IsNotExist(err) {
		t.Errorf("the work folder is left after the video: %v", err)
	}
	// The segments of other parameters (another frame rate) are not reused.
	keep := mk("keep")
	keep.KeepWork = true
	if _, err := Make(context.Background(), &cpu.Renderer{}, keep); err != nil {
		t.Fatal(err)
	}
	keep.Resume, keep.Force, keep.FPS = true, true, 10
	if sum, err := Make(context.Background(), &cpu.Renderer{}, keep); err != nil || sum.SegmentsReused != 0 || sum.Composed != 20 {
		t.Errorf("another frame rate: %v, %d segments reused, %d composed; want 0 and 20", err, sum.SegmentsReused, sum.Composed)
	}
	if n, _, _ := probe(t, keep.Output); n != 20 {
		t.Errorf("%d frames at 10 fps, want 20", n)
	}
}
