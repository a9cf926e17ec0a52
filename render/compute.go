// The compute stage alone on the GPU: the orbits iterated into the multi-pass state textures
// (passes.go) and their final state read back as samples, for a colour pass elsewhere
// (colour.Colourer).

package render

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/shaders"
)

// Compute computes the samples (colour.Sample) of the pixels rect of frame f, in f's global
// pixel coordinates, into dst, whose top-left sample receives rect.Min, like
// cpu.Renderer.Compute: the compute stage alone, with the derivative (distance estimate and
// normal) where f.NeedsDerivative. Each band of each tile is iterated as Render's multi-pass
// path iterates it (the same programs, so the same escape counts and the smooth value as a
// float32), and the state textures are read back instead of coloured. Frames Render hands to
// the CPU renderer (Mode says which) go to the CPU renderer's Compute. Cancelling ctx stops
// it before the next pass with ctx's error, dst then partly computed.
func (g *GL) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	if rect.Empty() {
		return nil
	}
	if err := checkData(f, rect, dst); err != nil {
		return err
	}
	if err := f.Loc.Color.Validate(); err != nil {
		return err
	}
	if f.Rings != nil {
		// The shaders compute grids: a frame laid out as rings (an exponential map) goes
		// to the CPU renderer, whose per-pixel functions follow the layout.
		g.statsMu.Lock()
		g.stats.CPUFrames++
		g.statsMu.Unlock()
		return g.cpu.Compute(ctx, f, rect, dst)
	}
	v := g.variant(f)
	if v == shaders.Perturb {
		var gpu bool
		var err error
		if f, gpu, err = g.withReference(ctx, f); err != nil {
			return err
		}
		if !gpu {
			g.statsMu.Lock()
			g.stats.CPUFrames++
			g.statsMu.Unlock()
			return g.cpu.Compute(ctx, f, rect, dst)
		}
	}
	exp := v == shaders.Perturb && f.Precision() == fractal.PerturbationExp
	if err := checkNumbers(f, exp); err != nil {
		return err
	}

	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errors.New("opengl compute: renderer is closed")
	}
	if v != shaders.Perturb && g.progs[v] == nil {
		return fmt.Errorf("opengl compute: %s has no %s shader", g.renderer, v)
	}
	// The derivative: where the colouring reads it (a formula's Jacobian too); always on the orbit path,
	// whose samples carry the estimate as the CPU's do (fractal.Frame.PixelChannels).
	deriv := f.NeedsDerivative() || f.OrbitPath()
	for _, t := range tilesOf(rect, g.maxTile) {
		if err := ctx.Err(); err != nil {
			return err
		}
		sub := dst.SubData(t.Sub(rect.Min).Add(dst.Rect.Min))
		if err := g.th.call(func() error { return g.computeTile(ctx, v, f, exp, deriv, t, sub) }); err != nil {
			return fmt.Errorf("opengl compute: %w", err)
		}
	}
	if f.NeedsInterior() {
		// The inside's cycles, on the CPU (the shaders have no period search): as the CPU
		// renderer adds them.
		return f.FillInterior(ctx, rect, dst)
	}
	return nil
}

// checkData is checkTarget for Compute's destination: at least rect's size, and its samples
// all inside Pix (GL writes them through a buffer, Go copies them in).
func checkData(f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	if dst == nil || dst.Rect.Dx() < rect.Dx() || dst.Rect.Dy() < rect.Dy() {
		var size image.Point
		if dst != nil {
			size = dst.Rect.Size()
		}
		return fmt.Errorf("opengl compute: destination %v is smaller than tile %v", size, rect.Size())
	}
	if dst.Stride < rect.Dx() || len(dst.Pix) < (rect.Dy()-1)*dst.Stride+rect.Dx() {
		return fmt.Errorf("opengl compute: destination data is malformed (stride %d, %d samples for %v)", dst.Stride, len(dst.Pix), rect.Size())
	}
	return checkFrame("opengl compute", f, rect)
}

// iterProgram runs on the GL thread: the iterate stage that computes frame f (variant v, exp
// for extended exponents), with DERIV when deriv, JULIA for a Julia set and the defines of
// its formula (formulaDefines); for perturbation
// it uploads the frame's tables unless they are already.
func (g *GL) iterProgram(v shaders.Variant, f fractal.Frame, exp, deriv bool) (*program, error) {
	switch {
	case v == shaders.Perturb:
		tables, err := g.frameTables(f, exp)
		if err != nil {
			return nil, err
		}
		return g.lazyProgram(progKey{v: v, pages: tables.pages, stage: stageIterate, deriv: deriv, exp: exp,
			julia: f.Loc.IsJulia(), formula: f.Loc.Formula, orbit: f.OrbitPath()})
	case deriv || f.Loc.IsJulia() || !f.Loc.Formula.IsMandelbrot() || f.OrbitPath():
		return g.lazyProgram(progKey{v: v, stage: stageIterate, deriv: deriv, julia: f.Loc.IsJulia(), formula: f.Loc.Formula, orbit: f.OrbitPath()})
	}
	it, _, err := g.passPrograms(v)
	return it, err
}

// computeTile runs on the GL thread: computes one tile band by band (the bands of the state
// textures) and reads each band back into dst as samples. Where Render draws the tile in one
// pass (mandel.frag's variants at ordinary iteration counts) a band is drawn by the
// STAGE_SAMPLE program in draws of at most drawBudget, as Render's bands, into the sample
// target; otherwise (perturbation, high iteration counts, forced passes) it is iterated in
// passes (iterateBand) and its final state read: texture 2's status and smooth value and,
// with the derivative, texture 3's distance estimate and normal. Both run the same orbit
// arithmetic, so they give the same samples bit for bit. Between draws it checks ctx,
// returning its error.
func (g *GL) computeTile(ctx context.Context, v shaders.Variant, f fractal.Frame, exp, deriv bool, tile image.Rectangle, dst *colour.Data) error {
	p, single, err := g.computeProgram(v, f, exp, deriv)
	if err != nil {
		return err
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.BindVertexArray(g.vao)
	defer func() {
		gl.Disable(gl.SCISSOR_TEST)
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
		gl.ActiveTexture(gl.TEXTURE0)
	}()
	bufs := 2 // the samples (or texture 2), and texture 3; the orbit path's channels too
	if p.orbit {
		bufs = 3
	}
	if len(g.readBuf) < bufs*4*stateW*stateH {
		g.readBuf = make([]uint32, bufs*4*stateW*stateH)
	}
	for _, b := range stateBands(tile.Dx(), tile.Dy()) {
		w, h := b.Dx(), b.Dy()
		n := 4 * w * h
		buf, shading, channels := g.readBuf[:n], g.readBuf[n:2*n], g.readBuf[2*n:bufs*n]
		if single {
			if err := g.sampleBand(ctx, p, f, tile, b); err != nil {
				return err
			}
		} else {
			src, err := g.iterateBand(ctx, p, f, tile, b)
			if err != nil {
				return err
			}
			gl.BindFramebuffer(gl.FRAMEBUFFER, g.stateFBO[src])
		}
		start := time.Now()
		gl.PixelStorei(gl.PACK_ALIGNMENT, 4)
		gl.PixelStorei(gl.PACK_ROW_LENGTH, 0)
		switch {
		case single && !deriv:
			// nu alone: a quarter of the bytes.
			gl.ReadBuffer(gl.COLOR_ATTACHMENT0)
			gl.ReadPixels(0, 0, int32(w), int32(h), gl.RED_INTEGER, gl.UNSIGNED_INT, gl.Ptr(&buf[0]))
		case single:
			gl.ReadBuffer(gl.COLOR_ATTACHMENT0)
			gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA_INTEGER, gl.UNSIGNED_INT, gl.Ptr(&buf[0]))
		default:
			gl.ReadBuffer(gl.COLOR_ATTACHMENT2)
			gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA_INTEGER, gl.UNSIGNED_INT, gl.Ptr(&buf[0]))
			if deriv {
				gl.ReadBuffer(gl.COLOR_ATTACHMENT3)
				gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA_INTEGER, gl.UNSIGNED_INT, gl.Ptr(&shading[0]))
			}
		}
		if p.orbit {
			// The channels: the sample target's second attachment, or the state's fifth.
			if single {
				gl.ReadBuffer(gl.COLOR_ATTACHMENT1)
			} else {
				gl.ReadBuffer(gl.COLOR_ATTACHMENT4)
			}
			gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA_INTEGER, gl.UNSIGNED_INT, gl.Ptr(&channels[0]))
		}
		if e := gl.GetError(); e != gl.NO_ERROR {
			return fmt.Errorf("reading back the samples of tile %v: GL error 0x%x", tile, e)
		}
		// Row 0 of the target is the band's top row (common.glsl).
		for y := range h {
			row := dst.Row(dst.Rect.Min.Y + b.Min.Y + y)[b.Min.X : b.Min.X+w]
			var err error
			switch {
			case single && !deriv:
				nuSamples(row, buf[w*y:w*(y+1)])
			case single:
				packedSamples(row, buf[4*w*y:4*w*(y+1)])
			default:
				err = stateSamples(row, buf[4*w*y:4*w*(y+1)], shading[4*w*y:4*w*(y+1)], deriv)
			}
			if p.orbit && err == nil {
				channelSamples(row, channels[4*w*y:4*w*(y+1)])
			}
			if err != nil {
				return fmt.Errorf("tile %v, row %d: %w", tile, tile.Min.Y+b.Min.Y+y, err)
			}
		}
		g.statsMu.Lock()
		g.stats.ReadBack += time.Since(start)
		g.statsMu.Unlock()
	}
	g.statsMu.Lock()
	g.stats.Tiles++
	g.stats.Pixels += int64(tile.Dx()) * int64(tile.Dy())
	g.statsMu.Unlock()
	return nil
}

// computeProgram is computeTile's program for frame f, with its target made: the one-pass
// STAGE_SAMPLE program (single) where the count fits a pass, else the iteration stages'.
func (g *GL) computeProgram(v shaders.Variant, f fractal.Frame, exp, deriv bool) (p *program, single bool, err error) {
	single = v != shaders.Perturb && g.opts.PassIterations == 0 &&
		int64(f.Loc.Iterations)*variantWeight(v)*formulaWeight(f.Loc.Formula) <= passCost
	switch {
	case single:
		p, err = g.lazyProgram(progKey{v: v, stage: stageSample, deriv: deriv, julia: f.Loc.IsJulia(), formula: f.Loc.Formula, orbit: f.OrbitPath()})
		if err == nil {
			err = g.ensureSampleTarget()
		}
	default:
		p, err = g.iterProgram(v, f, exp, deriv)
		if err == nil {
			err = g.ensureState()
		}
	}
	return p, single, err
}

// sampleBand runs on the GL thread: draws band b (in tile pixels) of the tile of frame f with
// the STAGE_SAMPLE program p into the sample target, in draws of rows of at most drawBudget
// (bands), checking ctx before each. It leaves the sample framebuffer bound.
func (g *GL) sampleBand(ctx context.Context, p *program, f fractal.Frame, tile, b image.Rectangle) error {
	gl.BindFramebuffer(gl.FRAMEBUFFER, g.sampleFBO)
	gl.Viewport(0, 0, int32(b.Dx()), int32(b.Dy()))
	gl.UseProgram(p.id)
	p.setView(viewOf(f, tile.Min.Add(b.Min)))
	gl.Uniform1i(p.loc["uMaxIter"], int32(f.Loc.Iterations))
	if p.orbit {
		p.setOrbit(f.Loc)
		both := [2]uint32{gl.COLOR_ATTACHMENT0, gl.COLOR_ATTACHMENT1}
		gl.DrawBuffers(2, &both[0])
		defer gl.DrawBuffers(1, &both[0])
	}
	gl.Enable(gl.SCISSOR_TEST)
	for _, r := range bands(b.Dx(), b.Dy(), f.Loc.Iterations, programWeight(p)) {
		if err := ctx.Err(); err != nil {
			return err
		}
		gl.Scissor(int32(r.Min.X), int32(r.Min.Y), int32(r.Dx()), int32(r.Dy()))
		g.timedDraw(false)
	}
	gl.Disable(gl.SCISSOR_TEST)
	return nil
}

// ensureSampleTarget makes the STAGE_SAMPLE program's target: two RGBA32UI textures of stateW
// x stateH (one band) and a framebuffer with them as its colour attachments 0 and 1 (drawn
// to: 0 alone, but for the orbit path's programs).
func (g *GL) ensureSampleTarget() error {
	if g.sampleFBO != 0 {
		return nil
	}
	gl.GenFramebuffers(1, &g.sampleFBO)
	gl.GenTextures(1, &g.sampleTex)
	gl.GenTextures(1, &g.chanTex)
	gl.BindFramebuffer(gl.FRAMEBUFFER, g.sampleFBO)
	for i, t := range []uint32{g.sampleTex, g.chanTex} {
		gl.BindTexture(gl.TEXTURE_2D, t)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
		gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
		gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA32UI, stateW, stateH, 0, gl.RGBA_INTEGER, gl.UNSIGNED_INT, nil)
		gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0+uint32(i), gl.TEXTURE_2D, t, 0)
	}
	gl.BindTexture(gl.TEXTURE_2D, 0)
	if e := gl.GetError(); e != gl.NO_ERROR {
		g.deleteSampleTarget()
		return fmt.Errorf("sample target %dx%d: GL error 0x%x (out of memory?)", stateW, stateH, e)
	}
	if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		g.deleteSampleTarget()
		return fmt.Errorf("sample framebuffer incomplete: status 0x%x", st)
	}
	return nil
}

// deleteSampleTarget frees the sample target (none made is fine).
func (g *GL) deleteSampleTarget() {
	if g.sampleTex != 0 {
		gl.DeleteTextures(1, &g.sampleTex)
	}
	if g.chanTex != 0 {
		gl.DeleteTextures(1, &g.chanTex)
	}
	if g.sampleFBO != 0 {
		gl.DeleteFramebuffers(1, &g.sampleFBO)
	}
	g.sampleTex, g.chanTex, g.sampleFBO = 0, 0, 0
}

// insideBits is the STAGE_SAMPLE program's nu for a pixel inside the set: +Inf's float bits.
const insideBits = 0x7F800000

// nuSamples turns one row of the STAGE_SAMPLE target's first channel (nu's float bits, +Inf
// inside) into samples without the derivative.
func nuSamples(dst []colour.Sample, nu []uint32) {
	for x, u := range nu[:len(dst)] {
		if u == insideBits {
			dst[x] = colour.Sample{Nu: colour.Inside}
		} else {
			dst[x] = colour.Sample{Nu: float64(math.Float32frombits(u))}
		}
	}
}

// packedSamples turns one row of the STAGE_SAMPLE target's texels (nu, de, u.x, u.y as float
// bits, nu +Inf inside) into samples with the derivative, as stateSamples does.
func packedSamples(dst []colour.Sample, texels []uint32) {
	for x := range dst {
		t := texels[4*x : 4*x+4 : 4*x+4]
		if t[0] == insideBits {
			dst[x] = colour.Sample{Nu: colour.Inside}
			continue
		}
		dst[x] = shadedSample(t[0], t[1], t[2], t[3])
	}
}

// shadedSample is the sample of an escaped pixel from the float bits of its smooth value,
// distance estimate and normal: colour.NewSample's, as the CPU's fractal.Result.Sample gives
// it.
func shadedSample(nu, de, ur, ui uint32) colour.Sample {
	f := func(u uint32) float64 { return float64(math.Float32frombits(u)) }
	return colour.NewSample(0, f(nu), f(de), f(ur), f(ui))
}

// stateSamples turns one row of final multi-pass state into samples: status (texture 2's
// texels: status 1 black, 2 escaped with nu's float bits) and, with deriv, shading (texture
// 3's: de, u.x, u.y as float bits). A pixel still running (status 0) is an error: the passes
// run every pixel to its end.
func stateSamples(dst []colour.Sample, status, shading []uint32, deriv bool) error {
	for x := range dst {
		st := status[4*x : 4*x+4 : 4*x+4]
		switch st[0] {
		case 1:
			dst[x] = colour.Sample{Nu: colour.Inside}
		case 2:
			if !deriv {
				dst[x] = colour.Sample{Nu: float64(math.Float32frombits(st[3]))}
				continue
			}
			sh := shading[4*x : 4*x+4 : 4*x+4]
			dst[x] = shadedSample(st[3], sh[0], sh[1], sh[2])
		default:
			return fmt.Errorf("state %d after the last pass (want 1 black or 2 escaped)", st[0])
		}
	}
	return nil
}
