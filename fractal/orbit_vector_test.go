//go:build goexperiment.simd && amd64

package fractal

import (
	"math"
	"testing"
)

// TestChGroupRecRoundTrip: a lane's ring (tags by reference index m) turned into an orbitRec
// (by iteration n) as the extended-exponent channel loops hand a pixel to perturbLoopChExp
// (chGroup.toRec), and an orbitRec turned back into a pixel's ring in the pool as they take it
// back at another index (chGroup.fromRec, then chGroup.load): every iterate of the last K
// lands where the other form looks for it, a missing one stays missing, older ones and tags
// below 0 (a ring turned by a rebase) are not taken for iterates of the window, and the
// channels from the ring at the end are those from the orbitRec.
func TestChGroupRecRoundTrip(t *testing.T) {
	l := Home()
	l.StripeLast = 16
	ch := newChGroup(l, 8)
	const lane, id, lane2 = 3, 5, 6
	for s := range ch.k {
		ch.rt[s*chStride+lane] = math.NaN()
	}
	// The lane at index m = 4 after n = 40 iterations: iterates tagged -11..4 (z_25..z_40),
	// z_30 (tag -6) reached by a block, and an older iterate (tag -13, z_23) in slot 3 in
	// place of tag 3's (z_39), which is then missing too.
	n, m := 40, 4
	val := func(k int) (float64, float64) { return float64(k) + 0.25, -float64(k) / 3 }
	for mk := m - ch.k + 1; mk <= m; mk++ {
		i := ((mk%ch.k)+ch.k)%ch.k*chStride + lane
		zr, zi := val(mk + n - m)
		ch.rr[i], ch.ri[i], ch.rt[i] = zr, zi, float64(mk)
	}
	ch.rt[((-6%ch.k)+ch.k)%ch.k*chStride+lane] = math.NaN()
	ch.rr[3*chStride+lane], ch.rt[3*chStride+lane] = 99, -13
	ch.toRec(lane, n, m)
	for k := n - ch.k + 1; k <= n; k++ {
		got := ch.rec.at[k%ch.k] == k
		if want := k != 30 && k != 39; got != want {
			t.Errorf("z_%d in the orbitRec: %v, want %v", k, got, want)
		} else if got {
			if zr, zi := val(k); ch.rec.zr[k%ch.k] != zr || ch.rec.zi[k%ch.k] != zi {
				t.Errorf("z_%d in the orbitRec: %v, %v; want %v, %v", k, ch.rec.zr[k%ch.k], ch.rec.zi[k%ch.k], zr, zi)
			}
		}
	}
	// Back at another index (m = 0 after a rebase in the scalar loop, n = 41), every iterate
	// of the window there.
	r := ch.rec
	r.reset()
	n, m = 41, 0
	for k := n - ch.k + 1; k <= n; k++ {
		zr, zi := val(k)
		r.put(k, zr, zi)
	}
	stripe := r.stripe(n)
	ch.fromRec(id, n, m)
	ch.load(lane2, id, true)
	zr, zi := val(n)
	tt, s, ok := ch.finish(lane2, n, m, zr, zi)
	if !ok || s != stripe || tt != Turn(zr, zi) {
		t.Errorf("channels from the ring: %v, %v, %v; want %v, %v from the orbitRec", tt, s, ok, Turn(zr, zi), stripe)
	}
	// One iterate missing in the orbitRec: missing in the ring.
	r.reset()
	for k := n - ch.k + 1; k <= n; k++ {
		if k != 33 {
			zr, zi := val(k)
			r.put(k, zr, zi)
		}
	}
	ch.fromRec(id, n, m)
	ch.load(lane2, id, true)
	if _, _, ok := ch.finish(lane2, n, m, zr, zi); ok {
		t.Error("the ring has every iterate of the window; z_33 was missing from the orbitRec")
	}
}
