// Drawing tiles: Render splits a rect into tiles, each tile is drawn in bands of rows (or in
// passes, passes.go) into the framebuffer and read back into the destination.

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

// drawBudget is the predicted cost (pixels x iterations x variant weight) of one draw call:
// about 0.1 to 0.3 s on llvmpipe with two cores, far less on a real GPU, so that no draw comes
// near the 2 s that GPU watchdogs allow.
const drawBudget = 1 << 28

// passCost is the predicted cost per pixel (iterations x variant weight) above which a tile is
// drawn in passes: single-pass bands would be under drawBudget/passCost = 16384 pixels (one
// row of a 16K tile), down to single pixels that can still run for seconds at 1e8 iterations.
const passCost = 1 << 14

// alwaysPasses, when set, draws every tile in passes of the automatic length, as if above
// passCost: benchmarks use it to measure what compute-then-colour costs Render.
var alwaysPasses = false

// Render draws the pixels rect (in f's global pixel coordinates) of frame f into dst, whose
// top-left pixel receives rect.Min, like cpu.Renderer.Render. Rects larger than MaxTile are
// drawn tile by tile. A Perturbation frame should carry its reference orbit
// (fractal.Frame.WithReference), so that the tiles and strips of one image share it and its
// upload; one without gets it from fractal.DefaultReferences (computed, cancellably, when none
// there is in reach). Perturbation frames the GPU does not draw go to the CPU renderer (Mode
// says which and why).
func (g *GL) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if rect.Empty() {
		return nil
	}
	if err := checkTarget(f, rect, dst); err != nil {
		return err
	}
	stops, err := paletteStops(f.Loc.Color)
	if err != nil {
		return err
	}
	if f.Loc.Color.IsHistogram() || f.Loc.Color.HasShader() {
		// Compute hands an orbit-path frame to the CPU renderer too, and adds the cycles.
		return g.computeAndColour(ctx, f, rect, dst)
	}
	if f.Loc.Color.NeedsInterior() {
		return g.renderViaCompute(ctx, f, rect, dst)
	}
	if f.Rings != nil {
		// The shaders draw grids: a frame laid out as rings (an exponential map) is drawn
		// by the CPU renderer, whose per-pixel functions follow the layout.
		return g.renderOnCPU(ctx, f, rect, dst)
	}
	v := g.variant(f)
	if v == shaders.Perturb {
		var gpu bool
		if f, gpu, err = g.withReference(ctx, f); err != nil {
			return err
		}
		if !gpu {
			return g.renderOnCPU(ctx, f, rect, dst)
		}
	}
	// What the shaders need (the CPU renderer, above, checks its own).
	exp := v == shaders.Perturb && f.Precision() == fractal.PerturbationExp
	if err := checkNumbers(f, exp); err != nil {
		return err
	}
	return g.drawTiles(ctx, v, f, exp, rect, stops, dst)
}

// renderOnCPU has the CPU renderer draw a perturbation frame this GPU cannot (never a
// silently wrong picture), and counts it.
func (g *GL) renderOnCPU(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	g.statsMu.Lock()
	g.stats.CPUFrames++
	g.statsMu.Unlock()
	return g.cpu.Render(ctx, f, rect, dst)
}

// renderViaCompute draws the pixels rect of frame f into dst by Compute and a colour pass
// (colour.Colourer): for a colouring of the inside, whose cycles Compute adds on the CPU and
// the colour shaders do not read.
func (g *GL) renderViaCompute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	k, err := colour.NewColourer(f.Loc.Color)
	if err != nil {
		return err
	}
	data := colour.NewData(image.Rectangle{Max: rect.Size()})
	if err := g.Compute(ctx, f, rect, data); err != nil {
		return err
	}
	k.Paint(dst.SubImage(image.Rectangle{Min: dst.Bounds().Min, Max: dst.Bounds().Min.Add(rect.Size())}).(*image.RGBA), data)
	return nil
}

// drawTiles draws the pixels rect of frame f (variant v, exp for extended exponents) into dst,
// tile by tile on the GL thread, checking ctx before each tile.
func (g *GL) drawTiles(ctx context.Context, v shaders.Variant, f fractal.Frame, exp bool, rect image.Rectangle, stops []float32, dst *image.RGBA) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errors.New("opengl render: renderer is closed")
	}
	p := g.progs[v]
	if p == nil && v != shaders.Perturb {
		return fmt.Errorf("opengl render: %s has no %s shader", g.renderer, v)
	}
	origin := dst.Bounds().Min
	for _, tile := range tilesOf(rect, g.maxTile) {
		if err := ctx.Err(); err != nil {
			return err
		}
		sub := dst.SubImage(tile.Sub(rect.Min).Add(origin)).(*image.RGBA)
		if err := g.th.call(func() error { return g.drawTileOf(ctx, v, p, f, exp, tile, stops, sub) }); err != nil {
			return fmt.Errorf("opengl render: %w", err)
		}
	}
	return nil
}

// checkTarget says what is wrong, if anything, with drawing the pixels rect of frame f into
// dst: a destination smaller than rect, or malformed (GL writes straight into dst.Pix: every
// byte it writes must lie inside it), a frame size out of range, rect outside the frame, or
// fewer than one iteration.
func checkTarget(f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if dst == nil || dst.Bounds().Dx() < rect.Dx() || dst.Bounds().Dy() < rect.Dy() {
		var size image.Point
		if dst != nil {
			size = dst.Bounds().Size()
		}
		return fmt.Errorf("opengl render: destination %v is smaller than tile %v", size, rect.Size())
	}
	if off := dst.PixOffset(dst.Bounds().Min.X, dst.Bounds().Min.Y); dst.Stride%4 != 0 || dst.Stride < rect.Dx()*4 ||
		off < 0 || len(dst.Pix)-off < (rect.Dy()-1)*dst.Stride+rect.Dx()*4 {
		return fmt.Errorf("opengl render: destination image is malformed (stride %d, %d bytes of pixels for %v)", dst.Stride, len(dst.Pix), rect.Size())
	}
	return checkFrame("opengl render", f, rect)
}

// checkFrame says what is wrong, if anything, with frame f and rect (for an error that
// starts with op): a frame size out of range, rect outside the frame, or fewer than one
// iteration.
func checkFrame(op string, f fractal.Frame, rect image.Rectangle) error {
	if f.W <= 0 || f.H <= 0 || f.W > 1<<24 || f.H > 1<<24 {
		return fmt.Errorf("%s: frame size %dx%d out of range", op, f.W, f.H)
	}
	if rect.Min.X < 0 || rect.Min.Y < 0 || rect.Max.X > f.W || rect.Max.Y > f.H {
		return fmt.Errorf("%s: rect %v lies outside the %dx%d frame", op, rect, f.W, f.H)
	}
	if f.Loc.Iterations < 1 {
		return fmt.Errorf("%s: iterations %d must be at least 1", op, f.Loc.Iterations)
	}
	return nil
}

// paletteStops is the colouring's palette as the shaders take it: r, g, b of each stop, at
// most maxStops of them.
func paletteStops(c colour.Coloring) ([]float32, error) {
	pal, err := c.ColorPalette()
	if err != nil {
		return nil, err
	}
	if len(pal.Stops) > maxStops {
		return nil, fmt.Errorf("opengl render: palette %s has %d stops, more than %d", pal.Name, len(pal.Stops), maxStops)
	}
	stops := make([]float32, 0, 3*len(pal.Stops))
	for _, s := range pal.Stops {
		stops = append(stops, float32(s.R), float32(s.G), float32(s.B))
	}
	return stops, nil
}

// withReference returns the perturbation frame f with its reference orbit (an export's frame
// carries it; otherwise the cache has it or computes it) and whether this GPU draws it.
func (g *GL) withReference(ctx context.Context, f fractal.Frame) (fractal.Frame, bool, error) {
	if g.perturbFits(f) == nil && f.Ref == nil {
		var err error
		if f, err = f.WithReference(ctx, nil, nil); err != nil {
			return f, false, err
		}
	}
	return f, g.perturbFits(f) == nil, nil
}

// checkNumbers says whether the frame's centre, spacing and offset from its reference are
// finite numbers the shaders can take. Past float64's exponent range (exp: extended
// exponents) the float64 spacing is 0 and the extended one is used.
func checkNumbers(f fractal.Frame, exp bool) error {
	if exp {
		if s := f.PixelSpacing(); math.IsNaN(f.Re) || math.IsNaN(f.Im) || !s.Finite() || s.Sign() <= 0 ||
			!f.DReX.Finite() || !f.DImX.Finite() {
			return errors.New("opengl render: the frame's centre, spacing or offset from its reference is not a finite number")
		}
	} else if math.IsNaN(f.Re) || math.IsNaN(f.Im) || !(f.Spacing > 0) || math.IsInf(f.Spacing, 0) {
		return errors.New("opengl render: the frame's centre or spacing is not a finite number")
	}
	if f.Ref != nil && (math.IsNaN(f.DRe) || math.IsInf(f.DRe, 0) || math.IsNaN(f.DIm) || math.IsInf(f.DIm, 0) || len(f.Ref.Z) < 2) {
		return errors.New("opengl render: the frame's offset from its reference point is not a finite number, or the reference orbit is empty")
	}
	return nil
}

// tilesOf cuts rect into tiles of at most side x side pixels, row by row.
func tilesOf(rect image.Rectangle, side int) []image.Rectangle {
	var tiles []image.Rectangle
	for y := rect.Min.Y; y < rect.Max.Y; y += side {
		for x := rect.Min.X; x < rect.Max.X; x += side {
			tiles = append(tiles, image.Rect(x, y, min(x+side, rect.Max.X), min(y+side, rect.Max.Y)))
		}
	}
	return tiles
}

// drawTileOf runs on the GL thread: draws tile of frame f (variant v, exp for extended
// exponents) into dst with tileProgram's program.
func (g *GL) drawTileOf(ctx context.Context, v shaders.Variant, p *program, f fractal.Frame, exp bool, tile image.Rectangle, stops []float32, dst *image.RGBA) error {
	p, err := g.tileProgram(v, p, f, exp)
	if err != nil {
		return err
	}
	return g.drawTile(ctx, p, f, tile, stops, dst)
}

// frameTables runs on the GL thread: the texture tables of perturbation frame f (its orbit,
// and its BLA table, with extended exponents for exp: frameBLA), uploaded unless they are
// already.
func (g *GL) frameTables(f fractal.Frame, exp bool) (*deepTables, error) {
	return g.ensureTables(f.Ref, frameBLA(f, exp))
}

// tileProgram runs on the GL thread: the program that draws frame f, whose variant's plain
// program is p: for perturbation, the one for its tables (uploaded now unless they are
// already), else the one with the colouring's shading when it has shading, for a Julia set,
// for a formula other than the Mandelbrot set's or for the orbit path (orbit.go), else p.
func (g *GL) tileProgram(v shaders.Variant, p *program, f fractal.Frame, exp bool) (*program, error) {
	shade, deriv := shadingOf(f.Loc.Color)
	julia := f.Loc.IsJulia()
	fm := f.Loc.Formula
	switch {
	case v != shaders.Perturb && f.OrbitPath():
		return g.lazyProgram(progKey{v: v, stage: stageSingle, shade: shade, deriv: deriv, julia: julia, orbit: true})
	case v == shaders.Perturb:
		tables, err := g.frameTables(f, exp)
		if err != nil {
			return nil, err
		}
		return g.lazyProgram(progKey{v: v, pages: tables.pages, stage: stageSingle, shade: shade, deriv: deriv, exp: exp,
			julia: julia, formula: fm, orbit: f.OrbitPath()})
	case shade || julia || !fm.IsMandelbrot():
		return g.lazyProgram(progKey{v: v, stage: stageSingle, shade: shade, deriv: deriv, julia: julia, formula: fm})
	}
	return p, nil
}

// ensureFramebuffer makes the FBO at least w x h (it only grows).
func (g *GL) ensureFramebuffer(w, h int) error {
	if w <= g.fbW && h <= g.fbH {
		gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
		return nil
	}
	nw, nh := max(w, g.fbW), max(h, g.fbH)
	gl.BindRenderbuffer(gl.RENDERBUFFER, g.rbo)
	gl.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA8, int32(nw), int32(nh))
	gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, g.rbo)
	if e := gl.GetError(); e != gl.NO_ERROR {
		g.fbW, g.fbH = 0, 0
		return fmt.Errorf("framebuffer %dx%d: GL error 0x%x (out of memory?)", nw, nh, e)
	}
	if s := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); s != gl.FRAMEBUFFER_COMPLETE {
		g.fbW, g.fbH = 0, 0
		return fmt.Errorf("framebuffer %dx%d incomplete: status 0x%x", nw, nh, s)
	}
	g.fbW, g.fbH = nw, nh
	return nil
}

// variantWeight is the relative cost of one iteration in a variant, for sizing draws.
func variantWeight(v shaders.Variant) int64 {
	switch v {
	case shaders.F64:
		return 4
	case shaders.Emulated:
		return 16
	case shaders.Perturb:
		// A step, plain or a BLA block, on llvmpipe: 11 CPU-ns plain (BenchmarkPerturbIteration,
		// fp64's iteration 2.5 to 4), about 30 with BLA lookups (longest draws at 1e50).
		return 32
	}
	return 1
}

// programWeight is variantWeight for a program: the extended-exponent perturbation's steps
// cost more: on llvmpipe 84 CPU-ns per iteration against perturb.frag's 14, without BLA, on
// views where the delta is extended for 40-50% of the iterations (BenchmarkPerturbExpIteration:
// a step in cx about 160-200 CPU-ns, a double step about what perturb.frag's costs).
// A formula's step weighs formulaWeight times the Mandelbrot set's.
func programWeight(p *program) int64 {
	if p.exp {
		return 6 * variantWeight(p.variant) * formulaWeight(p.formula)
	}
	return variantWeight(p.variant) * formulaWeight(p.formula)
}

// formulaWeight is the cost of a step of formula fm relative to the Mandelbrot set's square:
// D - 1 complex multiplications for the power D (formulaStep in common.glsl), so 1 for the
// power 2 of any kind (a fold costs next to nothing).
func formulaWeight(fm fractal.Formula) int64 {
	return int64(fm.Power() - 1)
}

// bands splits a w x h tile into draw rectangles (in tile pixels) of predicted cost
// (pixels x iterations x weight) at most drawBudget: whole-width bands of rows, in multiples
// of 64 rows where they are that tall (llvmpipe bins by 64 px), or pieces of one row when a
// single row is already too costly. drawTile draws in bands only up to passCost per pixel
// (bands of at least 16384 pixels); above that it draws in passes (drawPasses).
func bands(w, h, iter int, weight int64) []image.Rectangle {
	perPx := int64(iter) * weight
	px := max(drawBudget/perPx, 1)
	var out []image.Rectangle
	if px >= int64(w) {
		rows := int(min(px/int64(w), int64(h)))
		if rows >= 64 && rows < h {
			rows -= rows % 64
		}
		for y := 0; y < h; y += rows {
			out = append(out, image.Rect(0, y, w, min(y+rows, h)))
		}
		return out
	}
	cols := int(px)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x += cols {
			out = append(out, image.Rect(x, y, min(x+cols, w), y+1))
		}
	}
	return out
}

// drawTile runs on the GL thread: draws one tile, in bands or in passes, and reads it into
// dst. Between draws it checks ctx, returning its error (dst then holds no complete tile).
func (g *GL) drawTile(ctx context.Context, p *program, f fractal.Frame, tile image.Rectangle, stops []float32, dst *image.RGBA) error {
	w, h := tile.Dx(), tile.Dy()
	if err := g.ensureFramebuffer(w, h); err != nil {
		return err
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.BindVertexArray(g.vao)
	weight := programWeight(p)
	if alwaysPasses || g.opts.PassIterations > 0 || int64(f.Loc.Iterations)*weight > passCost {
		if err := g.drawPasses(ctx, p, f, tile, stops); err != nil {
			return err
		}
	} else {
		gl.Viewport(0, 0, int32(w), int32(h))
		gl.Enable(gl.SCISSOR_TEST)
		gl.UseProgram(p.id)
		p.setView(viewOf(f, tile.Min))
		if g.tables != nil && p.variant == shaders.Perturb {
			p.setTables(g.tables)
		}
		off := f.Loc.Color.Offset
		p.setColoring(f.Loc.Iterations, stops, f.Loc.Color.Density, off-math.Floor(off))
		p.setShading(f.Loc.Color)
		if p.orbit {
			p.setOrbit(f.Loc)
		}
		for _, b := range bands(w, h, f.Loc.Iterations, weight) {
			if err := ctx.Err(); err != nil {
				gl.Disable(gl.SCISSOR_TEST)
				return err
			}
			gl.Scissor(int32(b.Min.X), int32(b.Min.Y), int32(b.Dx()), int32(b.Dy()))
			g.timedDraw(false)
		}
		gl.Disable(gl.SCISSOR_TEST)
	}

	start := time.Now()
	gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
	gl.PixelStorei(gl.PACK_ALIGNMENT, 4)
	gl.PixelStorei(gl.PACK_ROW_LENGTH, int32(dst.Stride/4))
	gl.ReadBuffer(gl.COLOR_ATTACHMENT0)
	gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(&dst.Pix[0]))
	gl.PixelStorei(gl.PACK_ROW_LENGTH, 0)
	g.statsMu.Lock()
	g.stats.ReadBack += time.Since(start)
	g.stats.Tiles++
	g.stats.Pixels += int64(w) * int64(h)
	g.statsMu.Unlock()
	if e := gl.GetError(); e != gl.NO_ERROR {
		return fmt.Errorf("drawing tile %v: GL error 0x%x", tile, e)
	}
	return nil
}

// timedDraw draws the full-viewport triangle, waits for it (glFinish) and counts it. For an
// iterating pass it reports whether any fragment got through (some pixel was not yet
// finished); otherwise it returns true.
func (g *GL) timedDraw(pass bool) bool {
	start := time.Now()
	if pass {
		gl.BeginQuery(gl.ANY_SAMPLES_PASSED, g.query)
	}
	gl.DrawArrays(gl.TRIANGLES, 0, 3)
	if pass {
		gl.EndQuery(gl.ANY_SAMPLES_PASSED)
	}
	gl.Finish()
	d := time.Since(start)
	passed := uint32(1)
	if pass {
		gl.GetQueryObjectuiv(g.query, gl.QUERY_RESULT, &passed)
	}
	g.statsMu.Lock()
	g.stats.Draws++
	if pass {
		g.stats.Passes++
	}
	g.stats.DrawTime += d
	g.stats.LongestDraw = max(g.stats.LongestDraw, d)
	g.statsMu.Unlock()
	return passed != 0
}

// computeAndColour draws the pixels rect of frame f into dst by computing their samples
// (Compute) and colouring them with the CPU's colourer (colour.Colourer): the histogram
// colouring's path, whose palette position reads the whole picture's counts (the colouring's
// equalisation), which no shader holds; the samples are the GPU's, the colours the CPU
// renderer's arithmetic, so both renderers give the same picture from the same samples.
//
// A colouring shader (colour.Coloring.Shader) is drawn the same way, the shader run over the
// tile's samples and colour.ShaderMargin of its neighbours' on every side (computed too), so
// that tiles join as the whole picture would be coloured.
func (g *GL) computeAndColour(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	c := f.Loc.Color
	out := dst.SubImage(image.Rectangle{Min: dst.Rect.Min, Max: dst.Rect.Min.Add(rect.Size())}).(*image.RGBA)
	if c.HasShader() {
		m := colour.ShaderMargin
		wide := rect.Inset(-m).Intersect(image.Rect(0, 0, f.W, f.H)).Union(rect)
		d := colour.NewData(wide)
		if err := g.Compute(ctx, f, wide, d); err != nil {
			return err
		}
		pic := colour.ShaderPicture{Width: f.W, Height: f.H, Iterations: f.Loc.Iterations, ZoomLog2: f.Loc.Zoom.Log2(), Coloring: c}
		img := image.NewRGBA(wide)
		if err := g.PaintColourShader(ctx, pic, c.ShaderName(), c.Shader, d, wide.Min, img); err != nil {
			return err
		}
		for y := range rect.Dy() {
			o := img.PixOffset(rect.Min.X, rect.Min.Y+y)
			copy(out.Pix[out.PixOffset(out.Rect.Min.X, out.Rect.Min.Y+y):], img.Pix[o:o+4*rect.Dx()])
		}
		return nil
	}
	d := colour.NewData(image.Rect(0, 0, rect.Dx(), rect.Dy()))
	if err := g.Compute(ctx, f, rect, d); err != nil {
		return err
	}
	k, err := colour.NewColourer(c)
	if err != nil {
		return err
	}
	k.Paint(out, d)
	return nil
}
