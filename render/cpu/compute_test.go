package cpu

import (
	"bytes"
	"context"
	"image"
	"math"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// TestComputeThenColour: the two stages give Render's picture byte for byte, in every
// precision and colouring, in tiles, and with the derivative computed for a colouring that
// does not read it; the samples are the model's own (Frame.Pixel).
func TestComputeThenColour(t *testing.T) {
	deep := fractal.Home()
	deep.Re = fractal.MustDecimal("-1.7499576837060935036022145060706997072711057972625207793024283782028600050")
	deep.Im = fractal.MustDecimal("0.0000000000000000000000000000000000000000000000000000000000000000000000000")
	deep.Zoom, deep.Iterations = fractal.MustDecimal("1e40"), 3000
	views := map[string]fractal.Location{"float32": testLocation(), "deep": deep}
	dbl := testLocation()
	dbl.Zoom = fractal.MustDecimal("1e9")
	views["double"] = dbl
	colourings := []colour.Coloring{
		colour.DefaultColoring,
		{Palette: "fire", Density: 3, Offset: 0.3, Transfer: colour.TransferLog},
		{Palette: "classic", Density: 1, Method: colour.MethodDistance, Width: 2},
		{Palette: "ocean", Density: 0.5, Method: colour.MethodSlopes, Light: 30},
	}
	r := &Renderer{Workers: 3}
	ctx := context.Background()
	for name, l := range views {
		for _, c := range colourings {
			l.Color = c
			f := fractal.NewFrame(l, 61, 37)
			want := image.NewRGBA(image.Rect(0, 0, 61, 37))
			if err := r.Render(ctx, f, want.Bounds(), want); err != nil {
				t.Fatal(err)
			}
			for _, deriv := range []bool{false, true} {
				f.Derivative = deriv
				data := colour.NewData(want.Bounds())
				for _, rect := range []image.Rectangle{image.Rect(0, 0, 61, 20), image.Rect(0, 20, 30, 37), image.Rect(30, 20, 61, 37)} {
					if err := r.Compute(ctx, f, rect, data.SubData(rect)); err != nil {
						t.Fatal(err)
					}
				}
				k, err := colour.NewColourer(c)
				if err != nil {
					t.Fatal(err)
				}
				got := image.NewRGBA(want.Bounds())
				k.Paint(got, data)
				if !bytes.Equal(got.Pix, want.Pix) {
					t.Errorf("%s %+v derivative %v: compute then colour differs from Render", name, c, deriv)
				}
				for _, p := range []image.Point{{0, 0}, {30, 18}, {60, 36}} {
					s, m := data.At(p.X, p.Y), f.Pixel(p.X, p.Y).Sample()
					if s.Nu != m.Nu && !(math.IsNaN(s.Nu) && math.IsNaN(m.Nu)) {
						t.Errorf("%s %+v pixel %v: sample %+v, model %+v", name, c, p, s, m)
					}
					if deriv && !s.Inside() && !(s.DE() > 0) {
						t.Errorf("%s pixel %v: derivative asked for, none computed: %+v", name, p, s)
					}
				}
			}
		}
	}
}

// TestComputeInterior: with a colouring of the inside (or Frame.Cycles asked), the inside
// samples carry the period and multiplier Frame.Interior gives, in any tiling, and Render
// draws compute-then-colour's picture; without, they carry none.
func TestComputeInterior(t *testing.T) {
	l := fractal.Home()
	l.Zoom, l.Iterations = fractal.MustDecimal("1.5"), 400
	r := &Renderer{Workers: 2}
	ctx := context.Background()
	const w, h = 48, 30
	for _, c := range []struct {
		interior string
		cycles   bool
	}{{colour.InteriorPeriod, false}, {colour.InteriorMultiplier, false}, {"", true}, {"", false}} {
		l.Color = colour.Coloring{Palette: "classic", Density: 1, Interior: c.interior}
		f := fractal.NewFrame(l, w, h)
		f.Cycles = c.cycles
		data := colour.NewData(image.Rect(0, 0, w, h))
		for _, rect := range []image.Rectangle{image.Rect(0, 0, w, 11), image.Rect(0, 11, 20, h), image.Rect(20, 11, w, h)} {
			if err := r.Compute(ctx, f, rect, data.SubData(rect)); err != nil {
				t.Fatal(err)
			}
		}
		inside, periods := 0, map[int]int{}
		for y := range h {
			for x := range w {
				s := data.At(x, y)
				if !s.Inside() {
					continue
				}
				inside++
				p, m := f.Interior(x, y)
				if !c.cycles && c.interior == "" {
					p, m = 0, 0
				}
				if s.Period() != p || math.Abs(s.Multiplier()-m) > 1e-6 {
					t.Fatalf("%+v pixel (%d, %d): period %d, multiplier %g; want %d, %g", c, x, y, s.Period(), s.Multiplier(), p, m)
				}
				periods[p]++
			}
		}
		if c.interior != "" || c.cycles {
			if periods[1] == 0 || periods[2] == 0 || len(periods) < 3 {
				t.Errorf("%+v: periods found %v: want the cardioid's, the period-2 bulb's and more", c, periods)
			}
		}
		if inside == 0 {
			t.Fatal("no pixel inside")
		}
		want := image.NewRGBA(image.Rect(0, 0, w, h))
		if err := r.Render(ctx, f, want.Bounds(), want); err != nil {
			t.Fatal(err)
		}
		k, _ := colour.NewColourer(l.Color)
		got := image.NewRGBA(want.Bounds())
		k.Paint(got, data)
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%+v: Render differs from compute then colour", c)
		}
	}
}
