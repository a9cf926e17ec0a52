package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"mandelscope/bookmarks"
	"mandelscope/colour"
	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/text"
	"mandelscope/internal/version"
	"mandelscope/preview"
	"mandelscope/render"
	"mandelscope/render/cpu"
)

// defaultExportSize is the size of an export without --size or --from.
const defaultExportSize = "1080p"

// cpuDefaultTile caps the CPU renderer's tiles so that an interrupt is served quickly.
const cpuDefaultTile = 1024

// exportJob is a validated export command line.
type exportJob struct {
	cmd string          // the command, for messages: export or recolour
	out string          // the PNG ("" for none: a raw export only)
	raw string          // the raw file (--raw), "" for none
	src *export.RawFile // recolour: the raw file read
	// densityChosen: recolour keeps the raw file's density, which it records as chosen
	// automatically: the PNG says so as the export's did.
	densityChosen bool
	loc           fractal.Location
	w, h, ss      int
	tile          int
	renderer      string
	resume, force bool
	shard, shards int // --shard=I/N (shards 0: the whole image)
	// --reference-in: the reference orbit read (and its digest); --reference-out: where the
	// orbit computed is written (with no -o and no --raw, that is all the job does)
	ref       *fractal.Reference
	refDigest string
	refIn     string
	refOut    string
	refOnly   bool
	// painter runs the location's colouring shader (the OpenGL renderer), nil without one
	painter colour.ShaderPainter
}

// target is the file the job publishes: the PNG, or its shard's file.
func (job exportJob) target() string {
	if job.shards > 0 {
		return export.ShardPath(job.out, job.shard, job.shards)
	}
	return job.out
}

// runExport renders a view to a PNG: `mandelscope export [location flags] [--size=...]
// [--supersample=N] [--tile=N] [--renderer=gpu|cpu] [--resume] [--force] [--bookmark=NAME]
// [--from=IMAGE.png] -o FILE.png`. Everything is validated before any work.
func runExport(args []string, stdout, stderr io.Writer) error {
	job, err := parseExport(args, stderr)
	if err != nil {
		return err
	}
	if job.refOut != "" {
		if err := writeReference(&job, stderr); err != nil || job.refOnly {
			return err
		}
	}
	warnLowDisk(job, stderr)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if job.loc.Color.HasShader() {
		return withShaderPainter(job, func(job exportJob, g *render.GL) error {
			if job.renderer == "cpu" {
				return doExport(job, &cpu.Renderer{}, stderr, sigs)
			}
			return doExport(job, g, stderr, sigs)
		})
	}
	if job.renderer == "cpu" {
		return doExport(job, &cpu.Renderer{}, stderr, sigs)
	}
	var runErr error
	render.Main(func() {
		g, err := render.NewGL(render.Options{MaxTile: job.tile})
		if err != nil {
			fmt.Fprintf(stderr, "mandelscope export: warning: GPU renderer unavailable (%v); using the CPU renderer\n", OneLine(err))
			runErr = doExport(job, &cpu.Renderer{}, stderr, sigs)
			return
		}
		defer g.Close()
		if job.raw != "" && !export.ComputesRaw(g) {
			fmt.Fprintf(stderr, "mandelscope export: warning: the GPU renderer does not compute raw data; using the CPU renderer\n")
			runErr = doExport(job, &cpu.Renderer{}, stderr, sigs)
			return
		}
		runErr = doExport(job, g, stderr, sigs)
	})
	return runErr
}

// withShaderPainter runs do with an OpenGL renderer as the job's colour shader painter, which
// a colouring shader needs: without OpenGL the job is refused in one line before any work.
func withShaderPainter(job exportJob, do func(exportJob, *render.GL) error) error {
	return withShaderGL(job.tile, func(g *render.GL) error {
		job.painter = g
		return do(job, g)
	})
}

// withShaderGL runs do with an OpenGL renderer (tiles of at most maxTile, 0: its own), which
// a colouring shader needs: without OpenGL it returns colour.ErrNoShaderPainter and why, one
// line.
func withShaderGL(maxTile int, do func(*render.GL) error) error {
	var runErr error
	render.Main(func() {
		g, err := render.NewGL(render.Options{MaxTile: maxTile})
		if err != nil {
			runErr = fmt.Errorf("%w: %s", colour.ErrNoShaderPainter, OneLine(err))
			return
		}
		defer g.Close()
		runErr = do(g)
	})
	return runErr
}

var (
	_ export.TileRenderer = (*cpu.Renderer)(nil)
	_ export.Identifier   = (*cpu.Renderer)(nil)
)

// OneLine returns err's text on one line, its runs of white space (newlines included) made
// single spaces.
func OneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// exportFlags are export's flags, parsed into job (those that need no checking) or into the
// fields below, which parseExport's stages check and copy into the job.
type exportFlags struct {
	fs                                           *flag.FlagSet
	lf                                           *LocationFlags
	size, renderer, bookmark, from, shard, refIn *string
	ss, tile                                     *int
}

// newExportFlags declares export's flags.
func newExportFlags(job *exportJob, stderr io.Writer) *exportFlags {
	fs := NewFlagSet("export", stderr)
	f := &exportFlags{fs: fs, lf: AddLocationFlags(fs)}
	f.size = fs.String("size", "", "image size WxH or 1080p, 4k, 8k, 16k, 32k (default: 1080p, or --from's size)")
	f.ss = fs.Int("supersample", 1, "N: average N x N samples per pixel (1 to 4)")
	f.tile = fs.Int("tile", 0, "tile edge cap in pixels, at least 16 (default: the GPU's maximum; 1024 on the CPU)")
	f.renderer = fs.String("renderer", "gpu", "gpu (OpenGL, falls back to the CPU) or cpu")
	fs.BoolVar(&job.resume, "resume", false, "continue an interrupted export of the same image from FILE.png.part")
	fs.BoolVar(&job.force, "force", false, "overwrite FILE.png if it exists (and start over an interrupted export)")
	f.bookmark = fs.String("bookmark", "", "render the view of this bookmark")
	f.from = fs.String("from", "", "render the view stored in a Mandelscope PNG or raw file (and its size unless --size is given)")
	fs.StringVar(&job.raw, "raw", "", "also write every computed sample to FILE.exr (OpenEXR: N, NF, DEX, DEY), for recolour")
	fs.StringVar(&job.out, "o", "", "output file FILE.png (required unless --raw is given)")
	f.shard = fs.String("shard", "", "I/N: render only shard I (0 to N-1) of N into FILE.png.shard-I-of-N, for mandelscope assemble FILE.png")
	f.refIn = fs.String("reference-in", "", "FILE: draw with the reference orbit in FILE (from --reference-out) rather than computing it; it must be this view's")
	fs.StringVar(&job.refOut, "reference-out", "", "FILE: write the view's reference orbit to FILE, for --reference-in (without -o and --raw, only that)")
	return f
}

// parseExport parses export's command line in stages: the flags, the render settings, the
// view and its size, the reference orbit, then the output files. The first error ends it.
func parseExport(args []string, stderr io.Writer) (exportJob, error) {
	job := exportJob{cmd: "export"}
	f := newExportFlags(&job, stderr)
	rest, err := ParseFlags(f.fs, args)
	if err != nil {
		return job, err
	}
	if len(rest) > 0 {
		return job, UsageErr("unexpected argument %q (flags go before -o FILE.png; the output is given with -o)", text.Clip(rest[0], 40))
	}
	if err := f.settings(&job); err != nil {
		return job, err
	}
	if err := f.view(&job); err != nil {
		return job, err
	}
	if err := f.reference(&job); err != nil || job.refOnly {
		return job, err
	}
	if err := f.outputs(&job); err != nil {
		return job, err
	}
	return job, f.precheck(&job)
}

// settings checks and copies --supersample, --tile and --renderer.
func (f *exportFlags) settings(job *exportJob) error {
	if *f.ss < 1 || *f.ss > export.MaxSupersample {
		return UsageErr("--supersample: %d is out of range (1 to %d)", *f.ss, export.MaxSupersample)
	}
	job.ss = *f.ss
	if flagWasSet(f.fs, "tile") && *f.tile < export.MinTile {
		return UsageErr("--tile: %d is too small (at least %d)", *f.tile, export.MinTile)
	}
	job.tile = *f.tile
	switch *f.renderer {
	case "gpu", "cpu":
		job.renderer = *f.renderer
	default:
		return UsageErr("--renderer: unknown renderer %q (gpu or cpu)", text.Clip(*f.renderer, 40))
	}
	if job.renderer == "cpu" && job.tile == 0 {
		job.tile = cpuDefaultTile
	}
	return nil
}

// view sets the job's location and size: from --bookmark or --from (whose size and
// supersampling apply unless given), the location flags, and --size.
func (f *exportFlags) view(job *exportJob) error {
	sizeSet := flagWasSet(f.fs, "size")
	base, md, err := viewBase(f.fs, *f.bookmark, *f.from)
	if err != nil {
		return err
	}
	if md != nil {
		if !sizeSet {
			job.w, job.h = md.Width, md.Height
		}
		if !flagWasSet(f.fs, "supersample") {
			job.ss = md.Supersample
		}
	}
	if job.loc, err = f.lf.Apply(base, true); err != nil {
		return err
	}
	if job.w == 0 {
		if !sizeSet {
			*f.size = defaultExportSize
		}
		if job.w, job.h, err = parseSize(*f.size); err != nil {
			return UsageErr("--size: %v", err)
		}
	}
	if f.lf.AutoIterations() {
		if job.loc.Iterations, err = autoCount(job.loc, job.w, job.h); err != nil {
			return err
		}
	}
	return nil
}

// autoCount is the automatic iteration count of l at w x h pixels: the window's
// (preview.AutoCount). It can be interrupted (Ctrl-C) like the render that follows.
func autoCount(l fractal.Location, w, h int) (int, error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	n, err := preview.AutoCount(ctx, l, w, h, fractal.DefaultReferences)
	if err != nil {
		return 0, fmt.Errorf("automatic iterations: %w", err)
	}
	return n, nil
}

// reference reads the orbit --reference-in names, or checks the file --reference-out
// names; with --reference-out and no other output, the job is only that (job.refOnly).
func (f *exportFlags) reference(job *exportJob) error {
	var err error
	for _, name := range []string{"reference-in", "reference-out"} {
		if flagWasSet(f.fs, name) && job.loc.IsJulia() {
			return UsageErr("--%s: reference files are for Mandelbrot views (this view is a Julia set's)", name)
		}
		if flagWasSet(f.fs, name) && !job.loc.Formula.IsMandelbrot() {
			return UsageErr("--%s: reference files are for the Mandelbrot set (this view is formula %s's)", name, job.loc.Formula)
		}
	}
	if flagWasSet(f.fs, "reference-in") {
		if flagWasSet(f.fs, "reference-out") {
			return UsageErr("--reference-in and --reference-out: give one or the other")
		}
		job.refIn = *f.refIn
		if job.ref, job.refDigest, err = export.ReadReferenceFile(*f.refIn); err != nil {
			return UsageErr("--reference-in: %v", OneLine(err))
		}
	}
	if flagWasSet(f.fs, "reference-out") {
		if strings.TrimSpace(job.refOut) == "" {
			return UsageErr("--reference-out: empty file name")
		}
		if err := export.PrecheckReference(job.refOut, job.force); err != nil {
			return ExitError{2, withAdvice(err, *job)}
		}
		if job.out == "" && job.raw == "" {
			job.refOnly = true
		}
	}
	return nil
}

// outputs checks -o and --raw, and that the orbit --reference-in names is this view's.
func (f *exportFlags) outputs(job *exportJob) error {
	if job.out == "" && job.raw == "" {
		return UsageErr("-o: no output file given (-o FILE.png, or --raw=FILE.exr)")
	}
	if flagWasSet(f.fs, "o") && job.out == "" {
		return UsageErr("-o: empty file name")
	}
	if job.out != "" && !strings.EqualFold(filepath.Ext(job.out), ".png") {
		return UsageErr("-o: %q must end in .png", text.Clip(job.out, 40))
	}
	if flagWasSet(f.fs, "raw") {
		if !strings.EqualFold(filepath.Ext(job.raw), ".exr") {
			return UsageErr("--raw: %q must end in .exr", text.Clip(job.raw, 40))
		}
		if job.out != "" && filepath.Clean(job.out) == filepath.Clean(job.raw) {
			return UsageErr("--raw and -o: the same file")
		}
	}
	if job.ref != nil {
		o := export.Options{Location: job.loc, Width: job.w, Height: job.h, Supersample: job.ss, Reference: job.ref}
		if err := export.CheckReference(o); err != nil {
			return UsageErr("--reference-in: %s is not this view's: %v", text.Clip(*f.refIn, 60), err)
		}
	}
	return nil
}

// precheck checks --shard, and that the files the export will write may be written.
func (f *exportFlags) precheck(job *exportJob) error {
	if flagWasSet(f.fs, "shard") {
		var err error
		if job.shard, job.shards, err = export.ParseShard(*f.shard); err != nil {
			return UsageErr("--shard: %v", err)
		}
		switch {
		case job.out == "":
			return UsageErr("--shard: a shard is a share of a PNG: give -o FILE.png")
		case job.raw != "":
			return UsageErr("--shard and --raw: a shard writes no raw file")
		}
		if err := export.PrecheckShard(job.out, job.shard, job.shards); err != nil {
			return ExitError{2, withAdvice(err, *job)}
		}
		return nil
	}
	if err := export.PrecheckOutputs(job.out, job.raw, job.resume, job.force); err != nil {
		return ExitError{2, withAdvice(err, *job)}
	}
	return nil
}

// viewBase is the location the location flags apply to: the view of the bookmark --bookmark
// names, or of the file --from names (then md is the file's metadata), else the whole set.
func viewBase(fs *flag.FlagSet, bookmark, from string) (base fractal.Location, md *export.Metadata, err error) {
	base = fractal.Home()
	if flagWasSet(fs, "bookmark") && flagWasSet(fs, "from") {
		return base, nil, UsageErr("--bookmark and --from: give one or the other")
	}
	if flagWasSet(fs, "bookmark") {
		if strings.TrimSpace(bookmark) == "" {
			return base, nil, UsageErr("--bookmark: empty name")
		}
		path, err := bookmarks.DefaultPath()
		if err != nil {
			return base, nil, UsageErr("--bookmark: %v", err)
		}
		store, err := bookmarks.Load(path)
		if err != nil {
			return base, nil, UsageErr("--bookmark: %v", OneLine(err))
		}
		b, ok := store.Get(bookmark)
		if !ok {
			return base, nil, UsageErr("--bookmark: no bookmark named %q in %s", text.Clip(bookmark, 40), path)
		}
		return b.Location, nil, nil
	}
	if flagWasSet(fs, "from") {
		m, err := export.ReadMetadata(from)
		if err != nil {
			return base, nil, UsageErr("--from: %v", OneLine(err))
		}
		return m.Location, &m, nil
	}
	return base, nil, nil
}

// withAdvice adds to an export error the command-line advice for it: the export library
// says what happened, and each front end says what to do with its own controls.
func withAdvice(err error, job exportJob) error {
	var ee *export.Error
	hasEE := errors.As(err, &ee)
	// A recolour whose raw file cannot be read: a resume would fail the same way.
	if rd := (*export.RawReadError)(nil); errors.As(err, &rd) {
		msg := rd.Error()
		if hasEE && ee.Kept {
			msg += " (kept " + ee.Path + " and its checkpoint)"
		}
		return adviceError{retold{msg, err}, rawDamagedAdvice(rd.Path)}
	}
	if !hasEE {
		return err
	}
	advice := ""
	switch ee.Kind {
	case export.ErrExists:
		advice = "add --force to overwrite it"
	case export.ErrUnfinished:
		if ee.Kept {
			advice = "add --resume to continue it, or --force to start over"
		} else {
			advice = "add --force to start over"
		}
	case export.ErrNothingToResume:
		if ee.Kept {
			advice = "drop --resume and add --force to start over"
		} else {
			advice = "run without --resume"
		}
	case export.ErrParamsDiffer:
		switch {
		case ee.RawDiffers && ee.Was != "" && job.cmd == "export":
			advice = "resume with --raw=" + ee.Was + " (the raw file that export wrote), or drop --resume and add --force to start over"
		case ee.RawDiffers && ee.Was == "" && job.cmd == "export":
			advice = "resume without --raw (that export wrote no raw file), or drop --resume and add --force to start over"
		default:
			advice = "run the same command as before with --resume, or drop --resume and add --force to start over"
		}
	case export.ErrRendererDiffers:
		wasRaw := strings.HasPrefix(ee.Was, export.RawIdentityPrefix)
		switch {
		case job.cmd == "recolour" && wasRaw:
			advice = "recolour with --resume from the raw file it began with (this one is another, or changed since), or drop --resume and add --force to start over"
		case job.cmd == "recolour":
			advice = "it is an export's: continue it with mandelscope export --resume, or drop --resume and add --force to start over"
		case wasRaw:
			advice = "it is a recolour's: continue it with mandelscope recolour --resume from the same raw file, or drop --resume and add --force to start over"
		case strings.HasPrefix(ee.Was, "CPU"):
			advice = "resume with --renderer=cpu, or drop --resume and add --force to start over"
		default:
			advice = "resume with --renderer=gpu where that renderer is available (the same GPU and driver), or drop --resume and add --force to start over"
		}
	case export.ErrDamaged:
		advice = "drop --resume and add --force to start over (the files stay as they are until then)"
	case export.ErrBusy:
		advice = "wait for it to finish, or stop it first"
	case export.ErrBadLock:
		advice = "move it away (no export made it), then run the same command again"
	case export.ErrIsFolder:
		if ee.Kept {
			advice = "move that folder away and run the same command with --resume to publish the image"
		}
	case export.ErrAppeared:
		advice = "move that file away and run the same command with --resume, or add --resume --force to replace it"
	case export.ErrInterrupted, export.ErrNoSpace:
		switch {
		case ee.Kept && ee.Kind == export.ErrNoSpace:
			advice = "free some space, then run the same command with --resume to continue"
		case ee.Kept:
			advice = "run the same command with --resume to continue"
		}
	}
	if advice == "" {
		return err
	}
	return adviceError{err, advice}
}

// adviceError is an export error with what to do about it on the command line.
type adviceError struct {
	err    error
	advice string
}

func (e adviceError) Error() string { return e.err.Error() + "; " + e.advice }
func (e adviceError) Unwrap() error { return e.err }

// retold is err told otherwise: msg, still matching what err matches.
type retold struct {
	msg string
	err error
}

func (e retold) Error() string { return e.msg }
func (e retold) Unwrap() error { return e.err }

// warnLowDisk warns when the output folder has less free space than the export may need.
func warnLowDisk(job exportJob, stderr io.Writer) {
	if job.out == "" {
		return
	}
	if w := export.LowSpace(filepath.Dir(job.out), job.w, job.h); w != "" {
		fmt.Fprintf(stderr, "mandelscope %s: warning: %s\n", job.cmd, w)
	}
}

// mainPart is the .part that holds an interrupted export's checkpoint: the PNG's, else the
// raw file's.
func (job exportJob) mainPart() string {
	if job.out != "" {
		return export.PartPath(job.target())
	}
	return export.PartPath(job.raw)
}

// exitNow ends the process at once (a second Ctrl-C); tests replace it.
var exitNow = os.Exit

// signalCode is the exit status for a process ended by s: 128 + the signal number.
func signalCode(s os.Signal) int {
	if s == syscall.SIGTERM {
		return 143
	}
	return 130
}

// interrupts is the signal handling of the long commands (export, recolour, video): the
// first signal from sigs writes first and cancels the context; a second writes second, runs
// quit (its clean-up) and ends the process at once with the signal's status. stop ends the
// handler (it has returned once stop has), so that nothing it writes comes after the
// caller's last line; caught is the first signal (nil: none).
type interrupts struct {
	ctx    context.Context
	mu     sync.Mutex
	got    os.Signal
	done   chan struct{}
	ended  chan struct{}
	cancel context.CancelFunc
}

func newInterrupts(sigs <-chan os.Signal, stderr io.Writer, first, second string, quit func()) *interrupts {
	in := &interrupts{done: make(chan struct{}), ended: make(chan struct{})}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	go func() {
		defer close(in.ended)
		select {
		case s := <-sigs:
			in.mu.Lock()
			in.got = s
			in.mu.Unlock()
			fmt.Fprint(stderr, first)
			in.cancel()
		case <-in.done:
			return
		}
		select {
		case s := <-sigs:
			fmt.Fprint(stderr, second)
			if quit != nil {
				quit()
			}
			exitNow(signalCode(s))
		case <-in.done:
		}
	}()
	return in
}

// stop ends the handler and releases the context.
func (in *interrupts) stop() {
	close(in.done)
	<-in.ended
	in.cancel()
}

// exitError is err, as the process's exit status for the signal caught when err says the
// work was interrupted (errors.Is(err, interrupted)).
func (in *interrupts) exitError(err, interrupted error) error {
	in.mu.Lock()
	s := in.got
	in.mu.Unlock()
	if errors.Is(err, interrupted) && s != nil {
		return ExitError{signalCode(s), err}
	}
	return err
}

// doExport runs the export with progress on stderr. The first signal from sigs (runExport
// sends SIGINT and SIGTERM there; tests their own) cancels it (it stops within about one
// render call, keeping the .part and checkpoint for --resume); a second one ends the process
// at once.
func doExport(job exportJob, r export.TileRenderer, stderr io.Writer, sigs <-chan os.Signal) error {
	tty := stderr
	stderr = &lockedWriter{w: stderr} // the signal goroutine and the progress write too
	// The signal goroutine ends before doExport returns, so that nothing it writes comes
	// after the caller's last line.
	in := newInterrupts(sigs, stderr,
		fmt.Sprintf("\nmandelscope %s: stopping, keeping what is done (again to quit at once)\n", job.cmd),
		fmt.Sprintf("mandelscope %s: quit at once; %s keeps the strips of its last checkpoint for --resume\n", job.cmd, job.mainPart()),
		func() {
			// This process holds the locks: remove their files, as the export would have (a
			// stale one would not block the next export, but is clutter).
			for _, p := range []string{job.target(), job.raw} {
				if p != "" {
					os.Remove(export.LockPath(p))
				}
			}
		})
	defer in.stop()
	ctx := in.ctx

	pr := newProgressPrinter(tty, job)
	pr.w = stderr
	opt := export.Options{
		Location: job.loc, Width: job.w, Height: job.h, Supersample: job.ss, Tile: job.tile, Raw: job.raw,
		Version: version.Version, Resume: job.resume, Overwrite: job.force, Progress: pr.update,
		Shard: job.shard, Shards: job.shards, Reference: job.ref, ReferenceDigest: job.refDigest,
		DensityChosen: job.densityChosen,
		// A shard run twice at once (a cluster's retry while the first still runs) waits for
		// the other run and keeps what it completed.
		WaitLock: job.shards > 0,
		Waiting: func(lp string) {
			fmt.Fprintf(stderr, "mandelscope export: another run of this shard holds %s; waiting for it\n", lp)
		},
		// An automatic density is chosen from a sample of the view computed on the CPU,
		// whichever renderer draws it: the same choice from the GPU and the CPU.
		Sampler:       &cpu.Renderer{},
		ShaderPainter: job.painter,
	}
	var sum export.Summary
	var err error
	if job.src != nil {
		fmt.Fprintf(stderr, "mandelscope recolour: %dx%d%s from %s -> %s\n", job.w, job.h, ssText(job.ss), job.src.Path, job.out)
		sum, err = export.Recolour(ctx, job.src, job.out, opt)
	} else {
		shard := ""
		if job.shards > 0 {
			shard = fmt.Sprintf(", shard %d of %d", job.shard, job.shards)
		}
		fmt.Fprintf(stderr, "mandelscope export: %dx%d%s%s with %s -> %s\n", job.w, job.h, ssText(job.ss), shard, r.Name(), strings.Join(outputs(job), " and "))
		sum, err = export.Export(ctx, r, job.out, opt)
	}
	pr.end()
	if err != nil {
		return in.exitError(withAdvice(err, job), export.ErrInterrupted)
	}
	if job.refIn != "" {
		fmt.Fprintf(stderr, "  reference orbit read from %s (digest %s)\n", job.refIn, job.refDigest[:16])
	}
	if sum.AlreadyComplete {
		fmt.Fprintf(stderr, "%s is already complete for these parameters: nothing to do\n", sum.Path)
		return nil
	}
	if job.src != nil {
		r = nil
	}
	printSummary(stderr, sum, r)
	if job.loc.Color.AutoDensity {
		fmt.Fprintf(stderr, "  density: automatic, %s for this view (recorded in the file)\n", sum.Location.Color.DensityText())
	}
	return nil
}

// lockedWriter serialises writes from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func ssText(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (%dx%d supersampled)", n, n)
}

// outputs names the job's output files.
func outputs(job exportJob) []string {
	var out []string
	for _, p := range []string{job.target(), job.raw} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func printSummary(w io.Writer, s export.Summary, r export.TileRenderer) {
	mpx := float64(s.Width) * float64(s.Height) / 1e6
	if s.Path != "" {
		fmt.Fprintf(w, "wrote %s: %dx%d (%.1f Mpx)%s in %s, %.1f Mpx/s, %s\n",
			s.Path, s.Width, s.Height, mpx, ssText(s.Supersample), roundDur(s.Elapsed), s.Rate, export.HumanBytes(s.Bytes))
	}
	if s.RawPath != "" {
		fmt.Fprintf(w, "wrote %s: %dx%d samples (every sample%s) in %s, %s\n",
			s.RawPath, s.Width*s.Supersample, s.Height*s.Supersample, ssText(s.Supersample), roundDur(s.Elapsed), export.HumanBytes(s.RawBytes))
	}
	if r == nil {
		return
	}
	longest := s.LongestDraw
	what := "tile"
	if g, ok := r.(*render.GL); ok {
		if st := g.Stats(); st.LongestDraw > 0 {
			longest, what = st.LongestDraw, "draw call"
		}
	}
	resumed := ""
	if s.Resumed > 0 {
		resumed = fmt.Sprintf(" (resumed after %d)", s.Resumed)
	}
	fmt.Fprintf(w, "  %s; %d strips%s, %d tiles; longest single %s %s\n", s.Renderer, s.Strips, resumed, s.Tiles, what, roundDur(longest))
	renderText := roundDur(s.Render)
	if s.Draw > 0 || s.ReadBack > 0 {
		renderText = fmt.Sprintf("%s (GPU draw %s, read-back %s)", renderText, roundDur(s.Draw), roundDur(s.ReadBack))
	}
	fmt.Fprintf(w, "  time: render %s, filter+compress %s (summed over cores, overlapping the render), disk write %s, render waiting for a free strip %s\n",
		renderText, roundDur(s.Compress), roundDur(s.Write), roundDur(s.Wait))
}

func roundDur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	default:
		return d.Round(time.Millisecond).String()
	}
}

// progressPrinter shows progress: a bar redrawn in place on a terminal, a plain line every
// few seconds otherwise.
type progressPrinter struct {
	cmd      string
	w        io.Writer
	tty      bool
	last     time.Time
	lastFrac float64
	drawn    bool
}

func newProgressPrinter(w io.Writer, job exportJob) *progressPrinter {
	p := &progressPrinter{cmd: job.cmd, w: w, last: time.Now()}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

func (p *progressPrinter) update(pr export.Progress) {
	frac := pr.Fraction()
	eta := "?"
	if pr.Rate > 0 {
		eta = pr.ETA.Round(time.Second).String()
	}
	if p.tty {
		const width = 30
		n := int(frac * width)
		fmt.Fprintf(p.w, "\r[%s%s] %5.1f%%  %6.1f Mpx/s  %s left   ", strings.Repeat("#", n), strings.Repeat(" ", width-n), 100*frac, pr.Rate, eta)
		p.drawn = true
		return
	}
	if time.Since(p.last) >= 5*time.Second || frac-p.lastFrac >= 0.25 || pr.Strip == pr.Strips {
		fmt.Fprintf(p.w, "mandelscope %s: %.0f%% (strip %d of %d), %.1f Mpx/s, %s left\n", p.cmd, 100*frac, pr.Strip, pr.Strips, pr.Rate, eta)
		p.last, p.lastFrac = time.Now(), frac
	}
}

func (p *progressPrinter) end() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// writeReference computes the view's reference orbit once and writes it to --reference-out;
// the export that follows (when there is one) draws with it.
func writeReference(job *exportJob, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t0 := time.Now()
	opt := export.Options{Location: job.loc, Width: job.w, Height: job.h, Supersample: job.ss}
	last := time.Now()
	ref, err := export.ComputeReference(ctx, opt, func(done, total int) {
		if time.Since(last) >= 5*time.Second {
			fmt.Fprintf(stderr, "mandelscope %s: reference orbit %d of %d iterations\n", job.cmd, done, total)
			last = time.Now()
		}
	})
	if err != nil {
		if ctx.Err() != nil {
			return ExitError{130, errors.New("interrupted while computing the reference orbit; nothing was written")}
		}
		return err
	}
	digest, err := export.WriteReferenceFile(job.refOut, ref, job.force)
	if err != nil {
		return withAdvice(err, *job)
	}
	size := int64(0)
	if st, err := os.Stat(job.refOut); err == nil {
		size = st.Size()
	}
	fmt.Fprintf(stderr, "wrote %s: the reference orbit, %d values at %d bits, %s, in %s (digest %s)\n",
		job.refOut, len(ref.Z), ref.Prec(), export.HumanBytes(size), roundDur(time.Since(t0)), digest[:16])
	job.ref, job.refDigest = ref, digest
	return nil
}
