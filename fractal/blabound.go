package fractal

import "math"

// BLABound is the bound on |dc| that f's BLA table is built for (BLA.DcMax of f.BLA()):
// DeltaMax rounded up to a power of two, as Reference.BLA rounds it, without building the
// table. Two Perturbation frames of one reference with the same BLABound read the same table,
// entry for entry (a table is a function of the orbit, its bound and its epsilon).
func (f Frame) BLABound() float64 {
	d := f.DeltaMax()
	if !(d > 0) || math.IsInf(d, 0) {
		d = math.SmallestNonzeroFloat64
	}
	frac, exp := math.Frexp(d)
	if frac == 0.5 {
		exp--
	}
	return math.Ldexp(1, exp)
}
