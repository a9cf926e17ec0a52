package colour

import (
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// uniform is n counts spread evenly from lo to hi.
func uniform(n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return v
}

// cyclesAt is the number of palette cycles the AutoLow..AutoHigh range of nus spans at
// density d.
func cyclesAt(t *testing.T, nus []float64, d float64) float64 {
	t.Helper()
	spread, ok := autoSpread(nus)
	if !ok {
		t.Fatal("no spread")
	}
	return spread * d / 32
}

func TestAutoDensityShallowIsOne(t *testing.T) {
	for _, c := range []struct {
		name string
		nus  []float64
	}{
		{"none", nil},
		{"all inside", slices.Repeat([]float64{Inside}, 1000)},
		{"too few escaped", append(slices.Repeat([]float64{Inside}, 1000), uniform(AutoMinSamples-1, 0, 1e6)...)},
		{"narrow", uniform(1000, 1, 60)},
		{"512 iterations", uniform(1001, 100, 612+100*0.1/0.9)}, // 5%..95% spans exactly 512
		{"wide tails only", append(uniform(900, 200, 300), append(slices.Repeat([]float64{1e6}, 40), slices.Repeat([]float64{-1e6}, 40)...)...)},
		{"not numbers", append(uniform(100, 0, 10), math.NaN(), math.Inf(-1), math.NaN())},
	} {
		if d := AutoDensity(c.nus, ""); d != 1 {
			t.Errorf("%s: density %g, want 1", c.name, d)
		}
	}
}

func TestAutoDensityWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, spread := range []float64{513, 600, 1000, 5000, 26000, 50000, 74000, 1e6, 1e8} {
		lo := 1e5 * rng.Float64()
		nus := uniform(2001, lo, lo+spread/0.9) // the 5%..95% range is spread
		rng.Shuffle(len(nus), func(i, j int) { nus[i], nus[j] = nus[j], nus[i] })
		keep := slices.Clone(nus)
		d := AutoDensity(nus, "")
		if !slices.Equal(nus, keep) {
			t.Fatal("AutoDensity modified its input")
		}
		if !onLadder(d, "") || d >= 1 {
			t.Errorf("spread %g: density %g is not a step of the ladder below 1", spread, d)
			continue
		}
		c := cyclesAt(t, nus, d)
		if !(c > AutoCycles/2 && c <= AutoCycles) {
			t.Errorf("spread %g: density %g gives %.2f cycles, want (%d, %d]", spread, d, c, AutoCycles/2, AutoCycles)
		}
	}
	// The figure of the issue: counts in view over some 50,000 iterations (a 1e50 view with
	// 200,000 iterations) come out at 0.003 to 0.01.
	if d := AutoDensity(uniform(1000, 150000, 150000+50000/0.9), ""); !(d >= 0.003 && d <= 0.01) {
		t.Errorf("50,000 iterations: density %g", d)
	}
	// Beyond any real view the ladder stops within MinDensity.
	if d := AutoDensity(uniform(1000, 0, 1e15), ""); d != minAutoDensity || d < MinDensity || d > 2*MinDensity {
		t.Errorf("1e15 iterations: density %g, want %g", d, minAutoDensity)
	}
	// Inside points and the tails do not count: the same as without them.
	base := uniform(1000, 1000, 40000)
	mixed := append(slices.Clone(base), slices.Repeat([]float64{Inside}, 5000)...)
	if a, b := AutoDensity(base, ""), AutoDensity(mixed, ""); a != b {
		t.Errorf("inside points changed the density: %g, %g", a, b)
	}
}

// TestAutoDensityNear checks the hysteresis: a small change of the range keeps the density, a
// large one changes it, and a shallow view is 1 whatever came before.
func TestAutoDensityNear(t *testing.T) {
	at := func(spread float64) []float64 { return uniform(1001, 1000, 1000+spread/0.9) }
	d := AutoDensity(at(40000), "") // 1/128: 9.8 cycles
	if d != 1.0/128 {
		t.Fatalf("40,000 iterations: %g", d)
	}
	for _, c := range []struct {
		spread, prev, want float64
	}{
		{40000, d, d},                            // unchanged
		{60000, d, d},                            // 14.6 cycles at 1/128: within a factor of two of the band
		{110000, d, AutoDensity(at(110000), "")}, // 26.9 cycles: too many
		{14000, d, d},                            // 3.4 cycles: still kept
		{11000, d, AutoDensity(at(11000), "")},   // 2.7 cycles: too few
		{40000, 0.3, d},                          // not a step of the ladder: the fresh choice
		{40000, 0, d},
		{40000, math.NaN(), d},
		{400, d, 1}, // shallow: 1, whatever came before
		{900, 1, 1}, // 28 cycles at 1: kept
		{1100, 1, AutoDensity(at(1100), "")},
		{40000, 1, d},
	} {
		if got := AutoDensityNear(at(c.spread), c.prev, ""); got != c.want {
			t.Errorf("spread %g after %g: %g, want %g", c.spread, c.prev, got, c.want)
		}
	}
	if AutoDensity(at(110000), "") == d || AutoDensity(at(11000), "") == d || AutoDensity(at(1100), "") == 1 {
		t.Error("the cases that should change the density do not")
	}
}

// Under sqrt and log the automatic density spans the transferred range over more than half
// of AutoTransferCycles cycles and at most that many, going above 1 (a log view of a few
// hundred iterations spans a tenth of a cycle at 1: one flat colour) and below it (sqrt at
// depth); the hysteresis keeps a density within a factor of two of that band.
func TestAutoDensityTransfer(t *testing.T) {
	for _, tr := range []string{TransferSqrt, TransferLog} {
		for _, c := range []struct{ lo, hi float64 }{{2, 60}, {20, 300}, {200, 700}, {1000, 1e5}, {1e4, 1e6}, {15000, 15300}} {
			raw := uniform(1001, c.lo, c.lo+(c.hi-c.lo)/0.9)
			nus := make([]float64, len(raw))
			for i, v := range raw {
				nus[i] = TransferValue(tr, v)
			}
			d := AutoDensity(nus, tr)
			if !onLadder(d, tr) {
				t.Errorf("%s %g..%g: density %g is not a step of the ladder", tr, c.lo, c.hi, d)
				continue
			}
			if cy := cyclesAt(t, nus, d); !(cy > AutoTransferCycles/2.0 && cy <= AutoTransferCycles) {
				t.Errorf("%s %g..%g: density %g gives %.3f cycles, want (%g, %d]", tr, c.lo, c.hi, d, cy, AutoTransferCycles/2.0, AutoTransferCycles)
			}
			// The hysteresis keeps d, and twice or half of it (within a factor of two of the
			// band); from 8 times or an eighth of it, it goes to d.
			for _, h := range []struct{ prev, want float64 }{{d, d}, {2 * d, 2 * d}, {d / 2, d / 2}, {8 * d, d}, {d / 8, d}} {
				if h.prev > maxAutoDensity {
					continue
				}
				if got := AutoDensityNear(nus, h.prev, tr); got != h.want {
					t.Errorf("%s %g..%g: after %g, %g, want %g", tr, c.lo, c.hi, h.prev, got, h.want)
				}
			}
		}
	}
	// The linear rule is unchanged: a few hundred iterations are 1.
	if d := AutoDensity(uniform(1001, 20, 300), TransferLinear); d != 1 {
		t.Errorf("linear 20..300: %g", d)
	}
	// A range too narrow for the ladder stops at its top.
	if d := AutoDensity(uniform(1001, 9.6, 9.6001), TransferLog); d != maxAutoDensity {
		t.Errorf("a range of 1e-4: %g, want %d", d, maxAutoDensity)
	}
	// One value in view: 1.
	if d := AutoDensity(slices.Repeat([]float64{3}, 100), TransferLog); d != 1 {
		t.Errorf("one value: %g", d)
	}
}

func TestDataNus(t *testing.T) {
	d := NewData(image.Rect(10, 20, 410, 320)) // 120,000 samples
	for i := range d.Pix {
		d.Pix[i].Nu = float64(i % 1000)
	}
	d.Pix[0].Nu = Inside
	all := DataNus(d, "", len(d.Pix))
	if len(all) != len(d.Pix)-1 {
		t.Errorf("all samples: %d values, want %d", len(all), len(d.Pix)-1)
	}
	some := DataNus(d, "", AutoSamples)
	if len(some) > AutoSamples || len(some) < AutoSamples/2 {
		t.Errorf("%d values of at most %d", len(some), AutoSamples)
	}
	if got := DataNus(d, TransferSqrt, 10); len(got) == 0 || len(got) > 10 || slices.Max(got) > math.Sqrt(999) {
		t.Errorf("sqrt transfer, 10 samples: %v", got)
	}
	if DataNus(&Data{}, "", 10) != nil || DataNus(d, "", 0) != nil {
		t.Error("empty data or no samples wanted gave values")
	}
}

func TestResolveDensity(t *testing.T) {
	d := NewData(image.Rect(0, 0, 64, 36))
	for i := range d.Pix {
		d.Pix[i].Nu = 1000 + 40000*float64(i)/float64(len(d.Pix))
	}
	auto := DefaultColoring
	r := auto.ResolveDensity(d)
	if r.AutoDensity || r.Density != 1.0/128 {
		t.Errorf("resolved: %+v", r)
	}
	f := auto.FollowDensity(d)
	if !f.AutoDensity || f.Density != 1.0/128 {
		t.Errorf("followed: %+v", f)
	}
	explicit := Coloring{Palette: "classic", Density: 1}
	if explicit.ResolveDensity(d) != explicit || explicit.FollowDensity(d) != explicit {
		t.Error("an explicit density was changed")
	}
	// Under the log transfer the same counts (from the AutoLow to the AutoHigh quantile, log
	// 3000 to log 39000: 2.6 units) span 0.08 of a cycle at density 1; the density makes them
	// span 1.5 to 3 cycles: 32.
	lg := auto
	lg.Transfer = TransferLog
	if r := lg.ResolveDensity(d); r.Density != 32 || r.AutoDensity {
		t.Errorf("log transfer: %+v", r)
	}
}

func TestDensityText(t *testing.T) {
	c := DefaultColoring
	if c.DensityText() != "auto" {
		t.Errorf("default: %q", c.DensityText())
	}
	if err := c.SetDensityText("0.25"); err != nil || c.AutoDensity || c.Density != 0.25 || c.DensityText() != "0.25" {
		t.Errorf("0.25: %+v, %v", c, err)
	}
	// auto over an explicit density draws 1 until resolved; over an automatic one it keeps
	// the number last resolved.
	if err := c.SetDensityText("AUTO"); err != nil || !c.AutoDensity || c.Density != 1 {
		t.Errorf("auto over explicit: %+v, %v", c, err)
	}
	c.Density = 1.0 / 64
	if err := c.SetDensityText("auto"); err != nil || !c.AutoDensity || c.Density != 1.0/64 {
		t.Errorf("auto over auto: %+v, %v", c, err)
	}
	for _, bad := range []string{"", "automatic", "auto ", "1,5", "0x", strings.Repeat("9", 500)} {
		before := c
		err := c.SetDensityText(bad)
		if bad == strings.Repeat("9", 500) {
			// A number, out of range: Validate's to refuse, in one line.
			if err != nil {
				t.Errorf("%.20q: %v", bad, err)
			} else if verr := c.Validate(); verr == nil || strings.Contains(verr.Error(), "\n") || len(verr.Error()) > 200 {
				t.Errorf("huge density validated as %v", verr)
			}
			c = before
			continue
		}
		if err == nil || strings.Contains(err.Error(), "\n") || len(err.Error()) > 120 {
			t.Errorf("%q: %v", bad, err)
		}
		if c != before {
			t.Errorf("%q changed the colouring", bad)
		}
	}
}

// TestAutoDensityLocalBound: under the linear transfer a wide range's density is also bounded
// by the neighbouring samples' differences (their AutoLocalQuantile spans at most
// AutoLocalCycles cycles), never above what the range gives, never for a shallow range or
// sqrt and log; a view drawn again keeps its density up to one step above the bound.
func TestAutoDensityLocalBound(t *testing.T) {
	var nus, smooth, rough []float64
	for i := range 1000 {
		nus = append(nus, 10000+float64(i)*2) // a range of 2000 iterations: 1/8 by the range
		smooth = append(smooth, 1)
		rough = append(rough, float64(i%4)*100) // the 0.75 quantile: 200 iterations
	}
	if d := AutoDensityOf(nus, smooth, ""); d != 0.125 {
		t.Errorf("smooth neighbours: %g, want the range's 1/8", d)
	}
	// 200 iterations at most half a cycle: density at most 0.08, the step 1/16.
	if d := AutoDensityOf(nus, rough, ""); d != 1.0/16 {
		t.Errorf("rough neighbours: %g, want 1/16", d)
	}
	if d := AutoDensityOf(nus, rough[:10], ""); d != 0.125 {
		t.Errorf("too few differences: %g, want the range's 1/8", d)
	}
	for _, tr := range []string{TransferSqrt, TransferLog} {
		if a, b := AutoDensityOf(nus, rough, tr), AutoDensity(nus, tr); a != b {
			t.Errorf("%s: bounded %g, range %g", tr, a, b)
		}
	}
	var shallow []float64
	for i := range 100 {
		shallow = append(shallow, float64(i)*3)
	}
	if d := AutoDensityOf(shallow, rough, ""); d != 1 {
		t.Errorf("a shallow range: %g, want 1", d)
	}
	// Hysteresis: 1/8 kept one step above the bound 1/16, 1/4 brought down to it.
	if d := AutoDensityNearOf(nus, rough, 0.125, ""); d != 0.125 {
		t.Errorf("near from 1/8: %g, want 1/8 kept", d)
	}
	if d := AutoDensityNearOf(nus, rough, 1.0/32, ""); d != 1.0/16 {
		t.Errorf("near from 1/32: %g, want 1/16 (1/32 spans under a quarter of the range's band)", d)
	}
	if d := AutoDensityNearOf(nus, rough, 0.5, ""); d != 1.0/16 {
		t.Errorf("near from 1/2: %g, want the bound 1/16", d)
	}
}
