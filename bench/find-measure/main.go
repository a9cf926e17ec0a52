// Command find-measure measures the minibrot search (fractal.FindMinibrotWith, the find
// command and the window's Find) from views on the set's boundary as a person meets them
// (fractal.BoundaryViews), at zooms 1e2 to 1e300: one line per view, then a table by zoom band
// of how many searches found a minibrot, the median distance of its centre from the view's in
// view heights, the median zoom ratio and the median time. docs/deep-zoom.md quotes its table.
// With -n 100 it takes about 20 minutes, nearly all of it building the views in math/big.
// (It was fractal's TestFindMeasure.)
//
// Usage (from the project root): go run ./bench/find-measure [-n VIEWS] [-hi EXPONENT] [-seed N]
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"mandelscope/fractal"
)

// The views' size in pixels.
const w, h = 1280, 720

// band is a range of zoom exponents in the table.
type band struct {
	name   string
	lo, hi float64
}

var bands = []band{{"1e2-1e10", 2, 10}, {"1e10-1e30", 10, 30}, {"1e30-1e100", 30, 100}, {"1e100-1e300", 100, math.Inf(1)}}

// row is a band's searches.
type row struct {
	n, ok              int
	dist, ratio, times []float64
}

func main() {
	n := flag.Int("n", 100, "the number of `views`")
	hi := flag.Float64("hi", 300, "the deepest zoom's decimal `exponent` (2 to 10000)")
	seed := flag.Uint64("seed", 1, "the views' random `seed`")
	flag.Parse()
	if flag.NArg() > 0 || *n < 1 || !(*hi >= 2 && *hi <= 1e4) {
		fmt.Fprintln(os.Stderr, "usage: find-measure [-n VIEWS (1 or more)] [-hi EXPONENT (2 to 10000)] [-seed N]")
		os.Exit(2)
	}
	if err := measure(*n, *hi, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "find-measure:", err)
		os.Exit(1)
	}
}

func measure(n int, hi float64, seed uint64) error {
	t0 := time.Now()
	views, err := fractal.BoundaryViews(seed, n, 5, 2, hi)
	if err != nil {
		return err
	}
	fmt.Printf("%d views in %v\n", len(views), time.Since(t0).Round(time.Millisecond))
	rows := make([]row, len(bands))
	for i, l := range views {
		e := l.ZoomExp().Log10()
		b := 0
		for b < len(bands)-1 && e >= bands[b].hi {
			b++
		}
		search(i, l, &rows[b])
	}
	fmt.Print(table(rows))
	return nil
}

// search searches from the centre of l, prints the outcome and adds it to r.
func search(i int, l fractal.Location, r *row) {
	t0 := time.Now()
	f, err := fractal.FindMinibrotWith(context.Background(), l, w, h, w/2, h/2, fractal.FindOptions{Limit: 1_000_000, MaxTime: 60 * time.Second})
	took := time.Since(t0).Seconds()
	r.n++
	r.times = append(r.times, took)
	if err != nil {
		fmt.Printf("%3d zoom %s: FAILED %v (%.3f s) at %s\n", i, l.Zoom, err, took, l)
		return
	}
	d, ratio := f.Offset(l, w, h)
	r.ok++
	r.dist = append(r.dist, d)
	r.ratio = append(r.ratio, ratio.Log10())
	fmt.Printf("%3d zoom %s: period %d, %.3f heights, zoom x1e%.1f, %.3f s\n", i, l.Zoom, f.Period, d, ratio.Log10(), took)
}

// table is the Markdown table of the bands' searches.
func table(rows []row) string {
	s := "\n| zoom band | views | found | median distance (view heights) | median zoom ratio | median time |\n|---|---|---|---|---|---|\n"
	total, found := 0, 0
	for i, r := range rows {
		total += r.n
		found += r.ok
		s += fmt.Sprintf("| %s | %d | %d | %.3f | 1e%.1f | %.3f s |\n", bands[i].name, r.n, r.ok, median(r.dist), median(r.ratio), median(r.times))
	}
	return s + fmt.Sprintf("| all | %d | %d (%.0f%%) | | | |\n", total, found, 100*float64(found)/float64(max(total, 1)))
}

// median is the median of v (sorting it), NaN for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	return v[len(v)/2]
}
