package fractal

import "math"

// PerturbEscapeDEExp is PerturbEscapeDE for a PerturbationExp frame: the same n and nu as
// PerturbEscapeExp, with the scaled derivative w = (dz/dc) * spacing carried beside the delta
// (see derivative.go and PerturbEscapeDE for its steps), in extended form while either is
// tiny and in float64 once both are not. The distance estimate may be +Inf (a pixel whose
// derivative is below float64's range: far from the set, in pixels). stop as for
// PerturbEscape.
//
// For a Julia reference, (dcre, dcim) is the pixel's z1 minus the reference point and w is
// dz/dz1 scaled (julia.go).
func PerturbEscapeDEExp(ref *Reference, bla *BLAExp, dcre, dcim Exp, maxIter int, spacing Exp, stop <-chan struct{}) Result {
	st, dc, ws, done, r := ref.startDEExp(dcre, dcim, spacing)
	if done {
		return r
	}
	r, _ = perturbLoopDEExp(ref, bla, &st, dc, ws, maxIter, stop, false)
	return r
}

// startDEExp is a pixel's start (PerturbEscapeDEExp's): its state, the dc its steps add to
// the delta and the ws they add to the derivative (0 for a Julia set, whose w starts at the
// spacing), or done with its result where a Julia pixel escapes at z1.
func (ref *Reference) startDEExp(dcre, dcim, spacing Exp) (st expState, dc cx, ws Exp, done bool, r Result) {
	zero := cx{e: cxZeroExp}
	if ref.jStart == 0 {
		return newDEExpState(zero, zero, 0, 0), cxFromExp(dcre, dcim), spacing, false, Result{}
	}
	d, m, escaped, zr, zi := ref.juliaStartExp(cxFromExp(dcre, dcim))
	w := cxFromExp(spacing, Exp{})
	if escaped {
		return expState{}, zero, Exp{}, true, smoothDEExp(zr, zi, ref.jcr, ref.jci, w, Exp{}, 1)
	}
	return newDEExpState(d, w, m, 1), zero, Exp{}, false, Result{}
}

// newDEExpState is the state with delta d and derivative w at index m after n iterations:
// both in float64 where neither is tiny.
func newDEExpState(d, w cx, m, n int) expState {
	st := expState{d: d, w: w, exp: true, m: m, n: n}
	if d.e > toDouble && w.e > toDouble {
		st.exp = false
		st.dr, st.di = d.float64s()
		st.wr, st.wi = w.float64s()
	}
	return st
}

// perturbLoopDEExp is PerturbEscapeDEExp's loop from the state st, with dc added to the
// delta every step and ws to the derivative (the spacing; zero for a Julia set). With
// handoff it returns at the first iteration's top but its first where the delta and the
// derivative are in float64, handed set and st that state (as perturbLoopExp).
//
// A float64 state takes PerturbEscapeDE's steps: its blocks on the table's float64 form
// (BLAExp.float64Table), with dc and the spacing scaled (B' dcs, B' sps), its plain steps
// with them in float64 (0 far below its range). It goes to cx before a step where the
// delta or the derivative is below 2^-950 (a block may start there) or a plain step's
// product would be, and in the check as perturbLoopExp's does.
func perturbLoopDEExp(ref *Reference, bla *BLAExp, st *expState, dc cx, ws Exp, maxIter int, stop <-chan struct{}, handoff bool) (_ Result, handed bool) {
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, tableEnd := bla.table()
	sp := cxFromExp(ws, Exp{})
	dcr, dci := dc.float64s()
	dsr, dsi := bla.scaledDC(dc)
	sps, _ := bla.scaledDC(sp)
	var fent []blaEntry
	if bla != nil {
		fent = bla.f64.ent
	}
	sp64 := ws.Float64()
	spacing := ws
	d, w, dr, di, wr, wi, exp, m, n := st.d, st.w, st.dr, st.di, st.wr, st.wi, st.exp, st.m, st.n
	toCx := func() { d, w, exp = cxFrom(dr, di), cxFrom(wr, wi), true }
	toFloat := func() {
		if d.e > toDouble && w.e > toDouble {
			dr, di = d.float64s()
			wr, wi = w.float64s()
			exp = false
		}
	}
	for steps := 1; n < maxIter; steps++ {
		if handoff && !exp && steps > 1 {
			*st = expState{d: d, dr: dr, di: di, exp: exp, m: m, n: n, w: w, wr: wr, wi: wi}
			return Result{}, true
		}
		if steps&stopEvery == 0 && stopped(stop) {
			return Result{N: -1}, false
		}
		if m > 0 && m <= tableEnd {
			var ad float64
			if !exp {
				if ad = math.Abs(dr) + math.Abs(di); ad < toExp || math.Abs(wr)+math.Abs(wi) < toExp {
					toCx()
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
					a, b := cx{e.ar, e.ai, int(e.ae)}, cx{e.br, e.bi, int(e.be)}
					d = cxAdd(cxMul(a, d), cxMul(b, dc))
					w = cxAdd(cxMul(a, w), cxMul(b, sp))
					toFloat()
					m += span
					n += span
					goto check
				}
			} else if at := fent[base[m-1]:base[m]]; ad < at[0].r {
				// PerturbEscapeDE's block, on the float64 table.
				e, span := &at[0], 1
				for l := 1; l < len(at) && n+span*2 <= maxIter && ad < at[l].r; l++ {
					e, span = &at[l], span*2
				}
				dr, di = e.ar*dr-e.ai*di+e.br*dsr-e.bi*dsi, e.ar*di+e.ai*dr+e.br*dsi+e.bi*dsr
				wr, wi = e.ar*wr-e.ai*wi+e.br*sps, e.ar*wi+e.ai*wr+e.bi*sps
				m += span
				n += span
				goto check
			}
		}
		if !exp {
			zm := z[m]
			fr, fi := real(zm)+dr, imag(zm)+di
			tr, ti := 2*real(zm)+dr, 2*imag(zm)+di
			if (math.Abs(tr)+math.Abs(ti))*(math.Abs(dr)+math.Abs(di)) < toExp ||
				(math.Abs(fr)+math.Abs(fi))*(math.Abs(wr)+math.Abs(wi)) < toExp {
				toCx() // a product would leave float64's range: this step in cx
			} else {
				// PerturbEscapeDE's plain step.
				wr, wi = 2*(fr*wr-fi*wi)+sp64, 2*(fr*wi+fi*wr)
				dr, di = tr*dr-ti*di+dcr, tr*di+ti*dr+dci
				m++
				n++
				goto check
			}
		}
		{
			zm := ref.zcx(m)
			zf := cxAdd(zm, d) // z before the step
			zf.e++
			w = cxAdd(cxMul(zf, w), sp)
			zm.e++
			d = cxAdd(cxMul(cxAdd(zm, d), d), dc)
			toFloat()
			m++
			n++
		}
	check:
		if exp {
			zm := z[m]
			zr, zi := real(zm), imag(zm)
			if math.Abs(zr)+math.Abs(zi) >= tinyRef {
				if z2 := zr*zr + zi*zi; z2 > esc4Lo && escapesCx(zm, d, z2, 4) {
					cr, ci := ref.smoothC(dcr, dci)
					return smoothDEExp(zr, zi, cr, ci, w, spacing, n), false
				}
				if m == last && period > 0 {
					m -= period
				} else if m == last || m == jEnd {
					d = cxAdd(ref.zcx(m), d)
					m = 0
				}
			} else if v := cxAdd(ref.zcx(m), d); absLess(v, d) || m == last && period == 0 || m == jEnd {
				d = v
				m = 0
			} else if m == last {
				m -= period
			}
			if m == 0 {
				toFloat()
			}
			continue
		}
		fs := expState{dr: dr, di: di, m: m, n: n, wr: wr, wi: wi}
		if zr, zi, escaped := ref.checkFloatExp(&fs, last, period, jEnd, true); escaped {
			cr, ci := ref.smoothC(dcr, dci)
			return smoothDEExp(zr, zi, cr, ci, cxFrom(wr, wi), spacing, n), false
		}
		d, w, dr, di, wr, wi, exp, m = fs.d, fs.w, fs.dr, fs.di, fs.wr, fs.wi, fs.exp, fs.m
	}
	return Result{N: -1}, false
}

// smoothDEExp is smoothDE with the derivative w given as a cx: the smooth continuation runs
// on w's mantissa with the spacing in w's scale, and the distance estimate is scaled back
// (+Inf when it leaves float64's range).
func smoothDEExp(zr, zi, cr, ci float64, w cx, spacing Exp, n int) Result {
	we := w.e
	if w.re == 0 && w.im == 0 {
		we = spacing.e
	}
	wr, wi := w.re, w.im
	s := spacing.Ldexp(-we).Float64()
	m := n
	r2 := zr*zr + zi*zi
	for r2 <= SmoothBailout && m < n+8 {
		wr, wi = 2*(zr*wr-zi*wi)+s, 2*(zr*wi+zi*wr)
		zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		r2 = zr*zr + zi*zi
		m++
	}
	r := Result{N: n, Nu: float64(m) + 1 - log2(0.5*log2(r2))}
	de, ur, ui := finishDE(zr, zi, wr, wi)
	r.DE, r.Ur, r.Ui = math.Ldexp(de, -we), ur, ui
	return r
}

// PixelSpacing is the frame's pixel spacing with an unbounded exponent (SpacingX, or Spacing
// where a frame scaled by hand in float64 says otherwise).
func (f Frame) PixelSpacing() Exp { return f.spacing() }
