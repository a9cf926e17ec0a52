package video

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/tile"
)

// keyframeSet is the keyframe setup Make and makeShard share: the keyframes' size, the
// location they are of, the frame of each, the deepest one (whose reference orbit serves
// them all), the cache of orbits, and the manifest that names the video's keyframes.
type keyframeSet struct {
	plan   Plan
	loc    fractal.Location
	kw, kh int
	// rings is the rings layout (nil: flat keyframes, kw x kh each).
	rings   *ringLayout
	deriv   bool
	refs    *fractal.ReferenceCache
	deepest fractal.Frame
	want    manifest
}

// newKeyframeSet sets up opt's keyframes; c and opt.Renderer name the renderer in the manifest.
func newKeyframeSet(c tile.Computer, opt Options, plan Plan) *keyframeSet {
	k := &keyframeSet{plan: plan, loc: opt.Location, kw: opt.KeyScale * opt.Width, kh: opt.KeyScale * opt.Height,
		refs: &fractal.ReferenceCache{}}
	k.deriv = k.loc.Color.NeedsDerivative()
	format := 1
	if opt.Layout != LayoutFlat {
		g := newRingLayout(opt.Width, opt.Height, opt.KeyScale)
		k.rings, k.kw, k.kh, format = &g, g.cols, g.rows, 2
	}
	k.deepest = k.frame(k.count() - 1)
	k.want = manifest{Format: format, Centre: k.loc.Re.String() + "," + k.loc.Im.String(), Julia: k.loc.Julia.String(), StartZoom: plan.Start.String(),
		EndZoom: plan.End.String(), Iterations: k.loc.Iterations, KeyWidth: k.kw, KeyHeight: k.kh,
		Keyframes: k.count(), Derivative: k.deriv, Renderer: rendererID(c, opt.Renderer, k.deepest)}
	k.want.Formula, k.want.Power = k.loc.Formula.Fields()
	k.want.Rotation = k.loc.Rotation
	return k
}

// count is the number of keyframes: the plan's, and the centre one of rings keyframes.
func (k *keyframeSet) count() int {
	if k.rings != nil {
		return k.plan.Keyframes() + 1
	}
	return k.plan.Keyframes()
}

// size is keyframe j's size in samples.
func (k *keyframeSet) size(j int) (w, h int) {
	if k.rings != nil && j == k.plan.Keyframes() {
		return k.rings.cw, k.rings.ch
	}
	return k.kw, k.kh
}

// frame is keyframe j's frame, without its reference orbit: flat, or the rings of the
// plan's keyframe j, or after them the centre (the end view's flat keyframe, taller).
func (k *keyframeSet) frame(j int) fractal.Frame {
	l := k.loc
	var f fractal.Frame
	switch {
	case k.rings == nil:
		l.Zoom = k.plan.Zoom(j)
		f = fractal.NewFrame(l, k.kw, k.kh)
	case j == k.plan.Keyframes():
		// The end view's flat keyframe, and more around it.
		l.Zoom = k.plan.End
		f = k.rings.centreFrame(l)
	default:
		l.Zoom = k.plan.Zoom(j)
		f = k.rings.ringFrame(l)
	}
	f.Derivative = k.deriv
	return f
}

// summary is a run's summary before anything is computed.
func (k *keyframeSet) summary() Summary {
	return Summary{Frames: k.plan.Frames, Keyframes: k.count(), KeyWidth: k.kw, KeyHeight: k.kh}
}

// making is one run of Make (not a shard's): its stages, in order, are workFolder, missing,
// reference, keyframes and frames; the first error ends the run.
type making struct {
	ctx context.Context
	c   tile.Computer
	opt Options
	*keyframeSet
	codec  Codec
	enc    string
	work   string
	vid    [32]byte
	missed []int
	seen   map[*fractal.Reference]bool
	sum    Summary
}

// withRef is f with its reference orbit, each orbit computed counted in the summary.
func (m *making) withRef(f fractal.Frame) (fractal.Frame, error) {
	f, err := f.WithReference(m.ctx, m.refs, nil)
	if err == nil && f.Ref != nil && !m.seen[f.Ref] {
		m.seen[f.Ref] = true
		m.sum.References++
	}
	return f, err
}

// workFolder makes a fresh work folder, or checks the one to resume against this video.
func (m *making) workFolder() error {
	work, opt := m.work, m.opt
	if opt.Resume {
		var have manifest
		b, err := os.ReadFile(filepath.Join(work, manifestName))
		if err == nil {
			err = json.Unmarshal(b, &have)
		}
		if err != nil {
			return &Error{ErrParamsDiffer, fmt.Sprintf("%s: no readable %s (%v)", work, manifestName, err)}
		}
		if opt.assembleShards > 0 {
			m.want.Renderer = have.Renderer // the shards' (the assembly computes no keyframe)
		}
		if have.Format != m.want.Format {
			return &Error{ErrParamsDiffer, fmt.Sprintf("the keyframes in %s are %s, and this video's %s: remove the folder, or add --force to start over", work, layoutWords(have.Format), layoutWords(m.want.Format))}
		}
		if d := have.diff(m.want); len(d) > 0 {
			return &Error{ErrParamsDiffer, fmt.Sprintf("the keyframes in %s are of another video: %s", work, strings.Join(d, "; "))}
		}
		m.want.Derivative = have.Derivative
	} else {
		if err := removeWork(work); err != nil {
			return err
		}
		if err := os.MkdirAll(work, 0o755); err != nil {
			return err
		}
		b, _ := json.MarshalIndent(m.want, "", "  ")
		if err := writeFileAtomic(filepath.Join(work, manifestName), append(b, '\n')); err != nil {
			return err
		}
	}
	m.deriv = m.want.Derivative
	m.vid = m.want.digest()
	return nil
}

// missing lists the keyframes that are missing (or damaged: a file whose checksum fails; or
// another's: of another video, or another index). An assembly of shards computes none.
func (m *making) missing() error {
	for j := range m.count() {
		w, h := m.size(j)
		if m.opt.Resume && keyframeSound(m.opt, m.work, keyID{m.vid, j}, w, h) {
			continue
		}
		m.missed = append(m.missed, j)
	}
	m.sum.Reused = m.count() - len(m.missed)
	if m.opt.assembleShards > 0 && len(m.missed) > 0 {
		return missingError(m.work, m.missed, m.opt.assembleShards)
	}
	return nil
}

// reference computes (or, for an assembly, reads the shards') deepest keyframe's orbit
// first: it has the most bits, so every shallower keyframe (same centre, same iterations)
// and the automatic density's sample find it in reach; then resolves that density.
func (m *making) reference() error {
	if m.opt.assembleShards > 0 && m.deepest.Precision().Perturbs() {
		// The orbit a shard kept (shard.go), for the automatic density's sample.
		if ref, err := readReference(filepath.Join(m.work, referenceName)); err == nil && ref.CheckFor(m.deepest) == nil {
			m.refs.Add(ref)
		}
	}
	if len(m.missed) > 0 || m.loc.Color.AutoDensity {
		if _, err := m.withRef(m.deepest); err != nil {
			return interrupted(err, m.work)
		}
	}
	if m.loc.Color.AutoDensity {
		loc, err := export.ResolveDensity(m.ctx, m.c, m.loc, m.opt.Width, m.opt.Height, m.refs)
		if err != nil {
			return interrupted(err, m.work)
		}
		m.loc = loc
	}
	m.sum.Density = m.loc.Color.Density
	return nil
}

// keyframes computes the missing keyframes, from the shallowest to the deepest.
func (m *making) keyframes() error {
	opt := m.opt
	opt.Progress = withFraction(opt.Progress, len(m.missed), m.kw, m.kh, m.plan.Frames, opt.Width, opt.Height, opt.Supersample)
	m.opt = opt
	tk := time.Now()
	err := computeKeyframes(m.ctx, m.c, opt, m.work, m.vid, m.missed, func(j int) (fractal.Frame, error) {
		return m.withRef(m.frame(j))
	}, "; the keyframes written are kept for --resume", &m.sum)
	if err != nil {
		return err
	}
	m.sum.Keyframe = time.Since(tk)
	return nil
}

// frames composes every frame and hands it to the encoder and/or the frames folder.
func (m *making) frames() error {
	if err := compose(m.ctx, m.plan, m.loc, m.opt, m.codec, m.enc, m.vid, m.kw, m.kh, m.rings, &m.sum); err != nil {
		return interrupted(err, m.work)
	}
	m.sum.Frames = m.plan.Frames
	return nil
}

// layoutWords names a manifest format's keyframes for a message.
func layoutWords(format int) string {
	switch format {
	case 1:
		return "flat keyframes (made by an earlier version, or with --keyframe-layout=flat)"
	case 2:
		return "rings keyframes (an exponential map)"
	}
	return fmt.Sprintf("of an unknown format %d", format)
}
