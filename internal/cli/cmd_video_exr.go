package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"mandelscope/fractal"
	"mandelscope/internal/tile"
	"mandelscope/internal/version"
	"mandelscope/video"
)

// exrVideoOnly are the video flags that make frames or a video file, which --keyframes-only
// --exr does not: each is refused by name.
var exrVideoOnly = []string{"fps", "duration", "waypoints", "audio", "codec", "crf", "frames", "supersample", "keyframe-scale", "keyframe-layout", "shard", "keep-keyframes"}

// parseEXRKeyframes validates `video --keyframes-only --exr [location flags] [--start-zoom=Z0]
// [--size=WxH] [--renderer=gpu|cpu] [--resume] [--force] -o DIR`: the keyframes of a zoom
// from Z0 to the view as OpenEXR files in DIR (video.WriteEXRKeyframes), no video.
func parseEXRKeyframes(fs *flag.FlagSet, lf *LocationFlags, job videoJob, keysOnly, exrKeys bool, start, size, bookmark, from string) (videoJob, error) {
	switch {
	case job.expMap && (!exrKeys || !keysOnly):
		return job, UsageErr("--exp-map: give --keyframes-only --exr too (the exponential maps are OpenEXR keyframes, for zoomasm)")
	case !exrKeys:
		return job, UsageErr("--keyframes-only: give --exr too (the keyframes as OpenEXR files, for zoomasm or Kalles Fraktaler); a video's own keyframes for a later assembly are --shard=0/1's")
	case !keysOnly:
		return job, UsageErr("--exr: give --keyframes-only too (the OpenEXR keyframes are written instead of a video, not beside one)")
	}
	for _, name := range exrVideoOnly {
		if flagWasSet(fs, name) {
			return job, UsageErr("--%s: --keyframes-only --exr writes keyframes only (no frames, no video, no sound)", name)
		}
	}
	o := &video.EXROptions{Resume: job.opt.Resume, Force: job.opt.Force, Version: version.Version, Dir: job.opt.Output, ExpMap: job.expMap}
	if flagWasSet(fs, "o") && o.Dir == "" {
		return job, UsageErr("-o: empty folder name")
	}
	if o.Dir == "" {
		return job, UsageErr("-o: no output folder given (-o DIR: the keyframes are DIR/00001_ZOOM.exr, ...)")
	}
	base, _, err := viewBase(fs, bookmark, from)
	if err != nil {
		return job, err
	}
	if o.Location, err = lf.Apply(base, true); err != nil {
		return job, err
	}
	if o.StartZoom, err = parseZoom(start); err != nil {
		return job, UsageErr("--start-zoom: %v", err)
	}
	if o.Width, o.Height, err = parseSize(size); err != nil {
		return job, UsageErr("--size: %v", err)
	}
	if err := video.CheckEXR(*o); err != nil {
		return job, ExitError{2, videoFlagError(err)}
	}
	job.exr = o
	return job, nil
}

// doEXRKeyframes writes the keyframes with progress on stderr; the first signal from sigs
// cancels it (keeping the files written, for --resume), a second ends the process at once.
func doEXRKeyframes(job videoJob, c tile.Computer, stderr io.Writer, sigs <-chan os.Signal) error {
	stderr = &lockedWriter{w: stderr}
	opt := *job.exr
	in := newInterrupts(sigs, stderr,
		"\nmandelscope video: stopping, keeping the keyframes written (again to quit at once)\n",
		fmt.Sprintf("mandelscope video: quit at once; %s keeps the keyframes written for --resume\n", opt.Dir), nil)
	defer in.stop()
	name := "a computer"
	if n, ok := c.(interface{ Name() string }); ok {
		name = n.Name()
	}
	zs, _ := video.EXRZooms(opt.StartZoom, opt.Location.Zoom)
	layout := "Kalles Fraktaler's zoom-out layout"
	if opt.ExpMap {
		layout = "exponential maps, zoomasm's input"
	}
	fmt.Fprintf(stderr, "mandelscope video: %d keyframes of %dx%d, zoom %s down to %s by halves, with %s -> %s/ (OpenEXR, %s)\n",
		len(zs), opt.Width, opt.Height, fractal.FormatZoom(opt.Location.ZoomExp()), fractal.FormatZoom(zs[len(zs)-1].Exp()), name, opt.Dir, layout)
	last := time.Now()
	opt.Progress = func(p video.Progress) {
		if p.Total == 0 || time.Since(last) < 5*time.Second && p.Done < p.Total {
			return
		}
		fmt.Fprintf(stderr, "mandelscope video: %d of %d keyframes written\n", p.Done, p.Total)
		last = time.Now()
	}
	opt.Notice = func(msg string) { fmt.Fprintf(stderr, "mandelscope video: %s\n", msg) }
	sum, err := video.WriteEXRKeyframes(in.ctx, c, opt)
	if err != nil {
		return in.exitError(err, video.ErrInterrupted)
	}
	fmt.Fprintf(stderr, "wrote %d keyframes to %s (%d computed, %d already there) in %s: %s to %s\n",
		sum.Files, opt.Dir, sum.Computed, sum.Reused, roundDur(sum.Total), sum.Names[0], sum.Names[len(sum.Names)-1])
	return nil
}
