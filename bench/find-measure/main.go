// Command find-measure measures the minibrot search (fractal.FindMinibrotWith, the find
// command and the window's Find) from views on the set's boundary as a person meets them
// (fractal.BoundaryViews), at zooms 1e2 to 1e300: one line per view, then a table by zoom band
// of how many searches found a minibrot, the median distance of its centre from the view's in
// view heights, the median zoom ratio and the median time. docs/deep-zoom.md quotes its table.
// With -n 100 it takes about 20 minutes, nearly all of it building the views in math/big.
// (It was fractal's TestFindMeasure.)
//
// With -misiurewicz it measures the Misiurewicz search instead (fractal.FindMisiurewicz, find
// --misiurewicz and the window's Shift+M) from the centres of two sets of views: the boundary
// views, and the views that FindMinibrotWith frames from them (a minibrot in the middle, as
// find and M leave them). Its tables give, by zoom band, how many searches found a point, how
// many of those lie inside the view searched, the median distance from the view's centre in
// view heights and the median time; then the failures' reasons.
//
// Usage (from the project root): go run ./bench/find-measure [-misiurewicz] [-n VIEWS] [-hi EXPONENT] [-seed N]
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

// misiBands are the Misiurewicz tables' bands: the views framing a minibrot go deeper than 1e300.
var misiBands = []band{{"1e2-1e10", 2, 10}, {"1e10-1e30", 10, 30}, {"1e30-1e100", 30, 100}, {"1e100-1e300", 100, 300}, {"1e300 and deeper", 300, math.Inf(1)}}

// row is a band's searches.
type row struct {
	n, ok              int
	dist, ratio, times []float64
}

func main() {
	n := flag.Int("n", 100, "the number of `views`")
	hi := flag.Float64("hi", 300, "the deepest zoom's decimal `exponent` (2 to 10000)")
	seed := flag.Uint64("seed", 1, "the views' random `seed`")
	misi := flag.Bool("misiurewicz", false, "measure the Misiurewicz point search instead")
	flag.Parse()
	if flag.NArg() > 0 || *n < 1 || !(*hi >= 2 && *hi <= 1e4) {
		fmt.Fprintln(os.Stderr, "usage: find-measure [-misiurewicz] [-n VIEWS (1 or more)] [-hi EXPONENT (2 to 10000)] [-seed N]")
		os.Exit(2)
	}
	run := measure
	if *misi {
		run = measureMisiurewicz
	}
	if err := run(*n, *hi, *seed); err != nil {
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
		search(i, l, &rows[bandOf(bands, l)])
	}
	fmt.Print(table(rows))
	return nil
}

// bandOf is the index in bands of l's zoom.
func bandOf(bands []band, l fractal.Location) int {
	e := l.ZoomExp().Log10()
	b := 0
	for b < len(bands)-1 && e >= bands[b].hi {
		b++
	}
	return b
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

// misiRow is a band's Misiurewicz searches.
type misiRow struct {
	n, ok, inside int
	dist, times   []float64
}

// measureMisiurewicz measures FindMisiurewicz from the centres of the boundary views and of
// the views FindMinibrotWith frames from them.
func measureMisiurewicz(n int, hi float64, seed uint64) error {
	t0 := time.Now()
	views, err := fractal.BoundaryViews(seed, n, 5, 2, hi)
	if err != nil {
		return err
	}
	fmt.Printf("%d views in %v\n", len(views), time.Since(t0).Round(time.Millisecond))
	boundary := make([]misiRow, len(misiBands))
	framing := make([]misiRow, len(misiBands))
	var failed []string
	for i, l := range views {
		if why := searchMisi(fmt.Sprintf("%3d boundary", i), l, &boundary[bandOf(misiBands, l)]); why != "" {
			failed = append(failed, why)
		}
		f, err := fractal.FindMinibrotWith(context.Background(), l, w, h, w/2, h/2, fractal.FindOptions{Limit: 1_000_000, MaxTime: 60 * time.Second})
		if err != nil {
			fmt.Printf("%3d framing  zoom %s: no minibrot to frame (%v)\n", i, l.Zoom, err)
			continue
		}
		if why := searchMisi(fmt.Sprintf("%3d framing ", i), f.Loc, &framing[bandOf(misiBands, f.Loc)]); why != "" {
			failed = append(failed, why)
		}
	}
	fmt.Printf("\nThe slowest search took %.3f s (zoom %s).\n", slowest, slowestZoom)
	fmt.Print("\nBoundary views:\n" + misiTable(boundary))
	fmt.Print("\nViews framing a minibrot (find's, from the boundary views):\n" + misiTable(framing))
	if len(failed) > 0 {
		fmt.Println("\nFailures:")
		for _, s := range failed {
			fmt.Println(s)
		}
	}
	return nil
}

// slowest is the longest Misiurewicz search's time, at slowestZoom.
var (
	slowest     float64
	slowestZoom string
)

// searchMisi searches for a Misiurewicz point from the centre of l, prints the outcome, adds
// it to r, and returns a line saying why when none was found inside the view.
func searchMisi(name string, l fractal.Location, r *misiRow) string {
	t0 := time.Now()
	f, err := fractal.FindMisiurewicz(context.Background(), l, w, h, w/2, h/2, 1_000_000)
	took := time.Since(t0).Seconds()
	if took > slowest {
		slowest, slowestZoom = took, l.Zoom.String()
	}
	r.n++
	r.times = append(r.times, took)
	if err != nil {
		fmt.Printf("%s zoom %s: FAILED %v (%.3f s) at %s\n", name, l.Zoom, err, took, l)
		return fmt.Sprintf("%s zoom %s: %v", name, l.Zoom, err)
	}
	d, _ := f.Offset(l, w, h)
	in := f.InView(l, w, h)
	r.ok++
	r.dist = append(r.dist, d)
	where := "inside"
	if in {
		r.inside++
	} else {
		where = "OUTSIDE the view"
	}
	fmt.Printf("%s zoom %s: preperiod %d period %d, %.3f heights (%s), %.3f s\n", name, l.Zoom, f.Preperiod, f.Period, d, where, took)
	if !in {
		return fmt.Sprintf("%s zoom %s: preperiod %d period %d %.3f view heights away, outside the view", name, l.Zoom, f.Preperiod, f.Period, d)
	}
	return ""
}

// misiTable is the Markdown table of the bands' Misiurewicz searches.
func misiTable(rows []misiRow) string {
	s := "\n| zoom band | views | found | inside the view | median distance (view heights) | median time |\n|---|---|---|---|---|---|\n"
	total, found, inside := 0, 0, 0
	for i, r := range rows {
		total += r.n
		found += r.ok
		inside += r.inside
		s += fmt.Sprintf("| %s | %d | %d | %d | %.3f | %.3f s |\n", misiBands[i].name, r.n, r.ok, r.inside, median(r.dist), median(r.times))
	}
	pc := func(k int) float64 { return 100 * float64(k) / float64(max(total, 1)) }
	return s + fmt.Sprintf("| all | %d | %d (%.0f%%) | %d (%.0f%%) | | |\n", total, found, pc(found), inside, pc(inside))
}
