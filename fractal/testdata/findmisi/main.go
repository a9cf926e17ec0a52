// Command findmisi makes the deep benchmark views past 1e300 (../deep/README.md): a view at a
// chosen zoom next to the copy of the Misiurewicz point c = i inside a minibrot of period P,
// where escape counts are about P times those next to i itself (so P sets the iteration
// count). It finds the period-P nucleus by Newton's method on z_P(c) = 0 from START (by
// default -2 + 15*4^-P, on the real axis), its complex size s (mathr's estimate
// 1/(beta lambda^2)), then the Misiurewicz point M by Newton's method on z_4P(c) = z_2P(c)
// from nucleus + s*i (the copy of i: preperiod P, period 2P), all in math/big at PREC bits.
// It prints the view's centre, M + (0.3 + 0.45i) / ZOOM, as a locations.txt line, and on
// stderr the centre's escape count and distance estimate (in units of 1/ZOOM: well below 1
// means the view shows structure).
//
// With -nucleus first, the view is centred on the nucleus itself instead (a reference orbit
// that returns within the view's size of 0 every P iterations).
//
// Run: go run ./fractal/testdata/findmisi [-nucleus] P ZOOM ITERATIONS PREC NAME [START_RE START_IM]
package main

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
)

type cplx struct{ r, i *big.Float }

var prec uint

func nf() *big.Float { return new(big.Float).SetPrec(prec) }

func mul(a, b cplx) cplx {
	t1, t2, t3, t4 := nf().Mul(a.r, b.r), nf().Mul(a.i, b.i), nf().Mul(a.r, b.i), nf().Mul(a.i, b.r)
	return cplx{t1.Sub(t1, t2), t3.Add(t3, t4)}
}

func add(a, b cplx) cplx { return cplx{nf().Add(a.r, b.r), nf().Add(a.i, b.i)} }
func sub(a, b cplx) cplx { return cplx{nf().Sub(a.r, b.r), nf().Sub(a.i, b.i)} }

func quo(a, b cplx) cplx {
	d := nf().Add(nf().Mul(b.r, b.r), nf().Mul(b.i, b.i))
	n := mul(a, cplx{b.r, nf().Neg(b.i)})
	return cplx{n.r.Quo(n.r, d), n.i.Quo(n.i, d)}
}

func num(f float64) cplx { return cplx{nf().SetFloat64(f), nf()} }

// orbit returns z_n(c) and dz_n/dc for each n in ns (ascending).
func orbit(c cplx, ns ...int) (zs, dzs []cplx) {
	z, dz := num(0), num(0)
	two := num(2)
	for n, k := 1, 0; k < len(ns); n++ {
		dz = add(mul(mul(two, z), dz), num(1))
		z = add(mul(z, z), c)
		if n == ns[k] {
			zs, dzs = append(zs, z), append(dzs, dz)
			k++
		}
	}
	return zs, dzs
}

func newton(c cplx, f func(c cplx) (cplx, cplx)) cplx {
	for i := range 200 {
		v, d := f(c)
		step := quo(v, d)
		c = sub(c, step)
		e := max(expOf(step.r), expOf(step.i))
		fmt.Fprintln(os.Stderr, "newton", i, "step 2^", e)
		if (step.r.Sign() == 0 && step.i.Sign() == 0) || e < -int(prec)+16 {
			return c
		}
	}
	fmt.Fprintln(os.Stderr, "newton did not converge")
	os.Exit(1)
	return c
}

// expOf is x's binary exponent, very negative for 0.
func expOf(x *big.Float) int {
	if x.Sign() == 0 {
		return -1 << 30
	}
	return x.MantExp(nil)
}

func main() {
	atNucleus := len(os.Args) > 1 && os.Args[1] == "-nucleus"
	if atNucleus {
		os.Args = append(os.Args[:1], os.Args[2:]...)
	}
	if len(os.Args) != 6 && len(os.Args) != 8 {
		fmt.Fprintln(os.Stderr, "usage: findmisi [-nucleus] P ZOOM ITERATIONS PREC NAME [START_RE START_IM]")
		os.Exit(2)
	}
	p, _ := strconv.Atoi(os.Args[1])
	pr, _ := strconv.Atoi(os.Args[4])
	prec = uint(pr)
	zoom, _, err := big.ParseFloat(os.Args[2], 10, prec, big.ToNearestEven)
	if err != nil || zoom.Sign() <= 0 {
		fmt.Fprintln(os.Stderr, "bad zoom", os.Args[2])
		os.Exit(2)
	}
	start := num(-2)
	start.r.Add(start.r, nf().SetMantExp(nf().SetFloat64(15), -2*p))
	if len(os.Args) == 8 { // another start for the nucleus
		start.r, _, _ = big.ParseFloat(os.Args[6], 10, prec, big.ToNearestEven)
		start.i, _, _ = big.ParseFloat(os.Args[7], 10, prec, big.ToNearestEven)
	}
	nucleus := newton(start, func(c cplx) (cplx, cplx) {
		zs, dzs := orbit(c, p)
		return zs[0], dzs[0]
	})
	// Size: 1 / (beta lambda^2), lambda = prod 2 z_j, beta = 1 + sum 1/lambda_j (j < p).
	l, b, z := num(1), num(1), num(0)
	for j := 1; j < p; j++ {
		z = add(mul(z, z), nucleus)
		l = mul(mul(num(2), z), l)
		b = add(b, quo(num(1), l))
	}
	s := quo(num(1), mul(b, mul(l, l)))
	fmt.Fprintf(os.Stderr, "nucleus %s, size %s %s\n", nucleus.r.Text('g', 30), s.r.Text('g', 5), s.i.Text('g', 5))
	m := nucleus
	if !atNucleus {
		m = newton(add(nucleus, mul(s, cplx{nf(), nf().SetFloat64(1)})), func(c cplx) (cplx, cplx) {
			zs, dzs := orbit(c, 2*p, 4*p)
			return sub(zs[1], zs[0]), sub(dzs[1], dzs[0])
		})
	}
	inv := nf().Quo(nf().SetFloat64(1), zoom)
	re := nf().Add(m.r, nf().Mul(nf().SetFloat64(0.3), inv))
	im := nf().Add(m.i, nf().Mul(nf().SetFloat64(0.45), inv))
	// The centre's distance estimate |z| log|z| / |dz/dc| at escape, in units of 1/zoom.
	z, dz := num(0), num(0)
	maxIter, _ := strconv.Atoi(os.Args[3])
	for n := 1; n <= maxIter; n++ {
		dz = add(mul(mul(num(2), z), dz), num(1))
		z = add(mul(z, z), cplx{re, im})
		zr, _ := z.r.Float64()
		zi, _ := z.i.Float64()
		if zr*zr+zi*zi > 1e6 {
			az := math.Hypot(zr, zi)
			d := nf().Add(nf().Mul(dz.r, dz.r), nf().Mul(dz.i, dz.i))
			d.Sqrt(d)
			d.Quo(nf().SetFloat64(az*math.Log(az)), d)
			d.Mul(d, zoom)
			fmt.Fprintf(os.Stderr, "centre escapes at %d; distance estimate %s / zoom\n", n, d.Text('g', 4))
			break
		}
	}
	digits := -inv.MantExp(nil)*3/10 + 20 // a few digits below a pixel at 65536 pixels
	fmt.Printf("%s %s %s %s %s\n", os.Args[5], re.Text('f', digits), im.Text('f', digits), os.Args[2], os.Args[3])
}
