package colour

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
)

// sampleMap is a Fractint map as Fractint writes them: 256 lines of "R G B", comments after
// the numbers on some lines (Fractint's own maps credit their author on the first lines).
func sampleMap() string {
	var b strings.Builder
	for i := 0; i < 256; i++ {
		fmt.Fprintf(&b, "%3d %3d %3d", i, 255-i, (i*7)%256)
		switch i {
		case 0:
			b.WriteString("  Altern.map by someone, 1993")
		case 1:
			b.WriteString("\tsmooth blues (caf\xe9)") // Latin-1 text in a comment
		}
		b.WriteString("\r\n")
	}
	return b.String()
}

func TestParseFractintMap(t *testing.T) {
	g, err := ParseFractintMap([]byte(sampleMap()))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Stops) != 256 || g.Pos != nil {
		t.Fatalf("%d stops, positions %v", len(g.Stops), g.Pos)
	}
	for i, c := range g.Stops {
		if want := (color.RGBA{uint8(i), uint8(255 - i), uint8(i * 7 % 256), 255}); c != want {
			t.Fatalf("stop %d: %v, want %v", i, c, want)
		}
	}
	// Fewer than 256 lines, blank and ';' lines, a lone CR and a trailing newline missing.
	g, err = ParseFractintMap([]byte("; a map\n0 0 0\n\n255 128 0 hot\r10 20 30"))
	if err != nil || g.Text() != "#000000,#FF8000,#0A141E" {
		t.Errorf("short map: %q %v", g.Text(), err)
	}
}

// sampleUGR holds two gradients as Ultra Fractal writes them (with opacity sections, a title
// holding braces and blanks, indices out of order and one past 399), and a comment entry.
const sampleUGR = `comment {
  Two gradients for the test.
}
Sunset-Glow {
gradient:
  title="Sunset {glow}" smooth=no rotation=0
  index=0 color=3947546
  index=200 color=4214848
  index=399 color=7376895
opacity:
  smooth=no index=0 opacity=255 index=399 opacity=255
}

blue moon {
gradient:
  title="Blue moon" smooth=yes
  index=300 color=16711680 index=100 color=65280
  index=-100 color=255 index=500 color=16777215
}
`

func TestParseUGR(t *testing.T) {
	list, err := ParseUGR([]byte(sampleUGR))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d gradients, want 2: %+v", len(list), list)
	}
	// color is blue<<16 | green<<8 | red: 3947546 = 0x3C3C1A is red 0x1A, green 0x3C, blue 0x3C.
	if a := list[0]; a.Name != "Sunset-Glow" || a.Line != 4 || a.Gradient.Text() != "0:#1A3C3C,0.5:#405040,0.9975:#FF8F70" {
		t.Errorf("first: %q line %d %q", a.Name, a.Line, a.Gradient.Text())
	}
	// Indices taken around the cycle of 400 (-100 is 300, 500 is 100) and sorted, equal
	// ones kept in the file's order (a hard edge).
	if b := list[1]; b.Name != "blue moon" || b.Line != 14 || b.Gradient.Text() != "0.25:#00FF00,0.25:#FFFFFF,0.75:#0000FF,0.75:#FF0000" {
		t.Errorf("second: %q line %d %q", b.Name, b.Line, b.Gradient.Text())
	}
	// A gradient of one colour is that colour throughout.
	one, err := ParseUGR([]byte("flat { gradient: index=7 color=255 }"))
	if err != nil || len(one) != 1 || one[0].Gradient.Text() != "0.0175:#FF0000,0.0175:#FF0000" {
		t.Errorf("one stop: %+v %v", one, err)
	}
	// Through ParsePaletteFile, by extension in any case.
	if l, err := ParsePaletteFile(".UGR", []byte(sampleUGR)); err != nil || len(l) != 2 {
		t.Errorf("ParsePaletteFile .UGR: %d %v", len(l), err)
	}
}

// TestParsePaletteFileKF: a Kalles Fraktaler palette (.kfp, as KF writes one: settings and
// its Colors line in the Windows code page) is read by ParsePaletteFile as ParseGradient
// reads it, with its validation.
func TestParsePaletteFileKF(t *testing.T) {
	kfp := "Colors: 255,255,255,128,0,64,0,10,20,\r\nInteriorColor: 0,0,0,\r\nSmooth: 1\r\nMultiColor: 0\r\nTitle: caf\xe9\r\n"
	l, err := ParsePaletteFile(".kfp", []byte(kfp))
	if err != nil || len(l) != 1 || l[0].Name != "" || l[0].Gradient.Text() != "#FFFFFF,#800040,#000A14" {
		t.Fatalf("kfp: %+v %v", l, err)
	}
	if _, err := ParsePaletteFile(".kfr", []byte("Re: 0\r\nColors: 1,2,3,4,5,300,\r\n")); err == nil || !strings.Contains(err.Error(), "line 2 (Kalles Fraktaler's Colors): colour 2: not a whole number from 0 to 255") {
		t.Errorf("kfr out of range: %v", err)
	}
}

// TestPaletteFileRefusals: every hostile or broken file is refused with one line that names
// its line (or gradient) and what is wrong, and never quotes the file's text.
func TestPaletteFileRefusals(t *testing.T) {
	const secret = "SECRETWORD"
	for _, c := range []struct {
		ext, data, want string
	}{
		{".map", "", "the file is empty"},
		{".map", " \n\r\n", "the file is empty"},
		{".map", "0 0 0\n1 2\n", "line 2: not a colour (three whole numbers R G B from 0 to 255)"},
		{".map", "0 0 0\n1 2 256\n", "line 2: the blue value 256 is outside 0 to 255"},
		{".map", "0 -1 0\n1 2 3\n", "line 1: the green value -1 is outside 0 to 255"},
		{".map", "0 0 0\n" + secret + " 2 3\n", "line 2: the red value is not a whole number from 0 to 255"},
		{".map", "0 0 0\n1.5 2 3\n", "line 2: the red value is not a whole number"},
		{".map", "0 0 0\n", "at least two colour stops, this one has 1"},
		{".map", strings.Repeat("1 2 3\n", 257), "line 257: more than 256 colours"},
		{".map", "0 0 0\n1 2\x00 3\n", "not a text file (it holds NUL bytes)"},
		{".map", "\x89PNG\r\n\x1a\n\x7f\x01\x02", "line 1: not a colour"},
		{".map", strings.Repeat("0 0 0 "+strings.Repeat("x", 1000)+"\n", MaxGradientBytes/1000), "more than the 1048576 a palette file may have"},
		{".ugr", "", "the file is empty"},
		{".ugr", "a { gradient: title=\"" + secret + "\" }", "gradient 1 (line 1): no colours"},
		{".ugr", "a { gradient: index=0 color=1 index=1 color=2 }\n\nb {\ngradient:\nopacity: index=0 color=5\n}", "gradient 2 (line 3): no colours"},
		{".ugr", "a { gradient: index=0 color=1 index=1 color=2 ", "gradient 1 (line 1): no '}' closes it"},
		{".ugr", "a { gradient: index=0 color=1 index=1 color=2 }\n}", "line 2: a '}' with no '{'"},
		{".ugr", "a { gradient: index=0 color=1\n b { index=1 color=2 } }", "line 2: gradient 1 (line 1): a '{' inside it"},
		{".ugr", "{ gradient: index=0 color=1 index=1 color=2 }", "line 1: a '{' with no gradient's name"},
		{".ugr", secret + "\na { }", "line 1: text outside a gradient"},
		{".ugr", "a { gradient: index=0 color=16777216 index=1 color=2 }", "line 1: gradient 1: a color that is not a whole number from 0 to 16777215"},
		{".ugr", "a { gradient: index=0 color=-1 index=1 color=2 }", "a color that is not a whole number"},
		{".ugr", "a {\ngradient:\nindex=0 color=" + secret + " }", "line 3: gradient 1: a color that is not a whole number"},
		{".ugr", "a { gradient: index=x color=1 }", "line 1: gradient 1: an index that is not a whole number"},
		{".ugr", "a { gradient: index=" + strings.Repeat("0", 70) + "1 color=1 index=2 color=3 }", "an index that is not a whole number"},
		{".ugr", "a { gradient: index=99999999999 color=1 }", "an index that is not a whole number"},
		{".ugr", "a { gradient: color=1 index=0 }", "a color with no index before it"},
		{".ugr", "a { gradient: index=0 index=1 color=1 }", "an index with no color after it"},
		{".ugr", "a { gradient: index=0 color=1 index=1\nopacity: }", "line 1: gradient 1: an index with no color after it"},
		{".ugr", "a { gradient: title=\"open\n index=0 color=1 }", "line 1: gradient 1: a quoted value is not closed"},
		{".ugr", "a { gradient: " + strings.Repeat("index=1 color=1 ", MaxStops+1) + "}", "line 1: gradient 1: more than 256 colours"},
		{".ugr", strings.Repeat("a { gradient: index=0 color=1 }\n", MaxPaletteGradients+1), "line 1001: more than 1000 gradients"},
		{".ugr", "a { gradient: index=0 color=1 \x00}", "not a text file"},
		{".ugr", "; just a comment\n", "it holds no gradient"},
		{".ugr", strings.Repeat("x", MaxPaletteFileBytes+1), "more than the 4194304"},
		{".txt", "", "at least two colour stops, this one has 0"},
	} {
		_, err := ParsePaletteFile(c.ext, []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), secret) {
			t.Errorf("%s %.60q: %v; want one line containing %q", c.ext, c.data, err, c.want)
		}
	}
}

// FuzzImportPalettes: whatever the bytes, ParsePaletteFile never panics, an error is one
// line, and what it accepts are gradients a location can hold (their text reads back equal).
// The seeds (testdata/fuzz/FuzzImportPalettes and those below) run as a normal test.
func FuzzImportPalettes(f *testing.F) {
	f.Add(uint8(0), []byte(sampleMap()))
	f.Add(uint8(1), []byte(sampleUGR))
	f.Add(uint8(2), []byte("Colors: 255,255,255,128,0,64,\r\n"))
	f.Add(uint8(1), []byte("a { gradient: index=0 color=1 index=1 color=2 } b { gradient: index=-5 color=16777215 }"))
	f.Add(uint8(1), []byte("a { gradient: title=\"}{\" index=0 color=1 }"))
	f.Add(uint8(0), []byte("0 0 0\n255 255 255 ; white\n"))
	f.Add(uint8(0), []byte("0 0 0\n1 2 256\n\x00"))
	f.Add(uint8(1), []byte("a { gradient: index=0 color=1\n b { index=1 color=2 } }"))
	f.Add(uint8(1), []byte("} a { gradient: index=99999999999 color=16777216 "))
	f.Add(uint8(1), []byte("; c\ncomment { x }\na { gradient: title=\"open\n index=0 color=1 }"))
	f.Add(uint8(2), []byte("Re: 0\r\nColors: 1,2,3,4,5,300,\r\n"))
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		ext := []string{".map", ".ugr", ".kfp", ".txt"}[int(kind)%4]
		list, err := ParsePaletteFile(ext, data)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("%s: error of more than one line: %q", ext, err)
			}
			return
		}
		if len(list) == 0 || len(list) > MaxPaletteGradients {
			t.Fatalf("%s: %d gradients", ext, len(list))
		}
		for _, n := range list {
			g := n.Gradient
			if err := g.check(); err != nil {
				t.Fatalf("%s: accepted a gradient that check refuses: %v", ext, err)
			}
			back, err := ParseGradientText(g.Text())
			if err != nil || back.Text() != g.Text() {
				t.Fatalf("%s: text %q reads back as %q, %v", ext, g.Text(), back.Text(), err)
			}
			if len(n.Name) > maxPaletteName {
				t.Fatalf("%s: a name of %d bytes", ext, len(n.Name))
			}
		}
	})
}
