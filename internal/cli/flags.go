package cli

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"mandelscope/colour"
	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/gradients"
	"mandelscope/internal/text"
	"mandelscope/internal/userfile"
)

// NewFlagSet returns the flag set of the command at path ("export", "bookmarks add"; "" for
// the window), whose help (helps) --help prints: it reports errors instead of printing usage
// and exiting (see ParseFlags). Nothing is written to the writer any more: Run prints the help
// on stdout (see helpError); the argument stays so that the callers need not change.
func NewFlagSet(path string, _ io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(strings.TrimSpace("mandelscope "+path), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {} // errors stay one line; Run prints the help for -h
	return fs
}

// ParseFlags parses args, turning flag errors into one-line usage errors. Flags may come
// before or after positional arguments ("probe 10,20 --zoom=5" works); it returns the
// positional arguments in order. A lone "--" ends the flags. An argument that starts with a
// minus sign and a digit or point ("-1,5", "-.5") is a negative number, so positional: no
// flag's name starts with one; as the value of a flag that takes one ("--offset -0.5") it
// stays that flag's value. -h or --help gives an error that is flag.ErrHelp, from which Run
// prints the flag set's help; a flag the set refuses (see refuse) is a usage error naming it.
func ParseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			return append(pos, args[1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' || isNumberStart(a[1]) {
			pos = append(pos, a)
			args = args[1:]
			continue
		}
		// One flag, with its value when it takes one and has no "=": parse just that.
		n := 1
		name := strings.TrimLeft(a, "-")
		if !strings.Contains(name, "=") && len(args) > 1 {
			if f := fs.Lookup(name); f != nil && !isBoolFlag(f) {
				n = 2
			}
		}
		if err := fs.Parse(args[:n]); err != nil {
			if err == flag.ErrHelp {
				return nil, helpError{fs}
			}
			return nil, UsageErr("%v", err)
		}
		name, _, _ = strings.Cut(name, "=")
		if why := refusal(fs, name); why != "" {
			return nil, UsageErr("--%s: %s", name, why)
		}
		args = args[n:]
	}
	return pos, nil
}

// isNumberStart reports whether c may follow a minus sign at the start of a number.
func isNumberStart(c byte) bool { return c >= '0' && c <= '9' || c == '.' }

// isBoolFlag reports whether f needs no value ("--force"), as the flag package decides.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagWasSet reports whether the named flag was given on the command line.
func flagWasSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// LocationFlags are the flags that say where to look: --formula, --power, --julia, --center,
// --zoom, --rotation, --iterations, --bailout, --stripe-density, --stripe-last, --palette, --gradient, --density, --offset, and the colouring: --colouring, --transfer, --interior,
// --line-width, --light, --light-strength, --colour-shader. Each is kept as text and checked by Apply.
type LocationFlags struct {
	fs                                                 *flag.FlagSet
	center, zoom, iterations, palette, density, off    string
	gradient, julia, formula, power                    string
	method, transfer, interior, width, light, strength string
	shader                                             string
	bailout, stripeDensity, stripeLast, rotation       string
}

// AddLocationFlags defines the location flags on fs.
func AddLocationFlags(fs *flag.FlagSet) *LocationFlags {
	lf := &LocationFlags{fs: fs}
	fs.StringVar(&lf.formula, "formula", "", "the formula z <- f(z)^D + c: "+strings.Join(fractal.FormulaNames(), ", ")+" (f the identity,\n(|Re z|, |Im z|) or the conjugate) (default mandelbrot)")
	fs.StringVar(&lf.power, "power", "", fmt.Sprintf("the formula's power D, 2 to %d (default 2)", fractal.MaxPower))
	fs.StringVar(&lf.julia, "julia", "", "the Julia set of c = RE,IM (decimal text of any length, each part within ±4): a pixel is z1 of\nthe orbit z <- z^2 + c; on a Mandelbrot view it shows that Julia set whole (centre 0, zoom 1) unless\n--center and --zoom say otherwise; off: the Mandelbrot set (a Julia view's centred at c) (default: the Mandelbrot set)")
	fs.StringVar(&lf.center, "center", "", "centre as RE,IM: decimal text of any length (default -0.5,0)")
	fs.StringVar(&lf.zoom, "zoom", "", "zoom: the image's shorter side spans 4/zoom (default 1)")
	fs.StringVar(&lf.rotation, "rotation", "", "turn the picture counter-clockwise by this many degrees (read as -180 to 180) (default 0)")
	fs.StringVar(&lf.iterations, "iterations", "", "maximum iterations (default: automatic for the zoom)")
	fs.StringVar(&lf.bailout, "bailout", "", "escape radius R, 2 to 1e10: a pixel escapes at the first |z| > R (a larger R gives smoother\nangle and stripe colourings) (default 2)")
	fs.StringVar(&lf.stripeDensity, "stripe-density", "", fmt.Sprintf("the STRIPE channel's density S, a whole number 1 to %d (default %d)", fractal.MaxStripeDensity, fractal.DefaultStripeDensity))
	fs.StringVar(&lf.stripeLast, "stripe-last", "", fmt.Sprintf("how many last iterates the STRIPE channel averages, 1 to %d (default %d)", fractal.MaxStripeLast, fractal.DefaultStripeLast))
	fs.StringVar(&lf.palette, "palette", "", "palette: "+strings.Join(colour.PaletteNames(), ", ")+", or the name of one of your gradients\n(mandelscope gradients list) (default classic)")
	fs.StringVar(&lf.gradient, "gradient", "", "a gradient file to colour with (one stop a line, [POSITION] #RRGGBB; or a Kalles Fraktaler .kfr/.kfp,\na Fractint .map, an Ultra Fractal .ugr of one gradient), stored by value with the view")
	fs.StringVar(&lf.density, "density", "", "palette density, colour cycles per 32 iterations, or auto: chosen from the view's escape counts\n(1 for views whose counts span a few hundred iterations, less at depth) (default auto)")
	fs.StringVar(&lf.off, "offset", "", "palette offset in cycles (default 0)")
	fs.StringVar(&lf.method, "colouring", "", "colouring: smooth (the palette at the escape count), distance (boundary lines of --line-width\npixels at any zoom, from the distance estimate), slopes (a relief from the derivative, lit from --light),\nangle (binary decomposition and field lines from the final angle), stripe (the stripe average)\nor histogram (the palette spread evenly over the picture's pixels by their counts) (default smooth)")
	fs.StringVar(&lf.shader, "colour-shader", "", "a colouring shader in Kalles Fraktaler's form: a GLSL file defining vec3 colour() with its accessors\n(getN, getNF, getT, getDE, getInterior, ...; docs/guide.md), run on OpenGL over the raw data; its text is stored with\nthe view; \"\" removes one (default none)")
	fs.StringVar(&lf.interior, "interior", "", "how the inside of the set is coloured: black, period (each component by the period of its\nattracting cycle) or multiplier (by the size of that cycle's multiplier) (default black)")
	fs.StringVar(&lf.transfer, "transfer", "", "transfer function of the escape count before the palette: linear, sqrt or log\n(sqrt and log keep deep views with huge iteration counts from turning to noise) (default linear)")
	fs.StringVar(&lf.width, "line-width", "", fmt.Sprintf("distance colouring: line width in pixels, %g to %g (default %g)", colour.MinWidth, colour.MaxWidth, colour.DefaultWidth))
	fs.StringVar(&lf.light, "light", "", fmt.Sprintf("slopes colouring: light direction in degrees anticlockwise from the upper left, -%d to %d (default 0)", colour.MaxLight, colour.MaxLight))
	fs.StringVar(&lf.strength, "light-strength", "", fmt.Sprintf("slopes colouring: strength of the lighting, %g to %g (default %g)", colour.MinStrength, colour.MaxStrength, colour.DefaultStrength))
	return lf
}

// WindowFlags are the window's flags: the location flags, --renderer and --size.
type WindowFlags struct {
	Location       *LocationFlags
	Renderer, Size *string
}

// AddWindowFlags defines the window's flags on fs (the window parses them; `mandelscope
// --help` lists them).
func AddWindowFlags(fs *flag.FlagSet) WindowFlags {
	return WindowFlags{
		Location: AddLocationFlags(fs),
		Renderer: fs.String("renderer", "auto", "renderer: auto (GPU, falling back to the CPU), gpu or cpu"),
		Size:     fs.String("size", "", "initial view size WxH in screen units (default 1280x800, or the last session's)"),
	}
}

// viewFlags are the location flags that place the view; colourFlags the rest, the colouring.
var (
	viewFlags   = []string{"formula", "power", "julia", "center", "zoom", "rotation", "iterations", "bailout", "stripe-density", "stripe-last"}
	colourFlags = []string{"palette", "gradient", "density", "offset", "colouring", "transfer", "interior", "line-width", "light", "light-strength", "colour-shader"}
)

// AutoIterations reports whether the iterations are automatic: --zoom given without
// --iterations. A command that draws the view then counts them as the window does
// (preview.AutoCount), from the picture's escape counts, not from the zoom alone.
func (lf *LocationFlags) AutoIterations() bool {
	return flagWasSet(lf.fs, "zoom") && !flagWasSet(lf.fs, "iterations")
}

// Apply returns base with every given location flag applied, validated; each error names
// its flag. --formula and --power change the formula (the centre and zoom stay: the same
// place in the other set). When --zoom is given without --iterations and autoIter is true, the iterations
// follow the zoom (fractal.AutoIterations). --julia comes first: on a Mandelbrot base it
// makes the view that Julia set seen whole (fractal.Location.JuliaAt), on a Julia base it
// changes the parameter only; --julia=off makes a Julia base the Mandelbrot set centred at its
// parameter (fractal.Location.Mandelbrot); --center and --zoom then apply as given.
func (lf *LocationFlags) Apply(base fractal.Location, autoIter bool) (fractal.Location, error) {
	l, err := lf.applySet(base)
	if err != nil {
		return base, err
	}
	if flagWasSet(lf.fs, "center") {
		re, im, err := parseCenter(lf.center)
		if err != nil {
			return l, UsageErr("--center: %v", err)
		}
		l.Re, l.Im = re, im
	}
	if flagWasSet(lf.fs, "zoom") {
		z, err := parseZoom(lf.zoom)
		if err != nil {
			return l, UsageErr("--zoom: %v", err)
		}
		l.Zoom = z
		if autoIter && !flagWasSet(lf.fs, "iterations") {
			l.Iterations = fractal.Location{Zoom: z}.AutoIterations()
		}
	}
	if flagWasSet(lf.fs, "rotation") {
		r, err := fractal.ParseRotation(lf.rotation)
		if err != nil {
			return l, UsageErr("--rotation: %v", err)
		}
		l.Rotation = r
	}
	if flagWasSet(lf.fs, "iterations") {
		n, err := fractal.ParseIterations(lf.iterations)
		if err != nil {
			return l, UsageErr("--iterations: %v", err)
		}
		l.Iterations = n
	}
	if err := lf.applyOrbit(&l); err != nil {
		return l, err
	}
	if flagWasSet(lf.fs, "palette") && flagWasSet(lf.fs, "gradient") {
		return l, UsageErr("--palette and --gradient: give one of them")
	}
	if flagWasSet(lf.fs, "palette") {
		c, err := resolvePalette(l.Color, lf.palette)
		if err != nil {
			return l, UsageErr("--palette: %v", err)
		}
		l.Color = c
	}
	if flagWasSet(lf.fs, "gradient") {
		list, err := gradients.ReadImport(lf.gradient)
		if err != nil {
			return l, UsageErr("--gradient: %v", err)
		}
		if len(list) > 1 {
			return l, UsageErr("--gradient: %s holds %d gradients: import them (mandelscope gradients import) and choose one with --palette=NAME", lf.gradient, len(list))
		}
		l.Color = l.Color.WithGradient(list[0].Name, list[0].Gradient)
	}
	if flagWasSet(lf.fs, "density") {
		c := l.Color
		if err := c.SetDensityText(lf.density); err != nil || !c.AutoDensity && !(c.Density >= colour.MinDensity && c.Density <= colour.MaxDensity) {
			return l, UsageErr("--density: %q must be auto or a number from %g to %g", text.Clip(lf.density, 40), colour.MinDensity, colour.MaxDensity)
		}
		l.Color = c
	}
	if flagWasSet(lf.fs, "offset") {
		o, err := strconv.ParseFloat(lf.off, 64)
		if err != nil || !(o >= -colour.MaxOffset && o <= colour.MaxOffset) {
			return l, UsageErr("--offset: %q must be a number from -%g to %g", text.Clip(lf.off, 40), colour.MaxOffset, colour.MaxOffset)
		}
		l.Color.Offset = o
	}
	if err := lf.applyMethod(&l.Color); err != nil {
		return l, err
	}
	for _, p := range []struct {
		name, text string
		lo, hi     float64
		dst        *float64
	}{
		{"line-width", lf.width, colour.MinWidth, colour.MaxWidth, &l.Color.Width},
		{"light", lf.light, -colour.MaxLight, colour.MaxLight, &l.Color.Light},
		{"light-strength", lf.strength, colour.MinStrength, colour.MaxStrength, &l.Color.Strength},
	} {
		if !flagWasSet(lf.fs, p.name) {
			continue
		}
		v, err := strconv.ParseFloat(p.text, 64)
		if err != nil || !(v >= p.lo && v <= p.hi) {
			return l, UsageErr("--%s: %q must be a number from %g to %g", p.name, text.Clip(p.text, 40), p.lo, p.hi)
		}
		*p.dst = v
	}
	l.Color = l.Color.Canonical()
	if err := l.Validate(); err != nil {
		return l, UsageErr("%v", err)
	}
	return l, nil
}

// applyOrbit applies --bailout, --stripe-density and --stripe-last, each error naming its
// flag.
func (lf *LocationFlags) applyOrbit(l *fractal.Location) error {
	var err error
	if flagWasSet(lf.fs, "bailout") {
		if l.Bailout, err = fractal.ParseBailout(lf.bailout); err != nil {
			return UsageErr("--bailout: %v", err)
		}
	}
	if flagWasSet(lf.fs, "stripe-density") {
		if l.StripeDensity, err = fractal.ParseStripeDensity(lf.stripeDensity); err != nil {
			return UsageErr("--stripe-density: %v", err)
		}
	}
	if flagWasSet(lf.fs, "stripe-last") {
		if l.StripeLast, err = fractal.ParseStripeLast(lf.stripeLast); err != nil {
			return UsageErr("--stripe-last: %v", err)
		}
	}
	return nil
}

// applySet applies the flags that choose the set, --formula, --power and --julia (see
// Apply), each error naming its flag.
func (lf *LocationFlags) applySet(l fractal.Location) (fractal.Location, error) {
	if flagWasSet(lf.fs, "formula") {
		k, err := fractal.ParseFormulaKind(lf.formula)
		if err != nil {
			return l, UsageErr("--formula: %v", err)
		}
		l.Formula.Kind = k
	}
	if flagWasSet(lf.fs, "power") {
		d, err := fractal.ParsePower(lf.power)
		if err == nil {
			l.Formula, err = l.Formula.WithPower(d)
		}
		if err != nil {
			return l, UsageErr("--power: %v", err)
		}
	}
	if flagWasSet(lf.fs, "julia") {
		j, err := applyJulia(l, lf.julia)
		if err != nil {
			return l, UsageErr("--julia: %v", err)
		}
		l = j
	}
	return l, nil
}

// applyJulia applies a --julia value to l: "off" (any case, spaces around it allowed) for the
// Mandelbrot set, else a parameter RE,IM (fractal.ParseJulia).
func applyJulia(l fractal.Location, s string) (fractal.Location, error) {
	if strings.EqualFold(strings.TrimSpace(s), "off") {
		return l.Mandelbrot(), nil
	}
	j, err := fractal.ParseJulia(s)
	if err != nil {
		return l, err
	}
	if l.IsJulia() {
		l.Julia = j
		return l, nil
	}
	return l.JuliaAt(j.Re, j.Im), nil
}

// parseCenter reads "RE,IM" into exact decimals, each within ±fractal.MaxCentre.
func parseCenter(s string) (re, im fractal.Decimal, err error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 {
		return re, im, fmt.Errorf("%q must be two numbers RE,IM (got %d parts)", text.Clip(s, 40), len(parts))
	}
	re, err = fractal.ParseDecimal(parts[0])
	if err != nil {
		return re, im, fmt.Errorf("real part: %v", err)
	}
	im, err = fractal.ParseDecimal(parts[1])
	if err != nil {
		return re, im, fmt.Errorf("imaginary part: %v", err)
	}
	for _, d := range []fractal.Decimal{re, im} {
		if !d.AbsWithin(fractal.MaxCentre) {
			return re, im, fmt.Errorf("%s is out of range (each part within ±%g)", text.Clip(d.String(), 40), fractal.MaxCentre)
		}
	}
	return re, im, nil
}

// parseZoom reads a zoom: a positive decimal within [fractal.MinZoom, fractal.MaxZoom].
func parseZoom(s string) (fractal.Decimal, error) {
	z, err := fractal.ParseDecimal(s)
	if err != nil {
		return z, err
	}
	v := z.Exp()       // beyond float64 too: 1e1086, 4.00000000000E533
	if v.Sign() <= 0 { // 1e-999 is positive, below the range
		return z, fmt.Errorf("%s must be positive", text.Clip(s, 40))
	}
	if fractal.CheckZoom(z) != nil {
		return z, fmt.Errorf("%s is out of range (%g to %s)", text.Clip(s, 40), fractal.MinZoom, fractal.MaxZoom)
	}
	return z, nil
}

// parseSize reads "WxH" or a preset name (1080p, 4k, 8k, 16k, 32k): export.ParseSize, the one
// definition of the presets and the size limits (each side 1 to export.MaxSide).
func parseSize(s string) (w, h int, err error) { return export.ParseSize(s) }

// resolvePalette applies a --palette name: a built-in palette, else one of the user's
// gradients (gradients.Dir), by value.
func resolvePalette(c colour.Coloring, name string) (colour.Coloring, error) {
	if _, err := colour.PaletteByName(name); err == nil {
		c.Palette, c.Gradient = name, ""
		return c, nil
	}
	dir, err := gradients.Dir()
	if err != nil {
		return c, err
	}
	return gradients.Resolve(c, dir, name)
}

// applyMethod applies --colouring, --colour-shader, --transfer and --interior, where given, to c.
func (lf *LocationFlags) applyMethod(c *colour.Coloring) error {
	if flagWasSet(lf.fs, "colouring") {
		if colour.MethodIndex(lf.method) < 0 {
			return UsageErr("--colouring: unknown colouring %q (%s)", text.Clip(lf.method, 40), strings.Join(colour.Methods, ", "))
		}
		c.Method = lf.method
	}
	if flagWasSet(lf.fs, "colour-shader") {
		sh, err := readShaderFlag(lf.shader)
		if err != nil {
			return err
		}
		c.Shader = sh
	}
	if flagWasSet(lf.fs, "transfer") {
		if colour.TransferIndex(lf.transfer) < 0 {
			return UsageErr("--transfer: unknown transfer function %q (%s)", text.Clip(lf.transfer, 40), strings.Join(colour.Transfers, ", "))
		}
		c.Transfer = lf.transfer
	}
	if flagWasSet(lf.fs, "interior") {
		if colour.InteriorIndex(lf.interior) < 0 {
			return UsageErr("--interior: unknown interior colouring %q (%s)", text.Clip(lf.interior, 40), strings.Join(colour.Interiors, ", "))
		}
		c.Interior = lf.interior
		if c.Interior == colour.InteriorBlack {
			c.Interior = ""
		}
	}
	return nil
}

// readShaderFlag reads --colour-shader's file: its text, checked (colour.ReadShaderText); ""
// for "" (no shader).
func readShaderFlag(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := userfile.ReadFile(path, colour.MaxShaderBytes)
	if err != nil {
		return "", UsageErr("--colour-shader: %v", err)
	}
	text, err := colour.ReadShaderText(path, b)
	if err != nil {
		return "", UsageErr("--colour-shader: %v", err)
	}
	return text, nil
}
