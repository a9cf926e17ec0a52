package fractal

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// juliaPoint is a point of the Julia set of c, to digits decimal digits: the repelling fixed
// point (1 + sqrt(1 - 4c)) / 2 pulled back k times by z -> +-sqrt(z - c) (signs from seed),
// in math/big (pulling back contracts, so the digits are good).
func juliaPoint(c JuliaParam, k int, seed uint64, digits int) (re, im Decimal) {
	return juliaPullBack(c, k, seed, digits, true)
}

// juliaPreimage is a k-th preimage of 0 (the critical point) under z -> z^2 + c: pixels near
// it pass near 0 at iteration k+1, where the reference point's orbit does not (a view offset
// from it), or does (a view centred on it), which is where perturbation must rebase.
func juliaPreimage(c JuliaParam, k int, seed uint64, digits int) (re, im Decimal) {
	return juliaPullBack(c, k, seed, digits, false)
}

func juliaPullBack(c JuliaParam, k int, seed uint64, digits int, fromFixed bool) (re, im Decimal) {
	prec := uint(float64(digits)*3.33) + 64
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	cr, ci := c.Re.Big(prec), c.Im.Big(prec)
	csqrt := func(ar, ai *big.Float) (*big.Float, *big.Float) {
		m := nf().Sqrt(nf().Add(nf().Mul(ar, ar), nf().Mul(ai, ai)))
		half := big.NewFloat(0.5)
		x := nf().Add(m, ar)
		x.Mul(x, half)
		y := nf().Sub(m, ar)
		y.Mul(y, half)
		if x.Sign() < 0 {
			x.SetInt64(0)
		}
		if y.Sign() < 0 {
			y.SetInt64(0)
		}
		x.Sqrt(x)
		y = nf().Sqrt(y)
		if ai.Sign() < 0 {
			y.Neg(y)
		}
		return x, y
	}
	// beta = (1 + sqrt(1 - 4c)) / 2
	ar := nf().Sub(big.NewFloat(1), nf().Mul(big.NewFloat(4), cr))
	ai := nf().Neg(nf().Mul(big.NewFloat(4), ci))
	sr, si := csqrt(ar, ai)
	zr := nf().Mul(nf().Add(big.NewFloat(1), sr), big.NewFloat(0.5))
	zi := nf().Mul(si, big.NewFloat(0.5))
	if !fromFixed {
		zr, zi = nf(), nf()
	}
	r := rand.New(rand.NewPCG(seed, 3))
	for range k {
		zr, zi = csqrt(nf().Sub(zr, cr), nf().Sub(zi, ci))
		if r.IntN(2) == 0 {
			zr.Neg(zr)
			zi.Neg(zi)
		}
	}
	return MustDecimal(zr.Text('g', digits)), MustDecimal(zi.Text('g', digits))
}

// juliaCases are the parameters of the verification: inside the Mandelbrot set (the rabbit,
// period 3), on its edge (c = i, a Misiurewicz point: a dendrite) and outside it (dust).
var juliaCases = []struct {
	name string
	c    JuliaParam
}{
	{"rabbit", JuliaParam{On: true, Re: MustDecimal("-0.12256116687665361237"), Im: MustDecimal("0.74486176661974423659")}},
	{"i", JuliaParam{On: true, Re: MustDecimal("0"), Im: MustDecimal("1")}},
	{"dust", JuliaParam{On: true, Re: MustDecimal("-0.75"), Im: MustDecimal("0.2")}},
}

// TestJuliaCasesWhere checks that the three parameters are where their names say: the
// rabbit's critical orbit settles (inside), c = i's does not escape, the dust's escapes.
func TestJuliaCasesWhere(t *testing.T) {
	for _, c := range juliaCases {
		n := EscapeBig(c.c.Re.Big(200), c.c.Im.Big(200), 10000, 200)
		if (n > 0) != (c.name == "dust") {
			t.Errorf("%s: Mandelbrot count of c %d", c.name, n)
		}
	}
}

// TestJuliaAtCIsMandelbrot: the Julia orbit of z1 = c is the Mandelbrot orbit of c, in every
// float precision, with and without the derivative's count.
func TestJuliaAtCIsMandelbrot(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		cr, ci := r.Float64()*4-2, r.Float64()*4-2
		if InMainBulbs(cr, ci) {
			continue
		}
		n1, nu1 := EscapeJulia64(cr, ci, cr, ci, 500)
		n2, nu2 := Escape64(cr, ci, 500)
		if n1 != n2 || nu1 != nu2 {
			t.Fatalf("c = %v%+vi: Julia %d %v, Mandelbrot %d %v", cr, ci, n1, nu1, n2, nu2)
		}
		if d := EscapeJuliaDE64(cr, ci, cr, ci, 500, 1e-3); d.N != n1 || d.Nu != nu1 {
			t.Fatalf("c = %v%+vi: Julia DE count %d %v, plain %d %v", cr, ci, d.N, d.Nu, n1, nu1)
		}
		m1, _ := EscapeJulia32(float32(cr), float32(ci), float32(cr), float32(ci), 500)
		m2, _ := Escape32(float32(cr), float32(ci), 500)
		if m1 != m2 {
			t.Fatalf("c = %v%+vi float32: Julia %d, Mandelbrot %d", cr, ci, m1, m2)
		}
	}
}

// TestJuliaDerivative: the distance estimate of a Julia pixel from dz/dz1 against a finite
// difference of the orbit (the derivative the colourings read is with respect to z1).
func TestJuliaDerivative(t *testing.T) {
	cr, ci := -0.8, 0.156
	for _, p := range [][2]float64{{0.3, 0.1}, {-0.5, 0.4}, {1.1, -0.2}} {
		const s = 1e-3
		r := EscapeJuliaDE64(p[0], p[1], cr, ci, 1000, s)
		if r.N < 0 {
			continue
		}
		// Iterate z and a neighbour h away to the same n; (z' - z) / h approximates dz/dz1.
		const h = 1e-9
		zr, zi, yr, yi := p[0], p[1], p[0]+h, p[1]
		for k := 1; k < r.N; k++ {
			zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
			yr, yi = yr*yr-yi*yi+cr, 2*yr*yi+ci
		}
		dr, di := (yr-zr)/h*s, (yi-zi)/h*s // scaled like w
		// The distance 2|z|ln|z|/|w| at n from the finite difference, against DE continued
		// to the smooth bailout: compare the derivative's size at n instead, by recomputing
		// the estimate at n with finishDE.
		de, _, _ := finishDE(zr, zi, dr, di)
		wr, wi := wAt(p[0], p[1], cr, ci, r.N, s)
		want, _, _ := finishDE(zr, zi, wr, wi)
		if math.Abs(de-want) > 1e-4*want {
			t.Errorf("pixel %v: distance %g from the finite difference, %g from w", p, de, want)
		}
	}
}

// wAt is the scaled derivative dz/dz1 * s at iteration n of the Julia orbit of z1.
func wAt(zr, zi, cr, ci float64, n int, s float64) (float64, float64) {
	wr, wi := s, 0.0
	for k := 1; k < n; k++ {
		wr, wi = 2*(zr*wr-zi*wi), 2*(zr*wi+zi*wr)
		zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
	}
	return wr, wi
}

// TestJuliaPerturbAgainstShallow: at a zoom float64 still resolves (1e9), a Julia frame
// forced to perturbation gives EscapeJulia64's counts on nearly every pixel.
func TestJuliaPerturbAgainstShallow(t *testing.T) {
	for _, c := range juliaCases {
		re, im := juliaPoint(c.c, 12, 5, 30)
		l := Home()
		l.Re, l.Im, l.Zoom, l.Iterations, l.Julia = re, im, MustDecimal("1e9"), 3000, c.c
		f := NewFrame(l, 64, 36)
		f.MinPrecision = Perturbation
		f, err := f.WithReference(context.Background(), &ReferenceCache{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		same, total := 0, 0
		for y := range f.H {
			for x := range f.W {
				n, _ := f.Escape(x, y)
				pr, pi := f.Point64(x, y)
				m, _ := EscapeJulia64(pr, pi, f.JRe, f.JIm, l.Iterations)
				total++
				if n == m || n > 0 && m > 0 && abs(n-m) <= 1 {
					same++
				}
			}
		}
		t.Logf("%s: %d of %d pixels within 1 iteration of float64", c.name, same, total)
		if same*100 < total*97 {
			t.Errorf("%s: %d of %d pixels within 1 iteration of float64, want 97%%", c.name, same, total)
		}
	}
}

// TestJuliaPerturbAgainstBig is the verification table of Julia sets at depth: views centred
// on points of the Julia set (juliaPoint) at zoom 1e50, 1e300 and 1e1000, for c inside the
// Mandelbrot set, on its edge and outside, sampled pixels computed by the renderers' path
// (Frame.Escape and Frame.Pixel: reference, rebasing to the critical orbit, BLA; extended
// exponents at 1e1000) against EscapeJuliaBig at two precisions (32 and 160 bits beyond the
// reference's); pixels where those differ are ill-conditioned and left out. At least 95% of
// the rest must be within 1 iteration.
func TestJuliaPerturbAgainstBig(t *testing.T) {
	zooms := []struct {
		zoom   string
		digits int
		iter   int
	}{{"1e50", 60, 1000}, {"1e300", 310, 3000}, {"1e1000", 1010, 6000}}
	k := 16
	if raceEnabled || testing.Short() {
		k = 4
	}
	for _, c := range juliaCases {
		for _, z := range zooms {
			for _, at := range []string{"J", "pre0"} {
				name := fmt.Sprintf("%s_%s_%s", c.name, z.zoom, at)
				t.Run(name, func(t *testing.T) {
					if (raceEnabled || testing.Short()) && z.zoom == "1e1000" {
						t.Skip("1e1000 in math/big takes too long under -race and -short")
					}
					re, im := juliaPoint(c.c, 40, uint64(len(name)), z.digits)
					if at == "pre0" {
						re, im = juliaPreimage(c.c, 30, uint64(len(name)), z.digits)
					}
					l := Home()
					l.Re, l.Im, l.Zoom, l.Iterations, l.Julia = re, im, MustDecimal(z.zoom), z.iter, c.c
					if at == "pre0" { // the preimage 100 pixels left of the centre
						l = l.Offset(100, 0, 640, 360)
					}
					f, err := NewFrame(l, 640, 360).WithReference(context.Background(), &ReferenceCache{}, nil)
					if err != nil {
						t.Fatal(err)
					}
					if !f.Precision().Perturbs() || f.Ref == nil || f.Ref.JuliaStart() == 0 {
						t.Fatalf("precision %v: want a Julia perturbation frame", f.Precision())
					}
					r := rand.New(rand.NewPCG(uint64(len(name)), 9))
					type px struct{ x, y, n, nd, b1, b2 int }
					pxs := make([]px, k)
					for i := range pxs {
						pxs[i] = px{x: r.IntN(f.W), y: r.IntN(f.H)}
					}
					p1 := f.ReferenceBits() + 32
					fd := f
					fd.Derivative = true
					parallel(2*k, func(i int) {
						p := &pxs[i/2]
						prec := p1 + uint(128*(i%2))
						zr, zi := f.PointBig(p.x, p.y, prec)
						b := EscapeJuliaBig(zr, zi, l.Julia.Re.Big(prec), l.Julia.Im.Big(prec), l.Iterations, prec)
						if i%2 == 0 {
							p.n, _ = f.Escape(p.x, p.y)
							p.nd = fd.Pixel(p.x, p.y).N
							p.b1 = b
						} else {
							p.b2 = b
						}
					})
					good, within, esc, most := 0, 0, 0, 0
					for _, p := range pxs {
						if p.n != p.nd {
							t.Errorf("pixel %d,%d: count %d without the derivative, %d with it", p.x, p.y, p.n, p.nd)
						}
						if p.b1 != p.b2 {
							t.Logf("pixel %d,%d ill-conditioned: math/big gives %d and %d", p.x, p.y, p.b1, p.b2)
							continue
						}
						good++
						if p.b1 > 0 {
							esc++
							most = max(most, p.b1)
						}
						if p.n == p.b1 || p.n >= 0 && p.b1 >= 0 && abs(p.n-p.b1) <= 1 {
							within++
						} else {
							t.Logf("pixel %d,%d: perturbation %d, math/big %d", p.x, p.y, p.n, p.b1)
						}
					}
					t.Logf("| %s | %s | %s | %s | %s | %d of %d (%d escape, up to %d iterations) |", c.name, c.c, at, z.zoom, f.Precision(), within, good, esc, most)
					if good < (len(pxs)+1)/2 || within*100 < good*95 {
						t.Errorf("%d of %d well-conditioned pixels (of %d) within 1 iteration of math/big, want 95%%", within, good, len(pxs))
					}
				})
			}
		}
	}
}

// TestJuliaInteriorByPeriod: for c inside the set (the rabbit) the critical orbit settles on
// its attracting 3-cycle, found by the period as a minibrot's reference is: a view with a
// million iterations computes the orbit to where it settles, not a million times, and its
// interior pixels run to the end (-1) through the repeated cycle, as math/big says.
func TestJuliaInteriorByPeriod(t *testing.T) {
	rabbit := juliaCases[0].c
	l := Home()
	l.Re, l.Im, l.Zoom, l.Iterations, l.Julia = MustDecimal("0.01"), MustDecimal("0.02"), MustDecimal("1e20"), 1_000_000, rabbit
	f, err := NewFrame(l, 64, 36).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Ref.Period(); p != 3 {
		t.Fatalf("critical orbit's period %d, want 3", p)
	}
	if f.Ref.computed > 10000 {
		t.Errorf("critical orbit computed to %d in math/big, want it to stop where it settles", f.Ref.computed)
	}
	if n := len(f.Ref.Z) - f.Ref.JuliaStart(); n > 10000 {
		t.Errorf("the reference point's orbit (inside) has %d values, want it to stop where it settles", n)
	}
	l.Iterations = 3000 // math/big runs every iteration of an interior pixel
	f, err = NewFrame(l, 64, 36).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]int{{0, 0}, {31, 17}, {63, 35}} {
		n, _ := f.Escape(p[0], p[1])
		zr, zi := f.PointBig(p[0], p[1], 200)
		if b := EscapeJuliaBig(zr, zi, rabbit.Re.Big(200), rabbit.Im.Big(200), l.Iterations, 200); n != b || n != -1 {
			t.Errorf("pixel %v: %d, math/big %d, want both inside (-1)", p, n, b)
		}
	}
}
