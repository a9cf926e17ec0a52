package cpu

import (
	"context"
	"fmt"
	"image"
	"math"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// TestVectorPathsMatchScalar computes deep views (float64 perturbation at 1e14 and 2e32,
// extended exponents at 1e533) with every colouring, and with the derivative asked for, on
// each loop this build and CPU have (fractal.ForceVectorPath: scalar, AVX2, AVX-512), and
// compares every sample with the scalar loop's bit for bit. A non-square frame, rendered in
// two tiles, so that rows are split.
func TestVectorPathsMatchScalar(t *testing.T) {
	views := []struct {
		name  string
		iters int
	}{{"issue1e14", 0}, {"p8007", 60000}, {"misi4e533", 0}}
	w, h := 75, 41
	if testing.Short() {
		w, h = 37, 21
	}
	refs := &fractal.ReferenceCache{}
	for _, v := range views {
		for _, method := range []string{colour.MethodSmooth, colour.MethodDistance, colour.MethodSlopes, "smooth+derivative"} {
			l := deepLocation(t, v.name)
			if v.iters > 0 {
				l.Iterations = v.iters
			}
			deriv := method == "smooth+derivative"
			if !deriv {
				l.Color.Method = method
			}
			f := fractal.NewFrame(l, w, h)
			f.Derivative = deriv
			var want *colour.Data
			for _, width := range []int{0, 4, 8} {
				restore, ok := fractal.ForceVectorPath(width)
				if !ok {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/width=%d", v.name, method, width), func(t *testing.T) {
					defer restore()
					got := colour.NewData(image.Rect(0, 0, w, h))
					r := &Renderer{Workers: 2, References: refs}
					for _, rect := range []image.Rectangle{image.Rect(0, 0, 40, h), image.Rect(40, 0, w, h)} {
						if err := r.Compute(context.Background(), f, rect, got.SubData(rect)); err != nil {
							t.Fatal(err)
						}
					}
					if want == nil {
						want = got
						return
					}
					bad := 0
					for i := range got.Pix {
						a, b := got.Pix[i], want.Pix[i]
						if math.Float64bits(a.Nu) != math.Float64bits(b.Nu) || math.Float32bits(a.DEX) != math.Float32bits(b.DEX) || math.Float32bits(a.DEY) != math.Float32bits(b.DEY) {
							if bad++; bad <= 3 {
								t.Errorf("sample %d,%d: %+v, scalar loop %+v", i%w, i/w, a, b)
							}
						}
					}
					if bad > 0 {
						t.Errorf("%d of %d samples differ from the scalar loop's", bad, len(got.Pix))
					}
				})
			}
		}
	}
	t.Logf("vector path here: %s", fractal.VectorPath())
}
