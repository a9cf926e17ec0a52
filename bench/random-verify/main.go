// Command random-verify checks random views of every formula against math/big, away from
// the tests' fixtures: each view a formula (the Mandelbrot set, the Burning Ship, the
// Mandelbar, a power from 3 to 8), often a Julia set, sometimes turned, centred where a
// person zooms (a boundary point bisected between a point that stays and one that escapes,
// a repelling cycle point or a preimage of 0 of a Julia set, or a tip whose orbit lands on
// the escape circle), at a zoom drawn log-uniformly from 10^lo to 10^hi. Random pixels of a
// 320x180 frame and the pixels around its centre are computed as probe computes them
// (fractal.Frame.Escape) and in math/big at two precisions 128 bits apart (probe --exact is
// the first) and moved by 1e-13 of a pixel either way along each axis; a pixel whose math/big
// counts differ is ill-conditioned and left out, the others agree when within max(1, N/1000)
// of math/big (inside against a count within that of the limit agrees too). One line a
// view, then the totals; the exit status is 1 when a pixel disagrees.
//
// Usage (from the project root): go run ./bench/random-verify [-n VIEWS] [-px PIXELS] [-lo E]
// [-hi E] [-iter N] [-seed N] [-v] [-flags]
//
// With -flags it prints the views as export's flags instead, a line each, to draw them with
// each renderer and compare (scripts/random-renderers.sh).
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"mandelscope/fractal"
)

const w, h = 320, 180

func main() {
	n := flag.Int("n", 24, "the number of `views`")
	px := flag.Int("px", 12, "random `pixels` a view (and the 3x3 around the centre)")
	lo := flag.Float64("lo", 2, "the shallowest zoom's decimal `exponent`")
	hi := flag.Float64("hi", 400, "the deepest zoom's decimal `exponent`")
	iter := flag.Int("iter", 20000, "the most `iterations` a view")
	seed := flag.Uint64("seed", 1, "the views' random `seed`")
	verbose := flag.Bool("v", false, "print every pixel: x, y, ours, math/big six times")
	flags := flag.Bool("flags", false, "print each view as export's flags, a line a view, and check nothing (to draw the views with each renderer)")
	flag.Parse()
	if flag.NArg() > 0 || *n < 1 || *px < 0 || !(*lo >= 0 && *lo <= *hi && *hi <= 3000) || *iter < 1 {
		fmt.Fprintln(os.Stderr, "usage: random-verify [-n VIEWS] [-px PIXELS] [-lo E] [-hi E] [-iter N] [-seed N] [-v]")
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	var total, good, agree int
	for i := range *n {
		loc, kind, err := randomView(rng, *lo, *hi, *iter)
		if err != nil {
			fmt.Printf("%2d %s: %v\n", i, kind, err)
			continue
		}
		if *flags {
			fmt.Println(exportFlags(loc))
			continue
		}
		g, a, k, line := check(loc, rand.New(rand.NewPCG(*seed, uint64(i))), *px, *verbose)
		total += k
		good += g
		agree += a
		fmt.Printf("%2d %-12s %s\n   %s\n", i, kind, loc.View(), line)
	}
	if *flags {
		return
	}
	fmt.Printf("\n%d views, %d pixels: %d well-conditioned, %d of them agree with math/big\n", *n, total, good, agree)
	if agree != good {
		os.Exit(1)
	}
}

// randomView draws a view: its formula, Julia parameter, centre, zoom and rotation.
func randomView(rng *rand.Rand, lo, hi float64, maxIter int) (fractal.Location, string, error) {
	kinds := []fractal.FormulaKind{fractal.Mandelbrot, fractal.Mandelbrot, fractal.BurningShip, fractal.Mandelbar}
	k := kinds[rng.IntN(len(kinds))]
	d := 2
	if k == fractal.Mandelbrot && rng.IntN(2) == 0 {
		d = 3 + rng.IntN(fractal.MaxPower-2)
	}
	fm, _ := fractal.MakeFormula(k, d)
	e := lo + (hi-lo)*rng.Float64()
	loc := fractal.HomeOf(fm)
	loc.Formula = fm
	loc.Zoom = fractal.MustDecimal(fmt.Sprintf("%.3fe%d", math.Pow(10, e-math.Floor(e)), int(math.Floor(e))))
	loc.Iterations = min(maxIter, max(loc.AutoIterations(), 1000))
	if rng.IntN(4) == 0 {
		loc.Rotation = math.Round(rng.Float64()*3600-1800) / 10
		if loc.Rotation <= -180 {
			loc.Rotation = 180
		}
	}
	bits := uint(e*math.Log2(10)) + 40
	prec := bits + 64
	var cr, ci, zr, zi *big.Float
	what := "edge"
	switch r := rng.IntN(10); {
	case r < 4: // the set's boundary
		th := 2 * math.Pi * rng.Float64()
		cr, ci = bisect(fm, nil, nil, 0, 0, 2.5*math.Cos(th), 2.5*math.Sin(th), bits, loc.Iterations)
	case r < 5: // a tip: c = -2, whose orbit 0, -2, 2, 2, ... lies on the escape circle
		what = "tip"
		cr, ci = big.NewFloat(-2).SetPrec(prec), new(big.Float).SetPrec(prec)
		if d != 2 {
			what = "edge"
			th := 2 * math.Pi * rng.Float64()
			cr, ci = bisect(fm, nil, nil, 0, 0, 2.5*math.Cos(th), 2.5*math.Sin(th), bits, loc.Iterations)
		}
	default: // a Julia set of a c near the set's edge (just inside it), or of c = -2
		th := 2 * math.Pi * rng.Float64()
		jr, ji := bisect(fm, nil, nil, 0, 0, 2.5*math.Cos(th), 2.5*math.Sin(th), 60, 1000)
		if d == 2 && rng.IntN(4) == 0 {
			jr, ji = big.NewFloat(-2), new(big.Float)
		}
		jf, _ := jr.Float64()
		jfi, _ := ji.Float64()
		loc.Julia = fractal.JuliaParam{On: true, Re: decimal(jr, 60), Im: decimal(ji, 60)}
		jr, ji = loc.Julia.Re.Big(prec), loc.Julia.Im.Big(prec)
		if fm.Kind != fractal.Mandelbrot {
			r = 5 // cycle points and preimages by Newton: the analytic maps only
		}
		switch r {
		case 5, 6:
			what = "julia-edge"
			th := 2 * math.Pi * rng.Float64()
			zr, zi = bisect(fm, jr, ji, 0, 0, 2.5*math.Cos(th), 2.5*math.Sin(th), bits, loc.Iterations)
		case 7, 8:
			what = "julia-cycle"
			zr, zi = cyclePoint(fm, jr, ji, jf, jfi, 1+rng.IntN(3), rng, prec)
		default:
			what = "julia-preimage"
			zr, zi = preimage(fm, jr, ji, rng, prec)
		}
		if zr == nil {
			return loc, what, fmt.Errorf("no centre found for %s of %s", what, loc.Julia)
		}
		cr, ci = zr, zi
	}
	digits := int(float64(bits)*0.30103) + 3
	loc.Re, loc.Im = decimal(cr, digits), decimal(ci, digits)
	loc, _ = loc.ClampCentre()
	return loc, what, loc.Validate()
}

// decimal is x as a Decimal of the given significant digits.
func decimal(x *big.Float, digits int) fractal.Decimal {
	s := x.Text('g', digits)
	if strings.ContainsAny(s, "eE") {
		if f, _ := x.Float64(); math.Abs(f) < 1e-300 {
			s = "0"
		}
	}
	return fractal.MustDecimal(s)
}

// bisect returns a point on the segment from (ar, ai) to (br, bi) at the boundary between
// points that stay (maxIter iterations) and points that escape, to bits bits: of the set
// (jr nil) or of the Julia set of (jr, ji). It assumes a stays and b escapes, and returns a
// itself when a escapes.
func bisect(fm fractal.Formula, jr, ji *big.Float, ar, ai, br, bi float64, bits uint, maxIter int) (*big.Float, *big.Float) {
	prec := bits + 64
	nf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	at := func(t *big.Float) (*big.Float, *big.Float) {
		x := nf(br - ar)
		x.Mul(x, t).Add(x, nf(ar))
		y := nf(bi - ai)
		y.Mul(y, t).Add(y, nf(ai))
		return x, y
	}
	stays := func(x, y *big.Float) bool {
		if jr == nil {
			return fractal.EscapeFormulaBig(fm, x, y, x, y, maxIter, prec) < 0
		}
		return fractal.EscapeFormulaBig(fm, x, y, jr, ji, maxIter, prec) < 0
	}
	lo, hi, mid := nf(0), nf(1), nf(0)
	for range bits {
		mid.Add(lo, hi)
		mid.SetMantExp(mid, -1)
		if x, y := at(mid); stays(x, y) {
			lo.Set(mid)
		} else {
			hi.Set(mid)
		}
	}
	return at(lo)
}

// cyclePoint is a point of a cycle of period p of the Julia set of c (the Mandelbrot kind
// only: its map is analytic), by Newton's method in float64 from a random start and then in
// math/big; nil when it does not converge. Cycles of a c near the set's edge are repelling
// but for the one that attracts, so the point lies on the Julia set nearly always.
func cyclePoint(fm fractal.Formula, cr, ci *big.Float, cf, cfi float64, p int, rng *rand.Rand, prec uint) (*big.Float, *big.Float) {
	if fm.Kind != fractal.Mandelbrot {
		return nil, nil
	}
	d := fm.Power()
	c := complex(cf, cfi)
	for try := 0; try < 40; try++ {
		z := complex(2*rng.Float64()-1, 2*rng.Float64()-1) * 1.5
		ok := false
		for range 200 {
			f, df := z, complex(1, 0)
			for range p {
				df *= complex(float64(d), 0) * pow(f, d-1)
				f = pow(f, d) + c
			}
			step := (f - z) / (df - 1)
			z -= step
			if abs(step) < 1e-15*max(1, abs(z)) {
				ok = true
				break
			}
		}
		if !ok || abs(z) > 2 {
			continue
		}
		zr, zi := big.NewFloat(real(z)).SetPrec(prec), big.NewFloat(imag(z)).SetPrec(prec)
		if newtonBig(d, p, zr, zi, cr, ci, prec) {
			return zr, zi
		}
	}
	return nil, nil
}

// newtonBig refines z, a root of f^p(z) - z for f(z) = z^d + c, in math/big until a step is
// below 2^-prec of it; false when it does not get there in 60 steps.
func newtonBig(d, p int, zr, zi, cr, ci *big.Float, prec uint) bool {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	mul := func(ar, ai, br, bi *big.Float) (*big.Float, *big.Float) {
		r := nf().Sub(nf().Mul(ar, br), nf().Mul(ai, bi))
		i := nf().Add(nf().Mul(ar, bi), nf().Mul(ai, br))
		return r, i
	}
	for range 60 {
		fr, fi := nf().Set(zr), nf().Set(zi)
		dr, di := nf().SetInt64(1), nf()
		for range p {
			// df <- d f^(d-1) df; f <- f^d + c
			pr, pi := nf().SetInt64(1), nf()
			for range d - 1 {
				pr, pi = mul(pr, pi, fr, fi)
			}
			dr, di = mul(dr, di, pr, pi)
			dd := nf().SetInt64(int64(d))
			dr.Mul(dr, dd)
			di.Mul(di, dd)
			pr, pi = mul(pr, pi, fr, fi)
			fr, fi = pr.Add(pr, cr), pi.Add(pi, ci)
		}
		// step = (f - z) / (df - 1)
		nr, ni := fr.Sub(fr, zr), fi.Sub(fi, zi)
		dr.Sub(dr, nf().SetInt64(1))
		den := nf().Add(nf().Mul(dr, dr), nf().Mul(di, di))
		if den.Sign() == 0 {
			return false
		}
		sr := nf().Add(nf().Mul(nr, dr), nf().Mul(ni, di))
		si := nf().Sub(nf().Mul(ni, dr), nf().Mul(nr, di))
		sr.Quo(sr, den)
		si.Quo(si, den)
		zr.Sub(zr, sr)
		zi.Sub(zi, si)
		mag := nf().Add(nf().Abs(sr), nf().Abs(si))
		if mag.Sign() == 0 || mag.MantExp(nil) < -int(prec)+8 {
			return true
		}
	}
	return false
}

// preimage is a preimage of 0 of order 1 or 2 under the Julia set's map (the Mandelbrot kind
// only): z with z^d + c = 0, or z with z^d + c = that, one of the roots at random, refined
// by newtonRoot in math/big.
func preimage(fm fractal.Formula, cr, ci *big.Float, rng *rand.Rand, prec uint) (*big.Float, *big.Float) {
	if fm.Kind != fractal.Mandelbrot {
		return nil, nil
	}
	d := fm.Power()
	tr, ti := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec) // the target: 0
	for range 1 + rng.IntN(2) {
		// z^d = target - c
		ar, ai := new(big.Float).SetPrec(prec).Sub(tr, cr), new(big.Float).SetPrec(prec).Sub(ti, ci)
		af, _ := ar.Float64()
		aif, _ := ai.Float64()
		r := math.Pow(math.Hypot(af, aif), 1/float64(d))
		th := (math.Atan2(aif, af) + 2*math.Pi*float64(rng.IntN(d))) / float64(d)
		zr, zi := big.NewFloat(r*math.Cos(th)).SetPrec(prec), big.NewFloat(r*math.Sin(th)).SetPrec(prec)
		if !newtonRoot(d, zr, zi, ar, ai, prec) {
			return nil, nil
		}
		tr, ti = zr, zi
	}
	return tr, ti
}

// newtonRoot refines z, a root of z^d = a, in math/big.
func newtonRoot(d int, zr, zi, ar, ai *big.Float, prec uint) bool {
	if ar.Sign() == 0 && ai.Sign() == 0 {
		zr.SetInt64(0)
		zi.SetInt64(0)
		return true
	}
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	for range 80 {
		pr, pi := nf().SetInt64(1), nf()
		for range d - 1 {
			pr, pi = nf().Sub(nf().Mul(pr, zr), nf().Mul(pi, zi)), nf().Add(nf().Mul(pr, zi), nf().Mul(pi, zr))
		}
		fr := nf().Sub(nf().Sub(nf().Mul(pr, zr), nf().Mul(pi, zi)), ar)
		fi := nf().Sub(nf().Add(nf().Mul(pr, zi), nf().Mul(pi, zr)), ai)
		dd := nf().SetInt64(int64(d))
		pr.Mul(pr, dd)
		pi.Mul(pi, dd)
		den := nf().Add(nf().Mul(pr, pr), nf().Mul(pi, pi))
		if den.Sign() == 0 {
			return false
		}
		sr := nf().Quo(nf().Add(nf().Mul(fr, pr), nf().Mul(fi, pi)), den)
		si := nf().Quo(nf().Sub(nf().Mul(fi, pr), nf().Mul(fr, pi)), den)
		zr.Sub(zr, sr)
		zi.Sub(zi, si)
		mag := nf().Add(nf().Abs(sr), nf().Abs(si))
		if mag.Sign() == 0 || mag.MantExp(nil) < -int(prec)+8 {
			return true
		}
	}
	return false
}

func pow(z complex128, d int) complex128 {
	p := complex(1, 0)
	for range d {
		p *= z
	}
	return p
}

func abs(z complex128) float64 { return math.Hypot(real(z), imag(z)) }

// check computes k random pixels of loc and the 3x3 around its centre as probe does and in
// math/big at two precisions, and returns the pixels well-conditioned, those agreeing, the
// pixels checked and a line.
func check(loc fractal.Location, rng *rand.Rand, k int, verbose bool) (good, agree, total int, line string) {
	f, err := fractal.NewFrame(loc, w, h).WithReference(context.Background(), &fractal.ReferenceCache{}, nil)
	if err != nil {
		return 0, 0, 0, "reference: " + err.Error()
	}
	type pixel struct {
		x, y, ours int
		b          [6]int
	}
	var ps []pixel
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			ps = append(ps, pixel{x: w/2 + dx, y: h/2 + dy})
		}
	}
	for range k {
		ps = append(ps, pixel{x: rng.IntN(w), y: rng.IntN(h)})
	}
	for i := range ps {
		ps[i].ours, _ = f.Escape(ps[i].x, ps[i].y)
	}
	prec := max(f.ReferenceBits(), loc.Re.SignificantBits(), loc.Im.SignificantBits()) + 64
	if loc.IsJulia() {
		prec = max(prec, loc.Julia.Re.SignificantBits()+64, loc.Julia.Im.SignificantBits()+64)
	}
	// Each pixel in math/big six times: at prec bits, 128 bits more, and moved by 1e-13 of a
	// pixel either way along each axis (at prec bits). A pixel whose counts differ is
	// ill-conditioned: float64 deltas carry a pixel's offset to about 1e-16 of its size (a
	// pixel at 100 from the centre to 1e-14 of a pixel), and the counts of such a pixel's
	// neighbourhood at that scale are not one number (a chaotic orbit at the set's edge).
	const shift = 1e-13
	const evals = 6
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < evals*len(ps); j = int(next.Add(1) - 1) {
				p := &ps[j/evals]
				pr := prec
				if j%evals == 1 {
					pr += 128
				}
				zr, zi := f.PointBig(p.x, p.y, pr)
				if k := j % evals; k >= 2 {
					sx := [...]float64{shift, -shift, 0, 0}[k-2]
					sy := [...]float64{0, 0, shift, -shift}[k-2]
					ox, oy := loc.PlaneOffset(sx, sy)
					zr.Add(zr, new(big.Float).SetPrec(pr).SetFloat64(ox*f.Spacing))
					zi.Add(zi, new(big.Float).SetPrec(pr).SetFloat64(oy*f.Spacing))
				}
				cr, ci := zr, zi
				if loc.IsJulia() {
					cr, ci = loc.Julia.Re.Big(pr), loc.Julia.Im.Big(pr)
				}
				p.b[j%evals] = fractal.EscapeFormulaBig(loc.Formula, zr, zi, cr, ci, loc.Iterations, pr)
			}
		})
	}
	wg.Wait()
	tol := max(1, loc.Iterations/1000)
	near := func(a, b int) bool {
		switch {
		case a == b:
			return true
		case a < 0: // inside, against a count within tol of the limit
			return b > loc.Iterations-tol
		case b < 0:
			return a > loc.Iterations-tol
		}
		return max(a-b, b-a) <= tol
	}
	var bad []string
	for _, p := range ps {
		if verbose {
			fmt.Printf("   pixel %d,%d: %d, math/big %v\n", p.x, p.y, p.ours, p.b)
		}
		total++
		if slices.ContainsFunc(p.b[1:], func(n int) bool { return !near(p.b[0], n) }) {
			continue
		}
		good++
		if near(p.ours, p.b[0]) {
			agree++
		} else {
			bad = append(bad, fmt.Sprintf("%d,%d: %d vs %d", p.x, p.y, p.ours, p.b[0]))
		}
	}
	line = fmt.Sprintf("%s: %d of %d well-conditioned, %d agree", f.Precision(), good, len(ps), agree)
	if len(bad) > 0 {
		line += fmt.Sprintf("; DIFFER: %v", bad)
	}
	return good, agree, total, line
}

// exportFlags is loc as the command line's flags.
func exportFlags(loc fractal.Location) string {
	s := fmt.Sprintf("--center=%s,%s --zoom=%s --iterations=%d", loc.Re, loc.Im, loc.Zoom, loc.Iterations)
	if loc.Formula.Kind != fractal.Mandelbrot {
		s += " --formula=" + loc.Formula.Kind.String()
	}
	if d := loc.Formula.Power(); d != 2 {
		s += fmt.Sprintf(" --power=%d", d)
	}
	if loc.IsJulia() {
		s += " --julia=" + loc.Julia.String()
	}
	if loc.Rotation != 0 {
		s += fmt.Sprintf(" --rotation=%g", loc.Rotation)
	}
	return s
}
