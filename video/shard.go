package video

// Shards of a video: N processes (on N machines of a cluster) each compute a share of the
// keyframes into the shared work folder, and Assemble composes and encodes the video from
// them, computing nothing.
//
// Shard I of N computes the keyframes j with j mod N = I (the deep, costly keyframes are
// spread over the shards rather than all in the last one). Every shard writes, or checks,
// the work folder's manifest (what decides the keyframes' samples) and job file (video.json:
// the whole video's options, which the assembly composes with), and, when its keyframes are
// all written, a marker shard-I-of-N.done. A shard run again computes only its keyframes that
// are missing or damaged; two runs of one shard at once take turns on the shard's lock.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/tile"
	"mandelscope/internal/userfile"
)

// MaxShards bounds a video's shard count.
const MaxShards = 100000

// jobName is the work folder's record of the video's options (for the assembly).
const jobName = "video.json"

// referenceName is the deepest keyframe's reference orbit, which the first shard to compute
// it keeps in the work folder for the others (fractal.EncodeReference's format).
const referenceName = "reference.ref"

// readReference reads a reference orbit file (validated: fractal.DecodeReference).
func readReference(path string) (*fractal.Reference, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ref, _, err := fractal.DecodeReference(f)
	return ref, err
}

// shardDone names the marker a shard leaves when its keyframes are all written.
func shardDone(i, n int) string { return fmt.Sprintf("shard-%d-of-%d.done", i, n) }

// shardOf is the shard that computes keyframe j of a video of n shards.
func shardOf(j, n int) int { return j % n }

// videoJob is the job file: what the assembly needs to compose and encode the video as a
// one-process run of the same command would.
type videoJob struct {
	Format      int             `json:"format"`
	Shards      int             `json:"shards"`
	Re          string          `json:"re"`
	Im          string          `json:"im"`
	Julia       string          `json:"julia,omitempty"`   // a Julia set's parameter RE,IM; absent for the Mandelbrot set
	Formula     string          `json:"formula,omitempty"` // a formula's kind and power (fractal.Formula.Fields); absent for the defaults
	Power       int             `json:"power,omitempty"`
	Rotation    float64         `json:"rotation,omitempty"` // a rotated view's angle in degrees; absent at 0
	Zoom        string          `json:"zoom"`
	Iterations  int             `json:"iterations"`
	Colour      colour.Coloring `json:"colour"`
	StartZoom   string          `json:"start_zoom"`
	Width       int             `json:"width"`
	Height      int             `json:"height"`
	FPS         int             `json:"fps"`
	Duration    float64         `json:"duration"`
	Waypoints   string          `json:"waypoints,omitempty"` // the timeline (FormatWaypoints); absent for a constant-speed zoom
	Audio       string          `json:"audio,omitempty"`     // the soundtrack's absolute path; absent for none
	Cycle       float64         `json:"cycle,omitempty"`     // Options.PaletteCycle; absent for none
	Supersample int             `json:"supersample"`
	KeyScale    int             `json:"keyframe_scale"`
	// Layout is Options.Layout, absent for rings keyframes (a job file without it, of a
	// version before them, is read as rings: its flat keyframes are then refused).
	Layout string `json:"layout,omitempty"`
	Codec  string `json:"codec"`
	CRF    int    `json:"crf"`
	Output string `json:"output"` // the video's file name (no folder)
}

func jobOf(o Options) videoJob {
	l := o.Location
	kind, power := l.Formula.Fields()
	j := videoJob{Formula: kind, Power: power, Format: 1, Shards: o.Shards, Re: l.Re.String(), Im: l.Im.String(), Julia: l.Julia.String(), Zoom: l.Zoom.String(),
		Iterations: l.Iterations, Colour: l.Color, StartZoom: o.StartZoom.String(), Width: o.Width, Height: o.Height,
		FPS: o.FPS, Duration: o.Duration, Waypoints: FormatWaypoints(o.Waypoints), Audio: o.Audio, Cycle: o.PaletteCycle, Supersample: o.Supersample, KeyScale: o.KeyScale, Codec: o.Codec, CRF: o.CRF,
		Output: filepath.Base(o.Output), Rotation: l.Rotation}
	if o.Layout == LayoutFlat {
		j.Layout = LayoutFlat
	}
	return j
}

// options turns a job file back into Options (validated by Make's normalize).
func (j videoJob) options() (Options, error) {
	var o Options
	var err error
	l := fractal.Home()
	for _, p := range []struct {
		d *fractal.Decimal
		s string
	}{{&l.Re, j.Re}, {&l.Im, j.Im}, {&l.Zoom, j.Zoom}, {&o.StartZoom, j.StartZoom}} {
		if *p.d, err = fractal.ParseDecimal(p.s); err != nil {
			return o, err
		}
	}
	if j.Julia != "" {
		if l.Julia, err = fractal.ParseJulia(j.Julia); err != nil {
			return o, err
		}
	}
	if l.Formula, err = fractal.FormulaFromFields(j.Formula, j.Power); err != nil {
		return o, err
	}
	l.Iterations, l.Color, l.Rotation = j.Iterations, j.Colour, j.Rotation // validated with the rest
	o.Location = l
	o.Width, o.Height, o.FPS, o.Duration = j.Width, j.Height, j.FPS, j.Duration
	o.Supersample, o.KeyScale, o.Codec, o.CRF, o.Layout = j.Supersample, j.KeyScale, j.Codec, j.CRF, j.Layout
	if j.Waypoints != "" {
		if o.Waypoints, err = ParseWaypoints(j.Waypoints, l.Zoom); err != nil {
			return o, err
		}
	}
	o.Audio, o.PaletteCycle = j.Audio, j.Cycle
	return o, nil
}

// readJob reads a work folder's job file (hostile input: bounded, strict, validated later).
func readJob(work string) (videoJob, error) {
	var j videoJob
	f, err := userfile.Open(filepath.Join(work, jobName))
	if err != nil {
		return j, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return j, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil || j.Format != 1 {
		return j, fmt.Errorf("%s is not a video job file this version reads", filepath.Join(work, jobName))
	}
	if j.Shards < 1 || j.Shards > MaxShards {
		return j, fmt.Errorf("%s gives %d shards", filepath.Join(work, jobName), j.Shards)
	}
	return j, nil
}

// writeOnce writes data to path unless it is there; when it is, it must hold the same
// (compared by same, which says what differs): every shard writes the same file.
func writeOnce(path string, data []byte, same func(old []byte) error) error {
	err := userfile.WriteAtomic(path, data, 0, false)
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	f, err := userfile.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	old, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return err
	}
	return same(old)
}

// lockShard takes shard i of n's lock beside the work folder, waiting while another run of
// the shard holds it (telling waiting once). The holder removes the lock file as it lets
// go, so each try opens the file anew, and a lock taken on a file removed meanwhile is
// dropped and tried again on the one at the path.
func lockShard(ctx context.Context, work string, i, n int, waiting func(string)) (*flock.Flock, string, error) {
	lp := fmt.Sprintf("%s.shard-%d-of-%d.lock", work, i, n)
	told := false
	for {
		if err := checkLockFile(lp); err != nil {
			return nil, lp, err
		}
		lk := flock.New(lp)
		ok, err := lk.TryLock()
		if err != nil {
			return nil, lp, fmt.Errorf("locking %s: %v", lp, err)
		}
		if ok {
			held, err1 := lk.Stat()
			now, err2 := os.Lstat(lp)
			if err1 == nil && err2 == nil && os.SameFile(held, now) {
				return lk, lp, nil
			}
			lk.Close()
			continue
		}
		lk.Close()
		if !told && waiting != nil {
			waiting(lp)
		}
		told = true
		select {
		case <-ctx.Done():
			return nil, lp, &Error{ErrInterrupted, "interrupted while waiting for another run of this shard"}
		case <-time.After(shardLockPoll):
		}
	}
}

// shardLockPoll is how often a shard waiting for its lock tries again.
var shardLockPoll = time.Second

// makeShard computes shard opt.Shard of opt.Shards's keyframes into the work folder.
func makeShard(ctx context.Context, c tile.Computer, opt Options, plan Plan) (Summary, error) {
	t0 := time.Now()
	if opt.Shard < 0 || opt.Shard >= opt.Shards || opt.Shards > MaxShards {
		return Summary{}, fmt.Errorf("shard %d of %d is out of range", opt.Shard, opt.Shards)
	}
	work := WorkDir(opt)
	unlockWork, err := lockWork(work, true, videoName(opt))
	if err != nil {
		return Summary{}, err
	}
	defer unlockWork()
	if err := os.MkdirAll(work, 0o755); err != nil {
		return Summary{}, err
	}
	lk, lp, err := lockShard(ctx, work, opt.Shard, opt.Shards, opt.Waiting)
	if err != nil {
		return Summary{}, err
	}
	defer func() {
		os.Remove(lp)
		lk.Unlock()
	}()

	k := newKeyframeSet(c, opt, plan)
	sum := k.summary()
	if err := writeShardFiles(opt, work, k.want); err != nil {
		return sum, err
	}
	vid := k.want.digest()
	var mine []int
	for j := range k.count() {
		if shardOf(j, opt.Shards) != opt.Shard {
			continue
		}
		if w, h := k.size(j); keyframeSound(opt, work, keyID{vid, j}, w, h) {
			sum.Reused++
			continue
		}
		mine = append(mine, j)
	}
	opt.Progress = withFraction(opt.Progress, len(mine), k.kw, k.kh, 0, 0, 0, 0)
	tk := time.Now()
	if len(mine) > 0 && k.deepest.Precision().Perturbs() {
		if err := k.shardReference(ctx, work, &sum); err != nil {
			return sum, err
		}
	}
	err = computeKeyframes(ctx, c, opt, work, vid, mine, func(j int) (fractal.Frame, error) {
		return k.frame(j).WithReference(ctx, k.refs, nil)
	}, "; the keyframes written are kept", &sum)
	if err != nil {
		return sum, err
	}
	sum.Keyframe = time.Since(tk)
	if err := userfile.WriteAtomic(filepath.Join(work, shardDone(opt.Shard, opt.Shards)), []byte("done\n"), 0, true); err != nil {
		return sum, err
	}
	sum.Total = time.Since(t0)
	return sum, nil
}

// shardReference computes the deepest keyframe's orbit, which serves every keyframe (see
// Make), once: the first shard to compute it keeps it in the work folder, and the others
// read it there (checked to be the very orbit they would compute).
func (k *keyframeSet) shardReference(ctx context.Context, work string, sum *Summary) error {
	refPath := filepath.Join(work, referenceName)
	if ref, err := readReference(refPath); err == nil && ref.CheckFor(k.deepest) == nil {
		k.refs.Add(ref)
		sum.ReferenceRead = true
	}
	f, err := k.deepest.WithReference(ctx, k.refs, nil)
	if err != nil {
		return interrupted(err, work)
	}
	if !sum.ReferenceRead {
		sum.References = 1
		if data, _, err := fractal.EncodeReference(f.Ref); err == nil {
			// Another shard may have written it meanwhile: the same orbit, kept.
			userfile.WriteAtomic(refPath, data, 0, false)
		}
	}
	return nil
}

// writeShardFiles writes the manifest and the job file, or (another shard having written
// them first) checks that they are the same as this shard's.
func writeShardFiles(opt Options, work string, want manifest) error {
	// The manifest and the job file: written by the first shard, the same for every other.
	mb, _ := json.MarshalIndent(want, "", "  ")
	err := writeOnce(filepath.Join(work, manifestName), append(mb, '\n'), func(old []byte) error {
		var have manifest
		if err := json.Unmarshal(old, &have); err != nil {
			return &Error{ErrParamsDiffer, fmt.Sprintf("%s: %s is not readable", work, manifestName)}
		}
		if d := have.diff(want); len(d) > 0 {
			return &Error{ErrParamsDiffer, fmt.Sprintf("the keyframes in %s are of another video: %s", work, strings.Join(d, "; "))}
		}
		return nil
	})
	if err != nil {
		return err
	}
	jb, _ := json.MarshalIndent(jobOf(opt), "", "  ")
	err = writeOnce(filepath.Join(work, jobName), append(jb, '\n'), func(old []byte) error {
		if !bytes.Equal(bytes.TrimSpace(old), bytes.TrimSpace(jb)) {
			var have videoJob
			json.Unmarshal(old, &have)
			return &Error{ErrParamsDiffer, fmt.Sprintf("%s holds a video of other options than this shard's (%s)", work, jobDiff(have, jobOf(opt)))}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return nil
}

// jobDiff names the first fields in which two job files differ.
func jobDiff(a, b videoJob) string {
	var d []string
	f := func(name string, x, y any) {
		if x != y {
			d = append(d, fmt.Sprintf("%s was %v, now %v", name, x, y))
		}
	}
	f("shards", a.Shards, b.Shards)
	f("centre", a.Re+","+a.Im, b.Re+","+b.Im)
	f("julia parameter", orMandelbrot(a.Julia), orMandelbrot(b.Julia))
	f("formula", formulaText(a.Formula, a.Power), formulaText(b.Formula, b.Power))
	f("rotation", a.Rotation, b.Rotation)
	f("zoom", a.Zoom, b.Zoom)
	f("iterations", a.Iterations, b.Iterations)
	f("colouring", a.Colour, b.Colour)
	f("start zoom", a.StartZoom, b.StartZoom)
	f("size", fmt.Sprintf("%dx%d", a.Width, a.Height), fmt.Sprintf("%dx%d", b.Width, b.Height))
	f("fps", a.FPS, b.FPS)
	f("duration", a.Duration, b.Duration)
	f("waypoints", orNone(a.Waypoints), orNone(b.Waypoints))
	f("audio", orNone(a.Audio), orNone(b.Audio))
	f("supersample", a.Supersample, b.Supersample)
	f("keyframe scale", a.KeyScale, b.KeyScale)
	f("keyframe layout", orRings(a.Layout), orRings(b.Layout))
	f("codec", a.Codec, b.Codec)
	f("crf", a.CRF, b.CRF)
	f("output", a.Output, b.Output)
	if len(d) == 0 {
		return "its job file differs"
	}
	return strings.Join(d, "; ")
}

// orNone is a job file's optional text for a message: "none" when it is absent.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// missingError names the keyframes an assembly lacks and the shards that compute them.
func missingError(work string, missing []int, n int) error {
	byShard := map[int][]string{}
	var order []int
	for _, j := range missing {
		s := shardOf(j, n)
		if _, ok := byShard[s]; !ok {
			order = append(order, s)
		}
		byShard[s] = append(byShard[s], fmt.Sprint(j))
	}
	var parts []string
	for _, s := range order {
		state := "not finished"
		if _, err := os.Stat(filepath.Join(work, shardDone(s, n))); err == nil {
			state = "finished, but they are damaged, another video's or gone"
		}
		ks := byShard[s]
		if len(ks) > 6 {
			ks = append(ks[:6], "...")
		}
		parts = append(parts, fmt.Sprintf("shard %d of %d (%s): keyframes %s", s, n, state, strings.Join(ks, ", ")))
		if len(parts) == 10 {
			parts = append(parts, fmt.Sprintf("and %d more shards", len(order)-10))
			break
		}
	}
	return &Error{ErrShards, fmt.Sprintf("%s lacks keyframes of %s; nothing was encoded", work, strings.Join(parts, "; "))}
}

// Assemble composes and encodes the video out from the keyframes its shards (Options.Shards)
// computed into its work folder, with the options they recorded: what one process making
// the video would write. It computes no keyframe: one missing or damaged is an error naming
// it and its shard (ErrShards). c computes the automatic density's sample (no keyframe).
// Force replaces an existing out; KeepWork keeps the work folder.
func Assemble(ctx context.Context, c tile.Computer, out string, force, keepWork bool, progress func(Progress)) (Summary, Options, error) {
	work := WorkDir(Options{Output: out})
	j, err := readJob(work)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Summary{}, Options{}, &Error{ErrShards, fmt.Sprintf("no shards of %s: no %s", out, filepath.Join(work, jobName))}
		}
		return Summary{}, Options{}, err
	}
	if j.Output != filepath.Base(out) {
		return Summary{}, Options{}, fmt.Errorf("%s was written for %s, not %s", filepath.Join(work, jobName), j.Output, filepath.Base(out))
	}
	opt, err := j.options()
	if err != nil {
		return Summary{}, opt, fmt.Errorf("%s: %v", filepath.Join(work, jobName), err)
	}
	opt.Output, opt.Force, opt.KeepWork, opt.Resume, opt.Progress = out, force, keepWork, true, progress
	opt.assembleShards = j.Shards
	sum, err := Make(ctx, c, opt)
	return sum, opt, err
}

// orRings is a job file's keyframe layout for a message.
func orRings(layout string) string {
	if layout == "" {
		return LayoutRings
	}
	return layout
}
