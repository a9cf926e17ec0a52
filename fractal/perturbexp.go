package fractal

import "math"

// Perturbation past float64's exponent range (PerturbationExp frames).
//
// Deltas and BLA coefficients are complex numbers with one shared exponent, cx: (re + i im) *
// 2^e, normalized after each operation so that max(|re|, |im|) lies in [0.5, 1). A delta is
// kept that way only while it is tiny: once |d| >= 2^-900 the pixel continues with plain
// float64 steps (the same code as PerturbEscape) and returns to cx when it shrinks below
// 2^-950 again, so the extended exponent costs time only where it is needed. BLA jumps of a
// cx delta compute in cx, since A and B exceed float64's range at depth; those of a float64
// delta in float64, on the table's float64 form (BLAExp.float64Table), which needs no more
// range: A d and B dc are then near |d|, A near 1/|d| at most.

// The thresholds between the two forms of a delta, shared by PerturbEscapeExp and
// PerturbEscapeDEExp.
const (
	toDouble = -900     // a cx delta with e above this continues in float64
	toExp    = 0x1p-950 // a float64 delta below this goes back to cx
	tinyRef  = 0x1p-800 // |Z| above this: |Z + d| ~ |Z| for a cx delta (|d| < 2^-900)
)

// cxZeroExp is the exponent of a zero cx: far below any other, so that adding it to a
// non-zero value changes nothing.
const cxZeroExp = -1 << 40

// cx is a complex floatexp: (re + i im) * 2^e.
type cx struct {
	re, im float64
	e      int
}

// pow2 is 2^k for -1022 <= k <= 1023.
func pow2(k int) float64 { return math.Float64frombits(uint64(k+1023) << 52) }

// norm scales z so that max(|re|, |im|) lies in [0.5, 1).
func (z cx) norm() cx {
	a := math.Abs(z.re)
	if b := math.Abs(z.im); b > a {
		a = b
	}
	if a == 0 {
		return cx{e: cxZeroExp}
	}
	bits := math.Float64bits(a)
	k := int(bits>>52&0x7ff) - 1022 // a = f * 2^k with f in [0.5, 1)
	if bits>>52&0x7ff == 0 || k > 1000 {
		_, k = math.Frexp(a) // subnormal (or enormous) mantissas: rare
		return cx{math.Ldexp(z.re, -k), math.Ldexp(z.im, -k), z.e + k}
	}
	s := pow2(-k)
	return cx{z.re * s, z.im * s, z.e + k}
}

// cxFrom is (re + i im) as a cx.
func cxFrom(re, im float64) cx { return cx{re, im, 0}.norm() }

// cxFromExp is (re + i im) as a cx.
func cxFromExp(re, im Exp) cx {
	e := max(re.e, im.e)
	if re.m == 0 {
		e = im.e
	} else if im.m == 0 {
		e = re.e
	}
	return cx{math.Ldexp(re.m, re.e-e), math.Ldexp(im.m, im.e-e), e}.norm()
}

func cxMul(a, b cx) cx {
	return cx{a.re*b.re - a.im*b.im, a.re*b.im + a.im*b.re, a.e + b.e}.norm()
}

func cxAdd(a, b cx) cx {
	if a.e < b.e {
		a, b = b, a
	}
	d := a.e - b.e
	if d > 110 {
		return a
	}
	s := pow2(-d)
	return cx{a.re + b.re*s, a.im + b.im*s, a.e}.norm()
}

// float64s is z rounded to float64 (0 below its range).
func (z cx) float64s() (re, im float64) {
	switch {
	case z.e < -1100:
		return 0, 0
	case z.e >= -1021 && z.e <= 1023:
		s := pow2(z.e) // exact: the results are normal
		return z.re * s, z.im * s
	}
	return math.Ldexp(z.re, z.e), math.Ldexp(z.im, z.e)
}

// norm1 is |re| + |im| as a mantissa m and an exponent: the 1-norm the BLA test uses.
func (z cx) norm1() (m float64, e int) { return math.Abs(z.re) + math.Abs(z.im), z.e }

// lessExp reports whether am * 2^ae < bm * 2^be for non-negative mantissas of at most 4 in
// size (normalized ones, or sums of two).
func lessExp(am float64, ae int, bm float64, be int) bool {
	if bm == 0 {
		return false
	}
	if am == 0 {
		return true
	}
	switch d := ae - be; {
	case d > 8:
		return false
	case d < -8:
		return true
	default:
		return am*pow2(d) < bm
	}
}

// absLess reports whether |a| < |b|.
func absLess(a, b cx) bool {
	ma, mb := a.re*a.re+a.im*a.im, b.re*b.re+b.im*b.im // each in [0.25, 2], or 0
	return lessExp(ma, 2*a.e, mb, 2*b.e)
}

// zcx is the reference's Z[m] as a cx, exact for the tiny values float64 cannot hold.
func (ref *Reference) zcx(m int) cx {
	z := ref.Z[m]
	if ref.tiny != nil && math.Abs(real(z))+math.Abs(imag(z)) < tinyZ {
		if t, ok := ref.tiny[m]; ok {
			return t
		}
	}
	return cxFrom(real(z), imag(z))
}

// tinyZ is the size below which a reference value is kept exactly beside its float64
// rounding (Reference.tiny): float64 keeps full precision only down to 2^-1022.
const tinyZ = 0x1p-1000

// blaExpEntry is a BLA entry with extended exponents: A = (ar + i ai) 2^ae, B likewise, and
// the radius R = rm 2^re (rm = 0: never valid); r64 is R rounded to float64 (0 below its
// range, +Inf above), for the test of a float64 delta.
type blaExpEntry struct {
	ar, ai, br, bi, rm, r64 float64
	ae, be, re              int32
}

// BLAExp is the BLA table of a PerturbationExp frame: the same blocks, merging rule and
// lookup as BLA (see there), with A, B and the radius carrying their own exponents, so that
// none of them underflows or overflows however deep the view. It is immutable and safe for
// concurrent use.
type BLAExp struct {
	DcMax Exp     // the bound on |dc| it was built for (a power of two)
	Eps   float64 // its accuracy parameter
	steps int
	ent   []blaExpEntry // grouped by start, as BLA.ent
	base  []int32
	// f64 is the table again in float64, for the steps of a delta in float64 (see
	// float64Table): the same blocks at the same places, A rounded to float64 and B scaled by
	// 2^scale, so that B dc is B' dcs with the pixel's dcs = dc 2^-scale (scaledDC).
	f64   *BLA
	scale int
}

// table is BLA.table for the extended-exponent table.
func (b *BLAExp) table() (ent []blaExpEntry, base []int32, end int) {
	if b == nil {
		return nil, nil, 0
	}
	return b.ent, b.base, b.steps
}

// Bytes is the table's memory in bytes.
func (b *BLAExp) Bytes() int {
	return 64*len(b.ent) + 4*len(b.base) + 48*len(b.f64.ent) + 8*len(b.f64.rad) + 8*len(b.f64.near)
}

// scaledDC is dc 2^-scale in float64 (see BLAExp.f64): what a block of the float64 table
// multiplies by B'. A nil table has no blocks: 0.
func (b *BLAExp) scaledDC(dc cx) (re, im float64) {
	if b == nil || dc.re == 0 && dc.im == 0 {
		return 0, 0
	}
	return math.Ldexp(dc.re, dc.e-b.scale), math.Ldexp(dc.im, dc.e-b.scale)
}

// float64Table is the table b in float64 for a delta d in float64 (|d| >= 2^-950, so a
// block's A, and B dc, are near float64's range however deep the view): each entry's A
// rounded to float64, B scaled to B' = B 2^scale (with |dc| <= DcMax = 2^(scale-1), B dc =
// B' dcs, dcs = dc 2^-scale) and R rounded to float64. An entry whose A is not a normal
// float64 or whose B' is not finite gets R = 0 there: a float64 delta takes plain steps
// where it would start, or stops the climb. A B' below float64's normal range loses
// precision, but then |B dc| < 2^-1021 beside |A d| near |d| >= 2^-950: below its rounding.
// Its layout is BLA's (same base), so that the float64 loops, PerturbEscape's and the
// vector ones, run on it as they are.
func (b *BLAExp) float64Table(z []complex128) *BLA {
	f := &BLA{DcMax: b.DcMax.Float64(), Eps: b.Eps, steps: b.steps, base: b.base}
	total := 0
	for l := 0; b.steps>>l >= 1; l++ {
		f.offs = append(f.offs, total)
		total += b.steps >> l
	}
	f.offs = append(f.offs, total)
	f.ent = make([]blaEntry, len(b.ent))
	for i := range b.ent {
		x := &b.ent[i]
		e := blaEntry{
			ar: math.Ldexp(x.ar, int(x.ae)), ai: math.Ldexp(x.ai, int(x.ae)),
			br: math.Ldexp(x.br, int(x.be)+b.scale), bi: math.Ldexp(x.bi, int(x.be)+b.scale),
			r: x.r64,
		}
		if !(e.r > 0) || !finite(e.ar) || !finite(e.ai) || !finite(e.br) || !finite(e.bi) ||
			math.Abs(e.ar)+math.Abs(e.ai) < 0x1p-1020 {
			e = blaEntry{}
		}
		f.ent[i] = e
	}
	f.rad = make([]float64, len(f.ent), len(f.ent)+8) // 8 zeros past the end, as buildBLA's
	f.rad = f.rad[:cap(f.rad)]
	for i, e := range f.ent {
		f.rad[i] = e.r
	}
	f.near = make([]float64, len(z))
	for m, v := range z {
		f.near[m] = nearBound(math.Hypot(real(v), imag(v)))
	}
	return f
}

// BLAExp returns the extended-exponent table for pixels with |dc| <= dcMax at
// DefaultBLAEpsilon, built once per power of two of dcMax and kept in ref like BLA's tables.
func (ref *Reference) BLAExp(dcMax Exp) *BLAExp {
	return ref.BLAExpWithEpsilon(dcMax, DefaultBLAEpsilon)
}

// BLAExpWithEpsilon is BLAExp at another accuracy (see BLAWithEpsilon).
func (ref *Reference) BLAExpWithEpsilon(dcMax Exp, eps float64) *BLAExp {
	if dcMax.Sign() <= 0 || !dcMax.Finite() {
		dcMax = MakeExp(0.5, -1<<30)
	}
	// Round up to a power of two.
	if dcMax.m != 0.5 {
		dcMax = MakeExp(0.5, dcMax.e+1)
	}
	ref.blaMu.Lock()
	defer ref.blaMu.Unlock()
	for i, b := range ref.blaExps {
		if b.DcMax == dcMax && b.Eps == eps {
			copy(ref.blaExps[1:i+1], ref.blaExps[:i])
			ref.blaExps[0] = b
			return b
		}
	}
	b := ref.buildBLAExp(dcMax, eps)
	ref.blaExps = append([]*BLAExp{b}, ref.blaExps[:min(len(ref.blaExps), maxBLAs-1)]...)
	return b
}

type blaX struct {
	a, b cx
	r    Exp
}

func (ref *Reference) buildBLAExp(dcMax Exp, eps float64) *BLAExp {
	steps := max(0, len(ref.Z)-2)
	b := &BLAExp{DcMax: dcMax, Eps: eps, steps: steps}
	var offs []int
	total := 0
	for l := 0; steps>>l >= 1; l++ {
		offs = append(offs, total)
		total += steps >> l
	}
	offs = append(offs, total)
	lm := make([]blaX, total)
	one := cxFrom(1, 0)
	for k := range steps {
		z := ref.zcx(k + 1)
		a := z
		a.e++
		lm[k] = blaX{a: a, b: one, r: MakeExp(eps*math.Hypot(z.re, z.im), z.e)}
		if k+1 == ref.jStart-1 { // the critical orbit's end: see buildBLA
			lm[k] = blaX{}
		}
	}
	for l := 1; l < len(offs)-1; l++ {
		prev, cur := lm[offs[l-1]:offs[l]], lm[offs[l]:offs[l+1]]
		for k := range cur {
			x, y := &prev[2*k], &prev[2*k+1]
			e := blaX{a: cxMul(y.a, x.a), b: cxAdd(cxMul(y.a, x.b), y.b)}
			t := y.r.Sub(MakeExp(math.Hypot(x.b.re, x.b.im), x.b.e).Mul(dcMax)).Quo(MakeExp(math.Hypot(x.a.re, x.a.im), x.a.e))
			if !(t.m > 0) || !t.Finite() {
				t = Exp{}
			}
			e.r = x.r
			if t.Cmp(e.r) < 0 {
				e.r = t
			}
			if !finite(e.a.re) || !finite(e.a.im) || !finite(e.b.re) || !finite(e.b.im) {
				e = blaX{}
			}
			cur[k] = e
		}
	}
	levelsAt := func(k int) int {
		n := 1
		for l := 1; l < len(offs)-1 && k&(1<<uint(l)-1) == 0 && k>>uint(l) < offs[l+1]-offs[l]; l++ {
			n++
		}
		return n
	}
	b.base = make([]int32, steps+1)
	b.ent = make([]blaExpEntry, 0, total)
	clampE := func(e int) int32 { return int32(min(max(e, -1<<30), 1<<30)) }
	for k := range steps {
		b.base[k] = int32(len(b.ent))
		for l := 0; l < levelsAt(k); l++ {
			x := lm[offs[l]+k>>uint(l)]
			b.ent = append(b.ent, blaExpEntry{
				ar: x.a.re, ai: x.a.im, ae: clampE(x.a.e),
				br: x.b.re, bi: x.b.im, be: clampE(x.b.e),
				rm: x.r.m, re: clampE(x.r.e), r64: x.r.Float64(),
			})
		}
	}
	b.base[steps] = int32(len(b.ent))
	b.scale = dcMax.e
	b.f64 = b.float64Table(ref.Z)
	return b
}

// blaValid is the BLA test |d|_1 < R for a cx delta (exp: am 2^ae) or a float64 one (ad).
func blaValid(e *blaExpEntry, exp bool, am float64, ae int, ad float64) bool {
	if exp {
		return lessExp(am, ae, e.rm, int(e.re))
	}
	return ad < e.r64
}

// PerturbEscapeExp is PerturbEscape for a PerturbationExp frame: dc = (dcr, dci) may lie
// far below float64's range, and bla (nil: no approximation) is the frame's BLAExp. Deltas
// are iterated as extended-exponent numbers while they are tiny and as float64 once they are
// not (see the comment at the top of perturbexp.go); the rules (rebasing, the BLA lookup,
// escape and the smooth value) are PerturbEscape's, and so is stop.
func PerturbEscapeExp(ref *Reference, bla *BLAExp, dcr, dci Exp, maxIter int, stop <-chan struct{}) (n int, nu float64) {
	n, nu, _ = perturbEscapeExp(ref, bla, dcr, dci, maxIter, stop)
	return n, nu
}

// For a Julia reference, (dcre, dcim) is the pixel's z1 minus the reference point (julia.go).
func perturbEscapeExp(ref *Reference, bla *BLAExp, dcre, dcim Exp, maxIter int, stop <-chan struct{}) (n int, nu float64, steps int) {
	st, dc, done, n, nu := ref.startExp(dcre, dcim)
	if done {
		return n, nu, 0
	}
	n, nu, steps, _ = perturbLoopExp(ref, bla, &st, dc, maxIter, stop, false)
	return n, nu, steps
}

// An expState is where perturbLoopExp's loop stands at the top of an iteration: the delta (d
// while exp, else dr, di), index m and count n. A pixel's whole state: the vector loop takes
// one over where it holds a float64 delta, and gives it back where it does not (see
// PerturbEscapeExpBatch).
type expState struct {
	d      cx
	dr, di float64
	exp    bool
	m, n   int
	// The derivative, in PerturbEscapeDEExp's loop: w while exp, else wr, wi (exp: d or w
	// is tiny).
	w      cx
	wr, wi float64
}

// newExpState is the state with delta d at index m after n iterations: d in float64 where it
// is not tiny.
func newExpState(d cx, m, n int) expState {
	st := expState{d: d, exp: true, m: m, n: n}
	if d.e > toDouble {
		st.exp = false
		st.dr, st.di = d.float64s()
	}
	return st
}

// startExp is a pixel's start (perturbEscapeExp's): its state and the dc its steps add (0
// for a Julia set), or done with its result where a Julia pixel escapes at z1.
func (ref *Reference) startExp(dcre, dcim Exp) (st expState, dc cx, done bool, n int, nu float64) {
	zero := cx{e: cxZeroExp}
	if ref.jStart == 0 {
		return newExpState(zero, 0, 0), cxFromExp(dcre, dcim), false, 0, 0
	}
	d, m, escaped, zr, zi := ref.juliaStartExp(cxFromExp(dcre, dcim))
	if escaped {
		return expState{}, zero, true, 1, smooth(zr, zi, ref.jcr, ref.jci, 1)
	}
	return newExpState(d, m, 1), zero, false, 0, 0
}

// juliaStartExp is juliaStart for a delta d0 in extended form.
func (ref *Reference) juliaStartExp(d0 cx) (d cx, m int, escaped bool, zr, zi float64) {
	m = ref.jStart
	z := cxAdd(ref.zcx(m), d0)
	zr, zi = z.float64s()
	if z2 := zr*zr + zi*zi; math.Abs(zr)+math.Abs(zi) > 2*escLo && z2 > esc4Lo && escapesCx(ref.Z[m], d0, z2, 4) {
		return d0, m, true, zr, zi
	}
	if absLess(z, d0) || m == len(ref.Z)-1 {
		return z, 0, false, zr, zi
	}
	return d0, m, false, zr, zi
}

// perturbLoopExp is perturbEscapeExp's loop from the state st, with dc added every step (0
// for a Julia set). With handoff it returns at the first iteration's top but its first where
// the delta is in float64, handed set and st that state (what the vector loop takes over);
// otherwise, or where the pixel ends first, its n and nu, and for a pixel that reached
// maxIter without escaping st its state there.
func perturbLoopExp(ref *Reference, bla *BLAExp, st *expState, dc cx, maxIter int, stop <-chan struct{}, handoff bool) (_ int, _ float64, steps int, handed bool) {
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, tableEnd := bla.table()
	dcr, dci := dc.float64s() // 0 where dc is below float64's range: then negligible beside d
	dsr, dsi := bla.scaledDC(dc)
	var fent []blaEntry
	if bla != nil {
		fent = bla.f64.ent
	}
	d, dr, di, exp, m, n := st.d, st.dr, st.di, st.exp, st.m, st.n // exp: d holds the delta (else dr, di)
	for n < maxIter {
		if handoff && !exp && steps > 0 {
			*st = expState{d: d, dr: dr, di: di, exp: exp, m: m, n: n}
			return 0, 0, steps, true
		}
		steps++
		if steps&stopEvery == 0 && stopped(stop) {
			return -1, 0, steps, false
		}
		if m > 0 && m <= tableEnd {
			var ad float64
			if !exp {
				if ad = math.Abs(dr) + math.Abs(di); ad < toExp {
					d, exp = cxFrom(dr, di), true
				}
			}
			if exp {
				at := ent[base[m-1]:base[m]]
				am, ae := d.norm1()
				if e := &at[0]; lessExp(am, ae, e.rm, int(e.re)) {
					span := 1
					for l := 1; l < len(at) && n+span*2 <= maxIter && lessExp(am, ae, at[l].rm, int(at[l].re)); l++ {
						e, span = &at[l], span*2
					}
					d = cxAdd(cxMul(cx{e.ar, e.ai, int(e.ae)}, d), cxMul(cx{e.br, e.bi, int(e.be)}, dc))
					if exp = d.e <= toDouble; !exp {
						dr, di = d.float64s()
					}
					m += span
					n += span
					goto check
				}
			} else if at := fent[base[m-1]:base[m]]; ad < at[0].r {
				// PerturbEscape's block in float64, on the float64 table (see
				// BLAExp.float64Table): d <- A d + B' dcs.
				e, span := &at[0], 1
				for l := 1; l < len(at) && n+span*2 <= maxIter && ad < at[l].r; l++ {
					e, span = &at[l], span*2
				}
				dr, di = e.ar*dr-e.ai*di+e.br*dsr-e.bi*dsi, e.ar*di+e.ai*dr+e.br*dsi+e.bi*dsr
				m += span
				n += span
				goto check
			}
		}
		if exp {
			zm := ref.zcx(m)
			zm.e++
			d = cxAdd(cxMul(cxAdd(zm, d), d), dc) // (2Z + d) d + dc
			if d.e > toDouble {
				exp = false
				dr, di = d.float64s()
			}
		} else {
			zm := z[m]
			tr, ti := 2*real(zm)+dr, 2*imag(zm)+di
			if (math.Abs(tr)+math.Abs(ti))*(math.Abs(dr)+math.Abs(di)) >= toExp {
				dr, di = tr*dr-ti*di+dcr, tr*di+ti*dr+dci
			} else {
				// The product would fall out of float64's range (a tiny Z[m], near a
				// minibrot's nucleus, shrinks d by its size): this step in cx.
				t := ref.zcx(m)
				t.e++
				dd := cxFrom(dr, di)
				d = cxAdd(cxMul(cxAdd(t, dd), dd), dc)
				if exp = d.e <= toDouble; !exp {
					dr, di = d.float64s()
				}
			}
		}
		m++
		n++
	check:
		zm := z[m]
		if exp {
			zr, zi := real(zm), imag(zm)
			if math.Abs(zr)+math.Abs(zi) >= tinyRef {
				if z2 := zr*zr + zi*zi; z2 > esc4Lo && escapesCx(zm, d, z2, 4) {
					cr, ci := ref.smoothC(dcr, dci)
					return n, smooth(zr, zi, cr, ci, n), steps, false
				}
				if m == last && period > 0 {
					m -= period
				} else if m == last || m == jEnd {
					d = cxAdd(ref.zcx(m), d)
					m = 0
				}
			} else if w := cxAdd(ref.zcx(m), d); absLess(w, d) || m == last && period == 0 || m == jEnd {
				d = w
				m = 0
			} else if m == last {
				m -= period
			}
			if m == 0 && d.e > toDouble {
				exp = false
				dr, di = d.float64s()
			}
			continue
		}
		fs := expState{d: d, dr: dr, di: di, exp: exp, m: m, n: n}
		if zr, zi, escaped := ref.checkFloatExp(&fs, last, period, jEnd, false); escaped {
			cr, ci := ref.smoothC(dcr, dci)
			return n, smooth(zr, zi, cr, ci, n), steps, false
		}
		d, dr, di, exp, m = fs.d, fs.dr, fs.di, fs.exp, fs.m
	}
	if n >= maxIter {
		// Where a pixel that does not escape stopped (Frame.Interior goes on from there).
		*st = expState{d: d, dr: dr, di: di, exp: exp, m: m, n: n}
	}
	return -1, 0, steps, false
}

// checkFloatExp is perturbLoopExp's check after a step of a float64 delta (st.dr, st.di)
// landing on st.m: escaped with z = Z_m + d, or st rebased (to 0, back to cx where the delta
// or Z_m is tiny) or one period back, as PerturbEscape's check; last, period and jEnd are
// ref.ends(); with de, perturbLoopDEExp's, the derivative (st.wr, st.wi) going to cx with the
// delta. The vector loop's lanes take it (laneCheckExp).
func (ref *Reference) checkFloatExp(st *expState, last, period, jEnd int, de bool) (zr, zi float64, escaped bool) {
	return ref.checkFloatExpR(st, last, period, jEnd, de, 4)
}

// checkFloatExpR is checkFloatExp escaping where |z|^2 > bail2 (the orbit path's radius).
func (ref *Reference) checkFloatExpR(st *expState, last, period, jEnd int, de bool, bail2 float64) (zr, zi float64, escaped bool) {
	zm := ref.Z[st.m]
	dr, di := st.dr, st.di
	zr, zi = real(zm)+dr, imag(zm)+di
	z2 := zr*zr + zi*zi
	if z2 > bail2*escLo && escapes(zm, dr, di, z2, bail2) {
		return zr, zi, true
	}
	if st.m == last && period > 0 && !(z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di)) {
		st.m -= period
	} else if st.m == last || st.m == jEnd || z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) {
		if math.Abs(real(zm))+math.Abs(imag(zm)) < tinyRef {
			// Z[m] may be below float64's range (held exactly in ref.tiny): add in cx.
			st.d = cxAdd(ref.zcx(st.m), cxFrom(dr, di))
			st.exp = st.d.e <= toDouble
			if de {
				st.w = cxFrom(st.wr, st.wi)
				st.exp = st.exp || st.w.e <= toDouble
				st.wr, st.wi = st.w.float64s()
			}
			if !st.exp {
				st.dr, st.di = st.d.float64s()
			}
		} else if st.dr, st.di = zr, zi; math.Abs(zr)+math.Abs(zi) < toExp {
			st.d, st.exp = cxFrom(zr, zi), true
			if de {
				st.w = cxFrom(st.wr, st.wi)
			}
		}
		st.m = 0
	}
	return zr, zi, false
}
