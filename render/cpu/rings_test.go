package cpu

import (
	"context"
	"image"
	"math"
	"math/big"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// ringPoint is ring pixel (x, y)'s c, worked out here from the layout's definition
// (fractal.Rings) in math/big: the centre plus outer x 2^(-(y+0.5)/h) x spacing at angle
// 2 pi (x+0.5)/w, the spacing that of a flat w x h frame of l.
func ringPoint(l fractal.Location, w, h int, outer float64, x, y int) (re, im fractal.Decimal) {
	r := outer * math.Exp2(-(float64(y)+0.5)/float64(h)) * fractal.Spacing(1, w, h)
	a := 2 * math.Pi * (float64(x) + 0.5) / float64(w)
	const prec = 400
	z := l.Zoom.Big(prec)
	dr := new(big.Float).SetPrec(prec).Quo(big.NewFloat(r*math.Cos(a)), z)
	di := new(big.Float).SetPrec(prec).Quo(big.NewFloat(r*math.Sin(a)), z)
	return fractal.MustDecimal(dr.Add(dr, l.Re.Big(prec)).Text('e', 60)), fractal.MustDecimal(di.Add(di, l.Im.Big(prec)).Text('e', 60))
}

// TestRingFrame computes frames laid out as rings (an exponential map) and checks every
// pixel against a one-pixel flat frame centred on the point the layout puts it at: the
// shallow (float64) path, a deep perturbation view with the derivative, and a Julia view.
func TestRingFrame(t *testing.T) {
	const w, h = 24, 6
	sea := fractal.Home()
	sea.Re, sea.Im = fractal.MustDecimal("-0.743643887037158704752191506114779778215"), fractal.MustDecimal("0.131825904205311970493132056385140678972")
	julia := fractal.Home()
	julia.Julia = fractal.JuliaParam{On: true, Re: fractal.MustDecimal("-0.8"), Im: fractal.MustDecimal("0.156")}
	for _, c := range []struct {
		name string
		loc  fractal.Location
		zoom string
		iter int
		de   bool
	}{{"shallow", sea, "30", 500, false}, {"deep-de", sea, "1e14", 3000, true}, {"julia", julia, "2", 300, false}} {
		t.Run(c.name, func(t *testing.T) {
			l := c.loc
			l.Zoom, l.Iterations = fractal.MustDecimal(c.zoom), c.iter
			outer := 1.3 * 0.5 * math.Hypot(w, h)
			f := fractal.NewRingFrame(l, w, h, outer)
			f.Derivative = c.de
			d := colour.NewData(image.Rect(0, 0, w, h))
			if err := (&Renderer{}).Compute(context.Background(), f, d.Rect, d); err != nil {
				t.Fatal(err)
			}
			escaped := 0
			for y := range h {
				for x := range w {
					p := l
					p.Re, p.Im = ringPoint(l, w, h, outer, x, y)
					one := fractal.NewFrame(p, 1, 1)
					one.Spacing, one.SpacingX = f.Spacing, f.SpacingX // the same distance scale
					one.Derivative = c.de
					want := colour.NewData(image.Rect(0, 0, 1, 1))
					if err := (&Renderer{}).Compute(context.Background(), one, want.Rect, want); err != nil {
						t.Fatal(err)
					}
					got, exp := d.At(x, y), want.At(0, 0)
					if math.IsInf(exp.Nu, 0) != math.IsInf(got.Nu, 0) || !math.IsInf(exp.Nu, 0) && math.Abs(got.Nu-exp.Nu) > 1e-3*math.Max(1, exp.Nu) {
						t.Fatalf("ring pixel (%d, %d): nu %v, the point's own pixel %v", x, y, got.Nu, exp.Nu)
					}
					if !math.IsInf(exp.Nu, 0) {
						escaped++
					}
					if c.de && !math.IsInf(exp.Nu, 0) && math.Abs(float64(got.DEX-exp.DEX)) > 1e-2*math.Abs(float64(exp.DEX)) {
						t.Fatalf("ring pixel (%d, %d): distance %v, the point's own %v", x, y, got.DEX, exp.DEX)
					}
				}
			}
			if escaped == 0 {
				t.Fatal("no pixel escaped: the test compares nothing")
			}
		})
	}
}
