package fractal

import "math"

// PerturbEscape is Escape64 for the point C + dc, C being ref's point: the same n (the least
// n >= 1 with |z_n| > 2, -1 when none within maxIter) and the same smooth value nu, computed
// from the float64 delta d_n = z_n - Z_m by d <- 2 Z_m d + d^2 + dc, with rebasing: after each
// step, when |Z_m + d| < |d| or m is the reference's last index, d becomes Z_m + d and m 0.
// A periodic reference (Reference.Period) goes on one period back from its last index instead.
// With a non-nil bla it skips iterations by the table's blocks (see BLA for the rule). Points
// that do not escape run to maxIter (no periodicity shortcut). The smooth value continues
// with the full z and c = C + dc in float64, as Escape64 does.
//
// Closing stop (nil: never) ends it within a few thousand steps, with a meaningless result
// the caller throws away: a pixel at 1e8 iterations takes minutes.
func PerturbEscape(ref *Reference, bla *BLA, dcr, dci float64, maxIter int, stop <-chan struct{}) (n int, nu float64) {
	n, nu, _ = perturbEscape(ref, bla, dcr, dci, maxIter, stop)
	return n, nu
}

// perturbEscape is PerturbEscape that also counts its steps (plain steps plus BLA jumps).
//
// The BLA lookup tests level 0 first (most steps where the table does not apply cost one
// comparison), then climbs while the next level is valid: validity is monotone in the level
// (a block's radius is at most its first half's, the count and maxIter limits only tighten),
// so this finds the same largest valid block as BLA's top-down rule.
//
// For a Julia reference (Reference.JuliaStart > 0), (dcr, dci) is the pixel's z1 minus the
// reference point, the start of its delta: see julia.go.
func perturbEscape(ref *Reference, bla *BLA, dcr, dci float64, maxIter int, stop <-chan struct{}) (n int, nu float64, steps int) {
	if ref.jStart == 0 {
		return perturbLoop(ref, bla, 0, 0, 0, 0, dcr, dci, maxIter, stop, nil)
	}
	dr, di, m, escaped, zr, zi := ref.juliaStart(dcr, dci)
	if escaped {
		return 1, smooth(zr, zi, ref.jcr, ref.jci, 1), 0
	}
	return perturbLoop(ref, bla, dr, di, m, 1, 0, 0, maxIter, stop, nil)
}

// perturbLoop is perturbEscape's loop from delta (dr, di) at index m after n iterations, with
// dc = (dcr, dci) added every step (0 for a Julia set). A non-nil end receives the delta and
// index where a pixel that does not escape stops at maxIter (Frame.Interior goes on from there).
func perturbLoop(ref *Reference, bla *BLA, dr, di float64, m, n int, dcr, dci float64, maxIter int, stop <-chan struct{}, end *loopEnd) (int, float64, int) {
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, tableEnd := bla.table() // the table covers the steps from m = 1 to tableEnd
	steps := 0
	for n < maxIter {
		steps++
		if steps&stopEvery == 0 && stopped(stop) {
			return -1, 0, steps
		}
		if m > 0 && m <= tableEnd {
			ad := math.Abs(dr) + math.Abs(di)
			at := ent[base[m-1]:base[m]] // the entries starting at m, level 0 first
			if e := &at[0]; ad < e.r {
				span := 1
				for l := 1; l < len(at) && n+span*2 <= maxIter && ad < at[l].r; l++ {
					e, span = &at[l], span*2
				}
				dr, di = e.ar*dr-e.ai*di+e.br*dcr-e.bi*dci, e.ar*di+e.ai*dr+e.br*dci+e.bi*dcr
				m += span
				n += span
				goto check
			}
		}
		{
			// d <- (2 Z + d) d + dc
			zm := z[m]
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
			return n, smooth(zr, zi, cr, ci, n), steps
		}
		if z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) || m == last && period == 0 || m == jEnd {
			dr, di = zr, zi
			m = 0
		} else if m == last {
			m -= period
		}
	}
	if end != nil && n >= maxIter {
		*end = loopEnd{dr, di, m}
	}
	return -1, 0, steps
}

// loopEnd is where perturbLoop stopped a pixel that did not escape: its delta and index.
type loopEnd struct {
	dr, di float64
	m      int
}

// stopEvery+1 is how many steps the perturbation loops take between looks at their stop
// channel (a power of two): tens of microseconds.
const stopEvery = 1<<12 - 1

// stopped reports whether stop is closed (never for a nil stop).
func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// rebaseTiny is the rebasing test |z| < |d| for |z|^2 < 2^-900, where the squares lose
// precision or underflow (deep views have deltas near 1e-300): it compares them scaled by
// 2^600.
func rebaseTiny(zr, zi, dr, di float64) bool {
	const s = 0x1p600
	zr, zi, dr, di = zr*s, zi*s, dr*s, di*s
	return zr*zr+zi*zi < dr*dr+di*di
}
