package video

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	"mandelscope/colour"
	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/text"
	"mandelscope/internal/tile"
	"mandelscope/internal/userfile"
)

// Options describe a video.
type Options struct {
	// Location is the end view: the centre every frame shares, the end zoom, the iterations
	// every keyframe is computed with, and the colouring (an automatic density is resolved
	// once, from the end view, and kept for every frame).
	Location fractal.Location
	// ShaderPainter runs the location's colouring shader (colour.Coloring.Shader) over the
	// keyframes' samples: the OpenGL renderer. A video with a shader and without one is
	// refused before any work (colour.ErrNoShaderPainter).
	ShaderPainter colour.ShaderPainter
	// StartZoom is the first frame's zoom (the zero Decimal: 1, the whole set).
	StartZoom fractal.Decimal
	// Width, Height are the frames' size; FPS and Duration (seconds) make the number of
	// frames, FPS x Duration rounded.
	Width, Height int
	FPS           int
	Duration      float64
	// Waypoints, when set, are the video's timeline (waypoints.go): the first at 0 s, the
	// last at the end view's zoom; they set StartZoom (the first's zoom) and Duration (the
	// last's time). Two waypoints are the same video as that StartZoom and Duration.
	Waypoints []Waypoint
	// Audio, when set, is a sound file muxed into the video (audio.go).
	Audio string
	// PaletteCycle turns the palette offset that many times a second of video (0: not at
	// all; negative: the other way, at most MaxPaletteCycle either way): frame k is coloured
	// with the offset plus PaletteCycle x k / FPS (frameColouring). Only the colour pass
	// changes: the keyframes are the same.
	PaletteCycle float64
	// Supersample is the subsamples per side of an output pixel (0: DefaultSupersample).
	Supersample int
	// KeyScale is a keyframe's side over a frame's (0: DefaultKeyScale): for rings
	// keyframes, the samples per frame pixel along the frame's outer ring.
	KeyScale int
	// Layout is the keyframes' layout: LayoutRings (""), an exponential map (expmap.go), or
	// LayoutFlat, one flat keyframe a doubling.
	Layout string
	// Output is the video file ("": frames only); Codec its codec ("": h264), CRF its
	// constant-quality level, 1 to the codec's MaxCRF (0: the codec's default, Codec.CRF).
	Output string
	Codec  string
	CRF    int
	// FramesDir, when set, receives every frame as frame-NNNNNN.png (from 000000).
	FramesDir string
	// Resume continues from the keyframes in the work folder; Force replaces an existing
	// output (and, without Resume, starts the keyframes over).
	Resume, Force bool
	// KeepWork keeps the work folder after a finished video, so that a resume with Force
	// and another colouring, frame rate or duration composes it again computing nothing.
	KeepWork bool
	// Renderer names the computer for the work folder's manifest (a resume by another is
	// refused): its Identity(frame) of the deepest keyframe when it has that method.
	Renderer string
	// Progress, when set, is told how far the work has come.
	Progress func(Progress)
	// Shards > 0 makes this run shard Shard (0-based) of Shards: it computes only its share
	// of the keyframes into the work folder, which the shards share, and composes nothing
	// (see shard.go); Assemble then makes the video. Waiting, when set, is told once that
	// another run of the same shard holds its lock (this one waits for it).
	Shard, Shards int
	Waiting       func(lockPath string)
	// Notice, when set, is told in one line of each file of the work folder found unsound
	// and done again (a damaged keyframe, or another video's copied to its name).
	Notice func(msg string)

	// assembleShards > 0: compose from the keyframes of that many shards, computing none.
	assembleShards int

	// afterKeyframe, when set, is called after each keyframe is written (tests interrupt
	// there).
	afterKeyframe func(j int) error
	// segFrames, when set, is the frames of a segment (tests make short ones).
	segFrames int
}

// Progress is a report of the work done.
type Progress struct {
	Phase       string // "keyframes" or "frames"
	Done, Total int    // of this phase
	// Fraction is how much of the whole run is done, 0 to 1, for a progress bar: the
	// keyframes to compute and the frames to compose weighed by their samples (see
	// keyframeWeight), so that it grows with the work rather than jump at the phase change.
	Fraction float64
}

// keyframeWeight is what a keyframe's sample costs against a frame's subsample (composed and
// encoded), for Progress.Fraction: about 3 in a 640x360, 30 fps, 20 s video to 1e12 with
// the default scales (7.6 s for 41 keyframes of 1280x720, 33 s for 600 frames of 640x360 at
// 2x2 subsamples). It is an estimate: deeper or costlier views weigh their keyframes more.
const keyframeWeight = 3

// withFraction wraps report (nil: none) to fill in Progress.Fraction for a run that computes
// keys keyframes of kw x kh samples and composes frames frames of w x h pixels of q x q
// subsamples.
func withFraction(report func(Progress), keys, kw, kh, frames, w, h, q int) func(Progress) {
	if report == nil {
		return nil
	}
	ku := float64(keys) * float64(kw) * float64(kh) * keyframeWeight
	fu := float64(frames) * float64(w) * float64(h) * float64(q*q)
	return func(p Progress) {
		part := 1.0
		if p.Total > 0 {
			part = float64(p.Done) / float64(p.Total)
		}
		done := ku * part
		if p.Phase == "frames" {
			done = ku + fu*part
		}
		if ku+fu > 0 {
			p.Fraction = min(1, done/(ku+fu))
		} else {
			p.Fraction = 1
		}
		report(p)
	}
}

// Summary is what a video took.
type Summary struct {
	Frames, Keyframes int
	Computed, Reused  int  // keyframes computed now, and found in the work folder
	References        int  // reference orbits computed (one for a deep zoom, 0 for a shallow one)
	ReferenceRead     bool // a shard read the reference orbit another shard kept (see shard.go)
	KeyWidth          int
	KeyHeight         int
	// Time spent: computing keyframes (and writing them), composing frames (reading
	// keyframes and colouring), waiting for the encoder (and writing PNG frames), in all.
	Keyframe, Compose, Encode, Total time.Duration
	EncoderCPU                       time.Duration // ffmpeg's processor time
	Density                          float64       // the palette density used
	// Segments is the video's segments (see segments.go), SegmentsReused those a resume
	// found encoded.
	Segments, SegmentsReused int
	// Composed is the frames composed (a resume skips those of the segments it reuses,
	// unless it writes PNG frames).
	Composed int
}

// WorkDir is the folder of a video's keyframes: OUT.work beside the output, or DIR.work
// beside a frames folder when there is no output.
func WorkDir(opt Options) string {
	if opt.Output != "" {
		return opt.Output + ".work"
	}
	return filepath.Clean(opt.FramesDir) + ".work"
}

// manifestName is the work folder's description of its keyframes.
const manifestName = "manifest.json"

// manifest is what decides the keyframes' samples: a resume with different values is
// refused. (Frame rate, duration, colouring and codec are not in it: the keyframes serve any.)
type manifest struct {
	Format int    `json:"format"`
	Centre string `json:"centre"`
	// Julia is a Julia set's parameter, "RE,IM" (fractal.JuliaParam.String); absent for the
	// Mandelbrot set, whose manifests (and their digests) are what they were before it.
	Julia string `json:"julia,omitempty"`
	// Formula and Power are a formula other than the Mandelbrot set's (fractal.Formula.Fields),
	// each absent for its default: the Mandelbrot set's manifests stay what they were.
	Formula string `json:"formula,omitempty"`
	Power   int    `json:"power,omitempty"`
	// Rotation is a rotated view's angle in degrees (fractal.Location.Rotation), absent at 0:
	// an unrotated video's manifests (and their digests) are what they were before it.
	Rotation   float64 `json:"rotation,omitempty"`
	StartZoom  string  `json:"startZoom"`
	EndZoom    string  `json:"endZoom"`
	Iterations int     `json:"iterations"`
	KeyWidth   int     `json:"keyWidth"`
	KeyHeight  int     `json:"keyHeight"`
	Keyframes  int     `json:"keyframes"`
	Derivative bool    `json:"derivative"`
	Renderer   string  `json:"renderer"`
}

// digest is what each keyframe file of the work folder records of its video (keyID): the
// SHA-256 of the manifest's JSON, every field of which decides the samples.
func (m manifest) digest() [32]byte {
	b, _ := json.Marshal(m)
	return sha256.Sum256(b)
}

// diff lists the fields of m that differ from n, as "name: was A, now B".
func (m manifest) diff(n manifest) []string {
	var out []string
	f := func(name string, a, b any) {
		if a != b {
			out = append(out, fmt.Sprintf("%s was %v, now %v", name, a, b))
		}
	}
	f("format", m.Format, n.Format)
	f("centre", m.Centre, n.Centre)
	f("julia parameter", orMandelbrot(m.Julia), orMandelbrot(n.Julia))
	f("formula", formulaText(m.Formula, m.Power), formulaText(n.Formula, n.Power))
	f("rotation", m.Rotation, n.Rotation)
	f("start zoom", m.StartZoom, n.StartZoom)
	f("end zoom", m.EndZoom, n.EndZoom)
	f("iterations", m.Iterations, n.Iterations)
	f("keyframe size", fmt.Sprintf("%dx%d", m.KeyWidth, m.KeyHeight), fmt.Sprintf("%dx%d", n.KeyWidth, n.KeyHeight))
	f("renderer", m.Renderer, n.Renderer)
	if !m.Derivative && n.Derivative {
		out = append(out, "the keyframes lack the derivative this colouring reads")
	}
	return out
}

// formulaText is a manifest's or job file's formula fields for a message: "mandelbrot",
// "burning-ship power 3".
func formulaText(kind string, power int) string {
	if kind == "" {
		kind = "mandelbrot"
	}
	if power != 0 {
		kind += fmt.Sprintf(" power %d", power)
	}
	return kind
}

// orMandelbrot is a manifest's or job file's Julia parameter for a message: "none (the
// Mandelbrot set)" when there is none.
func orMandelbrot(julia string) string {
	if julia == "" {
		return "none (the Mandelbrot set)"
	}
	return julia
}

// Error kinds, for the front ends' advice.
var (
	ErrExists          = errors.New("exists")
	ErrUnfinished      = errors.New("unfinished")
	ErrNothingToResume = errors.New("nothing to resume")
	ErrParamsDiffer    = errors.New("parameters differ")
	ErrInterrupted     = errors.New("interrupted")
	ErrBusy            = errors.New("busy")
	// ErrShards: an assembly lacks keyframes; the message names them and their shards.
	ErrShards = errors.New("keyframes missing")
)

// Error is an error of a kind a front end gives advice for.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

// Frames is the number of frames of fps x duration seconds, or an error naming what is
// wrong.
func Frames(fps int, duration float64) (int, error) {
	if fps < 1 || fps > MaxFPS {
		return 0, fmt.Errorf("frame rate %d is out of range (1 to %d frames a second)", fps, MaxFPS)
	}
	if !(duration > 0) || math.IsInf(duration, 0) {
		return 0, fmt.Errorf("duration %g must be a positive number of seconds", duration)
	}
	n := math.Round(float64(fps) * duration)
	if n > MaxFrames {
		return 0, fmt.Errorf("duration %g s at %d fps is %.3g frames, more than %d", duration, fps, n, MaxFrames)
	}
	if n < 2 {
		return 0, fmt.Errorf("duration %g s at %d fps is %g frame; a video needs at least 2", duration, fps, n)
	}
	return int(n), nil
}

// normalize fills in the defaults and checks everything that needs no file or renderer.
func (o *Options) normalize() (Plan, error) {
	if o.Supersample == 0 {
		o.Supersample = DefaultSupersample
	}
	if o.KeyScale == 0 {
		o.KeyScale = DefaultKeyScale
	}
	if o.Codec == "" {
		o.Codec = Codecs[0].Name
	}
	if o.StartZoom == (fractal.Decimal{}) {
		o.StartZoom = fractal.MustDecimal("1")
	}
	// The rings layout colours its keyframes as it reads them: neither the histogram
	// colouring, which equalises each keyframe over its own samples, nor a colouring shader,
	// which runs over whole keyframes, is there yet; such a video takes flat keyframes.
	perKeyframe := o.Location.Color.IsHistogram() || o.Location.Color.HasShader()
	if o.Layout == "" {
		o.Layout = LayoutRings
		if perKeyframe {
			o.Layout = LayoutFlat
		}
	}
	if o.Layout == LayoutRings && perKeyframe {
		return Plan{}, fmt.Errorf("the rings keyframe layout does not take the histogram colouring or a colouring shader yet: use --keyframe-layout=flat")
	}
	if o.Layout != LayoutRings && o.Layout != LayoutFlat {
		return Plan{}, fmt.Errorf("keyframe layout %q is unknown (%s or %s)", text.Clip(o.Layout, 40), LayoutRings, LayoutFlat)
	}
	if o.Supersample < 1 || o.Supersample > MaxSupersample {
		return Plan{}, fmt.Errorf("supersample %d is out of range (1 to %d)", o.Supersample, MaxSupersample)
	}
	if o.KeyScale < 1 || o.KeyScale > MaxKeyScale {
		return Plan{}, fmt.Errorf("keyframe scale %d is out of range (1 to %d)", o.KeyScale, MaxKeyScale)
	}
	if o.Width < 2 || o.Height < 2 || o.Width > MaxSide || o.Height > MaxSide {
		return Plan{}, fmt.Errorf("size %dx%d is out of range (each side 2 to %d)", o.Width, o.Height, MaxSide)
	}
	if o.Output == "" && o.FramesDir == "" {
		return Plan{}, errors.New("no output: give a video file, a frames folder, or both")
	}
	if o.Audio != "" && o.Output == "" {
		return Plan{}, fmt.Errorf("audio %s: PNG frames carry no sound; give a video file (.mp4, .mkv, .webm or .mov) to hold it", text.Clip(o.Audio, 200))
	}
	if !(math.Abs(o.PaletteCycle) <= MaxPaletteCycle) {
		return Plan{}, fmt.Errorf("palette cycle %g is out of range (-%d to %d turns a second)", o.PaletteCycle, MaxPaletteCycle, MaxPaletteCycle)
	}
	if o.Waypoints != nil {
		if err := CheckWaypoints(o.Waypoints, o.Location.Zoom); err != nil {
			return Plan{}, fmt.Errorf("waypoints: %v", err)
		}
		first, last := o.Waypoints[0], o.Waypoints[len(o.Waypoints)-1]
		o.StartZoom, o.Duration = first.Zoom, last.T
		if len(o.Waypoints) == 2 && !hasPalettes(o.Waypoints) {
			o.Waypoints = nil // the constant-speed zoom, as it always was
		}
	}
	n, err := Frames(o.FPS, o.Duration)
	if err != nil {
		return Plan{}, err
	}
	if err := fractal.CheckZoom(o.StartZoom); err != nil {
		return Plan{}, fmt.Errorf("start zoom: %v", err)
	}
	if err := o.Location.Validate(); err != nil {
		return Plan{}, err
	}
	if o.Output != "" {
		c, ok := CodecByName(o.Codec)
		if !ok {
			return Plan{}, fmt.Errorf("unknown codec %q (%s)", o.Codec, strings.Join(strings.Split(CodecNames(), "|"), ", "))
		}
		if o.CRF == 0 {
			o.CRF = c.CRF
		}
		if o.CRF < 1 || o.CRF > c.MaxCRF {
			return Plan{}, fmt.Errorf("crf %d is out of range for %s (1 to %d)", o.CRF, c.Name, c.MaxCRF)
		}
		if o.Width%2 != 0 || o.Height%2 != 0 {
			return Plan{}, fmt.Errorf("size %dx%d: %s video in yuv420p needs an even width and height (try %dx%d), or write PNG frames only", o.Width, o.Height, c.Name, o.Width&^1, o.Height&^1)
		}
		if _, err := Container(o.Output, c.Name); err != nil {
			return Plan{}, err
		}
	}
	if o.Waypoints != nil {
		ws := slices.Clone(o.Waypoints)
		ws[len(ws)-1].Zoom = o.Location.Zoom
		return NewWaypointPlan(ws, n)
	}
	return NewPlan(o.StartZoom, o.Location.Zoom, n)
}

// PlanFor is the plan of opt's keyframes and frames (its waypoints' or its start zoom and
// duration's), or what is wrong with its numbers.
func PlanFor(opt Options) (Plan, error) { return opt.normalize() }

// Check validates opt as Make would before any work, files included: the numbers, ffmpeg
// and its encoder when there is a video, and the outputs (an existing video without Force, a
// work folder without Resume or Force, Resume without one).
func Check(opt Options) error {
	if _, err := opt.normalize(); err != nil {
		return err
	}
	if _, err := checkAudio(opt); err != nil {
		return err
	}
	if opt.Shards > 0 {
		// A shard computes keyframes only: no encoder, and the work folder is the shards'.
		return checkShardOutputs(opt)
	}
	if opt.Output != "" {
		c, _ := CodecByName(opt.Codec)
		if _, err := FindEncoder(c, opt.Width, opt.Height); err != nil {
			return err
		}
	}
	return checkOutputs(opt)
}

// checkShardOutputs checks a shard's folders.
func checkShardOutputs(opt Options) error {
	if opt.Shard < 0 || opt.Shard >= opt.Shards || opt.Shards > MaxShards {
		return fmt.Errorf("shard %d of %d is out of range", opt.Shard, opt.Shards)
	}
	if opt.Output == "" {
		return errors.New("a shard of a video needs the video's file name (-o): its work folder is beside it")
	}
	if st, err := os.Stat(filepath.Dir(filepath.Clean(opt.Output))); err != nil || !st.IsDir() {
		return fmt.Errorf("%s: no folder %s to write into", opt.Output, filepath.Dir(filepath.Clean(opt.Output)))
	}
	return nil
}

func checkOutputs(opt Options) error {
	for _, p := range []string{opt.Output, opt.FramesDir} {
		if p == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(filepath.Clean(p))); err != nil || !st.IsDir() {
			return fmt.Errorf("%s: no folder %s to write into", p, filepath.Dir(filepath.Clean(p)))
		}
	}
	if opt.Output != "" {
		if st, err := os.Stat(opt.Output); err == nil {
			if st.IsDir() {
				return fmt.Errorf("%s is a folder", opt.Output)
			}
			if !opt.Force {
				return &Error{ErrExists, fmt.Sprintf("%s exists", opt.Output)}
			}
		}
	}
	if opt.FramesDir != "" {
		if st, err := os.Stat(opt.FramesDir); err == nil {
			if !st.IsDir() {
				return fmt.Errorf("--frames: %s is not a folder", opt.FramesDir)
			}
			ents, _ := os.ReadDir(opt.FramesDir)
			if len(ents) > 0 && !opt.Force && !opt.Resume {
				return &Error{ErrExists, fmt.Sprintf("the frames folder %s is not empty", opt.FramesDir)}
			}
		}
	}
	work := WorkDir(opt)
	_, err := os.Stat(work)
	switch {
	case err == nil && !opt.Resume && !opt.Force:
		return &Error{ErrUnfinished, fmt.Sprintf("%s holds the keyframes of an unfinished video", work)}
	case err != nil && opt.Resume:
		return &Error{ErrNothingToResume, fmt.Sprintf("nothing to resume: no %s", work)}
	}
	return nil
}

// checkShader compiles the location's colouring shader with opt.ShaderPainter before any
// work: refused with the compiler's message and line, or colour.ErrNoShaderPainter without
// a painter.
func checkShader(opt Options) error {
	c := opt.Location.Color
	if !c.HasShader() {
		return nil
	}
	if opt.ShaderPainter == nil {
		return colour.ErrNoShaderPainter
	}
	return opt.ShaderPainter.CompileColourShader(c.ShaderName(), c.Shader)
}

// Make makes the video: keyframes computed by c (those the work folder lacks), then every
// frame composed and handed to ffmpeg and/or written as a PNG. The video appears at
// opt.Output only when complete (its segments are joined in the work folder first); the work folder is
// removed once everything is written, unless KeepWork. Cancelling ctx stops it within about one keyframe
// strip or one frame, keeping the keyframes done for a resume.
func Make(ctx context.Context, c tile.Computer, opt Options) (Summary, error) {
	t0 := time.Now()
	plan, err := opt.normalize()
	if err != nil {
		return Summary{}, err
	}
	if opt.Audio, err = checkAudio(opt); err != nil {
		return Summary{}, err
	}
	if opt.Shards > 0 {
		if err := checkShardOutputs(opt); err != nil {
			return Summary{}, err
		}
		return makeShard(ctx, c, opt, plan)
	}
	if err := checkShader(opt); err != nil {
		return Summary{}, err
	}
	m := &making{ctx: ctx, c: c, opt: opt, work: WorkDir(opt), seen: map[*fractal.Reference]bool{}}
	if opt.Output != "" {
		m.codec, _ = CodecByName(opt.Codec)
		if m.enc, err = FindEncoder(m.codec, opt.Width, opt.Height); err != nil {
			return Summary{}, err
		}
	}

	unlock, err := lockVideo(opt)
	if err != nil {
		return Summary{}, err
	}
	defer unlock()
	m.keyframeSet = newKeyframeSet(c, opt, plan)
	m.sum = m.summary()
	for _, stage := range []func() error{m.workFolder, m.missing, m.reference, m.keyframes, m.frames} {
		if err := stage(); err != nil {
			return m.sum, err
		}
	}
	m.sum.Total = time.Since(t0)
	if opt.KeepWork {
		return m.sum, nil
	}
	return m.sum, removeWork(m.work)
}

// lockVideo checks opt's outputs and takes the work folder's lock alone (one process at a
// time makes a video, and no shard writes its work folder meanwhile: lockWork); unlock
// removes and releases it.
func lockVideo(opt Options) (unlock func(), err error) {
	if err := checkOutputs(opt); err != nil {
		// A run that holds the work folder is the reason to report, rather than the
		// unfinished work folder it is writing.
		if busy := workBusy(WorkDir(opt), videoName(opt)); busy != nil {
			return nil, busy
		}
		return nil, err
	}
	return lockWork(WorkDir(opt), false, videoName(opt))
}

// videoName is the video's file, or its frames folder, for messages.
func videoName(opt Options) string {
	if opt.Output != "" {
		return opt.Output
	}
	return opt.FramesDir
}

// checkLockFile refuses a lock file that is not a plain file (a link planted there, which
// locking would open, creating what a dangling one names).
func checkLockFile(lp string) error {
	if st, err := os.Lstat(lp); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a lock file (a video's lock file is a plain file): remove it", lp, userfile.Kind(st.Mode()))
	}
	return nil
}

// frameBudget is about how many bytes a frame's strip takes while it is composed (its
// colour sums and pixels, and the bands of the two keyframes it reads), whatever the frame
// size: the strips have as many rows as fit.
const frameBudget = 16 << 20

// frameStripRows is the rows of a strip of a w x h frame composed from keyframes s times its
// side: a frame row reads at most s rows of the outer keyframe and 2s of the inner one, of s*w
// samples each.
func frameStripRows(w, h, s int) int {
	perRow := w*16 + 3*s*s*w*int(unsafe.Sizeof(colour.Sample{}))
	return min(h, max(1, frameBudget/perRow))
}

// compose composes every frame in order, strip by strip, from the bands of the two keyframes
// in use (unpacked into scratch files), and hands each strip to the encoder of its segment
// (segments.go) and the frames folder; the segments are joined and the video moved into
// place at the end. The frames of segments a resume finds encoded are not composed (unless
// there is a frames folder to write).
//
// With rings keyframes (rl set) each frame is composed whole from the rings it reads
// (ringFrames).
func compose(ctx context.Context, plan Plan, loc fractal.Location, opt Options, codec Codec, enc string, vid [32]byte, kw, kh int, rl *ringLayout, sum *Summary) (err error) {
	work := WorkDir(opt)
	comp, err := newFrameComposer(plan, loc, opt)
	if err != nil {
		return err
	}
	var seg *segmenter
	if opt.Output != "" {
		if seg, err = startSegments(ctx, work, plan, loc, opt, codec, enc, vid); err != nil {
			return err
		}
		sum.Segments, sum.SegmentsReused = seg.n, seg.encodedCount()
		defer func() {
			seg.abort()
			sum.Encode += seg.Wait
			sum.EncoderCPU = seg.CPU
		}()
	}
	if opt.FramesDir != "" {
		if err := os.MkdirAll(opt.FramesDir, 0o755); err != nil {
			return err
		}
	}
	var rf *ringFrames
	if rl != nil {
		// Palettes at waypoints change the colours only there: the keyframes are coloured as
		// read, and read again when they change. Cycling changes them every frame.
		rf = newRingFrames(work, vid, plan, *rl, opt.Supersample, comp.col, loc.Color.NeedsDerivative(), opt.PaletteCycle != 0)
		defer rf.close()
	}
	rows := frameStripRows(opt.Width, opt.Height, opt.KeyScale)
	strip := image.NewRGBA(image.Rect(0, 0, opt.Width, rows))
	// held: the keyframes in use, at most two, unpacked; ob, ib: the bands read of them.
	held := map[int]*unpacked{}
	defer closeAll(held)
	var ob, ib *colour.Data
	get := func(j int) (*unpacked, error) {
		if u, ok := held[j]; ok {
			return u, nil
		}
		u, err := unpack(work, keyID{vid, j}, plan.Levels[j], kw, kh, loc.Color.IsHistogram())
		if err != nil {
			return nil, err
		}
		held[j] = u
		return u, nil
	}
	enc0 := time.Duration(0)
	// changing: the colouring changes from frame to frame (cycling, or palettes at
	// waypoints): the colourer is made again when it does; changes counts them (the rings
	// composer colours its keyframes again when it sees another count).
	changing := opt.PaletteCycle != 0 || hasPalettes(opt.Waypoints)
	last, changes := loc.Color, 0.0
	for k := range plan.Frames {
		if err := ctx.Err(); err != nil {
			return err
		}
		// encode: this frame goes to its segment's encoder (not yet encoded).
		encode := seg != nil && !seg.has(seg.of(k))
		if encode || opt.FramesDir != "" {
			if encode && seg.cur == nil {
				if err := seg.begin(seg.of(k)); err != nil {
					return err
				}
			}
			if fc := frameColouring(loc.Color, opt, k, plan.Frames); changing && fc != last {
				if err := setColouring(comp, fc, opt); err != nil {
					return err
				}
				changes++
				last = fc
				if rf != nil {
					rf.comp.col, rf.comp.colourKey = comp.col, changes
				}
			}
			if rf != nil {
				err = rf.frame(plan, opt, k, encode, seg, sum, &enc0)
			} else {
				err = composeOne(plan, opt, comp, k, get, held, kw, kh, rows, strip, &ob, &ib, encode, seg, sum, &enc0)
			}
			if err != nil {
				return err
			}
			sum.Composed++
			if encode && seg.last(k) {
				if err := seg.end(); err != nil {
					return err
				}
			}
		}
		if opt.Progress != nil {
			opt.Progress(Progress{Phase: "frames", Done: k + 1, Total: plan.Frames})
		}
	}
	sum.Encode = enc0
	if seg == nil {
		return nil
	}
	return joinVideo(seg, opt, codec, work)
}

// closeAll closes (and removes) the unpacked keyframes of held.
func closeAll(held map[int]*unpacked) {
	for _, u := range held {
		u.close()
	}
}

// startSegments is the segmenter of the video's frames: its segments' digests hold everything
// that decides their frames and encoding.
func startSegments(ctx context.Context, work string, plan Plan, loc fractal.Location, opt Options, codec Codec, enc string, vid [32]byte) (*segmenter, error) {
	return newSegmenter(ctx, work, segParams{Keyframes: hex.EncodeToString(vid[:]), Colour: loc.Color,
		Width: opt.Width, Height: opt.Height, FPS: opt.FPS, Frames: plan.Frames, Waypoints: FormatWaypoints(opt.Waypoints), Cycle: opt.PaletteCycle, PerSegment: segmentFrames(opt),
		Supersample: opt.Supersample, KeyScale: opt.KeyScale, Codec: codec.Name, Encoder: enc, CRF: opt.CRF}, codec, enc, opt.Notice)
}

// joinVideo joins the segments into the video and moves it into place (refusing to replace a
// video that appeared meanwhile, unless Force).
func joinVideo(seg *segmenter, opt Options, codec Codec, work string) error {
	part, err := seg.join(mustContainer(opt.Output, codec.Name), filepath.Ext(opt.Output), opt.Audio)
	if err != nil {
		return err
	}
	if !opt.Force {
		if _, err := os.Lstat(opt.Output); err == nil {
			return &Error{ErrExists, fmt.Sprintf("%s appeared while the video was made; the video's segments are kept in %s", opt.Output, work)}
		}
	}
	// A rename replaces a link at the output's name, never what it points to.
	if err := os.Rename(part, opt.Output); err != nil {
		return err
	}
	userfile.SyncDir(filepath.Dir(opt.Output))
	return nil
}

// frameColouring is the colouring of frame k of frames: c with the palette of the last
// waypoint at or before the frame's time that names one (the frame at k/(frames-1) of the
// duration, as Plan.Level places it), and its palette offset turned by opt.PaletteCycle x k /
// opt.FPS, kept within 0 to 1 (only its fraction matters).
func frameColouring(c colour.Coloring, opt Options, k, frames int) colour.Coloring {
	if hasPalettes(opt.Waypoints) {
		ws := opt.Waypoints
		t := ws[len(ws)-1].T * float64(k) / float64(frames-1)
		if k >= frames-1 {
			t = ws[len(ws)-1].T
		}
		for _, w := range ws {
			if w.Palette != "" && w.T <= t*(1+1e-12) {
				c.Palette, c.Gradient = w.Palette, ""
			}
		}
	}
	if opt.PaletteCycle == 0 {
		return c
	}
	o := c.Offset + opt.PaletteCycle*float64(k)/float64(opt.FPS)
	c.Offset = o - math.Floor(o)
	return c
}

// mustContainer is the muxer of out for codec (checked by normalize).
func mustContainer(out, codec string) string {
	f, _ := Container(out, codec)
	return f
}

// newFrameComposer is the composer of the video's frames: colouring the keyframes' samples
// with loc's colourer, or its colouring shader (opt.ShaderPainter runs it).
func newFrameComposer(plan Plan, loc fractal.Location, opt Options) (*Composer, error) {
	if loc.Color.HasShader() {
		comp := NewComposer(opt.Width, opt.Height, opt.Supersample, opt.KeyScale, nil)
		comp.SetShader(opt.ShaderPainter, loc.Color, colour.ShaderPicture{Iterations: loc.Iterations, ZoomLog2: loc.Zoom.Log2() - plan.L})
		return comp, nil
	}
	col, err := colour.NewColourer(loc.Color.Sampled(opt.Supersample))
	if err != nil {
		return nil, err
	}
	return NewComposer(opt.Width, opt.Height, opt.Supersample, opt.KeyScale, col), nil
}

// setColouring turns comp's colouring to c (frame by frame: --palette-cycle, a palette at a
// waypoint): its colourer, or its colouring shader's KFP_ColorOffset and palette.
func setColouring(comp *Composer, c colour.Coloring, opt Options) error {
	if c.HasShader() {
		comp.shader = c
		return nil
	}
	col, err := colour.NewColourer(c.Sampled(opt.Supersample))
	if err != nil {
		return err
	}
	comp.col = col
	return nil
}

// composeOne composes frame k from the keyframes it needs (unpacking them through get,
// dropping from held those it does not), handing each strip to the segment's encoder (when
// encode) and writing the frame's PNG (when there is a frames folder).
func composeOne(plan Plan, opt Options, comp *Composer, k int, get func(int) (*unpacked, error), held map[int]*unpacked, kw, kh, rows int, strip *image.RGBA, ob, ib **colour.Data, encode bool, seg *segmenter, sum *Summary, enc0 *time.Duration) error {
	t := time.Now()
	oj, ij := plan.Pair(k)
	// Drop what this frame does not use before unpacking the next.
	for i, u := range held {
		if i != oj && i != ij {
			u.close()
			delete(held, i)
		}
	}
	outer, err := get(oj)
	if err != nil {
		return err
	}
	var inner *unpacked
	if ij >= 0 {
		if inner, err = get(ij); err != nil {
			return err
		}
	}
	var fr *frameFile
	if opt.FramesDir != "" {
		if fr, err = createFrameFile(filepath.Join(opt.FramesDir, fmt.Sprintf("frame-%06d.png", k)), opt.Width, opt.Height); err != nil {
			return err
		}
	}
	if err := composeFrame(comp, plan.Level(k), outer, inner, kw, kh, rows, strip, ob, ib, func(s *image.RGBA) error {
		sum.Compose += time.Since(t)
		t = time.Now()
		defer func() { *enc0 += time.Since(t); t = time.Now() }()
		if encode {
			if err := seg.WriteRows(s); err != nil {
				return err
			}
		}
		if fr != nil {
			return fr.png.WriteRows(s)
		}
		return nil
	}); err != nil {
		fr.abort()
		return err
	}
	if fr != nil {
		if err := fr.close(); err != nil {
			return err
		}
		*enc0 += time.Since(t)
	}
	return nil
}

// composeFrame composes the frame at level lv from outer and inner (nil: outer alone), in
// strips of rows rows drawn into strip, reading for each the bands of the keyframes it needs
// (into *ob and *ib, reused), and hands each strip to out in order.
func composeFrame(comp *Composer, lv float64, outer, inner *unpacked, kw, kh, rows int, strip *image.RGBA, ob, ib **colour.Data, out func(*image.RGBA) error) error {
	for y0 := 0; y0 < comp.h; y0 += rows {
		y1 := min(y0+rows, comp.h)
		var ko, ki *Keyframe
		var err error
		r0, r1 := comp.Rows(outer.level, kw, kh, lv, y0, y1)
		r0, r1 = comp.shaderRows(r0, r1, kh)
		if ko, *ob, err = outer.band(r0, r1, *ob); err != nil {
			return err
		}
		if inner != nil {
			r0, r1 := comp.Rows(inner.level, kw, kh, lv, y0, y1)
			r0, r1 = comp.shaderRows(r0, r1, kh)
			if ki, *ib, err = inner.band(r0, r1, *ib); err != nil {
				return err
			}
		}
		s := strip.SubImage(image.Rect(0, 0, comp.w, y1-y0)).(*image.RGBA)
		comp.ComposeRows(s, y0, y1, lv, ko, ki)
		if err := comp.Err(); err != nil {
			return err
		}
		if err := out(s); err != nil {
			return err
		}
	}
	return nil
}

// computeKeyframes computes keyframes js of the work folder in order, each from the frame
// frame(j) gives (its reference orbit found), reporting progress and counting them in
// sum.Computed. A cancel is an ErrInterrupted error; another failure names the keyframe, then
// kept (what stays of the work).
func computeKeyframes(ctx context.Context, c tile.Computer, opt Options, work string, vid [32]byte, js []int, frame func(j int) (fractal.Frame, error), kept string, sum *Summary) error {
	for i, j := range js {
		if opt.Progress != nil {
			opt.Progress(Progress{Phase: "keyframes", Done: i, Total: len(js)})
		}
		f, err := frame(j)
		if err != nil {
			return interrupted(err, work)
		}
		if err := computeKeyframe(ctx, c, f, filepath.Join(work, keyName(j)), keyID{vid, j}); err != nil {
			if ctx.Err() != nil {
				return interrupted(err, work)
			}
			return fmt.Errorf("keyframe %d: %v%s", j, err, kept)
		}
		sum.Computed++
		if opt.afterKeyframe != nil {
			if err := opt.afterKeyframe(j); err != nil {
				return interrupted(err, work)
			}
		}
	}
	if opt.Progress != nil {
		opt.Progress(Progress{Phase: "keyframes", Done: len(js), Total: len(js)})
	}
	return nil
}

// computeKeyframe computes frame f strip by strip and writes each strip to the keyframe file
// at path as it is done, holding one strip; the file appears at path only when complete. A
// cancel is served within a strip.
func computeKeyframe(ctx context.Context, c tile.Computer, f fractal.Frame, path string, id keyID) error {
	kw := f.W
	n := keyStripRows(kw)
	buf := colour.NewData(image.Rect(0, 0, kw, min(n, f.H)))
	kf, err := createKeyframe(path, id, kw, f.H)
	if err != nil {
		return err
	}
	for y := 0; y < f.H; y += n {
		if err := ctx.Err(); err != nil {
			kf.Abort()
			return err
		}
		r := image.Rect(0, y, kw, min(y+n, f.H))
		d := &colour.Data{Pix: buf.Pix[:r.Dx()*r.Dy()], Stride: kw, Rect: r}
		if err := c.Compute(ctx, f, r, d); err != nil {
			kf.Abort()
			return err
		}
		if err := kf.WriteRows(d); err != nil {
			kf.Abort()
			return err
		}
	}
	return kf.Close()
}

// keyframeSound says whether keyframe id of the work folder is there, sound and this
// video's; one that is there but not (damaged, or another's copied to its name) is told to
// opt.Notice, to be computed again.
func keyframeSound(opt Options, work string, id keyID, kw, kh int) bool {
	err := checkKeyframe(filepath.Join(work, keyName(id.index)), id, kw, kh)
	if err == nil {
		return true
	}
	if opt.Notice != nil && !errors.Is(err, fs.ErrNotExist) {
		opt.Notice(fmt.Sprintf("%s; computing keyframe %d again", err, id.index))
	}
	return false
}

// rendererID is what the manifest records of the computer c: name when given, else its
// Identity of frame f when it has that method, else its Name.
func rendererID(c tile.Computer, name string, f fractal.Frame) string {
	if name != "" {
		return name
	}
	if id, ok := c.(interface{ Identity(fractal.Frame) string }); ok {
		return id.Identity(f)
	}
	if n, ok := c.(interface{ Name() string }); ok {
		return n.Name()
	}
	return ""
}

// interrupted turns a cancel into an ErrInterrupted error that says what is kept.
func interrupted(err error, work string) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		n, segs := 0, 0
		if ents, e := os.ReadDir(work); e == nil {
			for _, en := range ents {
				if strings.HasSuffix(en.Name(), ".msk") {
					n++
				}
				if _, _, _, ok := parseSegName(en.Name()); ok {
					segs++
				}
			}
		}
		if segs > 0 {
			return &Error{ErrInterrupted, fmt.Sprintf("interrupted; %s keeps %d keyframes and %d encoded segments", work, n, segs)}
		}
		return &Error{ErrInterrupted, fmt.Sprintf("interrupted; %s keeps %d keyframes", work, n)}
	}
	return err
}

// removeWork removes a work folder's own files (keyframes, their temporary files, the
// manifest, the segments and the encoding folder) and then the folder, when it is empty:
// anything else put there stays.
func removeWork(work string) error {
	ents, err := os.ReadDir(work)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		n := e.Name()
		if n == encodingDir {
			// RemoveAll removes a link at the name, never what it points to.
			if err := os.RemoveAll(filepath.Join(work, n)); err != nil {
				return err
			}
			continue
		}
		if n == manifestName || strings.HasPrefix(n, "key-") && (strings.HasSuffix(n, ".msk") || strings.HasSuffix(n, ".msk.tmp") || strings.HasSuffix(n, ".raw")) || n == manifestName+".tmp" ||
			n == jobName || n == referenceName || strings.HasPrefix(n, "shard-") && strings.HasSuffix(n, ".done") ||
			strings.HasPrefix(n, segPrefix) && strings.HasSuffix(n, segExt) {
			if err := os.Remove(filepath.Join(work, n)); err != nil {
				return err
			}
		}
	}
	os.Remove(work) // fails, keeping it, when something else is in it
	return nil
}

// writeFileAtomic writes b to path through a synced temporary file (created new, never
// through a link) renamed into place.
func writeFileAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := userfile.CreateFresh(tmp, userfile.DefaultPerm)
	if err != nil {
		return err
	}
	if _, err = f.Write(b); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// frameFile is a PNG frame being written strip by strip to a temporary file, renamed into
// place when complete.
type frameFile struct {
	path string
	f    *os.File
	bw   *bufio.Writer
	png  *export.PNGStream
}

func createFrameFile(path string, w, h int) (*frameFile, error) {
	f, err := userfile.CreateFresh(path+".tmp", userfile.DefaultPerm)
	if err != nil {
		return nil, err
	}
	fr := &frameFile{path: path, f: f, bw: bufio.NewWriterSize(f, 1<<16)}
	if fr.png, err = export.NewPNGStream(fr.bw, w, h); err != nil {
		fr.abort()
		return nil, err
	}
	return fr, nil
}

// close ends the PNG and renames it into place.
func (fr *frameFile) close() error {
	err := fr.png.Close()
	if err == nil {
		err = fr.bw.Flush()
	}
	if cerr := fr.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(fr.path+".tmp", fr.path)
	}
	if err != nil {
		os.Remove(fr.path + ".tmp")
	}
	return err
}

// abort removes the unfinished frame (nothing for nil).
func (fr *frameFile) abort() {
	if fr == nil {
		return
	}
	fr.f.Close()
	os.Remove(fr.path + ".tmp")
}
