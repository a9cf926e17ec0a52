// Perturbation on the GPU: the reference orbit and the BLA table of a Perturbation frame in
// texture buffers, and the programs of perturb.frag.

package render

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/go-gl/gl/v3.3-core/gl"

	"mandelscope/fractal"
	"mandelscope/shaders"
)

// maxPages is the most texture buffers each perturbation table is split into (perturb.frag's
// PAGES); orbitUnit and blaUnit are the texture units of the orbit's and the table's first
// page (units 0 to 2 hold the multi-pass state): 11 units, within the 16 that GL 3.3 promises.
const (
	maxPages  = 4
	orbitUnit = 3
	blaUnit   = orbitUnit + maxPages
)

// noBLA, when set, draws perturbation frames without the BLA table (plain perturbation, one
// iteration a step): benchmarks use it to measure the cost of one iteration.
var noBLA = false

// texBufferLimitOverride, when above 0, replaces GL_MAX_TEXTURE_BUFFER_SIZE (tests use it to
// exercise the split into pages).
var texBufferLimitOverride = 0

// blaTables is the BLA table a perturbation program reads, at most one of: the Mandelbrot
// set's (bla), another formula's (fbla: 2x2 real matrices), the Mandelbrot set's with
// extended exponents (blaExp) or another formula's with extended exponents (fblaExp); none
// for plain perturbation.
type blaTables struct {
	bla     *fractal.BLA
	fbla    *fractal.FormulaBLA
	blaExp  *fractal.BLAExp
	fblaExp *fractal.FormulaBLAExp
}

// extended reports whether tb is an extended-exponent program's table, which comes with the
// orbit's tiny values.
func (tb blaTables) extended() bool { return tb.blaExp != nil || tb.fblaExp != nil }

// deepTables is one upload of a reference orbit and its BLA table (blaTables): each table in
// pages of 2^shift RGBA32UI texels (two float64 bit patterns per texel), one buffer and one
// buffer texture per page; for an extended table (blaExp, fblaExp) also the orbit's tiny
// values (fractal.Reference.Tiny) in one more buffer texture.
type deepTables struct {
	ref *fractal.Reference
	blaTables
	limit int // the texel limit it was split for
	shift int
	pages int
	bufs  []uint32
	texs  []uint32 // orbit pages, then BLA pages, then (an extended table) the tiny values
	tiny  int      // the number of tiny values
	bytes int
}

// blaExpTexels is the texels of one fractal.BLAExp entry: (Ar, Ai), (Br, Bi), (Rm, R64) and
// (Ae, Be, Re, 0) (perturbexp.frag); fblaExpTexels those of one fractal.FormulaBLAExp entry:
// its FormulaBLAExpStride mantissas two a texel, then (Ae, Be, Re, 0).
const (
	blaExpTexels  = 4
	fblaExpTexels = fractal.FormulaBLAExpStride/2 + 1
)

// tableTexels returns the texels the orbit of ref and the BLA table tb take: one per orbit
// point, three per table entry (fractal.BLA.Flat: six float64s), five per formula table entry
// (fractal.FormulaBLA.Flat: ten), or blaExpTexels (fblaExpTexels for a formula's) per
// extended entry.
func tableTexels(ref *fractal.Reference, tb blaTables) (orbit, table int) {
	orbit = len(ref.Z)
	switch {
	case tb.bla != nil:
		table = tb.bla.Offset(tb.bla.Levels()) * fractal.BLAStride / 2
	case tb.fbla != nil:
		table = tb.fbla.Offset(tb.fbla.Levels()) * fractal.FormulaBLAStride / 2
	case tb.blaExp != nil:
		table = tb.blaExp.Offset(tb.blaExp.Levels()) * blaExpTexels
	case tb.fblaExp != nil:
		table = tb.fblaExp.Offset(tb.fblaExp.Levels()) * fblaExpTexels
	}
	return orbit, table
}

// floatWords, blaExpWords and tinyWords give a table as 32-bit words, four per texel, ready
// for upload: float64s (the orbit, bla.Flat) each as its bytes on a little-endian host (the
// low word first, as packDouble2x32 reads them; floatWords shares v's memory), the extended
// BLA table (blaExp.Flat, regrouped into blaExpTexels texels an entry; fblaExpWords a
// formula's, fblaExp.Flat in fblaExpTexels texels an entry), and the tiny values (two texels
// each: (m, e, 0, 0), (re, im); a zero value's e is perturbexp.frag's ZERO_EXP).
func floatWords(v []float64) []uint32 {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&v[0])), 2*len(v))
}

func blaExpWords(b *fractal.BLAExp) []uint32 {
	mant, exp := b.Flat()
	n := len(exp) / fractal.BLAExpExpStride
	out := make([]uint32, 0, 4*blaExpTexels*n)
	for i := range n {
		out = append(out, floatWords(mant[fractal.BLAExpStride*i:][:fractal.BLAExpStride])...)
		x := exp[fractal.BLAExpExpStride*i:][:fractal.BLAExpExpStride]
		out = append(out, uint32(x[0]), uint32(x[1]), uint32(x[2]), 0)
	}
	return out
}

func fblaExpWords(b *fractal.FormulaBLAExp) []uint32 {
	mant, exp := b.Flat()
	n := len(exp) / fractal.FormulaBLAExpExpStride
	out := make([]uint32, 0, 4*fblaExpTexels*n)
	for i := range n {
		out = append(out, floatWords(mant[fractal.FormulaBLAExpStride*i:][:fractal.FormulaBLAExpStride])...)
		x := exp[fractal.FormulaBLAExpExpStride*i:][:fractal.FormulaBLAExpExpStride]
		out = append(out, uint32(x[0]), uint32(x[1]), uint32(x[2]), 0)
	}
	return out
}

func tinyWords(ref *fractal.Reference) []uint32 {
	tiny := ref.Tiny()
	out := make([]uint32, 0, 8*len(tiny))
	for _, z := range tiny {
		// The exponent within int32: a value of exactly 0 (a Julia reference point at 0) has
		// fractal's zero exponent, -2^40, which the shader's is (ZERO_EXP, -2^30); wrapped,
		// it read 0 there, and 0 * 2^0 added to a tiny delta lost the delta (cxAdd).
		e := min(max(z.E, -1<<30), 1<<30)
		out = append(out, uint32(z.M), uint32(int32(e)), 0, 0)
		out = append(out, floatWords([]float64{z.Re, z.Im})...)
	}
	return out
}

// pagePlan splits tables of orbit and table texels into pages of 2^shift texels, the largest
// power of two within limit, and says how many pages the larger needs; ok is false when that
// is more than maxPages.
func pagePlan(orbit, table, limit int) (shift, pages int, ok bool) {
	if limit < 1 {
		return 0, 0, false
	}
	shift = min(bits.Len(uint(limit))-1, 30)
	page := 1 << shift
	pages = max((orbit+page-1)/page, (table+page-1)/page, 1)
	return shift, pages, pages <= maxPages
}

// texBufferLimit is the texel limit of one buffer texture: the driver's, or the tests'.
func (g *GL) texBufferLimit() int {
	if texBufferLimitOverride > 0 {
		return texBufferLimitOverride
	}
	return g.maxTexBuffer
}

// perturbFits reports whether frame f (with its reference) can be drawn by the perturbation
// shader: fp64, tables that fit maxPages buffer textures, for a PerturbationExp frame
// (perturbexp.frag) the orbit's tiny values within one buffer texture, and no recheck of its
// long counts (fractal.Frame.NeedsRecheck).
func (g *GL) perturbFits(f fractal.Frame) error {
	exp := f.Precision() == fractal.PerturbationExp
	if !g.fp64 {
		return fmt.Errorf("%s has no native fp64", g.renderer)
	}
	if f.Ref != nil && f.Ref.Julia() != f.Loc.Julia {
		return errors.New("the frame's reference orbit is not its fractal's")
	}
	switch g.opts.Perturb {
	case "cpu":
		return errors.New("forced")
	case "":
		if softwareRenderer(g.renderer) {
			return fmt.Errorf("faster than %s here", g.renderer)
		}
	}
	if f.Ref == nil {
		return nil // the reference comes later; checked again then
	}
	if f.NeedsRecheck() {
		// Its float64 counts past a bound are checked again, pixel by pixel, in double-double
		// or math/big (fractal's recheck.go): the CPU renderer does that, the shader cannot.
		return errors.New("the reference is a minibrot's nucleus outside the view, whose long counts are rechecked on the CPU")
	}
	if exp {
		if n := 2 * len(f.Ref.Tiny()); n > g.texBufferLimit() {
			return fmt.Errorf("the reference orbit's %d tiny values need %d texels, more than a texture buffer's %d", n/2, n, g.texBufferLimit())
		}
	}
	o, t := tableTexels(f.Ref, frameBLA(f, exp))
	if _, pages, ok := pagePlan(o, t, g.texBufferLimit()); !ok {
		return fmt.Errorf("the reference orbit and BLA table (%d and %d texels) need %d texture buffers of at most %d texels, more than %d",
			o, t, pages, g.texBufferLimit(), maxPages)
	}
	return nil
}

// frameBLA is the BLA table the perturbation shader takes for frame f (with extended
// exponents for exp): f.BLA(), for a formula other than the Mandelbrot set's f.FormulaBLA()
// (the CPU renderer's, so that both take the same blocks), with extended exponents f.BLAExp()
// or, for another formula, f.FormulaBLAExp(); none where noBLA is set.
func frameBLA(f fractal.Frame, exp bool) blaTables {
	switch {
	case noBLA:
		return blaTables{}
	case exp && !f.Loc.Formula.IsMandelbrot():
		return blaTables{fblaExp: f.FormulaBLAExp()}
	case exp:
		return blaTables{blaExp: f.BLAExp()}
	case !f.Loc.Formula.IsMandelbrot():
		return blaTables{fbla: f.FormulaBLA()}
	}
	return blaTables{bla: f.BLA()}
}

// softwareRenderer reports whether GL_RENDERER names a rasteriser that runs on the CPU
// (Mesa's llvmpipe and softpipe, SwiftShader, Microsoft's GDI Generic): there the CPU
// renderer draws perturbation faster than the shader.
func softwareRenderer(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"llvmpipe", "softpipe", "swiftshader", "gdi generic", "software rasterizer"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// ensureTables runs on the GL thread: uploads ref's orbit and the table tb unless they are the
// ones uploaded last (an export's tiles and strips share one upload), and binds their pages to
// their texture units.
func (g *GL) ensureTables(ref *fractal.Reference, tb blaTables) (*deepTables, error) {
	limit := g.texBufferLimit()
	t := g.tables
	bla, blaExp := tb.bla, tb.blaExp
	if t == nil || t.ref != ref || t.blaTables != tb || t.limit != limit {
		g.deleteTables()
		o, n := tableTexels(ref, tb)
		shift, pages, ok := pagePlan(o, n, limit)
		if !ok {
			return nil, fmt.Errorf("perturbation tables of %d and %d texels do not fit %d texture buffers of %d texels", o, n, maxPages, limit)
		}
		t = &deepTables{ref: ref, blaTables: tb, limit: limit, shift: shift, pages: pages}
		g.tables = t // deleteTables frees what is made below, even on failure
		var data [][]uint32
		data = append(data, floatWords(ref.OrbitFloats()))
		switch {
		case blaExp != nil:
			data = append(data, blaExpWords(blaExp))
		case tb.fblaExp != nil:
			data = append(data, fblaExpWords(tb.fblaExp))
		case bla != nil:
			data = append(data, floatWords(bla.Flat()))
		case tb.fbla != nil:
			data = append(data, floatWords(tb.fbla.Flat()))
		default:
			data = append(data, nil)
		}
		nbuf := 2 * pages
		if tb.extended() {
			tw := tinyWords(ref)
			if len(tw)/4 > limit {
				g.deleteTables()
				return nil, fmt.Errorf("the reference orbit's tiny values (%d texels) do not fit a texture buffer of %d texels", len(tw)/4, limit)
			}
			t.tiny = len(tw) / 8
			data = append(data, tw)
			nbuf++
		}
		t.bufs = make([]uint32, nbuf)
		t.texs = make([]uint32, nbuf)
		gl.GenBuffers(int32(len(t.bufs)), &t.bufs[0])
		gl.GenTextures(int32(len(t.texs)), &t.texs[0])
		for k := range nbuf {
			// Table i's page p: four words a texel.
			i, p := k/pages, k%pages
			words := data[min(i, len(data)-1)]
			lo, hi := 0, len(words)
			if i < 2 {
				lo = min(4*(p<<shift), len(words))
				hi = min(4*((p+1)<<shift), len(words))
			}
			gl.BindBuffer(gl.TEXTURE_BUFFER, t.bufs[k])
			if hi > lo {
				gl.BufferData(gl.TEXTURE_BUFFER, 4*(hi-lo), gl.Ptr(&words[lo]), gl.STATIC_DRAW)
			} else {
				gl.BufferData(gl.TEXTURE_BUFFER, 16, nil, gl.STATIC_DRAW) // an empty page
			}
			t.bytes += 4 * (hi - lo)
			gl.BindTexture(gl.TEXTURE_BUFFER, t.texs[k])
			gl.TexBuffer(gl.TEXTURE_BUFFER, gl.RGBA32UI, t.bufs[k])
		}
		gl.BindBuffer(gl.TEXTURE_BUFFER, 0)
		if e := gl.GetError(); e != gl.NO_ERROR {
			g.deleteTables()
			return nil, fmt.Errorf("uploading the reference orbit and BLA table (%d MB): GL error 0x%x (out of memory?)", t.bytes>>20, e)
		}
		g.statsMu.Lock()
		g.stats.Uploads++
		g.statsMu.Unlock()
	}
	for i := range maxPages {
		// Unused units get page 0, so that every sampler has a texture of its type.
		p := min(i, t.pages-1)
		gl.ActiveTexture(gl.TEXTURE0 + uint32(orbitUnit+i))
		gl.BindTexture(gl.TEXTURE_BUFFER, t.texs[p])
		gl.ActiveTexture(gl.TEXTURE0 + uint32(blaUnit+i))
		gl.BindTexture(gl.TEXTURE_BUFFER, t.texs[t.pages+p])
	}
	// The tiny values' unit gets a buffer texture in every case (the orbit's first page
	// where there are none), so that the sampler has one of its type.
	gl.ActiveTexture(gl.TEXTURE0 + tinyUnit)
	gl.BindTexture(gl.TEXTURE_BUFFER, t.texs[min(2*t.pages, len(t.texs)-1)])
	gl.ActiveTexture(gl.TEXTURE0)
	return t, nil
}

// setTables loads the tables' shape into a perturbation program (the program must be in use).
func (p *program) setTables(t *deepTables) {
	gl.Uniform1i(p.loc["uPageShift"], int32(t.shift))
	// The orbit through 0 ends at WLast (len(Z)-1 but for a Julia reference, whose reference
	// point's orbit follows it from JuliaStart to len(Z)-1: perturb.frag's JULIA programs).
	gl.Uniform1i(p.loc["uLast"], int32(t.ref.WLast()))
	gl.Uniform1i(p.loc["uPeriod"], int32(t.ref.Period()))
	gl.Uniform1i(p.loc["uJuliaStart"], int32(t.ref.JuliaStart()))
	gl.Uniform1i(p.loc["uJEnd"], int32(len(t.ref.Z)-1))
	var off [32]int32
	levels, steps := 0, 0
	offset := func(int) int { return 0 }
	if t.bla != nil {
		levels, steps, offset = t.bla.Levels(), t.bla.Steps(), t.bla.Offset
	}
	if t.fbla != nil {
		levels, steps, offset = t.fbla.Levels(), t.fbla.Steps(), t.fbla.Offset
	}
	if t.blaExp != nil {
		levels, steps, offset = t.blaExp.Levels(), t.blaExp.Steps(), t.blaExp.Offset
	}
	scale := 0
	if t.fblaExp != nil {
		levels, steps, offset, scale = t.fblaExp.Levels(), t.fblaExp.Steps(), t.fblaExp.Offset, t.fblaExp.Scale()
	}
	for l := range min(levels, len(off)) {
		off[l] = int32(offset(l))
	}
	gl.Uniform1i(p.loc["uTinyCount"], int32(t.tiny))
	gl.Uniform1i(p.loc["uBLALevels"], int32(levels))
	gl.Uniform1i(p.loc["uBLAScale"], int32(scale))
	gl.Uniform1i(p.loc["uBLASteps"], int32(steps))
	gl.Uniform1iv(p.loc["uBLAOffset"], int32(len(off)), &off[0])
}

// deleteTables frees the uploaded tables (none is fine).
func (g *GL) deleteTables() {
	t := g.tables
	g.tables = nil
	if t == nil {
		return
	}
	if len(t.texs) > 0 {
		gl.DeleteTextures(int32(len(t.texs)), &t.texs[0])
	}
	if len(t.bufs) > 0 {
		gl.DeleteBuffers(int32(len(t.bufs)), &t.bufs[0])
	}
}

// perturbProgram returns the perturbation shader's program for tables in pages buffers, for a
// stage (stageSingle or stageIterate), with SHADE and DERIV or without, with EXPONENT (exp)
// or without, compiling it on first use.
func (g *GL) perturbProgram(pages int, stage string, shade, deriv, exp bool) (*program, error) {
	return g.deepProgram(pages, stage, shade, deriv, exp, false, fractal.Formula{})
}

// deepProgram is perturbProgram for the Mandelbrot set or, with julia, a Julia set (JULIA), of
// formula fm (formulaDefines: perturb.frag's formulaDelta, and its BLA table's 2x2 matrices).
func (g *GL) deepProgram(pages int, stage string, shade, deriv, exp, julia bool, fm fractal.Formula) (*program, error) {
	return g.lazyProgram(progKey{v: shaders.Perturb, pages: pages, stage: stage, shade: shade, deriv: deriv, exp: exp, julia: julia, formula: fm})
}

// progKey names a program compiled on first use: a perturbation program (with EXPONENT when
// exp), or a variant of mandel.frag with SHADE (shade), DERIV (deriv), JULIA (julia) or a
// formula's defines (formula other than the zero formula: formulaDefines).
type progKey struct {
	v       shaders.Variant
	pages   int
	stage   string
	shade   bool
	deriv   bool
	exp     bool
	julia   bool
	formula fractal.Formula
	orbit   bool // mandel.frag with ORBIT: the escape radius and the orbit channels (orbit.go)
}
