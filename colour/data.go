package colour

import (
	"image"
	"image/color"
	"mandelscope/internal/par"
	"math"
)

// Sample is what the compute stage gives one pixel (or one sample of a supersampled pixel),
// and all that the colour stage reads: 24 bytes.
type Sample struct {
	// Nu is the smooth escape count, or +Inf (Inside) for a point that did not escape within
	// the iterations.
	Nu float64
	// DEX, DEY are the distance estimate in pixels times the unit normal (the direction of
	// z / (dz/dc)), as Kalles Fraktaler's raw files carry them: the estimate is their length,
	// the normal their direction. A sample whose orbit gave an estimate but no normal holds
	// the estimate in DEX and NaN in DEY. Both are 0 where the derivative was not computed.
	// Inside the set (Nu +Inf) they hold the period of the attracting cycle the orbit
	// settles on (DEX, a whole number; 0: not computed or not found) and the size of that
	// cycle's multiplier (DEY, 0 to 1): see InteriorSample.
	DEX, DEY float32
	// T is arg(z_N)/2pi in [0, 1), z_N the first iterate past the bailout (Kalles Fraktaler's T
	// channel); 0 where not computed.
	T float32
	// Stripe is the stripe average over the orbit's last iterates, in [0, 1]; 0 where not computed.
	Stripe float32
}

// Inside is Sample.Nu for a point inside the set.
var Inside = math.Inf(1)

// maxDE bounds the estimate kept (float32's range ends at 3.4e38): the renderers write 1e30
// for "infinitely far".
const maxDE = 1e30

// MinDE is the least positive estimate kept (2^-100 pixels, which no colouring tells from 0):
// a smaller one is raised to it, so that DEX and DEY, the estimate times the normal, stay in
// float32's normal range and keep the normal's direction (a formula's Jacobian gives estimates
// down to 1e-43 pixels where the Burning Ship's orbits stretch; float32's subnormals would keep
// a few bits of the normal, and a GPU may flush them to 0).
const MinDE = 0x1p-100

// NewSample returns the sample of an orbit: escape count n (-1 inside), smooth value nu, and
// for the colourings that read the derivative the distance estimate de in pixels and the unit
// normal (ur, ui) ((0, 0) for none); de and the normal are ignored inside.
func NewSample(n int, nu, de, ur, ui float64) Sample {
	if n < 0 {
		return Sample{Nu: Inside}
	}
	s := Sample{Nu: nu}
	de = min(de, maxDE)
	if de > 0 && de < MinDE {
		de = MinDE
	}
	if ur == 0 && ui == 0 {
		if de != 0 {
			s.DEX, s.DEY = float32(de), float32(math.NaN())
		}
		return s
	}
	s.DEX, s.DEY = float32(de*ur), float32(de*ui)
	return s
}

// InteriorSample is the sample of a point inside the set whose orbit settles on a cycle of
// period p with multiplier of size m (clamped to 0..1); p 0 for none found. Periods above
// float32's run of whole numbers (2^24) count as none.
func InteriorSample(p int, m float64) Sample {
	if p <= 0 || p > 1<<24 || !(m >= 0) {
		return Sample{Nu: Inside}
	}
	return Sample{Nu: Inside, DEX: float32(p), DEY: float32(min(m, 1))}
}

// Period is an inside sample's cycle period (0 where none is known, and for a sample
// outside the set).
func (s Sample) Period() int {
	if !s.Inside() || !(s.DEX >= 1 && s.DEX <= 1<<24) || s.DEX != float32(int(s.DEX)) {
		return 0
	}
	return int(s.DEX)
}

// Multiplier is an inside sample's cycle multiplier's size, 0 to 1 (0 where no period is
// known).
func (s Sample) Multiplier() float64 {
	if s.Period() == 0 || !(s.DEY >= 0) {
		return 0
	}
	return min(float64(s.DEY), 1)
}

// Inside reports whether the sample's point is inside the set (did not escape).
func (s Sample) Inside() bool { return math.IsInf(s.Nu, 1) }

// DE is the distance estimate in pixels (NaN where the orbit gave none that is a number).
func (s Sample) DE() float64 {
	if s.DEY != s.DEY {
		return float64(s.DEX)
	}
	x, y := float64(s.DEX), float64(s.DEY)
	return math.Sqrt(x*x + y*y) // float32 values: neither square overflows a float64
}

// Normal is the unit normal, (0, 0) where there is none.
func (s Sample) Normal() (ur, ui float64) {
	if s.DEY != s.DEY {
		return 0, 0
	}
	x, y := float64(s.DEX), float64(s.DEY)
	h := math.Sqrt(x*x + y*y) // float32 values: neither square overflows a float64
	if !(h > 0 && h < math.Inf(1)) {
		return 0, 0
	}
	inv := 1 / h
	return x * inv, y * inv
}

// Data is a rectangle of samples, laid out as image.RGBA lays out pixels: the sample at
// (x, y) is Pix[(y-Rect.Min.Y)*Stride + (x-Rect.Min.X)].
type Data struct {
	Pix    []Sample
	Stride int
	Rect   image.Rectangle
}

// NewData returns zeroed data for the rectangle r.
func NewData(r image.Rectangle) *Data {
	return &Data{Pix: make([]Sample, r.Dx()*r.Dy()), Stride: r.Dx(), Rect: r}
}

// Bounds is d's rectangle.
func (d *Data) Bounds() image.Rectangle { return d.Rect }

// Offset is the index in Pix of the sample at (x, y).
func (d *Data) Offset(x, y int) int { return (y-d.Rect.Min.Y)*d.Stride + (x - d.Rect.Min.X) }

// At is the sample at (x, y) (the zero Sample outside Rect).
func (d *Data) At(x, y int) Sample {
	if !(image.Point{x, y}.In(d.Rect)) {
		return Sample{}
	}
	return d.Pix[d.Offset(x, y)]
}

// Row is the samples of row y, from Rect.Min.X to Rect.Max.X.
func (d *Data) Row(y int) []Sample {
	i := d.Offset(d.Rect.Min.X, y)
	return d.Pix[i : i+d.Rect.Dx() : i+d.Rect.Dx()]
}

// SubData is the part of d inside r, sharing d's samples.
func (d *Data) SubData(r image.Rectangle) *Data {
	r = r.Intersect(d.Rect)
	if r.Empty() {
		return &Data{}
	}
	i := d.Offset(r.Min.X, r.Min.Y)
	return &Data{Pix: d.Pix[i:], Stride: d.Stride, Rect: r}
}

// Colourer is a colouring made ready to colour samples: the colouring with its palette.
type Colourer struct {
	c   Coloring
	p   Palette
	def bool
	// The default shading's fast path (rgb): the stops as float64 (converting a byte is
	// exact, so the arithmetic is Palette.Color's) and the palette position's factors.
	stops []stopF
	// The other shadings' (shade): the method, the transfer, and the method's constants.
	method, transfer int
	width, strength  float64
	lx, ly           float64
	eq               *Equalisation // the histogram colouring's (method 5)
	// interior: the inside's colouring is not black (Coloring.InteriorColour).
	interior bool
}

type stopF struct{ r, g, b float64 }

// NewColourer returns c's colourer, reading its palette (ColorPalette).
// A colouring shader (Coloring.Shader) has no colourer: it runs on OpenGL (ShaderPainter),
// and NewColourer refuses it with ErrNoShaderPainter.
func NewColourer(c Coloring) (*Colourer, error) {
	if c.HasShader() {
		return nil, ErrNoShaderPainter
	}
	p, err := c.ColorPalette()
	if err != nil {
		return nil, err
	}
	k := &Colourer{c: c, p: p, def: c.IsDefaultShading(), method: MethodIndex(c.Method), transfer: TransferIndex(c.Transfer),
		width: c.LineWidth(), strength: c.LightStrength(), eq: c.Equal, interior: c.NeedsInterior()}
	k.lx, k.ly = c.LightDir()
	for _, st := range p.Stops {
		k.stops = append(k.stops, stopF{float64(st.R), float64(st.G), float64(st.B)})
	}
	return k, nil
}

// rgbRow colours row with the default shading into out, three bytes (R, G, B) a sample: it is
// Palette.Color, the same arithmetic in the same order (PalettePosition, the stop's index and
// fraction, each channel mixed and rounded), written out over a row with the colouring's
// constants in locals, so that the compiler keeps them in registers: the window recolours up
// to 16 samples of every pixel with it.
func (k *Colourer) rgbRow(out []byte, row []Sample) {
	out = out[:3*len(row)]
	stops := k.stops
	n := len(stops)
	density, offset, fn := k.c.Density, k.c.Offset, float64(n)
	for x, s := range row {
		o := out[3*x : 3*x+3 : 3*x+3]
		if math.IsInf(s.Nu, 1) || n == 0 {
			o[0], o[1], o[2] = 0, 0, 0
			continue
		}
		t := s.Nu*density/32 + offset
		t -= floor(t)
		var pos float64
		if t >= 0 && t <= 1 {
			pos = t * fn
		}
		// pos is in [0, n] here: Palette.Color's min and max (which also guard NaN) reduce
		// to plain comparisons.
		i := 0
		if pos > 0 {
			i = int(pos)
			if i > n-1 {
				i = n - 1
			}
		}
		f := pos - float64(i)
		if f > 1 {
			f = 1
		}
		j := i + 1
		if j == n {
			j = 0
		}
		a, c := stops[i], stops[j]
		o[0], o[1], o[2] = uint8(a.r*(1-f)+c.r*f+0.5), uint8(a.g*(1-f)+c.g*f+0.5), uint8(a.b*(1-f)+c.b*f+0.5)
	}
}

// roundDown is uint8(math.Floor(x)): for x >= 0 (every valid colouring's case) the
// conversion's truncation is the floor already.
func roundDown(x float64) uint8 {
	if x >= 0 {
		return uint8(x)
	}
	return uint8(floor(x))
}

// floor is math.Floor, by a conversion to int64 where that is exact (|x| < 2^62), which
// the compiler keeps inline.
func floor(x float64) float64 {
	if !(x > -0x1p62 && x < 0x1p62) {
		return math.Floor(x) // huge, infinite or NaN
	}
	f := float64(int64(x))
	if f > x {
		f--
	}
	if f == 0 && math.Signbit(x) {
		return math.Copysign(0, x) // Floor(-0) is -0
	}
	return f
}

// shadeRow colours row with the other shadings into out, three bytes a sample: it is
// Coloring.Shade, the same arithmetic in the same order, with the light's direction and the
// method's constants computed once.
func (k *Colourer) shadeRow(out []byte, row []Sample) {
	out = out[:3*len(row)]
	stops := k.stops
	n := len(stops)
	density, offset, fn := k.c.Density, k.c.Offset, float64(n)
	transfer, method, width, strength, lx, ly := k.transfer, k.method, k.width, k.strength, k.lx, k.ly
	for x, s := range row {
		o := out[3*x : 3*x+3 : 3*x+3]
		if s.Inside() || n == 0 {
			o[0], o[1], o[2] = 0, 0, 0
			continue
		}
		v := s.Nu
		switch {
		case method == 5:
			v = histValue(k.eq, v)
		case transfer == 1:
			v = math.Sqrt(max(v, 0))
		case transfer == 2:
			v = math.Log1p(max(v, 0))
		}
		// PalettePosition, with the inline floor.
		t := v*density/32 + offset
		t -= floor(t)
		var pos float64
		if t >= 0 && t <= 1 {
			pos = t * fn
		}
		// pos is in [0, n] (not NaN): Shade's min and max reduce to plain comparisons.
		i := 0
		if pos > 0 {
			i = int(pos)
			if i > n-1 {
				i = n - 1
			}
		}
		f := pos - float64(i)
		if f > 1 {
			f = 1
		}
		j := i + 1
		if j == n {
			j = 0
		}
		a, c := stops[i], stops[j]
		w := 1.0
		switch method {
		case 1:
			w = s.DE() / width
			if !(w > 0) {
				w = 0
			} else if w > 1 {
				w = 1
			}
		case 2:
			// s.Normal(), written out: the call is not inlined.
			var ur, ui float64
			if s.DEY == s.DEY {
				x, y := float64(s.DEX), float64(s.DEY)
				if h := math.Sqrt(x*x + y*y); h > 0 && h < math.Inf(1) {
					inv := 1 / h
					ur, ui = x*inv, y*inv
				}
			}
			d := ur*lx + ui*ly
			if d != d { // NaN
				d = 0
			} else if d < -1 {
				d = -1
			} else if d > 1 {
				d = 1
			}
			w = 1 - strength*(1-d)/2
		case 3:
			w = angleBrightness(float64(s.T), strength)
		case 4:
			w = stripeBrightness(float64(s.Stripe), s.Nu, strength)
		}
		o[0], o[1], o[2] = roundDown((a.r*(1-f)+c.r*f)*w+0.5), roundDown((a.g*(1-f)+c.g*f)*w+0.5), roundDown((a.b*(1-f)+c.b*f)*w+0.5)
	}
}

// colourRow colours row into out, three bytes a sample.
func (k *Colourer) colourRow(out []byte, row []Sample) {
	if k.def {
		k.rgbRow(out, row)
	} else {
		k.shadeRow(out, row)
	}
	if k.interior {
		for x, s := range row {
			if s.Inside() {
				c := k.c.InteriorColour(k.p, s)
				out[3*x], out[3*x+1], out[3*x+2] = c.R, c.G, c.B
			}
		}
	}
}

// Colour returns the colour of one sample: Coloring.Shade.
func (k *Colourer) Colour(s Sample) color.RGBA {
	var o [3]byte
	k.colourRow(o[:], []Sample{s})
	return color.RGBA{o[0], o[1], o[2], 255}
}

// Row colours the samples src into row, 4 bytes (RGBA, alpha opaque) each.
func (k *Colourer) Row(row []byte, src []Sample) {
	row = row[:4*len(src)]
	rgb := make([]byte, 3*min(len(src), rowChunk))
	for x0 := 0; x0 < len(src); x0 += rowChunk {
		part := src[x0:min(x0+rowChunk, len(src))]
		k.colourRow(rgb, part)
		for i := range part {
			p := row[4*(x0+i) : 4*(x0+i)+4 : 4*(x0+i)+4]
			p[0], p[1], p[2], p[3] = rgb[3*i], rgb[3*i+1], rgb[3*i+2], 255
		}
	}
}

// rowChunk is the samples coloured at a time into a scratch row (a few KB, in cache).
const rowChunk = 1024

// Paint colours src into dst, whose top-left pixel receives src.Rect.Min (dst must hold
// src's size), rows shared out over the cores.
func (k *Colourer) Paint(dst *image.RGBA, src *Data) {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	par.Rows(h, w, 1<<15, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			o := dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+y)
			k.Row(dst.Pix[o:o+4*w], src.Row(src.Rect.Min.Y+y))
		}
	})
}

// Sum adds the colours of src's samples to sum, three uint32 (R, G, B) per pixel, w = src's
// width per row: the accumulation of several samples of one picture, whose mean (MeanInto)
// is the picture a supersampled export gives.
func (k *Colourer) Sum(sum []uint32, src *Data) {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	par.Rows(h, w, 1<<15, func(y0, y1 int) {
		rgb := make([]byte, 3*w)
		for y := y0; y < y1; y++ {
			k.colourRow(rgb, src.Row(src.Rect.Min.Y+y))
			s := sum[3*w*y : 3*w*(y+1)]
			for i, v := range rgb {
				s[i] += uint32(v)
			}
		}
	})
}

// SumOf sets sum to the colours of every sample in srcs summed per pixel (srcs of one size,
// w pixels a row, three uint32 a pixel): Sum over each of them, in one pass that keeps each
// row's sums in cache instead of sweeping the whole sum once per sample.
func (k *Colourer) SumOf(sum []uint32, srcs []*Data) {
	if len(srcs) == 0 {
		clear(sum)
		return
	}
	w, h := srcs[0].Rect.Dx(), srcs[0].Rect.Dy()
	par.Rows(h, w*len(srcs), 1<<15, func(y0, y1 int) {
		rgb := make([]byte, 3*w)
		for y := y0; y < y1; y++ {
			s := sum[3*w*y : 3*w*(y+1)]
			clear(s)
			for _, src := range srcs {
				k.colourRow(rgb, src.Row(src.Rect.Min.Y+y))
				for i, v := range rgb {
					s[i] += uint32(v)
				}
			}
		}
	})
}

// MeanInto writes the mean of n summed samples per pixel (Sum's sum, w pixels a row) into
// dst, each channel the sum divided by n rounding half up, alpha opaque: the export's box
// filter.
func MeanInto(dst *image.RGBA, sum []uint32, n int) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	nn := uint32(n)
	par.Rows(h, w, 1<<15, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			o := dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+y)
			row := dst.Pix[o : o+4*w]
			s := sum[3*w*y : 3*w*(y+1)]
			for x := range w {
				p := row[4*x : 4*x+4 : 4*x+4]
				p[0] = byte((s[3*x] + nn/2) / nn)
				p[1] = byte((s[3*x+1] + nn/2) / nn)
				p[2] = byte((s[3*x+2] + nn/2) / nn)
				p[3] = 255
			}
		}
	})
}
