package colour

import (
	"fmt"
	"image/color"
	"io/fs"
	"math"
	"sort"
	"strings"
	"sync"

	"mandelscope/assets"
	"mandelscope/internal/text"
)

// Palette is what the renderers draw with: a cyclic list of equally spaced colour stops,
// colours between them interpolated linearly (a Gradient's Table; see Coloring.ColorPalette).
type Palette struct {
	Name  string
	Stops []color.RGBA
}

var palettes = sync.OnceValues(loadPalettes)

func loadPalettes() (map[string]Palette, error) {
	out := map[string]Palette{}
	files, err := fs.Glob(assets.Palettes, "palettes/*.txt")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := assets.Palettes.ReadFile(f)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(strings.TrimPrefix(f, "palettes/"), ".txt")
		p, err := ParsePalette(name, data)
		if err != nil {
			return nil, err
		}
		out[name] = p
	}
	return out, nil
}

// ParsePalette reads a palette file, a gradient file (ParseGradient), into the palette the
// renderers draw (Gradient.Table).
func ParsePalette(name string, data []byte) (Palette, error) {
	g, err := ParseGradient(data)
	if err != nil {
		return Palette{Name: name}, fmt.Errorf("palette %s: %v", name, err)
	}
	return Palette{Name: name, Stops: g.Table()}, nil
}

// BuiltinGradient returns a built-in palette's stops as a Gradient (equally spaced), for
// exporting it as a file to edit.
func BuiltinGradient(name string) (Gradient, error) {
	p, err := PaletteByName(name)
	if err != nil {
		return Gradient{}, err
	}
	return Gradient{Stops: append([]color.RGBA(nil), p.Stops...)}, nil
}

// PaletteNames lists the built-in palettes, sorted.
func PaletteNames() []string {
	m, _ := palettes()
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// BuiltinNameFold returns the built-in palette whose name is name in any case ("Classic":
// "classic"), and whether there is one.
func BuiltinNameFold(name string) (string, bool) {
	for _, n := range PaletteNames() {
		if strings.EqualFold(n, name) {
			return n, true
		}
	}
	return "", false
}

// PaletteByName returns a built-in palette or an error naming the known ones.
func PaletteByName(name string) (Palette, error) {
	m, err := palettes()
	if err != nil {
		return Palette{}, err
	}
	p, ok := m[name]
	if !ok {
		return Palette{}, fmt.Errorf("unknown palette %q (known: %s)", text.Clip(name, 40), strings.Join(PaletteNames(), ", "))
	}
	return p, nil
}

// PalettePosition maps a smooth value to a position in the palette, in stops (0 <= pos <=
// stops; pos == stops only where rounding takes a fraction just below 1 up to 1): t = nu *
// density / 32 + offset cycles. GPU shaders compute the same expression. A t that is not
// finite (an overflow from values no valid location holds) maps to position 0.
func PalettePosition(nu, density, offset float64, stops int) float64 {
	t := nu*density/32 + offset
	t -= math.Floor(t)
	if !(t >= 0 && t <= 1) { // NaN, from an infinite t
		return 0
	}
	return t * float64(stops)
}

// Color returns the colour for a sample's smooth value under a colouring: the palette interpolated
// linearly and cyclically at PalettePosition. Inside points are black, and so is every
// point of a palette without stops. No input, however large, small or not a number, takes it
// outside the palette.
func (p Palette) Color(s Sample, c Coloring) color.RGBA {
	if s.Inside() || len(p.Stops) == 0 {
		return color.RGBA{0, 0, 0, 255}
	}
	pos := PalettePosition(s.Nu, c.Density, c.Offset, len(p.Stops))
	i := 0
	if pos > 0 { // a NaN pos stays at stop 0
		i = int(min(pos, float64(len(p.Stops)-1)))
	}
	f := min(max(pos-float64(i), 0), 1)
	a, b := p.Stops[i], p.Stops[(i+1)%len(p.Stops)]
	mix := func(x, y uint8) uint8 { return uint8(float64(x)*(1-f) + float64(y)*f + 0.5) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}
}
