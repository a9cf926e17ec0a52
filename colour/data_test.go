package colour

import (
	"image"
	"image/color"
	"math"
	"slices"
	"testing"
)

// TestSampleRoundTrip: a sample gives back the estimate and the normal it was made from (to
// float32's precision), inside stays inside, an estimate without a normal keeps the estimate,
// and a NaN estimate stays NaN.
func TestSampleRoundTrip(t *testing.T) {
	for _, c := range []struct{ de, ur, ui float64 }{{2.5, 0.6, -0.8}, {1e-3, -1, 0}, {7e20, 0, 1}, {3, 0, 0}, {1e31, 0.6, 0.8}} {
		s := NewSample(12, 12.25, c.de, c.ur, c.ui)
		if s.Inside() || s.Nu != 12.25 {
			t.Errorf("%+v: %+v", c, s)
		}
		if de := s.DE(); math.Abs(de-min(c.de, maxDE)) > 1e-6*c.de {
			t.Errorf("%+v: DE %v", c, de)
		}
		ur, ui := s.Normal()
		if math.Abs(ur-c.ur) > 1e-6 || math.Abs(ui-c.ui) > 1e-6 {
			t.Errorf("%+v: normal %v, %v", c, ur, ui)
		}
	}
	// An estimate below float32's normal range keeps its normal (raised to MinDE).
	for _, de := range []float64{7.3e-43, 1e-39, 0x1p-101} {
		s := NewSample(12, 12.25, de, -0.28154410817220804, 0.9595482870358927)
		if math.Abs(s.DE()-MinDE) > 1e-6*MinDE {
			t.Errorf("estimate %g: DE %g, want MinDE", de, s.DE())
		}
		if ur, ui := s.Normal(); math.Abs(ur+0.28154410817220804) > 1e-6 || math.Abs(ui-0.9595482870358927) > 1e-6 {
			t.Errorf("estimate %g: normal %v, %v", de, ur, ui)
		}
	}
	if s := NewSample(4, 4.5, 0, 0.6, 0.8); s.DE() != 0 {
		t.Errorf("estimate 0: DE %v", s.DE())
	}
	if s := NewSample(-1, 5, 3, 1, 0); !s.Inside() || s.DE() != 0 {
		t.Errorf("inside: %+v", s)
	}
	if s := NewSample(4, 4.5, math.NaN(), 1, 0); !math.IsNaN(s.DE()) {
		t.Errorf("NaN estimate: %+v DE %v", s, s.DE())
	}
}

// TestMeanOfSums: Sum over n samples and MeanInto give each channel's mean rounded half up,
// and a sub-rectangle's data colours the same pixels as the whole.
func TestMeanOfSums(t *testing.T) {
	k, err := NewColourer(DefaultColoring)
	if err != nil {
		t.Fatal(err)
	}
	r := image.Rect(3, 5, 40, 22)
	a, b := NewData(r), NewData(r)
	for i := range a.Pix {
		a.Pix[i].Nu, b.Pix[i].Nu = float64(i)*0.37, float64(i)*0.11+4
	}
	a.Pix[7].Nu = Inside
	sum := make([]uint32, 3*r.Dx()*r.Dy())
	k.Sum(sum, a)
	k.Sum(sum, b)
	all := make([]uint32, len(sum))
	for i := range all {
		all[i] = 12345 // SumOf sets, not adds
	}
	k.SumOf(all, []*Data{a, b})
	if !slices.Equal(all, sum) {
		t.Fatal("SumOf differs from Sum over each")
	}
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	MeanInto(out, sum, 2)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ca, cb := k.Colour(a.At(x, y)), k.Colour(b.At(x, y))
			got := out.RGBAAt(x-r.Min.X, y-r.Min.Y)
			if want := byte((uint32(ca.R) + uint32(cb.R) + 1) / 2); got.R != want || got.A != 255 {
				t.Fatalf("(%d,%d): %v, want R %d", x, y, got, want)
			}
		}
	}
	sub := image.Rect(10, 8, 20, 12)
	part := image.NewRGBA(image.Rect(0, 0, sub.Dx(), sub.Dy()))
	k.Paint(part, a.SubData(sub))
	whole := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	k.Paint(whole, a)
	for y := range sub.Dy() {
		for x := range sub.Dx() {
			if part.RGBAAt(x, y) != whole.RGBAAt(x+sub.Min.X-r.Min.X, y+sub.Min.Y-r.Min.Y) {
				t.Fatalf("sub-data pixel (%d,%d) differs", x, y)
			}
		}
	}
}

// BenchmarkRecolour1280x720x16 colours and averages 16 samples of a 1280x720 view: the
// window's recolour of its accumulated picture.
func BenchmarkRecolour1280x720x16(b *testing.B) {
	r := image.Rect(0, 0, 1280, 720)
	data := make([]*Data, 16)
	for i := range data {
		data[i] = NewData(r)
		for j := range data[i].Pix {
			data[i].Pix[j] = NewSample(1, float64(j%5000)*0.731+float64(i), 1.5, 0.6, 0.8)
		}
	}
	c := DefaultColoring
	c.Palette = "fire"
	k, _ := NewColourer(c)
	sum := make([]uint32, 3*1280*720)
	out := image.NewRGBA(r)
	b.ReportAllocs()
	for b.Loop() {
		k.SumOf(sum, data)
		MeanInto(out, sum, len(data))
	}
}

// TestColourerMatchesPalette: the colour pass's fast path for the default shading is
// Palette.Color byte for byte, whatever the value (negative, huge, NaN, -Inf) and colouring.
func TestColourerMatchesPalette(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1e-300, -1, -2.5, 0x1p62, -0x1p62, 0x1p62 - 512, 1e300, -1e300, 4.5e15, -3.7, 1e15, 3e5 + 0.123456789, math.NaN(), math.Inf(-1), math.MaxFloat64, Inside}
	for i := range 20000 {
		vals = append(vals, float64(i)*0.61803398875-100, float64(i)*97.3+0.5)
	}
	for _, name := range PaletteNames() {
		for _, c := range []Coloring{{Palette: name, Density: 1}, {Palette: name, Density: 0.0031, Offset: 0.77}, {Palette: name, Density: 1e6, Offset: -1e6}} {
			k, err := NewColourer(c)
			if err != nil {
				t.Fatal(err)
			}
			p, _ := c.ColorPalette()
			for _, v := range vals {
				if got, want := k.Colour(Sample{Nu: v}), p.Color(Sample{Nu: v}, c); got != want {
					t.Fatalf("%+v nu=%v: %v, Palette.Color %v", c, v, got, want)
				}
			}
		}
	}
}

// TestColourerMatchesShade: the colour pass for the other shadings is Coloring.Shade byte
// for byte.
func TestColourerMatchesShade(t *testing.T) {
	var samples []Sample
	for i := range 5000 {
		a := float64(i) * 0.7
		smp := NewSample(1, float64(i)*3.3-50, math.Exp(float64(i%40)/5-4), math.Cos(a), math.Sin(a))
		smp.T, smp.Stripe = float32(math.Mod(float64(i)*0.0137, 1)), float32(math.Mod(float64(i)*0.291, 1))
		samples = append(samples, smp)
	}
	samples = append(samples, Sample{Nu: Inside}, NewSample(1, 5, math.NaN(), 1, 0), NewSample(1, 5, 3, 0, 0), Sample{Nu: math.NaN()})
	for p := range 40 {
		samples = append(samples, InteriorSample(p, float64(p%11)/10), InteriorSample(p*977, 1-1/float64(p+1)))
	}
	samples = append(samples, InteriorSample(1<<24+1, 0.5), InteriorSample(3, math.NaN()), InteriorSample(3, 7))
	for _, c := range []Coloring{
		{Palette: "classic", Density: 1, Interior: InteriorPeriod},
		{Palette: "fire", Density: 3, Offset: 0.4, Interior: InteriorMultiplier},
		{Palette: "ocean", Density: 1, Method: MethodDistance, Interior: InteriorPeriod},
		{Palette: "fire", Density: 2, Transfer: TransferSqrt},
		{Palette: "classic", Density: 0.3, Offset: 0.2, Transfer: TransferLog},
		{Palette: "ocean", Density: 1, Method: MethodDistance, Width: 2.5},
		{Palette: "classic", Density: 1, Method: MethodSlopes, Light: 77, Strength: 0.4, Transfer: TransferLog},
		{Palette: "fire", Density: 0.7, Method: MethodAngle},
		{Palette: "ocean", Density: 1.3, Method: MethodStripe, Strength: 0.5, Transfer: TransferSqrt},
	} {
		k, err := NewColourer(c)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := c.ColorPalette()
		for _, s := range samples {
			if got, want := k.Colour(s), c.Shade(p, s); got != want {
				t.Fatalf("%+v %+v: %v, Shade %v", c, s, got, want)
			}
		}
	}
}

// TestFloor: floor is math.Floor for every kind of value.
func TestFloor(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1, -1, 2.999999, -2.000001, 1e-320, -1e-320, 0x1p62, -0x1p62, 0x1p62 - 512, -0x1p62 + 512,
		0x1p52 + 0.5, -0x1p52 - 0.5, 0x1p53 + 1, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.SmallestNonzeroFloat64}
	for i := range 100000 {
		vals = append(vals, float64(i)*1.37-50000.3, -float64(i)*1e9/7)
	}
	for _, v := range vals {
		got, want := floor(v), math.Floor(v)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("floor(%v) = %v, want %v", v, got, want)
		}
	}
}

// BenchmarkColourRow colours a row of deep samples (nu about 1e5) in each shading: the colour
// pass's cost per sample (ns/op over 1024 samples).
func BenchmarkColourRow(b *testing.B) {
	row := make([]Sample, 1024)
	for i := range row {
		a := float64(i) * 0.37
		row[i] = NewSample(1, 1e5+float64(i)*0.731, 1.5, math.Cos(a), math.Sin(a))
	}
	out := make([]byte, 3*len(row))
	for _, c := range []Coloring{
		{Palette: "fire", Density: 0.003},
		{Palette: "fire", Density: 0.003, Transfer: TransferLog},
		{Palette: "fire", Density: 0.003, Method: MethodDistance},
		{Palette: "fire", Density: 0.003, Method: MethodSlopes},
		{Palette: "fire", Density: 0.003, Method: MethodAngle},
		{Palette: "fire", Density: 0.003, Method: MethodStripe},
	} {
		k, _ := NewColourer(c)
		name := c.Method + c.Transfer
		if name == "" {
			name = "smooth"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				k.colourRow(out, row)
			}
		})
	}
}

// TestOrbitChannelBrightness: the angle colouring darkens the cells with T in [1/2, 1) by half
// the strength and dips to 1 - strength on their edges (T = 0, 1/2); the stripe colouring
// goes from 1 - strength (STRIPE 0) to 1 (STRIPE 1) mid-band and to the mean's brightness at
// the bands' edges (the count's fraction 0), where STRIPE jumps.
func TestOrbitChannelBrightness(t *testing.T) {
	c := Coloring{Method: MethodAngle, Strength: 0.6}
	for _, tc := range []struct{ t, want float64 }{{0.25, 1}, {0.75, 0.7}, {0, 0.4}, {0.5, 0.7 * 0.4}, {0.015, 1 - 0.6*0.5}, {0.06, 1}} {
		if got := c.Brightness(Sample{Nu: 10, T: float32(tc.t)}); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("angle T %v: brightness %v, want %v", tc.t, got, tc.want)
		}
	}
	c.Method = MethodStripe
	for _, tc := range []struct{ nu, stripe, want float64 }{{10.5, 0, 0.4}, {10.5, 1, 1}, {10, 0, 0.7}, {10, 1, 0.7}, {10.5, 0.5, 0.7}} {
		if got := c.Brightness(Sample{Nu: tc.nu, Stripe: float32(tc.stripe)}); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("stripe nu %v STRIPE %v: brightness %v, want %v", tc.nu, tc.stripe, got, tc.want)
		}
	}
}

// BenchmarkPaint1280x720 colours a 1280x720 picture's samples (one a pixel) in the angle,
// stripe and smooth colourings, as the window recolours the data it keeps: the time a
// picture (ms/op) against the window's 0.1 s.
func BenchmarkPaint1280x720(b *testing.B) {
	d := NewData(image.Rect(0, 0, 1280, 720))
	for i := range d.Pix {
		a := float64(i) * 0.37
		s := NewSample(1, 1e4+float64(i%5000)*0.731, 1.5, math.Cos(a), math.Sin(a))
		s.T, s.Stripe = float32(math.Mod(float64(i)*0.0137, 1)), float32(math.Mod(float64(i)*0.291, 1))
		d.Pix[i] = s
	}
	dst := image.NewRGBA(d.Rect)
	for _, m := range []string{MethodSmooth, MethodAngle, MethodStripe} {
		k, err := NewColourer(Coloring{Palette: "fire", Density: 0.5, Method: m})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(m, func(b *testing.B) {
			for b.Loop() {
				k.Paint(dst, d)
			}
		})
	}
}

// TestInteriorSample: an inside sample carries its cycle's period and multiplier (in DEX and
// DEY), what is not a period reads as none, and the interior colourings colour by them:
// black for none and for InteriorBlack, one colour per period, a ramp over the multiplier.
func TestInteriorSample(t *testing.T) {
	for _, c := range []struct {
		p    int
		m    float64
		wp   int
		wm   float64
		name string
	}{
		{7, 0.25, 7, 0.25, "period 7"}, {1, 0, 1, 0, "a nucleus"}, {3, 1.5, 3, 1, "a multiplier above 1 clamped"},
		{0, 0.5, 0, 0, "none found"}, {-2, 0.5, 0, 0, "a negative period"}, {1<<24 + 1, 0.5, 0, 0, "beyond float32's whole numbers"},
		{5, math.NaN(), 0, 0, "a NaN multiplier"},
	} {
		s := InteriorSample(c.p, c.m)
		if !s.Inside() || s.Period() != c.wp || s.Multiplier() != c.wm {
			t.Errorf("%s: inside %v, period %d, multiplier %g; want %d, %g", c.name, s.Inside(), s.Period(), s.Multiplier(), c.wp, c.wm)
		}
	}
	if s := NewSample(5, 5.5, 2, 1, 0); s.Period() != 0 || s.Multiplier() != 0 {
		t.Errorf("an escaped sample: period %d, multiplier %g", s.Period(), s.Multiplier())
	}
	if s := (Sample{Nu: Inside, DEX: 2.5, DEY: 0.5}); s.Period() != 0 {
		t.Errorf("DEX 2.5 read as period %d", s.Period())
	}
	black := color.RGBA{0, 0, 0, 255}
	c := Coloring{Palette: "classic", Density: 1}
	p, _ := c.ColorPalette()
	if got := c.Shade(p, InteriorSample(3, 0.2)); got != black {
		t.Errorf("the default colouring coloured the inside %v", got)
	}
	c.Interior = InteriorPeriod
	seen := map[color.RGBA]int{}
	for per := 1; per <= 6; per++ {
		got := c.Shade(p, InteriorSample(per, 0))
		if q, ok := seen[got]; ok || got == black {
			t.Errorf("period %d coloured %v (as period %d)", per, got, q)
		}
		seen[got] = per
	}
	if got := c.Shade(p, InteriorSample(0, 0)); got != black {
		t.Errorf("no period found: %v, want black", got)
	}
	c.Interior = InteriorMultiplier
	if a, b := c.Shade(p, InteriorSample(4, 0.1)), c.Shade(p, InteriorSample(9, 0.1)); a != b {
		t.Errorf("multiplier: the same multiplier coloured %v and %v by period", a, b)
	}
	if a, b := c.Shade(p, InteriorSample(4, 0.1)), c.Shade(p, InteriorSample(4, 0.6)); a == b {
		t.Errorf("multiplier: 0.1 and 0.6 both %v", a)
	}
}
