package colour

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"mandelscope/internal/text"
)

// The automatic density (Coloring.AutoDensity) is chosen from the escape counts in view: the
// visible range of the smooth counts, from the AutoLow to the AutoHigh quantile (the tails
// are a few pixels near the set and far outside it, which should not decide the bands of the
// rest), measured in palette cycles (density / 32 cycles an iteration). A range of at most
// AutoKeepCycles cycles at density 1 keeps density 1; a wider one gets the largest step of a
// ladder of densities 1/2, 1/4, 1/8, ... at which it spans at most AutoCycles cycles
// (AutoDensity).
//
// Why these numbers: AutoKeepCycles (16 cycles, 512 iterations) is above the range of every
// view with a few hundred iterations (the whole set; seahorse valley from zoom 1e3 to 1e6 with
// the automatic iterations, whose ranges are 180 to 460 iterations; 1e14 with 4,000), so they
// draw exactly as they always did. The views that need a lower density are those near deep
// minibrots, whose counts spread over tens of thousands of iterations with neighbouring
// pixels many cycles apart: at AutoCycles (12), their range spans 6 to 12 cycles, enough
// colours for contrast between the bands, and bands wide enough that the speckle within them
// (which at 16 cycles is still plain at 1e45) stays small. The views of
// fractal/testdata/deep get 1/128 (0.0078: 1e45 and 1e44, 300,000 iterations) and 1/256
// (0.0039: 2e32, 250,000 iterations), where a person finds about 0.003 by hand.
//
// The range alone misses how fast the counts change from pixel to pixel. Near deep
// minibrots (1e19 and deeper with the automatic iterations) the filaments' counts jump by
// tens to hundreds of iterations between neighbouring pixels of the density's sample (about
// 96 across the view, the export's and the window's alike), so that 12 cycles over the range
// put a quarter of the pixels a third of a cycle or more from their neighbours: speckle, the
// picture "mostly noise". So under the linear transfer, where the range asks for less than
// density 1, the density is also at most the largest step at which the AutoLocalQuantile of
// the differences between neighbouring samples of that grid spans at most AutoLocalCycles of
// a cycle (AutoDensityOf). At kf1e50's centre at zoom 1e19 (16,912 iterations) that is 1/8
// where the range alone gave 1/4, at p136119's at 1e20 1/32 for 1/8; the deep test views
// keep their 1/256 and 1/128, which the range already gives.
//
// Why a ladder of powers of two: any change of density shifts the colour of a count nu by
// nu * change / 32 cycles, so at depth even a 1% change recolours the whole picture. The
// ladder changes it seldom, in steps that are plainly a choice, and AutoDensityNear keeps the
// current step while the range stays within a factor of two of its band, so that panning and
// zooming do not flicker the colours.
const (
	AutoKeepCycles = 16
	AutoCycles     = 12
	AutoLow        = 0.05
	AutoHigh       = 0.95
	// AutoMinSamples is the fewest escaped samples from which a density is chosen: fewer (a
	// view nearly all inside the set) keep density 1.
	AutoMinSamples = 16
	// AutoSamples bounds the samples that ResolveDensity and FollowDensity read from data
	// (DataNus).
	AutoSamples = 4096
	// AutoLocalCycles and AutoLocalQuantile bound the density by the differences between
	// neighbouring samples (see above): their AutoLocalQuantile quantile spans at most
	// AutoLocalCycles palette cycles.
	AutoLocalCycles   = 0.5
	AutoLocalQuantile = 0.75
)

// minAutoDensity is the lowest step of the ladder: the smallest power of two within
// MinDensity.
var minAutoDensity = math.Ldexp(1, -int(math.Floor(-math.Log2(MinDensity))))

// AutoDensity is the automatic density for smooth escape counts nus (transferred already, as
// the palette reads them: TransferValue) under the transfer function transfer. For the
// linear transfer it is 1 when the counts' range from the AutoLow to the AutoHigh quantile
// spans at most AutoKeepCycles palette cycles at density 1, else the largest of 1/2, 1/4,
// 1/8, ... (down to about MinDensity) at which it spans at most AutoCycles. For sqrt and log,
// which squeeze hundreds of iterations into a few units (a log range of 2.4 spans 0.08 of a
// cycle at density 1: one flat colour), it is the largest power of two (up to
// maxAutoDensity) at which the range spans at most AutoTransferCycles. Values that are not
// finite (inside points, +Inf) are left out; with fewer than AutoMinSamples left it is 1. nus
// is not modified.
func AutoDensity(nus []float64, transfer string) float64 {
	return AutoDensityOf(nus, nil, transfer)
}

// AutoDensityOf is AutoDensity bounded by the differences between neighbouring samples,
// steps (DataSample's): under the linear transfer, where AutoDensity is below 1, it is at
// most the largest step of the ladder at which the AutoLocalQuantile of steps spans at most
// AutoLocalCycles cycles (no bound with fewer than AutoMinSamples steps).
func AutoDensityOf(nus, steps []float64, transfer string) float64 {
	spread, ok := autoSpread(nus)
	if !ok {
		return 1
	}
	d := densityForSpread(spread, transfer)
	if d < 1 && TransferIndex(transfer) <= 0 {
		d = min(d, localDensity(steps))
	}
	return d
}

// localDensity is the largest step of the linear ladder at which the AutoLocalQuantile of
// steps spans at most AutoLocalCycles cycles: +Inf (no bound) with fewer than
// AutoMinSamples finite steps or where they are all 0.
func localDensity(steps []float64) float64 {
	v := make([]float64, 0, len(steps))
	for _, x := range steps {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			v = append(v, math.Abs(x))
		}
	}
	if len(v) < AutoMinSamples {
		return math.Inf(1)
	}
	slices.Sort(v)
	q := v[int(math.Round(AutoLocalQuantile*float64(len(v)-1)))]
	if !(q > 0) {
		return math.Inf(1)
	}
	d := math.Ldexp(1, int(math.Floor(math.Log2(32*AutoLocalCycles/q))))
	return min(max(d, minAutoDensity), 0.5)
}

// AutoDensityNear is AutoDensity with hysteresis, for a view that is drawn again and again
// (the window's frames as one pans and zooms), prev the automatic density chosen before.
// Under the linear transfer it is 1 wherever AutoDensity is (a shallow view draws as it
// always did, whatever came before); otherwise it keeps prev while prev is a step of the
// transfer's ladder and the range spans, at prev, from a quarter to twice the cycles of the
// band (AutoCycles, or AutoTransferCycles; linear prev 1: up to 2*AutoKeepCycles), a factor
// of two beyond AutoDensity's band on either side; else it is AutoDensity.
func AutoDensityNear(nus []float64, prev float64, transfer string) float64 {
	return AutoDensityNearOf(nus, nil, prev, transfer)
}

// AutoDensityNearOf is AutoDensityNear bounded as AutoDensityOf by the differences between
// neighbouring samples, steps, with hysteresis too: prev is kept up to one step above that
// bound.
func AutoDensityNearOf(nus, steps []float64, prev float64, transfer string) float64 {
	d := autoDensityNear(nus, prev, transfer)
	if d < 1 && TransferIndex(transfer) <= 0 {
		lim := localDensity(steps)
		if d == prev && prev <= 2*lim {
			return prev
		}
		d = min(d, lim)
	}
	return d
}

// autoDensityNear is AutoDensityNear.
func autoDensityNear(nus []float64, prev float64, transfer string) float64 {
	spread, ok := autoSpread(nus)
	if !ok {
		return 1
	}
	next := densityForSpread(spread, transfer)
	linear := TransferIndex(transfer) <= 0
	if (linear && next == 1) || next == prev || !onLadder(prev, transfer) {
		return next
	}
	cycles := spread * prev / 32
	band := float64(AutoTransferCycles)
	if linear {
		band = AutoCycles
		if prev == 1 {
			if cycles <= 2*AutoKeepCycles {
				return 1
			}
			return next
		}
	}
	if cycles >= band/4 && cycles <= 2*band {
		return prev
	}
	return next
}

// AutoTransferCycles is the number of palette cycles the range of the counts in view spans
// at most, and more than half of, under the sqrt and log transfers (AutoDensity). Three
// cycles: the shallow views (the whole set, seahorse valley at 300 and 1e6, the period-58
// minibrot at 23000) come out at density 4 to 8 under sqrt and 32 to 64 under log, with the
// bands of a linear view of a few hundred iterations.
const AutoTransferCycles = 3

// maxAutoDensity is the highest step of the sqrt and log transfers' ladder: a range of 0.02
// log units (a deep view whose counts differ by a few iterations in 15,000) spans 3 cycles.
const maxAutoDensity = 4096

// onLadder reports whether d is one of AutoDensity's values under transfer.
func onLadder(d float64, transfer string) bool {
	top := 1.0
	if TransferIndex(transfer) > 0 {
		top = maxAutoDensity
	}
	if !(d >= minAutoDensity && d <= top) {
		return false
	}
	frac, _ := math.Frexp(d)
	return frac == 0.5
}

// densityForSpread is AutoDensity for a range of spread smooth (transferred) iterations.
func densityForSpread(spread float64, transfer string) float64 {
	if TransferIndex(transfer) > 0 {
		if !(spread > 0) { // one value in view: any density draws it in one colour
			return 1
		}
		d := math.Ldexp(1, int(math.Floor(math.Log2(32*AutoTransferCycles/spread))))
		return min(max(d, minAutoDensity), maxAutoDensity)
	}
	if !(spread > 32*AutoKeepCycles) { // NaN never comes: autoSpread's values are finite
		return 1
	}
	d := math.Ldexp(1, int(math.Floor(math.Log2(32*AutoCycles/spread))))
	return min(max(d, minAutoDensity), 0.5)
}

// autoSpread is the range of nus's finite values from the AutoLow to the AutoHigh quantile
// (nearest rank); ok is false with fewer than AutoMinSamples of them.
func autoSpread(nus []float64) (spread float64, ok bool) {
	v := make([]float64, 0, len(nus))
	for _, x := range nus {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) < AutoMinSamples {
		return 0, false
	}
	slices.Sort(v)
	at := func(q float64) float64 { return v[int(math.Round(q*float64(len(v)-1)))] }
	return at(AutoHigh) - at(AutoLow), true
}

// DataNus returns the smooth counts of up to n samples of d, transferred by transfer
// (TransferValue), taken on an even grid over d's rectangle; inside samples are left out.
func DataNus(d *Data, transfer string, n int) []float64 {
	nus, _ := DataSample(d, transfer, n)
	return nus
}

// DataSample is DataNus with the differences between the transferred counts of the grid's
// neighbouring samples, across and down (pairs with an inside sample left out): what
// AutoDensityOf bounds the density by.
func DataSample(d *Data, transfer string, n int) (nus, steps []float64) {
	w, h := d.Rect.Dx(), d.Rect.Dy()
	if w <= 0 || h <= 0 || n <= 0 {
		return nil, nil
	}
	step := 1
	for (w+step-1)/step*((h+step-1)/step) > n {
		step++
	}
	out := make([]float64, 0, min(n, w*h))
	steps = make([]float64, 0, 2*min(n, w*h))
	var prevRow []Sample
	for y := d.Rect.Min.Y + step/2; y < d.Rect.Max.Y; y += step {
		row := d.Row(y)
		for x := step / 2; x < w; x += step {
			s := row[x]
			if s.Inside() {
				continue
			}
			v := TransferValue(transfer, s.Nu)
			out = append(out, v)
			if x >= step && !row[x-step].Inside() {
				steps = append(steps, v-TransferValue(transfer, row[x-step].Nu))
			}
			if prevRow != nil && !prevRow[x].Inside() {
				steps = append(steps, v-TransferValue(transfer, prevRow[x].Nu))
			}
		}
		prevRow = row
	}
	return out, steps
}

// ResolveDensity returns c with its density resolved from the samples d of its view: for an
// automatic density (c.AutoDensity), the density AutoDensity chooses from them, made
// explicit (AutoDensity false), so that the colouring draws and records that number
// (AutoDensityOf, bounded by the differences between neighbouring samples). An explicit
// density is returned unchanged. The histogram colouring's automatic density is 1 (one
// palette cycle over the picture's pixels, whatever the view), d not read.
func (c Coloring) ResolveDensity(d *Data) Coloring {
	if !c.AutoDensity {
		return c
	}
	if c.IsHistogram() {
		c.Density, c.AutoDensity = 1, false
		return c
	}
	nus, steps := DataSample(d, c.Transfer, AutoSamples)
	c.Density = AutoDensityOf(nus, steps, c.Transfer)
	c.AutoDensity = false
	return c
}

// FollowDensity is for a view drawn again and again, such as the window's: for an automatic
// density it returns c with Density the one AutoDensityNear chooses from the samples d of the
// view, starting from c's current Density, and still automatic (so that the next frame
// follows the view again); for the histogram colouring, 1. An explicit density is returned
// unchanged.
func (c Coloring) FollowDensity(d *Data) Coloring {
	if !c.AutoDensity {
		return c
	}
	if c.IsHistogram() {
		c.Density = 1
		return c
	}
	nus, steps := DataSample(d, c.Transfer, AutoSamples)
	c.Density = AutoDensityNearOf(nus, steps, c.Density, c.Transfer)
	return c
}

// DensityText is the density's text form: "auto" for an automatic density, else the number
// in its shortest exact form.
func (c Coloring) DensityText() string {
	if c.AutoDensity {
		return "auto"
	}
	return formatFloat(c.Density)
}

// SetDensityText sets c's density from its text form (DensityText's, any case): "auto" makes
// it automatic, keeping Density (the number drawn until the view resolves it) when c's was
// automatic already and else making it 1; a number makes it explicit. The number's range is
// Validate's to check; text that is neither is an error.
func (c *Coloring) SetDensityText(s string) error {
	if strings.EqualFold(s, "auto") {
		if !c.AutoDensity {
			c.Density = 1
		}
		c.AutoDensity = true
		return nil
	}
	d, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: Validate says so
		return fmt.Errorf("density %q is neither a number nor auto", text.Clip(s, 40))
	}
	c.Density, c.AutoDensity = d, false
	return nil
}
