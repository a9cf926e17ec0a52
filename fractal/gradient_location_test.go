package fractal

import (
	"image/color"
	"mandelscope/colour"
	"strings"
	"testing"
)

func TestLocationGradient(t *testing.T) {
	l := Home()
	l.Color = l.Color.WithGradient("sunset", colour.Gradient{Stops: []color.RGBA{rgb(0x102030), rgb(0xFFEEDD)}, Pos: []float64{0.1, 0.6}})
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	s := l.String()
	if !strings.HasSuffix(s, " palette=sunset density=auto offset=0 gradient=0.1:#102030,0.6:#FFEEDD") {
		t.Errorf("text form %q", s)
	}
	back, err := ParseLocationText(s, Home())
	if err != nil || back != l {
		t.Fatalf("read back %+v, %v; want %+v", back.Color, err, l.Color)
	}
	// Lower-case text reads as the canonical form.
	back, err = ParseLocationText(strings.Replace(s, "#FFEEDD", "#ffeedd", 1), Home())
	if err != nil || back != l {
		t.Errorf("lower case: %+v, %v", back.Color, err)
	}
	// A palette named alone is the built-in, whatever the base had.
	back, err = ParseLocationText("palette=fire", l)
	if err != nil || back.Color.Gradient != "" || back.Color.Palette != "fire" {
		t.Errorf("palette=fire over a gradient: %+v, %v", back.Color, err)
	}
	// A default location's text is as it was.
	if strings.Contains(Home().String(), "gradient") {
		t.Error("the default location's text names a gradient")
	}
	for _, bad := range []string{
		"gradient=#000000",
		"gradient=0:#000000,2:#FFFFFF",
		"palette=a/b gradient=#000000,#FFFFFF",
		"palette=.x gradient=#000000,#FFFFFF",
	} {
		if _, err := ParseLocationText(bad, l); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	c := l.Color
	c.Gradient = "0.1:#102030,0.6:#ffeedd"
	if c.Canonical() != l.Color {
		t.Errorf("Canonical() = %+v", c.Canonical())
	}
}
func rgb(v uint32) color.RGBA { return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255} }
