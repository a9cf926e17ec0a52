package fractal

// EscapeBig is the exact reference for pixel (x, y) of f: its escape count computed in
// math/big with no shortcuts (-1 where it does not escape within the iterations), at 64
// bits beyond what the zoom needs to address a pixel (ReferenceBits, from the frame's
// spacing, not the zoom text's length: "1e290" needs 960 bits; twice that for a Julia set)
// and beyond every digit of the centre and of a Julia set's parameter. On the orbit path (OrbitPath), or with channels,
// ChannelsBig's: the frame's radius, and the channels T and STRIPE (else 0). The probe's
// --exact prints it; the tests compare the loops with it.
func (f Frame) EscapeBig(x, y int, channels bool) (n int, t, stripe float64) {
	loc := f.Loc
	bits := f.ReferenceBits()
	if loc.IsJulia() {
		// A Julia orbit through the critical point 0 squares the pixel's offset d: beside the
		// view's centre at 0, z2 = c + d^2, whose d^2 the zoom's bits alone round away.
		bits *= 2
	}
	prec := max(bits, loc.Re.SignificantBits(), loc.Im.SignificantBits()) + 64
	if loc.IsJulia() {
		prec = max(prec, loc.Julia.Re.SignificantBits()+64, loc.Julia.Im.SignificantBits()+64)
	}
	re, im := f.PointBig(x, y, prec)
	cr, ci := re, im
	if loc.IsJulia() {
		// The pixel's point is the orbit's first point z1; c is the parameter.
		cr, ci = loc.Julia.Re.Big(prec), loc.Julia.Im.Big(prec)
	}
	if f.OrbitPath() || channels {
		return ChannelsBig(loc, re, im, cr, ci, prec)
	}
	return EscapeFormulaBig(loc.Formula, re, im, cr, ci, loc.Iterations, prec), 0, 0
}
