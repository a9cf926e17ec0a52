package fractal

import (
	"fmt"
	"math"
	"testing"
)

// TestPerturbChannelsBatchMatchesScalar: PerturbChannelsBatch on each loop (the scalar one and
// the channel vector loops of each width this CPU has, with and without the derivative)
// against perturbCh pixel by pixel, bit for bit: N, nu, T, STRIPE (and DE and its normal
// with the derivative), at shallow and deep views (the batch cases of perturb_batch_test.go:
// rebasing, periodic references, a short reference, Julia sets), at radius 2 with the
// default S and K and at radius 1000 with S = 7, K = 64, and with a coarse BLA table whose
// blocks reach into the last K iterates of many pixels, which go back to the scalar loop's
// roll-back (counted: the test needs some).
func TestPerturbChannelsBatchMatchesScalar(t *testing.T) {
	bits := func(r OrbitResult, de bool) [7]uint64 {
		b := [7]uint64{uint64(r.N), math.Float64bits(r.Nu), math.Float64bits(r.T), math.Float64bits(r.Stripe)}
		if de {
			b[4], b[5], b[6] = math.Float64bits(r.DE), math.Float64bits(r.Ur), math.Float64bits(r.Ui)
		}
		return b
	}
	cases := batchCases(t)
	f := deepFrame(t, "misiurewicz1e100", 64, 36)
	cases = append(cases, batchCase{"misiurewicz1e100/coarse BLA", f, f.Ref.BLAWithEpsilon(f.DeltaMax(), 0x1p-18), gridPixels(64, 36, 3)})
	rolled := 0
	keep := 512 // pixels a case: the first, neighbours as the renderer hands them over
	if raceEnabled || testing.Short() {
		keep = 64
	}
	for _, c := range cases {
		c.px = c.px[:min(len(c.px), keep)]
		for _, orbit := range []struct {
			name         string
			bailout      float64
			stripe, last int
		}{{"R=2", 0, 0, 0}, {"R=1000,S=7,K=64", 1000, 7, 64}} {
			l := c.f.Loc
			l.Bailout, l.StripeDensity, l.StripeLast = orbit.bailout, orbit.stripe, orbit.last
			dcr, dci := make([]float64, len(c.px)), make([]float64, len(c.px))
			want := make([]OrbitResult, len(c.px))
			escaped, roll := 0, 0
			for i, p := range c.px {
				dcr[i], dci[i] = c.f.Delta(p[0], p[1])
				want[i] = perturbCh(newOrbitRec(l), c.f.Ref, c.bla, dcr[i], dci[i], l.Iterations, c.f.Spacing, nil)
				if want[i].N >= 0 {
					escaped++
				}
				if _, ok := perturbOnceCh(newOrbitRec(l), c.f.Ref, c.bla, dcr[i], dci[i], l.Iterations, l.Iterations, c.f.Spacing, nil); !ok {
					roll++
				}
			}
			rolled += roll
			if escaped == 0 && c.f.Ref.jStart == 0 {
				t.Logf("%s/%s: no pixel escaped", c.name, orbit.name)
			}
			for _, w := range vectorWidths() {
				for _, de := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%s/width=%d/de=%v", c.name, orbit.name, w, de), func(t *testing.T) {
						restore, ok := ForceVectorPath(w)
						if !ok {
							t.Fatalf("no loop of width %d", w)
						}
						defer restore()
						out := make([]OrbitResult, len(c.px))
						if !PerturbChannelsBatch(l, c.f.Ref, c.bla, dcr, dci, c.f.Spacing, de, nil, out) {
							t.Fatal("the batch stopped without a stop channel")
						}
						if w > 0 && c.f.Ref.jStart == 0 {
							// The vector loops give the channels themselves: only the
							// pixels with a block among their last K iterates (rolled back
							// by perturbCh) go to the scalar loop.
							again := make([]OrbitResult, len(c.px))
							if ok, n := perturbChannelsVector(w, l, c.f.Ref, c.bla, dcr, dci, c.f.Spacing, de, nil, again); !ok || n != roll {
								t.Errorf("%d of %d escaping pixels went to the scalar loop (%d of them rolled back there)", n, escaped, roll)
							} else if testing.Verbose() {
								t.Logf("%d of %d escaping pixels went to the scalar loop (%d of them rolled back there)", n, escaped, roll)
							}
						}
						bad := 0
						for i := range out {
							if bits(out[i], de) != bits(want[i], de) {
								if bad++; bad <= 5 {
									t.Errorf("pixel %v: %+v; perturbCh %+v", c.px[i], out[i], want[i])
								}
							}
						}
						if bad > 0 {
							t.Errorf("%d of %d pixels differ from perturbCh", bad, len(out))
						}
					})
				}
			}
		}
	}
	t.Logf("%d pixels rolled back", rolled)
	if rolled < 40 {
		t.Errorf("%d pixels rolled back: the test needs more", rolled)
	}
}

// TestPerturbChannelsExpBatchMatchesScalar is TestPerturbChannelsBatchMatchesScalar past
// 1e308: PerturbChannelsExpBatch on each loop (the scalar one and the extended-exponent
// channel vector loops of each width this CPU has, with and without de) against perturbChExp
// pixel by pixel, bit for bit, at the extended-exponent batch cases (1e400, 1e1000, minibrots'
// nuclei at 1e451 and 2e698 where pixels go back to extended deltas and come back, a Julia
// set), at radius 2 and at radius 1000 with S = 7, K = 64, and with a coarse table whose
// blocks reach into many pixels' last K iterates: the pixels the vector loops send to the
// scalar roll-back must be exactly those whose first run needs one.
func TestPerturbChannelsExpBatchMatchesScalar(t *testing.T) {
	bits := func(r OrbitResult, de bool) [7]uint64 {
		b := [7]uint64{uint64(r.N), math.Float64bits(r.Nu), math.Float64bits(r.T), math.Float64bits(r.Stripe)}
		if de {
			b[4], b[5], b[6] = math.Float64bits(r.DE), math.Float64bits(r.Ur), math.Float64bits(r.Ui)
		}
		return b
	}
	cases := expBatchCases(t)
	f := cases[0].f
	cases = append(cases, expBatchCase{"1e400/coarse BLA", f, f.Ref.BLAExpWithEpsilon(f.DeltaMaxExp(), 0x1p-18), gridPixels(320, 180, 23)})
	keep := 96
	des := []bool{false, true} // the loops carry the derivative either way: de only drops it
	if raceEnabled || testing.Short() {
		keep, des = 32, []bool{true}
	}
	rolled := 0
	for _, c := range cases {
		c.px = c.px[:min(len(c.px), keep)]
		sp := c.f.PixelSpacing()
		for _, orbit := range []struct {
			name         string
			bailout      float64
			stripe, last int
		}{{"R=2", 0, 0, 0}, {"R=1000,S=7,K=64", 1000, 7, 64}} {
			l := c.f.Loc
			l.Bailout, l.StripeDensity, l.StripeLast = orbit.bailout, orbit.stripe, orbit.last
			dcr, dci := make([]Exp, len(c.px)), make([]Exp, len(c.px))
			want := make([]OrbitResult, len(c.px))
			escaped, roll := 0, 0
			for i, p := range c.px {
				dcr[i], dci[i] = c.f.DeltaExp(p[0], p[1])
				want[i] = perturbChExp(newOrbitRec(l), c.f.Ref, c.bla, dcr[i], dci[i], l.Iterations, sp, nil)
				if want[i].N >= 0 {
					escaped++
				}
				// perturbChExp's first run: does it need the roll-back?
				rec := newOrbitRec(l)
				st, dc, ws, _, done := c.f.Ref.startChExp(rec, dcr[i], dci[i], sp)
				if !done {
					if _, again, _ := perturbLoopChExp(c.f.Ref, c.bla, &st, dc, ws, l.Iterations, nil, rec, l.Iterations, false); again {
						roll++
					}
				}
			}
			rolled += roll
			if escaped == 0 {
				t.Errorf("%s/%s: no pixel escaped", c.name, orbit.name)
			}
			for _, w := range vectorWidths() {
				for _, de := range des {
					t.Run(fmt.Sprintf("%s/%s/width=%d/de=%v", c.name, orbit.name, w, de), func(t *testing.T) {
						restore, ok := ForceVectorPath(w)
						if !ok {
							t.Fatalf("no loop of width %d", w)
						}
						defer restore()
						out := make([]OrbitResult, len(c.px))
						if !PerturbChannelsExpBatch(l, c.f.Ref, c.bla, dcr, dci, sp, de, nil, out) {
							t.Fatal("the batch stopped without a stop channel")
						}
						if w > 0 && c.f.Ref.jStart == 0 {
							again := make([]OrbitResult, len(c.px))
							if ok, n := perturbChannelsExpVector(w, l, c.f.Ref, c.bla, dcr, dci, sp, de, nil, again); !ok || n != roll {
								t.Errorf("%d of %d escaping pixels went to the scalar roll-back; %d need it", n, escaped, roll)
							}
						}
						bad := 0
						for i := range out {
							if bits(out[i], de) != bits(want[i], de) {
								if bad++; bad <= 5 {
									t.Errorf("pixel %v: %+v; perturbChExp %+v", c.px[i], out[i], want[i])
								}
							}
						}
						if bad > 0 {
							t.Errorf("%d of %d pixels differ from perturbChExp", bad, len(out))
						}
					})
				}
			}
		}
	}
	t.Logf("%d pixels rolled back", rolled)
	if rolled < 20 {
		t.Errorf("%d pixels rolled back: the test needs more", rolled)
	}
}
