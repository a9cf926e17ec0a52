// Colouring shaders in Kalles Fraktaler's form: a user's GLSL file defining `vec3 colour()`,
// run once a pixel over computed samples (colour.Data) with the accessors of
// shaders.ColourFrag.

package render

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-gl/gl/v3.3-core/gl"

	"mandelscope/colour"
	"mandelscope/shaders"
)

// ShaderPicture is what a colour shader's uniforms say of the picture it colours.
type ShaderPicture = colour.ShaderPicture

var _ colour.ShaderPainter = (*GL)(nil)

// shaderMargin is the neighbours each side of a tile that a colour shader's offsets reach
// (NEIGHBOURS in colour.frag): the data of a tile is uploaded with this margin, where src has it.
const shaderMargin = colour.ShaderMargin

// maxColourPrograms bounds the colour shaders kept compiled.
const maxColourPrograms = 4

// colourProgram is a compiled colour shader and its uniforms' locations.
type colourProgram struct {
	id  uint32
	loc map[string]int32
}

// colourLogLine finds the lines a compiler log names: Mesa "0:12(5): error", NVIDIA
// "0(12) : error", AMD and Intel "ERROR: 0:12: ...".
var colourLogLine = regexp.MustCompile(`\b\d+[:(](\d+)[):(]`)

// preludeLine is the first line number of the prelude (colour.frag) for the compiler: lines
// from it on are the prelude's, those below it the user's file's.
const preludeLine = 1000000

// CompileColourShader compiles the colour shader text (named name in messages), refusing one
// that does not compile or link with a *ShaderError: the compiler's message, and the line of
// the file it names. The compiled program is kept for PaintColourShader.
func (g *GL) CompileColourShader(name, text string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errors.New("opengl: renderer is closed")
	}
	return g.th.call(func() error {
		_, err := g.colourProgram(name, text)
		return err
	})
}

// colourProgram runs on the GL thread: the program of text, compiled on first use.
func (g *GL) colourProgram(name, text string) (*colourProgram, error) {
	if p := g.colourProgs[text]; p != nil {
		return p, nil
	}
	vs, err := compileShader(gl.VERTEX_SHADER, "vertex", "", shaderHeader(g.glsl), []source{{"fullscreen.vert", shaders.FullscreenVert}})
	if err != nil {
		return nil, err
	}
	defer gl.DeleteShader(vs)
	fs, err := compileColourFrag(g.glsl, name, text)
	if err != nil {
		return nil, err
	}
	defer gl.DeleteShader(fs)
	id, err := linkShaders(vs, fs, strings.TrimSpace("colour shader "+name))
	if err != nil {
		return nil, err
	}
	p := &colourProgram{id: id, loc: map[string]int32{}}
	for _, u := range []string{"ImageSize", "KFP_Palette", "KFP_InteriorColor", "KFP_ShowGlitches", "KFP_Iterations",
		"KFP_IterDiv", "KFP_ColorOffset", "KFP_Smooth", "KFP_Flat", "KFP_InverseTransition", "KFP_sRGB", "KFP_JitterSeed",
		"uN", "uData", "uTileOrigin", "uTexOrigin", "uTexSize", "uZoomLog2"} {
		p.loc[u] = gl.GetUniformLocation(id, gl.Str(u+"\x00"))
	}
	if len(g.colourProgs) >= maxColourPrograms {
		for k, q := range g.colourProgs {
			gl.DeleteProgram(q.id)
			delete(g.colourProgs, k)
		}
	}
	if g.colourProgs == nil {
		g.colourProgs = map[string]*colourProgram{}
	}
	g.colourProgs[text] = p
	return p, nil
}

// compileColourFrag compiles the prelude (numbered from preludeLine) and the user's text
// (numbered from 1, so that the compiler's line numbers are the file's own).
func compileColourFrag(glsl int, name, text string) (uint32, error) {
	sh := gl.CreateShader(gl.FRAGMENT_SHADER)
	if sh == 0 {
		return 0, fmt.Errorf("colour shader %s: glCreateShader failed (GL error 0x%x)", name, gl.GetError())
	}
	src := shaderHeader(glsl) + fmt.Sprintf("#line %d\n", preludeLine) + shaders.ColourFrag + "\n#line 1\n" + text + "\n"
	csrc, free := gl.Strs(src + "\x00")
	gl.ShaderSource(sh, 1, csrc, nil)
	free()
	gl.CompileShader(sh)
	var ok int32
	gl.GetShaderiv(sh, gl.COMPILE_STATUS, &ok)
	if ok == gl.TRUE {
		return sh, nil
	}
	var n int32
	gl.GetShaderiv(sh, gl.INFO_LOG_LENGTH, &n)
	buf := make([]byte, n+1)
	gl.GetShaderInfoLog(sh, n, nil, &buf[0])
	gl.DeleteShader(sh)
	e := &ShaderError{Stage: "colour", Name: name, Log: string(buf)}
	lines := strings.Split(text, "\n")
	for _, m := range colourLogLine.FindAllStringSubmatch(e.Log, -1) {
		if ln, err := strconv.Atoi(m[1]); err == nil && ln >= 1 && ln <= len(lines) && ln < preludeLine {
			e.Line, e.Text = ln, lines[ln-1]
			break
		}
	}
	return 0, e
}

// PaintColourShader colours the samples src with the colour shader text (compiled as
// CompileColourShader compiles it) into dst, whose top-left pixel receives src's top-left
// sample; origin is the picture's pixel of src.Rect.Min (a strip's rows start below the
// picture's top), so that getCoord and inImage see the whole picture pic. Neighbours are read
// from src, clamped at its edges: a caller colouring a picture in pieces gives each piece
// colour.ShaderMargin rows and columns of its neighbours and keeps the inner pixels. It works
// in tiles of at most MaxTile pixels, each uploaded with that margin.
func (g *GL) PaintColourShader(ctx context.Context, pic ShaderPicture, name, text string, src *colour.Data, origin image.Point, dst *image.RGBA) error {
	r := src.Rect
	if r.Empty() {
		return nil
	}
	if dst.Rect.Dx() < r.Dx() || dst.Rect.Dy() < r.Dy() {
		return fmt.Errorf("colour shader: destination %v is smaller than the data %v", dst.Rect.Size(), r.Size())
	}
	pal, err := pic.Coloring.ColorPalette()
	if err != nil {
		return err
	}
	if len(pal.Stops) == 0 || len(pal.Stops) > maxStops {
		return fmt.Errorf("colour shader: palette of %d stops (1 to %d)", len(pal.Stops), maxStops)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errors.New("opengl: renderer is closed")
	}
	tile := max(16, g.maxTile-2*shaderMargin)
	for y := r.Min.Y; y < r.Max.Y; y += tile {
		for x := r.Min.X; x < r.Max.X; x += tile {
			if err := ctx.Err(); err != nil {
				return err
			}
			t := image.Rect(x, y, min(x+tile, r.Max.X), min(y+tile, r.Max.Y))
			err := g.th.call(func() error {
				p, err := g.colourProgram(name, text)
				if err != nil {
					return err
				}
				return g.paintShaderTile(p, pic, pal, src, t, origin, dst)
			})
			if err != nil {
				return fmt.Errorf("colour shader: %w", err)
			}
		}
	}
	return nil
}

// paintShaderTile runs on the GL thread: uploads the samples of tile t of src (with a margin
// of shaderMargin where src has it), draws p over t and reads the colours back into dst.
func (g *GL) paintShaderTile(p *colourProgram, pic ShaderPicture, pal colour.Palette, src *colour.Data, t image.Rectangle, origin image.Point, dst *image.RGBA) error {
	in := t.Inset(-shaderMargin).Intersect(src.Rect)
	w, h := in.Dx(), in.Dy()
	ns := make([]uint32, w*h)
	vals := make([]float32, 4*w*h)
	it := uint32(max(pic.Iterations, 1))
	for y := range h {
		row := src.Row(in.Min.Y + y)[in.Min.X-src.Rect.Min.X:]
		for x := range w {
			n, nf, dx, dy := kfChannels(row[x], it)
			i := y*w + x
			ns[i] = n
			vals[4*i], vals[4*i+1], vals[4*i+2], vals[4*i+3] = nf, row[x].T, dx, dy
		}
	}
	var tex [3]uint32
	gl.GenTextures(3, &tex[0])
	defer gl.DeleteTextures(3, &tex[0])
	upload := func(unit uint32, target uint32, id uint32, set func()) {
		gl.ActiveTexture(gl.TEXTURE0 + unit)
		gl.BindTexture(target, id)
		gl.TexParameteri(target, gl.TEXTURE_MIN_FILTER, gl.NEAREST)
		gl.TexParameteri(target, gl.TEXTURE_MAG_FILTER, gl.NEAREST)
		set()
	}
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	gl.PixelStorei(gl.UNPACK_ROW_LENGTH, 0)
	upload(0, gl.TEXTURE_2D, tex[0], func() {
		gl.TexImage2D(gl.TEXTURE_2D, 0, gl.R32UI, int32(w), int32(h), 0, gl.RED_INTEGER, gl.UNSIGNED_INT, gl.Ptr(&ns[0]))
	})
	upload(1, gl.TEXTURE_2D, tex[1], func() {
		gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, int32(w), int32(h), 0, gl.RGBA, gl.FLOAT, gl.Ptr(&vals[0]))
	})
	stops := make([]uint8, 0, 4*len(pal.Stops))
	for _, s := range pal.Stops {
		stops = append(stops, s.R, s.G, s.B, 255)
	}
	upload(2, gl.TEXTURE_1D, tex[2], func() {
		gl.TexImage1D(gl.TEXTURE_1D, 0, gl.RGBA8, int32(len(pal.Stops)), 0, gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(&stops[0]))
	})
	if e := gl.GetError(); e != gl.NO_ERROR {
		return fmt.Errorf("uploading the samples of %v: GL error 0x%x", t, e)
	}
	if err := g.ensureFramebuffer(t.Dx(), t.Dy()); err != nil {
		return err
	}
	gl.Disable(gl.DEPTH_TEST)
	gl.Disable(gl.BLEND)
	gl.Disable(gl.SCISSOR_TEST)
	gl.BindVertexArray(g.vao)
	gl.Viewport(0, 0, int32(t.Dx()), int32(t.Dy()))
	gl.UseProgram(p.id)
	l := p.loc
	gl.Uniform1i(l["uN"], 0)
	gl.Uniform1i(l["uData"], 1)
	gl.Uniform1i(l["KFP_Palette"], 2)
	off := origin.Sub(src.Rect.Min)
	gl.Uniform2i(l["ImageSize"], int32(pic.Width), int32(pic.Height))
	gl.Uniform2i(l["uTileOrigin"], int32(t.Min.X+off.X), int32(t.Min.Y+off.Y))
	gl.Uniform2i(l["uTexOrigin"], int32(in.Min.X+off.X), int32(in.Min.Y+off.Y))
	gl.Uniform2i(l["uTexSize"], int32(w), int32(h))
	gl.Uniform1f(l["uZoomLog2"], float32(pic.ZoomLog2))
	gl.Uniform3f(l["KFP_InteriorColor"], 0, 0, 0)
	gl.Uniform1i(l["KFP_ShowGlitches"], 1)
	gl.Uniform2ui(l["KFP_Iterations"], it, 0)
	div, cof := kfScale(pic.Coloring)
	gl.Uniform1f(l["KFP_IterDiv"], div)
	gl.Uniform1f(l["KFP_ColorOffset"], cof)
	gl.Uniform1i(l["KFP_Smooth"], 1)
	gl.Uniform1i(l["KFP_Flat"], 0)
	gl.Uniform1i(l["KFP_InverseTransition"], 0)
	gl.Uniform1i(l["KFP_sRGB"], 0)
	gl.Uniform1ui(l["KFP_JitterSeed"], 0)
	gl.DrawArrays(gl.TRIANGLES, 0, 3)
	// GL's row 0 is the tile's first row (the shader counts rows from gl_FragCoord.y up).
	out := make([]uint8, 4*t.Dx()*t.Dy())
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.PixelStorei(gl.PACK_ROW_LENGTH, 0)
	gl.ReadBuffer(gl.COLOR_ATTACHMENT0)
	gl.ReadPixels(0, 0, int32(t.Dx()), int32(t.Dy()), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(&out[0]))
	gl.UseProgram(0)
	gl.ActiveTexture(gl.TEXTURE0)
	if e := gl.GetError(); e != gl.NO_ERROR {
		return fmt.Errorf("drawing %v: GL error 0x%x", t, e)
	}
	for y := range t.Dy() {
		o := dst.PixOffset(dst.Rect.Min.X+t.Min.X-src.Rect.Min.X, dst.Rect.Min.Y+t.Min.Y-src.Rect.Min.Y+y)
		copy(dst.Pix[o:o+4*t.Dx()], out[4*t.Dx()*y:4*t.Dx()*(y+1)])
	}
	return nil
}

// kfChannels is a sample as Kalles Fraktaler's channels: N the integer count (its low 32
// bits; iterations inside, as Kalles Fraktaler marks the interior), NF with the smooth count
// N + 1 - NF (N 0 and NF beyond 1 for a smooth count below 1), and the distance estimate
// times the normal (an estimate without a normal is all in DEX).
func kfChannels(s colour.Sample, iterations uint32) (n uint32, nf, dex, dey float32) {
	if s.Inside() {
		return iterations, 0, 0, 0
	}
	nu := s.Nu
	c := math.Floor(nu)
	switch {
	case !(c >= 0):
		c = 0
	case c >= float64(iterations):
		c = float64(iterations - 1)
	}
	dex, dey = s.DEX, s.DEY
	if dey != dey {
		dey = 0
	}
	return uint32(c), float32(1 - (nu - c)), dex, dey
}

// kfScale is Kalles Fraktaler's iteration divisor and colour offset for a colouring: its
// palette position is (N / div + offset) / 1024 cycles, Mandelscope's N * density / 32 +
// offset.
func kfScale(c colour.Coloring) (div, offset float32) {
	return float32(1 / (32 * c.Density)), float32(1024 * c.Offset)
}
