// Command finddeep finds the deep test locations in ../deep.txt: from a start point and a
// radius, it finds the period p of the lowest-period minibrot within that radius (the first
// n where the disc's image under z_n, estimated by |z_n| < |dz_n/dc| * r, contains 0), then its
// nucleus by Newton's method on z_p(c) = 0 in math/big, and prints the nucleus, its period,
// its size estimate (mathr's 1/(beta*lambda^2)) and a zoom at which it spans a tenth of the
// image. Run: go run ./fractal/testdata/finddeep RE IM RADIUS PREC [PERIOD]
package main

import (
	"fmt"
	"math"
	"math/big"
	"math/cmplx"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) != 5 && len(os.Args) != 6 {
		fmt.Fprintln(os.Stderr, "usage: finddeep RE IM RADIUS PREC [PERIOD]")
		os.Exit(2)
	}
	prec64, _ := strconv.ParseUint(os.Args[4], 10, 32)
	prec := uint(prec64)
	cr, _, _ := big.ParseFloat(os.Args[1], 10, prec, big.ToNearestEven)
	ci, _, _ := big.ParseFloat(os.Args[2], 10, prec, big.ToNearestEven)
	r, _, _ := big.ParseFloat(os.Args[3], 10, 64, big.ToNearestEven)
	p := ballPeriod(cr, ci, r, prec, 10_000_000)
	if len(os.Args) == 6 { // a given period instead
		p, _ = strconv.Atoi(os.Args[5])
	}
	if p < 0 {
		fmt.Println("no period found")
		os.Exit(1)
	}
	fmt.Println("period", p)
	for i := range 64 {
		step := newton(cr, ci, p, prec)
		fmt.Fprintln(os.Stderr, "newton", i, "step 2^", step)
		if step < -float64(prec)+8 {
			break
		}
	}
	size := sizeEstimate(cr, ci, p, prec)
	fmt.Println("re", cr.Text('g', int(float64(prec)/3.33)))
	fmt.Println("im", ci.Text('g', int(float64(prec)/3.33)))
	fmt.Printf("size %.17g %.17g |size| %.4g zoom(size a tenth) %.4g\n", real(size), imag(size), cmplx.Abs(size), 0.4/cmplx.Abs(size))
}

type cplx struct{ r, i *big.Float }

func ballPeriod(cr, ci, rad *big.Float, prec uint, maxIter int) int {
	zr, zi := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
	dr, di := 0.0, 0.0 // dz/dc in float64 with a separate scale (log2)
	rr, _ := rad.Float64()
	lr := math.Log2(rr)
	t := new(big.Float).SetPrec(prec)
	for n := 1; n <= maxIter; n++ {
		fr, _ := zr.Float64()
		fi, _ := zi.Float64()
		// dz <- 2 z dz + 1 (scaled: dz = (dr, di) * 2^-lr so that |dz|*r = |(dr,di)|)
		dr, di = 2*(fr*dr-fi*di)+rr, 2*(fr*di+fi*dr)
		t.Mul(zr, zi)
		t.SetMantExp(t, 1)
		zr.Sub(new(big.Float).Mul(zr, zr), new(big.Float).Mul(zi, zi))
		zr.Add(zr, cr)
		zi.Add(t, ci)
		fr, _ = zr.Float64()
		fi, _ = zi.Float64()
		if fr*fr+fi*fi > 4 {
			return -1
		}
		if math.Hypot(fr, fi) < math.Hypot(dr, di) {
			return n
		}
		_ = lr
	}
	return -1
}

// newton does one Newton step on z_p(c) = 0 in place and returns log2 of the step size.
func newton(cr, ci *big.Float, p int, prec uint) float64 {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	zr, zi, dr, di := nf(), nf(), nf(), nf()
	t1, t2, t3, t4 := nf(), nf(), nf(), nf()
	one := big.NewFloat(1)
	for range p {
		// d <- 2 z d + 1
		t1.Mul(zr, dr)
		t2.Mul(zi, di)
		t3.Mul(zr, di)
		t4.Mul(zi, dr)
		ndr := nf().Sub(t1, t2)
		ndr.SetMantExp(ndr, 1)
		ndr.Add(ndr, one)
		ndi := nf().Add(t3, t4)
		ndi.SetMantExp(ndi, 1)
		dr, di = ndr, ndi
		// z <- z^2 + c
		t1.Mul(zr, zr)
		t2.Mul(zi, zi)
		t3.Mul(zr, zi)
		zr.Sub(t1, t2)
		zr.Add(zr, cr)
		zi.SetMantExp(t3, 1)
		zi.Add(zi, ci)
	}
	// c -= z / d
	den := nf().Add(nf().Mul(dr, dr), nf().Mul(di, di))
	qr := nf().Add(nf().Mul(zr, dr), nf().Mul(zi, di))
	qi := nf().Sub(nf().Mul(zi, dr), nf().Mul(zr, di))
	qr.Quo(qr, den)
	qi.Quo(qi, den)
	cr.Sub(cr, qr)
	ci.Sub(ci, qi)
	a := nf().Add(nf().Abs(qr), nf().Abs(qi))
	if a.Sign() == 0 {
		return -1e9
	}
	return float64(a.MantExp(nil))
}

func sizeEstimate(cr, ci *big.Float, p int, prec uint) complex128 {
	// b = sum 1/l_k, l_k = prod 2 z_j; size = 1/(b l^2), in float64 with the scale kept in logs
	zr, zi := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
	t := new(big.Float).SetPrec(prec)
	lr, li, le := 1.0, 0.0, 0.0 // l = (lr + i li) * 2^le
	br, bi := 1.0, 0.0
	for q := 1; q < p; q++ {
		t.Mul(zr, zi)
		t.SetMantExp(t, 1)
		zr.Sub(new(big.Float).Mul(zr, zr), new(big.Float).Mul(zi, zi))
		zr.Add(zr, cr)
		zi.Add(t, ci)
		fr, _ := zr.Float64()
		fi, _ := zi.Float64()
		lr, li = 2*(fr*lr-fi*li), 2*(fr*li+fi*lr)
		m := math.Hypot(lr, li)
		e := math.Floor(math.Log2(m))
		lr, li, le = lr/math.Exp2(e), li/math.Exp2(e), le+e
		// b += 1/l
		d := lr*lr + li*li
		s := math.Exp2(-le)
		br += lr / d * s
		bi += -li / d * s
	}
	// size = 1 / (b l^2), complex: its argument is the minibrot's rotation
	l2r, l2i := lr*lr-li*li, 2*lr*li
	qr, qi := br*l2r-bi*l2i, br*l2i+bi*l2r
	d := qr*qr + qi*qi
	return complex(qr/d, -qi/d) * complex(math.Exp2(-2*le), 0)
}
