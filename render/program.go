package render

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-gl/gl/v3.3-core/gl"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/shaders"
)

// maxStops is the size of the palette uniform array; longer palettes are refused.
const maxStops = 256

// program is a linked shader program and the locations of its uniforms.
type program struct {
	id      uint32
	variant shaders.Variant
	pages   int  // the perturbation shader's texture buffers per table (0 for the others)
	shade   bool // compiled with SHADE: draws the colourings other than the default
	deriv   bool // compiled with DERIV: carries the derivative for the colourings that read it
	exp     bool // the perturbation shader with EXPONENT (perturbexp.frag): extended exponents
	julia   bool // compiled with JULIA: draws the Julia set of the view's parameter
	orbit   bool // compiled with ORBIT: the escape radius and the orbit channels (orbit.go)
	// formula is the formula the program iterates (formulaDefines): the zero formula, the
	// Mandelbrot set's, for every program but mandel.frag's formula variants.
	formula fractal.Formula
	loc     map[string]int32
}

// shaderHeader is what goes before a shader's files: the version and the variant's defines
// (compileShader puts a #line before each file, so that the compiler's line numbers are the
// file's own).
func shaderHeader(glslVersion int, defines ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#version %d core\n", glslVersion)
	if glslVersion < 400 && len(defines) > 0 {
		// `precise` is GLSL 4.00 or GL_ARB_gpu_shader5; without either the arithmetic runs
		// unprotected from reassociation and fma (the tests say whether a driver keeps the
		// emulated double exact then).
		b.WriteString("#extension GL_ARB_gpu_shader5 : enable\n#ifndef GL_ARB_gpu_shader5\n#define precise\n#endif\n")
	}
	for _, d := range defines {
		if d == string(shaders.F64) && glslVersion < 400 {
			b.WriteString("#extension GL_ARB_gpu_shader_fp64 : require\n")
		}
		if strings.Contains(d, " ") {
			fmt.Fprintf(&b, "#define %s\n", d)
		} else {
			fmt.Fprintf(&b, "#define %s 1\n", d)
		}
	}
	return b.String()
}

// ShaderError is a shader that failed to compile or a program that failed to link. Its text
// carries the GL info log and, where the log names one, the offending source line.
type ShaderError struct {
	Stage string // "vertex", "fragment" or "link"
	Name  string // the file or variant
	Log   string // the GL info log
	Line  int    // the source line the log names first (0 if none)
	Text  string // that line of the source
}

func (e *ShaderError) Error() string {
	msg := fmt.Sprintf("%s shader %s: %s", e.Stage, e.Name, joinLog(e.Log))
	if e.Name == "" {
		msg = fmt.Sprintf("%s shader: %s", e.Stage, joinLog(e.Log))
	}
	if e.Stage == "link" {
		msg = fmt.Sprintf("linking %s: %s", e.Name, joinLog(e.Log))
	}
	if e.Line > 0 {
		msg += fmt.Sprintf(" [line %d: %s]", e.Line, strings.TrimSpace(e.Text))
	}
	return msg
}

// joinLog is a compiler or linker log on one line: its lines joined by "; ", runs of white
// space made single spaces, the NUL padding some drivers leave dropped.
func joinLog(s string) string {
	s = strings.TrimSpace(strings.TrimRight(s, "\x00"))
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// logLine finds the first source line a compiler log names: Mesa "0:12(5): error", NVIDIA
// "0(12) : error", AMD and Intel "ERROR: 0:12: ...".
var logLine = regexp.MustCompile(`\b\d+[:(](\d+)[):(]`)

// partLines is the line number distance between the parts of one shader: part i's line L is
// line i*partLines + L for the compiler (a #line directive before each part; source string
// numbers would be neater, but Mesa's logs do not show them).
const partLines = 10000

// source is one named part of a shader's text: a file of package shaders.
type source struct{ name, text string }

// compileShader compiles one stage from the header and the parts; a #line directive before
// each part numbers its lines from i*partLines + 1, so that a line the log names tells the
// part and the part's own line.
func compileShader(kind uint32, stage, variant, header string, parts []source) (uint32, error) {
	name := parts[len(parts)-1].name
	if variant != "" {
		name += " (" + variant + ")"
	}
	sh := gl.CreateShader(kind)
	if sh == 0 {
		return 0, fmt.Errorf("%s shader %s: glCreateShader failed (GL error 0x%x)", stage, name, gl.GetError())
	}
	var b strings.Builder
	b.WriteString(header)
	for i, p := range parts {
		fmt.Fprintf(&b, "#line %d\n%s\n", i*partLines+1, p.text)
	}
	csrc, free := gl.Strs(b.String() + "\x00")
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
	e := &ShaderError{Stage: stage, Name: name, Log: string(buf)}
	if m := logLine.FindStringSubmatch(e.Log); m != nil {
		if ln, err := strconv.Atoi(m[1]); err == nil && ln >= 1 && ln/partLines < len(parts) {
			i := ln / partLines
			p := parts[i]
			lines := strings.Split(p.text, "\n")
			if ln -= i * partLines; ln >= 1 && ln <= len(lines) {
				e.Line, e.Text = ln, lines[ln-1]
				if i < len(parts)-1 {
					e.Name = p.name + ", included in " + e.Name
				}
			}
		}
	}
	return 0, e
}

// The stages of mandel.frag: the single-pass colouring (no define), and the two stages of a
// multi-pass render: iterating a slice of every orbit with its state in textures, and
// colouring that state.
const (
	stageSingle  = ""
	stageIterate = "STAGE_ITERATE"
	stageColour  = "STAGE_COLOUR"
	stageSample  = "STAGE_SAMPLE" // the single pass writing samples: Compute (compute.go)
)

// newProgram compiles and links a vertex source and mandel.frag's text fragSrc (after
// common.glsl) for a variant (the single-pass stage). Everything created is released again
// when a later step fails.
func newProgram(glslVersion int, variant shaders.Variant, vertSrc, fragSrc string) (*program, error) {
	return newStageProgram(glslVersion, variant, stageSingle, vertSrc, fragSrc)
}

// newStageProgram is newProgram for one stage of mandel.frag.
func newStageProgram(glslVersion int, variant shaders.Variant, stage, vertSrc, fragSrc string) (*program, error) {
	return linkProgram(glslVersion, variant, stage, vertSrc, []source{{"mandel.frag", fragSrc}}, []string{string(variant)})
}

// shadeDefine and derivDefine are the defines of the programs for the colourings other than
// the default, and of those that carry the derivative; juliaDefine of those that draw a Julia
// set.
const (
	shadeDefine = "SHADE"
	derivDefine = "DERIV"
	juliaDefine = "JULIA"
)

// formulaDefines are the defines of mandel.frag's programs for formula fm (common.glsl):
// none for the zero formula (the Mandelbrot set's own loop), else the kind's,
// FORMULA_ and its name in capitals with '_' for '-' (FORMULA_BURNING_SHIP), and POWER D.
func formulaDefines(fm fractal.Formula) []string {
	if fm.IsMandelbrot() {
		return nil
	}
	kind := strings.ToUpper(strings.ReplaceAll(fm.Kind.String(), "-", "_"))
	return []string{"FORMULA_" + kind, fmt.Sprintf("POWER %d", fm.Power())}
}

// shadingOf says which of those defines a colouring's programs need.
func shadingOf(c colour.Coloring) (shade, deriv bool) {
	return !c.IsDefaultShading(), c.NeedsDerivative()
}

// lazyProgram returns the program for key, compiling it on first use (on the GL thread):
// mandel.frag's variants and stages with SHADE, DERIV, JULIA or a formula's defines, and
// perturb.frag's programs.
func (g *GL) lazyProgram(key progKey) (*program, error) {
	if p := g.deepProgs[key]; p != nil {
		return p, nil
	}
	frag := []source{{"mandel.frag", shaders.MandelFrag}}
	defs := []string{string(key.v)}
	if key.v == shaders.Perturb {
		frag = []source{{"perturb.frag", shaders.PerturbFrag}}
		defs = []string{string(shaders.F64), fmt.Sprintf("PAGES %d", key.pages)}
		if key.exp {
			frag = append(frag, source{"perturbexp.frag", shaders.PerturbExpFrag})
			defs = append(defs, shaders.Exponent)
		}
	}
	if key.shade {
		defs = append(defs, shadeDefine)
	}
	if key.deriv {
		defs = append(defs, derivDefine)
	}
	if key.julia {
		defs = append(defs, juliaDefine)
	}
	defs = append(defs, formulaDefines(key.formula)...)
	if key.orbit {
		defs = append(defs, orbitDefine)
	}
	p, err := linkProgram(g.glsl, key.v, key.stage, shaders.FullscreenVert, frag, defs)
	if err != nil {
		return nil, err
	}
	p.variant, p.pages, p.shade, p.deriv, p.exp, p.julia = key.v, key.pages, key.shade, key.deriv, key.exp, key.julia
	p.formula, p.orbit = key.formula, key.orbit
	g.deepProgs[key] = p
	return p, nil
}

// linkProgram compiles and links the vertex source and common.glsl followed by the fragment
// shader's files, with the defines (the variant's, and extra ones) and the stage's in the
// header.
func linkProgram(glslVersion int, variant shaders.Variant, stage, vertSrc string, frag []source, defines []string) (*program, error) {
	name := string(variant)
	defines = append(defines, fmt.Sprintf("MAX_STOPS %d", maxStops))
	if stage != stageSingle {
		name += " " + stage
		defines = append(defines, stage)
	}
	vs, err := compileShader(gl.VERTEX_SHADER, "vertex", "", shaderHeader(glslVersion), []source{{"fullscreen.vert", vertSrc}})
	if err != nil {
		return nil, err
	}
	defer gl.DeleteShader(vs)
	fs, err := compileShader(gl.FRAGMENT_SHADER, "fragment", name, shaderHeader(glslVersion, defines...),
		append([]source{{"common.glsl", shaders.Common}}, frag...))
	if err != nil {
		return nil, err
	}
	defer gl.DeleteShader(fs)
	id, err := linkShaders(vs, fs, name)
	if err != nil {
		return nil, err
	}
	p := &program{id: id, variant: variant, loc: map[string]int32{}}
	for _, u := range []string{"uOrigin", "uHalf", "uCentre", "uSpacing", "uMaxIter",
		"uStops", "uNumStops", "uDensity", "uOffset", "uK0", "uK1", "uBand",
		"uState0", "uState1", "uState2", "uState3", "uMethod", "uTransfer", "uWidth", "uLight", "uStrength",
		"uD", "uRefC", "uLast", "uPeriod", "uPageShift", "uBLASteps", "uBLALevels", "uBLAOffset", "uBLAScale",
		"uOrbit0", "uOrbit1", "uOrbit2", "uOrbit3", "uBLA0", "uBLA1", "uBLA2", "uBLA3",
		"uDX", "uDXe", "uSpacingX", "uSpacingXe", "uTiny", "uTinyCount", "uJuliaC", "uJuliaStart", "uJEnd",
		"uBail2", "uStripeK", "uStripeS", "uState4", "uState5", "uState6", "uRot", "uRotD"} {
		p.loc[u] = gl.GetUniformLocation(id, gl.Str(u+"\x00"))
	}
	// The state textures are read from texture units 0, 1, 2 and state3Unit, the perturbation
	// tables' pages from units orbitUnit and blaUnit on.
	gl.UseProgram(id)
	for i, u := range []string{"uState0", "uState1", "uState2", "uState3", "uState4", "uState5", "uState6"} {
		gl.Uniform1i(p.loc[u], int32(stateUnit(i)))
	}
	for i := range maxPages {
		gl.Uniform1i(p.loc[fmt.Sprintf("uOrbit%d", i)], int32(orbitUnit+i))
		gl.Uniform1i(p.loc[fmt.Sprintf("uBLA%d", i)], int32(blaUnit+i))
	}
	gl.Uniform1i(p.loc["uTiny"], tinyUnit)
	gl.UseProgram(0)
	return p, nil
}

// setView loads a view into the program's uniforms (the program must be in use).
func (p *program) setView(v View) {
	gl.Uniform2i(p.loc["uOrigin"], int32(v.Origin.X), int32(v.Origin.Y))
	gl.Uniform2f(p.loc["uHalf"], float32(v.W)/2, float32(v.H)/2)
	gl.Uniform2f(p.loc["uRot"], float32(v.RotCos), float32(v.RotSin))
	if p.variant == shaders.F64 || p.variant == shaders.Perturb {
		gl.Uniform4ui(p.loc["uRotD"], lo(v.RotCos), hi(v.RotCos), lo(v.RotSin), hi(v.RotSin))
	}
	switch p.variant {
	case shaders.F32:
		gl.Uniform2f(p.loc["uCentre"], float32(v.Re), float32(v.Im))
		gl.Uniform1f(p.loc["uSpacing"], float32(v.Spacing))
		gl.Uniform2f(p.loc["uJuliaC"], float32(v.JuliaRe), float32(v.JuliaIm))
	case shaders.Perturb:
		// dc = D + offset * spacing, and the reference point for the smooth value.
		gl.Uniform4ui(p.loc["uD"], lo(v.DRe), hi(v.DRe), lo(v.DIm), hi(v.DIm))
		gl.Uniform2ui(p.loc["uSpacing"], lo(v.Spacing), hi(v.Spacing))
		gl.Uniform4ui(p.loc["uRefC"], lo(v.RefRe), hi(v.RefRe), lo(v.RefIm), hi(v.RefIm))
		gl.Uniform4ui(p.loc["uJuliaC"], lo(v.JuliaRe), hi(v.JuliaRe), lo(v.JuliaIm), hi(v.JuliaIm))
		if p.exp {
			// The extended values m 2^e: the mantissas' bits and the exponents.
			gl.Uniform4ui(p.loc["uDX"], lo(v.DReX.Mant()), hi(v.DReX.Mant()), lo(v.DImX.Mant()), hi(v.DImX.Mant()))
			gl.Uniform2i(p.loc["uDXe"], int32(v.DReX.Exponent()), int32(v.DImX.Exponent()))
			gl.Uniform2ui(p.loc["uSpacingX"], lo(v.SpacingX.Mant()), hi(v.SpacingX.Mant()))
			gl.Uniform1i(p.loc["uSpacingXe"], int32(v.SpacingX.Exponent()))
		}
	case shaders.F64:
		// Doubles travel as their bits (packDouble2x32 in the shader), so that the GL 3.3
		// function set is enough and the values arrive exactly.
		re, im, sp := math.Float64bits(v.Re), math.Float64bits(v.Im), math.Float64bits(v.Spacing)
		gl.Uniform4ui(p.loc["uCentre"], uint32(re), uint32(re>>32), uint32(im), uint32(im>>32))
		gl.Uniform2ui(p.loc["uSpacing"], uint32(sp), uint32(sp>>32))
		gl.Uniform4ui(p.loc["uJuliaC"], lo(v.JuliaRe), hi(v.JuliaRe), lo(v.JuliaIm), hi(v.JuliaIm))
	default:
		rh, rl := splitFF(v.Re)
		ih, il := splitFF(v.Im)
		sh, sl := splitFF(v.Spacing)
		gl.Uniform4f(p.loc["uCentre"], rh, rl, ih, il)
		gl.Uniform2f(p.loc["uSpacing"], sh, sl)
		jrh, jrl := splitFF(v.JuliaRe)
		jih, jil := splitFF(v.JuliaIm)
		gl.Uniform4f(p.loc["uJuliaC"], jrh, jrl, jih, jil)
	}
}

// setColoring loads the iteration limit and the palette (the program must be in use).
func (p *program) setColoring(maxIter int, stops []float32, density, offset float64) {
	gl.Uniform1i(p.loc["uMaxIter"], int32(maxIter))
	gl.Uniform3fv(p.loc["uStops"], int32(len(stops)/3), &stops[0])
	gl.Uniform1i(p.loc["uNumStops"], int32(len(stops)/3))
	gl.Uniform1f(p.loc["uDensity"], float32(density))
	gl.Uniform1f(p.loc["uOffset"], float32(offset))
}

// setShading loads the colouring beyond the palette (the program must be in use): the
// method and transfer function's numbers and their parameters (colour.Coloring.Shade).
func (p *program) setShading(c colour.Coloring) {
	gl.Uniform1i(p.loc["uMethod"], int32(max(colour.MethodIndex(c.Method), 0)))
	gl.Uniform1i(p.loc["uTransfer"], int32(max(colour.TransferIndex(c.Transfer), 0)))
	gl.Uniform1f(p.loc["uWidth"], float32(c.LineWidth()))
	lx, ly := c.LightDir()
	gl.Uniform2f(p.loc["uLight"], float32(lx), float32(ly))
	gl.Uniform1f(p.loc["uStrength"], float32(c.LightStrength()))
}

// stateUnit is the texture unit of multi-pass state texture i: 0 to 2 for the first three,
// the unit after the perturbation tables' for the fourth (the derivative), the three after the
// tiny values' for the orbit path's fifth to seventh (the last of the 16 that GL 3.3
// promises).
func stateUnit(i int) int {
	switch {
	case i < 3:
		return i
	case i == 3:
		return blaUnit + maxPages
	}
	return tinyUnit + i - 3 // the orbit path's textures 4 to 6 (orbit.go)
}

// tinyUnit is the texture unit of the orbit's tiny values (the extended-exponent programs'
// uTiny): the 13th of the 16 that GL 3.3 promises.
const tinyUnit = blaUnit + maxPages + 1

// deleteProgram releases a program.
func deleteProgram(p *program) {
	if p != nil {
		gl.DeleteProgram(p.id)
	}
}

// lo and hi are the low and high 32 bits of v's float64 bit pattern (packDouble2x32's x and y).
func lo(v float64) uint32 { return uint32(math.Float64bits(v)) }
func hi(v float64) uint32 { return uint32(math.Float64bits(v) >> 32) }

// linkShaders links vertex shader vs and fragment shader fs into a program; a program that does
// not link is deleted and its log returned as a ShaderError naming name.
func linkShaders(vs, fs uint32, name string) (uint32, error) {
	id := gl.CreateProgram()
	gl.AttachShader(id, vs)
	gl.AttachShader(id, fs)
	gl.LinkProgram(id)
	var ok int32
	gl.GetProgramiv(id, gl.LINK_STATUS, &ok)
	if ok != gl.TRUE {
		var n int32
		gl.GetProgramiv(id, gl.INFO_LOG_LENGTH, &n)
		buf := make([]byte, n+1)
		gl.GetProgramInfoLog(id, n, nil, &buf[0])
		gl.DeleteProgram(id)
		return 0, &ShaderError{Stage: "link", Name: name, Log: string(buf)}
	}
	return id, nil
}
