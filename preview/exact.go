package preview

import (
	"image"
	"math"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// Exact reuse of computed data (issue 21): a full frame (or an accumulated sample) of a new
// view takes, from the data kept of the views before it (the view at rest and the cache's),
// every pixel whose sample is bit for bit the one it would compute, and computes only the
// rest. Unlike the interactive frames' resampling (reuse.go) nothing is approximate: the
// picture is byte for byte a fresh one.
//
// When a sample is the same: the CPU renderer computes a pixel of a Float32 or Double frame
// from its point alone (Frame.Point32, Point64: the float64 centre plus the pixel's offset
// times the spacing, the real part from the column, the imaginary part from the row), the
// iterations, the spacing (the derivative's scale) and whether the derivative is asked for
// (and the set: its formula and a Julia set's parameter);
// a pixel of a Perturbation frame from its delta (Frame.Delta, columns and rows alike), the
// reference orbit, the BLA table (a function of the orbit and the power of two DeltaMax
// rounds up to: Frame.BLABound), the iterations, the spacing and the derivative. So a
// column of the new frame may take an old frame's column whose coordinate has the same bits
// (rows likewise) when the rest is equal: the same precision, iterations, spacing and
// derivative, and for perturbation the same *Reference and BLABound. PerturbationExp frames
// (extended exponents: the CPU renderer finds their orbit itself, per call) are never
// matched.
//
// How much matches depends on the arithmetic, not on the pan alone: the new centre is a
// decimal written to a thousandth of a pixel (Location.Offset), which moves the rounded
// float64 centre (or the delta from the reference) by more than the rounding of the sums
// allows, so a pan by whole pixels matches every column only when the arithmetic is exact
// (a spacing that is a power of two, a centre on its grid), some columns by chance otherwise
// (float32 views often, deep double views partly, shallow double and perturbation views
// rarely); a pan that keeps a coordinate (a horizontal pan keeps the imaginary part's
// decimal) matches all of that axis. Whatever matches is exact.
//
// Only a renderer that says its samples are such pure functions (ExactComputer) has its data
// reused; the GPU's are not (its arithmetic rounds and fuses differently from the CPU's,
// emulated double included, so equal CPU coordinates do not prove equal GPU ones).

// ExactComputer is a renderer whose Compute gives, for frame f, every pixel's sample as a
// pure function of the pixel's coordinates as fractal.Frame computes them (Point32 for a
// Float32 frame, Point64 for Double, Delta with f.Ref and f.BLA() for Perturbation), f's
// iterations, spacing and NeedsDerivative: the same bits wherever the pixel sits in the
// frame or the rectangle computed. Data computed by such a renderer is reused exactly.
type ExactComputer interface {
	ComputesExactly(f fractal.Frame) bool
}

// exact reports whether s's renderer computes f's samples exactly (ExactComputer).
func (s *Scheduler) exact(f fractal.Frame) bool {
	e, ok := s.r.(ExactComputer)
	return ok && e.ComputesExactly(f)
}

// computed is data and the frame it was computed for, as the renderer's Compute saw it (its
// reference orbit set).
type computed struct {
	f     fractal.Frame
	data  *colour.Data // nil: none (a renderer that gives no data, or a frame given up)
	exact bool         // computed by a renderer that computes f exactly: it may be reused
}

// maxDonors is the most frames of data one frame takes samples from.
const maxDonors = 16

// donor is data that some pixels of a new frame take: for each column of the new frame the
// column of data with the bit-identical coordinate (-1: none), for each row likewise.
type donor struct {
	data       *colour.Data
	cols, rows []int32
}

// sameInputs reports whether every sample of old and nw is the same function of the pixel's
// coordinates: the same set (formula and Julia parameter), precision (not PerturbationExp),
// iterations, spacing, no rotation, derivative, cycles, orbit path and parameters and, for perturbation, reference orbit and BLA table.
func sameInputs(old, nw fractal.Frame) bool {
	p := nw.Precision()
	if p != old.Precision() || p == fractal.PerturbationExp ||
		old.Loc.Formula != nw.Loc.Formula || old.Loc.Julia != nw.Loc.Julia ||
		old.Loc.Iterations != nw.Loc.Iterations ||
		math.Float64bits(old.Spacing) != math.Float64bits(nw.Spacing) ||
		old.NeedsDerivative() != nw.NeedsDerivative() || old.NeedsInterior() != nw.NeedsInterior() || old.OrbitPath() != nw.OrbitPath() ||
		old.Loc.Bailout != nw.Loc.Bailout || old.Loc.StripeDensity != nw.Loc.StripeDensity || old.Loc.StripeLast != nw.Loc.StripeLast ||
		old.Loc.Rotation != 0 || nw.Loc.Rotation != 0 {
		return false // a rotated view's columns are not one coordinate each (axes)
	}
	if p == fractal.Perturbation {
		return nw.Ref != nil && old.Ref == nw.Ref && old.BLABound() == nw.BLABound()
	}
	return true
}

// axes are the bits of f's column and row coordinates, as f's precision computes them.
func axes(f fractal.Frame) (xs, ys []uint64) {
	xs, ys = make([]uint64, f.W), make([]uint64, f.H)
	switch f.Precision() {
	case fractal.Float32:
		for x := range xs {
			re, _ := f.Point32(x, 0)
			xs[x] = uint64(math.Float32bits(re))
		}
		for y := range ys {
			_, im := f.Point32(0, y)
			ys[y] = uint64(math.Float32bits(im))
		}
	case fractal.Double:
		for x := range xs {
			re, _ := f.Point64(x, 0)
			xs[x] = math.Float64bits(re)
		}
		for y := range ys {
			_, im := f.Point64(0, y)
			ys[y] = math.Float64bits(im)
		}
	default:
		for x := range xs {
			re, _ := f.Delta(x, 0)
			xs[x] = math.Float64bits(re)
		}
		for y := range ys {
			_, im := f.Delta(0, y)
			ys[y] = math.Float64bits(im)
		}
	}
	return xs, ys
}

// match maps every coordinate of nw to the index of the same bits in old (-1: none); n is
// the number mapped.
func match(old, nw []uint64) (m []int32, n int) {
	at := make(map[uint64]int32, len(old))
	for i, b := range old {
		if _, ok := at[b]; !ok {
			at[b] = int32(i)
		}
	}
	m = make([]int32, len(nw))
	for i, b := range nw {
		j, ok := at[b]
		if !ok {
			j = -1
		} else {
			n++
		}
		m[i] = j
	}
	return m, n
}

// reusePlan is how a frame takes samples from others: the donors, most preferred first.
type reusePlan struct {
	w, h   int
	donors []donor
	runs   map[uint64][][2]int // the columns no donor of a set covers, by the set's bits
}

// planReuse returns the plan by which frame f, which the renderer computes exactly, takes
// every sample it can from the exactly computed data of from (nil when it takes none).
func planReuse(f fractal.Frame, from []computed) *reusePlan {
	if f.W < 1 || f.H < 1 {
		return nil
	}
	var xs, ys []uint64
	p := &reusePlan{w: f.W, h: f.H}
	for _, c := range from {
		if len(p.donors) == maxDonors {
			break
		}
		if !c.exact || c.data == nil || c.data.Rect.Dx() != c.f.W || c.data.Rect.Dy() != c.f.H || !sameInputs(c.f, f) {
			continue
		}
		if xs == nil {
			xs, ys = axes(f)
		}
		oxs, oys := axes(c.f)
		cols, nc := match(oxs, xs)
		rows, nr := match(oys, ys)
		if nc == 0 || nr == 0 {
			continue
		}
		p.donors = append(p.donors, donor{data: c.data, cols: cols, rows: rows})
	}
	if len(p.donors) == 0 {
		return nil
	}
	return p
}

// uncovered is the runs [x0, x1) of columns that no donor in set covers.
func (p *reusePlan) uncovered(set uint64) [][2]int {
	if r, ok := p.runs[set]; ok {
		return r
	}
	var runs [][2]int
	start := -1
	for x := 0; x <= p.w; x++ {
		covered := x < p.w && p.covers(set, x) >= 0
		switch {
		case x < p.w && !covered && start < 0:
			start = x
		case (x == p.w || covered) && start >= 0:
			runs = append(runs, [2]int{start, x})
			start = -1
		}
	}
	if p.runs == nil {
		p.runs = map[uint64][][2]int{}
	}
	p.runs[set] = runs
	return runs
}

// covers is the first donor in set that has column x (-1: none).
func (p *reusePlan) covers(set uint64, x int) int {
	for i, d := range p.donors {
		if set&(1<<uint(i)) != 0 && d.cols[x] >= 0 {
			return i
		}
	}
	return -1
}

// fill copies into dst (the frame's data, its full size) the samples rows y0..y1-1 take from
// the donors and returns the rectangles left to compute and the number of samples copied.
func (p *reusePlan) fill(dst *colour.Data, y0, y1 int) (rest []image.Rectangle, reused int) {
	var set uint64
	var runs [][2]int
	from := y0
	flush := func(to int) {
		for _, r := range runs {
			rest = append(rest, image.Rect(r[0], from, r[1], to))
		}
	}
	for y := y0; y < y1; y++ {
		var s uint64
		for i, d := range p.donors {
			if d.rows[y] >= 0 {
				s |= 1 << uint(i)
			}
		}
		if y == y0 || s != set {
			if y > y0 {
				flush(y)
			}
			set, runs, from = s, p.uncovered(s), y
		}
		if s == 0 {
			continue
		}
		var src [maxDonors][]colour.Sample
		for i, d := range p.donors {
			if s&(1<<uint(i)) != 0 {
				src[i] = d.data.Row(d.data.Rect.Min.Y + int(d.rows[y]))
			}
		}
		row := dst.Row(dst.Rect.Min.Y + y)
		for x := range row {
			if i := p.covers(s, x); i >= 0 {
				row[x] = src[i][p.donors[i].cols[x]]
				reused++
			}
		}
	}
	flush(y1)
	return rest, reused
}
