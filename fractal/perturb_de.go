package fractal

import "math"

// PerturbEscapeDE is PerturbEscape (the same n and nu, from the same arithmetic on the
// delta) that also carries the scaled derivative w = (dz/dc) * spacing of the full orbit
// z = Z_m + d (see derivative.go), and returns the distance estimate and the normal.
//
// A plain step takes w <- 2 (Z_m + d) w + spacing. A BLA block d' = A d + B dc over s steps
// takes w' = A w + B spacing: the block is the linearisation of the s steps in d, and dz/dc
// = d(d)/d(dc) because the reference does not depend on the pixel, so differentiating the
// block gives dz'/dc = A dz/dc + B; its error is that of the block (the 2 d w terms it drops
// are within eps of the 2 Z_m w it keeps). Rebasing changes d and m, not z, so w carries on.
// stop as for PerturbEscape.
//
// For a Julia reference, (dcr, dci) is the pixel's z1 minus the reference point and w is
// dz/dz1 scaled: it starts at spacing and its steps add nothing (julia.go).
func PerturbEscapeDE(ref *Reference, bla *BLA, dcr, dci float64, maxIter int, spacing float64, stop <-chan struct{}) Result {
	if ref.jStart == 0 {
		return perturbLoopDE(ref, bla, 0, 0, 0, 0, 0, 0, dcr, dci, spacing, maxIter, stop)
	}
	dr, di, m, escaped, zr, zi := ref.juliaStart(dcr, dci)
	if escaped {
		return smoothDE(zr, zi, ref.jcr, ref.jci, spacing, 0, 0, 1)
	}
	return perturbLoopDE(ref, bla, dr, di, spacing, 0, m, 1, 0, 0, 0, maxIter, stop)
}

// perturbLoopDE is PerturbEscapeDE's loop from delta (dr, di) and derivative (wr, wi) at
// index m after n iterations, with dc = (dcr, dci) added to the delta every step and ws to
// the derivative (spacing; 0 for a Julia set).
func perturbLoopDE(ref *Reference, bla *BLA, dr, di, wr, wi float64, m, n int, dcr, dci, ws float64, maxIter int, stop <-chan struct{}) Result {
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, tableEnd := bla.table()
	for steps := 1; n < maxIter; steps++ {
		if steps&stopEvery == 0 && stopped(stop) {
			return Result{N: -1}
		}
		if m > 0 && m <= tableEnd {
			ad := math.Abs(dr) + math.Abs(di)
			at := ent[base[m-1]:base[m]]
			if e := &at[0]; ad < e.r {
				span := 1
				for l := 1; l < len(at) && n+span*2 <= maxIter && ad < at[l].r; l++ {
					e, span = &at[l], span*2
				}
				dr, di = e.ar*dr-e.ai*di+e.br*dcr-e.bi*dci, e.ar*di+e.ai*dr+e.br*dci+e.bi*dcr
				wr, wi = e.ar*wr-e.ai*wi+e.br*ws, e.ar*wi+e.ai*wr+e.bi*ws
				m += span
				n += span
				goto check
			}
		}
		{
			zm := z[m]
			// w <- 2 z w + spacing, z = Z_m + d before the step.
			fr, fi := real(zm)+dr, imag(zm)+di
			wr, wi = 2*(fr*wr-fi*wi)+ws, 2*(fr*wi+fi*wr)
			tr, ti := 2*real(zm)+dr, 2*imag(zm)+di
			dr, di = tr*dr-ti*di+dcr, tr*di+ti*dr+dci
			m++
			n++
		}
	check:
		zm := z[m]
		zr, zi := real(zm)+dr, imag(zm)+di
		z2 := zr*zr + zi*zi
		if z2 > esc4Lo && escapes(zm, dr, di, z2, 4) {
			cr, ci := ref.smoothC(dcr, dci)
			return smoothDE(zr, zi, cr, ci, wr, wi, ws, n)
		}
		if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
			dr, di = zr, zi
			m = 0
		} else if m == last {
			m -= period
		}
	}
	return Result{N: -1}
}
