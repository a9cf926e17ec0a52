package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/bookmarks"
	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
)

// TestFormulaFlags: --formula and --power set the location's formula (the centre and zoom
// kept); a bad value is one line naming its flag.
func TestFormulaFlags(t *testing.T) {
	l, err := applyFlags(t, fractal.Home(), "--formula=Burning-Ship", "--power=3", "--center=-1.76,-0.03", "--zoom=50")
	cubicShip, _ := fractal.MakeFormula(fractal.BurningShip, 3)
	if err != nil || l.Formula != cubicShip || l.Re.String() != "-1.76" || l.Zoom.String() != "50" {
		t.Fatalf("--formula=Burning-Ship --power=3: %v, %v", l, err)
	}
	if l, err := applyFlags(t, l, "--power=2"); err != nil || l.Formula != (fractal.Formula{Kind: fractal.BurningShip}) {
		t.Errorf("--power=2 on a cubic ship: %v, %v", l.Formula, err)
	}
	for _, c := range []struct{ arg, want string }{
		{"--formula=tricorn", `--formula: unknown formula "tricorn" (mandelbrot, burning-ship, mandelbar)`},
		{"--formula=", `--formula: unknown formula ""`},
		{"--power=9", `--power: power "9" must be a whole number from 2 to 8`},
		{"--power=two", `--power: power "two" must be a whole number from 2 to 8`},
	} {
		_, err := applyFlags(t, fractal.Home(), c.arg)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want %q", c.arg, err, c.want)
		}
	}
	if l, err := applyFlags(t, fractal.Home(), "--formula=mandelbar", "--colouring=slopes"); err != nil || l.Color.Method != "slopes" {
		t.Errorf("--formula=mandelbar --colouring=slopes: %v, %v", l.Color, err)
	}
}

// TestFormulaRefused: find has no Misiurewicz finder for the folds (a plain sentence, never a
// wrong "found"), reference files are the Mandelbrot set's, and nothing is written.
func TestFormulaRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"find", "--misiurewicz", "--formula=burning-ship", "--center=-1.76,-0.03", "--zoom=100"}, 1, "formula burning-ship has no Misiurewicz finder yet (its minibrots are found)"},
		{[]string{"find", "--misiurewicz", "--formula=mandelbar", "--power=3", "--center=0.34,1.27", "--zoom=100"}, 1, "formula mandelbar power 3 has no Misiurewicz finder yet (its minibrots are found)"},
		{[]string{"export", "--formula=mandelbar", "--zoom=1e20", "--reference-out=" + filepath.Join(dir, "m.ref")}, 2, "reference files are for the Mandelbrot set (this view is formula mandelbar's)"},
	} {
		var out, errb bytes.Buffer
		code := Run(c.args, &out, &errb)
		if code != c.code || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) || out.Len() != 0 {
			t.Errorf("%v: exit %d, %q, %q; want %d and %q", c.args, code, out.String(), errb.String(), c.code, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused commands wrote %d files", len(entries))
	}
}

// TestFindPower: find in a power-d set prints the minibrot's view with the formula's flags
// kept (the line read back with --power frames the same nucleus), and its period.
func TestFindPower(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"find", "--power=3", "--center=0.27,1.25", "--zoom=20", "--size=320x240"}
	if code := Run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d, %s", args, code, errb.String())
	}
	line, ok := strings.CutSuffix(strings.TrimSpace(out.String()), " period=3")
	l, err := fractal.ParseLocationText(line, fractal.Home())
	if !ok || err != nil {
		t.Fatalf("find printed %q (%v); want a location and period=3", out.String(), err)
	}
	start, err := applyFlags(t, fractal.Home(), args[1:4]...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := fractal.FindMinibrot(t.Context(), start, 320, 240, 160, 120, DefaultFindLimit)
	if err != nil || l.Formula != start.Formula || l.Re != want.Loc.Re || l.Im != want.Loc.Im || l.Zoom != want.Loc.Zoom {
		t.Errorf("find printed %v (formula %v); the search finds %v, %v", l, l.Formula, want.Loc, err)
	}
}

// TestFindMisiurewiczPower: find --misiurewicz in a power-d set prints the point's view with
// --power kept: the power-4 set's tip -2^(1/3), preperiod 2 and period 1.
func TestFindMisiurewiczPower(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"find", "--misiurewicz", "--power=4", "--center=-1.259921,0", "--zoom=1"}
	if code := Run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d, %s", args, code, errb.String())
	}
	if got, want := strings.TrimSpace(out.String()), "re=-1.259921 im=0 power=4 zoom=1 iterations=200 preperiod=2 period=1"; got != want {
		t.Errorf("find printed %q, want %q", got, want)
	}
}

// TestFindFold: find in the Burning Ship and the Mandelbar prints the minibrot's view with the
// formula in it (the line read back alone, without --formula, is the fold's view of the
// nucleus the search finds), and its period: the ship of period 3 on the real axis.
func TestFindFold(t *testing.T) {
	for _, formula := range []string{"burning-ship", "mandelbar"} {
		var out, errb bytes.Buffer
		args := []string{"find", "--formula=" + formula, "--center=-1.755,0.001", "--zoom=10", "--size=320x240"}
		if code := Run(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d, %s", args, code, errb.String())
		}
		line, ok := strings.CutSuffix(strings.TrimSpace(out.String()), " period=3")
		l, err := fractal.ParseLocationText(line, fractal.Home())
		if !ok || err != nil || !strings.Contains(line, " formula="+formula+" ") {
			t.Fatalf("find printed %q (%v); want a location with formula=%s and period=3", out.String(), err, formula)
		}
		start, err := applyFlags(t, fractal.Home(), args[1:4]...)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fractal.FindMinibrot(t.Context(), start, 320, 240, 160, 120, DefaultFindLimit)
		if err != nil || l.Formula != start.Formula || l.Re != want.Loc.Re || l.Im != want.Loc.Im || l.Zoom != want.Loc.Zoom {
			t.Errorf("find printed %v (formula %v); the search finds %v, %v", l, l.Formula, want.Loc, err)
		}
	}
}

// TestFormulaExportMetadataRoundTrip: a formula's export keeps it in the PNG's and the raw
// file's metadata, --from and a recolour keep it, its picture is not the Mandelbrot set's,
// and a Mandelbrot export has no formula chunk.
func TestFormulaExportMetadataRoundTrip(t *testing.T) {
	dir := t.TempDir()
	view := []string{"--formula=burning-ship", "--power=3", "--center=-0.5,-0.4", "--zoom=1.5", "--iterations=150", "--density=1"}
	want, err := applyFlags(t, fractal.Home(), view...)
	if err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	mustExport(t, append(view, "--renderer=cpu", "--size=64x36", "-o", a)...)
	md, err := export.ReadMetadata(a)
	if err != nil {
		t.Fatal(err)
	}
	if md.Location != want {
		t.Fatalf("PNG metadata: %v, want %v", md.Location, want)
	}
	if d := md.Text["Description"]; !strings.HasPrefix(d, "Burning Ship (power 3) centred on") {
		t.Errorf("description %q does not name the formula", d)
	}
	mustExport(t, "--renderer=cpu", "--from="+a, "-o", b)
	if !bytes.Equal(readFile(t, a), readFile(t, b)) {
		t.Error("export --from a formula's PNG differs from the export it came from")
	}
	raw, c := filepath.Join(dir, "v.exr"), filepath.Join(dir, "c.png")
	mustExport(t, append(view, "--renderer=cpu", "--size=64x36", "--raw="+raw)...)
	if rmd, err := export.ReadMetadata(raw); err != nil || rmd.Location != want {
		t.Fatalf("raw metadata: %v, %v; want %v", rmd.Location, err, want)
	}
	if code, errs := recolourCmd(raw, "--palette=fire", "-o", c); code != 0 {
		t.Fatalf("recolour: exit %d: %s", code, errs)
	}
	if cmd, err := export.ReadMetadata(c); err != nil || cmd.Location.Formula != want.Formula {
		t.Errorf("recoloured PNG: %v, %v", cmd.Location, err)
	}
	m := filepath.Join(dir, "m.png")
	mustExport(t, append(view[2:len(view):len(view)], "--renderer=cpu", "--size=64x36", "-o", m)...)
	if bytes.Equal(imagetest.Decode(t, m).Pix, imagetest.Decode(t, a).Pix) {
		t.Error("the Burning Ship's export is the Mandelbrot set's picture")
	}
	if bytes.Contains(readFile(t, m), []byte(export.KeyFormula)) || bytes.Contains(readFile(t, m), []byte(export.KeyPower)) {
		t.Error("a Mandelbrot export has a formula text chunk")
	}
}

// TestFormulaBookmarks: bookmarks add keeps the formula, list prints --formula and --power,
// and the listed flags draw what export --bookmark draws; video --bookmark keeps it.
func TestFormulaBookmarks(t *testing.T) {
	path := bmFile(t)
	dir := t.TempDir()
	bmOK(t, "add", "--formula=mandelbar", "--power=4", "--center=0.1,0.2", "--zoom=2", "--iterations=120", "--thumbnail=false", "quartic")
	store, err := bookmarks.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := store.Get("quartic")
	if b.Location.Formula.String() != "mandelbar power 4" {
		t.Fatalf("the bookmark's formula: %v", b.Location.Formula)
	}
	line := strings.TrimSpace(bmOK(t, "list"))
	if !strings.Contains(line, "--formula=mandelbar --power=4 --center=0.1,0.2 ") {
		t.Fatalf("list: %q", line)
	}
	_, flags, _ := strings.Cut(line, "\t")
	x, y := filepath.Join(dir, "flags.png"), filepath.Join(dir, "bookmark.png")
	mustExport(t, append(strings.Fields(flags), "--renderer=cpu", "--size=48x32", "-o", x)...)
	mustExport(t, "--bookmark=quartic", "--renderer=cpu", "--size=48x32", "-o", y)
	if !bytes.Equal(readFile(t, x), readFile(t, y)) {
		t.Error("export with the listed flags differs from export --bookmark")
	}
	job, err := parseVideo([]string{"--bookmark=quartic", "--frames=" + filepath.Join(dir, "f")}, io.Discard)
	if err != nil || job.opt.Location.Formula != b.Location.Formula {
		t.Errorf("video --bookmark: %v, %v", job.opt.Location, err)
	}
}

// TestFormulaProbeExact: probe and probe --exact take the formula; at a view of the
// Burning Ship at zoom 1e20 (perturbation), most pixels agree exactly, and the exact counts
// are the Burning Ship's, not the Mandelbrot set's.
func TestFormulaProbeExact(t *testing.T) {
	flags := []string{"--formula=burning-ship", "--center=-1.7629215,-0.0284435", "--zoom=1e20", "--size=64x48", "--iterations=800"}
	pts := []string{"0,0", "10,5", "20,40", "31,23", "47,11", "63,47", "5,30", "40,20"}
	got := probe(t, append(flags, pts...)...)
	want := probe(t, append(append(flags, "--exact"), pts...)...)
	mandel := probe(t, append(append(flags[1:len(flags):len(flags)], "--exact"), pts...)...)
	same, differ := 0, 0
	for i := range got {
		if got[i] == want[i] {
			same++
		}
		if want[i] != mandel[i] {
			differ++
		}
	}
	if same < len(pts)-1 {
		t.Errorf("probe %q, probe --exact %q", got, want)
	}
	if differ == 0 {
		t.Errorf("probe --exact of the Burning Ship gives the Mandelbrot set's counts %q", want)
	}
}
