package fractal

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"mandelscope/colour"
	"mandelscope/internal/text"
)

// Limits of a location, documented in README and checked by Validate.
const (
	// MaxCentre bounds |re| and |im| of a centre: the set lies within |c| <= 2.
	MaxCentre = 4.0
	// MinZoom and MaxZoom bound the zoom (the shorter side spans 4/zoom). MaxZoom is decimal
	// text, beyond float64: it is set by time and memory, not by a number format. At 1e10000
	// a reference orbit needs about 33,300 bits (about 0.1 ms an iteration here, so a million
	// iterations take minutes: BenchmarkReferenceBits) and a centre about 10,000 digits, within
	// MaxDecimalDigits.
	MinZoom = 1e-3
	MaxZoom = "1e10000"
	// MaxIterations bounds the iteration count.
	MaxIterations = 100_000_000
)

// Location is a place in the Mandelbrot set, or in the Julia set of a parameter: an exact
// centre, a zoom (the image's shorter side spans 4/zoom units), the maximum iteration count,
// the colouring and, for a Julia set, its parameter.
type Location struct {
	Re, Im     Decimal
	Zoom       Decimal
	Iterations int
	Color      colour.Coloring
	// Julia, when On, makes the view the Julia set of c = Julia: a pixel is the orbit's first
	// point z1 (the centre and offsets place it), iterated z <- z^2 + c. The zero value is
	// the Mandelbrot set.
	Julia JuliaParam
	// Formula is the map iterated, z <- f(z)^D + c (formula.go); the zero value is the
	// Mandelbrot set's, z^2 + c.
	Formula Formula
	// Bailout is the escape radius R, MinBailout to MaxBailout; 0 is the default, 2
	// (BailoutRadius). StripeDensity and StripeLast are the STRIPE channel's S and K (0: the
	// defaults, 5 and 16; StripeS, StripeK). See orbit.go.
	Bailout                   float64
	StripeDensity, StripeLast int
	// Rotation turns the picture counter-clockwise by this many degrees, in (-180, 180]; 0
	// (the default) is the unrotated view. See rotation.go.
	Rotation float64
}

// JuliaParam is the parameter c of a Julia set, exact decimal text; the zero value (On false)
// means the Mandelbrot set.
type JuliaParam struct {
	On     bool
	Re, Im Decimal
}

// String is the parameter as "RE,IM" (ParseJulia reads it back), "" when not On.
func (j JuliaParam) String() string {
	if !j.On {
		return ""
	}
	return j.Re.String() + "," + j.Im.String()
}

// ParseJulia reads a Julia parameter "RE,IM" (decimal texts of any length within
// MaxDecimalDigits, |value| <= MaxCentre; spaces around each allowed), as --julia and the
// location text's julia= take it. The error names what is wrong.
func ParseJulia(s string) (JuliaParam, error) {
	re, im, ok := strings.Cut(s, ",")
	if !ok || strings.Contains(im, ",") {
		return JuliaParam{}, fmt.Errorf("julia parameter %q is not RE,IM", text.Clip(s, 40))
	}
	j := JuliaParam{On: true}
	var err error
	if j.Re, err = ParseDecimal(strings.TrimSpace(re)); err != nil {
		return JuliaParam{}, fmt.Errorf("julia parameter's real part: %v", err)
	}
	if j.Im, err = ParseDecimal(strings.TrimSpace(im)); err != nil {
		return JuliaParam{}, fmt.Errorf("julia parameter's imaginary part: %v", err)
	}
	return j, j.validate()
}

func (j JuliaParam) validate() error {
	if !j.On {
		return nil
	}
	for _, c := range []struct {
		name string
		d    Decimal
	}{{"julia parameter's real part", j.Re}, {"julia parameter's imaginary part", j.Im}} {
		if !c.d.AbsWithin(MaxCentre) {
			return fmt.Errorf("%s %s is out of range (|value| <= %g)", c.name, text.Clip(c.d.String(), 40), MaxCentre)
		}
	}
	return nil
}

// IsJulia reports whether l is a view of a Julia set (l.Julia.On).
func (l Location) IsJulia() bool { return l.Julia.On }

// JuliaAt is the Julia set of c = (re, im) seen whole, in l's iterations and colouring:
// centre 0, zoom 1 (the set lies within |z| <= 2, the shorter side spans -2 to 2).
func (l Location) JuliaAt(re, im Decimal) Location {
	l.Julia = JuliaParam{On: true, Re: re, Im: im}
	l.Re, l.Im, l.Zoom = MustDecimal("0"), MustDecimal("0"), MustDecimal("1")
	return l
}

// Mandelbrot is l's view of the Mandelbrot set: for a Julia view, the Mandelbrot set centred
// at its parameter c, at the same zoom; otherwise l itself.
func (l Location) Mandelbrot() Location {
	if !l.Julia.On {
		return l
	}
	l.Re, l.Im = l.Julia.Re, l.Julia.Im
	l.Julia = JuliaParam{}
	return l
}

// Home is the default view: the whole set.
func Home() Location { return HomeOf(Formula{}) }

// HomeOf is the default view of formula fm's set, seen whole: the Mandelbrot set's Home for
// the zero Formula; for every other formula, centre 0 and zoom 1 (the square from -2 to 2,
// within which every one of them lies: |c| > 2 escapes at once).
func HomeOf(fm Formula) Location {
	if !fm.IsMandelbrot() {
		l := HomeOf(Formula{})
		l.Re, l.Formula = MustDecimal("0"), fm
		return l
	}
	return Location{
		Re:         MustDecimal("-0.5"),
		Im:         MustDecimal("0"),
		Zoom:       MustDecimal("1"),
		Iterations: 200,
		Color:      colour.DefaultColoring,
	}
}

// ZoomFloat returns the zoom as a float64 (+Inf beyond 1.8e308: deep views use ZoomExp).
func (l Location) ZoomFloat() float64 { return l.Zoom.Float64() }

// ZoomExp returns the zoom with an unbounded exponent, for arithmetic at any depth.
func (l Location) ZoomExp() Exp { return l.Zoom.Exp() }

var minZoomExp, maxZoomExp = NewExp(MinZoom), MustDecimal(MaxZoom).Exp()

// minZoomDec and maxZoomDec are the limits as exact decimals, for CheckZoom.
var minZoomDec, maxZoomDec = DecimalFromFloat(MinZoom), MustDecimal(MaxZoom)

// CheckZoom reports what is wrong with a zoom: not a positive number, or outside MinZoom to
// MaxZoom (one line naming the value and the range). The comparison is exact, digit for digit:
// 0.00099999999999999999999 is below MinZoom although it rounds to it in 53 bits.
func CheckZoom(zoom Decimal) error {
	neg, digits, _, ok := decimalParts(zoom.String())
	if !ok || neg || digits == "" { // 1e-999 is positive, below the range
		return fmt.Errorf("zoom %s must be a positive number", text.Clip(zoom.String(), 40))
	}
	if compareDecimal(zoom, minZoomDec) < 0 || compareDecimal(zoom, maxZoomDec) > 0 {
		return fmt.Errorf("zoom %s is out of range (%g to %s)", text.Clip(zoom.String(), 40), MinZoom, MaxZoom)
	}
	return nil
}

// decimalParts reads a decimal text (ParseDecimal's form) as its sign, its significant digits
// (no leading or trailing zeros; "" for zero) and the exponent e of its value 0.DIGITS x 10^e.
// ok is false for a text that is not such a number.
func decimalParts(s string) (neg bool, digits string, e int, ok bool) {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	all := intPart + frac
	if all == "" || strings.Trim(all, "0123456789") != "" {
		return false, "", 0, false
	}
	if hasExp {
		n, err := strconv.Atoi(exp)
		if err != nil {
			return false, "", 0, false
		}
		e = n
	}
	lead := len(all) - len(strings.TrimLeft(all, "0"))
	digits = strings.TrimRight(all[lead:], "0")
	if digits == "" {
		return neg, "", 0, true
	}
	return neg, digits, e + len(intPart) - lead, true
}

// compareDecimal compares two decimals exactly: -1, 0 or +1 as a < b, a == b, a > b (0 and -0
// are equal). Texts that are not numbers compare as zero.
func compareDecimal(a, b Decimal) int {
	an, ad, ae, _ := decimalParts(a.String())
	bn, bd, be, _ := decimalParts(b.String())
	sign := func(neg bool, d string) int {
		switch {
		case d == "":
			return 0
		case neg:
			return -1
		}
		return 1
	}
	as, bs := sign(an, ad), sign(bn, bd)
	if as != bs || as == 0 {
		return cmp.Compare(as, bs)
	}
	// Same sign, both non-zero: the exponent, then the digits (no trailing zeros, so a prefix
	// is the smaller), decide the magnitude.
	c := cmp.Compare(ae, be)
	if c == 0 {
		c = strings.Compare(ad, bd)
	}
	return c * as
}

// Validate reports the first thing wrong with l, naming the field. Every location read from a
// file or typed by a person goes through it before it is drawn: it bounds every number that the
// renderers and the palette compute with, so that a valid location can never overflow them.
func (l Location) Validate() error {
	for _, c := range []struct {
		name string
		d    Decimal
	}{{"centre real part", l.Re}, {"centre imaginary part", l.Im}} {
		if !c.d.AbsWithin(MaxCentre) {
			return fmt.Errorf("%s %s is out of range (|value| <= %g)", c.name, text.Clip(c.d.String(), 40), MaxCentre)
		}
	}
	if err := CheckZoom(l.Zoom); err != nil {
		return err
	}
	if err := l.Julia.validate(); err != nil {
		return err
	}
	if err := l.Formula.validate(); err != nil {
		return err
	}
	if err := l.validateOrbit(); err != nil {
		return err
	}
	if err := validateRotation(l.Rotation); err != nil {
		return err
	}
	if l.Iterations < 1 || l.Iterations > MaxIterations {
		return fmt.Errorf("iterations %d is out of range (1 to %d)", l.Iterations, MaxIterations)
	}
	return l.Color.Validate()
}

// AutoIterations is the iteration count the automatic setting uses at a zoom: it rises with
// the logarithm of the zoom, as deeper views need more iterations to show their detail, up
// to a million (reached near 1e350; a zoom beyond float64, passed as +Inf, gets it too).
func AutoIterations(zoom float64) int {
	d := math.Log10(math.Max(zoom, 1))
	n := 200 + 60*d + 8*d*d
	return int(math.Min(n, 1e6))
}

// AutoIterations is the package function AutoIterations at l's zoom, at any depth.
func (l Location) AutoIterations() int {
	if z := l.ZoomFloat(); z > 0 && z <= math.MaxFloat64 {
		return AutoIterations(z)
	}
	d := math.Max(l.ZoomExp().Log10(), 0)
	return int(math.Min(200+60*d+8*d*d, 1e6))
}

// precisionBits is the big.Float precision for exact arithmetic on l's centre at a pixel
// spacing: every digit of the text, plus enough bits to address a pixel at this zoom.
func (l Location) precisionBits(spacing Exp) uint {
	need := uint(64)
	if lg := spacing.Log2(); spacing.Sign() > 0 && lg < 0 {
		need += uint(-lg)
	}
	return max(need, l.Re.SignificantBits(), l.Im.SignificantBits())
}

// digitsFor is the number of digits after the point that a centre needs at a pixel spacing:
// enough to place it to a thousandth of a pixel.
func digitsFor(spacing Exp) int {
	if spacing.Sign() <= 0 || !spacing.Finite() {
		return 20
	}
	return max(3, int(math.Ceil(-spacing.Log10()))+3)
}

// Offset returns l with its centre moved by (dx, dy) pixels of a w x h image (x right, y down
// as on the screen; in a rotated view, along the screen's axes). The arithmetic is exact
// (math/big) and the new centre is written with as many digits as the zoom needs.
func (l Location) Offset(dx, dy float64, w, h int) Location {
	s := SpacingExp(l.ZoomExp(), w, h)
	re, im := l.PlaneOffset(dx, -dy)
	return l.moveCentre(s.MulFloat(re), s.MulFloat(im), s)
}

// ZoomAt returns l zoomed by factor (> 1 zooms in) about pixel (px, py) of a w x h image,
// keeping the point under that pixel where it is.
// The zoom stays within MinZoom and MaxZoom; beyond float64's range it is computed as an
// Exp and written as its shortest decimal (DecimalFromExp).
func (l Location) ZoomAt(px, py, factor float64, w, h int) Location {
	z := l.ZoomExp()
	nz := z.MulFloat(factor)
	if nz.Cmp(minZoomExp) < 0 {
		nz = minZoomExp
	}
	if nz.Cmp(maxZoomExp) > 0 {
		nz = maxZoomExp
	}
	s := SpacingExp(z, w, h)
	ns := SpacingExp(nz, w, h)
	dx, dy := l.PlaneOffset(px-float64(w)/2, float64(h)/2-py)
	ds := s.Sub(ns)
	out := l.moveCentre(ds.MulFloat(dx), ds.MulFloat(dy), ns)
	out.Zoom = DecimalFromExp(nz)
	return out
}

func (l Location) moveCentre(dre, dim, spacing Exp) Location {
	prec := l.precisionBits(spacing)
	digits := digitsFor(spacing)
	add := func(d Decimal, delta Exp) Decimal {
		if delta.Sign() == 0 {
			return d
		}
		v := d.Big(prec)
		v.Add(v, delta.Big(prec))
		return Decimal{text: trimZeros(v.Text('f', digits))}
	}
	l.Re = add(l.Re, dre)
	l.Im = add(l.Im, dim)
	return l
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}

// String is the compact text form of a location, one line, for the clipboard and for
// sharing: "re=... im=... zoom=... iterations=... palette=... density=... offset=...",
// with julia=RE,IM after im= for a Julia set, then formula=NAME and power=D for a formula
// other than the Mandelbrot set's (each only where it is not the default: mandelbrot, 2),
// then bailout=R, stripe-density=S and stripe-last=K where they are not the defaults and
// rotation=DEG where the view is rotated,
// followed by colouring=, transfer=, interior=, width=, light= and strength= where they differ
// from their defaults, gradient= (the stops, Gradient.Text) for a palette that is not built in,
// and shader= (colour.ShaderText: base64) for a colouring shader. An automatic density
// (colour.Coloring.AutoDensity) is written density=auto, without the number it resolved to: the view chooses it again where it is read. ParseLocationText reads
// it back (exactly, but for an automatic density, whose number is its base's: see
// colour.Coloring.SetDensityText).
func (l Location) String() string {
	julia := ""
	if l.Julia.On {
		julia = " julia=" + l.Julia.String()
	}
	if l.Formula.Kind != Mandelbrot {
		julia += " formula=" + l.Formula.Kind.String()
	}
	if d := l.Formula.Power(); d != 2 {
		julia += " power=" + strconv.Itoa(d)
	}
	julia += l.orbitText() + l.rotationText()
	return fmt.Sprintf("re=%s im=%s%s zoom=%s iterations=%d palette=%s density=%s offset=%s",
		l.Re, l.Im, julia, l.Zoom, l.Iterations, l.Color.Palette,
		l.Color.DensityText(), strconv.FormatFloat(l.Color.Offset, 'g', -1, 64)) +
		l.Color.ShadingText()
}

// View is what identifies the data of l's pixels: l without its colouring, as text. Two
// locations with the same View differ in colour only (the window recolours, the preview
// reuses the computed samples).
func (l Location) View() string {
	l.Color = colour.Coloring{}
	return l.String()
}

// ParseIterations reads an iteration count, a whole number from 1 to MaxIterations (spaces
// around it allowed), as the command line and the window take it; the error names what is
// wrong with s.
func ParseIterations(s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s is out of range (1 to %d)", text.Clip(s, 40), MaxIterations)
	}
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", text.Clip(s, 40))
	}
	if n < 1 || n > MaxIterations {
		return 0, fmt.Errorf("%d is out of range (1 to %d)", n, MaxIterations)
	}
	return n, nil
}

// maxLocationText bounds a location's text: five numbers of MaxDecimalDigits (the centre, the
// zoom, a Julia parameter), a gradient, and room for the keys and the other values.
const maxLocationText = 5*MaxDecimalDigits + colour.MaxGradientText + 4*colour.MaxShaderBytes/3 + 1024

// ParseLocationText reads a location from text: either the compact form written by String
// (any subset of its keys, in any order; missing keys keep base's values) or the plain
// "re, im, zoom[, iterations]" form. The result is validated.
func ParseLocationText(s string, base Location) (Location, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return base, errors.New("empty location")
	}
	if len(s) > maxLocationText {
		return base, fmt.Errorf("location text of %d bytes is too long (at most %d)", len(s), maxLocationText)
	}
	l := base
	if strings.Contains(s, "=") {
		palette, gradient := false, false
		for _, f := range strings.Fields(s) {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				return base, fmt.Errorf("%q is not key=value", text.Clip(f, 40))
			}
			if err := l.set(k, v); err != nil {
				return base, err
			}
			palette = palette || strings.EqualFold(k, "palette")
			gradient = gradient || strings.EqualFold(k, "gradient")
		}
		if palette && !gradient {
			l.Color.Gradient = "" // a palette named alone is a built-in one
		}
	} else {
		parts := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == ';' })
		if len(parts) < 3 || len(parts) > 4 {
			return base, fmt.Errorf("expected \"re, im, zoom[, iterations]\", got %d parts", len(parts))
		}
		keys := []string{"re", "im", "zoom", "iterations"}
		for i, p := range parts {
			if err := l.set(keys[i], p); err != nil {
				return base, err
			}
		}
	}
	if err := l.Validate(); err != nil {
		return base, err
	}
	return l, nil
}

func (l *Location) set(k, v string) error {
	var err error
	// A number's own error says what is wrong with it (too long, not a number).
	dec := func(d *Decimal) error {
		n, err := ParseDecimal(v)
		if err != nil {
			return fmt.Errorf("%s: %v", k, err)
		}
		*d = n
		return nil
	}
	switch strings.ToLower(k) {
	case "re", "real":
		return dec(&l.Re)
	case "im", "imag":
		return dec(&l.Im)
	case "zoom":
		return dec(&l.Zoom)
	case "julia":
		if strings.EqualFold(v, "off") || strings.EqualFold(v, "none") {
			l.Julia = JuliaParam{}
			return nil
		}
		j, jerr := ParseJulia(v)
		if jerr != nil {
			return jerr
		}
		l.Julia = j
		return nil
	case "formula":
		kind, ferr := ParseFormulaKind(v)
		if ferr != nil {
			return ferr
		}
		l.Formula.Kind = kind
		return nil
	case "power":
		d, perr := ParsePower(v)
		if perr != nil {
			return perr
		}
		l.Formula, err = l.Formula.WithPower(d)
	case "rotation", "rotate", "angle":
		return l.setRotation(v) // its own error names the value
	case "bailout", "stripe-density", "stripe-last":
		return l.setOrbit(strings.ToLower(k), v) // its own error names the key and the range
	case "iterations", "iter", "it":
		l.Iterations, err = strconv.Atoi(v)
	case "palette":
		l.Color.Palette = v
	case "shader":
		sh, serr := colour.ParseShaderText(v)
		if serr != nil {
			return serr
		}
		l.Color.Shader = sh
	case "gradient":
		g, gerr := colour.ParseGradientText(v)
		if gerr != nil {
			return gerr
		}
		l.Color.Gradient = g.Text()
	case "density":
		if derr := l.Color.SetDensityText(v); derr != nil {
			return derr
		}
	case "offset":
		l.Color.Offset, err = strconv.ParseFloat(v, 64)
	case "colouring", "coloring", "method":
		l.Color.Method = strings.ToLower(v)
		if l.Color.Method == colour.MethodSmooth {
			l.Color.Method = "" // the default's one form, so equal locations compare equal
		}
	case "transfer":
		l.Color.Transfer = strings.ToLower(v)
		if l.Color.Transfer == colour.TransferLinear {
			l.Color.Transfer = ""
		}
	case "interior", "inside":
		l.Color.Interior = strings.ToLower(v)
		if l.Color.Interior == colour.InteriorBlack {
			l.Color.Interior = ""
		}
	case "width":
		l.Color.Width, err = strconv.ParseFloat(v, 64)
	case "light":
		l.Color.Light, err = strconv.ParseFloat(v, 64)
	case "strength":
		l.Color.Strength, err = strconv.ParseFloat(v, 64)
	default:
		return fmt.Errorf("unknown key %q", text.Clip(k, 40))
	}
	if err != nil {
		return fmt.Errorf("%s: %q is not a valid value", k, text.Clip(v, 40))
	}
	return nil
}
