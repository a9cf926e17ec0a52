// Package cpu is Mandelscope's pure-Go renderer: the reference for the rendering contract and
// the fallback when no OpenGL context can be had. It imports no OpenGL. Rows are shared out
// to one goroutine per core; every pixel is computed from its global index in the frame, so a
// tile is pixel-identical to the same pixels of a one-piece render. Deep (Perturbation)
// frames are drawn by fractal.PerturbEscape from the frame's one reference orbit and its
// shared BLA table, the same path as fractal.Frame.Escape; frames past float64's exponent
// range (PerturbationExp) by fractal.PerturbEscapeExpBatch and PerturbEscapeDEExpBatch
// (PerturbEscapeExp's and PerturbEscapeDEExp's results, on the vector loops where they run). Like every
// renderer it works in two stages: Compute gives each pixel's samples (colour.Sample: the
// smooth escape count and the derivative), and Render colours them (colour.Colourer) row by
// row as they are computed.
package cpu

import (
	"context"
	"fmt"
	"image"
	"runtime"
	"sync"
	"sync/atomic"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// Renderer renders frames on the CPU. Its zero value uses every core.
type Renderer struct {
	// Workers is the number of goroutines; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// References is where Render gets the reference orbit of a Perturbation frame that has
	// none (Frame.WithReference); nil means fractal.DefaultReferences.
	References *fractal.ReferenceCache
}

// Name describes the renderer for status lines and benchmarks.
func (r *Renderer) Name() string { return fmt.Sprintf("CPU (pure Go, %d threads)", r.workers()) }

// MaxTile is the largest tile edge the renderer accepts: the CPU has no framebuffer limit.
func (r *Renderer) MaxTile() int { return 1 << 16 }

// Close releases nothing; it is there to satisfy the renderer interfaces.
func (r *Renderer) Close() error { return nil }

func (r *Renderer) workers() int {
	if r.Workers > 0 {
		return r.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Render draws the pixels rect (in f's global pixel coordinates) of frame f into dst, whose
// top-left pixel receives rect.Min. dst must be at least rect's size. It computes each row's
// samples (Compute) and colours them (colour.Colourer) as it goes, holding one row of samples
// per worker (a band of blockSize rows for a Perturbation frame). Cancelling ctx stops it
// after the rows in progress, with ctx's error; dst is then partly drawn.
func (r *Renderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if rect.Empty() {
		return nil
	}
	if dst.Bounds().Dx() < rect.Dx() || dst.Bounds().Dy() < rect.Dy() {
		return fmt.Errorf("cpu render: destination %v is smaller than tile %v", dst.Bounds().Size(), rect.Size())
	}
	k, err := colour.NewColourer(f.Loc.Color)
	if err != nil {
		return err
	}
	return r.rows(ctx, f, rect, func() func(y int, row []colour.Sample) {
		return func(y int, row []colour.Sample) {
			o := dst.PixOffset(dst.Bounds().Min.X, dst.Bounds().Min.Y+y-rect.Min.Y)
			k.Row(dst.Pix[o:o+4*len(row)], row)
		}
	})
}

// Compute computes the samples of the pixels rect of frame f into dst (the compute stage
// alone: no colouring), whose top-left sample receives rect.Min; dst must be at least rect's
// size. The derivative is computed where f.NeedsDerivative. Cancelling ctx stops it after the
// rows in progress, with ctx's error.
func (r *Renderer) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	if rect.Empty() {
		return nil
	}
	if dst.Rect.Dx() < rect.Dx() || dst.Rect.Dy() < rect.Dy() {
		return fmt.Errorf("cpu compute: destination %v is smaller than tile %v", dst.Rect.Size(), rect.Size())
	}
	if err := f.Loc.Color.Validate(); err != nil {
		return err
	}
	return r.rows(ctx, f, rect, func() func(y int, row []colour.Sample) {
		return func(y int, row []colour.Sample) {
			copy(dst.Row(dst.Rect.Min.Y+y-rect.Min.Y), row)
		}
	})
}

// rows computes the rows of rect on every worker, each into a row of samples of its own (or a
// band of them: perturbBand), and hands every finished row (y in f's pixels) to its worker's
// sink (made once per worker).
func (r *Renderer) rows(ctx context.Context, f fractal.Frame, rect image.Rectangle, sink func() func(y int, row []colour.Sample)) error {
	var err error
	if f.Precision().Perturbs() && f.Ref == nil {
		// One reference orbit per frame: from the cache when one is in reach, so that the
		// tiles and strips of one image (and the frames of a pan) share it.
		if f, err = f.WithReference(ctx, r.References, nil); err != nil {
			return err
		}
	}
	var bla *fractal.BLA
	var blaExp *fractal.BLAExp
	if f.Ref != nil && f.Loc.Formula.IsMandelbrot() {
		// Built once per reference and frame size, shared by every row.
		if f.Precision() == fractal.PerturbationExp {
			blaExp = f.BLAExp()
		} else {
			bla = f.BLA()
		}
	}
	// A Perturbation frame's rows go in bands of blockSize, computed together (perturbBand),
	// or fewer where rect has too few rows to give every worker a band (the window's full
	// frames come in bands of four rows), and so do a PerturbationExp frame's; the others row
	// by row.
	band := 1
	if bandBatch(f) {
		band = max(1, min(blockSize, rect.Dy()/r.workers()))
	}
	var next atomic.Int64
	next.Store(int64(rect.Min.Y))
	var wg sync.WaitGroup
	for range r.workers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			put := sink()
			rows := make([][]colour.Sample, band)
			for i := range rows {
				rows[i] = make([]colour.Sample, rect.Dx())
			}
			for {
				y := int(next.Add(int64(band)) - int64(band))
				if y >= rect.Max.Y || ctx.Err() != nil {
					return
				}
				rows := rows[:min(band, rect.Max.Y-y)]
				if band > 1 {
					perturbBand(ctx, f, bla, blaExp, y, rect.Min.X, rect.Max.X, rows)
				} else {
					computeRow(ctx, f, bla, blaExp, y, rect.Min.X, rect.Max.X, rows[0])
				}
				if f.NeedsInterior() {
					for i, row := range rows {
						f.InteriorRow(y+i, rect.Min.X, row, ctx.Done())
					}
				}
				if ctx.Err() != nil {
					return // a row cut short is not handed on
				}
				for i, row := range rows {
					put(y+i, row)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// computeRow computes the samples of pixels x0..x1-1 of row y into out, by perturbation when
// f has a reference (and then with bla, or for a PerturbationExp frame with extended
// exponents and blaExp), as Frame.Pixel does: with the derivative where f.NeedsDerivative.
// At high iteration counts a single row can take seconds, so it then checks ctx before every
// pixel.
func computeRow(ctx context.Context, f fractal.Frame, bla *fractal.BLA, blaExp *fractal.BLAExp, y, x0, x1 int, out []colour.Sample) {
	prec := f.Precision()
	f32 := prec == fractal.Float32
	perturb := prec == fractal.Perturbation && f.Ref != nil
	perturbExp := prec == fractal.PerturbationExp && f.Ref != nil
	it := f.Loc.Iterations
	deriv := f.NeedsDerivative()
	s32 := float32(f.Spacing)
	julia := f.Loc.Julia.On && !perturbExp
	if !f.Loc.Formula.IsMandelbrot() {
		// Another formula: without the derivative by perturbation, in a batch on the
		// vector loops (perturbBand, fractal.PerturbEscapeFormulaBatch); else its own loops,
		// pixel by pixel (fractal.Frame.Pixel), with its BLA table (built once per reference
		// and bound, shared by every row) and, where the colouring reads it, its Jacobian.
		if formulaBatch(f) {
			perturbBand(ctx, f, bla, blaExp, y, x0, x1, [][]colour.Sample{out})
			return
		}
		var fb *fractal.FormulaBLA
		var fbx *fractal.FormulaBLAExp
		if perturb {
			fb = f.FormulaBLA()
		} else if perturbExp {
			fbx = f.FormulaBLAExp()
		}
		for x := x0; x < x1; x++ {
			if (it >= 1<<16 || perturb || perturbExp) && ctx.Err() != nil {
				return
			}
			var r fractal.Result
			switch {
			case perturbExp && deriv:
				dr, di := f.DeltaExp(x, y)
				r = f.ScreenNormal(fractal.PerturbEscapeFormulaDEExp(f.Ref, fbx, dr, di, it, f.PixelSpacing(), ctx.Done()))
			case perturbExp:
				dr, di := f.DeltaExp(x, y)
				r.N, r.Nu = fractal.PerturbEscapeFormulaExp(f.Ref, fbx, dr, di, it, ctx.Done())
			case perturb && deriv:
				dr, di := f.Delta(x, y)
				r = f.ScreenNormal(fractal.PerturbEscapeFormulaDE(f.Ref, fb, dr, di, it, f.Spacing, ctx.Done()))
			case perturb:
				dr, di := f.Delta(x, y)
				r.N, r.Nu = fractal.PerturbEscapeFormula(f.Ref, fb, dr, di, it, ctx.Done())
			default:
				r = f.Pixel(x, y) // its normal already the screen's
			}
			out[x-x0] = r.Sample()
		}
		return
	}
	if f.OrbitPath() && (perturb || perturbExp) {
		// Another escape radius or the orbit channels by perturbation: in a batch
		// (fractal.PerturbChannelsBatch, PerturbChannelsExpBatch past 1e308), on the vector
		// loops where there are some.
		perturbBand(ctx, f, bla, blaExp, y, x0, x1, [][]colour.Sample{out})
		return
	}
	if f.OrbitPath() {
		// Another escape radius or the orbit channels: the scalar loops of fractal's
		// orbit.go, pixel by pixel (see fractal.Frame.OrbitPath).
		for x := x0; x < x1; x++ {
			if (it >= 1<<16 || perturb || perturbExp) && ctx.Err() != nil {
				return
			}
			out[x-x0] = f.PixelChannels(x, y).Sample()
		}
		return
	}
	if perturb || perturbExp {
		perturbBand(ctx, f, bla, blaExp, y, x0, x1, [][]colour.Sample{out})
		return
	}
	for x := x0; x < x1; x++ {
		if it >= 1<<16 && ctx.Err() != nil {
			return
		}
		var r fractal.Result
		switch {
		case julia:
			r = f.Pixel(x, y) // a Julia view's shallow pixel: the same functions (the screen's normal)
		case deriv && f32:
			re, im := f.Point32(x, y)
			r = f.ScreenNormal(fractal.EscapeDE32(re, im, it, s32))
		case deriv:
			re, im := f.Point64(x, y)
			r = f.ScreenNormal(fractal.EscapeDE64(re, im, it, f.Spacing))
		case f32:
			re, im := f.Point32(x, y)
			r.N, r.Nu = fractal.Escape32(re, im, it)
		default:
			re, im := f.Point64(x, y)
			r.N, r.Nu = fractal.Escape64(re, im, it)
		}
		out[x-x0] = r.Sample()
	}
}

// blockSize is the side of the square blocks of pixels perturbBand hands over together: a
// vector loop's lanes (16 on AVX-512) then hold pixels closer together than a row's run of
// 16, which follow the reference and the BLA table in step more often (fractal's
// BenchmarkBatchOrder).
const blockSize = 4

// expBatch reports whether f's rows go to fractal.PerturbEscapeExpBatch or
// PerturbEscapeDEExpBatch (perturbBand): a PerturbationExp frame.
func expBatch(f fractal.Frame) bool { return f.Precision() == fractal.PerturbationExp }

// bandBatch reports whether f's rows go in bands to perturbBand: a Perturbation frame of
// the Mandelbrot set with its reference (on the orbit path too: fractal.PerturbChannelsBatch),
// or a PerturbationExp frame (on the orbit path: fractal.PerturbChannelsExpBatch); of
// another formula, formulaBatch's frames.
func bandBatch(f fractal.Frame) bool {
	if f.Ref == nil {
		return false
	}
	if !f.Loc.Formula.IsMandelbrot() {
		return formulaBatch(f)
	}
	return f.Precision() == fractal.Perturbation || expBatch(f)
}

// formulaBatch reports whether f's rows go to fractal.PerturbEscapeFormulaBatch (perturbBand):
// a Perturbation frame of a formula other than the Mandelbrot set's, with its reference,
// whose colouring needs no derivative.
func formulaBatch(f fractal.Frame) bool {
	return f.Ref != nil && !f.Loc.Formula.IsMandelbrot() && f.Precision() == fractal.Perturbation && !f.NeedsDerivative()
}

// perturbBand computes the samples of pixels x0..x1-1 of rows y, y+1, ... of a Perturbation
// frame into out (a row each, at most blockSize), as computeRow does: the band's pixels go
// to fractal.PerturbEscapeBatch (or PerturbEscapeDEBatch with the derivative; for a
// PerturbationExp frame PerturbEscapeExpBatch or PerturbEscapeDEExpBatch, with blaExp; for
// another formula's frame, PerturbEscapeFormulaBatch with its table) together, in blocks
// of blockSize x blockSize, left to right. The batch runs several pixels a vector register
// where the build and the CPU have a vector loop (fractal.VectorPath), with the same results
// as PerturbEscape (PerturbEscapeDE, PerturbEscapeExp, PerturbEscapeDEExp,
// PerturbEscapeFormula) pixel by pixel, in any order.
func perturbBand(ctx context.Context, f fractal.Frame, bla *fractal.BLA, blaExp *fractal.BLAExp, y, x0, x1 int, out [][]colour.Sample) {
	w, h := x1-x0, len(out)
	n := w * h
	// at[k] is the k-th pixel handed over, as its offset in the band (row-major).
	at := make([]int, 0, n)
	for bx := 0; bx < w; bx += blockSize {
		for dy := range h {
			for dx := bx; dx < min(bx+blockSize, w); dx++ {
				at = append(at, dy*w+dx)
			}
		}
	}
	if formulaBatch(f) {
		// Another formula: the escape counts only (formulaBatch), with its table.
		dcr, dci := make([]float64, n), make([]float64, n)
		for k, o := range at {
			dcr[k], dci[k] = f.Delta(x0+o%w, y+o/w)
		}
		nn, nu := make([]int, n), make([]float64, n)
		if !fractal.PerturbEscapeFormulaBatch(f.Ref, f.FormulaBLA(), dcr, dci, f.Loc.Iterations, ctx.Done(), nn, nu) {
			return // cancelled: rows drops the band
		}
		for k, o := range at {
			out[o/w][o%w] = fractal.Result{N: nn[k], Nu: nu[k]}.Sample()
		}
		return
	}
	if expBatch(f) {
		perturbBandExp(ctx, f, blaExp, y, x0, w, at, out)
		return
	}
	dcr, dci := make([]float64, n), make([]float64, n)
	for k, o := range at {
		dcr[k], dci[k] = f.Delta(x0+o%w, y+o/w)
	}
	if f.OrbitPath() {
		// The orbit channels (or another radius): Frame.PixelChannels's results.
		res := make([]fractal.OrbitResult, n)
		if !fractal.PerturbChannelsBatch(f.Loc, f.Ref, bla, dcr, dci, f.Spacing, f.NeedsDerivative(), ctx.Done(), res) {
			return // cancelled: rows drops the band
		}
		for k, o := range at {
			out[o/w][o%w] = res[k].Sample()
		}
		return
	}
	if f.NeedsDerivative() {
		res := make([]fractal.Result, n)
		if !fractal.PerturbEscapeDEBatch(f.Ref, bla, dcr, dci, f.Loc.Iterations, f.Spacing, ctx.Done(), res) {
			return // cancelled: rows drops the band
		}
		recheck := f.NeedsRecheck()
		for k, o := range at {
			if recheck {
				res[k] = f.RecheckResult(x0+o%w, y+o/w, res[k], ctx.Done())
			}
			out[o/w][o%w] = f.ScreenNormal(res[k]).Sample()
		}
		return
	}
	nn, nu := make([]int, n), make([]float64, n)
	if !fractal.PerturbEscapeBatch(f.Ref, bla, dcr, dci, f.Loc.Iterations, ctx.Done(), nn, nu) {
		return // cancelled: rows drops the band
	}
	recheck := f.NeedsRecheck()
	for k, o := range at {
		if recheck {
			// A far reference's long counts, checked as Frame.Escape checks them.
			nn[k], nu[k] = f.Recheck(x0+o%w, y+o/w, nn[k], nu[k], ctx.Done())
		}
		out[o/w][o%w] = fractal.Result{N: nn[k], Nu: nu[k]}.Sample()
	}
}

// perturbBandExp is perturbBand for a frame past float64's exponent range (expBatch): the
// pixels at offsets at in the band of width w from (x0, y), their deltas extended.
func perturbBandExp(ctx context.Context, f fractal.Frame, blaExp *fractal.BLAExp, y, x0, w int, at []int, out [][]colour.Sample) {
	n := len(at)
	dcr, dci := make([]fractal.Exp, n), make([]fractal.Exp, n)
	for k, o := range at {
		dcr[k], dci[k] = f.DeltaExp(x0+o%w, y+o/w)
	}
	if f.OrbitPath() {
		// The orbit channels (or another radius): Frame.PixelChannels's results.
		res := make([]fractal.OrbitResult, n)
		if !fractal.PerturbChannelsExpBatch(f.Loc, f.Ref, blaExp, dcr, dci, f.PixelSpacing(), f.NeedsDerivative(), ctx.Done(), res) {
			return // cancelled: rows drops the band
		}
		for k, o := range at {
			out[o/w][o%w] = res[k].Sample()
		}
		return
	}
	if f.NeedsDerivative() {
		res := make([]fractal.Result, n)
		if !fractal.PerturbEscapeDEExpBatch(f.Ref, blaExp, dcr, dci, f.Loc.Iterations, f.PixelSpacing(), ctx.Done(), res) {
			return // cancelled: rows drops the band
		}
		for k, o := range at {
			out[o/w][o%w] = f.ScreenNormal(res[k]).Sample()
		}
		return
	}
	nn, nu := make([]int, n), make([]float64, n)
	if !fractal.PerturbEscapeExpBatch(f.Ref, blaExp, dcr, dci, f.Loc.Iterations, ctx.Done(), nn, nu) {
		return // cancelled: rows drops the band
	}
	for k, o := range at {
		out[o/w][o%w] = fractal.Result{N: nn[k], Nu: nu[k]}.Sample()
	}
}
