package fractal

import (
	"context"
	"math"
	"math/big"
	"testing"
)

// edgeView3 is view 3 of `go run ./bench/edge-verify -n 12 -px 10 -seed 3`: 2,815,727 iterations
// at 4.4e51, just inside the cardioid of a minibrot of period 82 whose nucleus, about 6000 view
// widths away, is the reference.
func edgeView3(t *testing.T) Frame {
	t.Helper()
	l := Location{
		Re:         MustDecimal("0.415544974423482443506200177917497473106115693660862290601"),
		Im:         MustDecimal("0.14603825273549153520443741251136776443460244497264253714"),
		Zoom:       MustDecimal("4.424e51"),
		Iterations: 2815727,
	}
	f, err := NewFrame(l, 320, 180).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !f.NeedsRecheck() || f.Ref.Period() != 82 {
		t.Fatalf("want a reference at the nucleus of period 82 and a recheck, got period %d, recheck %v", f.Ref.Period(), f.NeedsRecheck())
	}
	return f
}

// TestRecheckMinibrotEdge checks, against math/big at two precisions, a pixel at a minibrot's
// edge whose float64 count drifts: its orbit creeps past the minibrot's cycle for 750,253
// iterations, and the float64 loop gives 2,172,396 with BLA and 1,267,471 without (the
// roundings of a delta from a nucleus 6000 view widths away). Frame.Escape must give math/big's
// count (Recheck). About 5 s of math/big: not under the race detector.
func TestRecheckMinibrotEdge(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("a million math/big iterations: too slow under the race detector")
	}
	f := edgeView3(t)
	const x, y = 112, 173
	bits := f.ReferenceBits() + 32
	var big [2]int
	parallel(2, func(i int) {
		prec := bits + uint(128*i)
		cr, ci := f.PointBig(x, y, prec)
		big[i] = EscapeBig(cr, ci, f.Loc.Iterations, prec)
	})
	if big[0] != big[1] || big[0] < recheckFrom {
		t.Fatalf("math/big gives %d and %d: want one count past %d", big[0], big[1], recheckFrom)
	}
	tol := max(1, f.Loc.Iterations/1000)
	dr, di := f.Delta(x, y)
	if n, _ := PerturbEscape(f.Ref, f.BLA(), dr, di, f.Loc.Iterations, nil); n >= 0 && absInt(n-big[0]) <= tol {
		t.Logf("the float64 loop agrees here now (%d): the recheck is not exercised", n)
	}
	n, nu := f.Escape(x, y)
	if n < 0 || absInt(n-big[0]) > tol {
		t.Fatalf("pixel %d,%d: Escape gives %d, math/big %d (within %d)", x, y, n, big[0], tol)
	}
	if !(nu >= float64(n) && nu < float64(n)+9) {
		t.Errorf("smooth value %v for count %d", nu, n)
	}
}

// TestAttractsAtCardioid checks the interior test of Recheck (attractsAt) at points placed on
// either side of the cardioid of edgeView3's minibrot, from its nucleus (the reference) and
// size: c = nucleus + s u, u = r e^(it)/2 - r^2 e^(2it)/4, inside for r < 1. A point inside
// must be found attracting and one outside must not.
func TestAttractsAtCardioid(t *testing.T) {
	f := edgeView3(t)
	u := f
	u.Unchecked = true
	if u.NeedsRecheck() {
		t.Error("a frame marked Unchecked needs a recheck")
	}
	ref := f.Ref
	far := f.spacing().Ldexp(40)
	nu, err := newtonNucleus(context.Background(), ref.re, ref.im, ref.period, ref.prec, far.Ldexp(-20), far)
	if err != nil {
		t.Fatal(err)
	}
	sr, si, e := nu.sizeCx.re, nu.sizeCx.im, nu.sizeCx.e
	for _, r := range []float64{0.5, 0.9, 0.99, 1.01, 1.1} {
		for k := range 8 {
			th := 0.3 + float64(k)*(2*math.Pi-0.6)/7
			ur := r*math.Cos(th)/2 - r*r*math.Cos(2*th)/4
			ui := r*math.Sin(th)/2 - r*r*math.Sin(2*th)/4
			dcr := MakeExp(sr*ur-si*ui, e).Float64()
			dci := MakeExp(sr*ui+si*ur, e).Float64()
			if got := ref.attractsAt(dd{dcr, 0}, dd{dci, 0}); got != (r < 1) {
				t.Errorf("r %v, t %.3f: attracting %v, want %v", r, th, got, r < 1)
			}
		}
	}
}

// TestRecheckPathsMatchFloat64 checks the two loops Recheck falls back on against EscapeDE64
// where float64 is exact enough (a shallow point escaping after a few hundred iterations): the
// double-double loop from a reference nearby and the math/big one give the same count, and
// smooth value, distance estimate and normal to within float64's rounding over the orbit.
func TestRecheckPathsMatchFloat64(t *testing.T) {
	const cr, ci, spacing, it = -0.75, 0.01, 1e-9, 100000
	want := EscapeDE64(cr, ci, it, spacing)
	if want.N < 100 {
		t.Fatalf("EscapeDE64 gives %d: want a point escaping after hundreds of iterations", want.N)
	}
	ref, err := ComputeReference(context.Background(), DecimalFromFloat(cr+3e-9), DecimalFromFloat(ci-2e-9), 128, it, nil)
	if err != nil {
		t.Fatal(err)
	}
	rr, ri := ref.Point()
	prec := uint(256)
	bcr, bci := new(big.Float).SetPrec(prec).SetFloat64(cr), new(big.Float).SetPrec(prec).SetFloat64(ci)
	dcr := ddFromBig(new(big.Float).SetPrec(prec).Sub(bcr, rr))
	dci := ddFromBig(new(big.Float).SetPrec(prec).Sub(bci, ri))
	d, ok := perturbEscapeDD(context.Background(), ref, dcr, dci, it, spacing, nil)
	if !ok {
		t.Fatal("perturbEscapeDD did not run")
	}
	b := escapeBigResult(bcr, bci, it, prec, spacing, nil)
	for _, c := range []struct {
		name string
		r    Result
	}{{"double-double", d}, {"math/big", b}} {
		r := c.r
		if r.N != want.N || math.Abs(r.Nu-want.Nu) > 1e-6 || math.Abs(r.DE-want.DE) > 1e-6*want.DE ||
			math.Abs(r.Ur-want.Ur) > 1e-6 || math.Abs(r.Ui-want.Ui) > 1e-6 {
			t.Errorf("%s: %+v, EscapeDE64 %+v", c.name, r, want)
		}
	}
}
