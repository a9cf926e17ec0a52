package app

import (
	"image/color"
	"mandelscope/colour"
	"testing"
)

// The palette swatch shows a palette's own stops, and a black strip for an unknown name.
func TestPaletteSwatch(t *testing.T) {
	for _, name := range colour.PaletteNames() {
		p, err := colour.PaletteByName(name)
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
	if r, g, b, _ := paletteSwatch(colour.Palette{}).At(10, 0).RGBA(); r|g|b != 0 {
		t.Error("an unknown palette's swatch is not black")
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// A location with a gradient of the user's own shows that gradient's colours in the palette
// chooser, and choosing a built-in palette drops it.
func TestPaletteChooserShowsAGradient(t *testing.T) {
	w := newTestWindow(t)
	l := w.Location()
	l.Color.Palette, l.Color.Gradient = "mine", "#FF0000,#00FF00,#0000FF"
	w.SetLocation(l)
	if w.paletteBtn.Text != "mine" || w.paletteBtn.Icon == paletteIcon(colour.Coloring{Palette: "classic"}) {
		t.Fatalf("chooser shows %q", w.paletteBtn.Text)
	}
	p, err := l.Color.ColorPalette()
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := paletteSwatch(p).At(0, 0).RGBA(); r>>8 < 0xc0 || g>>8 > 0x40 || b>>8 > 0x40 {
		t.Errorf("the gradient's swatch starts at %x %x %x, want red", r>>8, g>>8, b>>8)
	}
	items := w.paletteMenu().Items
	for _, it := range items[:len(items)-1] {
		if it.Checked {
			t.Errorf("%q is checked while a gradient of the user's own is drawn", it.Label)
		}
	}
	// The gradient itself (not installed: the test's gradients folder is empty) is listed last
	// by its name, checked.
	if last := items[len(items)-1]; last.Label != "mine (this view's)" || !last.Checked {
		t.Errorf("the view's gradient is listed as %q (checked %v)", last.Label, last.Checked)
	}
	w.paletteMenu().Items[0].Action()
	if c := w.Location().Color; c.Gradient != "" || c.Palette != colour.PaletteNames()[0] {
		t.Errorf("after choosing a built-in: %+v", c)
	}
}
