package fractal

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
)

// BoundaryViews returns n views centred on points of the set's boundary as a person meets
// them, with the digits a 1280x720 view needs: sampled by harmonic measure, with a walk on
// spheres from far outside (each jump to a random point at a quarter of the distance
// estimate, until the estimate is below 1/100 of the view's height), at zooms drawn
// log-uniformly from 10^lo to 10^hi. One walk serves perWalk views (its zooms sorted: the walk
// stops at each in turn). The same seed gives the same views. The find tests and
// bench/find-measure search from them; deep views take a while (math/big), 100 to 1e300
// about 20 minutes.
func BoundaryViews(seed uint64, n, perWalk int, lo, hi float64) ([]Location, error) {
	if n < 1 || perWalk < 1 || !(lo >= 0 && lo <= hi && hi <= 1e4) {
		return nil, fmt.Errorf("boundary views: want n and perWalk of 1 or more and 0 <= lo <= hi <= 10000, not %d, %d, %g, %g", n, perWalk, lo, hi)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var views []Location
	for len(views) < n {
		k := min(perWalk, n-len(views))
		exps := make([]float64, k)
		for i := range exps {
			exps[i] = lo + (hi-lo)*rng.Float64()
		}
		slices.Sort(exps)
		theta := 2 * math.Pi * rng.Float64()
		prec := uint(80)
		cr := big.NewFloat(10 * math.Cos(theta)).SetPrec(prec)
		ci := big.NewFloat(10 * math.Sin(theta)).SetPrec(prec)
		var walk []Location
		for _, e := range exps {
			zoom := MakeExp(1, 0).Quo(NewExp(1)) // 1
			zoom = zoom.Mul(expPow10(e))
			height := NewExp(4).Quo(zoom)
			ok := false
			for steps := 0; steps < 200000; steps++ {
				d, esc := distanceEstimate(cr, ci, 200000)
				if !esc {
					break // no escape: give this walk up
				}
				if d.Cmp(height.MulFloat(0.01)) < 0 {
					ok = true
					break
				}
				jump := d.MulFloat(0.25)
				prec = max(prec, bitsBelow(jump)+16)
				cr.SetPrec(prec)
				ci.SetPrec(prec)
				a := 2 * math.Pi * rng.Float64()
				cr.Add(cr, jump.MulFloat(math.Cos(a)).Big(prec))
				ci.Add(ci, jump.MulFloat(math.Sin(a)).Big(prec))
			}
			if !ok {
				walk = nil
				break
			}
			l := Home()
			zt, err := ParseDecimal(zoom.Text(3))
			if err != nil {
				return nil, err
			}
			l.Zoom = zt
			digits := digitsFor(SpacingExp(zt.Exp(), 1280, 720))
			l.Re = Decimal{text: trimZeros(cr.Text('f', digits))}
			l.Im = Decimal{text: trimZeros(ci.Text('f', digits))}
			l.Iterations = l.AutoIterations()
			walk = append(walk, l)
		}
		views = append(views, walk...)
	}
	return views, nil
}

// expPow10 is 10^e as an Exp.
func expPow10(e float64) Exp {
	l2 := e * math.Log2(10)
	k := math.Floor(l2)
	return MakeExp(math.Exp2(l2-k), int(k))
}

// distanceEstimate is |z| ln|z| / |dz/dc| at the escape of c's orbit past 2^20 (the distance
// to the set to within a factor of 2), and whether it escaped within maxIter.
func distanceEstimate(cr, ci *big.Float, maxIter int) (Exp, bool) {
	o := newFindOrbit(cr, ci, cr.Prec())
	dz, z := cx{e: cxZeroExp}, cx{e: cxZeroExp}
	for range maxIter {
		dz = cxAdd(cxMul(z, dz).double(), cxOne)
		o.step()
		z = o.z()
		if z.e > 20 {
			lz := z.log2Abs() * math.Ln2
			return z.abs().Quo(dz.abs()).MulFloat(lz), true
		}
	}
	return Exp{}, false
}

// Offset measures f, found from view l at w x h pixels: how far its centre is from l's, in
// l's view heights, and its zoom over l's.
func (f Found) Offset(l Location, w, h int) (heights float64, zoomRatio Exp) {
	prec := bitsBelow(SpacingExp(l.ZoomExp(), w, h))
	d := dist(f.Loc.Re.Big(prec), f.Loc.Im.Big(prec), l.Re.Big(prec), l.Im.Big(prec))
	return d.Quo(NewExp(4).Quo(l.ZoomExp())).Float64(), f.Loc.ZoomExp().Quo(l.ZoomExp())
}

// InView reports whether f's centre lies inside view l at w x h pixels (its edges included).
func (f Found) InView(l Location, w, h int) bool {
	prec := bitsBelow(SpacingExp(l.ZoomExp(), w, h))
	return inView(l, w, h, f.Loc.Re.Big(prec), f.Loc.Im.Big(prec))
}

// inView reports whether (cr, ci) lies inside view l at w x h pixels (its edges included):
// within half the view's height, 2/zoom, of its centre vertically and half its width
// horizontally, along the screen's axes (viewBox: a rotated view's rectangle is turned).
func inView(l Location, w, h int, cr, ci *big.Float) bool {
	prec := max(cr.Prec(), ci.Prec(), bitsBelow(SpacingExp(l.ZoomExp(), w, h)))
	half := NewExp(2).Quo(l.ZoomExp())
	v := viewBox{cr: l.Re.Big(prec), ci: l.Im.Big(prec), hw: half.MulFloat(float64(w) / float64(h)), hh: half, rot: l.Rotation}
	return v.contains(cr, ci)
}
