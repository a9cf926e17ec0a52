package fractal

import "sort"

// Flat layouts of the extended-exponent tables, for a texture upload (the GL renderer's
// extended-exponent perturbation shader performs the CPU's lookups on them).

// BLAExpStride is the number of float64 values per entry in BLAExp.Flat's mantissas: Ar, Ai,
// Br, Bi, Rm, R64; BLAExpExpStride the number of int32 values per entry in its exponents: Ae,
// Be, Re. The entry is A = (Ar + i Ai) 2^Ae, B = (Br + i Bi) 2^Be, radius R = Rm 2^Re (Rm = 0:
// never valid), R64 being R rounded to float64 (0 below its range), for the test of a float64
// delta.
const (
	BLAExpStride    = 6
	BLAExpExpStride = 3
)

// Levels is the number of levels in the table (as BLA.Levels: level l has Count(l) =
// floor(Steps / 2^l) entries, entry k spanning the 2^l steps from m = 1 + k*2^l).
func (b *BLAExp) Levels() int {
	n := 0
	for b.steps>>n >= 1 {
		n++
	}
	return n
}

// Steps is S, the number of reference steps (from m = 1 to S) the table covers.
func (b *BLAExp) Steps() int { return b.steps }

// Count is the number of entries of level l: floor(Steps / 2^l).
func (b *BLAExp) Count(l int) int { return b.steps >> l }

// Offset is the index of level l's first entry in Flat (in entries); Offset(Levels()) is the
// number of entries.
func (b *BLAExp) Offset(l int) int {
	off := 0
	for i := range l {
		off += b.steps >> i
	}
	return off
}

// Flat returns the table level by level, as BLA.Flat lays it out (level l's entry k at index
// Offset(l)+k): BLAExpStride mantissas per entry in mant, BLAExpExpStride exponents per entry in
// exp. The lookup rule is BLA's (see there), with the validity test |Re d| + |Im d| < R made
// on the extended delta (or on R64 for a float64 one), as PerturbEscapeExp makes it.
func (b *BLAExp) Flat() (mant []float64, exp []int32) {
	total := b.Offset(b.Levels())
	mant = make([]float64, BLAExpStride*total)
	exp = make([]int32, BLAExpExpStride*total)
	for l := range b.Levels() {
		off := b.Offset(l)
		for k := range b.Count(l) {
			e := &b.ent[int(b.base[k<<uint(l)])+l]
			i := off + k
			m := mant[BLAExpStride*i:][:BLAExpStride]
			m[0], m[1], m[2], m[3], m[4], m[5] = e.ar, e.ai, e.br, e.bi, e.rm, e.r64
			x := exp[BLAExpExpStride*i:][:BLAExpExpStride]
			x[0], x[1], x[2] = e.ae, e.be, e.re
		}
	}
	return mant, exp
}

// TinyZThreshold is the 1-norm |Re Z| + |Im Z| below which a reference value rounded to
// float64 may have lost precision (or become 0): the orbit keeps those values exactly beside
// Z (Tiny).
const TinyZThreshold = tinyZ

// TinyZ is one reference value kept exactly: Z[M] = (Re + i Im) 2^E, normalized as every
// extended value is (max(|Re|, |Im|) in [0.5, 1)).
type TinyZ struct {
	M      int
	Re, Im float64
	E      int
}

// Tiny returns the reference values kept exactly because float64 cannot hold them (those
// Z[m] whose float64 rounding has |Re| + |Im| < TinyZThreshold), sorted by index: the
// extended-exponent perturbation reads Z[m] from here, not from Z, when Z[m] is that small.
func (ref *Reference) Tiny() []TinyZ {
	out := make([]TinyZ, 0, len(ref.tiny))
	for m, z := range ref.tiny {
		out = append(out, TinyZ{M: m, Re: z.re, Im: z.im, E: z.e})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].M < out[j].M })
	return out
}

// FormulaBLAExpStride is the number of float64 values per entry in FormulaBLAExp.Flat's
// mantissas: the extended A's (a11, a12, a21, a22) and B's mantissas, Rm, R64, then the float64
// form's A and B' (B 2^Scale()); FormulaBLAExpExpStride the number of int32 values per entry
// in its exponents: Ae, Be, Re. The extended entry is A = [[a11, a12], [a21, a22]] 2^Ae, B
// likewise with Be, radius R = Rm 2^Re (Rm = 0: never valid); R64 is the float64 form's radius
// for the test of a float64 delta (see Flat).
const (
	FormulaBLAExpStride    = 18
	FormulaBLAExpExpStride = 3
)

// Levels is the number of levels in the table (as FormulaBLA.Levels).
func (b *FormulaBLAExp) Levels() int { return b.f64.Levels() }

// Offset is the index of level l's first entry in Flat (in entries); Offset(Levels()) is the
// number of entries.
func (b *FormulaBLAExp) Offset(l int) int { return b.f64.Offset(l) }

// Scale is the exponent the float64 form's B' carries: B' = B 2^Scale, multiplied by
// dc 2^-Scale (see the top of blaformula_exp.go).
func (b *FormulaBLAExp) Scale() int { return b.scale }

// Flat returns the table level by level, as FormulaBLA.Flat lays it out (level l's entry k at
// index Offset(l)+k): FormulaBLAExpStride mantissas per entry in mant, FormulaBLAExpExpStride
// exponents per entry in exp. A cx delta's lookup tests the extended radius, a float64 delta's
// R64: the float64 form's radius, lowered to the least of its own and those of the blocks
// below it at the same start (the float64 form zeroes a block whose A leaves float64's range,
// and the one above it need not be zero), so that a lookup from the top level down finds the
// block that perturbFormulaLoopExp's climb from level 0 finds (climbFormula stops at the first
// block that is not valid).
func (b *FormulaBLAExp) Flat() (mant []float64, exp []int32) {
	levels := b.Levels()
	total := b.Offset(levels)
	mant = make([]float64, FormulaBLAExpStride*total)
	exp = make([]int32, FormulaBLAExpExpStride*total)
	for l := range levels {
		off := b.Offset(l)
		for k := range b.steps >> l {
			j := int(b.base[k<<uint(l)]) + l
			e, f := &b.ent[j], &b.f64.ent[j]
			i := off + k
			r64 := f.r
			if l > 0 {
				r64 = min(r64, mant[FormulaBLAExpStride*(b.Offset(l-1)+2*k)+9])
			}
			m := mant[FormulaBLAExpStride*i:][:FormulaBLAExpStride]
			m[0], m[1], m[2], m[3] = e.a11, e.a12, e.a21, e.a22
			m[4], m[5], m[6], m[7] = e.b11, e.b12, e.b21, e.b22
			m[8], m[9] = e.rm, r64
			m[10], m[11], m[12], m[13] = f.a11, f.a12, f.a21, f.a22
			m[14], m[15], m[16], m[17] = f.b11, f.b12, f.b21, f.b22
			x := exp[FormulaBLAExpExpStride*i:][:FormulaBLAExpExpStride]
			x[0], x[1], x[2] = e.ae, e.be, e.re
		}
	}
	return mant, exp
}
