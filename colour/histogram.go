package colour

import (
	"hash/fnv"
	"slices"
)

// The histogram colouring (MethodHistogram) spreads the palette evenly over a picture's
// pixels rather than over its escape counts: a sample's palette position is the share of the
// picture's escaped samples whose count is below its own (Equalisation.Value), so that every
// colour of one palette cycle covers about as many pixels. That share is a property of the
// whole picture, not of a pixel: it is computed from the picture's own samples (a Histogram,
// added to strip by strip, in memory bounded by the number of distinct integer counts, at most
// the iterations) and carried by the colouring (Coloring.Equal) to every renderer and tile,
// so that a picture drawn in tiles, strips or bands is coloured as one.

// Histogram counts the escaped samples of a picture by integer escape count (the floor of
// the smooth count; counts below 0 count as 0). Its zero value is empty and ready to use.
type Histogram struct {
	counts map[int64]uint64
	total  uint64
}

// Add counts d's escaped samples.
func (h *Histogram) Add(d *Data) {
	if h.counts == nil {
		h.counts = make(map[int64]uint64)
	}
	for y := d.Rect.Min.Y; y < d.Rect.Max.Y; y++ {
		h.addRow(d.Row(y))
	}
}

// addRow counts one row, a run of equal counts at a time (neighbours mostly share theirs).
func (h *Histogram) addRow(row []Sample) {
	run, n := int64(-1), uint64(0)
	for _, s := range row {
		if s.Inside() || s.Nu != s.Nu {
			continue
		}
		h.total++
		c := histBin(s.Nu)
		if c != run {
			if n > 0 {
				h.counts[run] += n
			}
			run, n = c, 0
		}
		n++
	}
	if n > 0 {
		h.counts[run] += n
	}
}

// histBin is the integer count of a smooth count: its floor, 0 below 0, capped far above
// any iteration count.
func histBin(nu float64) int64 {
	switch {
	case !(nu > 0):
		return 0
	case nu >= 1<<62:
		return 1 << 62
	}
	return int64(nu)
}

// Total is the number of escaped samples counted.
func (h *Histogram) Total() uint64 { return h.total }

// Equalisation returns the histogram's cumulative shares, for colouring (Coloring.Equal).
func (h *Histogram) Equalisation() *Equalisation {
	e := &Equalisation{}
	if h.total == 0 {
		return e
	}
	e.n = make([]int64, 0, len(h.counts))
	for c := range h.counts {
		e.n = append(e.n, c)
	}
	slices.Sort(e.n)
	e.below = make([]float64, len(e.n))
	e.share = make([]float64, len(e.n))
	var acc uint64
	tot := float64(h.total)
	sum := fnv.New64a()
	var b [16]byte
	for i, c := range e.n {
		k := h.counts[c]
		e.below[i] = float64(acc) / tot
		e.share[i] = float64(k) / tot
		acc += k
		for j := range 8 {
			b[j], b[8+j] = byte(uint64(c)>>(8*j)), byte(k>>(8*j))
		}
		sum.Write(b[:])
	}
	e.id = sum.Sum64() ^ h.total
	if span := e.n[len(e.n)-1] - e.n[0] + 1; span <= denseSpan {
		// A table by count: Value without a search (the window colours a 1280x720 frame
		// with 16 samples a pixel through it).
		e.lo = e.n[0]
		e.dense = make([]countShare, span)
		j := 0
		for c := range e.dense {
			for j < len(e.n) && e.n[j] < e.lo+int64(c) {
				j++
			}
			if j < len(e.n) && e.n[j] == e.lo+int64(c) {
				e.dense[c] = countShare{e.below[j], e.share[j]}
			} else if j < len(e.n) {
				e.dense[c] = countShare{e.below[j], 0}
			} else {
				e.dense[c] = countShare{1, 0}
			}
		}
	}
	return e
}

// denseSpan is the widest range of counts (the highest less the lowest) whose equalisation
// is a table by count (16 MiB at most); a wider one is searched.
const denseSpan = 1 << 20

// countShare is a count's share below and share at, in a dense table.
type countShare struct{ below, share float64 }

// Equalisation is a picture's escape counts as cumulative shares (Histogram.Equalisation): the
// histogram colouring's palette position of a sample. It is read only once made, and shared
// by every renderer colouring the picture.
type Equalisation struct {
	n     []int64   // the distinct integer counts, ascending
	below []float64 // the share of samples with a count below n[i]
	share []float64 // the share with count n[i]
	id    uint64    // a digest of the counts (Same)
	// dense is below and share by count from lo, where the counts span at most denseSpan.
	lo    int64
	dense []countShare
}

// Value is the share of the picture's escaped samples whose smooth count is below nu, in [0, 1]:
// for nu = n + f (n its integer count), the share below n plus f times the share at n, so
// that it grows continuously with nu. A count the picture does not hold takes the share below
// it. A nil or empty equalisation gives 0.
func (e *Equalisation) Value(nu float64) float64 {
	if e == nil || len(e.n) == 0 || nu != nu {
		return 0
	}
	c := histBin(nu)
	if e.dense != nil {
		switch i := c - e.lo; {
		case i < 0:
			return 0
		case i >= int64(len(e.dense)):
			return 1
		default:
			d := e.dense[i]
			f := nu - float64(c)
			if !(f >= 0) {
				f = 0
			} else if f > 1 {
				f = 1
			}
			return min(d.below+f*d.share, 1)
		}
	}
	i, found := slices.BinarySearch(e.n, c)
	if !found {
		if i == len(e.n) {
			return 1
		}
		return e.below[i]
	}
	f := nu - float64(c)
	if !(f >= 0) {
		f = 0
	} else if f > 1 {
		f = 1
	}
	return min(e.below[i]+f*e.share[i], 1)
}

// Same reports whether e and o hold the same counts (both nil counts as the same).
func (e *Equalisation) Same(o *Equalisation) bool {
	if e == nil || o == nil {
		return e == o
	}
	return e.id == o.id && slices.Equal(e.n, o.n) && slices.Equal(e.share, o.share)
}

// Equalise returns c with the equalisation of the samples d (Histogram.Equalisation) for
// the histogram colouring, keeping c's own when it holds the same counts, so that a picture
// coloured again compares equal. Other colourings are returned unchanged.
func (c Coloring) Equalise(d *Data) Coloring {
	if !c.IsHistogram() {
		return c
	}
	var h Histogram
	h.Add(d)
	e := h.Equalisation()
	if !c.Equal.Same(e) {
		c.Equal = e
	}
	return c
}

// IsHistogram reports whether c is the histogram colouring, which needs the whole picture's
// counts (Coloring.Equal) before any pixel is coloured.
func (c Coloring) IsHistogram() bool { return c.Method == MethodHistogram }

// histValue is the histogram colouring's value in place of the smooth count: 32 times the
// share (so that density 1 is one palette cycle over the picture).
func histValue(e *Equalisation, nu float64) float64 {
	return 32 * e.Value(nu)
}

// WithEqualisation returns a copy of k that colours with the equalisation e in place of its
// colouring's (Coloring.Equal), for a histogram colouring whose pictures each have their own
// counts (a video's keyframes).
func (k *Colourer) WithEqualisation(e *Equalisation) *Colourer {
	c := *k
	c.eq = e
	c.c.Equal = e
	return &c
}
