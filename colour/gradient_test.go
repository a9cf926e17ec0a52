package colour

import (
	"fmt"
	"image/color"
	"io/fs"
	"strings"
	"testing"

	"mandelscope/assets"
)

func rgb(v uint32) color.RGBA { return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255} }

func TestParseGradientFile(t *testing.T) {
	src := "\xef\xbb\xbf# Sunset\r\n\n0 #1a0a3c\n0.4\t#E0503C   # hot\r\n0.4 #FFD070\n1 #1A0A3C\n#\n"
	g, err := ParseGradient([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	wantStops := []color.RGBA{rgb(0x1A0A3C), rgb(0xE0503C), rgb(0xFFD070), rgb(0x1A0A3C)}
	wantPos := []float64{0, 0.4, 0.4, 1}
	if fmt.Sprint(g.Stops) != fmt.Sprint(wantStops) || fmt.Sprint(g.Pos) != fmt.Sprint(wantPos) {
		t.Fatalf("got %v %v, want %v %v", g.Stops, g.Pos, wantStops, wantPos)
	}
	// The text form and the file form read back equal.
	if txt := g.Text(); txt != "0:#1A0A3C,0.4:#E0503C,0.4:#FFD070,1:#1A0A3C" {
		t.Errorf("Text() = %q", txt)
	}
	for _, back := range []func() (Gradient, error){
		func() (Gradient, error) { return ParseGradientText(g.Text()) },
		func() (Gradient, error) { return ParseGradient(g.File("sunset")) },
	} {
		h, err := back()
		if err != nil {
			t.Fatal(err)
		}
		if h.Text() != g.Text() {
			t.Errorf("read back %q, want %q", h.Text(), g.Text())
		}
	}
	// Without positions: equally spaced, and the table is the stops themselves.
	e, err := ParseGradient([]byte("#000000\n#FF0000 # red\n#00ff00\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e.Pos != nil || len(e.Table()) != 3 || e.Text() != "#000000,#FF0000,#00FF00" {
		t.Errorf("unpositioned gradient: %v %v %q", e.Pos, e.Table(), e.Text())
	}
}

func TestParseGradientErrors(t *testing.T) {
	many := strings.Repeat("#101010\n", MaxStops+1)
	for _, c := range []struct{ src, want string }{
		{"#000000\n#zzzzzz\n", `line 2: the colour is not #RRGGBB`},
		{"#000000\n#comment\n", `line 2: the colour is not #RRGGBB (six hexadecimal digits; a comment starts with "# ")`},
		{"#000000\n", "at least two colour stops, this one has 1"},
		{"", "at least two"},
		{"0 #000000\n0.5 #111111 extra\n", "line 2: "},
		{"0 #000000\n#111111\n", "line 2: this stop has no position"},
		{"#000000\n0.5 #111111\n", "line 2: this stop has a position"},
		{"0.5 #000000\n0.2 #111111\n", "line 2: position 0.2 comes before the previous stop's 0.5"},
		{"0 #000000\n1.5 #111111\n", `line 2: the position is not a number from 0 to 1`},
		{"0 #000000\nNaN #111111\n", `line 2: the position is not a number from 0 to 1`},
		{"-0.1 #000000\n1 #111111\n", `line 1: the position is not`},
		{many, fmt.Sprintf("line %d: more than %d colour stops", MaxStops+1, MaxStops)},
		{"#000000\n\xff#111111\n", "not UTF-8"},
		{"#000000\n#FFFFFF\x00\n", "not a text file (it holds NUL bytes)"},
		{"Re: -0.75\r\nIm: 0\r\nZoom: 1E5\r\n", `line 1: a setting (NAME: VALUE), not a colour stop; a Kalles Fraktaler file (.kfr, .kfp) gives a gradient its "Colors:" line, and this file has none`},
		{"#000000\r0.5 #FFFFFF\r", "line 2: this stop has a position but the ones before it have none"},
		{strings.Repeat("#", MaxGradientBytes+1), "more than a gradient's"},
		{"Re: 0\nColors: 1,2,3,4,5,\n", "line 2 (Kalles Fraktaler's Colors): 5 numbers"},
		{"Colors: 1,2,3,4,5,256,\n", `colour 2: not a whole number from 0 to 255`},
		{"Colors: 1,2,3,\n", "at least two"},
		{"Colors: " + strings.Repeat("1,2,3,", MaxStops+1), "more than the 256"},
	} {
		_, err := ParseGradient([]byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.40q: error %v, want one line containing %q", c.src, err, c.want)
		}
	}
	for _, s := range []string{"", "#000000", "#000000,,#111111", "0:#000000,#111111", "0.5:#000000,0.1:#111111", "2:#000000,3:#111111", strings.Repeat("#000000,", 2000)} {
		if _, err := ParseGradientText(s); err == nil {
			t.Errorf("ParseGradientText(%.40q) accepted", s)
		}
	}
}

// TestParseGradientLineEnds: LF, CRLF and lone CR (old Mac editors) all end a line; a CR-only
// file was one line, read as a position "#000000" and a colour (or "not a stop").
func TestParseGradientLineEnds(t *testing.T) {
	for _, src := range []string{
		"#000000\n#FFFFFF\n#FF0000\n",
		"#000000\r\n#FFFFFF\r\n#FF0000\r\n",
		"#000000\r#FFFFFF\r#FF0000\r",
		"#000000\r#FFFFFF\n#FF0000",
		"# a comment\r#000000\r\r#FFFFFF # white\r#FF0000\r",
	} {
		g, err := ParseGradient([]byte(src))
		if err != nil || g.Text() != "#000000,#FFFFFF,#FF0000" {
			t.Errorf("%q: %q %v", src, g.Text(), err)
		}
	}
	if g, err := ParseGradient([]byte("0 #000000\r0.5 #FFFFFF\r")); err != nil || g.Text() != "0:#000000,0.5:#FFFFFF" {
		t.Errorf("positions, CR: %q %v", g.Text(), err)
	}
	// Line numbers count a CRLF once.
	if _, err := ParseGradient([]byte("#000000\r\n#FFFFFF\r\n#12345\r\n")); err == nil || !strings.HasPrefix(err.Error(), "line 3:") {
		t.Errorf("CRLF line number: %v", err)
	}
}

// TestParseGradientNeverQuotes: whatever is wrong with a file, the error names the line and
// never shows the file's text (a link in the gradients folder can point anywhere: the first
// line of /etc/shadow was echoed).
func TestParseGradientNeverQuotes(t *testing.T) {
	const secret = "s3cr3t"
	for _, src := range []string{
		"root:*:20228:0:99999:7:::\n",
		secret + "\n",
		"#" + secret + "\n",
		"#000000\n" + secret + " #FFFFFF\n",
		"0 #000000\n0.5 #" + secret + "\n",
		"#000000 #FFFFFF " + secret + "\n",
		"Colors: 1,2," + secret + ",\n",
		"#000000\n#FFFFFF\n" + secret + ": x\n",
		"#000000\n\xff" + secret + "\n",
	} {
		_, err := ParseGradient([]byte(src))
		if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "root") || strings.Contains(err.Error(), "20228") {
			t.Errorf("%q: %v", src, err)
		}
	}
	// A location's text (typed, or a bookmark's) still shows the stop that is wrong.
	if _, err := ParseGradientText("#000000,#GGGGGG"); err == nil || !strings.Contains(err.Error(), `"#GGGGGG" is not a colour`) {
		t.Errorf("text form: %v", err)
	}
}

// TestParseGradientKFRLatin1: a .kfr is read for its Colors line whatever the encoding of the
// lines it ignores (KF writes the Windows code page: one Latin-1 byte made it "not a text
// file"); a gradient file of our own must still be UTF-8.
func TestParseGradientKFRLatin1(t *testing.T) {
	src := "Re: -0.75\r\nIm: 0\r\nZoom: 1\r\nTitle: caf\xe9\r\nColors: 0,0,0,255,255,255,\r\n"
	if g, err := ParseGradient([]byte(src)); err != nil || g.Text() != "#000000,#FFFFFF" {
		t.Errorf("Latin-1 .kfr: %q %v", g.Text(), err)
	}
	if _, err := ParseGradient([]byte("# caf\xe9\n#000000\n#FFFFFF\n")); err == nil || !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("Latin-1 gradient file: %v", err)
	}
}

func TestParseGradientKFR(t *testing.T) {
	src := "Re: -0.75\r\nIm: 0.1\r\nZoom: 1E5\r\nColors: 255,255,255,128,0,64, 0,10,20,\r\nSmooth: 1\r\n"
	g, err := ParseGradient([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if g.Text() != "#FFFFFF,#800040,#000A14" {
		t.Errorf("KF colours read as %q", g.Text())
	}
}

// TestGradientAt checks the interpolation against values worked by hand, hard edges and the
// wrap from the last stop to the first.
func TestGradientAt(t *testing.T) {
	g, err := ParseGradientText("0.25:#000000,0.5:#C8C8C8,0.5:#FF0000,0.75:#0000FF")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		t    float64
		want uint32
	}{
		{0.25, 0x000000},
		{0.375, 0x646464},  // half way from black to grey 200
		{0.4999, 0xC8C8C8}, // just before the hard edge (199.84 rounds to 200)
		{0.5, 0xFF0000},    // on it: the later stop
		{0.625, 0x800080},  // red to blue: 127.5 rounds up
		{0.75, 0x0000FF},
		{0.0, 0x000080},   // the wrap, blue at 0.75 to black at 1.25: half way is 0
		{0.875, 0x0000BF}, // a quarter of the wrap from blue at 0.75: 191.25
		{1.25, 0x000000},  // taken modulo 1
		{-0.75, 0x000000},
	} {
		if got := g.At(c.t); got != rgb(c.want) {
			t.Errorf("At(%g) = %v, want %v", c.t, got, rgb(c.want))
		}
	}
	// First stop at 0 and last at 1: no wrap segment; just below 1 is the last stop's colour.
	h, _ := ParseGradientText("0:#000000,1:#FFFFFF")
	if got := h.At(0.5); got != rgb(0x808080) {
		t.Errorf("At(0.5) = %v", got)
	}
	if got := h.At(0); got != rgb(0) {
		t.Errorf("At(0) = %v", got)
	}
	tab := g.Table()
	if len(tab) != MaxStops || tab[MaxStops/2] != rgb(0xFF0000) || tab[MaxStops/4] != rgb(0) {
		t.Errorf("table: %d entries, [128] %v, [64] %v", len(tab), tab[MaxStops/2], tab[MaxStops/4])
	}
}

// TestBuiltinsAsGradients: every built-in palette file reads as an unpositioned gradient
// whose table is the palette's stops, so that it draws the same written as a user gradient.
func TestBuiltinsAsGradients(t *testing.T) {
	files, _ := fs.Glob(assets.Palettes, "palettes/*.txt")
	if len(files) < 4 {
		t.Fatalf("%d palette files", len(files))
	}
	for _, f := range files {
		data, _ := assets.Palettes.ReadFile(f)
		g, err := ParseGradient(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(f, "palettes/"), ".txt")
		p, _ := PaletteByName(name)
		if g.Pos != nil || fmt.Sprint(g.Table()) != fmt.Sprint(p.Stops) {
			t.Errorf("%s: gradient %v, palette %v", name, g.Table(), p.Stops)
		}
		c := Coloring{Density: 1}.WithGradient("mine", g)
		q, err := c.ColorPalette()
		if err != nil || fmt.Sprint(q.Stops) != fmt.Sprint(p.Stops) {
			t.Errorf("%s by value: %v %v", name, q.Stops, err)
		}
		b, _ := BuiltinGradient(name)
		if b.Text() != g.Text() {
			t.Errorf("BuiltinGradient(%s) = %q, want %q", name, b.Text(), g.Text())
		}
	}
}

func FuzzParseGradient(f *testing.F) {
	f.Add([]byte("0 #000000\n0.5 #FFFFFF # c\n"))
	f.Add([]byte("Colors: 1,2,3,4,5,6,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGradient(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		h, err := ParseGradientText(g.Text())
		if err != nil || h.Text() != g.Text() {
			t.Fatalf("text form %q reads back as %q, %v", g.Text(), h.Text(), err)
		}
		for _, x := range []float64{0, 0.3, 0.999} {
			g.At(x)
		}
	})
}

// BenchmarkColorPalette: resolving a 256-stop positioned gradient, as every Render call does
// (cached: the same text again; parse: a new text each time).
func BenchmarkColorPalette(b *testing.B) {
	var sb strings.Builder
	for i := range MaxStops {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "%g:#%02X%02X%02X", float64(i)/MaxStops, i, 255-i, i/2)
	}
	c := Coloring{Density: 1}.WithGradient("bench", mustParse(b, sb.String()))
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := c.ColorPalette(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			gradientCache.Lock()
			gradientCache.text = ""
			gradientCache.Unlock()
			if _, err := c.ColorPalette(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func mustParse(b *testing.B, s string) Gradient {
	g, err := ParseGradientText(s)
	if err != nil {
		b.Fatal(err)
	}
	return g
}
