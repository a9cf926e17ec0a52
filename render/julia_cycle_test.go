package render

import (
	"math"
	"testing"

	"mandelscope/fractal"
)

// TestJuliaCycleAndPreimageGL: the GPU's Julia views centred on a repelling cycle (the
// reference point's orbit repeats exactly and must be kept: fractal's TestJuliaCycleCentre)
// and on the critical point 0 (the squaring asks for more precision than the spacing:
// fractal's TestJuliaPreimagePrecision), every pixel of a small frame against math/big at
// two precisions (the CPU's count, Frame.Escape, within 1 of it) and the GPU's smooth count
// against the CPU's (within 0.5; inside where it is inside).
// Before, the cycle views came out striped or all inside and the views at 0 all inside.
func TestJuliaCycleAndPreimageGL(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	for _, v := range []struct {
		name, c, re, im, zoom string
		iter                  int
		want                  fractal.Precision
	}{
		{"c0_fixed1_1e30", "0,0", "1", "0", "1e30", 400, fractal.Perturbation},
		{"ci_cycle_1e20", "0,1", "-1", "1", "1e20", 400, fractal.Perturbation},
		{"c-2_fixed-1_1e25", "-2,0", "-1", "0", "1e25", 400, fractal.Perturbation},
		{"ci_centre_300", "0,1", "0", "0", "300", 200, fractal.Double},
		{"ci_centre_1e10", "0,1", "0", "0", "1e10", 300, fractal.Perturbation},
		{"dust_centre_1e12", "-0.75,0.2", "0", "0", "1e12", 300, fractal.Perturbation},
	} {
		t.Run(v.name, func(t *testing.T) {
			if v.want.Perturbs() && !g.fp64 {
				t.Skipf("%s has no fp64", g.renderer)
			}
			j, err := fractal.ParseJulia(v.c)
			if err != nil {
				t.Fatal(err)
			}
			l := fractal.Home().JuliaAt(j.Re, j.Im)
			l.Re, l.Im, l.Zoom, l.Iterations = fractal.MustDecimal(v.re), fractal.MustDecimal(v.im), fractal.MustDecimal(v.zoom), v.iter
			f := fractal.NewFrame(l, 24, 16)
			if f.Precision() != v.want {
				t.Fatalf("precision %v, want %v", f.Precision(), v.want)
			}
			got := computeGL(t, g, f)
			prec := f.ReferenceBits() + 32
			bad, good := 0, 0
			for y := range f.H {
				for x := range f.W {
					var b [2]int
					for i := range b {
						p := prec + uint(128*i)
						zr, zi := f.PointBig(x, y, p)
						b[i] = fractal.EscapeJuliaBig(zr, zi, l.Julia.Re.Big(p), l.Julia.Im.Big(p), l.Iterations, p)
					}
					if b[0] != b[1] {
						continue // ill-conditioned
					}
					good++
					// The GPU's smooth count against the CPU's (whose count is math/big's).
					nu := got.At(x, y).Nu
					n, cnu := f.Escape(x, y)
					cpuOK := n == b[0] || n >= 0 && b[0] >= 0 && max(n-b[0], b[0]-n) <= 1
					gpuOK := math.IsInf(nu, 1) == (n < 0) && (n < 0 || math.Abs(nu-cnu) < 0.5)
					if !cpuOK || !gpuOK {
						if bad++; bad <= 5 {
							t.Errorf("pixel %d,%d: %s gives %g, the CPU %d (%g), math/big %d", x, y, g.Mode(f), nu, n, cnu, b[0])
						}
					}
				}
			}
			if bad > 0 || good < f.W*f.H/2 {
				t.Errorf("%d of %d well-conditioned pixels wrong (%d pixels)", bad, good, f.W*f.H)
			}
		})
	}
}
