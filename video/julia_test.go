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

// juliaOf is loc as a view of the Julia set of c (centre and zoom kept).
func juliaOf(loc fractal.Location, c string) fractal.Location {
	j, err := fractal.ParseJulia(c)
	if err != nil {
		panic(err)
	}
	loc.Julia = j
	return loc
}

// TestJuliaManifest: the keyframes' manifest records a Julia set's parameter, so that the
// digest each keyframe carries differs from the Mandelbrot video's of the same centre and from
// another parameter's; a Mandelbrot manifest has no julia field (its digest is what it was
// before Julia sets, so that kept work folders resume).
func TestJuliaManifest(t *testing.T) {
	opt := Options{Location: testLoc("16", 500), Width: 64, Height: 36, FPS: 10, Duration: 1, FramesDir: filepath.Join(t.TempDir(), "f")}
	plan, err := opt.normalize()
	if err != nil {
		t.Fatal(err)
	}
	r := &cpu.Renderer{}
	m := newKeyframeSet(r, opt, plan).want
	b, _ := json.Marshal(m)
	if strings.Contains(string(b), "julia") {
		t.Errorf("a Mandelbrot manifest: %s", b)
	}
	c := "-0.12256116687665361237" + strings.Repeat("3", 300)
	jopt := opt
	jopt.Location = juliaOf(opt.Location, c+",0.744861766619744")
	j := newKeyframeSet(r, jopt, plan).want
	if j.Julia != c+",0.744861766619744" {
		t.Errorf("the manifest's parameter: %q", j.Julia)
	}
	kopt := opt
	kopt.Location = juliaOf(opt.Location, c+",0.7448617666197441")
	k := newKeyframeSet(r, kopt, plan).want
	if m.digest() == j.digest() || j.digest() == k.digest() {
		t.Error("the Julia video's keyframe digest is another video's")
	}
	if d := m.diff(j); len(d) != 1 || !strings.Contains(d[0], "julia parameter was none (the Mandelbrot set), now "+c) {
		t.Errorf("diff: %q", d)
	}
}

// TestJuliaVideoResume: a Julia video does not resume from a Mandelbrot video's keyframes
// of the same centre (refused, naming the parameter), and a Mandelbrot keyframe copied
// into a Julia video's work folder is found to be another video's and computed again.
func TestJuliaVideoResume(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, loc fractal.Location) Options {
		o := Options{Location: loc, Width: 32, Height: 18, FPS: 6, Duration: 1, KeepWork: true,
			FramesDir: filepath.Join(dir, name, "frames")}
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		return o
	}
	mandel := mk("mandel", testLoc("8", 300))
	julia := mk("julia", juliaOf(testLoc("8", 300), "-0.8,0.156"))
	for _, o := range []Options{mandel, julia} {
		if _, err := Make(context.Background(), &cpu.Renderer{}, o); err != nil {
			t.Fatal(err)
		}
	}
	// The Julia view resumed from the Mandelbrot video's work folder: refused.
	wrong := julia
	wrong.FramesDir, wrong.Resume, wrong.Force = mandel.FramesDir, true, true
	if _, err := Make(context.Background(), &cpu.Renderer{}, wrong); !errors.Is(err, ErrParamsDiffer) || !strings.Contains(err.Error(), "julia parameter was none (the Mandelbrot set), now -0.8,0.156") {
		t.Errorf("a Julia resume of a Mandelbrot video: %v", err)
	}
	// A Mandelbrot keyframe in the Julia video's folder: another video's.
	b, err := os.ReadFile(filepath.Join(WorkDir(mandel), keyName(1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(WorkDir(julia), keyName(1)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	again := julia
	again.Resume, again.Force = true, true
	var notes []string
	again.Notice = func(m string) { notes = append(notes, m) }
	sum, err := Make(context.Background(), &cpu.Renderer{}, again)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Computed != 1 || len(notes) != 1 || !strings.Contains(notes[0], "its parameters' digest differs") {
		t.Errorf("computed %d keyframes; notices %q", sum.Computed, notes)
	}
}

// TestJuliaJobFile: a sharded video's job file (video.json) records the parameter, every
// digit, and reads it back; a bad one is refused.
func TestJuliaJobFile(t *testing.T) {
	c := "0.285" + strings.Repeat("7", 300) + ",0.01"
	opt := Options{Location: juliaOf(testLoc("16", 500), c), StartZoom: fractal.MustDecimal("1"), Width: 64, Height: 36,
		FPS: 10, Duration: 1, Shards: 2, Output: "/x/zoom.mp4"}
	j := jobOf(opt)
	if j.Julia != c {
		t.Fatalf("job file's parameter: %q", j.Julia)
	}
	back, err := j.options()
	if err != nil || back.Location != opt.Location {
		t.Errorf("job file read back: %v, %v; want %v", back.Location, err, opt.Location)
	}
	if b, _ := json.Marshal(jobOf(Options{Location: testLoc("16", 500)})); strings.Contains(string(b), "julia") {
		t.Errorf("a Mandelbrot job file: %s", b)
	}
	for _, bad := range []string{"9,0", "1", "x,y"} {
		j.Julia = bad
		if _, err := j.options(); err == nil || !strings.Contains(err.Error(), "julia parameter") {
			t.Errorf("julia %q in the job file: %v", bad, err)
		}
	}
	if d := jobDiff(jobOf(Options{Location: testLoc("16", 500)}), jobOf(opt)); !strings.Contains(d, "julia parameter was none (the Mandelbrot set), now "+c) {
		t.Errorf("job diff: %q", d)
	}
}
