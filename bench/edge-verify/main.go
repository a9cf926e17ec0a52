// Command edge-verify checks deep views at minibrots' edges against math/big: views made by
// fractal.MinibrotEdgeViews (find's minibrot from a boundary view, a centre just inside or
// outside its cardioid, 10^4 to 10^7 deeper than the minibrot), random pixels of each at
// 320x180 computed as probe computes them (fractal.Frame.Escape: perturbation with BLA from
// the view's reference, a long count rechecked where that is a minibrot's nucleus) and in
// math/big at two precisions 128 bits apart (probe --exact is the first). A pixel whose
// two math/big counts differ is ill-conditioned and left out; the others agree when they are
// within max(1, N/1000) of math/big (inside: both -1). One line a view, then the totals, which
// docs/deep-zoom.md quotes.
//
// Usage (from the project root): go run ./bench/edge-verify [-n VIEWS] [-px PIXELS] [-lo E]
// [-hi E] [-iterlo N] [-iterhi N] [-seed N]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"mandelscope/fractal"
)

const w, h = 320, 180

var verbose, noBig bool

func main() {
	n := flag.Int("n", 8, "the number of `views`")
	px := flag.Int("px", 8, "random `pixels` a view")
	lo := flag.Float64("lo", 30, "the shallowest zoom's decimal `exponent`")
	hi := flag.Float64("hi", 300, "the deepest zoom's decimal `exponent`")
	iterLo := flag.Int("iterlo", 1_000_000, "the fewest `iterations`")
	iterHi := flag.Int("iterhi", 10_000_000, "the most `iterations`")
	seed := flag.Uint64("seed", 1, "the views' random `seed`")
	flag.BoolVar(&verbose, "v", false, "print every pixel: view, x, y, ours, math/big twice")
	flag.BoolVar(&noBig, "nobig", false, "skip math/big (print ours only, with -v: to compare another build's)")
	flag.Parse()
	if flag.NArg() > 0 || *n < 1 || *px < 1 {
		fmt.Fprintln(os.Stderr, "usage: edge-verify [-n VIEWS] [-px PIXELS] [-lo E] [-hi E] [-iterlo N] [-iterhi N] [-seed N]")
		os.Exit(2)
	}
	t0 := time.Now()
	views, err := fractal.MinibrotEdgeViews(*seed, *n, *lo, *hi, *iterLo, *iterHi)
	if err != nil {
		fmt.Fprintln(os.Stderr, "edge-verify:", err)
		os.Exit(1)
	}
	fmt.Printf("%d views in %v\n", len(views), time.Since(t0).Round(time.Millisecond))
	var total, good, agree, inside, insideAgree int
	for i, v := range views {
		g, a, in, ina, line := check(i, v, *px, uint64(i)+*seed*1000)
		total += *px
		good += g
		agree += a
		inside += in
		insideAgree += ina
		fmt.Printf("%2d %s\n", i, line)
	}
	fmt.Printf("\n%d views, %d pixels: %d well-conditioned, %d of them (%.1f%%) within max(1, N/1000) of math/big; inside: %d of %d\n",
		len(views), total, good, agree, 100*float64(agree)/float64(max(good, 1)), insideAgree, inside)
}

// check probes k random pixels of v against math/big and returns the counts and a line.
func check(view int, v fractal.EdgeView, k int, seed uint64) (good, agree, inside, insideAgree int, line string) {
	t0 := time.Now()
	f, err := fractal.NewFrame(v.Loc, w, h).WithReference(context.Background(), &fractal.ReferenceCache{}, nil)
	if err != nil {
		return 0, 0, 0, 0, "reference: " + err.Error()
	}
	tRef := time.Since(t0)
	rng := rand.New(rand.NewPCG(seed, 11))
	type pixel struct{ x, y, ours, b1, b2 int }
	ps := make([]pixel, k)
	for i := range ps {
		ps[i] = pixel{x: rng.IntN(w), y: rng.IntN(h)}
	}
	t1 := time.Now()
	for i := range ps {
		ps[i].ours, _ = f.Escape(ps[i].x, ps[i].y)
	}
	tOurs := time.Since(t1)
	p1 := f.ReferenceBits() + 32
	if noBig {
		for _, p := range ps {
			fmt.Printf("pixel %d %d %d %d\n", view, p.x, p.y, p.ours)
		}
		return 0, 0, 0, 0, "math/big skipped"
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := int(next.Add(1) - 1); j < 2*k; j = int(next.Add(1) - 1) {
				p := &ps[j/2]
				prec := p1 + uint(128*(j%2))
				cr, ci := f.PointBig(p.x, p.y, prec)
				n := fractal.EscapeBig(cr, ci, f.Loc.Iterations, prec)
				if j%2 == 0 {
					p.b1 = n
				} else {
					p.b2 = n
				}
			}
		}()
	}
	wg.Wait()
	var bad []string
	for _, p := range ps {
		if verbose {
			fmt.Printf("pixel %d %d %d %d %d %d\n", view, p.x, p.y, p.ours, p.b1, p.b2)
		}
		if p.b1 != p.b2 {
			continue
		}
		good++
		tol := max(1, f.Loc.Iterations/1000)
		ok := p.ours == p.b1 || p.ours >= 0 && p.b1 >= 0 && abs(p.ours-p.b1) <= tol
		if p.b1 < 0 {
			inside++
			if ok {
				insideAgree++
			}
		}
		if ok {
			agree++
		} else {
			bad = append(bad, fmt.Sprintf("%d,%d: %d vs %d", p.x, p.y, p.ours, p.b1))
		}
	}
	where := "in"
	if !v.Inside {
		where = "out"
	}
	ref := "centre"
	if off := math.Hypot(f.DRe, f.DIm) / (float64(w) * f.Spacing); off > 1 {
		ref = fmt.Sprintf("nucleus %.2g widths away", off)
	}
	line = fmt.Sprintf("zoom %s, %d iterations, period %d (%s), reference %s, period %d: %d of %d well-conditioned, %d agree (inside %d/%d); reference %v, ours %v, math/big %v",
		v.Loc.Zoom, v.Loc.Iterations, v.Period, where, ref, f.Ref.Period(), good, k, agree, insideAgree, inside,
		tRef.Round(time.Millisecond), tOurs.Round(time.Millisecond), time.Since(t1.Add(tOurs)).Round(time.Second))
	if len(bad) > 0 {
		line += fmt.Sprintf("; differ: %v", bad)
	}
	return good, agree, inside, insideAgree, line
}

func abs(x int) int { return max(x, -x) }
