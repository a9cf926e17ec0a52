package app

import (
	"image/color"
	"testing"

	"mandelscope/fractal"
)

// Every zoom the window shows is written one way (issue 12 item 14 found five).
func TestFormatZoom(t *testing.T) {
	for _, c := range []struct {
		z    float64
		want string
	}{
		{1, "1"},
		{18.62645149230957, "18.63"},
		{300, "300"},
		{1.7777777777777777, "1.778"},
		{0.001, "0.001"},
		{9999.9, "1e4"},
		{62500, "6.25e4"},
		{1e8, "1e8"},
		{1e12, "1e12"},
		{1.5e12, "1.5e12"},
		{8.589934592e14, "8.59e14"},
		{1e300, "1e300"},
		{2.5e-4, "2.5e-4"},
	} {
		if got := formatZoom(c.z); got != c.want {
			t.Errorf("formatZoom(%v) = %q, want %q", c.z, got, c.want)
		}
	}
}

// The palette swatch shows a palette's own stops, and a black strip for an unknown name.
func TestPaletteSwatch(t *testing.T) {
	for _, name := range fractal.PaletteNames() {
		p, err := fractal.PaletteByName(name)
		if err != nil {
			t.Fatal(err)
		}
		img := paletteSwatch(name)
		b := img.Bounds()
		seen := map[color.RGBA]bool{}
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, 0).RGBA()
			seen[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}] = true
		}
		if len(seen) < 3 {
			t.Errorf("%s: swatch has %d colours", name, len(seen))
		}
		// The first stop appears at the left end, within interpolation of half a pixel.
		r, g, bl, _ := img.At(0, 0).RGBA()
		s := p.Stops[0]
		if d := absDiff(uint8(r>>8), s.R) + absDiff(uint8(g>>8), s.G) + absDiff(uint8(bl>>8), s.B); d > 60 {
			t.Errorf("%s: swatch starts at %v, the first stop is %v", name, img.At(0, 0), s)
		}
	}
	if r, g, b, _ := paletteSwatch("no such palette").At(10, 0).RGBA(); r|g|b != 0 {
		t.Error("an unknown palette's swatch is not black")
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
