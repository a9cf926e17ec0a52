package fractal

// maxCentreDec and minCentreDec are the centre's bounds as exact decimals, for ClampCentre.
var maxCentreDec, minCentreDec = DecimalFromFloat(MaxCentre), DecimalFromFloat(-MaxCentre)

// ClampCentre returns l with each part of its centre brought within -MaxCentre to MaxCentre,
// compared exactly (digit for digit, as CheckZoom compares the zoom), and whether a part was
// out of range. A view that pans, drags or zooms out past the edge stays at the edge: every
// view the window reaches is one Validate accepts and a file or bookmark can hold.
func (l Location) ClampCentre() (Location, bool) {
	clamp := func(d Decimal) (Decimal, bool) {
		switch {
		case compareDecimal(d, maxCentreDec) > 0:
			return maxCentreDec, true
		case compareDecimal(d, minCentreDec) < 0:
			return minCentreDec, true
		}
		return d, false
	}
	var cr, ci bool
	l.Re, cr = clamp(l.Re)
	l.Im, ci = clamp(l.Im)
	return l, cr || ci
}
