package fractal

import "math"

// DefaultBLAEpsilon is the relative error a BLA block may add (see BLA): chosen by
// measurement (TestBLAMatchesPlainPerturbation and the report in its comment).
const DefaultBLAEpsilon = 0x1p-44

// BLAStride is the number of float64 values per entry in BLA.Flat: Ar, Ai, Br, Bi, R, 0.
const BLAStride = 6

// BLA is a bilinear approximation table of a reference orbit, built for pixels whose delta c
// has |dc| <= DcMax. An entry at reference index m spanning s steps says: while |d| < R, the
// s steps of the perturbation recurrence from (m, d) give, to the table's accuracy,
//
//	d' = A d + B dc   at index m + s (and s iterations more).
//
// Layout (the GLSL shader performs the same lookup on Flat's table):
//
//   - S = len(Z) - 2 is the number of steps the table covers: the steps from m = 1 to m = S
//     (a step from m reads Z[m] and lands on m+1 <= len(Z)-1; steps from m = 0 have A = 0
//     and are never approximated).
//   - Level l (0 <= l < Levels) has Count(l) = floor(S / 2^l) entries; entry k of level l
//     spans the 2^l steps from m = 1 + k*2^l to m + 2^l. Its index in Flat is Offset(l) + k.
//   - Level 0, entry at m: A = 2 Z[m], B = 1, R = eps*|Z[m]|.
//   - Level l >= 1, entry k merges x = level l-1 entry 2k and y = entry 2k+1:
//     A = Ay*Ax, B = Ay*Bx + By, R = min(Rx, max(0, (Ry - |Bx|*DcMax) / |Ax|)); an entry
//     whose A or B is not finite gets R = 0 and A = B = 0.
//   - Lookup at index m >= 1, iteration n, delta d (maxIter the pixel's limit): for l from
//     min(trailing zero bits of m-1, Levels-1) (Levels-1 when m = 1) down to 0, take the first
//     entry k = (m-1) >> l with k < Count(l), n + 2^l <= maxIter and |Re d| + |Im d| < R
//     (the 1-norm, which bounds |d| without squaring, so nothing underflows at depth); apply
//     it (m += 2^l, n += 2^l), then test escape and rebasing as after a plain step. When no
//     level applies (or m = 0), take one plain perturbation step.
//
// A BLA is immutable and safe for concurrent use.
type BLA struct {
	DcMax float64 // the bound on |dc| it was built for (a power of two)
	Eps   float64 // its accuracy parameter
	steps int     // S
	offs  []int   // offs[l] is level l's first entry in Flat; offs[Levels] is the total
	// In memory the entries are grouped by their start instead (measured faster on the CPU:
	// a jump reads one or two cache lines rather than one per level): the entries that start
	// at m = k+1, levels 0, 1, ..., are ent[base[k]], ent[base[k]+1], ...
	ent  []blaEntry
	base []int32
	// rad holds ent's radii again, alone and in the same order, for the vector loops'
	// climb through the levels: one load of eight radii instead of eight of entries.
	rad []float64
	// near[m] is the 1-norm of a delta d below which a step landing on m needs no check:
	// z = Z_m + d can neither escape nor rebase there (see nearBound).
	near []float64
}

// table is what a pixel's loop reads of b: the entries grouped by start, their index, and
// the last step the table covers (from m = 1); all empty for a nil b (no approximation).
func (b *BLA) table() (ent []blaEntry, base []int32, end int) {
	if b == nil {
		return nil, nil, 0
	}
	return b.ent, b.base, b.steps
}

type blaEntry struct{ ar, ai, br, bi, r float64 }

// BLA returns the table for pixels with |dc| <= dcMax at DefaultBLAEpsilon, built once per
// power of two of dcMax (rounded up) and kept in ref (the two most recent), so every tile of
// a frame shares it. Safe for concurrent use: the first caller builds, the others wait.
func (ref *Reference) BLA(dcMax float64) *BLA { return ref.BLAWithEpsilon(dcMax, DefaultBLAEpsilon) }

// BLAWithEpsilon is BLA at another accuracy: a larger eps skips more iterations and makes
// more pixels differ from plain perturbation.
func (ref *Reference) BLAWithEpsilon(dcMax, eps float64) *BLA {
	if !(dcMax > 0) || math.IsInf(dcMax, 0) {
		dcMax = math.SmallestNonzeroFloat64
	}
	frac, exp := math.Frexp(dcMax) // dcMax = frac * 2^exp, frac in [0.5, 1)
	if frac == 0.5 {
		exp--
	}
	dcMax = math.Ldexp(1, exp)
	ref.blaMu.Lock()
	defer ref.blaMu.Unlock()
	for i, b := range ref.blas {
		if b.DcMax == dcMax && b.Eps == eps {
			copy(ref.blas[1:i+1], ref.blas[:i])
			ref.blas[0] = b
			return b
		}
	}
	b := buildBLA(ref.Z, dcMax, eps, ref.jStart-1)
	ref.blas = append([]*BLA{b}, ref.blas[:min(len(ref.blas), maxBLAs-1)]...)
	return b
}

// buildBLA builds the table of orbit z; the step from index cut (a Julia reference's last
// critical-orbit index, where the next value is not its square plus c: -1 for none) gets
// R = 0, and so every block containing it.
func buildBLA(z []complex128, dcMax, eps float64, cut int) *BLA {
	steps := max(0, len(z)-2)
	b := &BLA{DcMax: dcMax, Eps: eps, steps: steps}
	total := 0
	for l := 0; steps>>l >= 1; l++ {
		b.offs = append(b.offs, total)
		total += steps >> l
	}
	b.offs = append(b.offs, total)
	// The entries grouped by start (entry (k, l) exists for l <= levelsAt(k)-1), written
	// there level by level: at is level l's entry k (starting at step k<<l).
	b.base = make([]int32, steps+1)
	n := 0
	for k := range steps {
		b.base[k] = int32(n)
		n += b.levelsAt(k)
	}
	b.base[steps] = int32(n)
	b.ent = make([]blaEntry, n)
	at := func(l, k int) *blaEntry { return &b.ent[int(b.base[k<<uint(l)])+l] }
	// near from |Z_m| as level 0's radius, and at the orbit's ends, where no step starts.
	b.near = make([]float64, len(z))
	for _, m := range []int{0, len(z) - 1} {
		b.near[m] = nearBound(math.Hypot(real(z[m]), imag(z[m])))
	}
	for k := range steps {
		zm := z[k+1]
		a := math.Hypot(real(zm), imag(zm))
		b.near[k+1] = nearBound(a)
		e := at(0, k)
		*e = blaEntry{ar: 2 * real(zm), ai: 2 * imag(zm), br: 1, r: eps * a}
		if k+1 == cut {
			*e = blaEntry{}
		}
	}
	for l := 1; l < len(b.offs)-1; l++ {
		for k := range b.offs[l+1] - b.offs[l] {
			x, y := at(l-1, 2*k), at(l-1, 2*k+1)
			e := blaEntry{
				ar: y.ar*x.ar - y.ai*x.ai,
				ai: y.ar*x.ai + y.ai*x.ar,
				br: y.ar*x.br - y.ai*x.bi + y.br,
				bi: y.ar*x.bi + y.ai*x.br + y.bi,
			}
			r := x.r
			t := (y.r - math.Hypot(x.br, x.bi)*dcMax) / math.Hypot(x.ar, x.ai)
			if !(t >= 0) {
				t = 0
			}
			r = min(r, t)
			if !finite(e.ar) || !finite(e.ai) || !finite(e.br) || !finite(e.bi) || !(r >= 0) {
				e = blaEntry{}
			} else {
				e.r = r
			}
			*at(l, k) = e
		}
	}
	b.rad = make([]float64, len(b.ent), len(b.ent)+8) // 8 zeros past the end: see perturbBatch8
	b.rad = b.rad[:cap(b.rad)]
	for i, e := range b.ent {
		b.rad[i] = e.r
	}
	return b
}

// nearBound is the 1-norm of a delta d below which z = Z + d, |Z| = a, neither escapes nor
// rebases, in the check after a step as PerturbEscape computes it (z^2 = zr*zr + zi*zi >
// esc4Lo, the escape test's "maybe" (see escapes), or z^2 < d^2 = dr*dr + di*di, or z^2 <
// 2^-900): the vector loops test |dr| + |di| against it, one compare a step, and check
// exactly only the lanes at or above it. |d| <= |dr| + |di| < a/2 (1 - 2^-21) keeps |z| >
// |d| (1 + 2^-21), far beyond the rounding of the squares (2^-50), and |z| above 2^-441 once
// a >= 2^-440; |d| < 2 - a - 2^-34 keeps |z|^2 below 4 - 2^-32, under esc4Lo = 4 - 2^-34 by
// far more than the rounding. At a = 2 (a reference on the circle) and below a = 2^-440 it
// is 0: every lane is checked.
func nearBound(a float64) float64 {
	if !(a >= 0x1p-440) {
		return 0
	}
	return max(0, min(a*(0.5-0x1p-22), 2-a-0x1p-34))
}

// levelsAt is the number of levels with an entry starting at m = k+1.
func (b *BLA) levelsAt(k int) int {
	n := 1
	for l := 1; l < len(b.offs)-1 && k&(1<<uint(l)-1) == 0 && k>>uint(l) < b.offs[l+1]-b.offs[l]; l++ {
		n++
	}
	return n
}

func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }

// Levels is the number of levels in the table.
func (b *BLA) Levels() int { return len(b.offs) - 1 }

// Steps is S, the number of reference steps (from m = 1 to S) the table covers.
func (b *BLA) Steps() int { return b.steps }

// Count is the number of entries of level l: floor(Steps / 2^l).
func (b *BLA) Count(l int) int { return b.offs[l+1] - b.offs[l] }

// Offset is the index of level l's first entry in Flat (in entries, not float64s);
// Offset(Levels()) is the number of entries.
func (b *BLA) Offset(l int) int { return b.offs[l] }

// Flat returns the table for a texture upload: BLAStride float64 values per entry (Ar, Ai,
// Br, Bi, R, 0), levels one after another (level l's entry k at index Offset(l)+k).
func (b *BLA) Flat() []float64 {
	out := make([]float64, BLAStride*len(b.ent))
	for l := range b.Levels() {
		for k := range b.Count(l) {
			e := b.ent[int(b.base[k<<uint(l)])+l]
			o := out[BLAStride*(b.offs[l]+k):][:BLAStride]
			o[0], o[1], o[2], o[3], o[4] = e.ar, e.ai, e.br, e.bi, e.r
		}
	}
	return out
}

// Bytes is the table's memory in bytes: the entries (40 bytes), their radii again (8), the
// index (4 a step) and near (8 an orbit value).
func (b *BLA) Bytes() int { return 48*len(b.ent) + 4*len(b.base) + 8*len(b.near) }
