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
	ch := &chGroup{k: rec.k, bail2: rec.bail2, rec: rec}
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
	if z2 > ch.bail2 {
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
	if z2 > ch.bail2 {
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
