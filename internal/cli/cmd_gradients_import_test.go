package cli

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/gradients"
)

// twoUGR is an Ultra Fractal gradient file of two gradients (with an opacity section and a
// title of blanks and braces), one of them named as a built-in palette is.
const twoUGR = `Sunset-Glow {
gradient:
  title="Sunset {glow}" smooth=no
  index=0 color=3947546 index=200 color=4214848 index=399 color=7376895
opacity:
  smooth=no index=0 opacity=255
}
fire {
gradient:
  index=100 color=255 index=300 color=16711680
}
`

// TestGradientsImportForeign: `gradients import` reads a Fractint .map (with comments), every
// gradient of an Ultra Fractal .ugr (each under its own name; a built-in's name gets
// -imported and the output says why) and a Kalles Fraktaler palette; the stops kept are the
// file's, and an export with --palette=NAME draws with them.
func TestGradientsImportForeign(t *testing.T) {
	dir := grDir(t)
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A map of one colour (but for the comments): every escaping pixel is that colour.
	var m strings.Builder
	for i := 0; i < 256; i++ {
		fmt.Fprintf(&m, "%d %d %d", 37, 99, 201)
		if i < 3 {
			m.WriteString("   Fractint map by a test, line " + fmt.Sprint(i))
		}
		m.WriteString("\n")
	}
	mapFile := write("Deep Blue.map", m.String())
	code, out, errs := gr("import", mapFile)
	if code != 0 || out != fmt.Sprintf("imported Deep-Blue (256 stops) into %s: use --palette=Deep-Blue\n", dir) {
		t.Fatalf("import .map: %d %q %q", code, out, errs)
	}
	g, err := gradients.Load(dir, "Deep-Blue")
	if err != nil || len(g.Stops) != 256 || g.Stops[0] != (color.RGBA{37, 99, 201, 255}) || g.Stops[255] != g.Stops[0] {
		t.Fatalf("kept map: %d stops %v", len(g.Stops), err)
	}
	img := filepath.Join(tmp, "map.png")
	mustExport(t, "--renderer=cpu", "--center=-0.75,0", "--zoom=1", "--size=60x40", "--palette=Deep-Blue", "-o", img)
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	pic, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if r, gg, b, _ := pic.At(0, 0).RGBA(); r>>8 != 37 || gg>>8 != 99 || b>>8 != 201 {
		t.Errorf("the corner (outside the set) is %d,%d,%d, not the map's 37,99,201", r>>8, gg>>8, b>>8)
	}

	// --gradient=FILE takes a .map directly: the same picture.
	img2 := filepath.Join(tmp, "map2.png")
	mustExport(t, "--renderer=cpu", "--center=-0.75,0", "--zoom=1", "--size=60x40", "--gradient="+mapFile, "-o", img2)
	if !bytes.Equal(readFile(t, img), readFile(t, img2)) {
		t.Error("--gradient=Deep Blue.map and --palette=Deep-Blue differ")
	}

	ugr := write("library.ugr", twoUGR)
	if code, _, errs := exportCmd("--renderer=cpu", "--size=60x40", "--gradient="+ugr, "-o", filepath.Join(tmp, "x.png")); code != 2 ||
		errs != "mandelscope export: --gradient: "+ugr+" holds 2 gradients: import them (mandelscope gradients import) and choose one with --palette=NAME\n" {
		t.Errorf("--gradient of a .ugr of two: %d %q", code, errs)
	}
	code, out, errs = gr("import", ugr)
	want := fmt.Sprintf("imported Sunset-Glow (3 stops) into %s: use --palette=Sunset-Glow\n"+
		"imported fire-imported (2 stops) into %s: use --palette=fire-imported (named so: fire is a built-in palette)\n", dir, dir)
	if code != 0 || out != want {
		t.Fatalf("import .ugr: %d %q %q, want %q", code, out, errs, want)
	}
	for name, stops := range map[string]string{
		"Sunset-Glow":   "0:#1A3C3C,0.5:#405040,0.9975:#FF8F70",
		"fire-imported": "0.25:#FF0000,0.75:#0000FF",
	} {
		if g, err := gradients.Load(dir, name); err != nil || g.Text() != stops {
			t.Errorf("%s kept as %q %v, want %q", name, g.Text(), err, stops)
		}
	}
	// --palette=Sunset-Glow draws as a gradient file of the same stops does.
	same := write("Sunset-Glow.txt", "0 #1A3C3C\n0.5 #405040\n0.9975 #FF8F70\n")
	view := []string{"--renderer=cpu", "--center=-0.7453,0.1127", "--zoom=180", "--size=90x60"}
	a, b := filepath.Join(tmp, "a.png"), filepath.Join(tmp, "b.png")
	mustExport(t, append(view, "--palette=Sunset-Glow", "-o", a)...)
	mustExport(t, append(view, "--gradient="+same, "-o", b)...)
	if !bytes.Equal(readFile(t, a), readFile(t, b)) {
		t.Error("--palette=Sunset-Glow (imported from a .ugr) and --gradient of its stops differ")
	}

	// Again: both names are taken, nothing is written, and --force replaces both.
	before := readFile(t, filepath.Join(dir, "Sunset-Glow.txt"))
	os.WriteFile(filepath.Join(dir, "fire-imported.txt"), []byte("#000000\n#FFFFFF\n"), 0o644)
	code, _, errs = gr("import", ugr)
	if code == 0 || errs != fmt.Sprintf("mandelscope gradients: 2 gradients already exist in %s: Sunset-Glow, fire-imported (use --force to replace them; nothing was imported)\n", dir) {
		t.Errorf("import over: %d %q", code, errs)
	}
	if g, _ := gradients.Load(dir, "fire-imported"); g.Text() != "#000000,#FFFFFF" || !bytes.Equal(before, readFile(t, filepath.Join(dir, "Sunset-Glow.txt"))) {
		t.Error("a refused import changed a gradient")
	}
	if code, _, errs := gr("import", "--force", ugr); code != 0 {
		t.Errorf("import --force: %d %q", code, errs)
	}
	if g, _ := gradients.Load(dir, "fire-imported"); g.Text() != "0.25:#FF0000,0.75:#0000FF" {
		t.Errorf("--force did not replace fire-imported: %q", g.Text())
	}
	// NAME names the gradient of a file of one, and is refused for a file of several.
	kfp := write("warm.kfp", "Colors: 255,255,255,128,0,64,0,10,20,\r\nSmooth: 1\r\n")
	if code, out, errs := gr("import", kfp, "embers"); code != 0 || !strings.HasPrefix(out, "imported embers (3 stops)") {
		t.Errorf("import .kfp NAME: %d %q %q", code, out, errs)
	}
	if g, _ := gradients.Load(dir, "embers"); g.Text() != "#FFFFFF,#800040,#000A14" {
		t.Errorf("kfp kept as %q", g.Text())
	}
	if code, _, errs := gr("import", ugr, "mine"); code != 2 || errs != "mandelscope gradients: "+ugr+" holds 2 gradients: leave NAME out and each is kept under its own name\n" {
		t.Errorf("NAME for a .ugr of two: %d %q", code, errs)
	}
}

// TestGradientsImportRefusals: a hostile palette file is refused with one line naming the file
// and its line or gradient, never its text, and nothing is written.
func TestGradientsImportRefusals(t *testing.T) {
	dir := grDir(t)
	tmp := t.TempDir()
	const secret = "SECRETWORD"
	for _, c := range []struct {
		name, text, want string
	}{
		{"empty.map", "", ": the file is empty"},
		{"range.map", "0 0 0\n0 300 0\n", ": line 2: the green value 300 is outside 0 to 255"},
		{"word.map", "0 0 0\n" + secret + " 0 0\n", ": line 2: the red value is not a whole number from 0 to 255"},
		{"long.map", strings.Repeat("1 2 3\n", 300), ": line 257: more than 256 colours"},
		{"binary.map", "\x00\x01" + secret, ": it is not a text file (it holds NUL bytes)"},
		{"huge.map", strings.Repeat("0 0 0\n", (1<<20)/6+1), " is larger than 1 MiB"},
		{"nocol.ugr", "a {\ngradient:\n title=\"" + secret + "\"\n}\n", ": gradient 1 (line 1): no colours"},
		{"open.ugr", "a { gradient: index=0 color=1 index=5 color=2\n", ": gradient 1 (line 1): no '}' closes it (the braces do not pair)"},
		{"close.ugr", "}\n", ": line 1: a '}' with no '{' before it"},
		{"stops.ugr", "a { gradient: " + strings.Repeat("index=1 color=2 ", 300) + "}", ": line 1: gradient 1: more than 256 colours"},
		{"huge.ugr", strings.Repeat(" ", 4<<20+1), " is larger than 4 MiB"},
	} {
		p := filepath.Join(tmp, c.name)
		os.WriteFile(p, []byte(c.text), 0o644)
		code, out, errs := gr("import", p)
		if code != 1 || out != "" || !strings.Contains(errs, p+c.want) || strings.Contains(errs, secret) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d %q; want one line with %q", c.name, code, errs, p+c.want)
		}
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Errorf("a refused import wrote %v", des)
	}
}
