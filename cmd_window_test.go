package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"mandelscope/fractal"
	"mandelscope/internal/cli"
	"mandelscope/preview"
)

func TestWindowBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--renderer=vulkan"}, {"--zoom=-1"}, {"--size=1x"}, {"--center=1"}, {"--julia=1"}, {"--julia=9,0"}} {
		err := runWindow(args)
		var ee cli.ExitError
		if !errors.As(err, &ee) || ee.Code != 2 || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: error %v, want a one-line usage error", args, err)
		}
	}
}

// TestWindowJuliaFlag: --julia gives the window its start view, the Julia set of c (whole,
// unless --center and --zoom say otherwise), every digit of c kept; without location flags
// the window restores the last session's view.
func TestWindowJuliaFlag(t *testing.T) {
	c := "-0.8" + strings.Repeat("1", 200) + ",0.156"
	opts, rend, err := parseWindow([]string{"--renderer=cpu", "--julia=" + c})
	if err != nil || rend != "cpu" || !opts.Start.IsJulia() || opts.Start.Julia.String() != c || opts.Start.Zoom.String() != "1" || opts.Start.Re.String() != "0" {
		t.Errorf("--julia: %v, %q, %v", opts.Start, rend, err)
	}
	opts, _, err = parseWindow([]string{"--julia=-0.8,0.156", "--center=0.1,0.2", "--zoom=1e9"})
	if err != nil || opts.Start.Julia.String() != "-0.8,0.156" || opts.Start.Re.String() != "0.1" || opts.Start.Zoom.String() != "1e9" {
		t.Errorf("--julia with --center and --zoom: %v, %v", opts.Start, err)
	}
	if opts, _, err = parseWindow([]string{"--renderer=cpu"}); err != nil || opts.Start != (fractal.Location{}) {
		t.Errorf("no location flags: start %v, %v; want none (the last session's)", opts.Start, err)
	}
	_, _, err = parseWindow([]string{"--julia=x,0"})
	if err == nil || !strings.HasPrefix(err.Error(), "--julia: ") {
		t.Errorf("--julia=x,0: %v", err)
	}
}

// A --size the window cannot hold (the GL viewport, the preview's memory budget) is a one-line
// usage error naming the bound, before any window is made: 30000x30000 panicked in Fyne's GL
// setup, 65536x65536 was an X error, 8192x8192 ran out of memory.
func TestWindowSizeBounded(t *testing.T) {
	for _, c := range []struct{ size, want string }{
		{"30000x30000", "16384 pixels a side"},
		{"65536x65536", "16384 pixels a side"},
		{"20000x600", "16384 pixels a side"},
		{"8192x8192", "million pixels"},
		{"8k", "1024 MiB of preview memory"},
	} {
		err := runWindow([]string{"--size=" + c.size})
		var ee cli.ExitError
		if !errors.As(err, &ee) || ee.Code != 2 || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--size=%s: error %v, want a one-line usage error naming %q", c.size, err, c.want)
		}
	}
	for _, s := range []string{"1280x800", "4k", "16384x480"} {
		if _, err := parseWindowSize(s); err != nil {
			t.Errorf("--size=%s refused: %v", s, err)
		}
	}
}

// A panic while the window starts (Fyne panics when its GL programs do not link) is a
// one-line error, not a crash.
func TestGuardWindow(t *testing.T) {
	err := guardWindow(func() { panic("failed to link OpenGL program; error code: 505") })
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "error code: 505") {
		t.Errorf("guardWindow of a panic: %v, want one line with the panic's text", err)
	}
	err = guardWindow(func() { panic(errors.New("failed to link OpenGL program:\nERROR: 0:1: something\n")) })
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "something") {
		t.Errorf("guardWindow of a multi-line panic: %v, want one line", err)
	}
	if err := guardWindow(func() {}); err != nil {
		t.Errorf("guardWindow of a window that ran: %v", err)
	}
}

// The frame trace's line for a picture recoloured from the kept data starts with
// "recolour WxH" and gives its time in ms and the samples it averages.
func TestTraceRecolourLine(t *testing.T) {
	r := preview.Result{Req: preview.Request{Loc: fractal.Home(), W: 1280, H: 720}, Samples: 16, SamplesOf: 16,
		Stats: preview.FrameStats{Width: 1280, Height: 720, Scale: 1, Total: 42300 * time.Microsecond, Recoloured: true}}
	got := traceFrame(r)
	want := "recolour 1280x720 42.3 ms samples 16/16 at " + fractal.Home().String()
	if got != want {
		t.Errorf("trace line %q, want %q", got, want)
	}
	r.Stats.Recoloured = false
	if got := traceFrame(r); got != "samples 16/16 at "+fractal.Home().String() {
		t.Errorf("a sample's line: %q", got)
	}
}

// A view's picture from the cache is traced as a full-resolution frame (scale 1/1,
// interactive false), marked "cached" with its samples at the end.
func TestTraceCachedLine(t *testing.T) {
	r := preview.Result{Req: preview.Request{Loc: fractal.Home(), W: 1280, H: 720}, Samples: 16, SamplesOf: 16,
		Stats: preview.FrameStats{Width: 1280, Height: 720, RenderW: 1280, RenderH: 720, Scale: 1, Block: 1, Cached: true}}
	got := traceFrame(r)
	want := "frame 1280x720 scale 1/1 render 0.0 ms total 0.0 ms interactive false reused false px 0 block 1 at " +
		fractal.Home().String() + " cached samples 16/16"
	if got != want {
		t.Errorf("trace line %q, want %q", got, want)
	}
}
