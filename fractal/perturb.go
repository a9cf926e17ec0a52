package fractal

// PerturbEscape is Escape64 for the point C + dc, C being ref's point: the same n (the least
// n >= 1 with |z_n| > 2, -1 when none within maxIter) and the same smooth value nu, computed
// from the float64 delta d_n = z_n - Z_m by d <- 2 Z_m d + d^2 + dc, with rebasing: after each
// step, when |Z_m + d| < |d| or m is the reference's last index, d becomes Z_m + d and m 0.
// With a non-nil bla it skips iterations by the table's blocks (see BLA for the rule). Points
// that do not escape run to maxIter (no periodicity shortcut). The smooth value continues
// with the full z and c = C + dc in float64, as Escape64 does.
func PerturbEscape(ref *Reference, bla *BLA, dcr, dci float64, maxIter int) (n int, nu float64) {
	z := ref.Z
	last := len(z) - 1
	var dr, di float64
	m := 0
	for n < maxIter {
		var e *blaEntry
		var span int
		ok := false
		if bla != nil && m > 0 {
			e, span, ok = bla.lookup(m, n, maxIter, dr, di)
		}
		if ok {
			dr, di = e.ar*dr-e.ai*di+e.br*dcr-e.bi*dci, e.ar*di+e.ai*dr+e.br*dci+e.bi*dcr
			m += span
			n += span
		} else {
			// d <- (2 Z + d) d + dc
			zm := z[m]
			tr, ti := 2*real(zm)+dr, 2*imag(zm)+di
			dr, di = tr*dr-ti*di+dcr, tr*di+ti*dr+dci
			m++
			n++
		}
		zm := z[m]
		zr, zi := real(zm)+dr, imag(zm)+di
		z2 := zr*zr + zi*zi
		if z2 > 4 {
			return n, smooth(zr, zi, ref.cre+dcr, ref.cim+dci, n)
		}
		if m == last || z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) {
			dr, di = zr, zi
			m = 0
		}
	}
	return -1, 0
}

// rebaseTiny is the rebasing test |z| < |d| for |z|^2 < 2^-900, where the squares lose
// precision or underflow (deep views have deltas near 1e-300): it compares them scaled by
// 2^600.
func rebaseTiny(zr, zi, dr, di float64) bool {
	const s = 0x1p600
	zr, zi, dr, di = zr*s, zi*s, dr*s, di*s
	return zr*zr+zi*zi < dr*dr+di*di
}
