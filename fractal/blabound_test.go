package fractal

import (
	"context"
	"testing"
)

// BLABound is the bound of the table f.BLA() builds, for frames of one reference at various
// offsets from it (DeltaMax on both sides of powers of two).
func TestBLABoundIsTheTables(t *testing.T) {
	l := Location{Re: MustDecimal("-0.743643887037151"), Im: MustDecimal("0.131825904205330"), Zoom: MustDecimal("1e20"), Iterations: 2000}
	const w, h = 320, 180
	f, err := NewFrame(l, w, h).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bounds := map[float64]bool{}
	for _, dx := range []float64{0, 3, 40, 100, 171, 250, 333, -600} {
		g := f
		g.DRe = f.DRe + dx*f.Spacing
		if got, want := g.BLABound(), g.BLA().DcMax; got != want {
			t.Errorf("offset %v px: BLABound %g, the table's bound %g", dx, got, want)
		}
		bounds[g.BLABound()] = true
	}
	if len(bounds) < 2 {
		t.Errorf("the offsets give %d bound(s): they test no power of two crossed", len(bounds))
	}
}
