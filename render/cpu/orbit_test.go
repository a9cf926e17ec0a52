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

// TestOrbitPathBatchMatchesPixelChannels: deep views on the orbit path (the angle colouring
// at radius 2, the stripe colouring at radius 1000 with S = 7 and K = 32, and the angle
// colouring with the derivative asked for), computed in two tiles on each loop this build
// and CPU have (the perturbation rows in bands, fractal.PerturbChannelsBatch, and past 1e308
// PerturbChannelsExpBatch: a minibrot's nucleus at 1e451), give every
// sample Frame.PixelChannels gives pixel by pixel, bit for bit: nu, T and STRIPE, and DEX,
// DEY where the derivative is asked for.
func TestOrbitPathBatchMatchesPixelChannels(t *testing.T) {
	w, h := 57, 31
	if testing.Short() || raceEnabled {
		w, h = 37, 13
	}
	refs := &fractal.ReferenceCache{}
	for _, v := range []struct {
		name  string
		iters int
	}{{"issue1e14", 0}, {"misiurewicz1e100", 0}, {"misiurewicz1e290", 0}, {"nucleus1e451", 0}} {
		for _, c := range []struct {
			name    string
			method  string
			bailout float64
			s, k    int
			deriv   bool
		}{{"angle", colour.MethodAngle, 0, 0, 0, false}, {"stripe R=1000", colour.MethodStripe, 1000, 7, 32, false}, {"angle+derivative", colour.MethodAngle, 0, 0, 0, true}} {
			l := deepLocation(t, v.name)
			if v.iters > 0 {
				l.Iterations = v.iters
			}
			l.Color.Method, l.Bailout, l.StripeDensity, l.StripeLast = c.method, c.bailout, c.s, c.k
			f, err := fractal.NewFrame(l, w, h).WithReference(context.Background(), refs, nil)
			if err != nil {
				t.Fatal(err)
			}
			f.Derivative = c.deriv
			if p := f.Precision(); !f.OrbitPath() || p != fractal.Perturbation && p != fractal.PerturbationExp {
				t.Fatalf("%s %s: orbit path %v, precision %v", v.name, c.name, f.OrbitPath(), f.Precision())
			}
			want := make([]colour.Sample, w*h)
			for y := range h {
				for x := range w {
					want[y*w+x] = f.PixelChannels(x, y).Sample()
				}
			}
			for _, width := range []int{0, 4, 8} {
				restore, ok := fractal.ForceVectorPath(width)
				if !ok {
					continue
				}
				t.Run(fmt.Sprintf("%s/%s/width=%d", v.name, c.name, width), func(t *testing.T) {
					defer restore()
					got := colour.NewData(image.Rect(0, 0, w, h))
					r := &Renderer{Workers: 2, References: refs}
					for _, rect := range []image.Rectangle{image.Rect(0, 0, 30, h), image.Rect(30, 0, w, h)} {
						if err := r.Compute(context.Background(), f, rect, got.SubData(rect)); err != nil {
							t.Fatal(err)
						}
					}
					bad, escaped := 0, 0
					for i, a := range got.Pix {
						b := want[i]
						same := math.Float64bits(a.Nu) == math.Float64bits(b.Nu) && math.Float32bits(a.T) == math.Float32bits(b.T) && math.Float32bits(a.Stripe) == math.Float32bits(b.Stripe)
						if c.deriv {
							same = same && math.Float32bits(a.DEX) == math.Float32bits(b.DEX) && math.Float32bits(a.DEY) == math.Float32bits(b.DEY)
						}
						if !same {
							if bad++; bad <= 3 {
								t.Errorf("sample %d,%d: %+v, PixelChannels %+v", i%w, i/w, a, b)
							}
						}
						if !b.Inside() {
							escaped++
						}
					}
					if bad > 0 {
						t.Errorf("%d of %d samples differ from PixelChannels'", bad, len(got.Pix))
					}
					if escaped == 0 {
						t.Error("no pixel escaped")
					}
				})
			}
		}
	}
	t.Logf("vector path here: %s", fractal.VectorPath())
}
