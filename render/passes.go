// Multi-pass drawing: orbits iterated a slice at a time, their state carried between passes
// in integer textures (see the package doc), then coloured.

package render

import (
	"context"
	"fmt"
	"image"
	"math"

	"github.com/go-gl/gl/v3.3-core/gl"

	"mandelscope/fractal"
	"mandelscope/shaders"
)

// stateW and stateH are the size of the multi-pass state textures, the largest band of a tile
// that is drawn in passes: 2^18 pixels, 32 MB of state in both sets together.
const (
	stateW = 1024
	stateH = 256
)

// stateBands splits a w x h tile into the bands (in tile pixels) drawn in passes: pieces of at
// most stateW x stateH, the size of the state textures.
func stateBands(w, h int) []image.Rectangle {
	var out []image.Rectangle
	for y := 0; y < h; y += stateH {
		for x := 0; x < w; x += stateW {
			out = append(out, image.Rect(x, y, min(x+stateW, w), min(y+stateH, h)))
		}
	}
	return out
}

// passIterations is P, the iterations of one pass over a band of px pixels: forced when
// forced > 0, else as many as keep the pass's predicted cost (px x P x weight) within
// drawBudget, then evened out so that the passes share the iterations equally.
func passIterations(px, iter int, weight int64, forced int) int {
	if forced > 0 {
		return min(forced, iter)
	}
	p := int(min(max(drawBudget/(int64(px)*weight), 1), int64(iter)))
	passes := (iter + p - 1) / p
	return (iter + passes - 1) / passes
}

// drawPasses runs on the GL thread with the tile's framebuffer bound: draws the tile band by
// band, each band iterated in passes (iterateBand), then a colour pass from the final state
// into the tile's framebuffer. It leaves the tile's framebuffer bound.
func (g *GL) drawPasses(ctx context.Context, single *program, f fractal.Frame, tile image.Rectangle, stops []float32) error {
	v := single.variant
	it, col, err := g.passPrograms(v)
	if err == nil && (v == shaders.Perturb || single.deriv || single.julia || !single.formula.IsMandelbrot() || single.orbit) {
		// The iterate stage draws no colour: SHADE makes no difference to it.
		it, err = g.lazyProgram(progKey{v: v, pages: single.pages, stage: stageIterate, deriv: single.deriv, exp: single.exp,
			julia: single.julia, formula: single.formula, orbit: single.orbit})
	}
	if err == nil && single.orbit {
		// The colour stage reads the channels from the fifth state texture.
		col, err = g.lazyProgram(progKey{v: shaders.F32, stage: stageColour, shade: true, orbit: true})
	}
	if err != nil {
		return err
	}
	if err := g.ensureState(); err != nil {
		return err
	}
	iter := f.Loc.Iterations
	off := f.Loc.Color.Offset
	density, offset := f.Loc.Color.Density, off-math.Floor(off)
	for _, b := range stateBands(tile.Dx(), tile.Dy()) {
		src, err := g.iterateBand(ctx, it, f, tile, b)
		if err != nil {
			gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
			return err
		}

		gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
		gl.Viewport(0, 0, int32(tile.Dx()), int32(tile.Dy()))
		gl.Enable(gl.SCISSOR_TEST)
		gl.Scissor(int32(b.Min.X), int32(b.Min.Y), int32(b.Dx()), int32(b.Dy()))
		gl.UseProgram(col.id)
		col.setColoring(iter, stops, density, offset)
		col.setShading(f.Loc.Color)
		gl.Uniform2i(col.loc["uBand"], int32(b.Min.X), int32(b.Min.Y))
		gl.ActiveTexture(gl.TEXTURE2)
		gl.BindTexture(gl.TEXTURE_2D, g.stateTex[src][2])
		gl.ActiveTexture(gl.TEXTURE0 + uint32(stateUnit(3)))
		gl.BindTexture(gl.TEXTURE_2D, g.stateTex[src][3])
		if col.orbit {
			gl.ActiveTexture(gl.TEXTURE0 + uint32(stateUnit(4)))
			gl.BindTexture(gl.TEXTURE_2D, g.orbitStateTex[src][0])
		}
		g.timedDraw(false)
		gl.Disable(gl.SCISSOR_TEST)
	}
	gl.ActiveTexture(gl.TEXTURE0)
	if e := gl.GetError(); e != gl.NO_ERROR {
		return fmt.Errorf("drawing tile %v in passes: GL error 0x%x", tile, e)
	}
	return nil
}

// iterateBand runs on the GL thread: iterates the orbits of band b (in tile pixels) of the
// tile of frame f with the iterate program it, in passes of at most passIterations
// iterations that carry the orbits in the state textures, and returns the state set (0 or 1)
// that holds every pixel's final state. The passes end early when one lets no fragment
// through: every pixel had finished, and both state sets hold that. Before each pass it
// checks ctx, returning its error (the state then holds no finished band). It leaves the
// state framebuffer bound and the viewport at the band's size.
func (g *GL) iterateBand(ctx context.Context, it *program, f fractal.Frame, tile, b image.Rectangle) (int, error) {
	iter := f.Loc.Iterations
	p := passIterations(b.Dx()*b.Dy(), iter, programWeight(it), g.opts.PassIterations)
	if it.orbit {
		// The pass where an orbit escapes runs again from its state K iterations (perturb.frag:
		// steps) before the previous pass's end: every pass but the last must be K long.
		p = min(max(p, f.Loc.StripeK()), iter)
	}
	if it.orbit || it.jacobianState() {
		if err := g.ensureOrbitState(); err != nil {
			return 0, err
		}
		defer g.orbitDrawBuffers(false)
		g.orbitDrawBuffers(true)
	}
	gl.Disable(gl.SCISSOR_TEST)
	gl.Viewport(0, 0, int32(b.Dx()), int32(b.Dy()))
	gl.UseProgram(it.id)
	it.setView(viewOf(f, tile.Min.Add(b.Min)))
	if it.variant == shaders.Perturb {
		it.setTables(g.tables)
	}
	// The iterate stage reads the iteration limit alone of the colouring's uniforms.
	gl.Uniform1i(it.loc["uMaxIter"], int32(iter))
	if it.orbit {
		it.setOrbit(f.Loc)
	}
	src := 0
	for k0 := 1; k0 <= iter; k0 += p {
		if err := ctx.Err(); err != nil {
			gl.ActiveTexture(gl.TEXTURE0)
			return 0, err
		}
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.stateFBO[1-src])
		for i, t := range g.stateTex[src] {
			gl.ActiveTexture(gl.TEXTURE0 + uint32(stateUnit(i)))
			gl.BindTexture(gl.TEXTURE_2D, t)
		}
		if it.orbit || it.jacobianState() {
			for i, t := range g.orbitStateTex[src] {
				gl.ActiveTexture(gl.TEXTURE0 + uint32(stateUnit(4+i)))
				gl.BindTexture(gl.TEXTURE_2D, t)
			}
		}
		gl.Uniform1i(it.loc["uK0"], int32(k0))
		gl.Uniform1i(it.loc["uK1"], int32(min(k0+p-1, iter)))
		if !g.timedDraw(true) {
			break // no pixel left running: src holds every pixel's final state
		}
		src = 1 - src
	}
	return src, nil
}

// jacobianState reports whether iterate program p carries a formula's Jacobian in double
// (JACOBIAN with fp64, common.glsl's packW): its second column in the fifth state texture,
// which the orbit path's programs use for their checkpoint.
func (p *program) jacobianState() bool {
	return p.deriv && !p.formula.IsMandelbrot() && (p.variant == shaders.F64 || p.variant == shaders.Perturb)
}

// passPrograms returns variant v's iterate stage and the colour stage, compiling them on
// first use.
func (g *GL) passPrograms(v shaders.Variant) (it, col *program, err error) {
	if g.iterProgs[v] == nil && v != shaders.Perturb {
		p, err := newStageProgram(g.glsl, v, stageIterate, shaders.FullscreenVert, shaders.MandelFrag)
		if err != nil {
			return nil, nil, err
		}
		g.iterProgs[v] = p
	}
	if g.colourProg == nil {
		// One colour stage for every colouring: SHADE, whose branch on the uniforms costs
		// little in a stage that runs once per pixel after the passes.
		p, err := linkProgram(g.glsl, shaders.F32, stageColour, shaders.FullscreenVert, []source{{"mandel.frag", shaders.MandelFrag}},
			[]string{string(shaders.F32), shadeDefine})
		if err != nil {
			return nil, nil, err
		}
		g.colourProg = p
	}
	return g.iterProgs[v], g.colourProg, nil
}

// ensureState makes the two sets of multi-pass state textures (RGBA32UI, stateW x stateH)
// and a framebuffer for each set with the four as its colour attachments.
func (g *GL) ensureState() error {
	if g.stateFBO[0] != 0 {
		return nil
	}
	gl.GenQueries(1, &g.query)
	gl.GenFramebuffers(2, &g.stateFBO[0])
	bufs := []uint32{gl.COLOR_ATTACHMENT0, gl.COLOR_ATTACHMENT1, gl.COLOR_ATTACHMENT2, gl.COLOR_ATTACHMENT3}
	for s := range g.stateTex {
		gl.GenTextures(int32(len(g.stateTex[s])), &g.stateTex[s][0])
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.stateFBO[s])
		for i, t := range g.stateTex[s] {
			gl.BindTexture(gl.TEXTURE_2D, t)
			gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
			gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
			gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA32UI, stateW, stateH, 0, gl.RGBA_INTEGER, gl.UNSIGNED_INT, nil)
			gl.FramebufferTexture2D(gl.FRAMEBUFFER, bufs[i], gl.TEXTURE_2D, t, 0)
		}
		gl.DrawBuffers(int32(len(bufs)), &bufs[0])
		if e := gl.GetError(); e != gl.NO_ERROR {
			g.deleteState()
			return fmt.Errorf("multi-pass state textures %dx%d: GL error 0x%x (out of memory?)", stateW, stateH, e)
		}
		if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
			g.deleteState()
			return fmt.Errorf("multi-pass state framebuffer incomplete: status 0x%x", st)
		}
	}
	gl.BindTexture(gl.TEXTURE_2D, 0)
	return nil
}

// ensureOrbitState makes each state set's fifth to seventh textures (RGBA32UI, stateW x
// stateH; the fifth serves a formula's Jacobian too: jacobianState) and attaches them to the set's framebuffer as colour attachments 4 to 6, which the
// other passes do not draw to (their draw buffers are the first four).
func (g *GL) ensureOrbitState() error {
	if g.orbitStateTex[0][0] != 0 {
		return nil
	}
	for s := range g.orbitStateTex {
		gl.GenTextures(int32(len(g.orbitStateTex[s])), &g.orbitStateTex[s][0])
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.stateFBO[s])
		for i, t := range g.orbitStateTex[s] {
			gl.BindTexture(gl.TEXTURE_2D, t)
			gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
			gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
			gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA32UI, stateW, stateH, 0, gl.RGBA_INTEGER, gl.UNSIGNED_INT, nil)
			gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT4+uint32(i), gl.TEXTURE_2D, t, 0)
		}
	}
	gl.BindTexture(gl.TEXTURE_2D, 0)
	if e := gl.GetError(); e != gl.NO_ERROR {
		g.deleteOrbitState()
		return fmt.Errorf("the orbit path's state textures %dx%d: GL error 0x%x (out of memory?)", stateW, stateH, e)
	}
	return nil
}

// orbitDrawBuffers sets both state framebuffers' draw buffers: the seven attachments for the
// orbit path's passes (on; mandel.frag's write the first five, perturb.frag's six, with
// extended exponents seven), the first four again (off).
func (g *GL) orbitDrawBuffers(on bool) {
	bufs := []uint32{gl.COLOR_ATTACHMENT0, gl.COLOR_ATTACHMENT1, gl.COLOR_ATTACHMENT2, gl.COLOR_ATTACHMENT3,
		gl.COLOR_ATTACHMENT4, gl.COLOR_ATTACHMENT5, gl.COLOR_ATTACHMENT6}
	if !on {
		bufs = bufs[:4]
	}
	for _, fbo := range g.stateFBO {
		gl.BindFramebuffer(gl.FRAMEBUFFER, fbo)
		gl.DrawBuffers(int32(len(bufs)), &bufs[0])
	}
}

// deleteOrbitState frees the fifth to seventh state textures (none made is fine); the
// framebuffers detach them as they go.
func (g *GL) deleteOrbitState() {
	for s := range g.orbitStateTex {
		if g.orbitStateTex[s][0] != 0 {
			gl.DeleteTextures(int32(len(g.orbitStateTex[s])), &g.orbitStateTex[s][0])
		}
	}
	g.orbitStateTex = [2][3]uint32{}
}

// deleteState frees the multi-pass state textures and framebuffers (none made is fine).
func (g *GL) deleteState() {
	g.deleteOrbitState()
	for s := range g.stateTex {
		if g.stateTex[s][0] != 0 {
			gl.DeleteTextures(int32(len(g.stateTex[s])), &g.stateTex[s][0])
		}
		g.stateTex[s] = [4]uint32{}
	}
	if g.stateFBO[0] != 0 {
		gl.DeleteFramebuffers(2, &g.stateFBO[0])
	}
	g.stateFBO = [2]uint32{}
	if g.query != 0 {
		gl.DeleteQueries(1, &g.query)
	}
	g.query = 0
}
