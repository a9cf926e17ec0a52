package fractal

import (
	"context"
	"math"
	"testing"
)

// TestPerturbMatchesEscape64 checks perturbation (plain and with BLA) against the direct
// float64 iteration at a view where float64 is still exact enough: the same escape count for
// nearly every pixel (chaotic pixels near the boundary may differ by rounding) and close
// smooth values.
func TestPerturbMatchesEscape64(t *testing.T) {
	l := Home()
	l.Re, l.Im, l.Zoom = MustDecimal("-0.743643887037151"), MustDecimal("0.13182590420533"), MustDecimal("2e4")
	l.Iterations = 3000
	f := NewFrame(l, 64, 48)
	ref, err := ComputeReference(context.Background(), l.Re, l.Im, f.ReferenceBits(), l.Iterations, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Ref = ref
	f.DRe, f.DIm = f.offsetFrom(ref)
	bla := f.BLA()
	same, sameBLA, total, smoothOff := 0, 0, 0, 0
	for y := range f.H {
		for x := range f.W {
			cr, ci := f.Point64(x, y)
			want, wnu := Escape64(cr, ci, l.Iterations)
			dr, di := f.Delta(x, y)
			got, nu := PerturbEscape(ref, nil, dr, di, l.Iterations)
			gotB, _ := PerturbEscape(ref, bla, dr, di, l.Iterations)
			total++
			if got == want {
				same++
				if want > 0 && !(math.Abs(nu-wnu) <= 1e-3) {
					smoothOff++ // chaotic pixels: float64 rounding of c differs
				}
			}
			if gotB == want {
				sameBLA++
			}
		}
	}
	t.Logf("plain %d/%d, BLA %d/%d same as Escape64; %d smooth values off by > 1e-3", same, total, sameBLA, total, smoothOff)
	if smoothOff > total*3/100 {
		t.Errorf("%d of %d smooth values differ from Escape64's by more than 1e-3", smoothOff, total)
	}
	if same < total*99/100 || sameBLA < total*99/100 {
		t.Errorf("plain %d/%d, BLA %d/%d same as Escape64, want 99%%", same, total, sameBLA, total)
	}
}
