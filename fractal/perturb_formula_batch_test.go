package fractal

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"testing"
)

// formulaBatchCase is a formula's frame, its table (nil: none) and the pixels a batch computes.
type formulaBatchCase struct {
	name string
	f    Frame
	bla  *FormulaBLA
	px   [][2]int
}

// formulaBatchFormulas are the formulas TestPerturbFormulaBatchMatchesScalar runs: every kind,
// powers 2, 3, 5 and 8 (the Mandelbrot set's power 2 is the fast loops').
func formulaBatchFormulas() []Formula {
	var out []Formula
	for k := range numFormulaKinds {
		for _, d := range []int{2, 3, 5, 8} {
			if fm, _ := MakeFormula(k, d); !fm.IsMandelbrot() {
				out = append(out, fm)
			}
		}
	}
	return out
}

// formulaBatchCases are views of each formula's edge: at 1e20 centred on the edge of the
// set's real filament or a Misiurewicz point (formulaEdgeCentre: many counts, pixels escaping and staying, rebasing
// where their orbits leave the reference's, the Burning Ship's crossing its folds), in rows of
// neighbours with the table and in a grid without; for a few formulas also at 1e50; and
// Julia sets at 1e20 (a point of the set's edge for c = -0.1+0.1i).
func formulaBatchCases(t *testing.T) []formulaBatchCase {
	short := raceEnabled || testing.Short()
	var cs []formulaBatchCase
	frame := func(l Location, w, h int) Frame {
		f, err := NewFrame(l, w, h).WithReference(context.Background(), &ReferenceCache{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	const w, h = 48, 32
	rows := rowPixels(0, w, 10, 11, 20)
	cubic, _ := MakeFormula(Mandelbar, 3)
	for _, fm := range formulaBatchFormulas() {
		tipRe, _ := formulaEdgePoint(fm, 0, 0, -2.5, 0, 60, 200)
		tip := tipRe.Float64()
		for _, z := range []struct {
			zoom string
			bits uint
		}{{"1e20", 72}, {"1e50", 172}} {
			if z.zoom == "1e50" && (short || fm != Formula{Kind: BurningShip} && fm != Formula{Kind: Mandelbar} && fm != cubic) {
				continue
			}
			l := Home()
			l.Formula, l.Iterations, l.Zoom = fm, 1500, MustDecimal(z.zoom)
			// The first of formulaEdgeCentre's views (the real filament's edge, then
			// Misiurewicz points) whose rows have several counts.
			var f Frame
			for i := 0; ; i++ {
				re, im, ok, more := formulaEdgeCentre(fm, tip, i, z.bits, l.Iterations)
				if !more {
					break
				}
				if !ok {
					continue
				}
				l.Re, l.Im = re, im
				f = frame(l, w, h)
				counts := map[int]bool{}
				for _, p := range rows {
					dr, di := f.Delta(p[0], p[1])
					n, _ := PerturbEscapeFormula(f.Ref, nil, dr, di, l.Iterations, nil)
					counts[n] = true
				}
				if len(counts) >= 3 {
					break
				}
			}
			name := fmt.Sprintf("%v/%s", fm, z.zoom)
			cs = append(cs, formulaBatchCase{name + "/rows", f, f.FormulaBLA(), rows})
			cs = append(cs, formulaBatchCase{name + "/grid/no BLA", f, nil, gridPixels(w, h, 5)})
		}
	}
	for _, fm := range []Formula{{Kind: BurningShip}, {Kind: Mandelbar}, cubic} {
		l := Home()
		l.Formula, l.Iterations = fm, 600
		l.Julia = JuliaParam{On: true, Re: MustDecimal("-0.1"), Im: MustDecimal("0.1")}
		const bits = 72
		prec := uint(bits + 64)
		nf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
		jr, ji := l.Julia.Re.Big(prec), l.Julia.Im.Big(prec)
		lo, hi, mid := nf(0), nf(1), nf(0)
		at := func(t *big.Float) (*big.Float, *big.Float) {
			return new(big.Float).SetPrec(prec).Mul(t, nf(2)), new(big.Float).SetPrec(prec).Mul(t, nf(0.6))
		}
		for range bits {
			mid.Add(lo, hi)
			mid.SetMantExp(mid, -1)
			if zr, zi := at(mid); EscapeFormulaBig(fm, zr, zi, jr, ji, l.Iterations, prec) < 0 {
				lo.Set(mid)
			} else {
				hi.Set(mid)
			}
		}
		zr, zi := at(lo)
		l.Re, l.Im = MustDecimal(trimZeros(zr.Text('f', 25))), MustDecimal(trimZeros(zi.Text('f', 25)))
		l.Zoom = MustDecimal("1e20")
		f := frame(l, w, h)
		name := fmt.Sprintf("julia %v", fm)
		cs = append(cs, formulaBatchCase{name + "/rows", f, f.FormulaBLA(), rowPixels(0, w, 10, 11, 20)})
		cs = append(cs, formulaBatchCase{name + "/grid/no BLA", f, nil, gridPixels(w, h, 5)})
	}
	return cs
}

// TestPerturbFormulaBatchMatchesScalar checks PerturbEscapeFormulaBatch on each of its loops
// (scalar, AVX2, AVX-512, as the build and CPU have them: perturbGroupFm8x4, perturbGroupFm16,
// ...) against PerturbEscapeFormula pixel by pixel: the same counts and smooth values, bit for
// bit, for every formula kind at powers 2, 3, 5 and 8, at 1e20 and 1e50 on the set's edge and
// on Julia sets, with the formula's table and without, in rows of neighbours and in grids of
// pixels far apart (lanes that part ways).
func TestPerturbFormulaBatchMatchesScalar(t *testing.T) {
	for _, c := range formulaBatchCases(t) {
		dcr, dci := make([]float64, len(c.px)), make([]float64, len(c.px))
		wantN, wantNu := make([]int, len(c.px)), make([]float64, len(c.px))
		counts := map[int]bool{}
		for i, p := range c.px {
			dcr[i], dci[i] = c.f.Delta(p[0], p[1])
			wantN[i], wantNu[i] = PerturbEscapeFormula(c.f.Ref, c.bla, dcr[i], dci[i], c.f.Loc.Iterations, nil)
			counts[wantN[i]] = true
		}
		if len(counts) < 3 {
			t.Errorf("%s: %d counts: not a view of the edge", c.name, len(counts))
		}
		for _, w := range vectorWidths() {
			t.Run(fmt.Sprintf("%s/width=%d", c.name, w), func(t *testing.T) {
				restore, ok := ForceVectorPath(w)
				if !ok {
					t.Fatalf("no loop of width %d", w)
				}
				defer restore()
				n, nu := make([]int, len(c.px)), make([]float64, len(c.px))
				if !PerturbEscapeFormulaBatch(c.f.Ref, c.bla, dcr, dci, c.f.Loc.Iterations, nil, n, nu) {
					t.Fatal("the batch stopped without a stop channel")
				}
				bad := 0
				for i := range n {
					if n[i] != wantN[i] || math.Float64bits(nu[i]) != math.Float64bits(wantNu[i]) {
						if bad++; bad <= 5 {
							t.Errorf("pixel %v: %d, %v; PerturbEscapeFormula %d, %v", c.px[i], n[i], nu[i], wantN[i], wantNu[i])
						}
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d pixels differ from PerturbEscapeFormula", bad, len(n))
				}
			})
		}
	}
}
