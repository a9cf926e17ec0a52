package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/cmplx"
	"sort"
	"time"

	"mandelscope/fractal"
	"mandelscope/internal/text"
	"mandelscope/preview"
	"mandelscope/render"
	"mandelscope/render/cpu"
)

// benchTarget is the point the bench zooms towards: on the boundary, near the seahorse valley.
var benchTarget = [2]float64{-0.743643887037151, 0.131825904205330}

// benchDepth is the zoom the bench path ends at.
const benchDepth = 1e10

// benchRenderer is what the bench needs: the scheduler's renderer plus a name.
type benchRenderer interface {
	preview.Renderer
	Name() string
}

// benchResult is the bench's last line, one JSON object.
type benchResult struct {
	Renderer            string         `json:"renderer"`
	RendererName        string         `json:"renderer_name"`
	Size                string         `json:"size"`
	Julia               string         `json:"julia,omitempty"` // --julia's c, RE,IM
	Width               int            `json:"width"`
	Height              int            `json:"height"`
	InteractiveFrames   int            `json:"interactive_frames"`
	InteractiveP50ms    float64        `json:"interactive_p50_ms"`
	InteractiveP95ms    float64        `json:"interactive_p95_ms"`
	InteractiveMaxms    float64        `json:"interactive_max_ms"`
	InteractiveScales   map[string]int `json:"interactive_scales"`
	InteractiveBlockP50 float64        `json:"interactive_block_p50_px"`
	InteractiveBlockP95 float64        `json:"interactive_block_p95_px"`
	InteractiveReused   int            `json:"interactive_reused_frames"`
	FullFrames          int            `json:"full_frames"`
	FullFrameMedianms   float64        `json:"full_frame_median_ms"`
	FullFrameMaxms      float64        `json:"full_frame_max_ms"`
	MpixPerS            float64        `json:"mpix_per_s"`
	FinalZoom           float64        `json:"final_zoom"`
	TotalSeconds        float64        `json:"total_s"`
	InteractiveTargetm  float64        `json:"interactive_target_ms"`
}

// runBench drives the window's preview scheduler (preview/) along a fixed path of pans and
// zooms from fractal.Home() (with --julia, the Julia set of c seen whole) down to zoom 1e10
// and reports the interactive (reduced resolution) and full-resolution frame times; its last
// line is one JSON object.
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := NewFlagSet("bench", stderr)
	size := fs.String("size", "1280x720", "view size WxH")
	rend := fs.String("renderer", "gpu", "renderer: gpu (falls back to the CPU with a warning) or cpu")
	verbose := fs.Bool("v", false, "print every frame")
	juliaText := fs.String("julia", "", "RE,IM: the path through the Julia set of c = RE+IM i instead of the Mandelbrot set (off: the Mandelbrot set)")
	rest, err := ParseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return UsageErr("unexpected argument %q", text.Clip(rest[0], 40))
	}
	start, target := fractal.Home(), benchTarget
	if *juliaText != "" {
		// As the view flags read it (applyJulia): RE,IM, or off for the Mandelbrot set.
		if start, err = applyJulia(start, *juliaText); err != nil {
			return UsageErr("--julia: %v", err)
		}
		if err := start.Validate(); err != nil {
			return UsageErr("--julia: %v", err)
		}
		if start.IsJulia() {
			target = juliaTarget(complex(start.Julia.Re.Float64(), start.Julia.Im.Float64()))
		}
	}
	w, h, err := parseSize(*size)
	if err != nil {
		return UsageErr("--size: %v", err)
	}
	if w*h > 8192*8192 {
		return UsageErr("--size: %dx%d is too big for a preview benchmark (at most 8192x8192 pixels in all)", w, h)
	}
	switch *rend {
	case "gpu", "cpu", "auto":
	default:
		return UsageErr("--renderer: %q must be gpu or cpu", text.Clip(*rend, 40))
	}
	var runErr error
	render.Main(func() {
		var r benchRenderer = &cpu.Renderer{}
		id := "cpu"
		if *rend != "cpu" {
			g, err := render.NewGL(render.Options{})
			if err != nil {
				fmt.Fprintf(stderr, "mandelscope bench: warning: no OpenGL, using the CPU renderer: %v\n", err)
			} else {
				defer g.Close()
				r, id = g, g.Renderer()
			}
		}
		runErr = benchPath(r, id, start, target, w, h, *verbose, stdout)
	})
	return runErr
}

// benchStep is one frame of the scripted path.
type benchStep struct {
	loc  fractal.Location
	full bool // a full-resolution frame (input stopped) rather than an interactive one
}

// juliaTarget is the point a Julia set's bench zooms towards: a point of the Julia set of c,
// where it has detail at every depth, found by backward iteration (z <- +-sqrt(z - c) from
// any start converges on the set), the signs in a fixed pattern.
func juliaTarget(c complex128) [2]float64 {
	z := complex(1, 0.5)
	seed := uint32(12345)
	for range 200 {
		z = cmplx.Sqrt(z - c)
		seed = seed*1664525 + 1013904223
		if seed>>31 == 1 {
			z = -z
		}
	}
	return [2]float64{real(z), imag(z)}
}

// benchScript is the fixed path from fractal.Home() towards benchTarget (benchScriptFrom).
func benchScript(w, h int) []benchStep { return benchScriptFrom(fractal.Home(), benchTarget, w, h) }

// benchScriptFrom is the fixed path from start towards target: at each decade of zoom, four
// pans of 60 pixels (right, down, left, up) and a full frame, then wheel notches (x1.25 about
// the centre) interleaved with pans that bring the target to the centre, to the next decade;
// the last decade ends at 1e10.
func benchScriptFrom(start fractal.Location, target [2]float64, w, h int) []benchStep {
	var steps []benchStep
	loc := start
	auto := func(l fractal.Location) fractal.Location {
		l.Iterations = fractal.AutoIterations(l.ZoomFloat())
		return l
	}
	nextDecade := 1.0
	for {
		z := loc.ZoomFloat()
		if z >= nextDecade*0.999 {
			for _, d := range [][2]float64{{60, 0}, {0, 60}, {-60, 0}, {0, -60}} {
				loc = loc.Offset(d[0], d[1], w, h)
				steps = append(steps, benchStep{loc: loc})
			}
			steps = append(steps, benchStep{loc: loc, full: true})
			if z >= benchDepth*0.999 {
				return steps
			}
			nextDecade *= 10
		}
		// A drag towards the target: up to 80 pixels, 40% of the way.
		s := fractal.Spacing(z, w, h)
		dx := (target[0] - loc.Re.Float64()) / s
		dy := -(target[1] - loc.Im.Float64()) / s
		if d := math.Hypot(dx, dy); d > 0.5 {
			k := math.Min(0.4, 80/d)
			loc = loc.Offset(dx*k, dy*k, w, h)
			steps = append(steps, benchStep{loc: loc})
		}
		// A wheel notch about the centre, never past the decade.
		f := math.Min(preview.WheelStep, nextDecade/z)
		loc = auto(loc.ZoomAt(float64(w)/2, float64(h)/2, f, w, h))
		steps = append(steps, benchStep{loc: loc})
	}
}

// benchPath runs the path from from towards target (benchScriptFrom) on renderer r and prints
// the figures.
func benchPath(r benchRenderer, id string, from fractal.Location, target [2]float64, w, h int, verbose bool, stdout io.Writer) error {
	s := preview.New(r)
	steps := benchScriptFrom(from, target, w, h)
	set := "the Mandelbrot set"
	if from.IsJulia() {
		set = "the Julia set of c = " + from.Julia.String()
	}
	fmt.Fprintf(stdout, "mandelscope bench: %s, %dx%d, %d scripted frames through %s from zoom 1 to %g towards %g%+gi\n",
		r.Name(), w, h, len(steps), set, benchDepth, target[0], target[1])
	var inter, full, decade []time.Duration
	var blocks []float64 // each interactive frame's median block side
	var decadeB []float64
	reused := 0
	scales := map[string]int{}
	var fullPx int64
	var fullTime time.Duration
	start := time.Now()
	for _, st := range steps {
		if !st.full {
			_, fs, err := s.Interactive(context.Background(), st.loc, w, h)
			if err != nil {
				return err
			}
			if verbose {
				fmt.Fprintf(stdout, "  interactive zoom %-8.3g scale 1/%d, %d px rendered, reused %v, block median %.2f p95 %.2f: render %.1f ms, total %.1f ms\n",
					st.loc.ZoomFloat(), fs.Scale, fs.PixelsRendered, fs.Reused, fs.Block, fs.BlockP95, ms(fs.Render), ms(fs.Total))
			}
			blocks = append(blocks, fs.Block)
			decadeB = append(decadeB, fs.Block)
			if fs.Reused {
				reused++
			}
			inter = append(inter, fs.Total)
			decade = append(decade, fs.Total)
			scales[fmt.Sprint(fs.Scale)]++
			continue
		}
		_, fs, err := s.Full(context.Background(), st.loc, w, h, nil)
		if err != nil {
			return err
		}
		full = append(full, fs.Total)
		fullPx += int64(w * h)
		fullTime += fs.Total
		mode := fractal.NewFrame(st.loc, w, h).Precision().String()
		if m, ok := r.(interface{ Mode(fractal.Frame) string }); ok {
			mode = m.Mode(fractal.NewFrame(st.loc, w, h))
		}
		fmt.Fprintf(stdout, "zoom %-8.3g iterations %-5d %-28s interactive: %3d frames, p95 %6.1f ms, block p50 %4.2f px | full frame %7.1f ms\n",
			st.loc.ZoomFloat(), st.loc.Iterations, mode, len(decade), ms(preview.Percentile(decade, 95)),
			percentile(decadeB, 50), ms(fs.Total))
		decade, decadeB = decade[:0], decadeB[:0]
	}
	res := benchResult{
		Renderer: id, RendererName: r.Name(), Size: fmt.Sprintf("%dx%d", w, h), Width: w, Height: h, Julia: from.Julia.String(),
		InteractiveFrames:   len(inter),
		InteractiveP50ms:    round1(ms(preview.Percentile(inter, 50))),
		InteractiveP95ms:    round1(ms(preview.Percentile(inter, 95))),
		InteractiveMaxms:    round1(ms(preview.Percentile(inter, 100))),
		InteractiveScales:   scales,
		InteractiveBlockP50: percentile(blocks, 50),
		InteractiveBlockP95: percentile(blocks, 95),
		InteractiveReused:   reused,
		FullFrames:          len(full),
		FullFrameMedianms:   round1(ms(preview.Percentile(full, 50))),
		FullFrameMaxms:      round1(ms(preview.Percentile(full, 100))),
		FinalZoom:           steps[len(steps)-1].loc.ZoomFloat(),
		TotalSeconds:        round1(time.Since(start).Seconds()),
		InteractiveTargetm:  ms(preview.DefaultTarget),
	}
	if fullTime > 0 {
		res.MpixPerS = round1(float64(fullPx) / 1e6 / fullTime.Seconds())
	}
	keys := make([]string, 0, len(scales))
	for k := range scales {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(stdout, "interactive: %d frames (%d reusing the last), p50 %.1f ms, p95 %.1f ms, max %.1f ms; block side p50 %.2f px, p95 %.2f px (coarsest scales rendered:", len(inter),
		reused, res.InteractiveP50ms, res.InteractiveP95ms, res.InteractiveMaxms, res.InteractiveBlockP50, res.InteractiveBlockP95)
	for _, k := range keys {
		fmt.Fprintf(stdout, " 1/%s x%d", k, scales[k])
	}
	fmt.Fprintf(stdout, ")\nfull resolution: %d frames, median %.1f ms, max %.1f ms, %.1f Mpix/s\n",
		len(full), res.FullFrameMedianms, res.FullFrameMaxms, res.MpixPerS)
	b, err := json.Marshal(res)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}

// percentile is the p-th percentile (0..100) of vs by nearest rank; 0 for none.
func percentile(vs []float64, p float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(k, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func round1(v float64) float64 { return math.Round(v*10) / 10 }
