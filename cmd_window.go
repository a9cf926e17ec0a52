package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"mandelscope/app"
	"mandelscope/assets"
	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/cli"
	"mandelscope/internal/text"
	"mandelscope/preview"
	"mandelscope/render"
)

// runWindow opens the explorer window: `mandelscope [--renderer=auto|gpu|cpu] [--size=WxH]
// [location flags]`; without location flags (and without --size, for the size) it reopens
// the last session's view, window size (fitted to the screen and to the memory budget) and
// bookmarks panel. A --size beyond what the window can hold is a usage error. It returns when
// the window is closed, Ctrl+Q is pressed or a SIGINT, SIGTERM or SIGHUP comes (each saves the
// view). With MANDELSCOPE_TRACE_FRAMES set in the environment it prints a line on stderr for
// every frame shown.
func runWindow(args []string) error {
	opts, rend, err := parseWindow(args)
	if cli.WriteHelp(err, os.Stdout) { // the window's flags, with the commands: mandelscope --help
		return nil
	}
	if err != nil {
		return err
	}
	// The views' pictures and data take up to preview.CacheBudget: the collector keeps the
	// heap near that rather than at twice it.
	preview.SetMemoryLimit()
	if os.Getenv("MANDELSCOPE_TRACE_FRAMES") != "" {
		opts.OnFrame = func(r preview.Result) { fmt.Fprintln(os.Stderr, traceFrame(r)) }
		opts.SignalsTaken = func() { fmt.Fprintln(os.Stderr, "signals: SIGINT and SIGTERM taken from the toolkit") }
	}
	// A restored size fits the screen; SIGINT, SIGTERM and SIGHUP end the session as the close
	// button does (the view saved), a second one at once.
	opts.Screen = render.ScreenArea
	opts.Signals, opts.CatchSignals = make(chan os.Signal, 1), true
	opts.ForceQuit = func() {
		fmt.Fprintln(os.Stderr, "mandelscope: quitting at once (a second signal)")
		os.Exit(1)
	}
	// Fyne 2.7.1 can stop its run loop with its own stop hook still queued for the main
	// thread (internal/driver/glfw runGL drains funcQueue before the lifecycle queue has handed
	// the hook over): Run then waits for that hook for ever, and the program never exits. It
	// came about once in eight Ctrl+Q under load: the goroutine dump shows the main goroutine in
	// Lifecycle.WaitForEvents and the lifecycle queue in runOnMainWithWait. By the time Stopped
	// is called the session is saved and its work stopped, so a run loop that has not returned
	// stuckQuitGrace later ends the program as returning would have.
	opts.Stopped = func() {
		time.AfterFunc(stuckQuitGrace, func() {
			fmt.Fprintln(os.Stderr, "mandelscope: the window's toolkit did not finish quitting; exiting (the session was saved)")
			os.Exit(0)
		})
	}
	var w *app.Window
	if rend != "cpu" {
		// Called once the app runs, when w is set: the renderer's main-thread calls go
		// through the window, whose closing waits for a renderer being made.
		opts.NewGPU = func() (app.Renderer, error) { return newGPURenderer(w.MainThread) }
	}
	return guardWindow(func() {
		a := fyneapp.NewWithID("io.mandelscope.app")
		a.SetIcon(fyne.NewStaticResource("icon.png", assets.Icon))
		w = app.New(a, opts)
		w.ShowAndRun()
		app.SettlePreferences(a)
	})
}

// stuckQuitGrace is how long the program waits, once the session has ended, for the
// toolkit's run loop to return before it exits by itself (opts.Stopped in runWindow).
const stuckQuitGrace = 5 * time.Second

// parseWindow reads the window's command line into its options (the start view, when a
// location flag is given (--julia among them), the size, the renderer, the session restored)
// and the renderer's name; every error is a one-line usage error, and -h or --help gives
// the error cli.WriteHelp prints.
func parseWindow(args []string) (app.Options, string, error) {
	fs := cli.NewFlagSet("", os.Stderr)
	wf := cli.AddWindowFlags(fs)
	lf, rend, size := wf.Location, wf.Renderer, wf.Size
	rest, err := cli.ParseFlags(fs, args)
	if err != nil {
		return app.Options{}, "", err
	}
	if len(rest) > 0 {
		return app.Options{}, "", cli.UsageErr("unexpected argument %q", text.Clip(rest[0], 40))
	}
	switch *rend {
	case "auto", "gpu", "cpu":
	default:
		return app.Options{}, "", cli.UsageErr("--renderer: %q must be auto, gpu or cpu", text.Clip(*rend, 40))
	}
	loc, err := lf.Apply(fractal.Home(), true)
	if err != nil {
		return app.Options{}, "", err
	}
	// Without location flags the window comes back where the last session left it.
	located := false
	fs.Visit(func(f *flag.Flag) { located = located || (f.Name != "renderer" && f.Name != "size") })
	opts := app.Options{Renderer: *rend, Restore: true, Accumulate: preview.AccumulateN}
	if located {
		opts.Start = loc
	}
	if *size != "" {
		ws, err := parseWindowSize(*size)
		if err != nil {
			return app.Options{}, "", cli.UsageErr("--size: %v", err)
		}
		opts.Size = ws
	}
	return opts, *rend, nil
}

// traceFrame is the line MANDELSCOPE_TRACE_FRAMES prints for a frame shown: a partial one,
// a picture recoloured from the kept data (its time, and the samples it averages), the
// samples accumulated so far, or a rendered frame; a view's picture from the cache is a
// full-resolution frame like any other, marked "cached" (with its samples) at the end.
func traceFrame(r preview.Result) string {
	switch {
	case r.Stats.Cached:
		return fmt.Sprintf("%s cached samples %d/%d", frameLine(r), r.Samples, r.SamplesOf)
	case r.Partial:
		return fmt.Sprintf("partial %.0f%% (scale 1/%d) at %s", 100*r.Done, max(r.Stats.Scale, 1), r.Req.Loc)
	case r.Stats.Recoloured:
		return fmt.Sprintf("recolour %dx%d %.1f ms samples %d/%d at %s", r.Stats.Width, r.Stats.Height,
			float64(r.Stats.Total.Microseconds())/1000, r.Samples, r.SamplesOf, r.Req.Loc)
	case r.Samples > 0:
		return fmt.Sprintf("samples %d/%d at %s", r.Samples, r.SamplesOf, r.Req.Loc)
	}
	return frameLine(r)
}

// frameLine is the trace's line for a frame.
func frameLine(r preview.Result) string {
	return fmt.Sprintf("frame %dx%d scale 1/%d render %.1f ms total %.1f ms interactive %v reused %v px %d block %.2g at %s",
		r.Stats.Width, r.Stats.Height, r.Stats.Scale, float64(r.Stats.Render.Microseconds())/1000,
		float64(r.Stats.Total.Microseconds())/1000, r.Req.Interactive, r.Stats.Reused, r.Stats.PixelsRendered,
		r.Stats.Block, r.Req.Loc)
}

// parseWindowSize reads --size for the window: a size (or preset) as export.ParseSize reads
// it, within what the window can hold (app.CheckWindowSize: the GL viewport and the preview's
// memory budget).
func parseWindowSize(s string) (fyne.Size, error) {
	w, h, err := export.ParseSize(s)
	if err != nil {
		return fyne.Size{}, err
	}
	if err := app.CheckWindowSize(w, h); err != nil {
		return fyne.Size{}, err
	}
	return fyne.NewSize(float32(w), float32(h)), nil
}

// guardWindow runs the window (fn), turning a panic on its goroutine into a one-line error:
// Fyne panics when its own GL programs do not link, as when the driver cannot allocate the
// window's framebuffer ("failed to link OpenGL program; error code: 505", GL_OUT_OF_MEMORY).
func guardWindow(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the window could not start: %s", cli.OneLine(fmt.Errorf("%v", r)))
		}
	}()
	fn()
	return nil
}

// newGPURenderer makes the window's GPU renderer. The window calls it on a goroutine once the
// Fyne app has started (Fyne owns GLFW and the main thread, hence the window's MainThread,
// which runs f through fyne.Do).
// It says on stderr which renderer the window uses.
func newGPURenderer(mainThread func(func())) (app.Renderer, error) {
	g, err := render.NewGL(render.Options{MainThread: mainThread})
	if err != nil {
		fmt.Fprintf(os.Stderr, "mandelscope: no OpenGL, the window renders on the CPU: %v\n", err)
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "mandelscope: the window renders with %s\n", g.Name())
	return g, nil
}
