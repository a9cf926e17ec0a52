package fractal

import "math"

// The formulas' BLA table past float64's exponent range (PerturbationExp frames of a formula
// other than the Mandelbrot set's): FormulaBLA's blocks, merging rule and lookup (see the top of
// blaformula.go), with each block's matrices A and B and its radius carrying exponents of their
// own, as BLAExp does for the Mandelbrot set. At zoom 1e400 a delta starts near 2^-1330: the
// radius of a block it may take lies far below float64's range, and A (the product of up to
// millions of steps' D W^(D-1)) far above it, as B does.
//
// A matrix is a jx (a 2x2 real mantissa, max |entry| in [0.5, 1), and an exponent: the
// Jacobian's type, perturb_formula_exp.go), a radius an Exp. A step's block is
// formulaStepBLA's (A = M(D W^(D-1)) S, B = I, R = min(eps |W| / (D-1), and for the Burning Ship
// min(|X|, |Y|) / 2)), taken on the mantissa of the reference's value held exactly (zcx: a tiny
// Z is not its float64 rounding) and scaled by its exponent. The merge is mergeFormulaBLA's,
// |M| the spectral norm of the mantissa times 2^e.
//
// A delta in cx (while it is tiny: perturb_formula_exp.go) takes a block in cx: d <- A d + B dc,
// each product normalized. A delta in float64 (|d| >= 2^-950) takes it on the table's float64
// form (float64Table): a FormulaBLA, so the float64 loop's lookup and block are
// perturbFormulaLoop's. Every A here is conformal or anti-conformal (M(p) times a sign matrix,
// and products of those), so |A d| = |A| |d|: an entry whose |A| is at least 2^-60 maps a
// float64 delta to at least 2^-1010, a normal float64; B' = B 2^scale and dcs = dc 2^-scale
// (scale: DcMax's exponent plus one, |dcs| <= 1/2), whose product's rounding (B' below
// float64's normal range, or 0) is at most 2^-1074 absolute, below the rounding of A d. A
// Julia set's table (DcMax 0: its steps add no dc) has B' = 0.

// FormulaBLAExp is the bilinear approximation table of a formula's reference orbit for a
// PerturbationExp frame: FormulaBLA's blocks and lookup (levels of 2^l steps, entry k of level
// l starting at m = 1 + k*2^l), each entry saying that while |d| < R the block's steps give
// d' = A d + B dc, with A, B and R carrying exponents of their own (see the top of
// blaformula_exp.go). Immutable and safe for concurrent use.
type FormulaBLAExp struct {
	DcMax Exp     // the bound on |dc| it was built for (a power of two; 0 for a Julia set)
	Eps   float64 // its accuracy parameter
	steps int
	ent   []fblaExpEntry // grouped by start, as FormulaBLA.ent
	base  []int32
	// f64 is the table in float64 for the blocks of a float64 delta (float64Table): the same
	// blocks at the same places, A rounded to float64, B scaled by 2^scale (B dc = B' dcs,
	// dcs = dc 2^-scale: scaledDC), R rounded to float64 (0 below its range).
	f64   *FormulaBLA
	scale int
}

// fblaExpEntry is one block: A = [[a11, a12], [a21, a22]] 2^ae, B likewise with be, and the
// radius R = rm 2^re (rm = 0: never valid). The exponents are clamped to ±2^30 (a zero
// matrix's, cxZeroExp, with them: its mantissas are 0).
type fblaExpEntry struct {
	a11, a12, a21, a22 float64
	b11, b12, b21, b22 float64
	rm                 float64
	ae, be, re         int32
}

// table is what a pixel's loop reads: the extended entries grouped by start, their index,
// the float64 form's entries and its level-0 radii by start (r0, length Steps()+1); all empty
// for a nil b.
func (b *FormulaBLAExp) table() (ent []fblaExpEntry, base []int32, fent []fblaEntry, r0 []float64) {
	if b == nil {
		return nil, nil, nil, nil
	}
	return b.ent, b.base, b.f64.ent, b.f64.r0
}

// Steps is S, the number of reference steps (from m = 1 to S) the table covers.
func (b *FormulaBLAExp) Steps() int { return b.steps }

// Bytes is the table's memory in bytes: 88 an extended entry, 72 its float64 form, and 4 and 8
// a step for the index and the float64 form's level-0 radii.
func (b *FormulaBLAExp) Bytes() int {
	return 88*len(b.ent) + 4*len(b.base) + 72*len(b.f64.ent) + 8*len(b.f64.r0)
}

// scaledDC is dc 2^-scale in float64 (what the float64 form's B' multiplies); 0 for a nil
// table or a zero dc.
func (b *FormulaBLAExp) scaledDC(dc cx) (re, im float64) {
	if b == nil || dc.re == 0 && dc.im == 0 {
		return 0, 0
	}
	return math.Ldexp(dc.re, dc.e-b.scale), math.Ldexp(dc.im, dc.e-b.scale)
}

// FormulaBLAExp returns the extended table of ref's formula for pixels with |dc| <= dcMax at
// accuracy eps, built once per power of two of dcMax (rounded up; 0, a Julia set's, kept) and
// eps, and kept in ref (the two most recent), as FormulaBLA keeps the float64 ones. Safe for
// concurrent use.
func (ref *Reference) FormulaBLAExp(dcMax Exp, eps float64) *FormulaBLAExp {
	if dcMax.Sign() < 0 || !dcMax.Finite() {
		dcMax = Exp{}
	}
	if dcMax.m != 0 && dcMax.m != 0.5 {
		dcMax = MakeExp(0.5, dcMax.e+1)
	}
	ref.blaMu.Lock()
	defer ref.blaMu.Unlock()
	for i, b := range ref.fblaExps {
		if b.DcMax == dcMax && b.Eps == eps {
			copy(ref.fblaExps[1:i+1], ref.fblaExps[:i])
			ref.fblaExps[0] = b
			return b
		}
	}
	b := ref.buildFormulaBLAExp(dcMax, eps)
	ref.fblaExps = append([]*FormulaBLAExp{b}, ref.fblaExps[:min(len(ref.fblaExps), maxBLAs-1)]...)
	return b
}

// FormulaBLAExp is the extended table of f's reference for f's pixels (the bound on |dc|
// DeltaMaxExp, 0 for a Julia set, whose steps add no dc; the accuracy FormulaBLAEpsilon), nil
// when f has no reference or draws the Mandelbrot set (whose table is BLAExp).
func (f Frame) FormulaBLAExp() *FormulaBLAExp {
	if f.Ref == nil || f.Ref.formula.IsMandelbrot() {
		return nil
	}
	if f.Ref.julia.On {
		return f.Ref.FormulaBLAExp(Exp{}, FormulaBLAEpsilon)
	}
	return f.Ref.FormulaBLAExp(f.DeltaMaxExp(), FormulaBLAEpsilon)
}

// fblaX is a block while the table is built: its matrices and radius.
type fblaX struct {
	a, b jx
	r    Exp
}

// jxZero is the zero matrix.
var jxZero = jx{e: cxZeroExp}

// isZero reports whether every entry of j is 0.
func (j jx) isZero() bool { return j.a == 0 && j.b == 0 && j.c == 0 && j.d == 0 }

// finite reports whether every entry of j is finite.
func (j jx) finite() bool { return finite(j.a) && finite(j.b) && finite(j.c) && finite(j.d) }

// jxMul is the matrix product p q.
func jxMul(p, q jx) jx {
	if p.isZero() || q.isZero() {
		return jxZero
	}
	return jx{
		a: p.a*q.a + p.b*q.c, b: p.a*q.b + p.b*q.d,
		c: p.c*q.a + p.d*q.c, d: p.c*q.b + p.d*q.d,
		e: p.e + q.e,
	}.norm()
}

// jxAdd is p + q.
func jxAdd(p, q jx) jx {
	switch {
	case p.isZero():
		return q
	case q.isZero():
		return p
	}
	if p.e < q.e {
		p, q = q, p
	}
	d := p.e - q.e
	if d > 110 {
		return p // q is below half an ulp of p's largest entry
	}
	s := pow2(-d)
	return jx{p.a + q.a*s, p.b + q.b*s, p.c + q.c*s, p.d + q.d*s, p.e}.norm()
}

// jxScale is j s.
func jxScale(j jx, s Exp) jx {
	if s.Sign() == 0 || j.isZero() {
		return jxZero
	}
	m := s.Mant()
	return jx{j.a * m, j.b * m, j.c * m, j.d * m, j.e + s.Exponent()}.norm()
}

// specNormX is the spectral norm of j (specNorm of its mantissa, times 2^e).
func specNormX(j jx) Exp {
	if j.isZero() {
		return Exp{}
	}
	return MakeExp(specNorm(j.a, j.b, j.c, j.d), j.e)
}

// formulaStepBLAX is formulaStepBLA for the reference value z (a cx, exact however small),
// taken on z's mantissa: the step's block is homogeneous in Z (A = M(D W^(D-1)) S scales by
// 2^((D-1)e), the radius by 2^e, the signs and the fold's bound do not change), so that a fold
// or power has its case in formulaStepBLA alone. B is the identity; a zero A is the zero block.
func formulaStepBLAX(fm Formula, z cx, eps float64) fblaX {
	s := formulaStepBLA(fm, z.re, z.im, eps)
	a := jx{s.a11, s.a12, s.a21, s.a22, (fm.Power() - 1) * z.e}.norm()
	if a.isZero() || !a.finite() {
		return fblaX{a: jxZero, b: jxZero}
	}
	return fblaX{a: a, b: jx{a: 0.5, d: 0.5, e: 1}, r: MakeExp(s.r, z.e)}
}

// mergeFormulaBLAX is mergeFormulaBLA in extended arithmetic: the block of x's steps followed
// by y's.
func mergeFormulaBLAX(x, y *fblaX, dcMax Exp) fblaX {
	e := fblaX{a: jxMul(y.a, x.a), b: jxAdd(jxMul(y.a, x.b), y.b)}
	t := Exp{}
	if na := specNormX(x.a); na.Sign() > 0 {
		t = y.r.Sub(specNormX(x.b).Mul(dcMax)).Quo(na)
	}
	if t.Sign() <= 0 || !t.Finite() {
		t = Exp{}
	}
	e.r = x.r
	if t.Cmp(e.r) < 0 {
		e.r = t
	}
	if !e.a.finite() || !e.b.finite() || e.r.Sign() <= 0 {
		return fblaX{a: jxZero, b: jxZero}
	}
	return e
}

// buildFormulaBLAExp builds the extended table of ref's formula (see the top of
// blaformula_exp.go); the step from a Julia reference's last critical-orbit index gets R = 0,
// and so does every block spanning it, as buildFormulaBLA's.
func (ref *Reference) buildFormulaBLAExp(dcMax Exp, eps float64) *FormulaBLAExp {
	steps := max(0, len(ref.Z)-2)
	b := &FormulaBLAExp{DcMax: dcMax, Eps: eps, steps: steps}
	// buildFormulaBLA's layout: level l has steps>>l entries, entry k of level l starts at step
	// k<<l; grouped by start, built in place (each merge reads its two halves' entries).
	levels := 0
	for steps>>levels >= 1 {
		levels++
	}
	levelsAt := func(k int) int {
		n := 1
		for l := 1; l < levels && k&(1<<uint(l)-1) == 0 && k>>uint(l) < steps>>uint(l); l++ {
			n++
		}
		return n
	}
	b.base = make([]int32, steps+1)
	n := 0
	for k := range steps {
		b.base[k] = int32(n)
		n += levelsAt(k)
	}
	b.base[steps] = int32(n)
	b.ent = make([]fblaExpEntry, n)
	at := func(l, k int) *fblaExpEntry { return &b.ent[int(b.base[k<<uint(l)])+l] }
	cut := ref.jStart - 1
	for k := range steps {
		if k+1 != cut { // the zero entry at the cut: never valid
			*at(0, k) = formulaStepBLAX(ref.formula, ref.zcx(k+1), eps).entry()
		}
	}
	for l := 1; l < levels; l++ {
		for k := range steps >> uint(l) {
			x, y := at(l-1, 2*k).block(), at(l-1, 2*k+1).block()
			*at(l, k) = mergeFormulaBLAX(&x, &y, dcMax).entry()
		}
	}
	b.scale = dcMax.e + 1 // |dc| <= DcMax = 2^(scale-1): |dcs| <= 1/2
	b.f64 = b.float64Table()
	return b
}

// entry is the block x as a table entry, its exponents clamped to ±2^30 (a zero matrix's
// and radius's mantissas are 0: their exponents do not matter).
func (x fblaX) entry() fblaExpEntry {
	clampE := func(e int) int32 { return int32(min(max(e, -1<<30), 1<<30)) }
	return fblaExpEntry{
		a11: x.a.a, a12: x.a.b, a21: x.a.c, a22: x.a.d, ae: clampE(x.a.e),
		b11: x.b.a, b12: x.b.b, b21: x.b.c, b22: x.b.d, be: clampE(x.b.e),
		rm: x.r.m, re: clampE(x.r.e),
	}
}

// block is the entry e as a block to merge.
func (e *fblaExpEntry) block() fblaX {
	return fblaX{
		a: jx{e.a11, e.a12, e.a21, e.a22, int(e.ae)},
		b: jx{e.b11, e.b12, e.b21, e.b22, int(e.be)},
		r: Exp{m: e.rm, e: int(e.re)},
	}
}

// float64Table is b's float64 form (see the top of blaformula_exp.go): each entry's A rounded
// to float64, B scaled to B' = B 2^scale and R rounded to float64, or the never-valid zero entry
// where A's largest entry is below 2^-60 (a float64 delta would leave the normal range) or
// anything is not finite.
func (b *FormulaBLAExp) float64Table() *FormulaBLA {
	f := &FormulaBLA{DcMax: b.DcMax.Float64(), Eps: b.Eps, steps: b.steps, base: b.base}
	f.ent = make([]fblaEntry, len(b.ent))
	for i := range b.ent {
		x := &b.ent[i]
		ae, be := int(x.ae), int(x.be)+b.scale
		e := fblaEntry{
			a11: math.Ldexp(x.a11, ae), a12: math.Ldexp(x.a12, ae), a21: math.Ldexp(x.a21, ae), a22: math.Ldexp(x.a22, ae),
			r: MakeExp(x.rm, int(x.re)).Float64(),
		}
		if b.DcMax.Sign() != 0 { // a Julia set's steps add no dc: B' stays 0
			e.b11, e.b12 = math.Ldexp(x.b11, be), math.Ldexp(x.b12, be)
			e.b21, e.b22 = math.Ldexp(x.b21, be), math.Ldexp(x.b22, be)
		}
		ok := e.r > 0 && max(math.Abs(e.a11), math.Abs(e.a12), math.Abs(e.a21), math.Abs(e.a22)) >= 0x1p-60
		for _, v := range [...]float64{e.a11, e.a12, e.a21, e.a22, e.b11, e.b12, e.b21, e.b22, e.r} {
			ok = ok && finite(v)
		}
		if !ok {
			e = fblaEntry{}
		}
		f.ent[i] = e
	}
	f.r0 = make([]float64, b.steps+1)
	for k := range b.steps {
		f.r0[k+1] = f.ent[b.base[k]].r
	}
	return f
}

// applyCx is the block's d' = A d + B dc for a delta d and dc in cx.
func (e *fblaExpEntry) applyCx(d, dc cx) cx {
	ad := cx{e.a11*d.re + e.a12*d.im, e.a21*d.re + e.a22*d.im, int(e.ae) + d.e}.norm()
	if dc.re == 0 && dc.im == 0 {
		return ad
	}
	bd := cx{e.b11*dc.re + e.b12*dc.im, e.b21*dc.re + e.b22*dc.im, int(e.be) + dc.e}.norm()
	return cxAdd(ad, bd)
}

// jacobian is the block's J' = A J + ws B (the derivative of d' = A d + B dc, J scaled by the
// spacing ws; 0 for a Julia set).
func (e *fblaExpEntry) jacobian(j jx, ws Exp) jx {
	a := jx{e.a11, e.a12, e.a21, e.a22, int(e.ae)}
	r := jxMul(a, j)
	if ws.Sign() != 0 {
		r = jxAdd(r, jxScale(jx{e.b11, e.b12, e.b21, e.b22, int(e.be)}, ws))
	}
	return r
}
