package app

import (
	"image/color"
	"testing"

	"mandelscope/fractal"
)

// The palette swatch shows a palette's own stops, and a black strip for an unknown name.
func TestPaletteSwatch(t *testing.T) {
	for _, name := range fractal.PaletteNames() {
		p, err := fractal.PaletteByName(name)
		if err != nil {
			t.Fatal(err)
		}
		img := paletteSwatch(p)
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
	if r, g, b, _ := paletteSwatch(fractal.Palette{}).At(10, 0).RGBA(); r|g|b != 0 {
		t.Error("an unknown palette's swatch is not black")
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
