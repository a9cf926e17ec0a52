// Package render is Mandelscope's OpenGL renderer and the only package that imports OpenGL
// (go-gl's gl and glfw). A GL renders frames (fractal.Frame) into *image.RGBA tiles on an
// offscreen context: a hidden GLFW window (GL 4.1 core, or 3.3 core) whose context is current on one dedicated, locked
// goroutine that runs every GL call as a submitted closure; drawing goes to a framebuffer
// object, never the window's own framebuffer, and rows are read back top-first straight into
// the destination image.
//
// It keeps the rendering contract of package fractal (see render/cpu, the pure-Go
// reference): every pixel is computed from its global index, so tiles join without seams,
// and GPU and CPU pictures agree. Three fragment shader variants (package shaders) cover the
// precisions: float32, native fp64, and double emulated with float-float pairs for drivers
// without fp64. It calls only the GL 3.3 core functions (go-gl's v3.3-core binding; doubles
// reach the fp64 shader as bit patterns), so the same code runs on 4.x and 3.3 contexts. Long
// renders are split into tiles of at most MaxTile pixels a side and each tile into short draw
// calls, so that no single draw runs long enough to trip a GPU watchdog (Windows resets the
// driver after about 2 s): at ordinary iteration counts each draw colours a band of rows in one
// pass; above passCost iterations (times the variant's weight) a band is drawn in several
// passes of at most P iterations each, the orbits' state carried between them in integer
// textures (ping-pong framebuffers, three colour attachments), then coloured by a final pass,
// with the same arithmetic and so the same pixels as one pass.
package render

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"

	"mandelscope/fractal"
	"mandelscope/shaders"
)

// Options configure NewGL.
type Options struct {
	// MainThread runs f on the process's main thread and waits for it. nil means: use the
	// queue served by Main. The window passes fyne.DoAndWait (Fyne owns the main thread there).
	MainThread func(f func())
	// Precision forces a shader variant: "" (automatic), "f32", "f64", "emulated".
	Precision string
	// MaxTile caps the tile edge in pixels (0: from GL_MAX_RENDERBUFFER_SIZE and
	// GL_MAX_VIEWPORT_DIMS).
	MaxTile int
	// PassIterations, when above 0, draws every tile in passes of this many iterations (the
	// multi-pass path, which is otherwise taken only at high iteration counts); for tests and
	// tuning. 0 sizes passes automatically.
	PassIterations int
}

// Stats are counters of the work a GL has done since it was made.
type Stats struct {
	Tiles       int           // Render calls' tiles drawn
	Draws       int           // draw calls issued (each band of a tile, each pass of a band, is one)
	Passes      int           // of which iterating passes of multi-pass tiles
	Pixels      int64         // pixels rendered
	DrawTime    time.Duration // time spent drawing, to each draw's completion
	LongestDraw time.Duration // the longest single draw call, measured with glFinish
	ReadBack    time.Duration // time spent in glReadPixels
}

// contextVersions are the GL core versions tried, best first; glslOverride, when not 0,
// replaces the GLSL version chosen from the context's (tests use both to exercise the GL 3.3
// path on a 4.x driver).
var (
	contextVersions = [][2]int{{4, 1}, {3, 3}}
	glslOverride    = 0
)

// drawBudget is the predicted cost (pixels x iterations x variant weight) of one draw call:
// about 0.1 to 0.3 s on llvmpipe with two cores, far less on a real GPU, so that no draw comes
// near the 2 s that GPU watchdogs allow.
const drawBudget = 1 << 28

// passCost is the predicted cost per pixel (iterations x variant weight) above which a tile is
// drawn in passes: single-pass bands would be under drawBudget/passCost = 16384 pixels (one
// row of a 16K tile), down to single pixels that can still run for seconds at 1e8 iterations.
const passCost = 1 << 14

// stateW and stateH are the size of the multi-pass state textures, the largest band of a tile
// that is drawn in passes: 2^18 pixels, 24 MB of state in both sets together.
const (
	stateW = 1024
	stateH = 256
)

// GL renders frames with OpenGL on an offscreen context. Its methods may be called from any
// goroutine; Render calls are serialised (one draws while the others wait). Close must not be
// called on the thread that Options.MainThread (or Main) runs work on, as it waits for it.
type GL struct {
	opts       Options
	mainThread func(f func())
	win        *glfw.Window
	th         *glThread

	mu       sync.Mutex // serialises Render and guards the fields below
	closed   bool
	renderer string
	version  string
	glsl     int
	fp64     bool
	maxTile  int
	progs    map[shaders.Variant]*program
	vao      uint32
	fbo, rbo uint32
	fbW, fbH int

	// Multi-pass resources, made on first use: the iterate stage per variant, the colour
	// stage, and two sets of state textures with a framebuffer each.
	iterProgs  map[shaders.Variant]*program
	colourProg *program
	stateTex   [2][3]uint32
	stateFBO   [2]uint32
	query      uint32 // ANY_SAMPLES_PASSED: did a pass leave any pixel running?

	statsMu sync.Mutex // guards stats, so Stats does not wait for a Render in progress
	stats   Stats
}

// NewGL makes an offscreen GL context: a hidden GLFW window (GL 4.1 core, forward
// compatible; 3.3 core as a fallback), made on the main thread, whose context is current on a
// dedicated locked goroutine. It compiles the shader variants the context supports. When no
// context can be had it returns an error saying why; callers then use render/cpu.
func NewGL(opts Options) (g *GL, err error) {
	switch opts.Precision {
	case "", "f32", "f64", "emulated":
	default:
		return nil, fmt.Errorf("opengl: unknown precision %q (want f32, f64, emulated or empty)", opts.Precision)
	}
	if opts.MaxTile < 0 {
		return nil, fmt.Errorf("opengl: max tile %d must not be negative", opts.MaxTile)
	}
	if opts.PassIterations < 0 {
		return nil, fmt.Errorf("opengl: pass iterations %d must not be negative", opts.PassIterations)
	}
	g = &GL{opts: opts, mainThread: opts.MainThread, progs: map[shaders.Variant]*program{},
		iterProgs: map[shaders.Variant]*program{}}
	if g.mainThread == nil {
		if !mainRunning() {
			return nil, fmt.Errorf("opengl: %w", errNoMain)
		}
		g.mainThread = func(f func()) { _ = onMainQueue(f) } // onMain notices if f never ran
	}
	if err := g.onMain(g.createWindow); err != nil {
		return nil, fmt.Errorf("opengl: %w", err)
	}
	g.th = newGLThread()
	if err := g.th.call(g.initGL); err != nil {
		g.release()
		return nil, fmt.Errorf("opengl: %w", err)
	}
	return g, nil
}

// onMain runs f on the main thread, turning a panic (go-gl/glfw panics on some errors) into
// an error.
func (g *GL) onMain(f func() error) error {
	var err error
	ran := false
	g.mainThread(func() {
		ran = true
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("glfw: %v", r)
				if strings.Contains(err.Error(), "NotInitialized") {
					err = fmt.Errorf("GLFW could not be initialised (no display or no GL driver?): %v", r)
				}
			}
		}()
		err = f()
	})
	if !ran {
		return errNoMain
	}
	return err
}

// createWindow runs on the main thread.
func (g *GL) createWindow() error {
	if runtime.GOOS != "windows" && runtime.GOOS != "darwin" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display: neither DISPLAY nor WAYLAND_DISPLAY is set")
	}
	if err := glfw.Init(); err != nil {
		return fmt.Errorf("glfw init: %w", err)
	}
	defer glfw.DefaultWindowHints() // leave no hints behind for Fyne's windows
	var errs []string
	for _, v := range contextVersions {
		glfw.DefaultWindowHints()
		glfw.WindowHint(glfw.Visible, glfw.False)
		glfw.WindowHint(glfw.Focused, glfw.False)
		glfw.WindowHint(glfw.ContextVersionMajor, v[0])
		glfw.WindowHint(glfw.ContextVersionMinor, v[1])
		glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
		glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
		w, err := glfw.CreateWindow(16, 16, "mandelscope offscreen", nil, nil)
		if err == nil {
			g.win = w
			return nil
		}
		errs = append(errs, fmt.Sprintf("GL %d.%d core: %v", v[0], v[1], err))
	}
	return fmt.Errorf("no OpenGL context: %s", strings.Join(errs, "; "))
}

// initGL runs on the GL thread: makes the context current, loads GL, queries the limits and
// compiles the shader variants.
func (g *GL) initGL() error {
	g.win.MakeContextCurrent()
	if err := gl.Init(); err != nil {
		return fmt.Errorf("loading GL functions: %w", err)
	}
	g.renderer = gl.GoStr(gl.GetString(gl.RENDERER))
	g.version = gl.GoStr(gl.GetString(gl.VERSION))
	var major, minor int32
	gl.GetIntegerv(gl.MAJOR_VERSION, &major)
	gl.GetIntegerv(gl.MINOR_VERSION, &minor)
	g.glsl = 330
	if major >= 4 {
		g.glsl = 400 + 10*int(minor)
		if g.glsl > 410 {
			g.glsl = 410
		}
	}
	if glslOverride != 0 {
		g.glsl = glslOverride
	}
	g.fp64 = (major >= 4 && g.glsl >= 400) || hasExtension("GL_ARB_gpu_shader_fp64")

	var rbSize int32
	var vp [2]int32
	gl.GetIntegerv(gl.MAX_RENDERBUFFER_SIZE, &rbSize)
	gl.GetIntegerv(gl.MAX_VIEWPORT_DIMS, &vp[0])
	g.maxTile = int(min(rbSize, vp[0], vp[1]))
	if g.maxTile <= 0 {
		return fmt.Errorf("driver reports no usable framebuffer size (renderbuffer %d, viewport %v)", rbSize, vp)
	}
	if g.opts.MaxTile > 0 && g.opts.MaxTile < g.maxTile {
		g.maxTile = g.opts.MaxTile
	}

	if !g.fp64 && g.opts.Precision == "f64" {
		return fmt.Errorf("precision f64 forced, but %s has no native fp64", g.renderer)
	}
	for _, v := range []shaders.Variant{shaders.F32, shaders.Emulated, shaders.F64} {
		if v == shaders.F64 && !g.fp64 {
			continue
		}
		p, err := newProgram(g.glsl, v, shaders.FullscreenVert, shaders.MandelFrag)
		if err != nil {
			if v == shaders.F64 && g.opts.Precision != "f64" {
				// A driver that claims fp64 but cannot compile it: emulate double instead.
				g.fp64 = false
				continue
			}
			return err
		}
		g.progs[v] = p
	}
	gl.GenVertexArrays(1, &g.vao)
	gl.GenFramebuffers(1, &g.fbo)
	gl.GenRenderbuffers(1, &g.rbo)
	if e := gl.GetError(); e != gl.NO_ERROR {
		return fmt.Errorf("setting up: GL error 0x%x", e)
	}
	return nil
}

func hasExtension(name string) bool {
	var n int32
	gl.GetIntegerv(gl.NUM_EXTENSIONS, &n)
	for i := range uint32(n) {
		if gl.GoStr(gl.GetStringi(gl.EXTENSIONS, i)) == name {
			return true
		}
	}
	return false
}

// release frees whatever was created, in reverse order; safe on a half-made GL.
func (g *GL) release() {
	if g.th != nil {
		_ = g.th.call(func() error {
			if g.win == nil || glfw.GetCurrentContext() == nil {
				return nil
			}
			for _, p := range g.progs {
				gl.DeleteProgram(p.id)
			}
			g.progs = nil
			for _, p := range g.iterProgs {
				gl.DeleteProgram(p.id)
			}
			g.iterProgs = nil
			deleteProgram(g.colourProg)
			g.colourProg = nil
			g.deleteState()
			if g.vao != 0 {
				gl.DeleteVertexArrays(1, &g.vao)
			}
			if g.fbo != 0 {
				gl.DeleteFramebuffers(1, &g.fbo)
			}
			if g.rbo != 0 {
				gl.DeleteRenderbuffers(1, &g.rbo)
			}
			gl.Finish()
			glfw.DetachCurrentContext()
			return nil
		})
		g.th.stop()
		g.th = nil
	}
	if g.win != nil {
		w := g.win
		_ = g.onMain(func() error { w.Destroy(); return nil })
		g.win = nil
	}
}

// Close releases the context and everything on it. Render fails after Close.
func (g *GL) Close() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return nil
	}
	g.closed = true
	g.release()
	return nil
}

// MaxTile is the largest tile edge the GL draws in one piece; Render splits bigger rects.
func (g *GL) MaxTile() int { return g.maxTile }

// Name describes the renderer for status lines: "OpenGL: " and the GL_RENDERER string.
func (g *GL) Name() string { return "OpenGL: " + g.renderer }

// Renderer is the bare GL_RENDERER string (for benchmark records).
func (g *GL) Renderer() string { return g.renderer }

// Version is the GL_VERSION string.
func (g *GL) Version() string { return g.version }

// Stats returns the counters so far.
func (g *GL) Stats() Stats {
	g.statsMu.Lock()
	defer g.statsMu.Unlock()
	return g.stats
}

// DrawTimes returns the time spent drawing and reading pixels back since the GL was made
// (export.DrawTimer).
func (g *GL) DrawTimes() (draw, readBack time.Duration) {
	s := g.Stats()
	return s.DrawTime, s.ReadBack
}

// variant is the shader variant frame f is drawn with: the forced one, else float32 while
// the frame allows it, else native fp64 where the driver has it, else emulated double.
func (g *GL) variant(f fractal.Frame) shaders.Variant {
	switch g.opts.Precision {
	case "f32":
		return shaders.F32
	case "f64":
		return shaders.F64
	case "emulated":
		return shaders.Emulated
	}
	if f.Precision() == fractal.Float32 {
		return shaders.F32
	}
	if g.fp64 {
		return shaders.F64
	}
	return shaders.Emulated
}

// Mode says in words which arithmetic frame f is drawn with: "float32", "float64 (native
// fp64)", "double (emulated float-float)", or "double (limit reached)" past float64's reach.
func (g *GL) Mode(f fractal.Frame) string {
	v := g.variant(f)
	if v != shaders.F32 && f.Precision() == fractal.Perturbation {
		return "double (limit reached)"
	}
	switch v {
	case shaders.F32:
		return "float32"
	case shaders.F64:
		return "float64 (native fp64)"
	default:
		return "double (emulated float-float)"
	}
}

// Render draws the pixels rect (in f's global pixel coordinates) of frame f into dst, whose
// top-left pixel receives rect.Min, like cpu.Renderer.Render. Rects larger than MaxTile are
// drawn tile by tile.
func (g *GL) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if rect.Empty() {
		return nil
	}
	if dst == nil || dst.Bounds().Dx() < rect.Dx() || dst.Bounds().Dy() < rect.Dy() {
		var size image.Point
		if dst != nil {
			size = dst.Bounds().Size()
		}
		return fmt.Errorf("opengl render: destination %v is smaller than tile %v", size, rect.Size())
	}
	// GL writes straight into dst.Pix: make sure every byte it writes lies inside it.
	if off := dst.PixOffset(dst.Bounds().Min.X, dst.Bounds().Min.Y); dst.Stride%4 != 0 || dst.Stride < rect.Dx()*4 ||
		off < 0 || len(dst.Pix)-off < (rect.Dy()-1)*dst.Stride+rect.Dx()*4 {
		return fmt.Errorf("opengl render: destination image is malformed (stride %d, %d bytes of pixels for %v)", dst.Stride, len(dst.Pix), rect.Size())
	}
	if f.W <= 0 || f.H <= 0 || f.W > 1<<24 || f.H > 1<<24 {
		return fmt.Errorf("opengl render: frame size %dx%d out of range", f.W, f.H)
	}
	if rect.Min.X < 0 || rect.Min.Y < 0 || rect.Max.X > f.W || rect.Max.Y > f.H {
		return fmt.Errorf("opengl render: rect %v lies outside the %dx%d frame", rect, f.W, f.H)
	}
	if f.Loc.Iterations < 1 {
		return fmt.Errorf("opengl render: iterations %d must be at least 1", f.Loc.Iterations)
	}
	if math.IsNaN(f.Re) || math.IsNaN(f.Im) || !(f.Spacing > 0) || math.IsInf(f.Spacing, 0) {
		return errors.New("opengl render: the frame's centre or spacing is not a finite number")
	}
	pal, err := fractal.PaletteByName(f.Loc.Color.Palette)
	if err != nil {
		return err
	}
	if len(pal.Stops) > maxStops {
		return fmt.Errorf("opengl render: palette %s has %d stops, more than %d", pal.Name, len(pal.Stops), maxStops)
	}
	stops := make([]float32, 0, 3*len(pal.Stops))
	for _, s := range pal.Stops {
		stops = append(stops, float32(s.R), float32(s.G), float32(s.B))
	}

	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errors.New("opengl render: renderer is closed")
	}
	v := g.variant(f)
	p := g.progs[v]
	if p == nil {
		return fmt.Errorf("opengl render: %s has no %s shader", g.renderer, v)
	}
	t := g.maxTile
	origin := dst.Bounds().Min
	for y := rect.Min.Y; y < rect.Max.Y; y += t {
		for x := rect.Min.X; x < rect.Max.X; x += t {
			if err := ctx.Err(); err != nil {
				return err
			}
			tile := image.Rect(x, y, min(x+t, rect.Max.X), min(y+t, rect.Max.Y))
			sub := dst.SubImage(tile.Sub(rect.Min).Add(origin)).(*image.RGBA)
			err := g.th.call(func() error { return g.drawTile(ctx, p, f, tile, stops, sub) })
			if err != nil {
				return fmt.Errorf("opengl render: %w", err)
			}
		}
	}
	return nil
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
	}
	return 1
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
	weight := variantWeight(p.variant)
	if g.opts.PassIterations > 0 || int64(f.Loc.Iterations)*weight > passCost {
		if err := g.drawPasses(ctx, p.variant, f, tile, stops); err != nil {
			return err
		}
	} else {
		gl.Viewport(0, 0, int32(w), int32(h))
		gl.Enable(gl.SCISSOR_TEST)
		gl.UseProgram(p.id)
		p.setView(viewOf(f, tile.Min))
		off := f.Loc.Color.Offset
		p.setColoring(f.Loc.Iterations, stops, f.Loc.Color.Density, off-math.Floor(off))
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
// band, each band in passes of at most passIterations iterations that carry the orbits in the
// state textures, then a colour pass from the final state into the tile's framebuffer. A
// band's passes end early when one lets no fragment through: every pixel had finished, and
// both state sets hold that. It leaves the tile's framebuffer bound.
func (g *GL) drawPasses(ctx context.Context, v shaders.Variant, f fractal.Frame, tile image.Rectangle, stops []float32) error {
	it, col, err := g.passPrograms(v)
	if err != nil {
		return err
	}
	if err := g.ensureState(); err != nil {
		return err
	}
	iter := f.Loc.Iterations
	off := f.Loc.Color.Offset
	density, offset := f.Loc.Color.Density, off-math.Floor(off)
	weight := variantWeight(v)
	for _, b := range stateBands(tile.Dx(), tile.Dy()) {
		p := passIterations(b.Dx()*b.Dy(), iter, weight, g.opts.PassIterations)
		gl.Disable(gl.SCISSOR_TEST)
		gl.Viewport(0, 0, int32(b.Dx()), int32(b.Dy()))
		gl.UseProgram(it.id)
		it.setView(viewOf(f, tile.Min.Add(b.Min)))
		it.setColoring(iter, stops, density, offset)
		src := 0
		for k0 := 1; k0 <= iter; k0 += p {
			if err := ctx.Err(); err != nil {
				gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
				gl.ActiveTexture(gl.TEXTURE0)
				return err
			}
			gl.BindFramebuffer(gl.FRAMEBUFFER, g.stateFBO[1-src])
			for i, t := range g.stateTex[src] {
				gl.ActiveTexture(gl.TEXTURE0 + uint32(i))
				gl.BindTexture(gl.TEXTURE_2D, t)
			}
			gl.Uniform1i(it.loc["uK0"], int32(k0))
			gl.Uniform1i(it.loc["uK1"], int32(min(k0+p-1, iter)))
			if !g.timedDraw(true) {
				break // no pixel left running: src holds every pixel's final state
			}
			src = 1 - src
		}

		gl.BindFramebuffer(gl.FRAMEBUFFER, g.fbo)
		gl.Viewport(0, 0, int32(tile.Dx()), int32(tile.Dy()))
		gl.Enable(gl.SCISSOR_TEST)
		gl.Scissor(int32(b.Min.X), int32(b.Min.Y), int32(b.Dx()), int32(b.Dy()))
		gl.UseProgram(col.id)
		col.setColoring(iter, stops, density, offset)
		gl.Uniform2i(col.loc["uBand"], int32(b.Min.X), int32(b.Min.Y))
		gl.ActiveTexture(gl.TEXTURE2)
		gl.BindTexture(gl.TEXTURE_2D, g.stateTex[src][2])
		g.timedDraw(false)
		gl.Disable(gl.SCISSOR_TEST)
	}
	gl.ActiveTexture(gl.TEXTURE0)
	if e := gl.GetError(); e != gl.NO_ERROR {
		return fmt.Errorf("drawing tile %v in passes: GL error 0x%x", tile, e)
	}
	return nil
}

// passPrograms returns variant v's iterate stage and the colour stage, compiling them on
// first use.
func (g *GL) passPrograms(v shaders.Variant) (it, col *program, err error) {
	if g.iterProgs[v] == nil {
		p, err := newStageProgram(g.glsl, v, stageIterate, shaders.FullscreenVert, shaders.MandelFrag)
		if err != nil {
			return nil, nil, err
		}
		g.iterProgs[v] = p
	}
	if g.colourProg == nil {
		p, err := newStageProgram(g.glsl, shaders.F32, stageColour, shaders.FullscreenVert, shaders.MandelFrag)
		if err != nil {
			return nil, nil, err
		}
		g.colourProg = p
	}
	return g.iterProgs[v], g.colourProg, nil
}

// ensureState makes the two sets of multi-pass state textures (RGBA32UI, stateW x stateH)
// and a framebuffer for each set with the three as its colour attachments.
func (g *GL) ensureState() error {
	if g.stateFBO[0] != 0 {
		return nil
	}
	gl.GenQueries(1, &g.query)
	gl.GenFramebuffers(2, &g.stateFBO[0])
	bufs := []uint32{gl.COLOR_ATTACHMENT0, gl.COLOR_ATTACHMENT1, gl.COLOR_ATTACHMENT2}
	for s := range g.stateTex {
		gl.GenTextures(3, &g.stateTex[s][0])
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

// deleteState frees the multi-pass state textures and framebuffers (none made is fine).
func (g *GL) deleteState() {
	for s := range g.stateTex {
		if g.stateTex[s][0] != 0 {
			gl.DeleteTextures(3, &g.stateTex[s][0])
		}
		g.stateTex[s] = [3]uint32{}
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
