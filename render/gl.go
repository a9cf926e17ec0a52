// Package render is Mandelscope's OpenGL renderer and the only package that imports OpenGL
// (go-gl's gl and glfw). A GL renders frames (fractal.Frame) into *image.RGBA tiles on an
// offscreen context: a hidden GLFW window (GL 4.1 core, or 3.3 core) whose context is current on one dedicated, locked
// goroutine that runs every GL call as a submitted closure; drawing goes to a framebuffer
// object, never the window's own framebuffer, and rows are read back top-first straight into
// the destination image.
//
// It keeps the rendering contract of package fractal (see render/cpu, the pure-Go
// reference): every pixel is computed from its global index, so tiles join without seams,
// and GPU and CPU pictures agree, in every colouring (colour.Coloring: the shaders carry the
// derivative dz/dc only for the colourings that read it), for the Mandelbrot set and for Julia
// sets (fractal.Location.Julia: programs compiled with JULIA, every precision and the
// perturbation shaders, the Mandelbrot programs unchanged). Three fragment shader variants (package shaders) cover the
// precisions: float32, native fp64, and double emulated with float-float pairs for drivers
// without fp64. Deeper, Perturbation frames are drawn by the perturbation shader: each pixel
// iterates its difference from the frame's reference orbit with rebasing and the BLA table,
// both uploaded once per reference into texture buffers, with the CPU's arithmetic (past
// float64's exponent range, PerturbationExp frames, with extended exponents: a double
// mantissa and an integer exponent, perturbexp.frag, as fractal.PerturbEscapeExp); where
// the GPU cannot (no fp64, tables beyond its limits, an extended-exponent frame in a colouring
// that reads the derivative) or should not (a software rasteriser,
// where the CPU is faster) draw them, they go to the CPU renderer (render/cpu), never to a
// variant that would draw them wrong. It calls only the GL 3.3 core functions (go-gl's v3.3-core binding; doubles
// reach the fp64 shader as bit patterns), so the same code runs on 4.x and 3.3 contexts. Long
// renders are split into tiles of at most MaxTile pixels a side and each tile into short draw
// calls, so that no single draw runs long enough to trip a GPU watchdog (Windows resets the
// driver after about 2 s): at ordinary iteration counts each draw colours a band of rows in one
// pass; above passCost iterations (times the variant's weight) a band is drawn in several
// passes of at most P iterations each, the orbits' state carried between them in integer
// textures (ping-pong framebuffers, four colour attachments), then coloured by a final pass,
// with the same arithmetic and so the same pixels as one pass. Compute (compute.go) is the
// compute stage alone: the same orbits, written as samples (colour.Sample) into integer
// targets and read back, for a colour pass elsewhere.
package render

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"

	"mandelscope/fractal"
	"mandelscope/render/cpu"
	"mandelscope/shaders"
)

// Options configure NewGL.
type Options struct {
	// MainThread runs f on the process's main thread and waits for it. nil means: use the
	// queue served by Main. The window passes fyne.DoAndWait (Fyne owns the main thread there).
	MainThread func(f func())
	// Precision forces a shader variant: "" (automatic), "f32", "f64", "emulated".
	Precision string
	// Perturb says where Perturbation frames are drawn: "gpu" (the perturbation shader,
	// where the driver has fp64 and room for the tables), "cpu" (the CPU renderer), or ""
	// (automatic: the GPU, except on a software rasteriser such as llvmpipe, where the
	// pure-Go CPU renderer is faster: 2.6x less CPU time at zoom 1e50, BenchmarkPerturb1e50).
	Perturb string
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
	Tiles       int           // Render and Compute calls' tiles drawn
	Draws       int           // draw calls issued (each band of a tile, each pass of a band, is one)
	Passes      int           // of which iterating passes of multi-pass tiles
	Pixels      int64         // pixels rendered
	DrawTime    time.Duration // time spent drawing, to each draw's completion
	LongestDraw time.Duration // the longest single draw call, measured with glFinish
	ReadBack    time.Duration // time spent in glReadPixels
	Uploads     int           // reference orbits and BLA tables uploaded (perturbation)
	CPUFrames   int           // Render and Compute calls passed to the CPU renderer (perturbation without fp64 or room)
}

// contextVersions are the GL core versions tried, best first; glslOverride, when not 0,
// replaces the GLSL version chosen from the context's (tests use both to exercise the GL 3.3
// path on a 4.x driver).
var (
	contextVersions = [][2]int{{4, 1}, {3, 3}}
	glslOverride    = 0
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
	stateTex   [2][4]uint32
	stateFBO   [2]uint32
	// orbitStateTex is each set's fifth to seventh state textures, for the orbit path's passes
	// alone (orbit.go): attached to the set's framebuffer as its colour attachments 4 to 6,
	// made on first use, drawn to only by those passes.
	orbitStateTex [2][3]uint32
	query         uint32   // ANY_SAMPLES_PASSED: did a pass leave any pixel running?
	readBuf       []uint32 // Compute's read-back of a band's state textures 2 and 3 (and the channels)

	// colourProgs are the colour shaders compiled (colourshader.go), by their text.
	colourProgs map[string]*colourProgram

	// Compute's single-pass target (STAGE_SAMPLE): one RGBA32UI texture of stateW x stateH
	// and its framebuffer, made on first use.
	sampleTex, sampleFBO uint32
	// chanTex is the sample target's second attachment, which the orbit path's programs
	// write T and STRIPE to (orbit.go); the others draw to the first alone.
	chanTex uint32

	// Perturbation: the texel limit of a buffer texture, the programs compiled on first use
	// (perturb.frag's, and mandel.frag's with the derivative: lazyProgram), and the tables
	// uploaded last (kept until another frame's reference or table comes).
	maxTexBuffer int
	deepProgs    map[progKey]*program
	tables       *deepTables
	cpu          cpu.Renderer // draws Perturbation frames this GL cannot

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
	switch opts.Perturb {
	case "", "gpu", "cpu":
	default:
		return nil, fmt.Errorf("opengl: unknown perturbation renderer %q (want gpu, cpu or empty)", opts.Perturb)
	}
	if opts.MaxTile < 0 {
		return nil, fmt.Errorf("opengl: max tile %d must not be negative", opts.MaxTile)
	}
	if opts.PassIterations < 0 {
		return nil, fmt.Errorf("opengl: pass iterations %d must not be negative", opts.PassIterations)
	}
	g = &GL{opts: opts, mainThread: opts.MainThread, progs: map[shaders.Variant]*program{},
		iterProgs: map[shaders.Variant]*program{}, deepProgs: map[progKey]*program{}}
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
	var tb int32
	gl.GetIntegerv(gl.MAX_TEXTURE_BUFFER_SIZE, &tb)
	g.maxTexBuffer = int(tb)
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
			for _, p := range g.deepProgs {
				gl.DeleteProgram(p.id)
			}
			g.deepProgs = nil
			g.deleteTables()
			deleteProgram(g.colourProg)
			g.colourProg = nil
			for _, p := range g.colourProgs {
				gl.DeleteProgram(p.id)
			}
			g.colourProgs = nil
			g.deleteState()
			g.deleteSampleTarget()
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
// the frame allows it, else native fp64 where the driver has it, else emulated double; a
// Perturbation frame gets the perturbation shader (which needs fp64; without it, Render
// passes the frame to the CPU renderer).
func (g *GL) variant(f fractal.Frame) shaders.Variant {
	switch g.opts.Precision {
	case "f32":
		return shaders.F32
	case "f64":
		return shaders.F64
	case "emulated":
		return shaders.Emulated
	}
	switch {
	case f.Precision() == fractal.Float32:
		return shaders.F32
	case f.Precision().Perturbs():
		return shaders.Perturb
	case g.fp64:
		return shaders.F64
	}
	return shaders.Emulated
}

// Mode says in words which arithmetic frame f is drawn with: "float32", "float64 (native
// fp64)", "double (emulated float-float)", "perturbation (fp64)", "perturbation (extended
// exponent, fp64)" (a PerturbationExp frame), or "perturbation (CPU: ...)" with the reason
// when the CPU renderer draws a perturbation frame the GPU cannot (no fp64, or a reference
// orbit too long for its texture limits), a frame on fractal's orbit path (another escape
// radius, the channels T and STRIPE: orbit.go) in the same words; "double (limit reached)" only
// where a forced precision is used past float64's reach; "rings (CPU: ...)" for a frame laid
// out as rings (fractal.Rings), which the CPU renderer draws. Every formula is drawn in the
// same words, at every depth and in every colouring.
func (g *GL) Mode(f fractal.Frame) string {
	if f.Rings != nil {
		return "rings (CPU: the shaders draw grids)"
	}
	v := g.variant(f)
	if v != shaders.F32 && v != shaders.Perturb && f.Precision().Perturbs() {
		return "double (limit reached)"
	}
	switch v {
	case shaders.F32:
		return "float32"
	case shaders.F64:
		return "float64 (native fp64)"
	case shaders.Perturb:
		if err := g.perturbFits(f); err != nil {
			return "perturbation (CPU: " + err.Error() + ")"
		}
		if f.Precision() == fractal.PerturbationExp {
			return "perturbation (extended exponent, fp64)"
		}
		return "perturbation (fp64)"
	default:
		return "double (emulated float-float)"
	}
}
