package fractal

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"time"
)

// EdgeView is a view at a minibrot's edge made by MinibrotEdgeViews, with what it was made from.
type EdgeView struct {
	Loc    Location
	Period int  // the minibrot's period
	Size   Exp  // its size estimate |s|
	Inside bool // the centre lies inside the minibrot's cardioid (r < 1)
}

// MinibrotEdgeViews makes n views at minibrots' edges, as a deep zoomer finds them: from a
// view on the set's boundary (BoundaryViews, at about the square root of the target depth)
// find's minibrot (FindMinibrotWith at the view's centre), then a centre just inside or just
// outside its cardioid, nucleus + s u with u = r e^(it)/2 - r^2 e^(2it)/4 (s its complex size,
// t random away from the cusp, r = 1 -+ 10^-k, k from 5 to 7), at a zoom 10^4 to 10^7 over
// the minibrot's (1/|s|), with iterations log-uniform in [iterLo, iterHi]. The zooms land
// between about 10^lo and 10^hi. Views whose search fails are skipped (and replaced); it
// fails after 4n tries.
func MinibrotEdgeViews(seed uint64, n int, lo, hi float64, iterLo, iterHi int) ([]EdgeView, error) {
	if n < 1 || !(lo >= 8 && lo <= hi && hi <= 4000) || iterLo < 1 || iterHi < iterLo || iterHi > MaxIterations {
		return nil, fmt.Errorf("edge views: want n >= 1, 8 <= lo <= hi <= 4000, 1 <= iterLo <= iterHi <= %d", MaxIterations)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	var out []EdgeView
	for try := 0; len(out) < n && try < 4*n; try++ {
		e := lo + (hi-lo)*rng.Float64()
		k := 4 + 3*rng.Float64()
		views, err := BoundaryViews(rng.Uint64(), 1, 1, (e-k)/2, (e-k)/2)
		if err != nil {
			return nil, err
		}
		l := views[0]
		f, err := FindMinibrotWith(context.Background(), l, 1280, 720, 640, 360, FindOptions{Limit: 1_000_000, MaxTime: 120 * time.Second})
		if err != nil {
			continue
		}
		prec := bitsBelow(f.Size) + 64
		nu, err := newtonNucleus(context.Background(), f.Loc.Re.Big(prec), f.Loc.Im.Big(prec), f.Period, prec, f.Size.MulFloat(0.01), f.Size)
		if err != nil {
			continue
		}
		theta := 0.3 + (2*math.Pi-0.6)*rng.Float64()
		inside := rng.IntN(2) == 0
		d := math.Pow(10, -5-2*rng.Float64())
		r := 1 + d
		if inside {
			r = 1 - d
		}
		ur := r*math.Cos(theta)/2 - r*r*math.Cos(2*theta)/4
		ui := r*math.Sin(theta)/2 - r*r*math.Sin(2*theta)/4
		zoom := NewExp(1).Quo(nu.size).Mul(expPow10(k))
		zt, err := ParseDecimal(zoom.Text(4))
		if err != nil {
			return nil, err
		}
		digits := digitsFor(SpacingExp(zt.Exp(), 1280, 720))
		bits := max(nu.prec, uint(float64(digits)*3.33)+64)
		or, oi := cxMul(nu.sizeCx, cxFrom(ur, ui)).bigs(bits)
		cr := new(big.Float).SetPrec(bits).Add(nu.cr, or)
		ci := new(big.Float).SetPrec(bits).Add(nu.ci, oi)
		loc := Home()
		loc.Zoom = zt
		loc.Re = Decimal{text: trimZeros(cr.Text('f', digits))}
		loc.Im = Decimal{text: trimZeros(ci.Text('f', digits))}
		loc.Iterations = int(math.Round(float64(iterLo) * math.Pow(float64(iterHi)/float64(iterLo), rng.Float64())))
		if err := loc.Validate(); err != nil {
			return nil, err
		}
		out = append(out, EdgeView{Loc: loc, Period: f.Period, Size: nu.size, Inside: inside})
	}
	if len(out) < n {
		return out, fmt.Errorf("edge views: only %d of %d searches found a minibrot", len(out), n)
	}
	return out, nil
}
