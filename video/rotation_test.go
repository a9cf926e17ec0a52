package video

import (
	"context"
	"encoding/json"
	"image"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/internal/videotest"
	"mandelscope/render/cpu"
)

// TestRotationManifestAndJob: the keyframes' manifest and the job file record a rotated view's
// angle (only where it is not 0: an unrotated video's are what they were), a resume of another
// angle's keyframes is named, the job file reads it back, and an angle out of range in a job
// file is refused.
func TestRotationManifestAndJob(t *testing.T) {
	opt := Options{Location: testLoc("16", 500), Width: 64, Height: 36, FPS: 10, Duration: 1, FramesDir: filepath.Join(t.TempDir(), "f")}
	plan, err := opt.normalize()
	if err != nil {
		t.Fatal(err)
	}
	r := &cpu.Renderer{}
	m := newKeyframeSet(r, opt, plan).want
	if b, _ := json.Marshal(m); strings.Contains(string(b), "rotation") {
		t.Errorf("an unrotated manifest: %s", b)
	}
	ropt := opt
	ropt.Location.Rotation = 30
	s := newKeyframeSet(r, ropt, plan).want
	if s.Rotation != 30 || s.digest() == m.digest() {
		t.Errorf("the rotated manifest: %+v", s)
	}
	if d := m.diff(s); len(d) != 1 || d[0] != "rotation was 0, now 30" {
		t.Errorf("diff: %q", d)
	}
	loc := testLoc("8", 300)
	loc.Rotation = -45.5
	j := jobOf(Options{Location: loc, StartZoom: fractal.MustDecimal("1"), Width: 64, Height: 36, FPS: 10, Duration: 1, Shards: 2, Output: "/x/z.mp4"})
	if b, _ := json.Marshal(jobOf(Options{Location: testLoc("8", 300), StartZoom: fractal.MustDecimal("1"), Width: 64, Height: 36, FPS: 10, Duration: 1, Shards: 2, Output: "/x/z.mp4"})); strings.Contains(string(b), "rotation") {
		t.Errorf("an unrotated job file: %s", b)
	}
	back, err := j.options()
	if err != nil || back.Location.Rotation != -45.5 {
		t.Errorf("job file read back: %v, %v", back.Location.Rotation, err)
	}
	if d := jobDiff(jobOf(Options{Location: testLoc("8", 300), Output: "z.mp4"}), jobOf(Options{Location: loc, Output: "z.mp4"})); !strings.Contains(d, "rotation was 0, now -45.5") {
		t.Errorf("jobDiff: %q", d)
	}
	bad := j
	bad.Rotation = 200
	if o, err := bad.options(); err == nil {
		o.FramesDir = filepath.Join(t.TempDir(), "f")
		if _, err = o.normalize(); err == nil || !strings.Contains(err.Error(), "rotation 200 is out of range") {
			t.Errorf("rotation 200 in a job file: %v", err)
		}
	}
}

// TestRotatedVideo: a square video of a view turned by 90 degrees: with flat keyframes, frame
// for frame the unrotated video's frames turned (the keyframes are rendered turned and
// composed about the centre as ever); with rings keyframes, every frame as close to the direct
// render of its turned view as the unrotated video's frames are to theirs.
func TestRotatedVideo(t *testing.T) {
	r := &cpu.Renderer{}
	const frames = 4
	for _, layout := range []string{LayoutFlat, LayoutRings} {
		dir := t.TempDir()
		loc := func(rot float64) fractal.Location {
			l := testLoc("16", 300)
			l.Rotation = rot
			return l
		}
		make := func(name string, rot float64) string {
			opt := Options{Location: loc(rot), Width: 24, Height: 24, FPS: frames, Duration: 1, Layout: layout,
				FramesDir: filepath.Join(dir, name)}
			if _, err := Make(context.Background(), r, opt); err != nil {
				t.Fatal(err)
			}
			return opt.FramesDir
		}
		plain, turned := make("plain", 0), make("turned", 90)
		plan, err := NewPlan(fractal.MustDecimal("1"), loc(0).Zoom, frames)
		if err != nil {
			t.Fatal(err)
		}
		for k := range frames {
			a, b := frame(t, plain, k), frame(t, turned, k)
			if layout == LayoutFlat {
				if agree, at := imagetest.Agreement(b, quarterTurn(a), 2); agree < 0.99 {
					t.Errorf("flat frame %d: %.3f of pixels agree with the unrotated frame turned (first off at %v)", k, agree, at)
				}
				continue
			}
			pa := videotest.PSNR(videotest.Blur3(direct(t, loc(0), plan.FrameZoom(k), 24, 24, 2)), videotest.Blur3(a))
			pb := videotest.PSNR(videotest.Blur3(direct(t, loc(90), plan.FrameZoom(k), 24, 24, 2)), videotest.Blur3(b))
			t.Logf("rings frame %d: PSNR (3x3 blur) against the direct render %.1f dB unrotated, %.1f dB turned", k, pa, pb)
			if pb < min(pa-3, 30) {
				t.Errorf("rings frame %d: %.1f dB from the direct render of the turned view (unrotated: %.1f dB)", k, pb, pa)
			}
		}
	}
}

// quarterTurn is img (n x n) turned counter-clockwise by 90 degrees.
func quarterTurn(img *image.RGBA) *image.RGBA {
	n := img.Rect.Dx()
	out := image.NewRGBA(image.Rect(0, 0, n, n))
	for y := range n {
		for x := range n {
			out.SetRGBA(y, n-1-x, img.RGBAAt(x, y))
		}
	}
	return out
}
