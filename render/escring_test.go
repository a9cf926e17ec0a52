package render

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"mandelscope/fractal"
)

// TestPerturbCircleAgainstCPU: where the reference orbit lies on the escape circle (the tip
// c = -2: 0, -2, 2, 2, ...; the Julia set of -2 at its fixed point 2 and at 0), the
// perturbation shaders decide the escape test exactly as the CPU does (fractal's
// escring.go): every pixel's smooth count is the CPU's, at 1e30 (double deltas) and 1e400
// (extended exponents), on the default path, the orbit path (radius 2 given) and for the
// Mandelbar. Before, pixels left of the tip, which escape at their first iteration, went on
// for 25 (1e30) or hundreds (1e400) in the shaders.
func TestPerturbCircleAgainstCPU(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	if !g.fp64 {
		t.Skipf("%s has no fp64: perturbation frames go to the CPU", g.renderer)
	}
	for _, c := range []struct {
		name, re, zoom string
		iter           int
		julia          bool
		bailout        float64
		formula        fractal.FormulaKind
	}{
		{"tip_1e30", "-2", "1e30", 300, false, 0, fractal.Mandelbrot},
		{"tip_1e400", "-2", "1e400", 2000, false, 0, fractal.Mandelbrot},
		{"tip_R2_1e30", "-2", "1e30", 300, false, 2, fractal.Mandelbrot},
		{"tip_R2_1e400", "-2", "1e400", 2000, false, 2, fractal.Mandelbrot},
		{"julia_at_2_1e30", "2", "1e30", 300, true, 0, fractal.Mandelbrot},
		{"julia_at_0_1e30", "0", "1e30", 300, true, 0, fractal.Mandelbrot},
		{"julia_at_0_1e400", "0", "1e400", 2000, true, 0, fractal.Mandelbrot},
		{"julia_at_2_1e400", "2", "1e400", 2000, true, 0, fractal.Mandelbrot},
		{"julia_at_-2_1e400", "-2", "1e400", 2000, true, 0, fractal.Mandelbrot},
		{"julia_at_2_R2_1e30", "2", "1e30", 300, true, 2, fractal.Mandelbrot},
		{"mandelbar_tip_1e30", "-2", "1e30", 300, false, 0, fractal.Mandelbar},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := loc(t, c.re, "0", c.zoom, c.iter)
			l.Bailout = c.bailout
			if c.julia {
				l.Julia = fractal.JuliaParam{On: true, Re: fractal.MustDecimal("-2"), Im: fractal.MustDecimal("0")}
			}
			if c.formula != fractal.Mandelbrot {
				fm, err := fractal.MakeFormula(c.formula, 2)
				if err != nil {
					t.Fatal(err)
				}
				l.Formula = fm
			}
			f := fractal.NewFrame(l, 24, 16)
			if m := g.Mode(f); !strings.HasPrefix(m, "perturbation") || !strings.Contains(m, "fp64") {
				t.Fatalf("Mode %q: want the GPU's perturbation", m)
			}
			before := g.Stats().CPUFrames
			got := computeGL(t, g, f)
			if n := g.Stats().CPUFrames - before; n != 0 {
				t.Fatalf("%d frames went to the CPU renderer", n)
			}
			want := computeCPU(t, f)
			bad, first, escaped := 0, 0, 0
			for y := range f.H {
				for x := range f.W {
					a, b := got.At(x, y).Nu, want.At(x, y).Nu
					if !math.IsInf(b, 1) {
						escaped++
					}
					if a != b && !(math.Abs(a-b) < 1e-3) {
						if bad++; bad <= 5 {
							t.Errorf("pixel %d,%d: GPU nu %v, CPU %v", x, y, a, b)
						}
						if bad == 1 {
							first = int(b)
						}
					}
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d pixels differ from the CPU (first CPU count %d)", bad, f.W*f.H, first)
			}
			if escaped < f.W*f.H/4 {
				t.Errorf("%d pixels escaped: the view tests little", escaped)
			}
			t.Logf("%s: %d of %d pixels escaped", fmt.Sprint(f.Precision()), escaped, f.W*f.H)
		})
	}
}
