package video

import (
	"context"
	"math"
	"testing"

	"mandelscope/render/cpu"
)

// TestProgressFraction: the fraction a video reports never goes back, ends at 1, and grows
// through the frames in proportion to the frames composed from where the keyframes left it;
// in the window run (41 keyframes at 1280x720 for 600 frames at 640x360) frame 110
// is well short of half the work, where the bar said 91%.
func TestProgressFraction(t *testing.T) {
	var ps []Progress
	opt := qualityOptions(t.TempDir())
	opt.FPS = 9
	opt.Progress = func(p Progress) { ps = append(ps, p) }
	if _, err := Make(context.Background(), &cpu.Renderer{}, opt); err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 || ps[len(ps)-1].Fraction != 1 {
		t.Fatalf("progress %v: want it to end at 1", ps)
	}
	start := -1.0 // the fraction when the frames begin
	for i, p := range ps {
		if i > 0 && p.Fraction < ps[i-1].Fraction {
			t.Errorf("progress went back: %+v after %+v", p, ps[i-1])
		}
		if p.Phase == "keyframes" {
			start = p.Fraction
			continue
		}
		if want := start + (1-start)*float64(p.Done)/float64(p.Total); math.Abs(p.Fraction-want) > 1e-9 {
			t.Errorf("%+v: fraction %.4f, want %.4f (the frames' share in proportion)", p, p.Fraction, want)
		}
	}
	if !(start > 0 && start < 1) {
		t.Errorf("fraction after the keyframes %.3f: want it strictly between 0 and 1", start)
	}
	var got Progress
	report := withFraction(func(p Progress) { got = p }, 41, 1280, 720, 600, 640, 360, 2)
	report(Progress{Phase: "frames", Done: 110, Total: 600})
	if got.Fraction > 0.5 || got.Fraction < 110.0/600 {
		t.Errorf("frame 110 of 600 after 41 keyframes: %.0f%%, want between 18%% and 50%%", 100*got.Fraction)
	}
	t.Logf("frame 110 of 600 after 41 keyframes of 1280x720: %.0f%%", 100*got.Fraction)
}
