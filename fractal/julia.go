package fractal

import (
	"context"
	"fmt"
	"math"

	"mandelscope/internal/text"
)

// Julia sets. A Location with Julia.On is the Julia set of c = Julia: pixel (x, y) is its
// orbit's first point z1 (placed as the Mandelbrot set's c is, by the rendering contract),
// and z <- z^2 + c; the escape count is the least n >= 1 with |z(n)| > 2, so that at z1 = c
// it is the Mandelbrot set's count of c. The smooth value continues the orbit as the
// Mandelbrot set's does (with the parameter c), and the derivative the distance and slopes
// colourings read is dz/dz1, scaled by the pixel spacing like dz/dc: w(1) = spacing,
// w(k+1) = 2 z(k) w(k).
//
// Deep Julia views use perturbation about one reference point (the frame's centre): a pixel's
// delta d = z - Z follows d <- (2 Z + d) d, with no c term (c is the same for every pixel),
// so the BLA's B coefficient never enters. Rebasing (the pixel's orbit passing nearer 0 than
// the reference's) needs an orbit through 0, which the reference point's is not: a Julia
// Reference holds, before the reference point's orbit, the critical orbit of c (0, c,
// c^2 + c, ..., the Mandelbrot reference orbit of c, with its period when c is inside the
// set), and a rebase always goes to its start, where the loops are the Mandelbrot set's with
// dc = 0. Interior pixels (c inside: the orbits settle on the attracting cycle that the
// critical orbit finds) run on the critical orbit's period as Mandelbrot interior pixels do.

// setJulia makes ref a Julia reference for parameter j (validated).
func (ref *Reference) setJulia(j JuliaParam) error {
	if err := j.validate(); err != nil {
		return fmt.Errorf("reference orbit: %v", err)
	}
	ref.julia = j
	ref.jre, ref.jim = j.Re.Big(ref.prec), j.Im.Big(ref.prec)
	ref.jcr, _ = ref.jre.Float64()
	ref.jci, _ = ref.jim.Float64()
	if math.IsNaN(ref.jcr) || math.IsNaN(ref.jci) {
		return fmt.Errorf("reference orbit: julia parameter %s is not a number", text.Clip(j.String(), 40))
	}
	return nil
}

// iterate computes ref's orbit (both, for a Julia reference) in fixed point.
func (ref *Reference) iterate(ctx context.Context, progress func(done, total int)) error {
	if !ref.formula.IsMandelbrot() {
		return ref.iterateFormula(ctx, progress)
	}
	if !ref.julia.On {
		return ref.iterateFixed(ctx, progress)
	}
	if err := ref.orbitFixed(ctx, progress, ref.jre, ref.jim, nil, nil); err != nil {
		return err
	}
	ref.repeatPeriod()
	ref.jStart = len(ref.Z)
	if err := ref.orbitFixed(ctx, progress, ref.jre, ref.jim, ref.re, ref.im); err != nil {
		return err
	}
	if progress != nil {
		progress(ref.maxIter, ref.maxIter)
	}
	return nil
}

// Julia is the parameter of a Julia reference (On false for the Mandelbrot set's).
func (ref *Reference) Julia() JuliaParam { return ref.julia }

// JuliaStart is the index in Z of the reference point's own orbit in a Julia reference (see
// Reference), 0 for the Mandelbrot set's: a Julia pixel starts there, at iteration 1.
func (ref *Reference) JuliaStart() int { return ref.jStart }

// WLast is the last index of the orbit through 0 (the critical orbit): len(Z)-1 for the
// Mandelbrot set, JuliaStart()-1 for a Julia reference. A pixel that reaches it goes on
// Period() back, or rebases to 0 when there is no period.
func (ref *Reference) WLast() int {
	if ref.jStart > 0 {
		return ref.jStart - 1
	}
	return len(ref.Z) - 1
}

// ends is what the perturbation loops test indices against: the critical orbit's last index,
// its period, and the last index of a Julia reference point's orbit (-1 for the Mandelbrot
// set: never), where a pixel rebases.
func (ref *Reference) ends() (last, period, jEnd int) {
	jEnd = -1
	if ref.jStart > 0 {
		jEnd = len(ref.Z) - 1
	}
	return ref.WLast(), ref.period, jEnd
}

// smoothC is the c the smooth continuation iterates with for a pixel with delta (dcr, dci):
// the Mandelbrot set's pixel c (the reference point plus the delta) or the Julia parameter.
func (ref *Reference) smoothC(dcr, dci float64) (float64, float64) {
	if ref.julia.On {
		return ref.jcr, ref.jci
	}
	return ref.cre + dcr, ref.cim + dci
}

// juliaStart is where a Julia pixel with delta d0 from the reference point begins the
// Mandelbrot loops' work: the check of its first value z1 = Z[jStart] + d0 done (escaped:
// done, with n = 1 and z1), and the state (d, m) after the rebasing test. n is 1.
func (ref *Reference) juliaStart(d0r, d0i float64) (dr, di float64, m int, escaped bool, zr, zi float64) {
	m = ref.jStart
	zm := ref.Z[m]
	zr, zi = real(zm)+d0r, imag(zm)+d0i
	z2 := zr*zr + zi*zi
	if z2 > esc4Lo && escapes(zm, d0r, d0i, z2, 4) {
		return 0, 0, m, true, zr, zi
	}
	if z2 < d0r*d0r+d0i*d0i || z2 < 0x1p-900 && rebaseTiny(zr, zi, d0r, d0i) || m == len(ref.Z)-1 {
		return zr, zi, 0, false, zr, zi
	}
	return d0r, d0i, m, false, zr, zi
}

// EscapeJulia32 is EscapeJulia64 in float32 arithmetic, as the float32 shader computes it.
func EscapeJulia32(zr, zi, cr, ci float32, maxIter int) (n int, nu float64) {
	return escapeJulia(zr, zi, cr, ci, maxIter)
}

// EscapeJulia64 is the escape count and smooth value of the Julia orbit z1 = (zr, zi),
// z <- z^2 + (cr, ci) in float64 (see the top of julia.go), -1 inside; like Escape64 it
// catches orbits that return exactly to a saved value as inside, but has no bulb test.
func EscapeJulia64(zr, zi, cr, ci float64, maxIter int) (n int, nu float64) {
	return escapeJulia(zr, zi, cr, ci, maxIter)
}

func escapeJulia[T float](zr, zi, cr, ci T, maxIter int) (int, float64) {
	return escapeOrbit(zr, zi, cr, ci, maxIter, T(math.NaN())) // no value saved yet: z1 = 0 must not match
}

// EscapeJuliaDE32 is EscapeJuliaDE64 in float32 arithmetic.
func EscapeJuliaDE32(zr, zi, cr, ci float32, maxIter int, spacing float32) Result {
	return escapeJuliaDE(zr, zi, cr, ci, maxIter, spacing)
}

// EscapeJuliaDE64 is EscapeJulia64 (the same n and nu) with the scaled derivative dz/dz1
// (w(1) = spacing, w <- 2 z w) and the distance estimate and normal it gives (finishDE).
func EscapeJuliaDE64(zr, zi, cr, ci float64, maxIter int, spacing float64) Result {
	return escapeJuliaDE(zr, zi, cr, ci, maxIter, spacing)
}

func escapeJuliaDE[T float](zr, zi, cr, ci T, maxIter int, spacing T) Result {
	return escapeOrbitDE(zr, zi, cr, ci, maxIter, spacing, 0, T(math.NaN()))
}
