//go:build goexperiment.simd && amd64

package fractal

import (
	"math"
	"simd/archsimd"
)

// perturbGroup8x4 is perturbGroup16 (see there) on AVX2: eight pixels in two vectors of
// four lanes (a: pixels 0-3, b: 4-7) going in step. Generated from the same template as
// perturb_vector16.go: keep the two alike.
func perturbGroup8x4(ref *Reference, bla *BLA, dcr, dci []float64, maxIter int, stop <-chan struct{}, outN []int, outNu []float64) bool {
	const W, L = 4, 8
	bc := archsimd.BroadcastFloat64x4
	ld := func(p []float64) archsimd.Float64x4 { return archsimd.LoadFloat64x4((*[W]float64)(p)) }
	z := ref.Z
	last := len(z) - 1
	ent, base, tableEnd := bla.table()
	var rad []float64
	if bla != nil {
		rad = bla.rad
	}
	var cr, ci, nlim, lim, sdr, sdi, szr, szi, sm [L]float64
	for i := range L {
		sm[i], nlim[i], lim[i] = math.Inf(1), float64(maxIter), float64(min(maxIter, last)) // +Inf: no pixel
		if i < len(dcr) {
			cr[i], ci[i], sm[i] = dcr[i], dci[i], 0
		}
	}
	ma := ld(sm[0:])
	mb := ld(sm[4:])
	dra, dia := bc(0), bc(0)
	drb, dib := bc(0), bc(0)
	mi, uniform := 0, false
	active := uint8(1)<<len(dcr) - 1
	nlimMin, limMin := maxIter, min(maxIter, last)
	for {
		if stopped(stop) {
			return false
		}
		for range stopEvery + 1 {
			if !uniform {
				h := ma.Min(mb)
				h2 := h.GetLo().Min(h.GetHi())
				mn := h2.GetElem(0)
				if b := h2.GetElem(1); b < mn {
					mn = b
				}
				if mn == math.Inf(1) {
					return true
				}
				mi = int(mn)
			}
			fm := bc(float64(mi))
			stepa := ma.Equal(fm)
			stepb := mb.Equal(fm)
			stepBits := uint8(stepa.ToBits()) | uint8(stepb.ToBits())<<4
			blkBits, lvl, mixed := uint8(0), 0, false
			var ada archsimd.Float64x4
			var adb archsimd.Float64x4
			if mi > 0 && mi <= tableEnd {
				abs := archsimd.BroadcastUint64x4(1<<63 - 1)
				ada = dra.AsUint64x4().And(abs).AsFloat64x4().Add(dia.AsUint64x4().And(abs).AsFloat64x4())
				adb = drb.AsUint64x4().And(abs).AsFloat64x4().Add(dib.AsUint64x4().And(abs).AsFloat64x4())
				g, end := int(base[mi-1]), int(base[mi])
				r := bc(rad[g])
				blkBits = (uint8(ada.Less(r).ToBits()) | uint8(adb.Less(r).ToBits())<<4) & stepBits
				mixed = blkBits != 0 && blkBits != stepBits
				for l := 1; blkBits == stepBits && g+l < end; l++ {
					r := bc(rad[g+l])
					nb := (uint8(ada.Less(r).ToBits()) | uint8(adb.Less(r).ToBits())<<4) & stepBits
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
			var nra, nia, zra, zia, spana archsimd.Float64x4
			var nrb, nib, zrb, zib, spanb archsimd.Float64x4
			next := 0
			switch {
			case blkBits == 0:
				z0, z1 := z[mi], z[mi+1]
				tzr, tzi := bc(2).Mul(bc(real(z0))), bc(2).Mul(bc(imag(z0)))
				cra, cia := ld(cr[0:]), ld(ci[0:])
				crb, cib := ld(cr[4:]), ld(ci[4:])
				tra, tia := tzr.Add(dra), tzi.Add(dia)
				trb, tib := tzr.Add(drb), tzi.Add(dib)
				nra, nia = tra.Mul(dra).Sub(tia.Mul(dia)).Add(cra), tra.Mul(dia).Add(tia.Mul(dra)).Add(cia)
				nrb, nib = trb.Mul(drb).Sub(tib.Mul(dib)).Add(crb), trb.Mul(dib).Add(tib.Mul(drb)).Add(cib)
				zra, zia, spana = bc(real(z1)), bc(imag(z1)), bc(1)
				zrb, zib, spanb = bc(real(z1)), bc(imag(z1)), bc(1)
				next = 1
			case !mixed:
				e, z1 := &ent[int(base[mi-1])+lvl], z[mi+1<<lvl]
				ar, ai, br, bi := bc(e.ar), bc(e.ai), bc(e.br), bc(e.bi)
				cra, cia := ld(cr[0:]), ld(ci[0:])
				crb, cib := ld(cr[4:]), ld(ci[4:])
				nra = ar.Mul(dra).Sub(ai.Mul(dia)).Add(br.Mul(cra)).Sub(bi.Mul(cia))
				nrb = ar.Mul(drb).Sub(ai.Mul(dib)).Add(br.Mul(crb)).Sub(bi.Mul(cib))
				nia = ar.Mul(dia).Add(ai.Mul(dra)).Add(br.Mul(cia)).Add(bi.Mul(cra))
				nib = ar.Mul(dib).Add(ai.Mul(drb)).Add(br.Mul(cib)).Add(bi.Mul(crb))
				next = 1 << lvl
				zra, zia, spana = bc(real(z1)), bc(imag(z1)), bc(float64(next))
				zrb, zib, spanb = bc(real(z1)), bc(imag(z1)), bc(float64(next))
			default:
				var sar, sai, sbr, sbi, ssp, sz0r, sz0i, sz1r, sz1i, sel, sad [L]float64
				ada.Store((*[W]float64)(sad[0:]))
				adb.Store((*[W]float64)(sad[4:]))
				z0 := z[mi]
				g, end := int(base[mi-1]), int(base[mi])
				for i := range L {
					if stepBits&(1<<i) == 0 {
						continue
					}
					l := -1
					if blkBits&(1<<i) != 0 {
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
				cra, cia := ld(cr[0:]), ld(ci[0:])
				crb, cib := ld(cr[4:]), ld(ci[4:])
				tra, tia := bc(2).Mul(ld(sz0r[0:])).Add(dra), bc(2).Mul(ld(sz0i[0:])).Add(dia)
				trb, tib := bc(2).Mul(ld(sz0r[4:])).Add(drb), bc(2).Mul(ld(sz0i[4:])).Add(dib)
				pra, pia := tra.Mul(dra).Sub(tia.Mul(dia)).Add(cra), tra.Mul(dia).Add(tia.Mul(dra)).Add(cia)
				prb, pib := trb.Mul(drb).Sub(tib.Mul(dib)).Add(crb), trb.Mul(dib).Add(tib.Mul(drb)).Add(cib)
				ara, aia, bra, bia := ld(sar[0:]), ld(sai[0:]), ld(sbr[0:]), ld(sbi[0:])
				arb, aib, brb, bib := ld(sar[4:]), ld(sai[4:]), ld(sbr[4:]), ld(sbi[4:])
				qra := ara.Mul(dra).Sub(aia.Mul(dia)).Add(bra.Mul(cra)).Sub(bia.Mul(cia))
				qrb := arb.Mul(drb).Sub(aib.Mul(dib)).Add(brb.Mul(crb)).Sub(bib.Mul(cib))
				qia := ara.Mul(dia).Add(aia.Mul(dra)).Add(bra.Mul(cia)).Add(bia.Mul(cra))
				qib := arb.Mul(dib).Add(aib.Mul(drb)).Add(brb.Mul(cib)).Add(bib.Mul(crb))
				blka := ld(sel[0:]).Greater(bc(0))
				blkb := ld(sel[4:]).Greater(bc(0))
				nra, nia = qra.Merge(pra, blka), qia.Merge(pia, blka)
				nrb, nib = qrb.Merge(prb, blkb), qib.Merge(pib, blkb)
				zra, zia, spana = ld(sz1r[0:]), ld(sz1i[0:]), ld(ssp[0:])
				zrb, zib, spanb = ld(sz1r[4:]), ld(sz1i[4:]), ld(ssp[4:])
			}
			dra, dia = nra.Merge(dra, stepa), nia.Merge(dia, stepa)
			drb, dib = nrb.Merge(drb, stepb), nib.Merge(dib, stepb)
			ma = ma.Add(spana).Merge(ma, stepa)
			mb = mb.Add(spanb).Merge(mb, stepb)
			if uniform = next != 0 && stepBits == active; uniform {
				mi += next
			}
			zra, zia = zra.Add(dra), zia.Add(dia)
			zrb, zib = zrb.Add(drb), zib.Add(dib)
			z2a := zra.Mul(zra).Add(zia.Mul(zia))
			z2b := zrb.Mul(zrb).Add(zib.Mul(zib))
			evBits := uint8(z2a.Greater(bc(4)).ToBits()) | uint8(z2b.Greater(bc(4)).ToBits())<<4 |
				uint8(z2a.Less(dra.Mul(dra).Add(dia.Mul(dia)).Max(bc(0x1p-900))).ToBits()) |
				uint8(z2b.Less(drb.Mul(drb).Add(dib.Mul(dib)).Max(bc(0x1p-900))).ToBits())<<4
			if !uniform || mi >= limMin {
				evBits |= uint8(ma.GreaterEqual(ld(lim[0:])).ToBits()) | uint8(mb.GreaterEqual(ld(lim[4:])).ToBits())<<4
			}
			if evBits &= stepBits; evBits == 0 {
				continue
			}
			dra.Store((*[W]float64)(sdr[0:]))
			drb.Store((*[W]float64)(sdr[4:]))
			dia.Store((*[W]float64)(sdi[0:]))
			dib.Store((*[W]float64)(sdi[4:]))
			zra.Store((*[W]float64)(szr[0:]))
			zrb.Store((*[W]float64)(szr[4:]))
			zia.Store((*[W]float64)(szi[0:]))
			zib.Store((*[W]float64)(szi[4:]))
			ma.Store((*[W]float64)(sm[0:]))
			mb.Store((*[W]float64)(sm[4:]))
			for i := range L {
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
			for i := range L {
				if active&(1<<i) != 0 {
					nlimMin, limMin = min(nlimMin, int(nlim[i])), min(limMin, int(lim[i]))
				}
			}
			dra, dia, ma = ld(sdr[0:]), ld(sdi[0:]), ld(sm[0:])
			drb, dib, mb = ld(sdr[4:]), ld(sdi[4:]), ld(sm[4:])
		}
	}
}
