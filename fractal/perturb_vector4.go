//go:build goexperiment.simd && amd64

package fractal

import (
	"math"
	"simd/archsimd"
)

// perturbGroup4 is PerturbEscapeBatch for up to four pixels on AVX2 (perturbGroup8 with four lanes), one a lane of the
// vector registers that hold their deltas d and dc and their reference indices m (as
// float64, exact for integers below 2^53). A lane's count n is not kept: between rebases
// n - m stays the same, so the lane keeps nlim = maxIter - (n - m) instead (room for maxIter
// is nlim - m), and lim = min(last, nlim), the m at which its step needs PerturbEscape's
// check for the reference's end or maxIter.
//
// The lanes go in step: each round the lanes at the least m take a step (the others wait;
// there they are almost always all of them, since neighbouring pixels follow the same
// path through the reference and the table), so that every lane that steps reads the same
// Z_m and the same BLA group, loaded once and broadcast, with no gather. Each lane takes
// PerturbEscape's decision for itself: level 0 valid or a plain step, then the levels valid
// in a row, the largest one's block applied. While the lanes agree (every lane a plain step,
// or every lane the same block: nearly always), one compare of all lanes a level finds it
// and one Z and one block are broadcast; lanes that part ways climb and gather theirs lane
// by lane, and both steps are computed, each lane keeping its own. The check after the step
// is vector compares that catch every lane with something to do (its pixel escaped,
// rebases, reached the reference's end or maxIter), and such a lane goes through
// PerturbEscape's own check (laneCheck). Every lane's arithmetic is PerturbEscape's, in its
// order, without fused multiply-adds: the results are PerturbEscape's bit for bit.
func perturbGroup4(ref *Reference, bla *BLA, dcr, dci []float64, maxIter int, stop <-chan struct{}, outN []int, outNu []float64) bool {
	const W = 4
	bc := archsimd.BroadcastFloat64x4
	z := ref.Z
	last := len(z) - 1
	ent, base, tableEnd := bla.table()
	var rad []float64
	if bla != nil {
		rad = bla.rad
	}
	// Only d and m stay in registers: Go gives vectors 15 of them, and values loaded from
	// memory where they are used cost less than the spills the others would bring.
	var cr, ci, nlim, lim, sdr, sdi, szr, szi, sm [W]float64
	for i := range W {
		sm[i], nlim[i], lim[i] = math.Inf(1), float64(maxIter), float64(min(maxIter, last)) // +Inf: no pixel
		if i < len(dcr) {
			cr[i], ci[i], sm[i] = dcr[i], dci[i], 0
		}
	}
	m := archsimd.LoadFloat64x4(&sm)
	dr, di := bc(0), bc(0)
	// While every lane still going is at the same index (after a step that took them all
	// the same way, as it mostly does), the least m is known without asking the vector:
	// mi, with uniform set.
	mi, uniform := 0, false
	active := uint8(1)<<len(dcr) - 1 // the lanes with a pixel still going
	// The least nlim and lim of the lanes going: while the lanes are uniform at mi, no lane
	// needs room tested below nlimMin - mi, nor the check for the end below limMin.
	nlimMin, limMin := maxIter, min(maxIter, last)
	for {
		if stopped(stop) {
			return false
		}
		// stopEvery+1 rounds without a call, so that the vectors stay in registers.
		for range stopEvery + 1 {
			if !uniform {
				h2 := m.GetLo().Min(m.GetHi())
				mn := h2.GetElem(0)
				if b := h2.GetElem(1); b < mn {
					mn = b
				}
				if mn == math.Inf(1) {
					return true
				}
				mi = int(mn)
			}
			step := m.Equal(bc(float64(mi))) // the lanes that take this step
			stepBits := step.ToBits()
			// Which lanes take a BLA block (blkBits), and of which level: lvl for them all,
			// unless mixed (some lanes plain, or blocks of several levels, or room for
			// maxIter to check), when each lane's own is found lane by lane.
			blkBits, lvl, mixed := uint8(0), 0, false
			var ad archsimd.Float64x4
			if mi > 0 && mi <= tableEnd {
				abs := archsimd.BroadcastUint64x4(1<<63 - 1)
				ad = dr.AsUint64x4().And(abs).AsFloat64x4().Add(di.AsUint64x4().And(abs).AsFloat64x4())
				g, end := int(base[mi-1]), int(base[mi])
				blkBits = ad.Less(bc(rad[g])).ToBits() & stepBits
				mixed = blkBits != 0 && blkBits != stepBits
				for l := 1; blkBits == stepBits && g+l < end; l++ {
					nb := ad.Less(bc(rad[g+l])).ToBits() & stepBits
					if nb == 0 {
						break
					}
					if nb != stepBits || 1<<l > nlimMin-mi {
						mixed = true
						break
					}
					lvl = l
				}
			}
			vcr, vci := archsimd.LoadFloat64x4(&cr), archsimd.LoadFloat64x4(&ci)
			var nr, ni, zr, zi archsimd.Float64x4
			next := 0 // the span every lane took, or 0
			switch {
			case blkBits == 0:
				// d <- (2 Z + d) d + dc, landing on m+1.
				z0, z1 := z[mi], z[mi+1]
				tr, ti := bc(2).Mul(bc(real(z0))).Add(dr), bc(2).Mul(bc(imag(z0))).Add(di)
				nr, ni = tr.Mul(dr).Sub(ti.Mul(di)).Add(vcr), tr.Mul(di).Add(ti.Mul(dr)).Add(vci)
				zr, zi = bc(real(z1)), bc(imag(z1))
				m = m.Add(bc(1)).Merge(m, step)
				next = 1
			case !mixed:
				// d <- A d + B dc, every lane the same block.
				e, z1 := &ent[int(base[mi-1])+lvl], z[mi+1<<lvl]
				ar, ai, br, bi := bc(e.ar), bc(e.ai), bc(e.br), bc(e.bi)
				nr = ar.Mul(dr).Sub(ai.Mul(di)).Add(br.Mul(vcr)).Sub(bi.Mul(vci))
				ni = ar.Mul(di).Add(ai.Mul(dr)).Add(br.Mul(vci)).Add(bi.Mul(vcr))
				zr, zi = bc(real(z1)), bc(imag(z1))
				next = 1 << lvl
				m = m.Add(bc(float64(next))).Merge(m, step)
			default:
				// Lanes that part ways: each lane's block (or Z for a plain step) gathered
				// lane by lane, both steps computed, each lane keeping its own.
				var sar, sai, sbr, sbi, ssp, sz0r, sz0i, sz1r, sz1i, sel, sad [W]float64
				ad.Store(&sad)
				z0 := z[mi]
				g, end := int(base[mi-1]), int(base[mi])
				for i := range W {
					if stepBits&(1<<i) == 0 {
						continue
					}
					l := -1
					if blkBits&(1<<i) != 0 {
						// PerturbEscape's climb.
						room := int(nlim[i]) - mi
						for l = 0; g+l+1 < end && 2<<l <= room && sad[i] < rad[g+l+1]; l++ {
						}
					}
					z1 := z[mi+1]
					if l >= 0 {
						e := &ent[g+l]
						sar[i], sai[i], sbr[i], sbi[i], sel[i] = e.ar, e.ai, e.br, e.bi, 1
						z1 = z[mi+1<<l]
					}
					ssp[i], sz1r[i], sz1i[i] = float64(int(1)<<max(l, 0)), real(z1), imag(z1)
					sz0r[i], sz0i[i] = real(z0), imag(z0)
				}
				ld := archsimd.LoadFloat64x4
				tr, ti := bc(2).Mul(ld(&sz0r)).Add(dr), bc(2).Mul(ld(&sz0i)).Add(di)
				pr, pi := tr.Mul(dr).Sub(ti.Mul(di)).Add(vcr), tr.Mul(di).Add(ti.Mul(dr)).Add(vci)
				ar, ai, br, bi := ld(&sar), ld(&sai), ld(&sbr), ld(&sbi)
				qr := ar.Mul(dr).Sub(ai.Mul(di)).Add(br.Mul(vcr)).Sub(bi.Mul(vci))
				qi := ar.Mul(di).Add(ai.Mul(dr)).Add(br.Mul(vci)).Add(bi.Mul(vcr))
				blk := ld(&sel).Greater(bc(0))
				nr, ni = qr.Merge(pr, blk), qi.Merge(pi, blk)
				zr, zi = ld(&sz1r), ld(&sz1i)
				m = m.Add(ld(&ssp)).Merge(m, step)
			}
			dr, di = nr.Merge(dr, step), ni.Merge(di, step)
			if uniform = next != 0 && stepBits == active; uniform {
				mi += next
			}
			// PerturbEscape's check, z = Z + d: a superset of the lanes with something
			// to do.
			zr, zi = zr.Add(dr), zi.Add(di)
			z2 := zr.Mul(zr).Add(zi.Mul(zi))
			evBits := z2.Greater(bc(4)).ToBits() | z2.Less(dr.Mul(dr).Add(di.Mul(di)).Max(bc(0x1p-900))).ToBits()
			if !uniform || mi >= limMin {
				evBits |= m.GreaterEqual(archsimd.LoadFloat64x4(&lim)).ToBits()
			}
			if evBits &= stepBits; evBits == 0 {
				continue
			}
			dr.Store(&sdr)
			di.Store(&sdi)
			zr.Store(&szr)
			zi.Store(&szi)
			m.Store(&sm)
			for i := range W {
				if evBits&(1<<i) != 0 {
					sdr[i], sdi[i], sm[i], nlim[i] = laneCheck(ref, i, sdr[i], sdi[i], szr[i], szi[i], sm[i], nlim[i], cr[i], ci[i], maxIter, outN, outNu)
					lim[i] = min(nlim[i], float64(last))
					if sm[i] == math.Inf(1) {
						active &^= 1 << i
					}
				}
			}
			uniform = false
			nlimMin, limMin = maxIter, maxIter
			for i := range W {
				if active&(1<<i) != 0 {
					nlimMin, limMin = min(nlimMin, int(nlim[i])), min(limMin, int(lim[i]))
				}
			}
			dr, di = archsimd.LoadFloat64x4(&sdr), archsimd.LoadFloat64x4(&sdi)
			m = archsimd.LoadFloat64x4(&sm)
		}
	}
}
