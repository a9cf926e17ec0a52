package fractal

import (
	"fmt"
	"os"
	"strings"
)

// PerturbEscapeBatch is PerturbEscape for many pixels of one frame: n[i] and nu[i] get
// PerturbEscape(ref, bla, dcr[i], dci[i], maxIter, stop), bit for bit, whichever loop computes
// them. Built with GOEXPERIMENT=simd on amd64 it runs several pixels a vector register (see
// VectorPath), in groups of neighbouring pixels (dcr's order), which follow nearly the same
// path through the reference and the BLA table, so that the lanes go in step. A pixel that
// rebases leaves its group, which goes on without it, and starts again from the orbit's
// beginning in a later group with others that rebased (see lanePool); a lane left empty waits
// for its group's last pixel (refilled, it would hold the others back). Each lane iterates
// its own pixel with the same float64 operations in the same order as PerturbEscape (bit for
// bit as long as Go does not fuse the scalar loop's multiplies and adds: it does not on amd64
// below GOAMD64=v3, the default being v1). It returns false when stop closed first (the
// results are then meaningless).
func PerturbEscapeBatch(ref *Reference, bla *BLA, dcr, dci []float64, maxIter int, stop <-chan struct{}, n []int, nu []float64) bool {
	if len(dci) != len(dcr) || len(n) < len(dcr) || len(nu) < len(dcr) {
		panic(fmt.Sprintf("fractal: PerturbEscapeBatch with %d, %d deltas and %d, %d results", len(dcr), len(dci), len(n), len(nu)))
	}
	if vectorWidth > 0 && len(dcr) > 1 {
		return perturbBatchVector(vectorWidth, ref, bla, dcr, dci, maxIter, stop, n, nu)
	}
	for i := range dcr {
		n[i], nu[i] = PerturbEscape(ref, bla, dcr[i], dci[i], maxIter, stop)
		if n[i] < 0 && stopped(stop) {
			return false
		}
	}
	return true
}

// PerturbEscapeFormulaBatch is PerturbEscapeBatch for a formula's reference (Reference.Formula,
// not the Mandelbrot set's) and its table bla (Frame.FormulaBLA, or nil): n[i] and nu[i] get
// PerturbEscapeFormula(ref, bla, dcr[i], dci[i], maxIter, stop), bit for bit, on the vector
// loops where this build and CPU have them (perturbGroupFm16, ...: the formula's plain step and
// 2x2 matrix blocks in the Mandelbrot set's loop). It returns false when stop closed first.
func PerturbEscapeFormulaBatch(ref *Reference, bla *FormulaBLA, dcr, dci []float64, maxIter int, stop <-chan struct{}, n []int, nu []float64) bool {
	if len(dci) != len(dcr) || len(n) < len(dcr) || len(nu) < len(dcr) {
		panic(fmt.Sprintf("fractal: PerturbEscapeFormulaBatch with %d, %d deltas and %d, %d results", len(dcr), len(dci), len(n), len(nu)))
	}
	if vectorWidth > 0 && len(dcr) > 1 {
		return perturbBatchFormulaVector(vectorWidth, ref, bla, dcr, dci, maxIter, stop, n, nu)
	}
	for i := range dcr {
		n[i], nu[i] = PerturbEscapeFormula(ref, bla, dcr[i], dci[i], maxIter, stop)
		if n[i] < 0 && stopped(stop) {
			return false
		}
	}
	return true
}

// PerturbEscapeExpBatch is PerturbEscapeBatch for a PerturbationExp frame: n[i] and nu[i] get
// PerturbEscapeExp(ref, bla, dcr[i], dci[i], maxIter, stop), bit for bit. On a vector path
// (VectorPath) each pixel's first steps, while its delta is too tiny for float64, run in
// PerturbEscapeExp's loop, and the rest (its float64 steps, nearly all of them) in the vector
// loops, a pixel going back to that loop where its delta leaves float64 again. It returns
// false when stop closed first.
func PerturbEscapeExpBatch(ref *Reference, bla *BLAExp, dcr, dci []Exp, maxIter int, stop <-chan struct{}, n []int, nu []float64) bool {
	if len(dci) != len(dcr) || len(n) < len(dcr) || len(nu) < len(dcr) {
		panic(fmt.Sprintf("fractal: PerturbEscapeExpBatch with %d, %d deltas and %d, %d results", len(dcr), len(dci), len(n), len(nu)))
	}
	if vectorWidth > 0 && len(dcr) > 1 {
		return perturbBatchExpVector(vectorWidth, ref, bla, dcr, dci, maxIter, stop, n, nu)
	}
	for i := range dcr {
		n[i], nu[i] = PerturbEscapeExp(ref, bla, dcr[i], dci[i], maxIter, stop)
		if n[i] < 0 && stopped(stop) {
			return false
		}
	}
	return true
}

// PerturbEscapeDEExpBatch is PerturbEscapeExpBatch with the derivative: out[i] gets
// PerturbEscapeDEExp(ref, bla, dcr[i], dci[i], maxIter, spacing, stop), bit for bit, the
// float64 steps on the vector loops where they run. It returns false when stop closed first.
func PerturbEscapeDEExpBatch(ref *Reference, bla *BLAExp, dcr, dci []Exp, maxIter int, spacing Exp, stop <-chan struct{}, out []Result) bool {
	if len(dci) != len(dcr) || len(out) < len(dcr) {
		panic(fmt.Sprintf("fractal: PerturbEscapeDEExpBatch with %d, %d deltas and %d results", len(dcr), len(dci), len(out)))
	}
	if vectorWidth > 0 && len(dcr) > 1 {
		return perturbBatchDEExpVector(vectorWidth, ref, bla, dcr, dci, maxIter, spacing, stop, out)
	}
	for i := range dcr {
		out[i] = PerturbEscapeDEExp(ref, bla, dcr[i], dci[i], maxIter, spacing, stop)
		if out[i].N < 0 && stopped(stop) {
			return false
		}
	}
	return true
}

// PerturbEscapeDEBatch is PerturbEscapeBatch with the derivative: out[i] gets
// PerturbEscapeDE(ref, bla, dcr[i], dci[i], maxIter, spacing, stop), bit for bit, on the same
// loops. It returns false when stop closed first.
func PerturbEscapeDEBatch(ref *Reference, bla *BLA, dcr, dci []float64, maxIter int, spacing float64, stop <-chan struct{}, out []Result) bool {
	if len(dci) != len(dcr) || len(out) < len(dcr) {
		panic(fmt.Sprintf("fractal: PerturbEscapeDEBatch with %d, %d deltas and %d results", len(dcr), len(dci), len(out)))
	}
	if vectorWidth > 0 && len(dcr) > 1 {
		return perturbBatchDEVector(vectorWidth, ref, bla, dcr, dci, maxIter, spacing, stop, out)
	}
	for i := range dcr {
		out[i] = PerturbEscapeDE(ref, bla, dcr[i], dci[i], maxIter, spacing, stop)
		if out[i].N < 0 && stopped(stop) {
			return false
		}
	}
	return true
}

// The vector loops (perturb_vector*.go but perturb_vector.go, the dispatch) are written from
// one template, fractal/internal/vecgen/group.go.tmpl, by:
//
//go:generate go run ./internal/vecgen

// vectorWidth is the number of pixels a vector register holds in PerturbEscapeBatch: 8
// (AVX-512), 4 (AVX2) or 0 (the scalar loop).
var vectorWidth = chooseVectorWidth(os.Getenv("MANDELSCOPE_SIMD"))

// chooseVectorWidth is the widest vector loop this build and CPU have, narrowed by the
// setting (MANDELSCOPE_SIMD): "scalar" (or "off"), "avx2", "avx512"; anything else, or
// nothing, is the widest.
func chooseVectorWidth(setting string) int {
	w := hardwareVectorWidth()
	switch strings.ToLower(setting) {
	case "scalar", "off", "0":
		return 0
	case "avx2":
		return min(w, 4)
	}
	return w
}

// VectorPath names the loop PerturbEscapeBatch runs on: "AVX-512 (8 pixels a register)",
// "AVX2 (4 pixels a register)" or "scalar".
func VectorPath() string {
	switch vectorWidth {
	case 8:
		return "AVX-512 (8 pixels a register)"
	case 4:
		return "AVX2 (4 pixels a register)"
	}
	return "scalar"
}

// ForceVectorPath is for tests and benchmarks: it makes PerturbEscapeBatch run on the loop
// of the given width (8, 4, or 0 for the scalar loop) and returns a function that restores
// the previous choice; ok is false (and nothing changes) when this build or CPU lacks that
// loop. Not safe to call while batches run.
func ForceVectorPath(width int) (restore func(), ok bool) {
	if width != 0 && (width > hardwareVectorWidth() || width != 4 && width != 8) {
		return func() {}, false
	}
	old := vectorWidth
	vectorWidth = width
	return func() { vectorWidth = old }, true
}
