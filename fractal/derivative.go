package fractal

import (
	"mandelscope/colour"
	"math"
)

// The derivative dz/dc, carried along the orbit for the distance and slopes colourings.
//
// Scaling: the renderers carry w = (dz/dc) * spacing rather than dz/dc itself, by
// w(k+1) = 2 z(k) w(k) + spacing, w(0) = 0. At the boundary dz/dc grows like 1/spacing, which
// overflows float32 past zoom 1e38 and float64 past 1e308; w stays near 2 |z| ln|z| /
// DE-in-pixels, about 1 where the lines are drawn, at every zoom. The distance estimate in
// pixels (the classic exterior estimate 2 |z| ln|z| / |dz/dc|, which lies between 1 and 4
// times the true distance) is then 2 |z| ln|z| / |w|, with no division by the spacing.

// EscapeDE32 is EscapeDE in float32 arithmetic (the orbit and the derivative), as the float32
// shader computes it.
func EscapeDE32(cr, ci float32, maxIter int, spacing float32) Result {
	return escapeDE(cr, ci, maxIter, spacing)
}

// EscapeDE64 is EscapeDE in float64 arithmetic.
func EscapeDE64(cr, ci float64, maxIter int, spacing float64) Result {
	return escapeDE(cr, ci, maxIter, spacing)
}

// escapeDE is escape (the same n and nu, from the same arithmetic on z) that also carries the
// scaled derivative w (see above) and returns the distance estimate and normal (finishDE).
func escapeDE[T float](cr, ci T, maxIter int, spacing T) Result {
	if InMainBulbs(cr, ci) {
		return Result{N: -1}
	}
	// From z(1) = c, w(1) = spacing on, the orbit of escapeOrbitDE, its steps adding spacing.
	return escapeOrbitDE(cr, ci, cr, ci, maxIter, spacing, spacing, 0)
}

// escapeOrbitDE is escapeOrbit with the scaled derivative: w(1) = w1, w <- 2 z w + add (with
// z before the step), the saved value for periodicity starting at (saved, saved).
func escapeOrbitDE[T float](zr, zi, cr, ci T, maxIter int, w1, add, saved T) Result {
	wr, wi := w1, T(0)
	sr, si := saved, saved
	check, period := 8, 0
	for n := 1; n <= maxIter; n++ {
		if n > 1 {
			wr, wi = 2*(zr*wr-zi*wi)+add, 2*(zr*wi+zi*wr)
			zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		}
		r2 := zr*zr + zi*zi
		if r2 > 4 {
			return smoothDE(zr, zi, cr, ci, wr, wi, add, n)
		}
		if zr == sr && zi == si {
			return Result{N: -1}
		}
		period++
		if period == check {
			period = 0
			check *= 2
			sr, si = zr, zi
		}
	}
	return Result{N: -1}
}

// smoothDE is smooth (the same nu) continued with the derivative, then finishDE.
func smoothDE[T float](zr, zi, cr, ci, wr, wi, spacing T, n int) Result {
	m := n
	r2 := float64(zr*zr + zi*zi)
	for r2 <= SmoothBailout && m < n+8 {
		wr, wi = 2*(zr*wr-zi*wi)+spacing, 2*(zr*wi+zi*wr)
		zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		r2 = float64(zr*zr + zi*zi)
		m++
	}
	r := Result{N: n, Nu: float64(m) + 1 - log2(0.5*log2(r2))}
	r.DE, r.Ur, r.Ui = finishDE(float64(zr), float64(zi), float64(wr), float64(wi))
	return r
}

// finishDE is the distance estimate in pixels, 2 |z| ln|z| / |w|, and the unit vector of
// z / w (the normal for slopes; (0, 0) where w is 0, infinite or not a number). An infinite w
// (the derivative overflowed: a point far closer to the set than a pixel) gives distance 0,
// a w of 0 an infinite one.
func finishDE(zr, zi, wr, wi float64) (de, ur, ui float64) {
	az := math.Hypot(zr, zi)
	aw := math.Hypot(wr, wi)
	de = 2 * az * math.Log(az) / aw
	if !(de >= 0) { // NaN
		de = 0
	}
	// z / w = z conj(w) / |w|^2: its direction is that of z conj(w).
	ur, ui = zr*wr+zi*wi, zi*wr-zr*wi
	if h := math.Hypot(ur, ui); h > 0 && !math.IsInf(h, 0) {
		ur, ui = ur/h, ui/h
	} else {
		ur, ui = 0, 0
	}
	return de, ur, ui
}

// Result is what a pixel's orbit gives its colouring: the escape count N (-1 inside), the
// smooth value Nu, and for the methods that read the derivative, the distance estimate DE
// in pixels and the unit vector (Ur, Ui) of z / (dz/dc), the direction of the normal.
type Result struct {
	N      int
	Nu     float64
	DE     float64
	Ur, Ui float64
}

// Sample is r as the colour stage reads it (colour.NewSample).
func (r Result) Sample() colour.Sample { return colour.NewSample(r.N, r.Nu, r.DE, r.Ur, r.Ui) }
