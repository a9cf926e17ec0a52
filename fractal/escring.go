package fractal

import "math"

// The escape test on the circle. A perturbation loop tests |z|^2 > R^2 for z = Z_m + d as
// z2 = zr*zr + zi*zi with zr = X + dr, zi = Y + di (Z_m = X + iY). Where |Z_m| is R or
// within rounding of it and d is tiny beside it, that sum rounds the answer away: at the tip
// c = -2 the reference orbit is 0, -2, 2, 2, ..., on the circle of radius 2, and with d ~
// 1e-30, 2 + d rounds to 2, so a pixel left of the tip, which escapes at its first iteration,
// was counted 25 (when d had grown to ~1e-16).
//
// The loops keep their one compare a step, against a threshold lowered by the factor escLo
// (below the circle by far more than the rounding of z2, 2^-50 of it): a pixel past it is
// either clearly out (z2 > R^2 escHi) or goes to escapeExact, which decides with
//
//	|Z + d|^2 - R^2 = (X^2 + Y^2 - R^2) + 2 (X dr + Y di) + (dr^2 + di^2),
//
// free of the cancellation: its first term, the residual of the float64 point Z_m, is
// computed exactly by error-free products and sums (math.FMA, TwoSum). The residual of the
// float64 point, not of the reference's math/big value: the two are the same wherever an
// orbit lies on the circle, since a point with both coordinates dyadic (a float64 or a
// math/big value) on |z| = 2 is one of 2, -2, 2i, -2i (a^2 + b^2 = 4^k has no other
// solutions in integers), all exact in float64; and the only bounded orbits of z^2 + c that
// reach |z| = 2 with |c| <= 2 are those of c = -2 (at 2 and -2). Elsewhere the float64
// point's residual can have the wrong sign only where |Z_m| lies within its rounding (2^-52)
// of R without being on it, a chance of about 2^-50 an index: not worth a table of residuals
// that every reference would store and every loop (and shader) read. The GLSL shaders
// compute the same.
const (
	escLo = 1 - 0x1p-36
	escHi = 1 + 0x1p-36
	// esc4Lo is escLo's threshold for the radius 2.
	esc4Lo = 4 * escLo
)

// escapes reports whether z = Z + (dr, di) is past the radius sqrt(r2), z2 being |z|^2 as
// the loops compute it (zr*zr + zi*zi): by z2 where it is clear of the circle by more than
// its rounding, else by escapeExact. The loops call it only where z2 > r2 escLo.
func escapes(z complex128, dr, di, z2, r2 float64) bool {
	return z2 > r2*escHi || z2 > r2*escLo && escapeExact(real(z), imag(z), dr, di, r2)
}

// escapeExact reports whether |Z + d|^2 > r2 for Z = (x, y), d = (dr, di), from the exact
// residual of Z and the terms in d (see the comment at the top of this file). Where Z lies
// on the circle and d is so small that its terms would underflow, they are scaled first.
func escapeExact(x, y, dr, di, r2 float64) bool {
	e := escResidual(x, y, r2)
	if e == 0 && math.Abs(dr)+math.Abs(di) < 0x1p-400 {
		// The sign of the d terms alone, times 2^1200 (2^600 on d): no underflow.
		const s = 0x1p600
		dr, di = dr*s, di*s
		return 2*s*(x*dr+y*di)+(dr*dr+di*di) > 0
	}
	return e+(2*(x*dr+y*di)+(dr*dr+di*di)) > 0
}

// escapeExactCx is escapeExact for a delta d in extended form (a PerturbationExp loop's,
// below float64's range).
func escapeExactCx(x, y float64, d cx, r2 float64) bool {
	dr, di := MakeExp(d.re, d.e), MakeExp(d.im, d.e)
	dot := dr.MulFloat(2 * x).Add(di.MulFloat(2 * y))
	lin := dot.Add(dr.Mul(dr).Add(di.Mul(di)))
	return NewExp(escResidual(x, y, r2)).Add(lin).Sign() > 0
}

// escResidual is x^2 + y^2 - r2, exact where it is 0 and with one rounding otherwise: the
// squares split into their float64 values and exact errors (math.FMA), their sum and the
// difference with r2 by twoSum (perturbdd.go), the small parts added last. (Squares below float64's range,
// under 2^-1074, are lost: a Z that close to both an axis and the circle does not occur.)
func escResidual(x, y, r2 float64) float64 {
	p := x * x
	ep := math.FMA(x, x, -p)
	q := y * y
	eq := math.FMA(y, y, -q)
	s, t1 := twoSum(p, q)
	u, t2 := twoSum(s, -r2)
	return u + (t1 + t2 + ep + eq)
}

// escapesCx is escapes for a delta d in extended form (z2: |Z + d|^2 as the loop has it,
// which for a d below float64's range is |Z|^2).
func escapesCx(z complex128, d cx, z2, r2 float64) bool {
	return z2 > r2*escHi || z2 > r2*escLo && escapeExactCx(real(z), imag(z), d, r2)
}
