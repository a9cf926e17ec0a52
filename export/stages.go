package export

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mandelscope/fractal"
	"mandelscope/internal/tile"
	"mandelscope/internal/userfile"
)

// Export's stages, in order: checkOptions, lockOutputs, setParams, givenReference, (a
// resume's checkResume), setFrame, open, runAndClose, publish and finishSummary. The first error
// ends the export.

// checkOptions checks the export's files and renderer before anything is touched, and sets
// the files: the one published (the PNG, or the shard's file), its .part and the checkpoint.
func (e *exporter) checkOptions(path string) error {
	opt, png, raw := e.opt, e.png, e.opt.Raw != ""
	e.target, e.first, e.end = path, 0, e.plan.Strips
	if opt.Shards > 0 {
		if err := checkShardOptions(path, *opt); err != nil {
			return err
		}
		e.target = ShardPath(path, opt.Shard, opt.Shards)
		e.first, e.end = shardStrips(opt.Shard, opt.Shards, e.plan.Strips)
		e.sum.Path = e.target
	}
	primary := e.target
	if !png {
		primary = opt.Raw
	}
	e.part, e.ckpt = PartPath(e.target), CheckpointPath(primary)
	switch {
	case !png && !raw:
		return errors.New("no output file: give a PNG, a raw file or both")
	case png && !strings.EqualFold(filepath.Ext(path), ".png"):
		return fmt.Errorf("output %s must end in .png", path)
	case raw && !strings.EqualFold(filepath.Ext(opt.Raw), ".exr"):
		return fmt.Errorf("raw file %s must end in .exr", opt.Raw)
	case png && raw && sameTarget(path, opt.Raw):
		return fmt.Errorf("the PNG and the raw file are the same file %s", path)
	}
	if raw {
		var ok bool
		if e.comp, ok = e.r.(tile.Computer); !ok {
			return fmt.Errorf("%s does not compute samples, which a raw file needs", e.r.Name())
		}
	}
	for _, p := range outputs(e.target, opt.Raw) {
		if err := checkFolder(filepath.Dir(p)); err != nil {
			return err
		}
		if err := checkTarget(p); err != nil {
			return err
		}
	}
	return nil
}

// lockOutputs takes the lock of each output file, then checks the files there (a shard's
// own rules: done says the shard is complete already, and nothing is to be done). release
// releases the locks taken, whatever the error.
func (e *exporter) lockOutputs(ctx context.Context) (release func(), done bool, err error) {
	var locks []*targetLock
	release = func() {
		for i := len(locks) - 1; i >= 0; i-- {
			locks[i].release()
		}
	}
	for _, p := range outputs(e.target, e.opt.Raw) {
		lock, err := e.opt.lock(ctx, p)
		if err != nil {
			return release, false, err
		}
		locks = append(locks, lock)
	}
	if e.opt.Shards > 0 {
		if done, err := prepareShard(e.target, e.opt, e.plan); err != nil || done {
			return release, done, err
		}
	}
	return release, false, checkOutputs(e.target, e.opt.Raw, e.opt.Resume, e.opt.Overwrite)
}

// setParams sets what the checkpoint and the files record of the export: whether its
// density is automatic, its parameters (a resume's automatic density the checkpoint's) and
// the raw file's header.
func (e *exporter) setParams() error {
	e.autoDensity = e.opt.Location.Color.AutoDensity || e.opt.DensityChosen
	e.opt.resumeDensity(e.ckpt)
	e.opt.resumeSpelling(e.ckpt)
	e.hash, e.desc = e.opt.params(e.plan, e.png)
	e.start = e.first
	if e.opt.Raw != "" {
		e.rawPart = PartPath(e.opt.Raw)
		var err error
		if e.rawHdr, err = e.rawHeader(e.opt.Location); err != nil {
			return err
		}
	}
	return nil
}

// givenReference is the export's cache of reference orbits, holding the one o gives
// (Options.Reference), checked to be this view's.
func (o *Options) givenReference() (*fractal.ReferenceCache, error) {
	refs := &fractal.ReferenceCache{}
	if o.Reference != nil {
		if err := o.Reference.CheckFor(o.frameOf()); err != nil {
			return nil, fmt.Errorf("the reference orbit given is not this view's: %v", err)
		}
		refs.Add(o.Reference)
	}
	return refs, nil
}

// resumed is what a resume's checks opened: the .part files and the checkpoint.
type resumed struct {
	part, raw *os.File
	ck        checkpoint
}

// close closes the files a resume's checks opened.
func (r resumed) close() {
	for _, f := range []*os.File{r.part, r.raw} {
		if f != nil {
			f.Close()
		}
	}
}

// setFrame sets the frame, with its reference orbit at its own centre for deep views:
// computed here, once for every tile, in a cache of its own so that the pixels never depend
// on which reference an earlier frame (the window's preview) left in a shared cache; and
// the automatic density resolved. Its colouring is Sampled: the distance colouring's lines
// keep their width in the image's pixels at every supersampling. A raw export computes the
// derivative whatever the colouring (the same escape counts: only DEX and DEY are added).
func (e *exporter) setFrame(ctx context.Context, refs *fractal.ReferenceCache) error {
	opt, plan := e.opt, e.plan
	floc := opt.Location
	floc.Color = floc.Color.Sampled(plan.N)
	withReference := func(ctx context.Context, f fractal.Frame) (fractal.Frame, error) {
		return f.WithReference(ctx, refs, nil)
	}
	if opt.reference != nil {
		withReference = opt.reference
	}
	f0 := fractal.NewFrame(floc, plan.W*plan.N, plan.H*plan.N)
	f0.Derivative = opt.Raw != ""
	f0.Cycles = opt.Raw != "" // the inside's periods and multipliers, for a recolouring of the inside
	frame, err := withReference(ctx, f0)
	if err == nil {
		frame, err = e.resolveDensity(ctx, frame, refs)
		e.sum.Location = opt.Location
	}
	if err == nil {
		frame, err = e.equalise(ctx, frame)
	}
	if err != nil {
		if ctx.Err() != nil {
			return &Error{Kind: ErrInterrupted, Path: e.part, Kept: opt.Resume, Strips: plan.Strips, Err: err,
				Msg: "interrupted while computing the reference orbit, before anything was written"}
		}
		return err
	}
	e.frame, e.ident = frame, identity(e.r, frame)
	if frame.Ref != nil && opt.Shards > 0 {
		if frame.Ref == opt.Reference {
			e.refDigest = opt.ReferenceDigest
		} else if e.refDigest, err = fractal.ReferenceDigest(frame.Ref); err != nil {
			return err
		}
	}
	return nil
}

// open opens the .part: fresh, or resumed from the checkpoint (res, from checkResume).
func (e *exporter) open(ctx context.Context, res resumed) error {
	if !e.opt.Resume {
		return e.openFresh()
	}
	if err := e.continueResume(ctx, res.part, res.raw, res.ck); err != nil {
		return err
	}
	e.sum.Resumed = e.start
	return nil
}

// runAndClose renders and writes the strips, then closes the .part files; the first error
// is returned.
func (e *exporter) runAndClose(ctx context.Context) error {
	e.t0 = time.Now()
	err := e.run(ctx)
	if e.out != nil {
		if closeErr := e.out.Close(); err == nil {
			err = closeErr
		}
	}
	if e.raw != nil {
		if closeErr := e.raw.f.Close(); err == nil {
			err = closeErr
		}
	}
	return err
}

// finishSummary removes the checkpoint of the published export, syncs the folders the files
// are in, and completes the summary: the files' sizes, the time and the rate.
func (e *exporter) finishSummary() {
	opt, sum := e.opt, e.sum
	os.Remove(e.ckpt)
	for _, p := range outputs(e.target, opt.Raw) {
		userfile.SyncDir(filepath.Dir(p))
	}
	if st, err := os.Stat(e.target); e.png && err == nil {
		sum.Bytes = st.Size()
	}
	if st, err := os.Stat(opt.Raw); opt.Raw != "" && err == nil {
		sum.RawBytes = st.Size()
	}
	sum.Elapsed = time.Since(e.t0)
	if s := sum.Elapsed.Seconds(); s > 0 {
		sum.Rate = float64(int64(opt.Width)*int64(opt.Height)) * float64(e.end-e.start) / float64(e.plan.Strips) / s / 1e6
	}
}
