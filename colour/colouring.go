package colour

import (
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"mandelscope/internal/text"
)

// Colouring methods (Coloring.Method): how a pixel's orbit becomes a colour. The zero value
// "" is MethodSmooth, so that locations written before there was a choice read as they drew.
const (
	// MethodSmooth is the palette at the smooth escape count (the default).
	MethodSmooth = "smooth"
	// MethodDistance is MethodSmooth darkened near the set by the distance estimate: the
	// boundary drawn as lines Coloring.Width pixels wide, at any zoom.
	MethodDistance = "distance"
	// MethodSlopes is MethodSmooth lit from a direction (Coloring.Light) by the normal that
	// the derivative gives, as if the escape count were a height: Coloring.Strength says how
	// much.
	MethodSlopes = "slopes"
	// MethodAngle is MethodSmooth shaded by the orbit's final angle T (Sample.T): binary
	// decomposition (the cells with T in [1/2, 1) darker) and field lines (dark where T is
	// near 0 or 1/2, the cells' edges), Coloring.Strength saying how dark.
	MethodAngle = "angle"
	// MethodStripe is MethodSmooth shaded by the stripe average (Sample.Stripe), its jump at
	// every escape-count band smoothed by the count's fraction: Coloring.Strength says how
	// much.
	MethodStripe = "stripe"
	// MethodHistogram is the palette at the share of the picture's pixels whose escape count
	// is below the pixel's (histogram equalisation: Equalisation.Value), so that the colours
	// of one palette cycle (at density 1) each cover about as many pixels; the transfer
	// function does not apply. It needs the whole picture's counts (Coloring.Equal).
	MethodHistogram = "histogram"
)

// Interior colourings (Coloring.Interior): how a point inside the set gets its colour. The
// zero value "" is InteriorBlack.
const (
	// InteriorBlack colours the inside black (the default).
	InteriorBlack = "black"
	// InteriorPeriod colours each hyperbolic component by its period (the palette at a
	// position that moves by 1 - 1/phi per period, so that neighbouring periods differ),
	// darker towards the component's edge by the multiplier's size.
	InteriorPeriod = "period"
	// InteriorMultiplier colours by the size of the cycle's multiplier: the palette from
	// the offset at a component's nucleus (0) to one cycle further at its edge (1).
	InteriorMultiplier = "multiplier"
)

// Interiors lists the interior colourings, the default first.
var Interiors = []string{InteriorBlack, InteriorPeriod, InteriorMultiplier}

// InteriorIndex is the interior colouring's number (0 black, 1 period, 2 multiplier; "" is
// 0), -1 for an unknown one.
func InteriorIndex(m string) int {
	if m == "" {
		return 0
	}
	for i, n := range Interiors {
		if m == n {
			return i
		}
	}
	return -1
}

// NeedsInterior reports whether c colours the inside by its cycles: the renderers then
// compute each inside point's period and multiplier.
func (c Coloring) NeedsInterior() bool { return InteriorIndex(c.Interior) > 0 }

// Transfer functions (Coloring.Transfer), applied to the smooth escape count before the
// palette: the zero value "" is TransferLinear.
const (
	TransferLinear = "linear"
	TransferSqrt   = "sqrt"
	TransferLog    = "log"
)

// Limits and defaults of the colouring parameters (see Coloring).
const (
	// MinDensity and MaxDensity bound a colouring's density (colour cycles per 32
	// iterations): below the minimum a whole picture is one colour, above the maximum every
	// pixel is noise, and a density read from a file beyond them (1e308, say) would overflow
	// the palette arithmetic.
	MinDensity = 1e-6
	MaxDensity = 1e6
	// MaxOffset bounds |offset|, in palette cycles (only its fractional part matters).
	MaxOffset       = 1e6
	MinWidth        = 0.05 // pixels
	MaxWidth        = 100.0
	DefaultWidth    = 1.0
	MaxLight        = 360 // |Light| in degrees
	MinStrength     = 0.01
	MaxStrength     = 1.0
	DefaultStrength = 0.75
)

// Coloring says how a pixel's orbit becomes a colour: a palette at the smooth escape count
// (through a transfer function), and a method that may shade it with the derivative dz/dc.
// Every field's zero value is its default (Method smooth, Transfer linear, Width
// DefaultWidth, Strength DefaultStrength), so a location written before these fields existed
// draws as it did.
type Coloring struct {
	Palette string  // a built-in palette's name (PaletteNames), or the name of Gradient
	Density float64 // colour cycles per 32 smooth iterations; MinDensity to MaxDensity
	Offset  float64 // shifts the palette, in cycles (0..1; at most MaxOffset in size)

	// AutoDensity says that the density is the view's to choose (AutoDensity, the function):
	// the user has not set one. The renderers draw Density, so the export and the window
	// resolve it from samples of the view first (ResolveDensity, FollowDensity); until then
	// Density is the number drawn, 1 for a fresh view. The text form writes it as
	// density=auto. Its zero value is an explicit density, so that every location written
	// before it existed (density=1) draws as it did.
	AutoDensity bool

	Method   string  // "" or one of Methods: smooth, distance, slopes, histogram
	Transfer string  // "" or one of Transfers: linear, sqrt, log (applied to the smooth value)
	Width    float64 // distance: line width in pixels, MinWidth to MaxWidth (0: DefaultWidth)
	Light    float64 // slopes: light direction, degrees anticlockwise from the upper left
	Strength float64 // slopes: MinStrength to MaxStrength (0: DefaultStrength)
	// Interior is how points inside the set are coloured: "" (black) or one of Interiors,
	// by the period of the attracting cycle their orbits settle on, or by that cycle's
	// multiplier (Sample.Period, Sample.Multiplier).
	Interior string

	// Gradient is the colour stops by value (Gradient.Text's compact form), for a gradient
	// that is not built in, so that the location draws the same on any machine; "" for a
	// built-in palette, found by its name. See ColorPalette.
	Gradient string

	// Equal is the histogram colouring's equalisation: the counts of the picture being
	// coloured (Equalise, Histogram), which every tile of it reads. It is not part of the
	// text form: it is made again from the picture's own samples wherever one is drawn. Nil
	// colours every pixel as the lowest count.
	Equal *Equalisation `json:"-"`

	// Shader is a colouring shader's text (GLSL defining `vec3 colour()`, see ShaderPainter),
	// which colours the picture in place of the method and the transfer; "" for none. The
	// palette, density and offset are its KFP_Palette, KFP_IterDiv and KFP_ColorOffset.
	Shader string
}

// DefaultColoring is the colouring of a fresh view: the classic palette at the automatic
// density (1 until the view is known, and 1 for every view whose escape counts span a few
// hundred iterations).
var DefaultColoring = Coloring{Palette: "classic", Density: 1, Offset: 0, AutoDensity: true}

// Methods lists the colouring methods, default first; Transfers the transfer functions.
var (
	Methods   = []string{MethodSmooth, MethodDistance, MethodSlopes, MethodAngle, MethodStripe, MethodHistogram}
	Transfers = []string{TransferLinear, TransferSqrt, TransferLog}
)

// MethodIndex is the method's number for the shaders (0 smooth, 1 distance, 2 slopes, 3
// angle, 4 stripe, 5 histogram; "" is 0), or -1 for an unknown one.
func MethodIndex(m string) int {
	if m == "" {
		return 0
	}
	for i, n := range Methods {
		if n == m {
			return i
		}
	}
	return -1
}

// TransferIndex is the transfer function's number for the shaders (0 linear, 1 sqrt, 2 log;
// "" is 0), or -1 for an unknown one.
func TransferIndex(t string) int {
	if t == "" {
		return 0
	}
	for i, n := range Transfers {
		if n == t {
			return i
		}
	}
	return -1
}

// Canonical returns c with the defaults' names written as their one form, the empty string
// ("smooth" and "linear" read from a file become ""), and a valid Gradient in Gradient.Text's
// form, so that equal colourings compare equal.
func (c Coloring) Canonical() Coloring {
	if c.Gradient != "" {
		if g, err := ParseGradientText(c.Gradient); err == nil {
			c.Gradient = g.Text()
		}
	}
	if c.Method == MethodSmooth {
		c.Method = ""
	}
	if c.Transfer == TransferLinear {
		c.Transfer = ""
	}
	if c.Interior == InteriorBlack {
		c.Interior = ""
	}
	return c
}

// Sampled is c for a frame rendered at n x n samples per output pixel (a supersampled export's
// finer frame) and filtered down: the distance method's line width is multiplied by n, so that
// its lines keep their width in output pixels. (The window's accumulating preview renders
// frames whose pixels are output pixels already, and does not use it.) The result may exceed
// MaxWidth; it is for rendering, not for storing. Other colourings are returned unchanged.
func (c Coloring) Sampled(n int) Coloring {
	if n > 1 && MethodIndex(c.Method) == 1 {
		c.Width = c.LineWidth() * float64(n)
	}
	return c
}

// NeedsDerivative reports whether c's method reads the derivative dz/dc (distance, slopes).
// A colouring shader reads it (getDE).
func (c Coloring) NeedsDerivative() bool {
	m := MethodIndex(c.Method)
	return m == 1 || m == 2 || c.Shader != ""
}

// NeedsChannels reports whether c reads the orbit channels T and STRIPE: the angle and stripe
// methods, and a colouring shader that calls getT.
func (c Coloring) NeedsChannels() bool {
	m := MethodIndex(c.Method)
	return m == 3 || m == 4 || strings.Contains(c.Shader, "getT")
}

// IsDefaultShading reports whether c draws exactly as the plain smooth colouring: method
// smooth and the linear transfer (whatever its palette, density and offset).
func (c Coloring) IsDefaultShading() bool {
	return MethodIndex(c.Method) == 0 && TransferIndex(c.Transfer) == 0 && c.Shader == ""
}

// LineWidth is the distance method's line width in pixels: Width, or DefaultWidth when 0.
func (c Coloring) LineWidth() float64 {
	if c.Width == 0 {
		return DefaultWidth
	}
	return c.Width
}

// LightStrength is the slopes method's strength: Strength, or DefaultStrength when 0.
func (c Coloring) LightStrength() float64 {
	if c.Strength == 0 {
		return DefaultStrength
	}
	return c.Strength
}

// LightDir is the unit vector (x right, y up in the complex plane) pointing towards the
// light: Light degrees anticlockwise from the upper left.
func (c Coloring) LightDir() (x, y float64) {
	a := (135 + c.Light) * math.Pi / 180
	return math.Cos(a), math.Sin(a)
}

// Validate checks every field of c: the palette (a built-in's name, or a valid gradient),
// the density and offset, and the shading.
func (c Coloring) Validate() error {
	if err := c.validatePalette(); err != nil {
		return err
	}
	if d := c.Density; !(d >= MinDensity && d <= MaxDensity) {
		return fmt.Errorf("palette density %s is out of range (%g to %g)", formatFloat(d), MinDensity, MaxDensity)
	}
	if o := c.Offset; !(o >= -MaxOffset && o <= MaxOffset) {
		return fmt.Errorf("palette offset %s is out of range (-%g to %g)", formatFloat(o), MaxOffset, MaxOffset)
	}
	return c.validateShading()
}

// formatFloat writes a number read from a file as what it is: "NaN", "+Inf", or its shortest
// exact form, never a converted integer.
func formatFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// validateShading checks the fields of c beyond the palette's.
func (c Coloring) validateShading() error {
	if MethodIndex(c.Method) < 0 {
		return fmt.Errorf("unknown colouring %q (known: %s)", text.Clip(c.Method, 40), strings.Join(Methods, ", "))
	}
	if TransferIndex(c.Transfer) < 0 {
		return fmt.Errorf("unknown transfer function %q (known: %s)", text.Clip(c.Transfer, 40), strings.Join(Transfers, ", "))
	}
	if InteriorIndex(c.Interior) < 0 {
		return fmt.Errorf("unknown interior colouring %q (known: %s)", text.Clip(c.Interior, 40), strings.Join(Interiors, ", "))
	}
	if w := c.Width; w != 0 && !(w >= MinWidth && w <= MaxWidth) {
		return fmt.Errorf("line width %s is out of range (%g to %g pixels)", formatFloat(w), MinWidth, MaxWidth)
	}
	if a := c.Light; !(a >= -MaxLight && a <= MaxLight) {
		return fmt.Errorf("light angle %s is out of range (-%d to %d degrees)", formatFloat(a), MaxLight, MaxLight)
	}
	if s := c.Strength; s != 0 && !(s >= MinStrength && s <= MaxStrength) {
		return fmt.Errorf("light strength %s is out of range (%g to %g)", formatFloat(s), MinStrength, MaxStrength)
	}
	if c.Shader != "" {
		return ValidateShader(c.Shader)
	}
	return nil
}

// ShadingText is the compact text form's keys for the fields beyond the palette's, each
// written only when it differs from its zero value (so a default location's text is as it
// was before these fields existed), with a leading space.
func (c Coloring) ShadingText() string {
	var b strings.Builder
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if c.Method != "" && c.Method != MethodSmooth {
		b.WriteString(" colouring=" + c.Method)
	}
	if c.Transfer != "" && c.Transfer != TransferLinear {
		b.WriteString(" transfer=" + c.Transfer)
	}
	if c.Interior != "" && c.Interior != InteriorBlack {
		b.WriteString(" interior=" + c.Interior)
	}
	if c.Width != 0 {
		b.WriteString(" width=" + f(c.Width))
	}
	if c.Light != 0 {
		b.WriteString(" light=" + f(c.Light))
	}
	if c.Strength != 0 {
		b.WriteString(" strength=" + f(c.Strength))
	}
	if c.Gradient != "" {
		b.WriteString(" gradient=" + c.Gradient)
	}
	if c.Shader != "" {
		b.WriteString(" shader=" + ShaderText(c.Shader))
	}
	return b.String()
}

// TransferValue applies the transfer function t to a smooth value (negative values, which
// only far outside the set occur, count as 0 for sqrt and log).
func TransferValue(t string, nu float64) float64 {
	switch TransferIndex(t) {
	case 1:
		return math.Sqrt(max(nu, 0))
	case 2:
		return math.Log1p(max(nu, 0))
	}
	return nu
}

// Shade returns the colour of a sample under colouring c with palette p. The default
// shading (IsDefaultShading) is p.Color, byte for byte; the others interpolate the palette at
// the transferred value, multiply it by the method's brightness (Brightness) and round.
// Inside points are black, or coloured by c's interior colouring (InteriorColour).
func (c Coloring) Shade(p Palette, s Sample) color.RGBA {
	if s.Inside() && c.NeedsInterior() {
		return c.InteriorColour(p, s)
	}
	if c.IsDefaultShading() {
		return p.Color(s, c)
	}
	if s.Inside() || len(p.Stops) == 0 {
		return color.RGBA{0, 0, 0, 255}
	}
	v := TransferValue(c.Transfer, s.Nu)
	if c.IsHistogram() {
		v = histValue(c.Equal, s.Nu)
	}
	pos := PalettePosition(v, c.Density, c.Offset, len(p.Stops))
	i := 0
	if pos > 0 {
		i = int(min(pos, float64(len(p.Stops)-1)))
	}
	f := min(max(pos-float64(i), 0), 1)
	a, b := p.Stops[i], p.Stops[(i+1)%len(p.Stops)]
	k := c.Brightness(s)
	mix := func(x, y uint8) uint8 {
		return uint8(math.Floor((float64(x)*(1-f)+float64(y)*f)*k + 0.5))
	}
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// Brightness is the factor (0 to 1) by which c's method scales the palette colour of an
// escaped sample: 1 for smooth; for distance min(1, DE / LineWidth) (0 where the estimate is
// not a number); for slopes 1 - strength * (1 - n.l) / 2, n the normal and l the light's
// direction (a sample without a normal is lit as if n.l = 0); for angle and stripe
// angleBrightness and stripeBrightness.
func (c Coloring) Brightness(s Sample) float64 {
	switch MethodIndex(c.Method) {
	case 1:
		k := s.DE() / c.LineWidth()
		if !(k > 0) {
			return 0
		}
		return min(k, 1)
	case 2:
		lx, ly := c.LightDir()
		ur, ui := s.Normal()
		d := ur*lx + ui*ly
		if d != d { // NaN
			d = 0
		}
		d = min(max(d, -1), 1)
		return 1 - c.LightStrength()*(1-d)/2
	case 3:
		return angleBrightness(float64(s.T), c.LightStrength())
	case 4:
		return stripeBrightness(float64(s.Stripe), s.Nu, c.LightStrength())
	}
	return 1
}

// angleLine is the half-width of the angle colouring's field lines, in half turns of T.
const angleLine = 0.06

// angleBrightness is the angle colouring's factor for T = t at a strength: 1 - strength/2 in
// the cells with t in [1/2, 1) (binary decomposition), times a dip to 1 - strength on the
// cells' edges (t near 0 or 1/2: the field lines).
func angleBrightness(t, strength float64) float64 {
	k := 1.0
	if t >= 0.5 {
		k = 1 - strength/2
	}
	h := 2 * t
	if d := math.Abs(h - math.Floor(h+0.5)); d < angleLine {
		k *= 1 - strength*(1-d/angleLine)
	}
	return k
}

// stripeBrightness is the stripe colouring's factor for STRIPE = v at smooth count nu: 1 -
// strength (1 - v'), where v' is v drawn towards its mean 1/2 near the bands' edges (the
// count's fraction f near 0 or 1, where v jumps as the window of iterates moves by one), by
// the weight min(1, 6 f (1 - f)). The edges are where nu is whole for the radii 2^2^k (2, 4,
// 16, 256, 65536: log2 log2 R whole), of which 2 is the default.
func stripeBrightness(v, nu, strength float64) float64 {
	f := nu - math.Floor(nu)
	a := min(1, 6*f*(1-f))
	v = 0.5 + (v-0.5)*a
	return 1 - strength*(1-v)
}

// interiorStep is InteriorPeriod's move along the palette per period: 1 - 1/phi of a cycle,
// the step that keeps any run of periods' colours furthest apart.
const interiorStep = 0.3819660112501051

// InteriorColour is the colour of an inside sample under c's interior colouring with palette
// p (see InteriorPeriod and InteriorMultiplier): black for InteriorBlack, a sample without a
// period (its cycle not found) and an empty palette.
func (c Coloring) InteriorColour(p Palette, s Sample) color.RGBA {
	per, m := s.Period(), s.Multiplier()
	n := len(p.Stops)
	black := color.RGBA{0, 0, 0, 255}
	if per == 0 || n == 0 {
		return black
	}
	var t, k float64
	switch InteriorIndex(c.Interior) {
	case 1:
		t, k = float64(per)*interiorStep+c.Offset, 1-0.5*m
	case 2:
		t, k = m+c.Offset, 1
	default:
		return black
	}
	pos := (t - math.Floor(t)) * float64(n)
	i := min(int(pos), n-1)
	f := min(max(pos-float64(i), 0), 1)
	a, b := p.Stops[i], p.Stops[(i+1)%n]
	mix := func(x, y uint8) uint8 {
		return uint8(math.Floor((float64(x)*(1-f)+float64(y)*f)*k + 0.5))
	}
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}
