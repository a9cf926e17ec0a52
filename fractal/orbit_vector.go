//go:build goexperiment.simd && amd64

package fractal

import "math"

// chGroup is what the channel vector loops (perturbGroupCh8, perturbGroupDECh8x4, ...) keep
// beside a group's lanes for the orbit channels: the frame's radius, and for each lane a ring
// of the last K iterates it stepped to one by one, slot m mod K holding z = Z_m + d with its
// index m as the tag (NaN: none). Where a lane's index moves other than by its steps (a
// rebase to 0, a period back), its ring is turned with it, so that the tags stay the indices
// of the iterates on its present stretch of the reference; a pixel that rebases leaves its
// ring in the batch's (pr, pi, pt), where its next group finds it.
type chGroup struct {
	k          int
	bail2      float64
	bail2Lo    float64                           // bail2 escLo: the vector compare's threshold (see escapes)
	rr, ri, rt [MaxStripeLast * chStride]float64 // slot*chStride + lane
	// Each pixel's ring while it waits in the pool after a rebase: id*k + slot.
	pr, pi, pt []float64
	// The results beside the loops' own: T and STRIPE, and the pixels whose last K iterates
	// were not all stepped one by one (a block among them), for the scalar loop.
	t, stripe []float64
	again     []bool
	rec       *orbitRec
}

// chStride is the ring's row: a slot for each lane of the widest group (16 pixels), so that a
// group's one-vector loop writes its lanes where the group reads them.
const chStride = 16

func newChGroup(l Location, k int) *chGroup {
	rec := newOrbitRec(l)
	ch := &chGroup{k: rec.k, bail2: rec.bail2, bail2Lo: rec.bail2 * escLo, rec: rec}
	ch.pr, ch.pi, ch.pt = make([]float64, k*ch.k), make([]float64, k*ch.k), make([]float64, k*ch.k)
	ch.t, ch.stripe, ch.again = make([]float64, k), make([]float64, k), make([]bool, k)
	return ch
}

// load gives lane its pixel id's ring: the one it left in the pool where it rebased, else
// an empty one.
func (ch *chGroup) load(lane, id int, rebased bool) {
	for s := range ch.k {
		i := s*chStride + lane
		if rebased {
			j := id*ch.k + s
			ch.rr[i], ch.ri[i], ch.rt[i] = ch.pr[j], ch.pi[j], ch.pt[j]
		} else {
			ch.rt[i] = math.NaN()
		}
	}
}

// save leaves lane's ring in the pool for its pixel id, which rebased.
func (ch *chGroup) save(lane, id int) {
	for s := range ch.k {
		i, j := s*chStride+lane, id*ch.k+s
		ch.pr[j], ch.pi[j], ch.pt[j] = ch.rr[i], ch.ri[i], ch.rt[i]
	}
}

// move puts lane i's ring in lane j (the two-vector loops' packing).
func (ch *chGroup) move(i, j int) {
	for s := range ch.k {
		a, b := s*chStride+i, s*chStride+j
		ch.rr[b], ch.ri[b], ch.rt[b] = ch.rr[a], ch.ri[a], ch.rt[a]
	}
}

// turn moves lane's ring with its index, which went back by shift: each tag m becomes m -
// shift, in its slot.
func (ch *chGroup) turn(lane, shift int) {
	var zr, zi, zt [MaxStripeLast]float64
	for s := range ch.k {
		i := s*chStride + lane
		zr[s], zi[s], zt[s] = ch.rr[i], ch.ri[i], ch.rt[i]
		ch.rt[i] = math.NaN()
	}
	for s := range ch.k {
		if math.IsNaN(zt[s]) {
			continue
		}
		m := int(zt[s]) - shift
		i := ((m%ch.k)+ch.k)%ch.k*chStride + lane
		ch.rr[i], ch.ri[i], ch.rt[i] = zr[s], zi[s], float64(m)
	}
}

// finish is T and STRIPE of lane's pixel, which escaped at iteration n, index m, with z_n =
// (zr, zi): from its ring, as perturbOnceCh's orbitRec gives them; ok is false where one of
// its last K iterates is not there (reached by a block, or before a rebase whose ring was
// turned out of it).
func (ch *chGroup) finish(lane, n, m int, zr, zi float64) (t, stripe float64, ok bool) {
	off := n - m
	r := ch.rec
	r.reset()
	for k := max(1, n-ch.k+1); k <= n; k++ {
		mk := k - off
		i := ((mk%ch.k)+ch.k)%ch.k*chStride + lane
		if ch.rt[i] != float64(mk) {
			return 0, 0, false
		}
		r.put(k, ch.rr[i], ch.ri[i])
	}
	return Turn(zr, zi), r.stripe(n), true
}

// laneCheck is laneCheck (see there) for the channel loops: the escape past ch's radius,
// with the pixel's T and STRIPE (or its pixel marked for the scalar loop: chGroup.finish), and
// the lane's ring turned where its index moves back (saved for the pool on a rebase).
func (ch *chGroup) laneCheck(ref *Reference, lane, id int, dr, di, zr, zi, mf, nlim, dcr, dci float64, maxIter int, outN []int, outNu []float64) (float64, float64, float64, float64) {
	last, period, jEnd := ref.ends()
	m, n := int(mf), maxIter-int(nlim)+int(mf)
	z2 := zr*zr + zi*zi
	if z2 > ch.bail2Lo && escapes(ref.Z[m], dr, di, z2, ch.bail2) {
		if t, s, ok := ch.finish(lane, n, m, zr, zi); ok {
			cr, ci := ref.smoothC(dcr, dci)
			outN[id], outNu[id] = n, smooth(zr, zi, cr, ci, n)
			ch.t[id], ch.stripe[id] = t, s
		} else {
			ch.again[id] = true
		}
		return 0, 0, math.Inf(1), nlim
	}
	m0 := m
	if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
		dr, di = zr, zi
		m = 0
	} else if m == last {
		m -= period
	}
	if n >= maxIter {
		outN[id], outNu[id] = -1, 0
		return 0, 0, math.Inf(1), nlim
	}
	ch.moved(lane, id, m0, m)
	return dr, di, float64(m), float64(maxIter - (n - m))
}

// laneCheckDE is chGroup.laneCheck with the derivative (laneCheckDE's result, finishCh's).
func (ch *chGroup) laneCheckDE(ref *Reference, lane, id int, dr, di, zr, zi, wr, wi, mf, nlim, dcr, dci float64, maxIter int, spacing float64, out []Result) (float64, float64, float64, float64) {
	last, period, jEnd := ref.ends()
	m, n := int(mf), maxIter-int(nlim)+int(mf)
	z2 := zr*zr + zi*zi
	if z2 > ch.bail2Lo && escapes(ref.Z[m], dr, di, z2, ch.bail2) {
		if t, s, ok := ch.finish(lane, n, m, zr, zi); ok {
			cr, ci := ref.smoothC(dcr, dci)
			out[id] = smoothDE(zr, zi, cr, ci, wr, wi, spacing, n)
			ch.t[id], ch.stripe[id] = t, s
		} else {
			ch.again[id] = true
		}
		return 0, 0, math.Inf(1), nlim
	}
	m0 := m
	if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
		dr, di = zr, zi
		m = 0
	} else if m == last {
		m -= period
	}
	if n >= maxIter {
		out[id] = Result{N: -1}
		return 0, 0, math.Inf(1), nlim
	}
	ch.moved(lane, id, m0, m)
	return dr, di, float64(m), float64(maxIter - (n - m))
}

// moved turns lane's ring where its index went from m0 to m other than by a step, and
// leaves it for the pool where that is a rebase (m = 0: the loop pushes the pixel).
func (ch *chGroup) moved(lane, id, m0, m int) {
	if m == m0 {
		return
	}
	ch.turn(lane, m0-m)
	if m == 0 {
		ch.save(lane, id)
	}
}

// perturbChannelsVector is PerturbChannelsBatch on the channel vector loops of width w (8 or
// 4), in groups as perturbBatchVector's (perturbBatchDEVector's with the derivative), for a
// Mandelbrot reference (jStart 0); the pixels whose channels the loops cannot give (a block
// among their last K iterates) then go to perturbCh, which rolls the blocks back: again is
// how many.
func perturbChannelsVector(w int, l Location, ref *Reference, bla *BLA, dcr, dci []float64, spacing float64, de bool, stop <-chan struct{}, out []OrbitResult) (done bool, again int) {
	k := len(dcr)
	maxIter := l.Iterations
	ch := newChGroup(l, k)
	p := newLanePool(dcr, dci, de)
	defer p.release()
	if de {
		group2, group1 := perturbGroupDECh8x4, perturbGroupDECh4
		if w == 8 {
			group2, group1 = perturbGroupDECh8, perturbGroupDECh8
		}
		res := make([]Result, k)
		for p.count > 0 {
			group := group2
			if p.count <= w {
				group = group1
			}
			if !group(ref, bla, p, maxIter, spacing, stop, res, ch) {
				return false, 0
			}
		}
		for i := range k {
			out[i] = OrbitResult{Result: res[i], T: ch.t[i], Stripe: ch.stripe[i]}
		}
	} else {
		group2, group1 := perturbGroupCh8x4, perturbGroupCh4
		if w == 8 {
			group2, group1 = perturbGroupCh16, perturbGroupCh8
		}
		n, nu := make([]int, k), make([]float64, k)
		for p.count > 0 {
			group := group2
			if p.count <= w {
				group = group1
			}
			if !group(ref, bla, p, maxIter, stop, n, nu, ch) {
				return false, 0
			}
		}
		for i := range k {
			out[i] = OrbitResult{Result: Result{N: n[i], Nu: nu[i]}, T: ch.t[i], Stripe: ch.stripe[i]}
		}
	}
	for i := range k {
		if ch.again[i] {
			again++
			out[i] = perturbCh(newOrbitRec(l), ref, bla, dcr[i], dci[i], maxIter, spacing, stop)
			if !de {
				out[i].DE, out[i].Ur, out[i].Ui = 0, 0, 0
			}
			if out[i].N < 0 && stopped(stop) {
				return false, again
			}
		}
	}
	return true, again
}

// toRec puts lane's ring into ch.rec (emptied first) as perturbLoopChExp keeps it, by
// iteration: the lane is at index m after n iterations, so the iterate tagged mk is z_{mk +
// n - m}; only the last K up to n are looked at.
func (ch *chGroup) toRec(lane, n, m int) {
	r := ch.rec
	r.reset()
	off := n - m
	for k := max(1, n-ch.k+1); k <= n; k++ {
		mk := k - off
		i := ((mk%ch.k)+ch.k)%ch.k*chStride + lane
		if ch.rt[i] == float64(mk) {
			r.put(k, ch.rr[i], ch.ri[i])
		}
	}
}

// fromRec leaves ch.rec in the pool as pixel id's ring, the pixel at index m after n
// iterations (toRec's inverse: iterate k tagged k - (n - m)).
func (ch *chGroup) fromRec(id, n, m int) {
	r := ch.rec
	for s := range ch.k {
		ch.pt[id*ch.k+s] = math.NaN()
	}
	off := n - m
	for k := max(1, n-ch.k+1); k <= n; k++ {
		if r.at[k%r.k] != k {
			continue
		}
		mk := k - off
		j := id*ch.k + ((mk%ch.k)+ch.k)%ch.k
		ch.pr[j], ch.pi[j], ch.pt[j] = r.zr[k%r.k], r.zi[k%r.k], float64(mk)
	}
}

// expOn is lanePool.expOnDE for the channel loops: pixel id goes on in perturbLoopChExp from
// st with the iterates in ch.rec; its result (with T and STRIPE, or again) where it ends
// there, else back to the pool with its ring (fromRec).
func (ch *chGroup) expOn(ref *Reference, p *lanePool, id int, st *expState, maxIter int, stop <-chan struct{}, out []Result) {
	r, again, handed := perturbLoopChExp(ref, p.x, st, p.xdc[id], p.xws, maxIter, stop, ch.rec, maxIter, true)
	if !handed {
		out[id] = r.Result
		ch.t[id], ch.stripe[id], ch.again[id] = r.T, r.Stripe, again
		return
	}
	p.push(id, st.dr, st.di, st.wr, st.wi, st.n)
	p.m[id] = st.m
	ch.fromRec(id, st.n, st.m)
}

// laneExpDE is laneExpDE (see there) for the channel loops: lane's pixel, whose delta or
// derivative leaves float64 at index m, goes to perturbLoopChExp with its ring.
func (ch *chGroup) laneExpDE(ref *Reference, p *lanePool, lane, id int, dr, di, wr, wi, m, nlim float64, maxIter int, stop <-chan struct{}, out []Result) {
	n := maxIter - int(nlim) + int(m)
	ch.toRec(lane, n, int(m))
	st := expState{dr: dr, di: di, wr: wr, wi: wi, m: int(m), n: n}
	ch.expOn(ref, p, id, &st, maxIter, stop, out)
}

// laneCheckDEExp is laneCheckDEExp (see there) for the channel loops: perturbLoopChExp's
// check, the escape past ch's radius with T and STRIPE (chGroup.finish), the lane's ring
// turned where its index moves back, or handed to perturbLoopChExp where its delta leaves
// float64.
func (ch *chGroup) laneCheckDEExp(ref *Reference, p *lanePool, lane, id int, dr, di, wr, wi, mf, nlim, pr, pi float64, maxIter int, stop <-chan struct{}, out []Result) (float64, float64, float64, float64) {
	last, period, jEnd := ref.ends()
	m0 := int(mf)
	n := maxIter - int(nlim) + m0
	st := expState{dr: dr, di: di, wr: wr, wi: wi, m: m0, n: n}
	if zr, zi, escaped := ref.checkFloatExpR(&st, last, period, jEnd, true, ch.bail2); escaped {
		if t, s, ok := ch.finish(lane, n, m0, zr, zi); ok {
			cr, ci := ref.smoothC(pr, pi)
			out[id] = smoothDEExp(zr, zi, cr, ci, cxFrom(wr, wi), p.xws, n)
			ch.t[id], ch.stripe[id] = t, s
		} else {
			ch.again[id] = true
		}
		return 0, 0, math.Inf(1), nlim
	}
	switch {
	case st.exp:
		ch.toRec(lane, n, m0)
		ch.expOn(ref, p, id, &st, maxIter, stop, out)
	case n >= maxIter:
		out[id] = Result{N: -1}
	default:
		ch.moved(lane, id, m0, st.m)
		return st.dr, st.di, float64(st.m), float64(maxIter - (n - st.m))
	}
	return 0, 0, math.Inf(1), nlim
}

// perturbChannelsExpVector is PerturbChannelsExpBatch on the channel vector loops of width w
// (8 or 4) with the derivative, in groups as perturbBatchDEExpVector's; the pixels whose
// channels the loops cannot give (a block among their last K iterates) then go to
// perturbChExp, which rolls the blocks back: again is how many.
//
// The derivative is carried whether or not de asks for it: perturbLoopChExp carries it, and
// whether a step is in float64 or in cx depends on its size as well as the delta's, so a loop
// without it would round differently from the scalar one wherever the two disagree.
func perturbChannelsExpVector(w int, l Location, ref *Reference, bla *BLAExp, dcr, dci []Exp, spacing Exp, de bool, stop <-chan struct{}, out []OrbitResult) (done bool, again int) {
	group2, group1 := perturbGroupDEExpCh8x4, perturbGroupDEExpCh4
	if w == 8 {
		group2, group1 = perturbGroupDEExpCh8, perturbGroupDEExpCh8
	}
	k := len(dcr)
	maxIter := l.Iterations
	ch := newChGroup(l, k)
	dsr, dsi := make([]float64, k), make([]float64, k)
	p := newLanePool(dsr, dsi, true)
	defer p.release()
	p.x, p.ext = bla, true
	p.m, p.pr, p.pi, p.xdc = sized(p.m, k), sized(p.pr, k), sized(p.pi, k), sized(p.xdc, k)
	p.count = 0 // the pixels handed over, pushed in order
	res := make([]Result, k)
	for i := range k {
		ch.rec.reset()
		st, dc, ws, r, done := ref.startChExp(ch.rec, dcr[i], dci[i], spacing)
		if done {
			res[i], ch.t[i], ch.stripe[i] = r.Result, r.T, r.Stripe
			continue
		}
		p.xws = ws // the same for every pixel: the spacing
		p.sps, _ = bla.scaledDC(cxFromExp(ws, Exp{}))
		dsr[i], dsi[i] = bla.scaledDC(dc)
		p.pr[i], p.pi[i] = dc.float64s()
		p.xdc[i] = dc
		if ch.expOn(ref, p, i, &st, maxIter, stop, res); res[i].N < 0 && stopped(stop) {
			return false, 0
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
		if !group(ref, f, p, maxIter, sp64, stop, res, ch) {
			return false, 0
		}
	}
	for i := range k {
		r := OrbitResult{Result: res[i], T: ch.t[i], Stripe: ch.stripe[i]}
		if ch.again[i] {
			again++
			if r = perturbChExp(newOrbitRec(l), ref, bla, dcr[i], dci[i], maxIter, spacing, stop); r.N < 0 && stopped(stop) {
				return false, again
			}
		}
		if !de {
			r.DE, r.Ur, r.Ui = 0, 0, 0
		}
		out[i] = r
	}
	return true, again
}
