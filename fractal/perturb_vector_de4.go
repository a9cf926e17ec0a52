//go:build goexperiment.simd && amd64

package fractal

import (
	"math"
	"simd/archsimd"
)

// perturbGroupDE4 is PerturbEscapeDEBatch for up to four pixels on AVX2: perturbGroup4
// (see there) with each lane's scaled derivative w = (dz/dc) * spacing beside its delta, as
// PerturbEscapeDE carries it: a plain step takes w <- 2 (Z + d) w + spacing, a block
// w <- A w + B spacing, in PerturbEscapeDE's order: perturb_vector_de8.go with four lanes.
func perturbGroupDE4(ref *Reference, bla *BLA, dcr, dci []float64, maxIter int, spacing float64, stop <-chan struct{}, out []Result) bool {
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
	var cr, ci, nlim, lim, sdr, sdi, szr, szi, sm, swr, swi [W]float64
	for i := range W {
		sm[i], nlim[i], lim[i] = math.Inf(1), float64(maxIter), float64(min(maxIter, last)) // +Inf: no pixel
		if i < len(dcr) {
			cr[i], ci[i], sm[i] = dcr[i], dci[i], 0
		}
	}
	m := archsimd.LoadFloat64x4(&sm)
	dr, di, wr, wi := bc(0), bc(0), bc(0), bc(0)
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
			var nr, ni, nwr, nwi, zr, zi archsimd.Float64x4
			next := 0 // the span every lane took, or 0
			switch {
			case blkBits == 0:
				// d <- (2 Z + d) d + dc, landing on m+1.
				z0, z1 := z[mi], z[mi+1]
				// w <- 2 z w + spacing, z = Z + d before the step.
				fr, fi := bc(real(z0)).Add(dr), bc(imag(z0)).Add(di)
				nwr, nwi = bc(2).Mul(fr.Mul(wr).Sub(fi.Mul(wi))).Add(bc(spacing)), bc(2).Mul(fr.Mul(wi).Add(fi.Mul(wr)))
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
				// w <- A w + B spacing
				nwr = ar.Mul(wr).Sub(ai.Mul(wi)).Add(br.Mul(bc(spacing)))
				nwi = ar.Mul(wi).Add(ai.Mul(wr)).Add(bi.Mul(bc(spacing)))
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
				fr, fi := ld(&sz0r).Add(dr), ld(&sz0i).Add(di)
				pwr, pwi := bc(2).Mul(fr.Mul(wr).Sub(fi.Mul(wi))).Add(bc(spacing)), bc(2).Mul(fr.Mul(wi).Add(fi.Mul(wr)))
				tr, ti := bc(2).Mul(ld(&sz0r)).Add(dr), bc(2).Mul(ld(&sz0i)).Add(di)
				pr, pi := tr.Mul(dr).Sub(ti.Mul(di)).Add(vcr), tr.Mul(di).Add(ti.Mul(dr)).Add(vci)
				ar, ai, br, bi := ld(&sar), ld(&sai), ld(&sbr), ld(&sbi)
				qr := ar.Mul(dr).Sub(ai.Mul(di)).Add(br.Mul(vcr)).Sub(bi.Mul(vci))
				qi := ar.Mul(di).Add(ai.Mul(dr)).Add(br.Mul(vci)).Add(bi.Mul(vcr))
				qwr := ar.Mul(wr).Sub(ai.Mul(wi)).Add(br.Mul(bc(spacing)))
				qwi := ar.Mul(wi).Add(ai.Mul(wr)).Add(bi.Mul(bc(spacing)))
				blk := ld(&sel).Greater(bc(0))
				nr, ni = qr.Merge(pr, blk), qi.Merge(pi, blk)
				nwr, nwi = qwr.Merge(pwr, blk), qwi.Merge(pwi, blk)
				zr, zi = ld(&sz1r), ld(&sz1i)
				m = m.Add(ld(&ssp)).Merge(m, step)
			}
			dr, di = nr.Merge(dr, step), ni.Merge(di, step)
			wr, wi = nwr.Merge(wr, step), nwi.Merge(wi, step)
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
			wr.Store(&swr)
			wi.Store(&swi)
			for i := range W {
				if evBits&(1<<i) != 0 {
					sdr[i], sdi[i], sm[i], nlim[i] = laneCheckDE(ref, i, sdr[i], sdi[i], szr[i], szi[i], swr[i], swi[i], sm[i], nlim[i], cr[i], ci[i], maxIter, spacing, out)
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
