// Command video-cost measures what a zoom video costs against rendering every frame directly:
// the time video.Make takes for its keyframes and frames (written as PNG frames, whose writing
// is not counted) against the time the CPU renderer takes to render every frame as a 2x2
// supersampled export of its zoom (videotest.Direct), and the PSNR of the first, middle and
// last frames against those direct renders, as they are and after a 3x3 blur. Beside that, for
// each of those frames, what two 2x2 exports of it whose grids lie 1/4 pixel apart differ by
// (videotest.Twins: the least a frame not made of the direct export's own samples can be
// expected to differ from it), and how close the frame and the direct 2x2 export each come to
// a 4x4 export. The view is the seahorse valley (videotest.Seahorse) zoomed from 1 to -zoom,
// at the density a user gets by default. docs/videos.md quotes its figures.
//
// Usage (from the project root): go run ./bench/video-cost [-w 640] [-fps 30] [-duration 20] [-zoom 1e12] [-every N] [-layout rings|flat] [-keyframe-scale S] [-keep DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"time"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/cputime"
	"mandelscope/internal/videotest"
	"mandelscope/render/cpu"
	"mandelscope/video"
)

func main() {
	w := flag.Int("w", 640, "frame `width` in pixels (the height is 9/16 of it)")
	fps := flag.Int("fps", 30, "frames a second")
	dur := flag.Float64("duration", 20, "seconds")
	zoom := flag.String("zoom", "1e12", "the end zoom")
	iter := flag.Int("iterations", 4000, "iterations")
	every := flag.Int("every", 1, "render every Nth frame directly and scale the time by N (1: every frame)")
	density := flag.String("density", "auto", "auto (the density a user gets by default) or 1")
	layout := flag.String("layout", "rings", "the keyframes' layout: rings or flat")
	scale := flag.Int("keyframe-scale", 0, "the keyframe scale (video --keyframe-scale; 0: the default)")
	keep := flag.String("keep", "", "a new `folder` to keep the frames in (frame-NNNNNN.png) and the direct renders measured against (direct-NNNNNN.png)")
	prof := flag.String("cpuprofile", "", "write the video's CPU profile to `file`")
	flag.Parse()
	profile = *prof
	if flag.NArg() > 0 || *w < 16 || *every < 1 {
		fmt.Fprintln(os.Stderr, "usage: video-cost [-w WIDTH] [-fps N] [-duration S] [-zoom Z] [-iterations N] [-every N] [-layout rings|flat] [-keyframe-scale S] [-keep DIR]")
		os.Exit(2)
	}
	if err := measure(*w, *w*9/16&^1, *fps, *dur, *zoom, *iter, *every, *layout, *keep, *density == "auto", *scale); err != nil {
		fmt.Fprintln(os.Stderr, "video-cost:", err)
		os.Exit(1)
	}
}

// profile is the file for the video's CPU profile ("": none).
var profile string

func measure(w, h, fps int, dur float64, zoom string, iter, every int, layout, keep string, autoDensity bool, scale int) error {
	loc := videotest.Seahorse(zoom, iter)
	if autoDensity {
		// The density a user gets by default, chosen once from the end view.
		loc.Color.AutoDensity = true
		var err error
		if loc, err = export.ResolveDensity(context.Background(), &cpu.Renderer{}, loc, w, h, nil); err != nil {
			return err
		}
	}
	tmp, err := os.MkdirTemp("", "video-cost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	frames := filepath.Join(tmp, "f")
	if keep != "" {
		frames = keep
	}
	opt := video.Options{Location: loc, Width: w, Height: h, FPS: fps, Duration: dur, FramesDir: frames, Layout: layout, KeyScale: scale}
	plan, err := video.PlanFor(opt)
	if err != nil {
		return err
	}
	fmt.Printf("%dx%d, %d fps, %g s (%d frames), zoom 1 to %s, %d iterations, density %g, %s keyframes, GOMAXPROCS %d\n", w, h, fps, dur, plan.Frames, zoom, iter, loc.Color.Density, layout, runtime.GOMAXPROCS(0))
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	c0 := cputime.Process()
	sum, err := video.Make(context.Background(), &cpu.Renderer{}, opt)
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	videoCPU := cputime.Process() - c0
	made := sum.Keyframe + sum.Compose
	fmt.Printf("video: %d keyframes of %dx%d in %s, %d frames composed in %s: %s (PNG writing, not counted, %s)\n",
		sum.Keyframes, sum.KeyWidth, sum.KeyHeight, sum.Keyframe.Round(time.Millisecond), sum.Composed, sum.Compose.Round(time.Millisecond),
		made.Round(time.Millisecond), sum.Encode.Round(time.Millisecond))
	var direct time.Duration
	c0 = cputime.Process()
	n := 0
	for k := 0; k < plan.Frames; k += every {
		t := time.Now()
		if _, err := videotest.Direct(loc, plan.FrameZoom(k), w, h, 2); err != nil {
			return err
		}
		direct += time.Since(t)
		n++
	}
	directCPU := cputime.Process() - c0
	all := time.Duration(float64(direct) * float64(plan.Frames) / float64(n))
	allCPU := time.Duration(float64(directCPU) * float64(plan.Frames) / float64(n))
	fmt.Printf("direct: %d of %d frames rendered 2x2 in %s (processor time %s): every frame %s (processor time %s)\n", n, plan.Frames,
		direct.Round(time.Millisecond), directCPU.Round(time.Millisecond), all.Round(time.Millisecond), allCPU.Round(time.Millisecond))
	fmt.Printf("cost: %.3f x rendering every frame directly (wall clock); processor time: the video's %s (PNG writing included), %.3f x\n",
		made.Seconds()/all.Seconds(), videoCPU.Round(time.Millisecond), videoCPU.Seconds()/allCPU.Seconds())
	fmt.Println("PSNR after a 3x3 blur: frame | the frame against the direct 2x2 export | two 2x2 exports of it, grids 1/4 pixel apart | against a 4x4 export: the frame, the direct 2x2 export")
	b := videotest.Blur3
	for _, k := range []int{0, plan.Frames / 2, plan.Frames - 1} {
		ref, err := videotest.Direct(loc, plan.FrameZoom(k), w, h, 2)
		if err != nil {
			return err
		}
		got, err := videotest.Frame(opt.FramesDir, k)
		if err != nil {
			return err
		}
		even, odd, fine, err := videotest.Twins(loc, plan.FrameZoom(k), w, h)
		if err != nil {
			return err
		}
		if keep != "" {
			if err := videotest.WritePNG(filepath.Join(keep, fmt.Sprintf("direct-%06d.png", k)), ref); err != nil {
				return err
			}
		}
		fmt.Printf("frame %d (zoom %s): PSNR %.1f dB; after a 3x3 blur %.1f dB | twins %.1f dB | against 4x4: %.1f dB, direct 2x2 %.1f dB\n", k, fractal.FormatZoom(plan.FrameZoom(k)),
			videotest.PSNR(ref, got), videotest.PSNR(b(ref), b(got)), videotest.PSNR(b(even), b(odd)), videotest.PSNR(b(fine), b(got)), videotest.PSNR(b(fine), b(ref)))
	}
	return nil
}
