package fractal

import (
	"math"
	"math/big"
)

// SmoothBailout is the squared radius past which the smooth colouring stops iterating: the
// escape count itself uses radius 2, the continuous value a few more iterations to 2^8.
const SmoothBailout = 65536.0

type float interface{ ~float32 | ~float64 }

// Escape32 is Escape in float32 arithmetic.
func Escape32(cr, ci float32, maxIter int) (n int, nu float64) { return escape(cr, ci, maxIter) }

// Escape64 is Escape in float64 arithmetic.
func Escape64(cr, ci float64, maxIter int) (n int, nu float64) { return escape(cr, ci, maxIter) }

// InMainBulbs reports whether c lies in the main cardioid or the period-2 bulb, where every
// point is inside: the cheap test that skips most of the black interior.
func InMainBulbs[T float](cr, ci T) bool {
	x := cr - 0.25
	y2 := ci * ci
	q := x*x + y2
	if q*(q+x) <= 0.25*y2 {
		return true
	}
	x1 := cr + 1
	return x1*x1+y2 <= 0.0625
}

// escape iterates z <- z^2 + c. It returns the least n >= 1 with |z(n)| > 2 (or -1 when none
// within maxIter) and the smooth value nu = m + 1 - log2(log2|z(m)|), where m >= n is the
// first iteration with |z|^2 > SmoothBailout. Inside points are caught early by the bulb
// test and by periodicity detection (an orbit that returns exactly to a saved value). From
// z(1) = c on it is the Julia orbit of z1 = c (escapeOrbit), the first value saved 0.
func escape[T float](cr, ci T, maxIter int) (int, float64) {
	if InMainBulbs(cr, ci) {
		return -1, 0
	}
	return escapeOrbit(cr, ci, cr, ci, maxIter, 0)
}

// escapeOrbit is the escape count and smooth value of the orbit z(1) = (zr, zi),
// z <- z^2 + c, with the periodicity detection's saved value starting at (saved, saved).
func escapeOrbit[T float](zr, zi, cr, ci T, maxIter int, saved T) (int, float64) {
	sr, si := saved, saved // saved orbit point for periodicity detection
	check, period := 8, 0
	for n := 1; n <= maxIter; n++ {
		if n > 1 {
			zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		}
		r2 := zr*zr + zi*zi
		if r2 > 4 {
			return n, smooth(zr, zi, cr, ci, n)
		}
		if zr == sr && zi == si {
			return -1, 0
		}
		period++
		if period == check {
			period = 0
			check *= 2
			sr, si = zr, zi
		}
	}
	return -1, 0
}

func smooth[T float](zr, zi, cr, ci T, n int) float64 {
	m := n
	r2 := float64(zr*zr + zi*zi)
	for r2 <= SmoothBailout && m < n+8 {
		zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		r2 = float64(zr*zr + zi*zi)
		m++
	}
	return float64(m) + 1 - log2(0.5*log2(r2))
}

// log2 is math.Log2 to within 2e-7, several times faster: with math.Log2, the smooth value's
// two logarithms took over half of the CPU renderer's time, and the colouring needs far less
// precision (2e-7 of an iteration moves a colour by less than 1/10000 of a step). It reads
// log2 of the mantissa from a table of 1024 intervals and interpolates linearly.
func log2(x float64) float64 {
	if !(x >= 0x1p-1022) || math.IsInf(x, 1) {
		return math.Log2(x) // zero, subnormal, negative, NaN, +Inf
	}
	b := math.Float64bits(x)
	e := int(b>>52&0x7ff) - 1023
	mant := b & (1<<52 - 1)
	i := mant >> 42 // the top 10 bits of the mantissa
	f := float64(mant&(1<<42-1)) * 0x1p-42
	return float64(e) + log2Table[i] + f*(log2Table[i+1]-log2Table[i])
}

// log2Table[i] = log2(1 + i/1024).
var log2Table = func() (t [1025]float64) {
	for i := range t {
		t[i] = math.Log2(1 + float64(i)/1024)
	}
	return t
}()

// EscapeBig is the exact reference: the escape count of c computed in math/big arithmetic at
// prec bits, with no shortcuts. It is slow and meant for tests and probes of the contract.
func EscapeBig(cr, ci *big.Float, maxIter int, prec uint) int {
	return EscapeJuliaBig(cr, ci, cr, ci, maxIter, prec) // z(1) = c
}

// EscapeJuliaBig is EscapeBig for the Julia set of c = (cr, ci): the escape count of the
// orbit z1 = (zr, zi), z <- z^2 + c, in math/big at prec bits, with no shortcuts (the least
// n >= 1 with |z(n)| > 2, -1 when none within maxIter). With z1 = c it is EscapeBig(c).
func EscapeJuliaBig(zr, zi, cr, ci *big.Float, maxIter int, prec uint) int {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	xr, xi, xr2, xi2, t := nf().Set(zr), nf().Set(zi), nf(), nf(), nf()
	four := big.NewFloat(4)
	for n := 1; n <= maxIter; n++ {
		if n > 1 {
			// z = z^2 + c, from the squares of the last step
			t.Mul(xr, xi)
			t.Add(t, t)
			xi.Add(t, ci)
			xr.Sub(xr2, xi2)
			xr.Add(xr, cr)
		}
		xr2.Mul(xr, xr)
		xi2.Mul(xi, xi)
		t.Add(xr2, xi2)
		if t.Cmp(four) > 0 {
			return n
		}
	}
	return -1
}
