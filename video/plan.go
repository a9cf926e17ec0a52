// Package video makes zoom videos: a sequence of frames that zooms exponentially in time
// from a start zoom to an end view, centred on the end view's centre. The frames are not
// rendered one by one: one keyframe per doubling of the zoom is computed once (samples, not
// colours: colour.Data), larger than a frame, all of them sharing one reference orbit, and
// every frame is composed from the two keyframes around its zoom by colouring their data
// (colour.Colourer) and blending the colours, so a colouring change computes nothing again. The
// keyframes are kept in a work folder beside the output so that an interrupted video resumes;
// the frames are piped to ffmpeg (Debian's package ffmpeg) and/or written as numbered PNGs. The
// keyframes may instead be written as OpenEXR files in Kalles Fraktaler's zoom-out layout
// (kfexr.go), for programs that read its sequences.
//
// The package knows neither Fyne nor OpenGL: it computes through a tile.Computer (the CPU
// renderer or the GL one, wired by the command line).
package video

import (
	"fmt"
	"math"

	"mandelscope/fractal"
)

// Limits of a video.
const (
	// MaxFPS bounds the frame rate.
	MaxFPS = 240
	// MaxFrames bounds the number of frames (fps x duration): about 4.6 hours at 60 fps.
	MaxFrames = 1_000_000
	// MaxSide bounds a frame's side; a keyframe is KeyScale times that.
	MaxSide = 8192
	// MaxKeyScale bounds Options.KeyScale.
	MaxKeyScale = 4
	// MaxSupersample bounds Options.Supersample.
	MaxSupersample = 4
	// MaxPaletteCycle bounds Options.PaletteCycle, in turns a second either way.
	MaxPaletteCycle = 100
	// DefaultKeyScale is a keyframe's side over a frame's (see Options.KeyScale).
	DefaultKeyScale = 2
	// DefaultSupersample is the subsamples per side of an output pixel (see
	// Options.Supersample).
	DefaultSupersample = 2
)

// snap is how close, in log2 of the zoom, a frame's zoom must be to a keyframe's for the
// frame to be composed from that keyframe alone (the first and last frames are).
const snap = 1e-9

// Plan is where a video's keyframes and frames lie on the zoom axis, measured in log2 of the
// zoom over the start zoom: keyframe j at Levels[j] (0, 1, 2, ... and the end, L), frame k
// of Frames at k*L/(Frames-1), or, for a timeline of waypoints, at the timeline's level at
// k/(Frames-1) of its duration.
type Plan struct {
	Start, End fractal.Decimal // the start (the least zoom of a timeline) and end zoom
	L          float64         // log2(End/Start)
	Levels     []float64       // each keyframe's level: 0, 1, ..., then L
	Frames     int             // the number of frames, at least 2
	// path is the waypoints' timeline (nil: the constant-speed zoom from Start to End), and
	// duration its last waypoint's time.
	path     *timeline
	duration float64
}

// NewPlan plans a zoom from start to end in frames frames: one keyframe per doubling from
// start, and one at end exactly (the last doubling is dropped when it falls within a
// hundredth of a doubling of the end, which then takes its place).
func NewPlan(start, end fractal.Decimal, frames int) (Plan, error) {
	if frames < 2 {
		return Plan{}, fmt.Errorf("%d frames: a video needs at least 2", frames)
	}
	l := end.Exp().Log2() - start.Exp().Log2()
	if !(l > 0) || math.IsInf(l, 0) {
		return Plan{}, fmt.Errorf("the start zoom %s must be below the end zoom %s", fractal.FormatZoom(start.Exp()), fractal.FormatZoom(end.Exp()))
	}
	p := Plan{Start: start, End: end, L: l, Frames: frames}
	for j := 0; float64(j) < l-0.01; j++ {
		p.Levels = append(p.Levels, float64(j))
	}
	p.Levels = append(p.Levels, l)
	return p, nil
}

// NewWaypointPlan plans the timeline ws (checked by CheckWaypoints, ending at its last zoom)
// in frames frames: the keyframes of NewPlan from the least zoom of ws to the last, and frame
// k at the timeline's level at k/(frames-1) of the last waypoint's time (so that the first
// and last frames are the first and last waypoints, and a frame shows the timeline within one
// frame's time of where it plays). Two waypoints make NewPlan's plan, frame for frame.
func NewWaypointPlan(ws []Waypoint, frames int) (Plan, error) {
	if err := CheckWaypoints(ws, ws[len(ws)-1].Zoom); err != nil {
		return Plan{}, err
	}
	least := ws[0].Zoom
	for _, w := range ws[1:] {
		if w.Zoom.Exp().Cmp(least.Exp()) < 0 {
			least = w.Zoom
		}
	}
	end := ws[len(ws)-1].Zoom
	p, err := NewPlan(least, end, frames)
	if err != nil || len(ws) == 2 {
		return p, err
	}
	t := make([]float64, len(ws))
	y := make([]float64, len(ws))
	base := least.Exp().Log2()
	for i, w := range ws {
		t[i] = w.T
		switch {
		case i == len(ws)-1:
			y[i] = p.L
		case i > 0 && w.Zoom.SameNumber(ws[i-1].Zoom):
			y[i] = y[i-1] // a hold: exactly the same level
		case w.Zoom.SameNumber(least):
			y[i] = 0
		default:
			y[i] = min(max(w.Zoom.Exp().Log2()-base, 0), p.L)
		}
	}
	p.path, p.duration = newTimeline(t, y), t[len(t)-1]
	return p, nil
}

// Keyframes is the number of keyframes.
func (p Plan) Keyframes() int { return len(p.Levels) }

// Level is frame k's level: k*L/(Frames-1), exactly L for the last frame.
func (p Plan) Level(k int) float64 {
	if k >= p.Frames-1 {
		return p.L
	}
	if p.path != nil {
		if k <= 0 {
			return p.path.y[0]
		}
		return p.path.at(float64(k) * p.duration / float64(p.Frames-1))
	}
	return float64(k) * p.L / float64(p.Frames-1)
}

// Zoom is keyframe j's zoom as exact decimal text: Start*2^j, and End for the last.
func (p Plan) Zoom(j int) fractal.Decimal {
	if j == len(p.Levels)-1 {
		return p.End
	}
	if j == 0 {
		return p.Start
	}
	return fractal.DecimalFromExp(p.Start.Exp().Ldexp(j))
}

// FrameZoom is frame k's zoom, rounded (for messages and direct renders in tests).
func (p Plan) FrameZoom(k int) fractal.Exp {
	lv := p.Level(k)
	switch {
	case lv == 0:
		return p.Start.Exp()
	case lv == p.L:
		return p.End.Exp()
	}
	whole := math.Floor(lv)
	return p.Start.Exp().Ldexp(int(whole)).MulFloat(math.Exp2(lv - whole))
}

// Pair returns the keyframes frame k is composed from: outer, whose level is at or below
// the frame's (it covers the whole frame), and inner, the next one (finer, covering the
// frame's middle); inner is -1 where the frame lies on outer's level (within snap) and
// outer alone is used.
func (p Plan) Pair(k int) (outer, inner int) {
	lv := p.Level(k)
	for j, kl := range p.Levels {
		if math.Abs(lv-kl) <= snap {
			return j, -1
		}
	}
	outer = 0
	for j, kl := range p.Levels {
		if kl <= lv {
			outer = j
		}
	}
	return outer, outer + 1
}
