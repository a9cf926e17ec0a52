package fractal

import "math"

// The BLA table of a formula other than the Mandelbrot set's (formula.go): the same blocks
// and lookup as BLA's (see there), with 2x2 real matrices where the Mandelbrot set's table has
// complex numbers, because the folds' step is not complex-linear.
//
// One step. A pixel's value is Z + d, Z = X + iY the reference's; perturbStep gives the next
// delta as (W + u)^D - W^D + dc, W = f(Z) and u = f(Z + d) - f(Z). Where no fold is crossed,
// u = S d exactly, S = diag(sx, sy): (1, 1) for the identity, (1, -1) for the conjugate, and
// for the Burning Ship (sign X, sign Y), the case of diffAbs where X + x keeps X's sign (and
// Y + y Y's). Then
//
//	(W + u)^D - W^D = P u + E,   P = D W^(D-1),   E = sum_(k=2..D) C(D,k) W^(D-k) u^k,
//
// and the step is d' = A d + dc with the real matrix A = M(P) S, M(p) being multiplication by
// the complex number p ([[Re p, -Im p], [Im p, Re p]]). For the Burning Ship of power 2 that is
// A = [[2X, -2Y], [2 sx sy Y, 2 sx sy X]]; for the Mandelbar [[2X, -2Y], [-2Y, -2X]] (it maps d
// to 2 conj(Z d)).
//
// Its validity. With t = |u|/|W| = |d|/|W|, since C(D,k) <= C(D,2) C(D-2,k-2),
//
//	|E| <= C(D,2) |W|^(D-2) |u|^2 (1 + t)^(D-2),   so   |E| / |P u| <= (D-1)/2 t (1 + t)^(D-2),
//
// and |d| < eps |W| / (D - 1) keeps the neglected part below eps/2 (1 + eps)^6 of the linear
// one: for D = 2 that is BLA's eps |Z|, the Mandelbrot set's radius. The Burning Ship's step
// is linear only while no fold is crossed: |x| < |X| and |y| < |Y|, which |d| < min(|X|, |Y|)
// ensures; its radius takes half of that, min(|X|, |Y|)/2, so that the approximated delta a
// block's radius bounds (not the true one, which differs from it by the table's error) stays
// well away from every fold of the block's steps. A reference value on an axis (X or Y zero)
// has radius 0: no block starts there or spans it.
//
// Blocks. Level l merges entries x (the first 2^(l-1) steps) and y as BLA does, with matrices:
// A = Ay Ax, B = Ay Bx + By, R = min(Rx, max(0, (Ry - |Bx| DcMax) / |Ax|)), |M| being the
// spectral norm (the largest singular value, exact for a 2x2 matrix: specNorm), so that the
// bound is as tight as BLA's for a conformal A. Every radius is one on |d| (the Euclidean norm);
// the loop tests |Re d| + |Im d| < R, which implies it.

// FormulaBLA is the bilinear approximation table of a formula's reference orbit, for pixels
// with |dc| <= DcMax: the layout and lookup rule of BLA (levels of 2^l steps, entry k of level
// l starting at m = 1 + k*2^l), each entry saying that while |d| < R the block's steps give
//
//	d' = A d + B dc
//
// with A and B real 2x2 matrices acting on (Re d, Im d) and (Re dc, Im dc) (see the top of
// blaformula.go for the single step and its radius). Immutable and safe for concurrent use.
type FormulaBLA struct {
	DcMax float64 // the bound on |dc| it was built for (a power of two)
	Eps   float64 // its accuracy parameter
	steps int     // S: the steps from m = 1 to S are covered
	ent   []fblaEntry
	base  []int32 // the entries starting at m = k+1 are ent[base[k]:base[k+1]], level 0 first
	// r0[m] is the radius of the one-step block at m (0 at m = 0 and past the table's end),
	// alone and in order: the test most steps end with reads one float64, not an entry.
	r0 []float64
	// rad and near are BLA's (see there) for the vector loops (PerturbEscapeFormulaBatch):
	// ent's radii alone in ent's order (8 zeros past the end), and the 1-norm of a delta
	// below which a step landing on m needs no check (nearBound of |Z_m|, which does not
	// depend on the formula).
	rad, near []float64
}

// fblaEntry is one block: A = [[a11, a12], [a21, a22]], B likewise, and its radius.
type fblaEntry struct {
	a11, a12, a21, a22 float64
	b11, b12, b21, b22 float64
	r                  float64
}

// table is what a pixel's loop reads: the entries grouped by start, their index and the
// level-0 radii by start (r0); all empty for a nil b.
func (b *FormulaBLA) table() (ent []fblaEntry, base []int32, r0 []float64) {
	if b == nil {
		return nil, nil, nil
	}
	return b.ent, b.base, b.r0
}

// Steps is S, the number of reference steps (from m = 1 to S) the table covers.
func (b *FormulaBLA) Steps() int { return b.steps }

// FormulaBLAStride is the number of float64 values per entry in FormulaBLA.Flat: A (a11, a12,
// a21, a22), B (b11, b12, b21, b22), R and 0 (five texels of two float64s on the GPU).
const FormulaBLAStride = 10

// Levels is the number of levels: level l has Steps() >> l entries (0 levels for no steps).
func (b *FormulaBLA) Levels() int {
	n := 0
	for b.steps>>n >= 1 {
		n++
	}
	return n
}

// Offset is level l's first entry in Flat (Offset(Levels()) the number of entries): the
// entries of the levels below it.
func (b *FormulaBLA) Offset(l int) int {
	o := 0
	for j := range l {
		o += b.steps >> j
	}
	return o
}

// Flat returns the table for a texture upload, in BLA.Flat's layout (levels one after another,
// level l's entry k, the block of the 2^l steps from m = 1 + k 2^l, at Offset(l) + k):
// FormulaBLAStride float64 values an entry. The shader's lookup (the largest valid level from
// the top one down) finds the block this table's loops find climbing from level 0: a block's
// radius is at most its first half's.
func (b *FormulaBLA) Flat() []float64 {
	levels := b.Levels()
	out := make([]float64, FormulaBLAStride*b.Offset(levels))
	for l := range levels {
		for k := range b.steps >> l {
			e := b.ent[int(b.base[k<<uint(l)])+l]
			o := out[FormulaBLAStride*(b.Offset(l)+k):][:FormulaBLAStride]
			o[0], o[1], o[2], o[3] = e.a11, e.a12, e.a21, e.a22
			o[4], o[5], o[6], o[7] = e.b11, e.b12, e.b21, e.b22
			o[8] = e.r
		}
	}
	return out
}

// Bytes is the table's memory in bytes: 72 an entry and 8 for its radius in rad, 4 a step
// for the index and 8 for r0, 8 a value of the orbit for near.
func (b *FormulaBLA) Bytes() int {
	return 72*len(b.ent) + 4*len(b.base) + 8*len(b.r0) + 8*len(b.rad) + 8*len(b.near)
}

// FormulaBLA returns the table of ref's formula for pixels with |dc| <= dcMax at accuracy eps,
// built once per power of two of dcMax (rounded up) and eps, and kept in ref (the two most
// recent), as BLAWithEpsilon keeps the Mandelbrot set's. Safe for concurrent use.
func (ref *Reference) FormulaBLA(dcMax, eps float64) *FormulaBLA {
	if !(dcMax > 0) || math.IsInf(dcMax, 0) {
		dcMax = math.SmallestNonzeroFloat64
	}
	frac, exp := math.Frexp(dcMax)
	if frac == 0.5 {
		exp--
	}
	dcMax = math.Ldexp(1, exp)
	ref.blaMu.Lock()
	defer ref.blaMu.Unlock()
	for i, b := range ref.fblas {
		if b.DcMax == dcMax && b.Eps == eps {
			copy(ref.fblas[1:i+1], ref.fblas[:i])
			ref.fblas[0] = b
			return b
		}
	}
	b := buildFormulaBLA(ref.formula, ref.Z, dcMax, eps, ref.jStart-1)
	ref.fblas = append([]*FormulaBLA{b}, ref.fblas[:min(len(ref.fblas), maxBLAs-1)]...)
	return b
}

// FormulaBLAEpsilon is the relative error a formula's BLA block may add: a float64 step's
// rounding, chosen by measurement (TestFormulaBLAAgainstBig and docs/deep-zoom.md). The
// Mandelbrot set's 2^-44 (DefaultBLAEpsilon) made the Burning Ship's chaotic pixels wrong
// where plain perturbation had them right: at 1e50 near -1 - i, of the 480x360 pixels whose
// counts the two loops differ on, math/big sided with plain perturbation on 187 and with
// the BLA on 12; at 2^-53, 18 and 28, for 62% of the iterations skipped instead of 68%.
const FormulaBLAEpsilon = 0x1p-53

// FormulaBLA is the table of f's reference for f's pixels (the bound on |dc| Frame.BLA's, the
// accuracy FormulaBLAEpsilon), nil when f has no reference or draws the Mandelbrot set (whose
// table is BLA).
func (f Frame) FormulaBLA() *FormulaBLA {
	if f.Ref == nil || f.Ref.formula.IsMandelbrot() {
		return nil
	}
	if f.Ref.julia.On {
		return f.Ref.FormulaBLA(0, FormulaBLAEpsilon) // no dc term: B never enters
	}
	return f.Ref.FormulaBLA(f.DeltaMax(), FormulaBLAEpsilon)
}

// formulaStepBLA is the single step's block at reference value Z = (zr, zi): its matrix A
// (B is the identity) and radius (see the top of blaformula.go).
func formulaStepBLA(fm Formula, zr, zi, eps float64) fblaEntry {
	wr, wi := zr, zi
	sx, sy := 1.0, 1.0
	r := math.Inf(1)
	switch fm.Kind {
	case BurningShip:
		wr, wi = math.Abs(zr), math.Abs(zi)
		if zr < 0 {
			sx = -1
		}
		if zi < 0 {
			sy = -1
		}
		r = min(wr, wi) / 2
	case Mandelbar:
		wi, sy = -zi, -1
	}
	d := fm.Power()
	// P = D W^(D-1)
	pr, pi := wr, wi
	for range d - 2 {
		pr, pi = pr*wr-pi*wi, pr*wi+pi*wr
	}
	pr, pi = float64(d)*pr, float64(d)*pi
	r = min(r, eps*math.Hypot(wr, wi)/float64(d-1))
	e := fblaEntry{a11: pr * sx, a12: -pi * sy, a21: pi * sx, a22: pr * sy, b11: 1, b22: 1, r: r}
	if !finite(e.a11) || !finite(e.a12) || !finite(e.a21) || !finite(e.a22) || !(r >= 0) {
		return fblaEntry{}
	}
	return e
}

// mergeFormulaBLA is the block of x's steps followed by y's.
func mergeFormulaBLA(x, y *fblaEntry, dcMax float64) fblaEntry {
	e := fblaEntry{
		a11: y.a11*x.a11 + y.a12*x.a21,
		a12: y.a11*x.a12 + y.a12*x.a22,
		a21: y.a21*x.a11 + y.a22*x.a21,
		a22: y.a21*x.a12 + y.a22*x.a22,
		b11: y.a11*x.b11 + y.a12*x.b21 + y.b11,
		b12: y.a11*x.b12 + y.a12*x.b22 + y.b12,
		b21: y.a21*x.b11 + y.a22*x.b21 + y.b21,
		b22: y.a21*x.b12 + y.a22*x.b22 + y.b22,
	}
	t := (y.r - specNorm(x.b11, x.b12, x.b21, x.b22)*dcMax) / specNorm(x.a11, x.a12, x.a21, x.a22)
	if !(t >= 0) {
		t = 0
	}
	r := min(x.r, t)
	for _, v := range [...]float64{e.a11, e.a12, e.a21, e.a22, e.b11, e.b12, e.b21, e.b22} {
		if !finite(v) {
			return fblaEntry{}
		}
	}
	if !(r >= 0) {
		return fblaEntry{}
	}
	e.r = r
	return e
}

// specNorm is the spectral norm of [[a, b], [c, d]] (its largest singular value): |q| + |s|
// with q = ((a+d) + i(c-b))/2 and s = ((a-d) + i(c+b))/2, the matrix being z -> q z + s conj(z).
// For a conformal matrix (s = 0) it is |q|, the modulus BLA divides by.
func specNorm(a, b, c, d float64) float64 {
	return (math.Hypot(a+d, c-b) + math.Hypot(a-d, c+b)) / 2
}

// buildFormulaBLA builds the table of formula fm's orbit z; the step from index cut (a Julia
// reference's last critical-orbit index: -1 for none) gets R = 0, and so every block spanning it.
func buildFormulaBLA(fm Formula, z []complex128, dcMax, eps float64, cut int) *FormulaBLA {
	steps := max(0, len(z)-2)
	b := &FormulaBLA{DcMax: dcMax, Eps: eps, steps: steps}
	// Level l has steps>>l entries; entry k of level l starts at step k<<l. Grouped by start.
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
	b.ent = make([]fblaEntry, n)
	at := func(l, k int) *fblaEntry { return &b.ent[int(b.base[k<<uint(l)])+l] }
	for k := range steps {
		if k+1 == cut {
			continue // the zero entry: never valid
		}
		zm := z[k+1]
		*at(0, k) = formulaStepBLA(fm, real(zm), imag(zm), eps)
	}
	for l := 1; l < levels; l++ {
		for k := range steps >> uint(l) {
			*at(l, k) = mergeFormulaBLA(at(l-1, 2*k), at(l-1, 2*k+1), dcMax)
		}
	}
	b.r0 = make([]float64, steps+1)
	for k := range steps {
		b.r0[k+1] = at(0, k).r
	}
	b.rad = make([]float64, len(b.ent), len(b.ent)+8) // 8 zeros past the end, as BLA's
	b.rad = b.rad[:cap(b.rad)]
	for i, e := range b.ent {
		b.rad[i] = e.r
	}
	b.near = make([]float64, len(z))
	for m, zm := range z {
		b.near[m] = nearBound(math.Hypot(real(zm), imag(zm)))
	}
	return b
}
