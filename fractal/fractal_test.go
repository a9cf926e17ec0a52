package fractal

import (
	"image/color"
	"mandelscope/colour"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

const digits60 = "-0.743643887037158704752191506114774000000000000000000000000001"

func TestParseDecimal(t *testing.T) {
	good := []string{"0", "-0.75", "+1", ".5", "5.", "1e-12", "-2.5E+3", digits60, " 1.25 "}
	for _, s := range good {
		d, err := ParseDecimal(s)
		if err != nil {
			t.Errorf("ParseDecimal(%q): %v", s, err)
			continue
		}
		if d.String() != strings.TrimSpace(s) {
			t.Errorf("ParseDecimal(%q).String() = %q, want the text unchanged", s, d.String())
		}
	}
	bad := []string{"", "-", ".", "e5", "1e", "1e+", "NaN", "Inf", "-inf", "0x10", "1,5", "1.2.3", "1e1234567", "12abc", "--1"}
	for _, s := range bad {
		if _, err := ParseDecimal(s); err == nil {
			t.Errorf("ParseDecimal(%q) accepted bad input", s)
		}
	}
	if _, err := ParseDecimal(strings.Repeat("1", MaxDecimalDigits+1)); err == nil {
		t.Error("an over-long decimal was accepted")
	}
}

func TestDecimalBigKeepsDigits(t *testing.T) {
	d := MustDecimal(digits60)
	b := d.Big(400)
	if got := b.Text('f', 60); got != digits60 {
		t.Errorf("Big(400) = %s, want %s", got, digits60)
	}
}

// TestPixelMappingNonSquare checks the contract's mapping on images wider and taller than
// square, where a mix-up of width and height shows.
func TestPixelMappingNonSquare(t *testing.T) {
	l := Home()
	l.Re, l.Im = MustDecimal("0"), MustDecimal("0")
	for _, tc := range []struct {
		w, h             int
		x, y             int
		wantRe, wantIm   float64
		wantSpacingDenom int
	}{
		{300, 200, 0, 0, (0.5 - 150) * 0.02, (100 - 0.5) * 0.02, 200},
		{300, 200, 299, 199, (299.5 - 150) * 0.02, (100 - 199.5) * 0.02, 200},
		{200, 300, 0, 0, (0.5 - 100) * 0.02, (150 - 0.5) * 0.02, 200},
		{200, 300, 199, 299, (199.5 - 100) * 0.02, (150 - 299.5) * 0.02, 200},
		{1, 1, 0, 0, 0, 0, 1},
	} {
		f := NewFrame(l, tc.w, tc.h)
		if want := 4 / float64(tc.wantSpacingDenom); f.Spacing != want {
			t.Errorf("%dx%d: spacing %g, want %g", tc.w, tc.h, f.Spacing, want)
		}
		re, im := f.Point64(tc.x, tc.y)
		if math.Abs(re-tc.wantRe) > 1e-12 || math.Abs(im-tc.wantIm) > 1e-12 {
			t.Errorf("%dx%d pixel (%d,%d) = %g%+gi, want %g%+gi", tc.w, tc.h, tc.x, tc.y, re, im, tc.wantRe, tc.wantIm)
		}
		bre, bim := f.PointBig(tc.x, tc.y, 200)
		r64, _ := bre.Float64()
		i64, _ := bim.Float64()
		if math.Abs(r64-tc.wantRe) > 1e-12 || math.Abs(i64-tc.wantIm) > 1e-12 {
			t.Errorf("%dx%d PointBig(%d,%d) = %g%+gi, want %g%+gi", tc.w, tc.h, tc.x, tc.y, r64, i64, tc.wantRe, tc.wantIm)
		}
	}
	// The shorter side spans 4/zoom: the image is 4 units tall when wider than tall.
	f := NewFrame(l, 640, 360)
	_, top := f.Point64(0, 0)
	_, bottom := f.Point64(0, 359)
	if span := top - bottom + f.Spacing; math.Abs(span-4) > 1e-12 {
		t.Errorf("640x360 at zoom 1 spans %g vertically, want 4", span)
	}
}

func TestOffsetAndZoomAt(t *testing.T) {
	l := Home()
	w, h := 640, 360
	s := Spacing(1, w, h)
	m := l.Offset(100, -50, w, h)
	if got, want := m.Re.Float64(), -0.5+100*s; math.Abs(got-want) > s*1e-3 {
		t.Errorf("Offset re = %g, want %g", got, want)
	}
	if got, want := m.Im.Float64(), 50*s; math.Abs(got-want) > s*1e-3 {
		t.Errorf("Offset im = %g, want %g", got, want)
	}
	// ZoomAt keeps the point under the cursor fixed, also deep down where float64 would not.
	deep := l
	deep.Re, deep.Im, deep.Zoom = MustDecimal(digits60), MustDecimal("0.131825904205311970493132056385139"), MustDecimal("1e20")
	for _, loc := range []Location{l, deep} {
		before := NewFrame(loc, w, h)
		// A pointer at (123.5, 45.5) is over the centre of pixel (123, 45).
		bre, bim := before.PointBig(123, 45, 400)
		after := NewFrame(loc.ZoomAt(123.5, 45.5, 2, w, h), w, h)
		are, aim := after.PointBig(123, 45, 400)
		tol := new(big.Float).SetFloat64(before.Spacing * 1e-3)
		d1 := new(big.Float).Sub(bre, are)
		d2 := new(big.Float).Sub(bim, aim)
		if d1.Abs(d1).Cmp(tol) > 0 || d2.Abs(d2).Cmp(tol) > 0 {
			t.Errorf("zoom %s: the point under the cursor moved by %s,%s (spacing %g)", loc.Zoom, d1.Text('g', 5), d2.Text('g', 5), before.Spacing)
		}
		if got := after.Loc.ZoomFloat() / loc.ZoomFloat(); math.Abs(got-2) > 1e-12 {
			t.Errorf("zoom factor %g, want 2", got)
		}
	}
	// Panning back and forth deep down keeps the centre to well below a pixel.
	back := deep.Offset(7, 3, w, h).Offset(-7, -3, w, h)
	f := NewFrame(deep, w, h)
	d := new(big.Float).Sub(deep.Re.Big(400), back.Re.Big(400))
	if v, _ := d.Abs(d).Float64(); v > f.Spacing*1e-2 {
		t.Errorf("pan there and back moved the centre by %g (spacing %g)", v, f.Spacing)
	}
}

func TestLocationTextRoundTrip(t *testing.T) {
	l := Home()
	l.Re = MustDecimal(digits60)
	l.Im = MustDecimal("0.1318259042053119704931320563851390000000000000000000000000001")
	l.Zoom = MustDecimal("3.5e21")
	l.Iterations = 12345
	l.Color = colour.Coloring{Palette: "fire", Density: 2.5, Offset: 0.25}
	got, err := ParseLocationText(l.String(), Home())
	if err != nil {
		t.Fatal(err)
	}
	if got != l {
		t.Errorf("round trip:\n got %v\nwant %v", got, l)
	}
	plain, err := ParseLocationText("-0.75, 0.1, 1e3", Home())
	if err != nil {
		t.Fatal(err)
	}
	if plain.Re.String() != "-0.75" || plain.Im.String() != "0.1" || plain.Zoom.String() != "1e3" {
		t.Errorf("plain form parsed as %v", plain)
	}
	for _, bad := range []string{"", "1,2", "a, b, c", "re=1 im=nan zoom=1", "re=0 im=0 zoom=-1", "re=9 im=0 zoom=1", "re=0 im=0 zoom=1 iterations=0", "re=0 palette=nope", "bogus=1", "1, 2, 3, 4, 5"} {
		if _, err := ParseLocationText(bad, Home()); err == nil {
			t.Errorf("ParseLocationText(%q) accepted bad input", bad)
		}
	}
}

func TestChoosePrecision(t *testing.T) {
	w, h := 1280, 720
	for _, tc := range []struct {
		zoom       float64
		iterations int
		want       Precision
	}{
		{1, 100, Float32}, {10, 100, Float32}, {1e4, 100, Double}, {1e6, 100, Double},
		{1e8, 100, Perturbation}, {1e10, 100, Perturbation}, {1e16, 100, Perturbation},
		// Direct float64 keeps a bit more below a pixel for every doubling of the count:
		// zoom 1e6 is 2^-27.4 of |c| a pixel, 25 bits, enough for 100 iterations, not 10,000.
		{1e6, 10000, Perturbation}, {1e4, 10000, Double},
	} {
		f := NewFrame(Location{Re: MustDecimal("-0.75"), Im: MustDecimal("0.1"), Zoom: DecimalFromFloat(tc.zoom), Iterations: tc.iterations, Color: colour.DefaultColoring}, w, h)
		if got := f.Precision(); got != tc.want {
			t.Errorf("zoom %g, %d iterations: precision %v, want %v", tc.zoom, tc.iterations, got, tc.want)
		}
	}
}

// MinPrecision raises a frame's precision, never lowers it.
func TestMinPrecision(t *testing.T) {
	l := Location{Re: MustDecimal("-0.75"), Im: MustDecimal("0.1"), Zoom: DecimalFromFloat(10), Iterations: 100, Color: colour.DefaultColoring}
	f := NewFrame(l, 1280, 720)
	if f.Precision() != Float32 {
		t.Fatalf("zoom 10: precision %v", f.Precision())
	}
	f.MinPrecision = Double
	if got := f.Precision(); got != Double {
		t.Errorf("zoom 10 with MinPrecision Double: %v", got)
	}
	l.Zoom = DecimalFromFloat(1e16)
	g := NewFrame(l, 1280, 720)
	g.MinPrecision = Double
	if got := g.Precision(); got != Perturbation {
		t.Errorf("zoom 1e16 with MinPrecision Double: %v, want Perturbation", got)
	}
}

// TestEscapeAgainstExact compares the float64 iteration (with its shortcuts) with the exact
// math/big reference on random points near the boundary.
func TestEscapeAgainstExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const maxIter = 300
	agree, total := 0, 0
	for range 400 {
		cr := -2 + 2.5*r.Float64()
		ci := -1.2 + 2.4*r.Float64()
		n, _ := Escape64(cr, ci, maxIter)
		want := EscapeBig(big.NewFloat(cr).SetPrec(256), big.NewFloat(ci).SetPrec(256), maxIter, 256)
		total++
		if n == want {
			agree++
		} else if n >= 0 && want >= 0 {
			t.Logf("(%g,%g): %d vs exact %d", cr, ci, n, want)
		}
		if n == -1 && want > 0 && want < 50 {
			t.Errorf("(%g,%g) escapes at %d but was classed inside", cr, ci, want)
		}
	}
	if agree < total*99/100 {
		t.Errorf("float64 agrees with exact on %d of %d points", agree, total)
	}
	// Points in the main cardioid and the period-2 bulb are inside.
	for _, c := range [][2]float64{{0, 0}, {-1, 0}, {0.2, 0.1}, {-0.1, 0.6}} {
		if n, _ := Escape64(c[0], c[1], 1000); n != -1 {
			t.Errorf("(%g,%g) is inside but escaped at %d", c[0], c[1], n)
		}
		if n := EscapeBig(big.NewFloat(c[0]), big.NewFloat(c[1]), 1000, 128); n != -1 {
			t.Errorf("exact: (%g,%g) is inside but escaped at %d", c[0], c[1], n)
		}
	}
	// The escape count is the least n with |z(n)| > 2: c = 1 gives 0, 1, 2, 5 -> n = 3.
	if n, _ := Escape64(1, 0, 100); n != 3 {
		t.Errorf("c=1 escapes at %d, want 3", n)
	}
	if n, _ := Escape32(1, 0, 100); n != 3 {
		t.Errorf("float32: c=1 escapes at %d, want 3", n)
	}
	if n := EscapeBig(big.NewFloat(1), big.NewFloat(0), 100, 64); n != 3 {
		t.Errorf("exact: c=1 escapes at %d, want 3", n)
	}
}

func TestSmoothIsContinuous(t *testing.T) {
	// Along a line away from the set the smooth value changes by far less than 1 between
	// neighbouring samples, also where the integer count steps.
	prev := math.NaN()
	steps := 0
	lastN := 0
	for i := range 2000 {
		cr := -2 + float64(i)*2e-3
		n, nu := Escape64(cr, 1.2, 1000)
		if n != lastN {
			steps++
			lastN = n
		}
		if n < 0 {
			prev = math.NaN()
			continue
		}
		if !math.IsNaN(prev) && math.Abs(nu-prev) > 0.5 {
			t.Fatalf("smooth value jumps from %g to %g at re=%g", prev, nu, cr)
		}
		prev = nu
	}
	if steps < 3 {
		t.Errorf("the line crossed only %d escape-count steps; the test needs several", steps)
	}
}

func TestPalettes(t *testing.T) {
	names := colour.PaletteNames()
	if len(names) < 4 {
		t.Fatalf("only %d palettes: %v", len(names), names)
	}
	for _, n := range names {
		p, err := colour.PaletteByName(n)
		if err != nil {
			t.Fatal(err)
		}
		// At a stop's position the colour is that stop exactly.
		nu := 32.0 / float64(len(p.Stops)) // position 1 with density 1, offset 0
		if got := p.Color(colour.Sample{Nu: nu}, colour.Coloring{Palette: n, Density: 1}); got != p.Stops[1] {
			t.Errorf("%s: colour at stop 1 = %v, want %v", n, got, p.Stops[1])
		}
		if got := p.Color(colour.Sample{Nu: colour.Inside}, colour.DefaultColoring); got.R != 0 || got.G != 0 || got.B != 0 {
			t.Errorf("%s: inside is %v, want black", n, got)
		}
	}
	if _, err := colour.PaletteByName("nope"); err == nil || !strings.Contains(err.Error(), "classic") {
		t.Errorf("unknown palette error %v should list the known ones", err)
	}
	if _, err := colour.ParsePalette("x", []byte("#zzzzzz\n#000000\n")); err == nil {
		t.Error("a bad colour was accepted")
	}
}

func TestLog2(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := []float64{1, 2, 4, 0.5, math.Sqrt2, math.Nextafter(math.Sqrt2, 2), 3, 65536, 1e300, 1e-300, 0x1p-1022}
	for range 100000 {
		xs = append(xs, math.Exp(r.Float64()*60-10))
	}
	for _, x := range xs {
		if got, want := log2(x), math.Log2(x); math.Abs(got-want) > 2e-7 {
			t.Fatalf("log2(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	for _, x := range []float64{0, -1, math.Inf(1), math.NaN(), 0x1p-1070} {
		if got, want := log2(x), math.Log2(x); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("log2(%g) = %g, want %g", x, got, want)
		}
	}
}

func BenchmarkLog2(b *testing.B) {
	x := 1.0
	for b.Loop() {
		x = log2(x+1e6) + 1
	}
}

func TestAutoIterationsRises(t *testing.T) {
	prev := 0
	for _, z := range []float64{1, 10, 1e3, 1e6, 1e10, 1e13} {
		n := AutoIterations(z)
		if n <= prev {
			t.Errorf("AutoIterations(%g) = %d, not above %d", z, n, prev)
		}
		prev = n
	}
}

func BenchmarkEscape64(b *testing.B) {
	for b.Loop() {
		Escape64(-0.7436438870, 0.1318259042, 1000)
	}
}

func BenchmarkEscape32(b *testing.B) {
	for b.Loop() {
		Escape32(-0.74364, 0.13182, 1000)
	}
}

// TestValidateBoundsColoring checks that a colouring from a file cannot carry numbers that
// overflow the palette arithmetic (a density of 1e308 once panicked the palette), and that the
// message shows the number as it is.
func TestValidateBoundsColoring(t *testing.T) {
	for _, c := range []struct {
		density, offset float64
		want            string // "" for valid
	}{
		{1, 0, ""},
		{colour.MinDensity, -colour.MaxOffset, ""},
		{colour.MaxDensity, colour.MaxOffset, ""},
		{1e308, 0, "density 1e+308 is out of range"},
		{math.Inf(1), 0, "density +Inf is out of range"},
		{math.NaN(), 0, "density NaN is out of range"},
		{0, 0, "density 0 is out of range"},
		{-1, 0, "density -1 is out of range"},
		{5e-324, 0, "density 5e-324 is out of range"},
		{1, 1e308, "offset 1e+308 is out of range"},
		{1, -1e300, "offset -1e+300 is out of range"},
		{1, math.Inf(-1), "offset -Inf is out of range"},
		{1, math.NaN(), "offset NaN is out of range"},
	} {
		l := Home()
		l.Color.Density, l.Color.Offset = c.density, c.offset
		err := l.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("density %g offset %g: %v", c.density, c.offset, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("density %g offset %g: error %v, want one saying %q", c.density, c.offset, err, c.want)
		}
	}
}

// TestPaletteColorAnyInput checks that no smooth value or colouring, valid or not, takes the
// palette lookup out of range (it panicked with an index out of range for a density of 1e308).
func TestPaletteColorAnyInput(t *testing.T) {
	p, err := colour.PaletteByName("classic")
	if err != nil {
		t.Fatal(err)
	}
	extremes := []float64{0, math.Copysign(0, -1), 1e-300, -1e-20, 0.5, 1, 31.999999999999996, 1e8, 1e300, 1e308, math.MaxFloat64,
		-1e308, 5e-324, math.Inf(1), math.Inf(-1), math.NaN()}
	for _, nu := range extremes {
		for _, d := range extremes {
			for _, o := range extremes {
				c := p.Color(colour.Sample{Nu: nu}, colour.Coloring{Palette: "classic", Density: d, Offset: o})
				if c.A != 255 {
					t.Fatalf("nu %g density %g offset %g: alpha %d", nu, d, o, c.A)
				}
				pos := colour.PalettePosition(nu, d, o, len(p.Stops))
				if !(pos >= 0 && pos <= float64(len(p.Stops))) {
					t.Fatalf("nu %g density %g offset %g: position %g outside 0..%d", nu, d, o, pos, len(p.Stops))
				}
			}
		}
	}
	// A palette without stops has no colour to give: black, not a panic.
	if c := (colour.Palette{}).Color(colour.Sample{Nu: 3}, colour.DefaultColoring); c != (color.RGBA{0, 0, 0, 255}) {
		t.Errorf("empty palette gave %v", c)
	}
}

// TestValidateZoomUnderflow checks that a zoom too small for a float64 is called out of
// range, not "not positive", while zero and negative zooms are not positive; one beyond
// MaxZoom (and beyond float64) is out of range too.
func TestValidateZoomUnderflow(t *testing.T) {
	for zoom, want := range map[string]string{
		"1e-999":  "zoom 1e-999 is out of range",
		"0e5":     "zoom 0e5 must be a positive number",
		"-1e-999": "zoom -1e-999 must be a positive number",
		"1e10999": "zoom 1e10999 is out of range",
	} {
		l := Home()
		l.Zoom = MustDecimal(zoom)
		if err := l.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("zoom %s: %v, want %q", zoom, err, want)
		}
	}
}

// TestParseIterations: a whole number from 1 to MaxIterations, spaces around it allowed;
// anything else is refused with what is wrong.
func TestParseIterations(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string // the error, "" for none
	}{
		{" 500 ", 500, ""},
		{"1", 1, ""},
		{strconv.Itoa(MaxIterations), MaxIterations, ""},
		{"0", 0, "0 is out of range (1 to 100000000)"},
		{strconv.Itoa(MaxIterations + 1), 0, "100000001 is out of range (1 to 100000000)"},
		{"99999999999999999999", 0, "99999999999999999999 is out of range (1 to 100000000)"},
		{"2.5", 0, `"2.5" is not a whole number`},
		{"", 0, `"" is not a whole number`},
	} {
		n, err := ParseIterations(c.in)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if n != c.n || got != c.want {
			t.Errorf("ParseIterations(%q) = %d, %q; want %d, %q", c.in, n, got, c.n, c.want)
		}
	}
}

// TestLocationView: the colouring aside, View tells locations apart as String does.
func TestLocationView(t *testing.T) {
	a := Home()
	b := a
	b.Color.Palette, b.Color.Density, b.Color.Method = "fire", 3, "distance"
	if a.View() != b.View() || a.String() == b.String() {
		t.Errorf("a change of colouring: views %q and %q, strings %q and %q", a.View(), b.View(), a.String(), b.String())
	}
	c := a
	c.Iterations++
	if a.View() == c.View() {
		t.Errorf("another iteration count has the same view %q", c.View())
	}
}
