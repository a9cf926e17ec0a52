// Perturbation on the GPU: the reference orbit and the BLA table of a Perturbation frame in
// texture buffers, and the programs of perturb.frag.

package render

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"

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

// deepTables is one upload of a reference orbit and its BLA table: each table in pages of
// 2^shift RGBA32UI texels (two float64 bit patterns per texel), one buffer and one buffer
// texture per page.
type deepTables struct {
	ref   *fractal.Reference
	bla   *fractal.BLA
	limit int // the texel limit it was split for
	shift int
	pages int
	bufs  []uint32
	texs  []uint32 // orbit pages, then BLA pages
	bytes int
}

// tableTexels returns the texels the orbit and the BLA table of ref and bla take: one per
// orbit point, three per table entry (fractal.BLA.Flat: six float64s).
func tableTexels(ref *fractal.Reference, bla *fractal.BLA) (orbit, table int) {
	orbit = len(ref.Z)
	if bla != nil {
		table = bla.Offset(bla.Levels()) * fractal.BLAStride / 2
	}
	return orbit, table
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
// shader: fp64, a pixel spacing within float64's exponent range (the shader has no extended
// exponent yet), and tables that fit maxPages buffer textures.
func (g *GL) perturbFits(f fractal.Frame) error {
	if f.Precision() == fractal.PerturbationExp {
		return errors.New("extended exponent")
	}
	if !g.fp64 {
		return fmt.Errorf("%s has no native fp64", g.renderer)
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
	o, t := tableTexels(f.Ref, f.BLA())
	if _, pages, ok := pagePlan(o, t, g.texBufferLimit()); !ok {
		return fmt.Errorf("the reference orbit and BLA table (%d and %d texels) need %d texture buffers of at most %d texels, more than %d",
			o, t, pages, g.texBufferLimit(), maxPages)
	}
	return nil
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

// ensureTables runs on the GL thread: uploads ref's orbit and bla's table unless they are the
// ones uploaded last (an export's tiles and strips share one upload), and binds their pages to
// their texture units.
func (g *GL) ensureTables(ref *fractal.Reference, bla *fractal.BLA) (*deepTables, error) {
	limit := g.texBufferLimit()
	t := g.tables
	if t == nil || t.ref != ref || t.bla != bla || t.limit != limit {
		g.deleteTables()
		o, n := tableTexels(ref, bla)
		shift, pages, ok := pagePlan(o, n, limit)
		if !ok {
			return nil, fmt.Errorf("perturbation tables of %d and %d texels do not fit %d texture buffers of %d texels", o, n, maxPages, limit)
		}
		t = &deepTables{ref: ref, bla: bla, limit: limit, shift: shift, pages: pages}
		g.tables = t // deleteTables frees what is made below, even on failure
		t.bufs = make([]uint32, 2*pages)
		t.texs = make([]uint32, 2*pages)
		gl.GenBuffers(int32(len(t.bufs)), &t.bufs[0])
		gl.GenTextures(int32(len(t.texs)), &t.texs[0])
		// Two float64s per texel, each as its bytes on a little-endian host: the low word
		// first, as packDouble2x32 reads them.
		orbit := ref.OrbitFloats()
		var flat []float64
		if bla != nil {
			flat = bla.Flat()
		}
		for i, data := range [][]float64{orbit, flat} {
			for p := range pages {
				lo := min(2*(p<<shift), len(data))
				hi := min(2*((p+1)<<shift), len(data))
				k := i*pages + p
				gl.BindBuffer(gl.TEXTURE_BUFFER, t.bufs[k])
				if hi > lo {
					gl.BufferData(gl.TEXTURE_BUFFER, 8*(hi-lo), gl.Ptr(&data[lo]), gl.STATIC_DRAW)
				} else {
					gl.BufferData(gl.TEXTURE_BUFFER, 16, nil, gl.STATIC_DRAW) // an empty page
				}
				t.bytes += 8 * (hi - lo)
				gl.BindTexture(gl.TEXTURE_BUFFER, t.texs[k])
				gl.TexBuffer(gl.TEXTURE_BUFFER, gl.RGBA32UI, t.bufs[k])
			}
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
	gl.ActiveTexture(gl.TEXTURE0)
	return t, nil
}

// setTables loads the tables' shape into a perturbation program (the program must be in use).
func (p *program) setTables(t *deepTables) {
	gl.Uniform1i(p.loc["uPageShift"], int32(t.shift))
	gl.Uniform1i(p.loc["uLast"], int32(len(t.ref.Z)-1))
	var off [32]int32
	levels, steps := 0, 0
	if t.bla != nil {
		levels, steps = t.bla.Levels(), t.bla.Steps()
		for l := range min(levels, len(off)) {
			off[l] = int32(t.bla.Offset(l))
		}
	}
	gl.Uniform1i(p.loc["uBLALevels"], int32(levels))
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
// stage (stageSingle or stageIterate), with SHADE and DERIV or without, compiling it on first
// use.
func (g *GL) perturbProgram(pages int, stage string, shade, deriv bool) (*program, error) {
	return g.lazyProgram(progKey{shaders.Perturb, pages, stage, shade, deriv})
}

// progKey names a program compiled on first use: a perturbation program, or a variant of
// mandel.frag with SHADE (shade) or DERIV (deriv).
type progKey struct {
	v     shaders.Variant
	pages int
	stage string
	shade bool
	deriv bool
}
