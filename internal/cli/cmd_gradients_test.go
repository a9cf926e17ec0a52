package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/bookmarks"
	"mandelscope/colour"
	"mandelscope/export"
	"mandelscope/gradients"
)

// gr runs `mandelscope gradients ARGS` in-process.
func gr(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Run(append([]string{"gradients"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// grDir points the gradients commands at a fresh folder under XDG_CONFIG_HOME, as a user's
// config folder (MANDELSCOPE_GRADIENTS unset).
func grDir(t *testing.T) string {
	t.Helper()
	conf := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", conf)
	t.Setenv("HOME", conf)
	t.Setenv(gradients.EnvDir, "")
	return filepath.Join(conf, "mandelscope", "gradients")
}

const sunsetFile = "# Sunset\n0 #1A0A3C\n0.4 #E0503C # hot\n0.4 #FFD070\n1 #1A0A3C\n"

func TestGradientsCLI(t *testing.T) {
	dir := grDir(t)
	src := filepath.Join(t.TempDir(), "Sun set.txt")
	os.WriteFile(src, []byte(sunsetFile), 0o644)

	if code, out, _ := gr("list"); code != 0 || !strings.Contains(out, "classic\tbuilt in\t#000764,") {
		t.Fatalf("list: %d %q", code, out)
	}
	if code, out, errs := gr("import", src); code != 0 || !strings.Contains(out, "imported Sun-set") {
		t.Fatalf("import: %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "Sun-set.txt")); err != nil {
		t.Fatalf("not in the config folder: %v", err)
	}
	if code, out, errs := gr("import", src, "sunset"); code != 0 || !strings.Contains(out, "--palette=sunset") {
		t.Fatalf("import as sunset: %d %q %q", code, out, errs)
	}
	// Never replaced silently; --force replaces.
	if code, _, errs := gr("import", src, "sunset"); code == 0 || !strings.Contains(errs, "already exists (use --force") || strings.Count(errs, "\n") != 1 {
		t.Errorf("import over: %d %q", code, errs)
	}
	if code, _, errs := gr("import", "--force", src, "sunset"); code != 0 {
		t.Errorf("import --force: %d %q", code, errs)
	}
	if code, out, _ := gr("list"); code != 0 || !strings.Contains(out, "sunset\t4 stops\t0:#1A0A3C,0.4:#E0503C,0.4:#FFD070,1:#1A0A3C") {
		t.Errorf("list: %q", out)
	}
	// Export a user gradient and a built-in; never over an existing file without --force.
	out := filepath.Join(t.TempDir(), "out.txt")
	if code, _, errs := gr("export", "sunset", out); code != 0 {
		t.Fatalf("export: %d %q", code, errs)
	}
	if g, err := gradients.ReadFile(out); err != nil || g.Text() != "0:#1A0A3C,0.4:#E0503C,0.4:#FFD070,1:#1A0A3C" {
		t.Errorf("exported %q %v", g.Text(), err)
	}
	before := readFile(t, out)
	if code, _, errs := gr("export", "fire", out); code == 0 || !strings.Contains(errs, "already exists") {
		t.Errorf("export over a file: %d %q", code, errs)
	}
	if !bytes.Equal(before, readFile(t, out)) {
		t.Error("export changed an existing file")
	}
	if code, _, errs := gr("export", "--force", "fire", out); code != 0 {
		t.Errorf("export --force: %d %q", code, errs)
	}
	if g, _ := gradients.ReadFile(out); g.Text() != mustBuiltin(t, "fire") {
		t.Errorf("exported fire as %q", g.Text())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import", src, "classic"}, "built-in palette"},
		{[]string{"import", src, "a/b"}, "may hold only letters"},
		{[]string{"import", src, "CON"}, `gradient name "CON" is reserved for a device on Windows`},
		{[]string{"import", src, "nul"}, `gradient name "nul" is reserved`},
		{[]string{"import"}, "missing gradient FILE"},
		{[]string{"import", filepath.Join(t.TempDir(), "none.txt")}, "no such file"},
		{[]string{"export", "nope", out + "2"}, `unknown gradient "nope"`},
		{[]string{"export", "sunset"}, "missing FILE"},
		{[]string{"frobnicate"}, "unknown subcommand"},
	} {
		code, _, errs := gr(c.args...)
		if code == 0 || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d, %q; want one line containing %q", c.args, code, errs, c.want)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(bad, []byte("#000000\n0.5 #FFFFFF\n"), 0o644)
	if code, _, errs := gr("import", bad); code == 0 || !strings.Contains(errs, bad+": line 2: this stop has a position") {
		t.Errorf("bad file: %d %q", code, errs)
	}
}

func mustBuiltin(t *testing.T, name string) string {
	t.Helper()
	g, err := colour.BuiltinGradient(name)
	if err != nil {
		t.Fatal(err)
	}
	return g.Text()
}

// TestPaletteFlagFindsUserGradients: --palette finds a user gradient after the built-ins and
// stores it by value; --gradient=FILE uses a file directly; the export reproduces with
// --from after the user gradient is deleted, and a bookmark keeps the stops.
func TestPaletteFlagFindsUserGradients(t *testing.T) {
	dir := grDir(t)
	bmFile(t)
	src := filepath.Join(t.TempDir(), "sunset.txt")
	os.WriteFile(src, []byte(sunsetFile), 0o644)
	if code, _, errs := gr("import", src); code != 0 {
		t.Fatal(errs)
	}
	tmp := t.TempDir()
	a, b, c := filepath.Join(tmp, "a.png"), filepath.Join(tmp, "b.png"), filepath.Join(tmp, "c.png")
	view := []string{"--renderer=cpu", "--center=-0.7453,0.1127", "--zoom=180", "--size=90x60", "--density=3"}
	mustExport(t, append(view, "--palette=sunset", "-o", a)...)
	mustExport(t, append(view, "--gradient="+src, "-o", b)...)
	if !bytes.Equal(readFile(t, a), readFile(t, b)) {
		t.Error("--palette=sunset and --gradient=sunset.txt differ")
	}
	md, err := export.ReadMetadata(a)
	if err != nil || md.Location.Color.Palette != "sunset" || md.Location.Color.Gradient != "0:#1A0A3C,0.4:#E0503C,0.4:#FFD070,1:#1A0A3C" {
		t.Fatalf("stored colouring %+v %v", md.Location.Color, err)
	}
	bmOK(t, "add", "--center=-0.7453,0.1127", "--zoom=180", "--palette=sunset", "--thumbnail=false", "warm")
	// Delete the user gradient: the image and the bookmark still carry it.
	os.Remove(filepath.Join(dir, "sunset.txt"))
	mustExport(t, "--renderer=cpu", "--from="+a, "-o", c)
	if !bytes.Equal(readFile(t, a), readFile(t, c)) {
		t.Error("--from did not reproduce the export without the user gradient")
	}
	s, err := bookmarks.Load(os.Getenv(bookmarks.EnvPath))
	if err != nil {
		t.Fatal(err)
	}
	if bk, ok := s.Get("warm"); !ok || bk.Location.Color.Gradient != md.Location.Color.Gradient {
		t.Errorf("bookmark colouring %+v", bk.Location.Color)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--palette=sunset"}, `--palette: unknown palette "sunset" (built in: classic`},
		{[]string{"--palette=fire", "--gradient=" + src}, "give one of them"},
		{[]string{"--gradient=" + filepath.Join(tmp, "none.txt")}, "--gradient: open"},
		{[]string{"--gradient=" + tmp}, "not a regular file"},
	} {
		code, _, errs := exportCmd(append(append(view, tc.args...), "-o", filepath.Join(tmp, "x.png"))...)
		if code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%q: exit %d %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestGradientFilesCLI: what `gradients import` and `gradients export` say of files that
// were misread or misreported: a CR-only file imports, a .kfr without Colors: says so, a .kfr
// with a Latin-1 title imports, a link to a file that is not a gradient is reported without
// its text, and a missing folder is named instead of a temporary file.
func TestGradientFilesCLI(t *testing.T) {
	grDir(t)
	tmp := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(tmp, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	cr := write("cr.txt", "# old Mac\r#000000\r#FFFFFF\r#FF0000\r")
	if code, out, errs := gr("import", cr); code != 0 || !strings.Contains(out, "imported cr (3 stops)") {
		t.Errorf("CR-only file: %d %q %q", code, out, errs)
	}
	latin := write("latin.kfr", "Re: -0.75\r\nIm: 0\r\nZoom: 1\r\nTitle: caf\xe9\r\nColors: 0,0,0,255,255,255,\r\n")
	if code, out, errs := gr("import", latin); code != 0 || !strings.Contains(out, "imported latin (2 stops)") {
		t.Errorf("Latin-1 .kfr: %d %q %q", code, out, errs)
	}
	nocol := write("nocol.kfr", "Re: -0.75\r\nIm: 0\r\nZoom: 1\r\n")
	secret := write("secret", "root:*:20228:0:99999:7:::\n")
	link := filepath.Join(tmp, "link.txt")
	os.Symlink(secret, link)
	for _, c := range []struct {
		args       []string
		want, nots string
	}{
		{[]string{"import", nocol}, "gradient file " + nocol + `: line 1: a setting (NAME: VALUE), not a colour stop; a Kalles Fraktaler file (.kfr, .kfp) gives a gradient its "Colors:" line, and this file has none`, "-0.75"},
		{[]string{"import", link}, "gradient file " + link + ": line 1: ", "root"},
		{[]string{"export", "classic", filepath.Join(tmp, "nodir", "x.txt")}, "cannot write " + filepath.Join(tmp, "nodir", "x.txt") + ": folder " + filepath.Join(tmp, "nodir") + " does not exist", ".tmp"},
	} {
		code, _, errs := gr(c.args...)
		if code != 1 || !strings.Contains(errs, c.want) || strings.Contains(errs, c.nots) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%q: exit %d %q; want one line with %q and without %q", c.args, code, errs, c.want, c.nots)
		}
	}
}
