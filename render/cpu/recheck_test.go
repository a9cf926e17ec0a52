package cpu

import (
	"context"
	"image"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/cputime"
)

// TestComputeRechecksMinibrotEdge: the CPU renderer's samples at a minibrot's edge, where a
// float64 count drifts (fractal's TestRecheckMinibrotEdge checks this pixel against math/big),
// are the rechecked ones Frame.Escape and Frame.Pixel give, with and without the derivative
// (750,253, where the float64 loop gives 2,172,396). A few seconds of math/big: not under the
// race detector.
func TestComputeRechecksMinibrotEdge(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("a million math/big iterations: too slow under the race detector")
	}
	l := fractal.Home()
	l.Re = fractal.MustDecimal("0.415544974423482443506200177917497473106115693660862290601")
	l.Im = fractal.MustDecimal("0.14603825273549153520443741251136776443460244497264253714")
	l.Zoom, l.Iterations = fractal.MustDecimal("4.424e51"), 2815727
	ctx := context.Background()
	r := &Renderer{Workers: 2, References: &fractal.ReferenceCache{}}
	const x, y = 112, 173
	rect := image.Rect(x, y, x+1, y+1)
	for _, deriv := range []bool{false, true} {
		f := fractal.NewFrame(l, 320, 180)
		f.Derivative = deriv
		data := colour.NewData(rect)
		if err := r.Compute(ctx, f, rect, data); err != nil {
			t.Fatal(err)
		}
		fr, err := f.WithReference(ctx, r.References, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !fr.NeedsRecheck() {
			t.Fatal("the frame's reference is not a far nucleus: the view no longer tests the recheck")
		}
		var want fractal.Result
		if deriv {
			want = fr.Pixel(x, y)
		} else {
			want.N, want.Nu = fr.Escape(x, y)
		}
		dr, di := fr.Delta(x, y)
		if n, _ := fractal.PerturbEscape(fr.Ref, fr.BLA(), dr, di, l.Iterations, nil); n == want.N {
			t.Fatalf("the float64 loop gives the rechecked count %d: the view no longer tests the recheck", n)
		}
		if got := data.At(x, y); got != want.Sample() {
			t.Errorf("derivative %v: sample %+v, Frame's %+v (%+v)", deriv, got, want.Sample(), want)
		}
	}
}

// BenchmarkRenderMinibrotEdge computes a 16x9 frame of the view of TestComputeRechecksMinibrotEdge
// (2,815,727 iterations at 4.4e51, a minibrot's nucleus as reference): "float64" with the
// loops alone (fractal.PerturbEscapeBatch, what the renderer did before the recheck),
// "rechecked" with the renderer, which rechecks the long counts (fractal.Frame.Recheck). The
// reference is computed once, outside the timing.
func BenchmarkRenderMinibrotEdge(b *testing.B) {
	l := fractal.Home()
	l.Re = fractal.MustDecimal("0.415544974423482443506200177917497473106115693660862290601")
	l.Im = fractal.MustDecimal("0.14603825273549153520443741251136776443460244497264253714")
	l.Zoom, l.Iterations = fractal.MustDecimal("4.424e51"), 2815727
	ctx := context.Background()
	cache := &fractal.ReferenceCache{}
	f, err := fractal.NewFrame(l, 16, 9).WithReference(ctx, cache, nil)
	if err != nil {
		b.Fatal(err)
	}
	if !f.NeedsRecheck() {
		b.Fatal("the frame's reference is not a far nucleus")
	}
	rect := image.Rect(0, 0, f.W, f.H)
	b.Run("float64", func(b *testing.B) {
		bla := f.BLA()
		var dcr, dci []float64
		for y := range f.H {
			for x := range f.W {
				dr, di := f.Delta(x, y)
				dcr, dci = append(dcr, dr), append(dci, di)
			}
		}
		nn, nu := make([]int, len(dcr)), make([]float64, len(dcr))
		cpu0 := cputime.Process()
		for b.Loop() {
			fractal.PerturbEscapeBatch(f.Ref, bla, dcr, dci, l.Iterations, nil, nn, nu)
		}
		b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/frame")
	})
	b.Run("rechecked", func(b *testing.B) {
		r := &Renderer{References: cache}
		data := colour.NewData(rect)
		cpu0 := cputime.Process()
		for b.Loop() {
			if err := r.Compute(ctx, f, rect, data); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((cputime.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/frame")
	})
}
