// Command video-quality measures the zoom videos' composed frames: for keyframe scales 1 to
// 4 and 2x2 or 4x4 subsamples a pixel, the PSNR of frames composed by video.Make against
// direct renders of their zoom (2x2 and 4x4 supersampled), and after a 3x3 blur, over frames
// spread across the doublings of a 160x90 zoom in the seahorse valley to 1e6; the
// frame-to-frame change across keyframe switches over that within a span (seams); and the
// floor, a direct 2x2 render against a direct 4x4 one. It takes a minute or so; README's
// "Zoom videos" section quotes its figures. (It was video's TestMeasureQuality; the blend
// band's width is video's default here, which Make does not take as an option.)
//
// Usage (from the project root): go run ./bench/video-quality [-w WIDTH] [-density auto] [-quick] [-layout flat|rings]
package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/videotest"
	"mandelscope/render/cpu"
	"mandelscope/video"
)

func main() {
	w := flag.Int("w", 160, "frame `width` in pixels (the height is 9/16 of it)")
	density := flag.String("density", "", "auto: the density a user gets by default, chosen from the end view (else 1)")
	quick := flag.Bool("quick", false, "only keyframes at 2x with 2x2 and 4x4 subsamples")
	flag.StringVar(&layout, "layout", video.LayoutFlat, "the keyframes' layout: flat (the figures docs/videos.md's table quotes) or rings")
	flag.Parse()
	if flag.NArg() > 0 || *w < 16 || *density != "" && *density != "auto" {
		fmt.Fprintln(os.Stderr, "usage: video-quality [-w WIDTH (16 or more)] [-density auto] [-quick]")
		os.Exit(2)
	}
	if err := measure(*w, *w*9/16, *density == "auto", *quick); err != nil {
		fmt.Fprintln(os.Stderr, "video-quality:", err)
		os.Exit(1)
	}
}

// layout is the keyframes' layout measured.
var layout string

func measure(w, h int, autoDensity, quick bool) error {
	ctx := context.Background()
	loc := videotest.Seahorse("1e6", 4000)
	if autoDensity {
		loc.Color.AutoDensity = true
		var err error
		if loc, err = export.ResolveDensity(ctx, &cpu.Renderer{}, loc, w, h, nil); err != nil {
			return err
		}
	}
	fmt.Printf("%dx%d, zoom 1 to %s, density %g\n", w, h, loc.Zoom, loc.Color.Density)
	const frames = 61
	plan, err := video.NewPlan(fractal.MustDecimal("1"), loc.Zoom, frames)
	if err != nil {
		return err
	}
	ks := []int{5, 13, 22, 31, 40, 47, 55}
	refs, err := directRefs(loc, plan, ks, w, h)
	if err != nil {
		return err
	}
	combos := [][2]int{{1, 2}, {2, 2}, {3, 2}, {4, 2}, {2, 4}, {3, 4}}
	if quick {
		combos = [][2]int{{2, 2}, {2, 4}}
	}
	tmp, err := os.MkdirTemp("", "video-quality-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for i, c := range combos {
		scale, q := c[0], c[1]
		dir := filepath.Join(tmp, fmt.Sprint(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		opt := video.Options{Location: loc, Width: w, Height: h, FPS: frames, Duration: 1, KeyScale: scale, Supersample: q, FramesDir: filepath.Join(dir, "f"), Layout: layout}
		sum, err := video.Make(ctx, &cpu.Renderer{}, opt)
		if err != nil {
			return err
		}
		var p2, p2b, p4, p4b float64
		worst2b := math.Inf(1)
		for _, k := range ks {
			got, err := videotest.Frame(opt.FramesDir, k)
			if err != nil {
				return err
			}
			a, b := refs[k][0], refs[k][1]
			p2 += videotest.PSNR(a, got)
			pb := videotest.PSNR(videotest.Blur3(a), videotest.Blur3(got))
			p2b += pb
			worst2b = min(worst2b, pb)
			p4 += videotest.PSNR(b, got)
			p4b += videotest.PSNR(videotest.Blur3(b), videotest.Blur3(got))
		}
		across, within, err := seams(opt.FramesDir, plan, frames)
		if err != nil {
			return err
		}
		n := float64(len(ks))
		fmt.Printf("keyframes %dx frame (%dx%d), %dx%d subsamples, %d keyframes computed in %s, frames in %s: mean PSNR vs 2x2 direct %.1f dB (blurred %.1f, worst %.1f); vs 4x4 direct %.1f dB (blurred %.1f)\n",
			scale, scale*w, scale*h, q, q, sum.Keyframes, sum.Keyframe.Round(1e6), sum.Compose.Round(1e6), p2/n, p2b/n, worst2b, p4/n, p4b/n)
		fmt.Printf("  frame-to-frame change: across switches %.2f, within spans %.2f (ratio %.2f)\n", across, within, across/within)
		os.RemoveAll(dir)
	}
	// The floor: how far a direct 2x2 render is from a direct 4x4 one.
	var p, pb float64
	for _, k := range ks {
		a, b := refs[k][0], refs[k][1]
		p += videotest.PSNR(b, a)
		pb += videotest.PSNR(videotest.Blur3(b), videotest.Blur3(a))
	}
	fmt.Printf("direct 2x2 vs direct 4x4: mean PSNR %.1f dB (blurred %.1f)\n", p/float64(len(ks)), pb/float64(len(ks)))
	return nil
}

// directRefs renders the frames ks directly, 2x2 and 4x4 supersampled, the references
// the video's frames are measured against.
func directRefs(loc fractal.Location, plan video.Plan, ks []int, w, h int) (map[int][2]*image.RGBA, error) {
	refs := map[int][2]*image.RGBA{}
	for _, k := range ks {
		a, err := videotest.Direct(loc, plan.FrameZoom(k), w, h, 2)
		if err != nil {
			return nil, err
		}
		b, err := videotest.Direct(loc, plan.FrameZoom(k), w, h, 4)
		if err != nil {
			return nil, err
		}
		refs[k] = [2]*image.RGBA{a, b}
	}
	return refs, nil
}

// seams measures the frame-to-frame change (the mean over the pairs of frames) across a
// keyframe switch and within a span, for the frames in dir.
func seams(dir string, plan video.Plan, frames int) (across, within float64, err error) {
	w, a, err := videotest.Changes(dir, frames, plan.Pair)
	if err != nil {
		return 0, 0, err
	}
	return mean(a), mean(w), nil
}

// mean is the mean of v.
func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
