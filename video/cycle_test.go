package video

import (
	"bytes"
	"context"
	"image"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/fractal"
	"mandelscope/internal/videotest"
	"mandelscope/render/cpu"
)

// TestPaletteCycle: with PaletteCycle, frame k is the frame of the same video coloured with
// the offset turned by PaletteCycle x k / FPS (frame 0 unchanged), composed from the same
// keyframes (a resume computes none), but for the levels of detail (at least 30 dB, and 10
// closer than the uncycled frame); the job file keeps it and the range is checked.
func TestPaletteCycle(t *testing.T) {
	dir := t.TempDir()
	loc := testLoc("16", 300)
	loc.Color.Offset = 0.2
	base := Options{Location: loc, Width: 48, Height: 28, FPS: 4, Duration: 1, KeepWork: true,
		FramesDir: filepath.Join(dir, "frames")}
	r := &cpu.Renderer{}
	run := func(o Options) Summary {
		t.Helper()
		sum, err := Make(context.Background(), r, o)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	frames := func() [][]byte {
		var out [][]byte
		for k := range 4 {
			out = append(out, frame(t, base.FramesDir, k).Pix)
		}
		return out
	}
	run(base)
	plain := frames()

	cyc := base
	cyc.PaletteCycle, cyc.Resume, cyc.Force = 0.3, true, true
	if sum := run(cyc); sum.Computed != 0 {
		t.Errorf("the cycling video computed %d keyframes", sum.Computed)
	}
	cycled := frames()
	f0 := frame(t, base.FramesDir, 0)
	if p := videotest.PSNR(asRGBA(plain[0], f0), f0); p < 30 {
		t.Errorf("frame 0 changed (PSNR %.1f dB against the uncycled one): its offset is the view's", p)
	}
	// Frame k (k >= 1) is the frame of a video whose offset is turned by 0.3 k / 4.
	for k := 1; k < 4; k++ {
		if bytes.Equal(cycled[k], plain[k]) {
			t.Errorf("frame %d did not change", k)
		}
		o := 0.2 + 0.3*float64(k)/4
		want := base
		want.Location.Color.Offset = o - math.Floor(o)
		want.Resume, want.Force = true, true
		run(want)
		// Not byte for byte: a video whose colours change every frame colours the samples it
		// holds for each frame, every 2^lod-th of a keyframe read at a level of detail lod,
		// where fixed colours are each block's mean (TestLoadRingBlockMeans).
		at := frame(t, base.FramesDir, k)
		p, p0 := videotest.PSNR(at, asRGBA(cycled[k], at)), videotest.PSNR(at, asRGBA(plain[k], at))
		t.Logf("frame %d against the frame at offset %v: %.1f dB (the uncycled frame %.1f dB)", k, want.Location.Color.Offset, p, p0)
		if p < 30 || p < p0+10 {
			t.Errorf("frame %d against the frame at offset %v: PSNR %.1f dB (against the uncycled frame %.1f dB), want at least 30 and 10 more", k, want.Location.Color.Offset, p, p0)
		}
	}
	// The job file of a sharded video keeps it for the assembly.
	j := jobOf(Options{Location: loc, StartZoom: fractal.MustDecimal("1"), Width: 64, Height: 36, FPS: 10, Duration: 1, Shards: 2, Output: "/x/z.mp4", PaletteCycle: -0.25})
	if back, err := j.options(); err != nil || back.PaletteCycle != -0.25 {
		t.Errorf("job file read back: %v, %v", back.PaletteCycle, err)
	}
	if b := jobOf(base); b.Cycle != 0 {
		t.Errorf("a video without cycling: %+v", b)
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), 100.5, -101} {
		o := base
		o.PaletteCycle = v
		if err := Check(o); err == nil || !strings.HasPrefix(err.Error(), "palette cycle ") || !strings.Contains(err.Error(), "out of range (-100 to 100 turns a second)") {
			t.Errorf("palette cycle %v: %v", v, err)
		}
	}
}

// TestPaletteCycleSegments: a resume with another palette cycle encodes every segment again
// (its frames' colours differ), and one with the same reuses them.
func TestPaletteCycleSegments(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	opt := Options{Location: testLoc("8", 200), Width: 32, Height: 18, FPS: 4, Duration: 1, KeepWork: true,
		Output: filepath.Join(dir, "z.mp4"), segFrames: 2}
	r := &cpu.Renderer{}
	if _, err := Make(context.Background(), r, opt); err != nil {
		t.Fatal(err)
	}
	opt.Resume, opt.Force, opt.PaletteCycle = true, true, 0.5
	sum, err := Make(context.Background(), r, opt)
	if err != nil || sum.Segments != 2 || sum.SegmentsReused != 0 || sum.Computed != 0 {
		t.Fatalf("another cycle: %+v %v", sum, err)
	}
	sum, err = Make(context.Background(), r, opt)
	if err != nil || sum.SegmentsReused != 2 {
		t.Errorf("the same cycle: %+v %v", sum, err)
	}
}

// asRGBA is pix as an image of like's size.
func asRGBA(pix []byte, like *image.RGBA) *image.RGBA {
	img := image.NewRGBA(like.Rect)
	copy(img.Pix, pix)
	return img
}
