//go:build goexperiment.simd && amd64

package fractal

import (
	"math"
	mbits "math/bits"
	"simd/archsimd"
	"sync"
)

// hardwareVectorWidth is the widest vector loop this CPU runs: 8 pixels a register with
// AVX-512, 4 with AVX2, else 0.
func hardwareVectorWidth() int {
	switch {
	case archsimd.X86.AVX512():
		return 8
	case archsimd.X86.AVX2():
		return 4
	}
	return 0
}

// perturbBatchDEVector is PerturbEscapeDEBatch on the vector loop of width w (8 or 4), in
// groups as perturbBatchVector's: on AVX2 two vectors a group (perturbGroupDE8x4), one for the
// last few pixels; on AVX-512 one (perturbGroupDE8). Two AVX-512 vectors carrying d, w and m
// (perturbGroupDE16, built from the template for a while) won BenchmarkBatchOrder's
// .../4x4/de (kf1e50 7.6 against 8.4 cpu-us a pixel) but lost in the export and the window
// at the same view (1272x601 with the slopes colouring: 9.5-10.6 against 5.9 CPU-s), so one.
func perturbBatchDEVector(w int, ref *Reference, bla *BLA, dcr, dci []float64, maxIter int, spacing float64, stop <-chan struct{}, out []Result) bool {
	group2, group1 := perturbGroupDE8x4, perturbGroupDE4
	if w == 8 {
		group2, group1 = perturbGroupDE8, perturbGroupDE8
	}
	p := newLanePool(dcr, dci, true)
	defer p.release()
	for p.count > 0 {
		group := group2
		if p.count <= w {
			group = group1
		}
		if !group(ref, bla, p, maxIter, spacing, stop, out) {
			return false
		}
	}
	return true
}

// perturbBatchExpVector is PerturbEscapeExpBatch on the vector loop of width w (8 or 4): each
// pixel starts in perturbLoopExp, which takes it as far as its first float64 delta (past
// 1e308 its first steps are extended, most often one BLA block), and waits there in the pool
// with that state for the float64 loops' groups (perturbGroupExp16, ...), as
// perturbBatchVector's pixels do; a pixel whose delta leaves float64 again goes back to
// perturbLoopExp for the rest (laneExp, laneCheckExp).
func perturbBatchExpVector(w int, ref *Reference, bla *BLAExp, dcr, dci []Exp, maxIter int, stop <-chan struct{}, n []int, nu []float64) bool {
	group2, group1 := perturbGroupExp8x4, perturbGroupExp4
	if w == 8 {
		group2, group1 = perturbGroupExp16, perturbGroupExp8
	}
	k := len(dcr)
	dsr, dsi := make([]float64, k), make([]float64, k)
	p := newLanePool(dsr, dsi, false)
	defer p.release()
	p.x, p.ext = bla, true
	p.m, p.pr, p.pi, p.xdc = sized(p.m, k), sized(p.pr, k), sized(p.pi, k), sized(p.xdc, k)
	p.count = 0 // the pixels handed over, pushed in order
	for i := range k {
		st, dc, done, ni, nui := ref.startExp(dcr[i], dci[i])
		if done {
			n[i], nu[i] = ni, nui
			continue
		}
		dsr[i], dsi[i] = bla.scaledDC(dc)
		p.pr[i], p.pi[i] = dc.float64s()
		p.xdc[i] = dc
		if p.expOn(ref, i, &st, maxIter, stop, n, nu); n[i] < 0 && stopped(stop) {
			return false
		}
	}
	var f *BLA
	if bla != nil {
		f = bla.f64
	}
	for p.count > 0 {
		group := group2
		if p.count <= w {
			group = group1
		}
		if !group(ref, f, p, maxIter, stop, n, nu) {
			return false
		}
	}
	return true
}

// laneExp takes pixel id on in perturbLoopExp from the top of an iteration where a lane of an
// Exp vector loop held its float64 delta (dr, di) at index m with nlim (see perturbGroup8):
// its result goes to outN[id] and outNu[id], or, where its delta is in float64 again, its
// state to the back of the pool (expBack).
func laneExp(ref *Reference, p *lanePool, id int, dr, di, m, nlim float64, maxIter int, stop <-chan struct{}, outN []int, outNu []float64) {
	st := expState{dr: dr, di: di, m: int(m), n: maxIter - int(nlim) + int(m)}
	p.expOn(ref, id, &st, maxIter, stop, outN, outNu)
}

// expOn runs pixel id in perturbLoopExp from st until it ends (its result in outN[id] and
// outNu[id]) or its delta is in float64 again after a step at least, when it waits at the
// back of the pool with that state.
func (p *lanePool) expOn(ref *Reference, id int, st *expState, maxIter int, stop <-chan struct{}, outN []int, outNu []float64) {
	n, nu, _, handed := perturbLoopExp(ref, p.x, st, p.xdc[id], maxIter, stop, true)
	if !handed {
		outN[id], outNu[id] = n, nu
		return
	}
	p.push(id, st.dr, st.di, 0, 0, st.n)
	p.m[id] = st.m
}

// laneCheckExp is laneCheck for the Exp vector loops: perturbLoopExp's check of a float64
// delta (checkFloatExp), the smooth value with its plain dc (pr, pi); a pixel whose delta
// goes back to cx there is finished by perturbLoopExp (and m becomes +Inf).
func laneCheckExp(ref *Reference, p *lanePool, id int, dr, di, mf, nlim, pr, pi float64, maxIter int, stop <-chan struct{}, outN []int, outNu []float64) (float64, float64, float64, float64) {
	last, period, jEnd := ref.ends()
	n := maxIter - int(nlim) + int(mf)
	st := expState{dr: dr, di: di, m: int(mf), n: n}
	if zr, zi, escaped := ref.checkFloatExp(&st, last, period, jEnd, false); escaped {
		cr, ci := ref.smoothC(pr, pi)
		outN[id], outNu[id] = n, smooth(zr, zi, cr, ci, n)
		return 0, 0, math.Inf(1), nlim
	}
	switch {
	case st.exp:
		p.expOn(ref, id, &st, maxIter, stop, outN, outNu)
	case n >= maxIter:
		outN[id], outNu[id] = -1, 0
	default:
		return st.dr, st.di, float64(st.m), float64(maxIter - (n - st.m))
	}
	return 0, 0, math.Inf(1), nlim
}

// perturbBatchDEExpVector is perturbBatchExpVector with the derivative
// (PerturbEscapeDEExpBatch), on perturbGroupDEExp{4,8,8x4}: groups as perturbBatchDEVector's.
func perturbBatchDEExpVector(w int, ref *Reference, bla *BLAExp, dcr, dci []Exp, maxIter int, spacing Exp, stop <-chan struct{}, out []Result) bool {
	group2, group1 := perturbGroupDEExp8x4, perturbGroupDEExp4
	if w == 8 {
		group2, group1 = perturbGroupDEExp8, perturbGroupDEExp8
	}
	k := len(dcr)
	dsr, dsi := make([]float64, k), make([]float64, k)
	p := newLanePool(dsr, dsi, true)
	defer p.release()
	p.x, p.ext = bla, true
	p.m, p.pr, p.pi, p.xdc = sized(p.m, k), sized(p.pr, k), sized(p.pi, k), sized(p.xdc, k)
	p.count = 0 // the pixels handed over, pushed in order
	for i := range k {
		st, dc, ws, done, r := ref.startDEExp(dcr[i], dci[i], spacing)
		if done {
			out[i] = r
			continue
		}
		p.xws = ws // the same for every pixel: the spacing, 0 on a Julia reference
		p.sps, _ = bla.scaledDC(cxFromExp(ws, Exp{}))
		dsr[i], dsi[i] = bla.scaledDC(dc)
		p.pr[i], p.pi[i] = dc.float64s()
		p.xdc[i] = dc
		if p.expOnDE(ref, i, &st, maxIter, stop, out); out[i].N < 0 && stopped(stop) {
			return false
		}
	}
	var f *BLA
	if bla != nil {
		f = bla.f64
	}
	sp64 := p.xws.Float64()
	for p.count > 0 {
		group := group2
		if p.count <= w {
			group = group1
		}
		if !group(ref, f, p, maxIter, sp64, stop, out) {
			return false
		}
	}
	return true
}

// laneExpDE is laneExp with the derivative (wr, wi).
func laneExpDE(ref *Reference, p *lanePool, id int, dr, di, wr, wi, m, nlim float64, maxIter int, stop <-chan struct{}, out []Result) {
	st := expState{dr: dr, di: di, wr: wr, wi: wi, m: int(m), n: maxIter - int(nlim) + int(m)}
	p.expOnDE(ref, id, &st, maxIter, stop, out)
}

// expOnDE is expOn with the derivative, in perturbLoopDEExp: its result goes to out[id].
func (p *lanePool) expOnDE(ref *Reference, id int, st *expState, maxIter int, stop <-chan struct{}, out []Result) {
	r, handed := perturbLoopDEExp(ref, p.x, st, p.xdc[id], p.xws, maxIter, stop, true)
	if !handed {
		out[id] = r
		return
	}
	p.push(id, st.dr, st.di, st.wr, st.wi, st.n)
	p.m[id] = st.m
}

// laneCheckDEExp is laneCheckExp with the derivative (wr, wi): perturbLoopDEExp's check, its
// result in out[id].
func laneCheckDEExp(ref *Reference, p *lanePool, id int, dr, di, wr, wi, mf, nlim, pr, pi float64, maxIter int, stop <-chan struct{}, out []Result) (float64, float64, float64, float64) {
	last, period, jEnd := ref.ends()
	n := maxIter - int(nlim) + int(mf)
	st := expState{dr: dr, di: di, wr: wr, wi: wi, m: int(mf), n: n}
	if zr, zi, escaped := ref.checkFloatExp(&st, last, period, jEnd, true); escaped {
		cr, ci := ref.smoothC(pr, pi)
		out[id] = smoothDEExp(zr, zi, cr, ci, cxFrom(wr, wi), p.xws, n)
		return 0, 0, math.Inf(1), nlim
	}
	switch {
	case st.exp:
		p.expOnDE(ref, id, &st, maxIter, stop, out)
	case n >= maxIter:
		out[id] = Result{N: -1}
	default:
		return st.dr, st.di, float64(st.m), float64(maxIter - (n - st.m))
	}
	return 0, 0, math.Inf(1), nlim
}

// perturbBatchVector is PerturbEscapeBatch on the vector loop of width w (8 or 4): the
// batch's pixels wait in a pool (lanePool) for groups of 2w lanes (w for the last few),
// neighbours together, which follow nearly the same path (see perturbGroup8).
func perturbBatchVector(w int, ref *Reference, bla *BLA, dcr, dci []float64, maxIter int, stop <-chan struct{}, n []int, nu []float64) bool {
	// Two vectors a group (perturbGroup16, perturbGroup8x4), one for the last few pixels.
	group2, group1 := perturbGroup8x4, perturbGroup4
	if w == 8 {
		group2, group1 = perturbGroup16, perturbGroup8
	}
	p := newLanePool(dcr, dci, false)
	defer p.release()
	for p.count > 0 {
		group := group2
		if p.count <= w {
			group = group1
		}
		if !group(ref, bla, p, maxIter, stop, n, nu) {
			return false
		}
	}
	return true
}

// A lanePool is the pixels of a batch waiting for a lane of a vector loop: at first every
// pixel, in the batch's order (neighbours together), then each pixel that rebased, in the
// order they did, with its delta (and derivative) at index 0 and its count. A group takes
// its pixels from the front and runs until its last lane leaves it: a lane leaves when its
// pixel is done or rebases. Pixels that rebased start again from index 0 together, in a
// group of their own, and go in step as fresh pixels do; kept in their group, each would go
// back to 0 alone and catch the others up step by step (nine steps in ten of a lane that
// rebased would be a round of the vectors for it alone, or a scalar step).
type lanePool struct {
	dcr, dci []float64 // every pixel's delta c (a Julia pixel's z1 minus the reference point)
	q        []int     // the pixels waiting, a ring from head: a pixel waits at most once
	head     int
	count    int
	// A pixel that rebased: its delta, derivative (wr, wi only with the derivative) and
	// count n at index 0; n is 0 for a pixel not started.
	dr, di, wr, wi []float64
	n              []int
	de             bool // wr and wi are in use
	// For PerturbEscapeExpBatch (ext set; x the frame's table, nil for none): each pixel's
	// index m beside its delta and count (0 after a rebase), its dc in float64 for the plain
	// steps (pr, pi; dcr, dci hold it scaled for the blocks) and as perturbLoopExp takes it
	// (xdc).
	ext    bool
	x      *BLAExp
	xws    Exp     // with the derivative: the spacing perturbLoopDEExp adds to w (0: Julia)
	sps    float64 // and scaled for the blocks (see BLAExp.float64Table)
	m      []int
	pr, pi []float64
	xdc    []cx
}

// lanePools keeps lanePools for the next batches: their arrays, some 32 bytes a pixel of a
// band, would otherwise be most of a render's garbage (and its peak memory: 80 against 97 MB
// for a 1024x1024 export at 1e50).
var lanePools sync.Pool

// newLanePool is a pool of the batch's pixels dcr, dci, every one waiting; de makes room
// for the derivative. release gives it back.
func newLanePool(dcr, dci []float64, de bool) *lanePool {
	p, _ := lanePools.Get().(*lanePool)
	if p == nil {
		p = new(lanePool)
	}
	k := len(dcr)
	p.dcr, p.dci, p.head, p.count, p.de = dcr, dci, 0, k, de
	p.q, p.dr, p.di, p.n = sized(p.q, k), sized(p.dr, k), sized(p.di, k), sized(p.n, k)
	clear(p.n) // not started
	if de {
		p.wr, p.wi = sized(p.wr, k), sized(p.wi, k)
	}
	for i := range p.q {
		p.q[i] = i
	}
	return p
}

// release gives p back for another batch.
func (p *lanePool) release() {
	p.dcr, p.dci, p.x, p.ext = nil, nil, nil, false
	lanePools.Put(p)
}

// sized is s with length n, reallocated when its capacity is short.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// pop takes the pixel at the front, false when none waits.
func (p *lanePool) pop() (int, bool) {
	if p.count == 0 {
		return 0, false
	}
	id := p.q[p.head]
	p.head, p.count = (p.head+1)%len(p.q), p.count-1
	return id, true
}

// resume is what a lane takes up of pixel id, which rebased: its delta and derivative at index
// 0 (0 without the derivative), and its nlim (see perturbGroup8).
func (p *lanePool) resume(id, maxIter int) (dr, di, wr, wi, nlim float64) {
	if p.de {
		wr, wi = p.wr[id], p.wi[id]
	}
	return p.dr[id], p.di[id], wr, wi, float64(maxIter - p.n[id])
}

// push puts pixel id at the back, rebased to index 0 with delta (dr, di), derivative (wr,
// wi) and count n >= 1.
func (p *lanePool) push(id int, dr, di, wr, wi float64, n int) {
	p.q[(p.head+p.count)%len(p.q)] = id
	p.count++
	p.dr[id], p.di[id], p.n[id] = dr, di, n
	if p.ext {
		p.m[id] = 0
	}
	if p.de {
		p.wr[id], p.wi[id] = wr, wi
	}
}

// laneCheck is PerturbEscape's check after a step, for lane i of a vector loop whose compares
// found that the lane may have something to do: its pixel escaped (its results go to
// outN[i] and outNu[i], and m becomes +Inf: the lane is done), reached maxIter (likewise),
// rebases, or reached the reference's end; or nothing, after all. d is the lane's delta, z =
// Z_m + d, m its index, nlim = maxIter - (n - m) for its count n (all as float64), dc its
// pixel's delta c; it returns the lane's new d, m and nlim. An escaped pixel's smooth value is
// its reference's formula's (smoothFormula: smooth's operations for the Mandelbrot set), so
// the formula loops (perturbGroupFm8, ...) take this check too.
func laneCheck(ref *Reference, i int, dr, di, zr, zi, mf, nlim, dcr, dci float64, maxIter int, outN []int, outNu []float64) (float64, float64, float64, float64) {
	last, period, jEnd := ref.ends()
	m, n := int(mf), maxIter-int(nlim)+int(mf)
	z2 := zr*zr + zi*zi
	if z2 > esc4Lo && escapes(ref.Z[m], dr, di, z2, 4) {
		cr, ci := ref.smoothC(dcr, dci)
		outN[i], outNu[i] = n, smoothFormula(ref.formula, zr, zi, cr, ci, n)
		return 0, 0, math.Inf(1), nlim
	}
	if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
		dr, di = zr, zi
		m = 0
	} else if m == last {
		m -= period
	}
	if n >= maxIter {
		outN[i], outNu[i] = -1, 0
		return 0, 0, math.Inf(1), nlim
	}
	return dr, di, float64(m), float64(maxIter - (n - m))
}

// laneCheckDE is laneCheck for the loops with the derivative w: an escaped pixel's result
// (PerturbEscapeDE's) goes to out[i], one that reaches maxIter gets N = -1.
func laneCheckDE(ref *Reference, i int, dr, di, zr, zi, wr, wi, mf, nlim, dcr, dci float64, maxIter int, spacing float64, out []Result) (float64, float64, float64, float64) {
	last, period, jEnd := ref.ends()
	m, n := int(mf), maxIter-int(nlim)+int(mf)
	z2 := zr*zr + zi*zi
	if z2 > esc4Lo && escapes(ref.Z[m], dr, di, z2, 4) {
		cr, ci := ref.smoothC(dcr, dci)
		out[i] = smoothDE(zr, zi, cr, ci, wr, wi, spacing, n)
		return 0, 0, math.Inf(1), nlim
	}
	if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
		dr, di = zr, zi
		m = 0
	} else if m == last {
		m -= period
	}
	if n >= maxIter {
		out[i] = Result{N: -1}
		return 0, 0, math.Inf(1), nlim
	}
	return dr, di, float64(m), float64(maxIter - (n - m))
}

// laneMins is the least nlim and lim (see perturbGroup8) of the lanes in bits, maxIter for
// none: what a vector loop's uniform rounds test against after lanes changed.
func laneMins(nlim, lim []float64, bits uint64, maxIter int) (nlimMin, limMin int) {
	nlimMin, limMin = maxIter, maxIter
	for b := bits; b != 0; b &= b - 1 {
		i := mbits.TrailingZeros64(b)
		nlimMin, limMin = min(nlimMin, int(nlim[i])), min(limMin, int(lim[i]))
	}
	return nlimMin, limMin
}

// laneLim is a lane's lim at index m with nlim (see perturbGroup8): the least of nlim and the
// last index of the orbit m lies on (a Julia reference has two: see Reference).
func (ref *Reference) laneLim(m, nlim float64) float64 {
	if ref.jStart > 0 && m >= float64(ref.jStart) {
		return min(nlim, float64(len(ref.Z)-1))
	}
	return min(nlim, float64(ref.WLast()))
}

// laneStartJulia starts lane i of a vector loop on a Julia pixel whose z1 is the reference
// point plus (d0r, d0i), as perturbEscape does: it returns the lane's delta, index m, nlim and
// lim, or m = +Inf when the pixel is already done (escaped at z1, or maxIter 1), its result
// written to outN[i] and outNu[i] (the formula's smooth value, as laneCheck's).
func laneStartJulia(ref *Reference, i int, d0r, d0i float64, maxIter int, outN []int, outNu []float64) (dr, di, m, nlim, lim float64) {
	dr, di, mi, escaped, zr, zi := ref.juliaStart(d0r, d0i)
	switch {
	case escaped:
		outN[i], outNu[i] = 1, smoothFormula(ref.formula, zr, zi, ref.jcr, ref.jci, 1)
		return 0, 0, math.Inf(1), 0, 0
	case maxIter <= 1:
		outN[i], outNu[i] = -1, 0
		return 0, 0, math.Inf(1), 0, 0
	}
	nlim = float64(maxIter - (1 - mi))
	return dr, di, float64(mi), nlim, ref.laneLim(float64(mi), nlim)
}

// laneStartJuliaDE is laneStartJulia for the loops with the derivative (which starts at
// spacing: the caller sets it): a pixel done gets PerturbEscapeDE's result in out[i].
func laneStartJuliaDE(ref *Reference, i int, d0r, d0i float64, maxIter int, spacing float64, out []Result) (dr, di, m, nlim, lim float64) {
	dr, di, mi, escaped, zr, zi := ref.juliaStart(d0r, d0i)
	switch {
	case escaped:
		out[i] = smoothDE(zr, zi, ref.jcr, ref.jci, spacing, 0, 0, 1)
		return 0, 0, math.Inf(1), 0, 0
	case maxIter <= 1:
		out[i] = Result{N: -1}
		return 0, 0, math.Inf(1), 0, 0
	}
	nlim = float64(maxIter - (1 - mi))
	return dr, di, float64(mi), nlim, ref.laneLim(float64(mi), nlim)
}

// laneRoom is the least room for iterations (nlim - mi, see perturbGroup8) of the lanes in
// bits.
func laneRoom(nlim []float64, bits uint64, mi int) int {
	r := math.MaxInt
	for i, v := range nlim {
		if bits&(1<<i) != 0 {
			r = min(r, int(v)-mi)
		}
	}
	return r
}

// vtable is table for the vector loops, BLA.table's form: the entries, their index and the
// last step the table covers (from m = 1); all empty for a nil b.
func (b *FormulaBLA) vtable() (ent []fblaEntry, base []int32, end int) {
	if b == nil {
		return nil, nil, 0
	}
	return b.ent, b.base, b.steps
}

// perturbBatchFormulaVector is PerturbEscapeFormulaBatch on the vector loop of width w (8 or
// 4): groups as perturbBatchVector's, on perturbGroupFm16 and perturbGroupFm8 (AVX-512) or
// perturbGroupFm8x4 and perturbGroupFm4 (AVX2).
func perturbBatchFormulaVector(w int, ref *Reference, bla *FormulaBLA, dcr, dci []float64, maxIter int, stop <-chan struct{}, n []int, nu []float64) bool {
	group2, group1 := perturbGroupFm8x4, perturbGroupFm4
	if w == 8 {
		group2, group1 = perturbGroupFm16, perturbGroupFm8
	}
	p := newLanePool(dcr, dci, false)
	defer p.release()
	for p.count > 0 {
		group := group2
		if p.count <= w {
			group = group1
		}
		if !group(ref, bla, p, maxIter, stop, n, nu) {
			return false
		}
	}
	return true
}

// diffAbs8 is diffAbs(x, d) in each lane of d: the case of x's sign a branch (x is the
// reference's, the same for every lane), the case of x + d's a blend.
func diffAbs8(x float64, d archsimd.Float64x8) archsimd.Float64x8 {
	s, t := archsimd.BroadcastFloat64x8(x).Add(d), archsimd.BroadcastFloat64x8(2*x).Add(d)
	zero := archsimd.Float64x8{}
	if x >= 0 {
		return d.Merge(neg8(t), s.GreaterEqual(zero)) // d where x + d >= 0, else -(2x + d)
	}
	return t.Merge(neg8(d), s.Greater(zero)) // 2x + d where x + d > 0, else -d
}

// neg8 is -x in each lane (its sign flipped, as Go's unary minus).
func neg8(x archsimd.Float64x8) archsimd.Float64x8 {
	return x.AsUint64x8().Xor(archsimd.BroadcastUint64x8(1 << 63)).AsFloat64x8()
}

// diffAbs4 is diffAbs8 for four lanes.
func diffAbs4(x float64, d archsimd.Float64x4) archsimd.Float64x4 {
	s, t := archsimd.BroadcastFloat64x4(x).Add(d), archsimd.BroadcastFloat64x4(2*x).Add(d)
	zero := archsimd.Float64x4{}
	if x >= 0 {
		return d.Merge(neg4(t), s.GreaterEqual(zero))
	}
	return t.Merge(neg4(d), s.Greater(zero))
}

// neg4 is neg8 for four lanes.
func neg4(x archsimd.Float64x4) archsimd.Float64x4 {
	return x.AsUint64x4().Xor(archsimd.BroadcastUint64x4(1 << 63)).AsFloat64x4()
}

// keepRebase is the index at or below which a formula loop's lane that rebases stays in its
// group (at index 0, the group's lanes then spread: see spreadZ) instead of waiting in the
// pool for a group of its own: on the chaotic views (the Burning Ship's hull at 1e50) a pixel
// rebases every 7 iterations or so, and a group of lanes that each leave after a few steps
// spends its time starting and ending; a pixel that rebases after a long run of the
// reference waits for one as the Mandelbrot set's loop has it (BLA blocks in vectors).
const keepRebase = 128

// diffAbsV8 is diffAbs(x, d) lane by lane, x a vector too (the formula loops' spread steps:
// each lane its own reference value): both of diffAbs's cases blended by x's sign.
func diffAbsV8(x, d archsimd.Float64x8) archsimd.Float64x8 {
	zero := archsimd.Float64x8{}
	s, t := x.Add(d), archsimd.BroadcastFloat64x8(2).Mul(x).Add(d)
	pos := d.Merge(neg8(t), s.GreaterEqual(zero)) // x >= 0: d where x + d >= 0, else -(2x + d)
	negx := t.Merge(neg8(d), s.Greater(zero))     // x < 0: 2x + d where x + d > 0, else -d
	return pos.Merge(negx, x.GreaterEqual(zero))
}

// abs8 is |x| in each lane (its sign cleared, as math.Abs).
func abs8(x archsimd.Float64x8) archsimd.Float64x8 {
	return x.AsUint64x8().And(archsimd.BroadcastUint64x8(1<<63 - 1)).AsFloat64x8()
}

// diffAbsV4 is diffAbsV8 for four lanes.
func diffAbsV4(x, d archsimd.Float64x4) archsimd.Float64x4 {
	zero := archsimd.Float64x4{}
	s, t := x.Add(d), archsimd.BroadcastFloat64x4(2).Mul(x).Add(d)
	pos := d.Merge(neg4(t), s.GreaterEqual(zero))
	negx := t.Merge(neg4(d), s.Greater(zero))
	return pos.Merge(negx, x.GreaterEqual(zero))
}

// abs4 is abs8 for four lanes.
func abs4(x archsimd.Float64x4) archsimd.Float64x4 {
	return x.AsUint64x4().And(archsimd.BroadcastUint64x4(1<<63 - 1)).AsFloat64x4()
}

// spreadZ prepares a formula loop's round whose lanes (bits) step each from its own index m =
// im[i], and moves im on by a plain step: Z_m into zr0, zi0, Z_(m+1) into zr1, zi1 (the plain
// step's end), level 0's radius at m into rr (0 where no block starts: m = 0 or past the
// table) for the loop's test of which lanes take a block (spreadBlocks), 1 into spn.
func spreadZ(z []complex128, base []int32, rad []float64, tableEnd int, bits uint64, im []int32, zr0, zi0, zr1, zi1, rr, spn []float64) {
	for b := bits; b != 0; b &= b - 1 {
		i := mbits.TrailingZeros64(b) & 63
		m := int(im[i])
		zz := z[m : m+2]
		zr0[i], zi0[i], zr1[i], zi1[i], spn[i] = real(zz[0]), imag(zz[0]), real(zz[1]), imag(zz[1]), 1
		r := 0.0
		if m > 0 && m <= tableEnd {
			r = rad[base[m-1]]
		}
		rr[i] = r
		im[i] = int32(m + 1)
	}
}

// spreadBlocks takes the lanes in bits a BLA block each (they take one at their index: |Re d|
// + |Im d| below level 0's radius, spreadZ's rr), perturbFormulaLoop's: up the levels while
// the next is valid and its room allows, d <- A d + B dc in scalar (the new delta into bdr,
// bdi), Z at its end into zr1, zi1, its span into spn, im moved on by it (spreadZ moved it by 1).
func spreadBlocks(z []complex128, ent []fblaEntry, base []int32, maxIter int, bits uint64, im []int32, sdr, sdi, cr, ci, nlim, zr1, zi1, bdr, bdi, spn []float64) {
	for b := bits; b != 0; b &= b - 1 {
		i := mbits.TrailingZeros64(b) & 63
		m := int(im[i]) - 1
		dr, di := sdr[i], sdi[i]
		ad := math.Abs(dr) + math.Abs(di)
		at := ent[base[m-1]:base[m]]
		e, span := &at[0], 1
		n := maxIter - int(nlim[i]) + m
		for l := 1; l < len(at) && n+span*2 <= maxIter && ad < at[l].r; l++ {
			e, span = &at[l], span*2
		}
		bdr[i], bdi[i] = e.a11*dr+e.a12*di+e.b11*cr[i]+e.b12*ci[i], e.a21*dr+e.a22*di+e.b21*cr[i]+e.b22*ci[i]
		z1 := z[m+span]
		zr1[i], zi1[i], spn[i] = real(z1), imag(z1), float64(span)
		im[i] = int32(m + span)
	}
}

// lowerMins is nlimMin and limMin (see perturbGroup8) lowered to the nlim and lim of the
// lanes in bits, whose values went down: a bound below the least, which the loops' uniform
// rounds may take for the least (they then check a lane more often, never less).
func lowerMins(nlim, lim []float64, bits uint64, nlimMin, limMin int) (int, int) {
	for b := bits; b != 0; b &= b - 1 {
		i := mbits.TrailingZeros64(b)
		nlimMin, limMin = min(nlimMin, int(nlim[i])), min(limMin, int(lim[i]))
	}
	return nlimMin, limMin
}

// refillLanes gives the free lanes among a group's first n (those not in active) the pixels
// at the front of the pool, as the group's start does (on the Mandelbrot set's orbit: no
// Julia reference), and returns the lanes going: a formula loop's spread rounds (see
// spreadZ) step lanes at any index, so that a lane need not wait empty for its group's end.
func refillLanes(ref *Reference, p *lanePool, maxIter int, active uint64, n int, ids []int, cr, ci, sm, sdr, sdi, nlim, lim []float64) uint64 {
	last := len(ref.Z) - 1
	for i := 0; i < n && p.count > 0; i++ {
		if active&(1<<i) != 0 {
			continue
		}
		id, _ := p.pop()
		ids[i], cr[i], ci[i], sm[i] = id, p.dcr[id], p.dci[id], 0
		if p.n[id] > 0 {
			sdr[i], sdi[i], _, _, nlim[i] = p.resume(id, maxIter)
			lim[i] = ref.laneLim(0, nlim[i])
		} else {
			sdr[i], sdi[i], nlim[i], lim[i] = 0, 0, float64(maxIter), float64(min(maxIter, last))
		}
		active |= 1 << i
	}
	return active
}
