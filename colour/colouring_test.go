package colour

import (
	"math"
	"testing"
)

// TestShade: the default shading is Palette.Color byte for byte; the transfer functions move
// the palette position; distance darkens pixels closer than the line width and leaves the
// others; slopes is brightest facing the light.
func TestShade(t *testing.T) {
	p, _ := PaletteByName("classic")
	c := DefaultColoring
	for nu := -3.0; nu < 200; nu += 0.37 {
		if got, want := c.Shade(p, NewSample(5, nu, 0.1, 0, 0)), p.Color(Sample{Nu: nu}, c); got != want {
			t.Fatalf("nu=%v: Shade %v, Color %v", nu, got, want)
		}
	}
	if got := c.Shade(p, Sample{Nu: Inside}); got.R != 0 || got.G != 0 || got.B != 0 {
		t.Errorf("inside: %v", got)
	}
	s := c
	s.Transfer = TransferSqrt
	if got, want := s.Shade(p, Sample{Nu: 100}), p.Color(Sample{Nu: 10}, c); got != want {
		t.Errorf("sqrt of 100: %v, want the linear colour of 10 %v", got, want)
	}
	s.Transfer = TransferLog
	if got, want := s.Shade(p, Sample{Nu: math.E - 1}), p.Color(Sample{Nu: 1}, c); got != want {
		t.Errorf("log of e-1: %v, want the linear colour of 1 %v", got, want)
	}
	d := c
	d.Method = MethodDistance
	d.Width = 2
	far := d.Shade(p, NewSample(5, 7, 3, 0, 0))
	if want := p.Color(Sample{Nu: 7}, c); far != want {
		t.Errorf("distance 3 px with width 2: %v, want the plain colour %v", far, want)
	}
	if got := d.Shade(p, NewSample(5, 7, 0, 0, 0)); got.R+got.G+got.B != 0 {
		t.Errorf("distance 0: %v, want black", got)
	}
	half := d.Shade(p, NewSample(5, 7, 1, 0, 0))
	if !(int(half.R) <= int(far.R)/2+1 && int(half.G) <= int(far.G)/2+1 && int(half.R)+1 >= int(far.R)/2) {
		t.Errorf("distance 1 px with width 2: %v, want half of %v", half, far)
	}
	sl := c
	sl.Method = MethodSlopes
	sl.Strength = 1
	lx, ly := sl.LightDir()
	lit := sl.Brightness(NewSample(5, 0, 1, lx, ly))
	dark := sl.Brightness(NewSample(5, 0, 1, -lx, -ly))
	if lit != 1 || dark != 0 {
		t.Errorf("slopes at strength 1: facing the light %v, away %v; want 1 and 0", lit, dark)
	}
	if got := sl.Brightness(Sample{DEX: float32(math.NaN()), DEY: 1}); !(got >= 0 && got <= 1) {
		t.Errorf("slopes with a NaN normal: %v", got)
	}
}

// TestSampled: only the distance colouring's width follows the samples per pixel.
func TestSampled(t *testing.T) {
	d := Coloring{Palette: "classic", Density: 1, Method: MethodDistance}
	if got := d.Sampled(3).LineWidth(); got != 3*DefaultWidth {
		t.Errorf("default width at 3x3 samples: %v", got)
	}
	d.Width = 2.5
	if got := d.Sampled(4).Width; got != 10 {
		t.Errorf("width 2.5 at 4x4 samples: %v", got)
	}
	if got := d.Sampled(1); got != d {
		t.Errorf("one sample changed the colouring: %+v", got)
	}
	for _, c := range []Coloring{DefaultColoring, {Palette: "fire", Density: 2, Method: MethodSlopes, Width: 3}} {
		if got := c.Sampled(4); got != c {
			t.Errorf("%+v at 4x4 samples: %+v", c, got)
		}
	}
}
