package export

import (
	"context"
	"image"
	"strings"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/tile"
)

// DensitySampleSide is the longer side, in pixels, of the sample of a view from which
// ResolveDensity chooses an automatic density: 96x54 for a 16:9 image, some 5,000 samples,
// a few hundred thousandths of a 4K frame's work (its reference orbit is the image's own).
const DensitySampleSide = 96

// ResolveDensity returns loc with an automatic density (colour.Coloring.AutoDensity)
// resolved to a number, explicit, chosen (colour.Coloring.ResolveDensity) from a
// low-resolution sample of the view of a w x h image: a frame of DensitySampleSide pixels on
// its longer side (a quarter of the image's at most) and the image's aspect, computed by c. The reference orbit comes from refs
// (nil: fractal.DefaultReferences): pass the cache that holds the image's own, and it is not
// computed twice. A location with an explicit density is returned as it is, computing
// nothing. Cancelling ctx stops it with ctx's error.
func ResolveDensity(ctx context.Context, c tile.Computer, loc fractal.Location, w, h int, refs *fractal.ReferenceCache) (fractal.Location, error) {
	if !loc.Color.AutoDensity {
		return loc, nil
	}
	if loc.Color.IsHistogram() {
		loc.Color = loc.Color.ResolveDensity(nil) // 1, from no samples
		return loc, nil
	}
	sw, sh := densitySampleSize(w, h)
	sl := loc
	sl.Color.Method = "" // the counts are all it reads: no derivative
	f, err := fractal.NewFrame(sl, sw, sh).WithReference(ctx, refs, nil)
	if err != nil {
		return loc, err
	}
	d := colour.NewData(image.Rect(0, 0, sw, sh))
	if err := c.Compute(ctx, f, d.Rect, d); err != nil {
		return loc, err
	}
	loc.Color = loc.Color.ResolveDensity(d)
	return loc, nil
}

// densitySampleSize is the size of ResolveDensity's sample of a w x h image: the image's
// aspect, DensitySampleSide pixels on the longer side but at most a quarter of the image's
// (a sixteenth of its pixels, for small images), at least 1 on each side.
func densitySampleSize(w, h int) (sw, sh int) {
	w, h = max(w, 1), max(h, 1)
	long := min(DensitySampleSide, max(max(w, h)/4, 1))
	if w >= h {
		return long, max(1, (long*h+w/2)/w)
	}
	return max(1, (long*w+h/2)/h), long
}

// checkpointDensity is the density recorded in a checkpoint's description (Options.params:
// the location's text form, then " size=..."), for resuming an export whose density is
// automatic with the number its first run chose; ok is false where it does not read as one.
func checkpointDensity(desc string) (density float64, ok bool) {
	loc, _, found := strings.Cut(desc, " size=")
	if !found {
		return 0, false
	}
	l, err := fractal.ParseLocationText(loc, fractal.Home())
	if err != nil || l.Color.AutoDensity {
		return 0, false
	}
	return l.Color.Density, true
}

// resolveDensity makes an automatic density in e's options explicit before anything is
// written: on a resume, the number the checkpoint records (the first run's choice, so that
// the rest of the image is drawn as its start was); on a fresh export, the number
// ResolveDensity chooses from a sample of the view, computed by opt.Sampler, or r when it
// is a tile.Computer, with the image's own reference orbit from refs; with neither, the
// Density the location holds. frame is the image's frame, which draws it.
func (e *exporter) resolveDensity(ctx context.Context, frame fractal.Frame, refs *fractal.ReferenceCache) (fractal.Frame, error) {
	opt := e.opt
	if !opt.Location.Color.AutoDensity {
		return frame, nil
	}
	c := opt.Sampler
	if c == nil {
		c, _ = e.r.(tile.Computer)
	}
	if c != nil {
		loc, err := ResolveDensity(ctx, c, opt.Location, e.plan.W, e.plan.H, refs)
		if err != nil {
			return frame, err
		}
		opt.Location = loc
	}
	opt.Location.Color.AutoDensity = false
	frame.Loc.Color.Density, frame.Loc.Color.AutoDensity = opt.Location.Color.Density, false
	e.hash, e.desc = opt.params(e.plan, e.png)
	if e.rawPart != "" {
		// The raw file records the density drawn too, so that recolour and --from draw it.
		h, err := e.rawHeader(opt.Location)
		if err != nil {
			return frame, err
		}
		e.rawHdr = h
	}
	return frame, nil
}

// resumeDensity is resolveDensity for a resume: opt's automatic density becomes the one the
// checkpoint at ckpt records, before the parameters are compared. A checkpoint that cannot
// be read, or records none, leaves it automatic (the resume is then refused as it would be).
func (o *Options) resumeDensity(ckpt string) {
	if !o.Location.Color.AutoDensity || !o.Resume {
		return
	}
	ck, err := readCheckpoint(ckpt)
	if err != nil {
		return
	}
	if d, ok := checkpointDensity(ck.Description); ok {
		o.Location.Color.Density, o.Location.Color.AutoDensity = d, false
	}
}
