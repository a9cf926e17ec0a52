package colour

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"mandelscope/internal/text"
)

// Limits of a gradient read from a file or a location (ParseGradient, ParseGradientText).
const (
	// MaxStops is the most colour stops a gradient has: the size of the GPU renderers'
	// palette array. It is also the size of the table a gradient with positions is drawn
	// through (Gradient.Table).
	MaxStops = 256
	// MaxGradientBytes bounds a gradient file (a Kalles Fraktaler .kfr included).
	MaxGradientBytes = 1 << 20
	// MaxGradientName bounds a gradient's name, in bytes.
	MaxGradientName = 64
	// MaxGradientText bounds the compact text form: MaxStops stops of at most
	// len("0.12345678901234567:#RRGGBB,") bytes, with room to spare.
	MaxGradientText = MaxStops * 40
)

// Gradient is a cyclic list of colour stops, the stops themselves (a Palette is what the
// renderers interpolate). Without positions (Pos nil) the stops are equally spaced around
// the cycle, stop i at i/len(Stops), as the built-in palettes' are; with positions, Pos[i]
// (0 to 1, never decreasing) places stop i, two stops at one position make a hard edge, and
// the colour runs from the last stop on to the first at 1 + Pos[0].
type Gradient struct {
	Stops []color.RGBA
	Pos   []float64
}

// A gradient file is UTF-8 text, one colour stop a line, in the order of the cycle:
//
//	# Sunset: a comment runs from a '#' followed by a space (or the line's end) to the line's end
//	0     #1A0A3C
//	0.4   #E0503C   # a stop: its position (0 to 1) and its colour
//	0.4   #FFD070   # the same position again: a hard edge
//	1     #1A0A3C
//
// Each stop is "#RRGGBB" (hexadecimal) or "POSITION #RRGGBB"; either every stop has a
// position or none has (then they are equally spaced). Positions never decrease. Blank lines
// are ignored; anything else is an error that names its line. Lines end in LF, CRLF or a lone
// CR (old Mac editors). A Kalles Fraktaler parameter or palette file (.kfr, .kfp) is read
// too: its "Colors: r,g,b,r,g,b,..." line gives equally spaced stops and the rest of the file
// is ignored, whatever its encoding (KF writes the Windows code page).

// ParseGradient reads a gradient file (see above) or a Kalles Fraktaler file's Colors line.
// The data is hostile until checked: at most MaxGradientBytes, UTF-8 (but for a KF file's
// other lines), 2 to MaxStops stops, positions finite, within 0 to 1 and in order. An error
// is one line that names the file's line and what is wrong there, and never quotes the
// file's text: the file may be any file at all (a link in the gradients folder to one the
// person never named), so that its content must not reach a message.
func ParseGradient(data []byte) (Gradient, error) {
	if len(data) > MaxGradientBytes {
		return Gradient{}, fmt.Errorf("the file is %d bytes, more than a gradient's %d", len(data), MaxGradientBytes)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.IndexByte(data, 0) >= 0 {
		return Gradient{}, errors.New("it is not a text file (it holds NUL bytes)")
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	lines := strings.Split(strings.ReplaceAll(text, "\r", "\n"), "\n")
	for i, l := range lines {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "Colors" {
			g, err := parseKFColors(v)
			if err != nil {
				return Gradient{}, fmt.Errorf("line %d (Kalles Fraktaler's Colors): %v", i+1, err)
			}
			return g, nil
		}
	}
	for i, l := range lines {
		if isSetting(stripComment(l)) {
			return Gradient{}, fmt.Errorf("line %d: a setting (NAME: VALUE), not a colour stop; a Kalles Fraktaler file (.kfr, .kfp) gives a gradient its \"Colors:\" line, and this file has none", i+1)
		}
	}
	if !utf8.ValidString(text) {
		return Gradient{}, errors.New("it is not a text file (not UTF-8)")
	}
	var g Gradient
	for i, l := range lines {
		fields := strings.Fields(stripComment(l))
		if len(fields) == 0 {
			continue
		}
		if len(fields) > 2 {
			return Gradient{}, fmt.Errorf("line %d: not a colour stop (\"#RRGGBB\" or \"POSITION #RRGGBB\"; comments start with \"# \")", i+1)
		}
		if err := g.add(fields[len(fields)-1], fields[:len(fields)-1], false); err != nil {
			return Gradient{}, fmt.Errorf("line %d: %v", i+1, err)
		}
	}
	if err := g.check(); err != nil {
		return Gradient{}, err
	}
	return g, nil
}

// isSetting reports whether a line is a "NAME: VALUE" setting, as Kalles Fraktaler's files
// hold ("Re: -0.75", "UseNanoMB1: 0"): a name of letters and digits starting with a letter,
// then a colon. No colour stop looks like one.
func isSetting(l string) bool {
	k, _, ok := strings.Cut(strings.TrimSpace(l), ":")
	if !ok || k == "" || !(k[0] >= 'a' && k[0] <= 'z' || k[0] >= 'A' && k[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// stripComment cuts a line at the first '#' that is followed by a space, a tab or the line's
// end (a colour's '#' is followed by its digits).
func stripComment(l string) string {
	for i := 0; i < len(l); i++ {
		if l[i] == '#' && (i+1 == len(l) || l[i+1] == ' ' || l[i+1] == '\t' || l[i+1] == '\r') {
			return l[:i]
		}
	}
	return l
}

// add appends a stop: its colour and, when pos holds one field, its position. With quote,
// the error shows the field that is wrong (a location's text, which the person typed or
// chose); without, it only says which (a file's text, never quoted: see ParseGradient).
func (g *Gradient) add(col string, pos []string, quote bool) error {
	if len(g.Stops) >= MaxStops {
		return fmt.Errorf("more than %d colour stops", MaxStops)
	}
	c, err := parseHexColour(col)
	if err != nil {
		if !quote {
			return errors.New("the colour is not #RRGGBB (six hexadecimal digits; a comment starts with \"# \")")
		}
		return err
	}
	switch {
	case len(pos) == 0 && len(g.Pos) > 0:
		return errors.New("this stop has no position but the ones before it have (give every stop a position, or none)")
	case len(pos) == 1 && len(g.Pos) < len(g.Stops):
		return errors.New("this stop has a position but the ones before it have none (give every stop a position, or none)")
	case len(pos) == 1:
		p, err := strconv.ParseFloat(pos[0], 64)
		if err != nil || !(p >= 0 && p <= 1) {
			if !quote {
				return errors.New("the position is not a number from 0 to 1")
			}
			return fmt.Errorf("position %q is not a number from 0 to 1", text.Clip(pos[0], 40))
		}
		if n := len(g.Pos); n > 0 && p < g.Pos[n-1] {
			return fmt.Errorf("position %s comes before the previous stop's %s (positions must not decrease)", formatFloat(p), formatFloat(g.Pos[n-1]))
		}
		g.Pos = append(g.Pos, p)
	}
	g.Stops = append(g.Stops, c)
	return nil
}

// check reports what is wrong with a whole gradient.
func (g Gradient) check() error {
	if len(g.Stops) < 2 {
		return fmt.Errorf("a gradient needs at least two colour stops, this one has %d", len(g.Stops))
	}
	if len(g.Stops) > MaxStops {
		return fmt.Errorf("a gradient has at most %d colour stops, this one has %d", MaxStops, len(g.Stops))
	}
	if g.Pos != nil {
		if len(g.Pos) != len(g.Stops) {
			return errors.New("every stop needs a position, or none")
		}
		for i, p := range g.Pos {
			if !(p >= 0 && p <= 1) || (i > 0 && p < g.Pos[i-1]) {
				return fmt.Errorf("stop %d: position %s is out of order or outside 0 to 1", i+1, formatFloat(p))
			}
		}
	}
	return nil
}

func parseHexColour(s string) (color.RGBA, error) {
	if len(s) != 7 || s[0] != '#' {
		return color.RGBA{}, fmt.Errorf("%q is not a colour #RRGGBB", text.Clip(s, 40))
	}
	v, err := strconv.ParseUint(s[1:], 16, 32)
	if err != nil {
		return color.RGBA{}, fmt.Errorf("%q is not a colour #RRGGBB", text.Clip(s, 40))
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}, nil
}

// parseKFColors reads Kalles Fraktaler's "r,g,b,r,g,b,...," (a trailing comma allowed).
func parseKFColors(v string) (Gradient, error) {
	parts := strings.Split(strings.TrimSpace(v), ",")
	if n := len(parts); n > 0 && strings.TrimSpace(parts[n-1]) == "" {
		parts = parts[:n-1]
	}
	if len(parts)%3 != 0 {
		return Gradient{}, fmt.Errorf("%d numbers, not a whole number of r,g,b triples", len(parts))
	}
	if len(parts)/3 > MaxStops {
		return Gradient{}, fmt.Errorf("%d colours, more than the %d a gradient holds", len(parts)/3, MaxStops)
	}
	var g Gradient
	for i := 0; i < len(parts); i += 3 {
		var rgb [3]uint8
		for j := range rgb {
			s := strings.TrimSpace(parts[i+j])
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n > 255 {
				return Gradient{}, fmt.Errorf("colour %d: not a whole number from 0 to 255", i/3+1)
			}
			rgb[j] = uint8(n)
		}
		g.Stops = append(g.Stops, color.RGBA{rgb[0], rgb[1], rgb[2], 255})
	}
	if err := g.check(); err != nil {
		return Gradient{}, err
	}
	return g, nil
}

// Text is the gradient's compact one-line form, the form a location stores it in
// (Coloring.Gradient): the stops joined by commas, each "#RRGGBB" or "POSITION:#RRGGBB"
// (upper-case digits, the position's shortest exact decimal), so that equal gradients have
// equal text. ParseGradientText reads it back exactly.
func (g Gradient) Text() string {
	var b strings.Builder
	for i, c := range g.Stops {
		if i > 0 {
			b.WriteByte(',')
		}
		if g.Pos != nil {
			b.WriteString(strconv.FormatFloat(g.Pos[i], 'g', -1, 64) + ":")
		}
		fmt.Fprintf(&b, "#%02X%02X%02X", c.R, c.G, c.B)
	}
	return b.String()
}

// ParseGradientText reads the compact form that Text writes (lower-case digits are read too),
// checked as ParseGradient checks a file.
func ParseGradientText(s string) (Gradient, error) {
	if len(s) > MaxGradientText {
		return Gradient{}, fmt.Errorf("gradient text of %d bytes is too long (at most %d)", len(s), MaxGradientText)
	}
	var g Gradient
	for i, part := range strings.Split(s, ",") {
		p, col, ok := strings.Cut(part, ":")
		var pos []string
		if ok {
			pos = []string{p}
		} else {
			col = p
		}
		if err := g.add(col, pos, true); err != nil {
			return Gradient{}, fmt.Errorf("gradient stop %d: %v", i+1, err)
		}
	}
	if err := g.check(); err != nil {
		return Gradient{}, fmt.Errorf("gradient: %v", err)
	}
	return g, nil
}

// File is the gradient as a gradient file (ParseGradient reads it back equal), with a
// comment line naming it first.
func (g Gradient) File(name string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Mandelscope gradient %s: one colour stop a line, [POSITION] #RRGGBB\n", name)
	for i, c := range g.Stops {
		if g.Pos != nil {
			fmt.Fprintf(&b, "%s ", strconv.FormatFloat(g.Pos[i], 'g', -1, 64))
		}
		fmt.Fprintf(&b, "#%02X%02X%02X\n", c.R, c.G, c.B)
	}
	return b.Bytes()
}

// At is the gradient's colour at t (0 to 1, taken modulo 1), interpolated linearly between
// the stops around it (cyclically), each channel rounded to the nearest integer.
func (g Gradient) At(t float64) color.RGBA {
	n := len(g.Stops)
	if n == 0 {
		return color.RGBA{0, 0, 0, 255}
	}
	t -= math.Floor(t)
	if !(t >= 0 && t < 1) {
		t = 0
	}
	pos := g.Pos
	if pos == nil {
		pos = make([]float64, n)
		for i := range pos {
			pos[i] = float64(i) / float64(n)
		}
	}
	var a, b color.RGBA
	var f float64
	if t < pos[0] || t >= pos[n-1] {
		a, b = g.Stops[n-1], g.Stops[0]
		if w := pos[0] + 1 - pos[n-1]; w > 0 {
			u := t
			if t < pos[0] {
				u = t + 1
			}
			f = (u - pos[n-1]) / w
		} else {
			a = b // first at 0, last at 1: t is never in the empty wrap
		}
	} else {
		i := 0
		for i+1 < n-1 && pos[i+1] <= t {
			i++
		}
		a, b = g.Stops[i], g.Stops[i+1]
		f = (t - pos[i]) / (pos[i+1] - pos[i])
	}
	f = min(max(f, 0), 1)
	mix := func(x, y uint8) uint8 { return uint8(math.Floor(float64(x)*(1-f) + float64(y)*f + 0.5)) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}

// Table is what the renderers interpolate for g (a Palette's Stops, equally spaced): the
// stops themselves when they are equally spaced, so that a built-in palette written as a
// file draws exactly as the built-in; with positions, MaxStops samples of the gradient
// (At(k / MaxStops)), so that a position acts to within 1/MaxStops of a cycle (a hard edge
// is a ramp that wide) and the GPU and the CPU draw it through the same table.
func (g Gradient) Table() []color.RGBA {
	if g.Pos == nil {
		return append([]color.RGBA(nil), g.Stops...)
	}
	out := make([]color.RGBA, MaxStops)
	for k := range out {
		out[k] = g.At(float64(k) / MaxStops)
	}
	return out
}

// ValidGradientName reports whether name may name a gradient: 1 to MaxGradientName bytes of
// ASCII letters, digits, '-', '_' and '.', not starting with '.', so that it is a file
// name (NAME.txt) everywhere and a word in a location's text form.
func ValidGradientName(name string) error {
	if name == "" || len(name) > MaxGradientName {
		return fmt.Errorf("gradient name %q must be 1 to %d characters", text.Clip(name, 40), MaxGradientName)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("gradient name %q may hold only letters a-z, digits, '-', '_' and '.'", text.Clip(name, 40))
		}
	}
	if name[0] == '.' {
		return fmt.Errorf("gradient name %q must not start with '.'", text.Clip(name, 40))
	}
	return nil
}

// gradientCache keeps the last gradient text a Coloring resolved, so that the tiles and
// strips of one image parse it once.
var gradientCache struct {
	sync.Mutex
	text string
	pal  Palette
}

// ColorPalette is the palette a colouring draws with: its Gradient's (by value) when it has
// one, named Palette, else the built-in palette named Palette. The Stops are shared: callers
// must not change them.
func (c Coloring) ColorPalette() (Palette, error) {
	if c.Gradient == "" {
		return PaletteByName(c.Palette)
	}
	gradientCache.Lock()
	defer gradientCache.Unlock()
	if gradientCache.text == c.Gradient {
		p := gradientCache.pal
		p.Name = c.Palette
		return p, nil
	}
	g, err := ParseGradientText(c.Gradient)
	if err != nil {
		return Palette{}, err
	}
	gradientCache.text, gradientCache.pal = c.Gradient, Palette{Name: c.Palette, Stops: g.Table()}
	return gradientCache.pal, nil
}

// WithGradient returns c drawing with g by value, under the name name.
func (c Coloring) WithGradient(name string, g Gradient) Coloring {
	c.Palette, c.Gradient = name, g.Text()
	return c
}

// validatePalette checks the palette fields: a built-in's name, or a valid gradient name
// and gradient text.
func (c Coloring) validatePalette() error {
	if c.Gradient == "" {
		_, err := PaletteByName(c.Palette)
		return err
	}
	if err := ValidGradientName(c.Palette); err != nil {
		return err
	}
	_, err := c.ColorPalette()
	return err
}
