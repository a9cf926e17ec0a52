package video

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// TestFormulaManifestAndJob: the keyframes' manifest and the job file record a formula (each
// field only where not the default, so a Mandelbrot video's are what they were), a resume of
// another formula's keyframes is refused naming it, and the job file reads it back and
// refuses a bad one.
func TestFormulaManifestAndJob(t *testing.T) {
	ship := testLoc("8", 300)
	ship.Formula, _ = fractal.MakeFormula(fractal.BurningShip, 3)
	opt := Options{Location: testLoc("16", 500), Width: 64, Height: 36, FPS: 10, Duration: 1, FramesDir: filepath.Join(t.TempDir(), "f")}
	plan, err := opt.normalize()
	if err != nil {
		t.Fatal(err)
	}
	r := &cpu.Renderer{}
	m := newKeyframeSet(r, opt, plan).want
	if b, _ := json.Marshal(m); strings.Contains(string(b), "formula") || strings.Contains(string(b), "power") {
		t.Errorf("a Mandelbrot manifest: %s", b)
	}
	sopt := opt
	sopt.Location.Formula = ship.Formula
	s := newKeyframeSet(r, sopt, plan).want
	if s.Formula != "burning-ship" || s.Power != 3 || s.digest() == m.digest() {
		t.Errorf("the ship's manifest: %+v", s)
	}
	if d := m.diff(s); len(d) != 1 || d[0] != "formula was mandelbrot, now burning-ship power 3" {
		t.Errorf("diff: %q", d)
	}

	j := jobOf(Options{Location: ship, StartZoom: fractal.MustDecimal("1"), Width: 64, Height: 36, FPS: 10, Duration: 1, Shards: 2, Output: "/x/z.mp4"})
	back, err := j.options()
	if err != nil || back.Location.Formula != ship.Formula {
		t.Errorf("job file read back: %v, %v", back.Location.Formula, err)
	}
	for _, bad := range []struct {
		kind  string
		power int
		want  string
	}{{"ship", 0, `unknown formula "ship"`}, {"mandelbar", 9, "power 9 is out of range"}} {
		jb := j
		jb.Formula, jb.Power = bad.kind, bad.power
		if _, err := jb.options(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("formula %q power %d in the job file: %v", bad.kind, bad.power, err)
		}
	}

	// A resume of the Mandelbrot video's keyframes as the ship's: refused.
	dir := t.TempDir()
	mandel := Options{Location: testLoc("8", 300), Width: 32, Height: 18, FPS: 6, Duration: 1, KeepWork: true, FramesDir: filepath.Join(dir, "frames")}
	if _, err := Make(context.Background(), r, mandel); err != nil {
		t.Fatal(err)
	}
	wrong := mandel
	wrong.Location, wrong.Resume, wrong.Force = ship, true, true
	if _, err := Make(context.Background(), r, wrong); !errors.Is(err, ErrParamsDiffer) || !strings.Contains(err.Error(), "formula was mandelbrot, now burning-ship power 3") {
		t.Errorf("a Burning Ship resume of a Mandelbrot video: %v", err)
	}
	os.RemoveAll(dir)
}
