package colour

import (
	"image"
	"math"
	"testing"
)

// TestEqualisationValue: a sample's value is the share of the escaped samples whose count is
// below its own, interpolated over its integer count by its fraction (worked out by hand from
// the definition for four escaped samples and one inside, which is not counted).
func TestEqualisationValue(t *testing.T) {
	d := NewData(image.Rect(0, 0, 5, 1))
	for i, nu := range []float64{1.5, 2.25, 2.75, 10, Inside} {
		d.Pix[i] = Sample{Nu: nu}
	}
	var h Histogram
	h.Add(d)
	if h.Total() != 4 {
		t.Fatalf("counted %d escaped samples, want 4", h.Total())
	}
	e := h.Equalisation()
	for _, c := range []struct{ nu, want float64 }{
		{1, 0},          // count 1: none below
		{1.5, 0.125},    // 0 + 0.5 * 1/4
		{2, 0.25},       // one sample below 2
		{2.5, 0.5},      // 1/4 + 0.5 * 2/4
		{3, 0.75},       // count 3 is not in the picture: the share below it
		{10.5, 0.875},   // 3/4 + 0.5 * 1/4
		{11, 1},         // above every count
		{-3, 0},         // below every count (as count 0)
		{math.NaN(), 0}, // not a number
	} {
		if got := e.Value(c.nu); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Value(%g) = %g, want %g", c.nu, got, c.want)
		}
	}
	if e.dense == nil {
		t.Error("counts spanning 10 iterations are not a table by count")
	}
	// The same counts and one far beyond denseSpan: searched, not a table, the same shares
	// below it.
	far := NewData(image.Rect(0, 0, 6, 1))
	copy(far.Pix, d.Pix)
	far.Pix[5] = Sample{Nu: 3*denseSpan + 0.5}
	var hf Histogram
	hf.Add(far)
	ef := hf.Equalisation()
	if ef.dense != nil {
		t.Error("counts spanning 3 denseSpan are a table")
	}
	for _, c := range []struct{ nu, want float64 }{{2.5, 0.4}, {3, 0.6}, {10.5, 0.7}, {3*denseSpan + 0.5, 0.9}, {1e300, 1}} {
		if got := ef.Value(c.nu); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("searched: Value(%g) = %g, want %g", c.nu, got, c.want)
		}
	}
	var nilEq *Equalisation
	if nilEq.Value(5) != 0 || (&Histogram{}).Equalisation().Value(5) != 0 {
		t.Error("no counts: want 0")
	}
}

// TestHistogramColouring: the histogram colouring reads the colouring's equalisation; the
// colourer's rows are Shade's colours; a picture coloured in two strips with the whole
// picture's equalisation is the picture coloured at once; Equalise keeps the equalisation of
// the same counts, so that a colouring made again compares equal.
func TestHistogramColouring(t *testing.T) {
	d := NewData(image.Rect(0, 0, 37, 23))
	for y := range 23 {
		for x := range 37 {
			nu := float64(x*x+3*y) / 7
			if x == 5 && y%4 == 0 {
				nu = Inside
			}
			d.Pix[d.Offset(x, y)] = Sample{Nu: nu}
		}
	}
	c := Coloring{Palette: "classic", Density: 1, Offset: 0.1, Method: MethodHistogram}
	c = c.Equalise(d)
	if c.Equal == nil {
		t.Fatal("Equalise made no equalisation")
	}
	if again := c.Equalise(d); again != c {
		t.Error("Equalise of the same samples changed the colouring")
	}
	p, err := c.ColorPalette()
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewColourer(c)
	if err != nil {
		t.Fatal(err)
	}
	whole := image.NewRGBA(d.Rect)
	k.Paint(whole, d)
	strips := image.NewRGBA(d.Rect)
	for _, r := range []image.Rectangle{image.Rect(0, 0, 37, 9), image.Rect(0, 9, 37, 23)} {
		k.Paint(strips.SubImage(r).(*image.RGBA), d.SubData(r))
	}
	distinct := map[[3]byte]bool{}
	for y := range 23 {
		for x := range 37 {
			s := d.At(x, y)
			want := c.Shade(p, s)
			if got := whole.RGBAAt(x, y); got != want {
				t.Fatalf("(%d, %d): colourer %v, Shade %v", x, y, got, want)
			}
			if got := strips.RGBAAt(x, y); got != want {
				t.Fatalf("(%d, %d): in strips %v, whole %v", x, y, got, want)
			}
			if !s.Inside() {
				// The position is the equalised share, not the count.
				pos := PalettePosition(32*c.Equal.Value(s.Nu), 1, 0.1, len(p.Stops))
				i := int(min(pos, float64(len(p.Stops)-1)))
				f := pos - float64(i)
				a, b := p.Stops[i], p.Stops[(i+1)%len(p.Stops)]
				if r := uint8(math.Floor(float64(a.R)*(1-f) + float64(b.R)*f + 0.5)); want.R != r {
					t.Fatalf("(%d, %d): red %d, want %d from the equalised share", x, y, want.R, r)
				}
				distinct[[3]byte{want.R, want.G, want.B}] = true
			}
		}
	}
	if len(distinct) < 20 {
		t.Errorf("only %d colours in the picture", len(distinct))
	}
	if c.NeedsDerivative() {
		t.Error("the histogram colouring asks for the derivative")
	}
}

// BenchmarkHistogramRecolour is the window's recolour of a 1280x720 frame in the histogram
// colouring: its counts equalised (Equalise) and its pixels coloured (Paint), counts spread
// over some 30,000 iterations as at depth.
func BenchmarkHistogramRecolour(b *testing.B) {
	d := NewData(image.Rect(0, 0, 1280, 720))
	for i := range d.Pix {
		x, y := i%1280, i/1280
		d.Pix[i] = Sample{Nu: 1000 + 30000*math.Abs(math.Sin(float64(x)/97)*math.Cos(float64(y)/61)) + float64(x%7)/7}
	}
	c := Coloring{Palette: "classic", Density: 1, Method: MethodHistogram}
	img := image.NewRGBA(d.Rect)
	b.ReportAllocs()
	for b.Loop() {
		c.Equal = nil
		k, err := NewColourer(c.Equalise(d))
		if err != nil {
			b.Fatal(err)
		}
		k.Paint(img, d)
	}
}
