package cpu

import (
	"context"
	"image"
	"math"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// TestFormulaDeepTakesBLA: a deep Burning Ship frame's samples are, bit for bit,
// fractal.PerturbEscapeFormula's with the frame's formula BLA table (Frame.FormulaBLA), on
// each loop the build and CPU have (the scalar loop, and the vector loops of
// PerturbEscapeFormulaBatch, which the frame's bands go to), and some of them differ in their
// last bits from the loop's without the table (so the renderer does take the table: the
// blocks round differently from the steps they replace).
func TestFormulaDeepTakesBLA(t *testing.T) {
	l := fractal.Home()
	l.Formula = fractal.Formula{Kind: fractal.BurningShip}
	l.Re, l.Im = fractal.MustDecimal("-1"), fractal.MustDecimal("-1") // a Misiurewicz point: z2 = z3 = -1+i
	l.Zoom, l.Iterations = fractal.MustDecimal("1e30"), 1000
	f := fractal.NewFrame(l, 48, 32)
	if f.Precision() != fractal.Perturbation {
		t.Fatalf("precision %v", f.Precision())
	}
	ctx := context.Background()
	r := &Renderer{Workers: 2, References: &fractal.ReferenceCache{}}
	fr, err := f.WithReference(ctx, r.References, nil)
	if err != nil {
		t.Fatal(err)
	}
	table := fr.FormulaBLA()
	if table == nil {
		t.Fatal("no formula BLA table for the frame")
	}
	differ := 0
	for _, width := range []int{0, 4, 8} {
		restore, ok := fractal.ForceVectorPath(width)
		if !ok {
			continue
		}
		data := colour.NewData(image.Rect(0, 0, f.W, f.H))
		err := r.Compute(ctx, f, data.Rect, data)
		restore()
		if err != nil {
			t.Fatal(err)
		}
		differ = 0
		for y := range f.H {
			for x := range f.W {
				dr, di := fr.Delta(x, y)
				var with, without fractal.Result
				with.N, with.Nu = fractal.PerturbEscapeFormula(fr.Ref, table, dr, di, l.Iterations, nil)
				without.N, without.Nu = fractal.PerturbEscapeFormula(fr.Ref, nil, dr, di, l.Iterations, nil)
				got := data.Pix[data.Offset(x, y)]
				if got != with.Sample() {
					t.Fatalf("width %d: pixel %d,%d: sample %+v, the loop with the table %+v", width, x, y, got, with.Sample())
				}
				if got != without.Sample() {
					differ++
				}
			}
		}
	}
	t.Logf("%d of %d samples differ from the loop's without the table", differ, f.W*f.H)
	if differ == 0 {
		t.Error("every sample is the loop's without the table: the renderer did not take it")
	}
}

// TestFormulaDeepExpTakesBLA is TestFormulaDeepTakesBLA past float64's exponent range: a
// Burning Ship frame at 1e400 (PerturbationExp) has, bit for bit,
// fractal.PerturbEscapeFormulaExp's samples with the frame's extended table
// (Frame.FormulaBLAExp), some of them not the loop's without it.
func TestFormulaDeepExpTakesBLA(t *testing.T) {
	l := fractal.Home()
	l.Formula = fractal.Formula{Kind: fractal.BurningShip}
	l.Re, l.Im = fractal.MustDecimal("-1"), fractal.MustDecimal("-1")
	l.Zoom, l.Iterations = fractal.MustDecimal("1e400"), 1500
	f := fractal.NewFrame(l, 48, 32)
	if f.Precision() != fractal.PerturbationExp {
		t.Fatalf("precision %v", f.Precision())
	}
	ctx := context.Background()
	r := &Renderer{Workers: 2, References: &fractal.ReferenceCache{}}
	data := colour.NewData(image.Rect(0, 0, f.W, f.H))
	if err := r.Compute(ctx, f, data.Rect, data); err != nil {
		t.Fatal(err)
	}
	fr, err := f.WithReference(ctx, r.References, nil)
	if err != nil {
		t.Fatal(err)
	}
	table := fr.FormulaBLAExp()
	if table == nil {
		t.Fatal("no extended formula BLA table for the frame")
	}
	differ := 0
	for y := range f.H {
		for x := range f.W {
			dr, di := fr.DeltaExp(x, y)
			var with, without fractal.Result
			with.N, with.Nu = fractal.PerturbEscapeFormulaExp(fr.Ref, table, dr, di, l.Iterations, nil)
			without.N, without.Nu = fractal.PerturbEscapeFormulaExp(fr.Ref, nil, dr, di, l.Iterations, nil)
			got := data.Pix[data.Offset(x, y)]
			if got != with.Sample() {
				t.Fatalf("pixel %d,%d: sample %+v, the loop with the table %+v", x, y, got, with.Sample())
			}
			if got != without.Sample() {
				differ++
			}
		}
	}
	t.Logf("%d of %d samples differ from the loop's without the table", differ, f.W*f.H)
	if differ == 0 {
		t.Error("every sample is the loop's without the table: the renderer did not take it")
	}
}

// TestFormulaDerivativeSamples: deep Burning Ship frames coloured by distance, at 1e30
// (Perturbation) and 1e320 (PerturbationExp): the renderer's samples are, bit for bit,
// fractal.Frame.Pixel's (PerturbEscapeFormulaDE with the frame's table;
// PerturbEscapeFormulaDEExp with its extended one), and the escaped pixels carry a distance estimate and a unit
// normal.
func TestFormulaDerivativeSamples(t *testing.T) {
	for _, zoom := range []string{"1e30", "1e320"} {
		l := fractal.Home()
		l.Formula = fractal.Formula{Kind: fractal.BurningShip}
		l.Re, l.Im = fractal.MustDecimal("-1"), fractal.MustDecimal("-1")
		l.Zoom, l.Iterations = fractal.MustDecimal(zoom), 1500
		l.Color.Method = colour.MethodDistance
		if err := l.Validate(); err != nil {
			t.Fatal(err)
		}
		f := fractal.NewFrame(l, 32, 24)
		ctx := context.Background()
		r := &Renderer{Workers: 2, References: &fractal.ReferenceCache{}}
		data := colour.NewData(image.Rect(0, 0, f.W, f.H))
		if err := r.Compute(ctx, f, data.Rect, data); err != nil {
			t.Fatal(err)
		}
		fr, err := f.WithReference(ctx, r.References, nil)
		if err != nil {
			t.Fatal(err)
		}
		escaped := 0
		for y := range f.H {
			for x := range f.W {
				want := fr.Pixel(x, y)
				if got := data.Pix[data.Offset(x, y)]; got != want.Sample() {
					t.Fatalf("%s, pixel %d,%d: sample %+v, Frame.Pixel's %+v", zoom, x, y, got, want.Sample())
				}
				if want.N >= 0 {
					escaped++
					if !(want.DE > 0) || math.Abs(math.Hypot(want.Ur, want.Ui)-1) > 1e-9 {
						t.Errorf("%s, pixel %d,%d: distance %g, normal (%g, %g)", zoom, x, y, want.DE, want.Ur, want.Ui)
					}
				}
			}
		}
		if escaped < f.W*f.H/4 {
			t.Errorf("%s: only %d pixels escaped", zoom, escaped)
		}
	}
}
