package video

import (
	"context"
	"image"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"mandelscope/export"
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
	if os.Getenv("MANDELSCOPE_VIDEO_MEASURE_DENSITY") == "auto" {
		// The density a user gets by default: chosen from the end view.
		loc.Color.AutoDensity = true
		var err error
		if loc, err = export.ResolveDensity(context.Background(), &cpu.Renderer{}, loc, w, h, nil); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%dx%d, zoom 1 to %s, density %g", w, h, loc.Zoom, loc.Color.Density)
	const frames = 61
	plan, _ := NewPlan(fractal.MustDecimal("1"), loc.Zoom, frames)
	ks := []int{5, 13, 22, 31, 40, 47, 55}
	refs := map[int][2]*image.RGBA{}
	for _, k := range ks {
		refs[k] = [2]*image.RGBA{direct(t, loc, plan.FrameZoom(k), w, h, 2), direct(t, loc, plan.FrameZoom(k), w, h, 4)}
	}
	combos := [][3]float64{{1, 2, 0.05}, {2, 2, 0.05}, {3, 2, 0.05}, {4, 2, 0.05}, {2, 4, 0.05}, {3, 4, 0.05}, {2, 2, 0}, {2, 2, 0.15}}
	if os.Getenv("MANDELSCOPE_VIDEO_MEASURE_QUICK") != "" {
		combos = [][3]float64{{2, 2, 0.05}, {2, 4, 0.05}}
	}
	for _, c := range combos {
		scale, q := int(c[0]), int(c[1])
		marginFrac = c[2]
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
		// Seams: frame-to-frame change across a keyframe switch over the change within a span.
		var within, across, nw, na float64
		prev := frame(t, opt.FramesDir, 0)
		for k := 1; k < frames; k++ {
			cur := frame(t, opt.FramesDir, k)
			d := meanAbsDiff(prev, cur)
			if o0, _ := plan.Pair(k - 1); o0 != func() int { o, _ := plan.Pair(k); return o }() {
				across, na = across+d, na+1
			} else {
				within, nw = within+d, nw+1
			}
			prev = cur
		}
		t.Logf("  frame-to-frame change: across switches %.2f, within spans %.2f (ratio %.2f)", across/na, within/nw, across/na/(within/nw))
		n := float64(len(ks))
		t.Logf("keyframes %dx frame (%dx%d), %dx%d subsamples, blend %g, %d keyframes computed in %s, frames in %s: mean PSNR vs 2x2 direct %.1f dB (blurred %.1f, worst %.1f); vs 4x4 direct %.1f dB (blurred %.1f)",
			scale, scale*w, scale*h, q, q, marginFrac, sum.Keyframes, sum.Keyframe.Round(1e6), sum.Compose.Round(1e6), p2/n, p2b/n, worst2b, p4/n, p4b/n)
	}
	marginFrac = 0.05
	// The floor: how far a direct 2x2 render is from a direct 4x4 one.
	var p, pb float64
	for _, k := range ks {
		a, b := refs[k][0], refs[k][1]
		p += psnr(b, a)
		pb += psnr(blur3(b), blur3(a))
	}
	t.Logf("direct 2x2 vs direct 4x4: mean PSNR %.1f dB (blurred %.1f)", p/float64(len(ks)), pb/float64(len(ks)))
}
