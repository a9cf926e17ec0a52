//go:build goexperiment.simd && amd64

package fractal

import (
	"math"
	"simd/archsimd"
)

// perturbGroup8 is PerturbEscapeBatch for up to eight pixels on AVX-512, one a lane of the
// vector registers that hold their deltas d and dc, their reference indices m and their
// counts n (m and n as float64, exact for integers below 2^53).
//
// The lanes go in step: each round the lanes at the least m take a step (the others wait;
// there they are almost always all of them, since neighbouring pixels follow the same
// path through the reference and the table: TestVectorLanesBusy measures it), so that
// every lane that steps reads the same Z_m and the same BLA group, loaded once and
// broadcast, with no gather. Each lane takes PerturbEscape's decision for itself: level 0
// valid or a plain step, then the levels valid in a row (one compare of all lanes a
// level), the largest one's block applied; the plain step and the block are both computed
// and each lane keeps its own. The check after the step (escape, rebasing, the reference's
// end, maxIter) is vector compares; a lane with something to do is handled by
// PerturbEscape's code, lane by lane. Every lane's operations are PerturbEscape's, in its
// order, without fused multiply-adds: the results are PerturbEscape's bit for bit.
// perturb_vector4.go is this file with four lanes (AVX2): keep the two alike.
func perturbGroup8(ref *Reference, bla *BLA, dcr, dci []float64, maxIter int, stop <-chan struct{}, outN []int, outNu []float64) bool {
	const W = 8
	type vec = archsimd.Float64x8
	bc := archsimd.BroadcastFloat64x8
	z := ref.Z
	last := len(z) - 1
	ent, base, tableEnd := bla.table()
	var rad []float64
	if bla != nil {
		rad = bla.rad
	}
	inf, zero, one, two, four := bc(math.Inf(1)), bc(0), bc(1), bc(2), bc(4)
	tiny, lastF, maxF := bc(0x1p-900), bc(float64(last)), bc(float64(maxIter))
	abs := archsimd.BroadcastUint64x8(1<<63 - 1)
	lanes := [W]float64{0, 1, 2, 3, 4, 5, 6, 7}
	cr, ci := archsimd.LoadFloat64x8SlicePart(dcr), archsimd.LoadFloat64x8SlicePart(dci)
	m := zero.Merge(inf, archsimd.LoadFloat64x8(&lanes).Less(bc(float64(len(dcr))))) // +Inf: no pixel
	n, dr, di := zero, zero, zero
	var sdr, sdi, szr, szi, sm, sn, scr, sci [W]float64 // lanes spilled for the scalar code
	for steps := 1; ; steps++ {
		if steps&stopEvery == 0 && stopped(stop) {
			return false
		}
		h := m.GetLo().Min(m.GetHi())
		h2 := h.GetLo().Min(h.GetHi())
		mn := min(h2.GetElem(0), h2.GetElem(1))
		if mn == math.Inf(1) {
			return true
		}
		mi := int(mn)
		step := m.Equal(bc(mn)) // the lanes that take this step
		// The plain step, d <- (2 Z + d) d + dc, landing on m+1.
		zr, zi := bc(real(z[mi])), bc(imag(z[mi]))
		tr, ti := two.Mul(zr).Add(dr), two.Mul(zi).Add(di)
		pr, pi := tr.Mul(dr).Sub(ti.Mul(di)).Add(cr), tr.Mul(di).Add(ti.Mul(dr)).Add(ci)
		span := one
		zr, zi = bc(real(z[mi+1])), bc(imag(z[mi+1]))
		if mi > 0 && mi <= tableEnd {
			g, end := int(base[mi-1]), int(base[mi])
			ad := dr.AsUint64x8().And(abs).AsFloat64x8().Add(di.AsUint64x8().And(abs).AsFloat64x8())
			if blk := ad.Less(bc(rad[g])).And(step); blk.ToBits() != 0 {
				// The block, d <- A d + B dc, of the largest level valid in a row.
				e := &ent[g]
				ar, ai, br, bi := bc(e.ar), bc(e.ai), bc(e.br), bc(e.bi)
				room := maxF.Sub(n)
				up := blk
				for l := 1; g+l < end; l++ {
					s := bc(float64(int(1) << l))
					if up = up.And(ad.Less(bc(rad[g+l]))).And(room.GreaterEqual(s)); up.ToBits() == 0 {
						break
					}
					e := &ent[g+l]
					ar, ai, br, bi = bc(e.ar).Merge(ar, up), bc(e.ai).Merge(ai, up), bc(e.br).Merge(br, up), bc(e.bi).Merge(bi, up)
					span = s.Merge(span, up)
					zn := z[mi+1<<l]
					zr, zi = bc(real(zn)).Merge(zr, up), bc(imag(zn)).Merge(zi, up)
				}
				qr := ar.Mul(dr).Sub(ai.Mul(di)).Add(br.Mul(cr)).Sub(bi.Mul(ci))
				qi := ar.Mul(di).Add(ai.Mul(dr)).Add(br.Mul(ci)).Add(bi.Mul(cr))
				pr, pi = qr.Merge(pr, blk), qi.Merge(pi, blk)
			}
		}
		dr, di = pr.Merge(dr, step), pi.Merge(di, step)
		m, n = m.Add(span).Merge(m, step), n.Add(span).Merge(n, step)
		// PerturbEscape's check: z = Z + d.
		zr, zi = zr.Add(dr), zi.Add(di)
		z2 := zr.Mul(zr).Add(zi.Mul(zi))
		ev := z2.Greater(four).Or(z2.Less(dr.Mul(dr).Add(di.Mul(di)))).Or(z2.Less(tiny)).Or(m.Equal(lastF)).Or(n.GreaterEqual(maxF))
		bits := ev.And(step).ToBits()
		if bits == 0 {
			continue
		}
		dr.Store(&sdr)
		di.Store(&sdi)
		zr.Store(&szr)
		zi.Store(&szi)
		m.Store(&sm)
		n.Store(&sn)
		cr.Store(&scr)
		ci.Store(&sci)
		for i := range W {
			if bits&(1<<i) != 0 {
				sdr[i], sdi[i], sm[i], sn[i] = laneCheck(ref, i, sdr[i], sdi[i], szr[i], szi[i], sm[i], sn[i], scr[i], sci[i], maxIter, outN, outNu)
			}
		}
		dr, di = archsimd.LoadFloat64x8(&sdr), archsimd.LoadFloat64x8(&sdi)
		m, n = archsimd.LoadFloat64x8(&sm), archsimd.LoadFloat64x8(&sn)
	}
}
