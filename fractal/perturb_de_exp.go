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
	zero := cx{e: cxZeroExp}
	if ref.jStart == 0 {
		return perturbLoopDEExp(ref, bla, zero, zero, 0, 0, cxFromExp(dcre, dcim), spacing, maxIter, stop)
	}
	d, m, escaped, zr, zi := ref.juliaStartExp(cxFromExp(dcre, dcim))
	w := cxFromExp(spacing, Exp{})
	if escaped {
		return smoothDEExp(zr, zi, ref.jcr, ref.jci, w, Exp{}, 1)
	}
	return perturbLoopDEExp(ref, bla, d, w, m, 1, zero, Exp{}, maxIter, stop)
}

// perturbLoopDEExp is PerturbEscapeDEExp's loop from delta d and derivative w at index m
// after n iterations, with dc added to the delta every step and ws to the derivative (the
// spacing; zero for a Julia set).
func perturbLoopDEExp(ref *Reference, bla *BLAExp, d, w cx, m, n int, dc cx, ws Exp, maxIter int, stop <-chan struct{}) Result {
	z := ref.Z
	last, period, jEnd := ref.ends()
	ent, base, tableEnd := bla.table()
	sp := cxFromExp(ws, Exp{})
	dcr, dci := dc.float64s()
	sp64 := ws.Float64()
	spacing := ws
	var dr, di, wr, wi float64
	exp := true // d and w hold the state (else dr, di, wr, wi)
	toCx := func() { d, w, exp = cxFrom(dr, di), cxFrom(wr, wi), true }
	toFloat := func() {
		if d.e > toDouble && w.e > toDouble {
			dr, di = d.float64s()
			wr, wi = w.float64s()
			exp = false
		}
	}
	toFloat()
	stepped := false // this iteration's plain step was taken in float64
	for steps := 1; n < maxIter; steps++ {
		if steps&stopEvery == 0 && stopped(stop) {
			return Result{N: -1}
		}
		if m > 0 && m <= tableEnd {
			at := ent[base[m-1]:base[m]]
			var am, ad float64
			var ae int
			if !exp {
				if ad = math.Abs(dr) + math.Abs(di); ad < toExp || math.Abs(wr)+math.Abs(wi) < toExp {
					toCx()
				}
			}
			if exp {
				am, ae = d.norm1()
			}
			if e := &at[0]; blaValid(e, exp, am, ae, ad) {
				span := 1
				for l := 1; l < len(at) && n+span*2 <= maxIter && blaValid(&at[l], exp, am, ae, ad); l++ {
					e, span = &at[l], span*2
				}
				if !exp {
					toCx()
				}
				a, b := cx{e.ar, e.ai, int(e.ae)}, cx{e.br, e.bi, int(e.be)}
				d = cxAdd(cxMul(a, d), cxMul(b, dc))
				w = cxAdd(cxMul(a, w), cxMul(b, sp))
				toFloat()
				m += span
				n += span
				goto check
			}
		}
		stepped = false
		if !exp {
			zm := z[m]
			fr, fi := real(zm)+dr, imag(zm)+di
			tr, ti := 2*real(zm)+dr, 2*imag(zm)+di
			if (math.Abs(tr)+math.Abs(ti))*(math.Abs(dr)+math.Abs(di)) < toExp ||
				(math.Abs(fr)+math.Abs(fi))*(math.Abs(wr)+math.Abs(wi)) < toExp {
				toCx() // a product would leave float64's range: this step in cx
			} else {
				wr, wi = 2*(fr*wr-fi*wi)+sp64, 2*(fr*wi+fi*wr)
				dr, di = tr*dr-ti*di+dcr, tr*di+ti*dr+dci
				stepped = true
				if math.Abs(dr)+math.Abs(di) < toExp || math.Abs(wr)+math.Abs(wi) < toExp {
					toCx()
				}
			}
		}
		if exp && !stepped {
			zm := ref.zcx(m)
			zf := cxAdd(zm, d) // z before the step
			zf.e++
			w = cxAdd(cxMul(zf, w), sp)
			zm.e++
			d = cxAdd(cxMul(cxAdd(zm, d), d), dc)
			toFloat()
		}
		m++
		n++
	check:
		zm := z[m]
		if exp {
			zr, zi := real(zm), imag(zm)
			if math.Abs(zr)+math.Abs(zi) >= tinyRef {
				if zr*zr+zi*zi > 4 {
					cr, ci := ref.smoothC(dcr, dci)
					return smoothDEExp(zr, zi, cr, ci, w, spacing, n)
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
		zr, zi := real(zm)+dr, imag(zm)+di
		z2 := zr*zr + zi*zi
		if z2 > 4 {
			cr, ci := ref.smoothC(dcr, dci)
			return smoothDEExp(zr, zi, cr, ci, cxFrom(wr, wi), spacing, n)
		}
		if m == last && period > 0 && !(z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di)) {
			m -= period
		} else if m == last || m == jEnd || z2 < dr*dr+di*di || z2 < 0x1p-900 && rebaseTiny(zr, zi, dr, di) {
			if math.Abs(real(zm))+math.Abs(imag(zm)) < tinyRef {
				d, w, exp = cxAdd(ref.zcx(m), cxFrom(dr, di)), cxFrom(wr, wi), true
				toFloat()
			} else if dr, di = zr, zi; math.Abs(dr)+math.Abs(di) < toExp {
				toCx()
			}
			m = 0
		}
	}
	return Result{N: -1}
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
