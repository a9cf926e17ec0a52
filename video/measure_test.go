package video

import (
	"context"
	"image"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// TestMeasureQuality measures, for keyframe scales 1 to 4 and 2x2 or 4x4 subsamples a pixel, the PSNR
// of composed frames against direct renders of their zoom (2x2 and 4x4 supersampled), and
// after a 3x3 blur, over frames spread across the doublings of a 160x90 zoom in the
// seahorse valley to 1e6. It takes a minute or so: run it with
// MANDELSCOPE_VIDEO_MEASURE=1 go test -run TestMeasureQuality -v ./video/
// (the README's "Zoom videos" section quotes its figures).
func TestMeasureQuality(t *testing.T) {
	if os.Getenv("MANDELSCOPE_VIDEO_MEASURE") == "" {
		t.Skip("set MANDELSCOPE_VIDEO_MEASURE=1 to measure")
	}
	w, h := 160, 90
	if s := os.Getenv("MANDELSCOPE_VIDEO_MEASURE_W"); s != "" {
		w, _ = strconv.Atoi(s)
		h = w * 9 / 16
	}
	loc := testLoc("1e6", 4000)
	const frames = 61
	plan, _ := NewPlan(fractal.MustDecimal("1"), loc.Zoom, frames)
	ks := []int{5, 13, 22, 31, 40, 47, 55}
	refs := map[int][2]*image.RGBA{}
	for _, k := range ks {
		refs[k] = [2]*image.RGBA{direct(t, loc, plan.FrameZoom(k), w, h, 2), direct(t, loc, plan.FrameZoom(k), w, h, 4)}
	}
	for _, c := range [][2]int{{1, 2}, {2, 2}, {3, 2}, {4, 2}, {2, 4}, {3, 4}} {
		scale, q := c[0], c[1]
		dir := t.TempDir()
		opt := Options{Location: loc, Width: w, Height: h, FPS: frames, Duration: 1, KeyScale: scale, Supersample: q, FramesDir: filepath.Join(dir, "f")}
		sum, err := Make(context.Background(), &cpu.Renderer{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		var p2, p2b, p4, p4b float64
		worst2b := math.Inf(1)
		for _, k := range ks {
			got := frame(t, opt.FramesDir, k)
			a, b := refs[k][0], refs[k][1]
			p2 += psnr(a, got)
			pb := psnr(blur3(a), blur3(got))
			p2b += pb
			worst2b = min(worst2b, pb)
			p4 += psnr(b, got)
			p4b += psnr(blur3(b), blur3(got))
		}
		n := float64(len(ks))
		t.Logf("keyframes %dx frame (%dx%d), %dx%d subsamples, %d keyframes computed in %s, frames in %s: mean PSNR vs 2x2 direct %.1f dB (blurred %.1f, worst %.1f); vs 4x4 direct %.1f dB (blurred %.1f)",
			scale, scale*w, scale*h, q, q, sum.Keyframes, sum.Keyframe.Round(1e6), sum.Compose.Round(1e6), p2/n, p2b/n, worst2b, p4/n, p4b/n)
	}
	// The floor: how far a direct 2x2 render is from a direct 4x4 one.
	var p, pb float64
	for _, k := range ks {
		a, b := refs[k][0], refs[k][1]
		p += psnr(b, a)
		pb += psnr(blur3(b), blur3(a))
	}
	t.Logf("direct 2x2 vs direct 4x4: mean PSNR %.1f dB (blurred %.1f)", p/float64(len(ks)), pb/float64(len(ks)))
}
