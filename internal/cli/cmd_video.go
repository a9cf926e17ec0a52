package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/text"
	"mandelscope/internal/tile"
	"mandelscope/render"
	"mandelscope/render/cpu"
	"mandelscope/video"
)

// defaultVideoSize is the size of a video without --size.
const defaultVideoSize = "1280x720"

// videoJob is a validated video command line.
type videoJob struct {
	opt      video.Options
	renderer string
	// exr, when set, is a --keyframes-only --exr job: the keyframes as OpenEXR files, no video.
	exr *video.EXROptions
	// expMap: --exp-map, the EXR keyframes as exponential maps.
	expMap bool
}

// runVideo makes a zoom video: `mandelscope video [location flags] [--start-zoom=Z0]
// [--size=WxH] [--fps=N] [--duration=SECONDS | --waypoints=T:ZOOM,...] [--audio=FILE]
// [--supersample=N] [--keyframe-scale=N]
// [--renderer=gpu|cpu] [--codec=h264|h265|vp9|av1] [--crf=N] [--frames=DIR] [--resume]
// [--force] [--keep-keyframes] [--bookmark=NAME] [--from=IMAGE] -o OUT.mp4`. The end view is the location
// flags' (or the bookmark's or file's); the frames zoom exponentially from Z0 (default 1,
// the whole set) to it, on its centre, or follow the waypoints' timeline. Everything is
// validated before any work.
func runVideo(args []string, stdout, stderr io.Writer) error {
	job, err := parseVideo(args, stderr)
	if err != nil {
		return err
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	run := doVideo
	if job.exr != nil {
		run = doEXRKeyframes
	}
	if job.opt.Location.Color.HasShader() {
		return withShaderGL(0, func(g *render.GL) error {
			job.opt.ShaderPainter = g
			if job.renderer == "cpu" {
				return run(job, &cpu.Renderer{}, stderr, sigs)
			}
			return run(job, g, stderr, sigs)
		})
	}
	if job.renderer == "cpu" {
		return run(job, &cpu.Renderer{}, stderr, sigs)
	}
	var runErr error
	render.Main(func() {
		g, err := render.NewGL(render.Options{})
		if err != nil {
			fmt.Fprintf(stderr, "mandelscope video: warning: GPU renderer unavailable (%v); using the CPU renderer\n", OneLine(err))
			runErr = run(job, &cpu.Renderer{}, stderr, sigs)
			return
		}
		defer g.Close()
		runErr = run(job, g, stderr, sigs)
	})
	return runErr
}

var _ tile.Computer = (*render.GL)(nil)

func parseVideo(args []string, stderr io.Writer) (videoJob, error) {
	var job videoJob
	o := &job.opt
	fs := NewFlagSet("video", stderr)
	lf := AddLocationFlags(fs)
	start := fs.String("start-zoom", "1", "the first frame's zoom (default 1: the whole set); the last frame is the end view (--zoom)")
	size := fs.String("size", defaultVideoSize, "frame size WxH or 720p, 1080p, 4k (even sides for a video file)")
	fs.IntVar(&o.FPS, "fps", 30, fmt.Sprintf("frames a second, 1 to %d", video.MaxFPS))
	duration := fs.String("duration", "10", "length in seconds; the frames are fps x duration")
	fs.IntVar(&o.Supersample, "supersample", video.DefaultSupersample, fmt.Sprintf("N: each pixel averages N x N subsamples of the keyframes (1 to %d)", video.MaxSupersample))
	fs.IntVar(&o.KeyScale, "keyframe-scale", video.DefaultKeyScale, fmt.Sprintf("keyframe samples per frame pixel, 1 to %d (flat keyframes: a keyframe's side over a frame's)", video.MaxKeyScale))
	fs.StringVar(&o.Layout, "keyframe-layout", video.LayoutRings, "rings (an exponential map: each depth's samples computed once) or flat (one keyframe a doubling)")
	renderer := fs.String("renderer", "gpu", "gpu (OpenGL, falls back to the CPU) or cpu")
	fs.StringVar(&o.Codec, "codec", video.Codecs[0].Name, "video codec: "+strings.ReplaceAll(video.CodecNames(), "|", ", ")+" (where this ffmpeg has it)")
	fs.IntVar(&o.CRF, "crf", 0, "constant quality, lower is better: 1 to 51 for h264 and h265, 1 to 63 for vp9 and av1 (default: the codec's, 18 for h264)")
	fs.StringVar(&o.FramesDir, "frames", "", "also (or, without -o, only) write every frame to DIR/frame-NNNNNN.png")
	fs.BoolVar(&o.Resume, "resume", false, "continue an interrupted video from the keyframes in OUT.work (the frame rate, duration, colouring and codec may change);\nwith --keyframes-only --exr, keep the whole files of this view in DIR and compute the rest")
	fs.BoolVar(&o.Force, "force", false, "overwrite OUT if it exists; without --resume, also start an interrupted video over;\nwith --keyframes-only --exr, write the files again (with --resume, those of another view)")
	fs.BoolVar(&o.KeepWork, "keep-keyframes", false, "keep OUT.work after the video is made: --resume --force with another colouring, frame rate or duration then composes again computing nothing")
	bookmark := fs.String("bookmark", "", "end at the view of this bookmark")
	from := fs.String("from", "", "end at the view stored in a Mandelscope PNG or raw file")
	fs.StringVar(&o.Output, "o", "", "the video file OUT.mp4 (or .mkv, .webm, .mov); optional with --frames; the folder with --keyframes-only --exr")
	waypoints := fs.String("waypoints", "", "T:ZOOM,T:ZOOM,...: the zoom at each time in seconds, instead of --start-zoom and --duration: the first\nat 0, the last at the end view (its zoom sets --zoom; T:end keeps the view's), deepest; log zoom\nfollows a monotone curve through them, holding where two neighbours have the same zoom")
	fs.StringVar(&o.Audio, "audio", "", "a sound file (any ffmpeg reads) to put in the video, cut or padded with silence to its length\n(AAC in .mp4, .mov and .mkv, Opus in .webm)")
	fs.Float64Var(&o.PaletteCycle, "palette-cycle", 0, fmt.Sprintf("TURNS: turn the palette offset TURNS times a second of video (colour cycling; negative: the other way;\n-%d to %d; 0: none): only the colouring of each frame changes", video.MaxPaletteCycle, video.MaxPaletteCycle))
	shard := fs.String("shard", "", "I/N: compute only shard I (0 to N-1) of N's keyframes into OUT.work, for mandelscope assemble OUT.mp4")
	keysOnly := fs.Bool("keyframes-only", false, "with --exr: write the keyframes only, no video (-o DIR: the folder)")
	exrKeys := fs.Bool("exr", false, "with --keyframes-only: the keyframes as OpenEXR files in Kalles Fraktaler's zoom-out layout\n(DIR/00001_ZOOM.exr the end view, each next one zoomed out 2x, --size each; channels N, NF, DEX, DEY)")
	expMap := fs.Bool("exp-map", false, "with --keyframes-only --exr: each file an exponential map (rings about the centre, one halving\nof the radius a file), as Fraktaler-3 writes zoomasm's input (--size=12288x1360)")
	rest, err := ParseFlags(fs, args)
	if err != nil {
		return job, err
	}
	if len(rest) > 0 {
		return job, UsageErr("unexpected argument %q (flags go before -o OUT.mp4; the output is given with -o)", text.Clip(rest[0], 40))
	}
	switch *renderer {
	case "gpu", "cpu":
		job.renderer = *renderer
	default:
		return job, UsageErr("--renderer: unknown renderer %q (gpu or cpu)", text.Clip(*renderer, 40))
	}
	if *keysOnly || *exrKeys || *expMap {
		job.expMap = *expMap
		return parseEXRKeyframes(fs, lf, job, *keysOnly, *exrKeys, *start, *size, *bookmark, *from)
	}
	ws, err := parseVideoWaypoints(fs, *waypoints)
	if err != nil {
		return job, err
	}
	base, _, err := viewBase(fs, *bookmark, *from)
	if err != nil {
		return job, err
	}
	if o.Location, err = lf.Apply(base, true); err != nil {
		return job, err
	}
	if c := o.Location.Color; !flagWasSet(fs, "keyframe-layout") && (c.IsHistogram() || c.HasShader()) {
		o.Layout = video.LayoutFlat // the rings layout takes neither yet (video.Options.Layout)
	}
	if o.StartZoom, err = parseZoom(*start); err != nil {
		return job, UsageErr("--start-zoom: %v", err)
	}
	if ws != nil {
		for i := range ws {
			if ws[i].Zoom == (fractal.Decimal{}) {
				ws[i].Zoom = o.Location.Zoom // written end
			}
		}
		if err := video.CheckWaypoints(ws, o.Location.Zoom); err != nil {
			return job, UsageErr("--waypoints: %v", err)
		}
		o.Waypoints, o.StartZoom = ws, ws[0].Zoom
	}
	if o.Width, o.Height, err = parseSize(*size); err != nil {
		return job, UsageErr("--size: %v", err)
	}
	if o.Duration, err = strconv.ParseFloat(strings.TrimSpace(*duration), 64); err != nil {
		return job, UsageErr("--duration: %q is not a number of seconds", text.Clip(*duration, 40))
	}
	if ws != nil {
		o.Duration = ws[len(ws)-1].T
	}
	if err := checkVideoOutputs(fs, o, *shard); err != nil {
		return job, err
	}
	if ws != nil {
		if _, err := video.Frames(o.FPS, o.Duration); err != nil && o.FPS >= 1 && o.FPS <= video.MaxFPS {
			return job, UsageErr("--waypoints: the last waypoint's time: %v", err)
		}
	}
	if err := video.Check(*o); err != nil {
		return job, ExitError{2, videoAdvice(videoFlagError(err), *o, false)}
	}
	return job, nil
}

// parseVideoWaypoints reads --waypoints (nil when not given): the last waypoint is the end
// view, so its zoom is --zoom's, or sets it.
func parseVideoWaypoints(fs *flag.FlagSet, waypoints string) ([]video.Waypoint, error) {
	if !flagWasSet(fs, "waypoints") {
		return nil, nil
	}
	if flagWasSet(fs, "duration") || flagWasSet(fs, "start-zoom") {
		return nil, UsageErr("--waypoints: give either --waypoints or --duration and --start-zoom (the first waypoint's zoom is the start, the last's time the duration)")
	}
	ws, err := video.ParseWaypoints(waypoints, fractal.Decimal{})
	if err != nil {
		return nil, UsageErr("--waypoints: %v", err)
	}
	if last := ws[len(ws)-1].Zoom; last != (fractal.Decimal{}) {
		if flagWasSet(fs, "zoom") {
			if z, err := parseZoom(fs.Lookup("zoom").Value.String()); err == nil && !z.SameNumber(last) {
				return nil, UsageErr("--waypoints: the last waypoint's zoom %s is not --zoom's %s (the last waypoint is the end view: leave --zoom out, or end with TIME:end)", text.Clip(last.String(), 40), text.Clip(z.String(), 40))
			}
		} else if err := fs.Set("zoom", last.String()); err != nil {
			return nil, UsageErr("--waypoints: %v", err)
		}
	}
	return ws, nil
}

// checkVideoOutputs checks the outputs' flags (-o, --frames, --audio, --shard) and the
// numbers 0 would leave to video.Options' defaults, setting the shard from --shard.
func checkVideoOutputs(fs *flag.FlagSet, o *video.Options, shard string) error {
	if flagWasSet(fs, "audio") && o.Audio == "" {
		return UsageErr("--audio: empty file name")
	}
	if flagWasSet(fs, "o") && o.Output == "" {
		return UsageErr("-o: empty file name")
	}
	if flagWasSet(fs, "frames") && o.FramesDir == "" {
		return UsageErr("--frames: empty folder name")
	}
	if o.Output == "" && o.FramesDir == "" {
		return UsageErr("-o: no output given (-o OUT.mp4, or --frames=DIR for PNG frames)")
	}
	// 0 would mean the default to video.Options: given on the command line it is refused,
	// as export refuses --supersample=0.
	if flagWasSet(fs, "supersample") && o.Supersample == 0 {
		return UsageErr("--supersample: supersample 0 is out of range (1 to %d)", video.MaxSupersample)
	}
	if flagWasSet(fs, "keyframe-scale") && o.KeyScale == 0 {
		return UsageErr("--keyframe-scale: keyframe scale 0 is out of range (1 to %d)", video.MaxKeyScale)
	}
	if flagWasSet(fs, "crf") && o.CRF == 0 {
		return UsageErr("--crf: 0 is out of range (from 1)")
	}
	if flagWasSet(fs, "shard") {
		var err error
		if o.Shard, o.Shards, err = export.ParseShard(shard); err != nil {
			return UsageErr("--shard: %v", err)
		}
		switch {
		case o.Output == "":
			return UsageErr("--shard: give the video's file (-o OUT.mp4): the shards share its work folder")
		case o.FramesDir != "":
			return UsageErr("--shard and --frames: a shard composes no frames (assemble does)")
		case o.Force || o.KeepWork:
			return UsageErr("--shard: --force and --keep-keyframes are the assembly's (mandelscope assemble); a shard keeps the keyframes whose checksums hold and computes the rest")
		}
	}
	return nil
}

// videoFlagError prefixes the flag a video.Check error is about, where one is.
func videoFlagError(err error) error {
	msg := err.Error()
	for _, p := range []struct{ prefix, flag string }{
		{"frame rate ", "--fps"}, {"duration ", "--duration"}, {"size ", "--size"}, {"supersample ", "--supersample"},
		{"keyframe scale ", "--keyframe-scale"}, {"keyframe layout ", "--keyframe-layout"}, {"unknown codec", "--codec"}, {"crf ", "--crf"},
		{"the start zoom", "--start-zoom"}, {"start zoom:", "--start-zoom"}, {"audio ", "--audio"},
		{"palette cycle ", "--palette-cycle"},
	} {
		if strings.HasPrefix(msg, p.prefix) {
			return prefixed{p.flag + ": ", err}
		}
	}
	var ve *video.Error
	if errors.As(err, &ve) {
		return err
	}
	if strings.Contains(msg, "must end in") || strings.Contains(msg, "cannot hold") {
		return prefixed{"-o: ", err}
	}
	return err
}

// prefixed is an error with a prefix (the flag it is about), unwrapping to the error.
type prefixed struct {
	p   string
	err error
}

func (e prefixed) Error() string { return e.p + e.err.Error() }
func (e prefixed) Unwrap() error { return e.err }

// videoAdvice adds to a video error what to do about it on the command line, for the
// command that met it: a video (opt.Shards 0), a shard of one, or (assemble true) the
// assembly of OUT, opt.Output: each names only flags and commands that work there.
func videoAdvice(err error, opt video.Options, assemble bool) error {
	var ve *video.Error
	if !errors.As(err, &ve) {
		return err
	}
	advice := ""
	work := video.WorkDir(opt)
	switch {
	case assemble:
		switch ve.Kind {
		case video.ErrExists:
			advice = "add --force to overwrite it"
		case video.ErrInterrupted:
			advice = fmt.Sprintf("run `mandelscope assemble %s` again to continue", opt.Output)
		case video.ErrParamsDiffer:
			advice = fmt.Sprintf("run every shard again with the options %s records", filepath.Join(work, "video.json"))
		case video.ErrBusy:
			advice = "wait for it to finish, or stop it first"
		}
	case opt.Shards > 0:
		switch ve.Kind {
		case video.ErrParamsDiffer:
			advice = fmt.Sprintf("give this shard the options the other shards of %s were given (%s records them), or another -o for another video", opt.Output, filepath.Join(work, "video.json"))
		case video.ErrInterrupted:
			advice = "run the same command again to continue"
		case video.ErrBusy:
			advice = "wait for it to finish, or give this shard another -o"
		}
	default:
		switch ve.Kind {
		case video.ErrExists:
			advice = "add --force to overwrite it"
		case video.ErrUnfinished:
			advice = "add --resume to continue it, or --force to start over"
		case video.ErrNothingToResume:
			advice = "run without --resume"
		case video.ErrParamsDiffer:
			advice = "run the same view, start zoom, size, keyframe scale and renderer with --resume, or drop --resume and add --force to start over"
		case video.ErrInterrupted:
			advice = "run the same command with --resume to continue"
		case video.ErrBusy:
			advice = "wait for it to finish, or stop it first"
		}
	}
	if advice == "" {
		return err
	}
	return adviceError{err, advice}
}

// doVideo makes the video with progress on stderr. The first signal from sigs cancels it
// (keeping the keyframes done, for --resume); a second ends the process at once (the
// keyframes written are complete files: they are kept too).
func doVideo(job videoJob, c tile.Computer, stderr io.Writer, sigs <-chan os.Signal) error {
	stderr = &lockedWriter{w: stderr}
	work := video.WorkDir(job.opt)
	in := newInterrupts(sigs, stderr,
		"\nmandelscope video: stopping, keeping the keyframes and segments done (again to quit at once)\n",
		fmt.Sprintf("mandelscope video: quit at once; %s keeps the keyframes and segments written for --resume\n", work),
		// The encoder runs in a process group of its own, which no signal to this one
		// reaches: it is stopped before the process ends, never left running.
		video.KillEncoders)
	defer in.stop()
	ctx := in.ctx

	opt := job.opt
	name := "a computer"
	if n, ok := c.(interface{ Name() string }); ok {
		name = n.Name()
	}
	outs := []string{}
	if opt.Output != "" {
		outs = append(outs, opt.Output)
	}
	if opt.FramesDir != "" {
		outs = append(outs, opt.FramesDir+"/frame-NNNNNN.png")
	}
	timeline := ""
	if len(opt.Waypoints) > 2 {
		timeline = fmt.Sprintf(" through %d waypoints", len(opt.Waypoints))
	}
	if opt.Audio != "" {
		timeline += ", sound from " + opt.Audio
	}
	fmt.Fprintf(stderr, "mandelscope video: %dx%d, %d fps, %gs, zoom %s to %s%s with %s -> %s\n", opt.Width, opt.Height, opt.FPS, opt.Duration,
		fractal.FormatZoom(opt.StartZoom.Exp()), fractal.FormatZoom(opt.Location.ZoomExp()), timeline, name, strings.Join(outs, " and "))
	last := time.Now()
	lastPhase := ""
	opt.Progress = func(p video.Progress) {
		if p.Phase == lastPhase && time.Since(last) < 5*time.Second && p.Done < p.Total {
			return
		}
		{
			what := "keyframes computed"
			if p.Phase == "frames" {
				what = "frames composed"
			}
			fmt.Fprintf(stderr, "mandelscope video: %d of %d %s\n", p.Done, p.Total, what)
			last, lastPhase = time.Now(), p.Phase
		}
	}
	opt.Notice = func(msg string) { fmt.Fprintf(stderr, "mandelscope video: %s\n", msg) }
	if opt.Shards > 0 {
		opt.Waiting = func(lp string) {
			fmt.Fprintf(stderr, "mandelscope video: another run of this shard holds %s; waiting for it\n", lp)
		}
	}
	sum, err := video.Make(ctx, c, opt)
	if err != nil {
		return in.exitError(videoAdvice(err, opt, false), video.ErrInterrupted)
	}
	if opt.Shards > 0 {
		fmt.Fprintf(stderr, "shard %d of %d of %s: %d keyframes of %dx%d computed, %d already there (of the video's %d), in %s; `mandelscope assemble %s` once every shard is done\n",
			opt.Shard, opt.Shards, opt.Output, sum.Computed, sum.KeyWidth, sum.KeyHeight, sum.Reused, sum.Keyframes, roundDur(sum.Total), opt.Output)
		return nil
	}
	reportVideo(stderr, opt, sum, work)
	return nil
}

// reportVideo says what a finished video wrote, and what its keyframes, frames and encoding
// took.
func reportVideo(stderr io.Writer, opt video.Options, sum video.Summary, work string) {
	refs := "no reference orbit (no perturbation)"
	switch sum.References {
	case 1:
		refs = "one reference orbit"
	case 0:
	default:
		refs = fmt.Sprintf("%d reference orbits", sum.References)
	}
	if opt.Output != "" {
		size := ""
		if st, err := os.Stat(opt.Output); err == nil {
			size = ", " + export.HumanBytes(st.Size())
		}
		fmt.Fprintf(stderr, "wrote %s: %d frames of %dx%d at %d fps (%gs)%s in %s\n", opt.Output, sum.Frames, opt.Width, opt.Height, opt.FPS, opt.Duration, size, roundDur(sum.Total))
	}
	if opt.FramesDir != "" {
		fmt.Fprintf(stderr, "wrote %d frames to %s\n", sum.Frames, opt.FramesDir)
	}
	if opt.KeepWork {
		fmt.Fprintf(stderr, "  the keyframes stay in %s (--resume --force composes again from them)\n", work)
	}
	segs := ""
	if sum.Segments > 0 {
		segs = fmt.Sprintf(" (%d of %d segments of %d s reused)", sum.SegmentsReused, sum.Segments, video.SegmentSeconds)
	}
	keys := fmt.Sprintf("%d of %dx%d", sum.Keyframes, sum.KeyWidth, sum.KeyHeight)
	if opt.Layout != video.LayoutFlat {
		cols, rows, cw, ch := video.RingsKeyframe(opt.Width, opt.Height, opt.KeyScale)
		keys = fmt.Sprintf("%d rings of %dx%d and a %dx%d centre", sum.Keyframes-1, cols, rows, cw, ch)
	}
	fmt.Fprintf(stderr, "  keyframes: %s (%d computed, %d reused), %s, %s; %d frames composed in %s%s; writing frames (waiting for the encoder) %s",
		keys, sum.Computed, sum.Reused, refs, roundDur(sum.Keyframe), sum.Composed, roundDur(sum.Compose), segs, roundDur(sum.Encode))
	if sum.EncoderCPU > 0 {
		fmt.Fprintf(stderr, " (ffmpeg used %s of CPU)", roundDur(sum.EncoderCPU))
	}
	fmt.Fprintln(stderr)
	if opt.Location.Color.AutoDensity {
		fmt.Fprintf(stderr, "  density: automatic, %s from the end view, for every frame\n", strconv.FormatFloat(sum.Density, 'g', 4, 64))
	}
}
