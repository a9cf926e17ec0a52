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
	deriv := f.NeedsDerivative()
	for _, t := range tilesOf(rect, g.maxTile) {
		if err := ctx.Err(); err != nil {
			return err
		}
		sub := dst.SubData(t.Sub(rect.Min).Add(dst.Rect.Min))
		if err := g.th.call(func() error { return g.computeTile(ctx, v, f, exp, deriv, t, sub) }); err != nil {
			return fmt.Errorf("opengl compute: %w", err)
		}
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
// for extended exponents), with DERIV when deriv; for perturbation it uploads the frame's
// tables unless they are already.
func (g *GL) iterProgram(v shaders.Variant, f fractal.Frame, exp, deriv bool) (*program, error) {
	switch {
	case v == shaders.Perturb:
		var bla *fractal.BLA
		var blaExp *fractal.BLAExp
		if !noBLA && exp {
			blaExp = f.BLAExp()
		} else if !noBLA {
			bla = f.BLA()
		}
		tables, err := g.ensureTables(f.Ref, bla, blaExp)
		if err != nil {
			return nil, err
		}
		return g.perturbProgram(tables.pages, stageIterate, false, deriv, exp)
	case deriv:
		return g.lazyProgram(progKey{v: v, stage: stageIterate, deriv: true})
	}
	it, _, err := g.passPrograms(v)
	return it, err
}

// computeTile runs on the GL thread: iterates one tile band by band (iterateBand) and reads
// each band's final state back into dst as samples: texture 2's status and smooth value and,
// with the derivative, texture 3's distance estimate and normal. Between passes it checks
// ctx, returning its error.
func (g *GL) computeTile(ctx context.Context, v shaders.Variant, f fractal.Frame, exp, deriv bool, tile image.Rectangle, dst *colour.Data) error {
	it, err := g.iterProgram(v, f, exp, deriv)
	if err != nil {
		return err
	}
	if err := g.ensureState(); err != nil {
		return err
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.BindVertexArray(g.vao)
	defer gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
	for _, b := range stateBands(tile.Dx(), tile.Dy()) {
		src, err := g.iterateBand(ctx, it, f, tile, b)
		if err != nil {
			return err
		}
		start := time.Now()
		w, h := b.Dx(), b.Dy()
		n := 4 * w * h
		if len(g.readBuf) < 2*n {
			g.readBuf = make([]uint32, 2*4*stateW*stateH)
		}
		status, shading := g.readBuf[:n], g.readBuf[n:2*n]
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.stateFBO[src])
		gl.PixelStorei(gl.PACK_ALIGNMENT, 4)
		gl.PixelStorei(gl.PACK_ROW_LENGTH, 0)
		gl.ReadBuffer(gl.COLOR_ATTACHMENT2)
		gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA_INTEGER, gl.UNSIGNED_INT, gl.Ptr(&status[0]))
		if deriv {
			gl.ReadBuffer(gl.COLOR_ATTACHMENT3)
			gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA_INTEGER, gl.UNSIGNED_INT, gl.Ptr(&shading[0]))
		}
		if e := gl.GetError(); e != gl.NO_ERROR {
			return fmt.Errorf("reading back the state of tile %v: GL error 0x%x", tile, e)
		}
		// Row 0 of the state is the band's top row (common.glsl).
		for y := range h {
			row := dst.Row(dst.Rect.Min.Y + b.Min.Y + y)[b.Min.X : b.Min.X+w]
			if err := stateSamples(row, status[4*w*y:4*w*(y+1)], shading[4*w*y:4*w*(y+1)], deriv); err != nil {
				return fmt.Errorf("tile %v, pixel %v: %w", tile, tile.Min.Add(b.Min).Add(image.Pt(0, y)), err)
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
	gl.ActiveTexture(gl.TEXTURE0)
	return nil
}

// stateSamples turns one row of final multi-pass state into samples: status (texture 2's
// texels: status 1 black, 2 escaped with nu's float bits) and, with deriv, shading (texture
// 3's: de, u.x, u.y as float bits) give colour.NewSample's sample, as the CPU's
// fractal.Result.Sample gives it. A pixel still running (status 0) is an error: the passes
// run every pixel to its end.
func stateSamples(dst []colour.Sample, status, shading []uint32, deriv bool) error {
	for x := range dst {
		st := status[4*x : 4*x+4 : 4*x+4]
		switch st[0] {
		case 1:
			dst[x] = colour.Sample{Nu: colour.Inside}
		case 2:
			nu := float64(math.Float32frombits(st[3]))
			if !deriv {
				dst[x] = colour.Sample{Nu: nu}
				continue
			}
			sh := shading[4*x : 4*x+4 : 4*x+4]
			de := float64(math.Float32frombits(sh[0]))
			ur, ui := float64(math.Float32frombits(sh[1])), float64(math.Float32frombits(sh[2]))
			dst[x] = colour.NewSample(0, nu, de, ur, ui)
		default:
			return fmt.Errorf("state %d after the last pass (want 1 black or 2 escaped)", st[0])
		}
	}
	return nil
}
