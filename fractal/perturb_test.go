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
			got, nu := PerturbEscape(ref, nil, dr, di, l.Iterations, nil)
			gotB, _ := PerturbEscape(ref, bla, dr, di, l.Iterations, nil)
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

// TestPerturbShortReference checks rebasing at the end of the orbit: pixels iterated against
// a reference of 100 iterations, far fewer than theirs, still get Escape64's counts (at a view
// float64 resolves), as every frame whose iterations pass MaxReferenceLength does.
func TestPerturbShortReference(t *testing.T) {
	l := Home()
	l.Re, l.Im, l.Zoom = MustDecimal("-0.743643887037151"), MustDecimal("0.13182590420533"), MustDecimal("2e4")
	l.Iterations = 3000
	f := NewFrame(l, 64, 48)
	ref, err := ComputeReference(context.Background(), l.Re, l.Im, f.ReferenceBits(), 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Escaped() || len(ref.Z) != 101 {
		t.Fatalf("reference of %d values, escaped %v", len(ref.Z), ref.Escaped())
	}
	f.Ref = ref
	f.DRe, f.DIm = f.offsetFrom(ref)
	for _, bla := range []*BLA{nil, f.BLA()} {
		same, total := 0, 0
		for y := range f.H {
			for x := range f.W {
				cr, ci := f.Point64(x, y)
				want, _ := Escape64(cr, ci, l.Iterations)
				dr, di := f.Delta(x, y)
				if got, _ := PerturbEscape(ref, bla, dr, di, l.Iterations, nil); got == want {
					same++
				}
				total++
			}
		}
		if same < total*99/100 {
			t.Errorf("BLA %v: %d of %d pixels same as Escape64 with a 100-iteration reference", bla != nil, same, total)
		}
	}
}

// TestReferenceLengthBound checks that an orbit stops at MaxReferenceLength and then covers
// any iteration count. c = 1/4 neither escapes nor settles on a cycle: its orbit creeps
// towards the parabolic fixed point 1/2, one float64 value after another.
func TestReferenceLengthBound(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("two million big iterations")
	}
	ref, err := ComputeReference(context.Background(), MustDecimal("0.25"), MustDecimal("0"), 64, MaxReferenceLength+1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Z) != MaxReferenceLength+1 || ref.Escaped() || ref.Period() != 0 || !ref.Covers(MaxIterations) || ref.Iterations() != MaxReferenceLength {
		t.Errorf("orbit of %d values (escaped %v, covers %v, iterations %d), want %d", len(ref.Z), ref.Escaped(), ref.Covers(MaxIterations), ref.Iterations(), MaxReferenceLength+1)
	}
}
