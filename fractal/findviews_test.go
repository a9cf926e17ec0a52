package fractal

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// boundaryViews returns n views at w x h pixels centred on points of the set's boundary as a
// person meets them: sampled by harmonic measure, with a walk on spheres from far outside
// (each jump to a random point at a quarter of the distance estimate, until the estimate is
// below 1/100 of the view's height), at zooms drawn log-uniformly from 10^lo to 10^hi. One
// walk serves perViews views (its zooms sorted: the walk stops at each in turn).
func boundaryViews(tb testing.TB, seed uint64, n, perWalk int, lo, hi float64) []Location {
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
				tb.Fatal(err)
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
	return views
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

// findOutcome is one search from a view, for the table.
type findOutcome struct {
	zoom     Exp
	ok       bool
	err      error
	dist     float64 // the nucleus's distance from the centre in view heights
	ratio    Exp     // the suggested zoom / the view's
	elapsed  time.Duration
	period   int
	location Location
}

// findFrom searches from the centre of l at w x h and measures the result.
func findFrom(l Location, w, h int) findOutcome {
	t0 := time.Now()
	f, err := FindMinibrotWith(context.Background(), l, w, h, float64(w)/2, float64(h)/2, FindOptions{Limit: 1_000_000, MaxTime: 60 * time.Second})
	out := findOutcome{zoom: l.ZoomExp(), err: err, elapsed: time.Since(t0), location: l}
	if err != nil {
		return out
	}
	out.ok = true
	out.period = f.Period
	prec := bitsBelow(SpacingExp(l.ZoomExp(), w, h))
	d := dist(f.Loc.Re.Big(prec), f.Loc.Im.Big(prec), l.Re.Big(prec), l.Im.Big(prec))
	out.dist = d.Quo(NewExp(4).Quo(l.ZoomExp())).Float64()
	out.ratio = f.Loc.ZoomExp().Quo(l.ZoomExp())
	return out
}

// TestFindFromBoundaryViews searches from 12 views on the set's boundary at zooms 1e2 to 1e8
// (fixed seed): every search must find a minibrot inside the view, deeper (FindMinibrotWith
// verifies both before it answers; the distance is checked again here).
func TestFindFromBoundaryViews(t *testing.T) {
	views := boundaryViews(t, 7, 12, 3, 2, 8)
	for i, l := range views {
		o := findFrom(l, 1280, 720)
		if !o.ok {
			t.Errorf("view %d (%s): %v", i, l, o.err)
			continue
		}
		if o.dist > 0.5*1280/720 || o.ratio.Cmp(NewExp(1)) <= 0 {
			t.Errorf("view %d (%s): the minibrot is %.2f view heights away, zoom ratio %s", i, l, o.dist, o.ratio.Text(3))
		}
	}
}

// TestFindMeasure prints the table of searches from MANDELSCOPE_FIND_MEASURE views (say 100)
// on the set's boundary, zooms 1e2 to 1e300 (MANDELSCOPE_FIND_MEASURE_HI sets the top
// exponent), by zoom band: success, distance in view heights, zoom ratio, median time. Run:
//
//	MANDELSCOPE_FIND_MEASURE=100 go test ./fractal -run TestFindMeasure -v -timeout 2h
func TestFindMeasure(t *testing.T) {
	s := os.Getenv("MANDELSCOPE_FIND_MEASURE")
	if s == "" {
		t.Skip("set MANDELSCOPE_FIND_MEASURE=N to measure the search from N boundary views")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("MANDELSCOPE_FIND_MEASURE=%q: want a count", s)
	}
	hi := 300.0
	if s := os.Getenv("MANDELSCOPE_FIND_MEASURE_HI"); s != "" {
		if hi, err = strconv.ParseFloat(s, 64); err != nil {
			t.Fatal(err)
		}
	}
	seed := uint64(1)
	if s := os.Getenv("MANDELSCOPE_FIND_MEASURE_SEED"); s != "" {
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now()
	views := boundaryViews(t, seed, n, 5, 2, hi)
	t.Logf("%d views in %v", len(views), time.Since(t0))
	bands := []struct {
		name   string
		lo, hi float64
	}{{"1e2-1e10", 2, 10}, {"1e10-1e30", 10, 30}, {"1e30-1e100", 30, 100}, {"1e100-1e300", 100, 301}}
	type row struct {
		n, ok       int
		dist, ratio []float64
		times       []float64
	}
	rows := make([]row, len(bands))
	for i, l := range views {
		o := findFrom(l, 1280, 720)
		e := l.ZoomExp().Log10()
		b := 0
		for b < len(bands)-1 && e >= bands[b].hi {
			b++
		}
		r := &rows[b]
		r.n++
		r.times = append(r.times, o.elapsed.Seconds())
		if o.ok {
			r.ok++
			r.dist = append(r.dist, o.dist)
			r.ratio = append(r.ratio, o.ratio.Log10())
			t.Logf("%3d zoom %s: period %d, %.3f heights, zoom x1e%.1f, %.3f s", i, l.Zoom, o.period, o.dist, o.ratio.Log10(), o.elapsed.Seconds())
		} else {
			t.Logf("%3d zoom %s: FAILED %v (%.3f s) at %s", i, l.Zoom, o.err, o.elapsed.Seconds(), l)
		}
	}
	med := func(v []float64) float64 {
		if len(v) == 0 {
			return math.NaN()
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| zoom band | views | found | median distance (view heights) | median zoom ratio | median time |\n|---|---|---|---|---|---|\n")
	total, found := 0, 0
	for i, r := range rows {
		total += r.n
		found += r.ok
		fmt.Fprintf(&b, "| %s | %d | %d | %.3f | 1e%.1f | %.3f s |\n", bands[i].name, r.n, r.ok, med(r.dist), med(r.ratio), med(r.times))
	}
	fmt.Fprintf(&b, "| all | %d | %d (%.0f%%) | | | |\n", total, found, 100*float64(found)/float64(max(total, 1)))
	t.Log(b.String())
}
