package cli

import (
	"bytes"
	"fmt"
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

// Julia parameters with every digit that matters: 300-odd digits each, kept exactly by every
// file the view goes through.
var (
	juliaRe300 = "-0.7" + strings.Repeat("1234567890", 30)
	juliaIm300 = "0.156" + strings.Repeat("9876543210", 30) + "7"
	julia300   = juliaRe300 + "," + juliaIm300
)

// applyFlags applies location flags to base as the commands do.
func applyFlags(t *testing.T, base fractal.Location, args ...string) (fractal.Location, error) {
	t.Helper()
	fs := NewFlagSet("test", io.Discard)
	lf := AddLocationFlags(fs)
	if _, err := ParseFlags(fs, args); err != nil {
		t.Fatal(err)
	}
	return lf.Apply(base, true)
}

// TestJuliaFlagErrors: a bad --julia is one line naming the flag, as every location flag's.
func TestJuliaFlagErrors(t *testing.T) {
	for _, arg := range []string{"--julia=", "--julia=1", "--julia=1,2,3", "--julia=a,b", "--julia=NaN,0", "--julia=0,Inf",
		"--julia=5,0", "--julia=0,-4.01", "--julia=1e999999,0", "--julia=" + strings.Repeat("1", fractal.MaxDecimalDigits+1) + ",0"} {
		_, err := applyFlags(t, fractal.Home(), arg)
		if err == nil || !strings.HasPrefix(err.Error(), "--julia: ") || strings.Contains(err.Error(), "\n") || len(err.Error()) > 200 {
			t.Errorf("%s: error %v, want one short line naming --julia", text40(arg), err)
		}
	}
}

func text40(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// TestJuliaFlagApplies: --julia on a Mandelbrot view shows that Julia set whole (centre 0,
// zoom 1) unless --center and --zoom say otherwise, every digit of c kept; on a Julia view it
// changes the parameter only; --julia=off gives the Mandelbrot set centred at c.
func TestJuliaFlagApplies(t *testing.T) {
	l, err := applyFlags(t, fractal.Home(), "--julia="+julia300)
	if err != nil {
		t.Fatal(err)
	}
	if !l.IsJulia() || l.Julia.String() != julia300 || l.Re.String() != "0" || l.Im.String() != "0" || l.Zoom.String() != "1" || l.Iterations != fractal.Home().Iterations {
		t.Errorf("--julia on the home view: %v", l)
	}
	l, err = applyFlags(t, fractal.Home(), "--zoom=1e5", "--center=0.25,-0.5", "--julia= -0.8 , 0.156 ")
	if err != nil {
		t.Fatal(err)
	}
	if l.Julia.String() != "-0.8,0.156" || l.Re.String() != "0.25" || l.Im.String() != "-0.5" || l.Zoom.String() != "1e5" || l.Iterations != fractal.AutoIterations(1e5) {
		t.Errorf("--julia with --center and --zoom: %v", l)
	}
	m, err := applyFlags(t, l, "--julia=0.3,0.5")
	if err != nil {
		t.Fatal(err)
	}
	if want := l; m.Julia.String() != "0.3,0.5" || m.Re != want.Re || m.Im != want.Im || m.Zoom != want.Zoom {
		t.Errorf("--julia on a Julia view: %v, want %v with c = 0.3,0.5", m, want)
	}
	m, err = applyFlags(t, l, "--julia=OFF")
	if err != nil {
		t.Fatal(err)
	}
	if m.IsJulia() || m.Re.String() != "-0.8" || m.Im.String() != "0.156" || m.Zoom != l.Zoom {
		t.Errorf("--julia=off on a Julia view: %v", m)
	}
	if m, err = applyFlags(t, fractal.Home(), "--julia=off"); err != nil || m != fractal.Home() {
		t.Errorf("--julia=off on the Mandelbrot set: %v, %v", m, err)
	}
}

// TestJuliaFlagRefused: find (the Mandelbrot set's minibrots) and recolour (the raw file's
// view) refuse --julia in one line naming it; export refuses reference files for Julia views.
func TestJuliaFlagRefused(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"find", "--center=-0.75,0.1", "--zoom=10", "--julia=0,1"},
		{"recolour", filepath.Join(dir, "in.exr"), "--julia=0,1", "-o", filepath.Join(dir, "r.png")},
		{"export", "--julia=0,1", "--zoom=1e20", "--reference-out=" + filepath.Join(dir, "j.ref")},
		{"export", "--julia=0,1", "--reference-in=" + filepath.Join(dir, "j.ref"), "-o", filepath.Join(dir, "j.png")},
	} {
		var out, errb bytes.Buffer
		code := Run(args, &out, &errb)
		if code != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "--") {
			t.Errorf("%v: exit %d: %q", args, code, errb.String())
		}
		if args[0] != "export" && !strings.Contains(errb.String(), "--julia: ") {
			t.Errorf("%v: %q does not name --julia", args, errb.String())
		}
		if args[0] == "export" && !strings.Contains(errb.String(), "reference files are for Mandelbrot views") {
			t.Errorf("%v: %q does not say reference files are for Mandelbrot views", args, errb.String())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused commands wrote %d files", len(entries))
	}
}

// TestJuliaExportMetadataRoundTrip: a Julia export's PNG keeps the parameter, every digit,
// and --from gives the same view (and so the same file); the raw file (EXR) keeps it too,
// and a recolour of it and an export --from it are the Julia view's. A Mandelbrot export has
// no julia chunk.
func TestJuliaExportMetadataRoundTrip(t *testing.T) {
	dir := t.TempDir()
	view := []string{"--julia=" + julia300, "--center=0.1,-0.05", "--zoom=3", "--iterations=150", "--density=1"}
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
	if md.Location != want || md.Location.Julia.String() != julia300 {
		t.Fatalf("PNG metadata: %v, want %v", md.Location, want)
	}
	if !strings.Contains(md.Text["Description"], "Julia set of c = ") {
		t.Errorf("description %q does not say it is a Julia set", md.Text["Description"])
	}
	mustExport(t, "--renderer=cpu", "--from="+a, "-o", b)
	if !bytes.Equal(readFile(t, a), readFile(t, b)) {
		t.Error("export --from a Julia PNG differs from the export it came from")
	}

	raw, c := filepath.Join(dir, "v.exr"), filepath.Join(dir, "c.png")
	mustExport(t, append(view, "--renderer=cpu", "--size=64x36", "--raw="+raw)...)
	rmd, err := export.ReadMetadata(raw)
	if err != nil {
		t.Fatal(err)
	}
	if rmd.Location != want {
		t.Fatalf("raw metadata: %v, want %v", rmd.Location, want)
	}
	if code, errs := recolourCmd(raw, "--palette=fire", "-o", c); code != 0 {
		t.Fatalf("recolour: exit %d: %s", code, errs)
	}
	cmd, err := export.ReadMetadata(c)
	if err != nil {
		t.Fatal(err)
	}
	if cmd.Location.Julia != want.Julia || cmd.Location.Re != want.Re || cmd.Location.Color.Palette != "fire" {
		t.Errorf("recoloured PNG: %v, want the Julia view in fire", cmd.Location)
	}

	m := filepath.Join(dir, "m.png")
	mustExport(t, append(view[1:len(view):len(view)], "--renderer=cpu", "--size=64x36", "-o", m)...)
	if bytes.Equal(imagetest.Decode(t, m).Pix, imagetest.Decode(t, a).Pix) {
		t.Error("the Julia export's picture is the Mandelbrot set's")
	}
	if bytes.Contains(readFile(t, m), []byte(export.KeyJulia)) {
		t.Error("a Mandelbrot export has a julia text chunk")
	}
	if bytes.Contains(readFile(t, m), []byte("Julia")) {
		t.Error("a Mandelbrot export's description names a Julia set")
	}
}

// TestJuliaShardsAndAssemble: the shards of a Julia export record its parameter (a
// Mandelbrot shard of the same centre cannot join them), and assemble gives the one-machine
// export, whose metadata keeps the parameter.
func TestJuliaShardsAndAssemble(t *testing.T) {
	dir := t.TempDir()
	view := []string{"--julia=" + julia300, "--zoom=2", "--iterations=100", "--size=64x40", "--renderer=cpu"}
	whole, out := filepath.Join(dir, "whole.png"), filepath.Join(dir, "s.png")
	mustExport(t, append(view, "-o", whole)...)
	mustExport(t, append(view, "--shard=0/2", "-o", out)...)
	// The same view but the Mandelbrot set: shard 1 of another image.
	mustExport(t, "--zoom=2", "--center=0,0", "--iterations=100", "--size=64x40", "--renderer=cpu", "--shard=1/2", "-o", out)
	var so, se bytes.Buffer
	if code := Run([]string{"assemble", out}, &so, &se); code == 0 || strings.Count(se.String(), "\n") != 1 || !strings.Contains(se.String(), "julia parameter was") {
		t.Fatalf("assemble of a Julia shard and a Mandelbrot one: exit %d: %q", code, se.String())
	}
	os.Remove(export.ShardPath(out, 1, 2))
	mustExport(t, append(view, "--shard=1/2", "-o", out)...)
	se.Reset()
	if code := Run([]string{"assemble", out}, &so, &se); code != 0 {
		t.Fatalf("assemble: exit %d: %s", code, se.String())
	}
	if !bytes.Equal(readFile(t, out), readFile(t, whole)) {
		t.Fatal("the assembled Julia PNG differs from the one-machine export")
	}
	if md, err := export.ReadMetadata(out); err != nil || md.Location.Julia.String() != julia300 {
		t.Errorf("assembled PNG's parameter: %v, %v", md.Location.Julia, err)
	}
}

// TestJuliaBookmarks: a Julia bookmark keeps its parameter, every digit; list prints
// --julia, and its flags draw what export --bookmark draws; export --bookmark keeps the mode.
func TestJuliaBookmarks(t *testing.T) {
	path := bmFile(t)
	dir := t.TempDir()
	bmOK(t, "add", "--julia="+julia300, "--center=0.1,0.2", "--zoom=4", "--iterations=120", "--thumbnail=false", "rabbit")
	bmOK(t, "add", "--center=-0.75,0.1", "--zoom=4", "--iterations=120", "--thumbnail=false", "plain")
	bmOK(t, "add", "--julia=-0.8,0.156", "whole") // the Julia set whole, with its thumbnail
	if code, _, errs := bm(t, "add", "--zoom=5", "nowhere"); code != 2 || !strings.Contains(errs, "missing --center") {
		t.Errorf("add without --center or --julia: exit %d: %q", code, errs)
	}
	store, err := bookmarks.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := store.Get("rabbit")
	if b.Location.Julia.String() != julia300 {
		t.Fatalf("the bookmark's parameter: %q", b.Location.Julia)
	}
	if p, _ := store.Get("plain"); p.Location.IsJulia() {
		t.Fatal("a Mandelbrot bookmark became a Julia one")
	}
	if w, _ := store.Get("whole"); w.Location != fractal.Home().JuliaAt(fractal.MustDecimal("-0.8"), fractal.MustDecimal("0.156")) || len(w.Thumbnail) == 0 {
		t.Errorf("add --julia alone: %v (thumbnail of %d bytes)", w.Location, len(w.Thumbnail))
	}
	lines := strings.Split(strings.TrimSpace(bmOK(t, "list")), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "--julia="+julia300+" ") || strings.Contains(lines[1], "--julia") || !strings.Contains(lines[2], "--julia=-0.8,0.156 --center=0,0 --zoom=1 ") {
		t.Fatalf("list: %q", lines)
	}
	_, flags, _ := strings.Cut(lines[0], "\t")
	x, y := filepath.Join(dir, "flags.png"), filepath.Join(dir, "bookmark.png")
	mustExport(t, append(strings.Fields(flags), "--renderer=cpu", "--size=64x36", "-o", x)...)
	mustExport(t, "--bookmark=rabbit", "--renderer=cpu", "--size=64x36", "-o", y)
	if !bytes.Equal(readFile(t, x), readFile(t, y)) {
		t.Error("export with the listed flags differs from export --bookmark")
	}
	if md, err := export.ReadMetadata(y); err != nil || md.Location.Julia != b.Location.Julia || md.Location.Re != b.Location.Re {
		t.Errorf("export --bookmark of a Julia bookmark: %v, %v", md.Location, err)
	}
	// video --bookmark ends at the Julia view too.
	job, err := parseVideo([]string{"--bookmark=rabbit", "--frames=" + filepath.Join(dir, "f")}, io.Discard)
	if err != nil || job.opt.Location.Julia != b.Location.Julia {
		t.Errorf("video --bookmark: %v, %v", job.opt.Location, err)
	}
}

// TestJuliaVideoFlag: video takes --julia (and --from a Julia image) as the end view's.
func TestJuliaVideoFlag(t *testing.T) {
	dir := t.TempDir()
	job, err := parseVideo([]string{"--julia=" + julia300, "--zoom=1e3", "--frames=" + filepath.Join(dir, "f")}, io.Discard)
	if err != nil || job.opt.Location.Julia.String() != julia300 {
		t.Fatalf("video --julia: %v, %v", job.opt.Location, err)
	}
	if _, err := parseVideo([]string{"--julia=9,9", "--frames=" + filepath.Join(dir, "f")}, io.Discard); err == nil || !strings.HasPrefix(err.Error(), "--julia: ") {
		t.Errorf("video --julia=9,9: %v", err)
	}
	a := filepath.Join(dir, "a.png")
	mustExport(t, "--julia=-0.8,0.156", "--iterations=100", "--renderer=cpu", "--size=32x18", "-o", a)
	job, err = parseVideo([]string{"--from=" + a, "--zoom=10", "--frames=" + filepath.Join(dir, "g")}, io.Discard)
	if err != nil || job.opt.Location.Julia.String() != "-0.8,0.156" {
		t.Errorf("video --from a Julia PNG: %v, %v", job.opt.Location, err)
	}
}

// TestJuliaProbeExact: probe --exact iterates the Julia orbit from the pixel's point: with
// c = 0 the orbit of p is p^(2^k), whose escape count is known; at the pixel p = c a Julia
// set's count is the Mandelbrot set's count of c (z1 = c in both), every digit of c used.
func TestJuliaProbeExact(t *testing.T) {
	for _, tc := range []struct{ center, want string }{{"1.5,0", "2"}, {"1.1,0", "4"}, {"0,1.05", "5"}, {"0.5,0.5", "-1"}, {"3,0", "1"}} {
		got := probe(t, "--julia=0,0", "--center="+tc.center, "--size=1x1", "--iterations=100", "--exact", "0,0")
		if got[0] != "0 0 "+tc.want {
			t.Errorf("c = 0, p = %s: %q, want count %s", tc.center, got[0], tc.want)
		}
	}
	// A point near the boundary whose count needs its digits: the last ones change it.
	for _, c := range []string{"-0.7436438870371587047521915061147740000001,0.1318259042053119704931320563851390000001",
		"-0.75,0.0001", "0.2501,0", "0.25,0", "-1.25,0.001"} {
		m := probe(t, "--center="+c, "--size=1x1", "--iterations=5000", "--exact", "0,0")
		j := probe(t, "--julia="+c, "--center="+c, "--size=1x1", "--iterations=5000", "--exact", "0,0")
		if m[0] != j[0] {
			t.Errorf("at p = c = %s: Julia count %q, Mandelbrot count %q", c, j[0], m[0])
		}
	}
	// The same pixel of another c gives another count (the parameter is used at all).
	a := probe(t, "--julia=0.2501,0", "--center=0.2501,0", "--size=1x1", "--iterations=5000", "--exact", "0,0")
	b := probe(t, "--julia=0.26,0", "--center=0.2501,0", "--size=1x1", "--iterations=5000", "--exact", "0,0")
	if a[0] == b[0] {
		t.Errorf("p = 0.2501: c = 0.2501 and c = 0.26 both give %q", a[0])
	}
}

// juliaProbeDiff reports the pixels whose probe counts differ from probe --exact's, for a
// Julia view at a shallow zoom.
func juliaProbeDiff(t *testing.T, flags []string, pts []string) (same int, diffs []string) {
	got := probe(t, append(flags, pts...)...)
	want := probe(t, append(append(flags, "--exact"), pts...)...)
	for i := range got {
		if got[i] == want[i] {
			same++
		} else {
			diffs = append(diffs, fmt.Sprintf("%s vs exact %s", got[i], want[i]))
		}
	}
	return same, diffs
}

// TestJuliaProbeAgainstExact: at shallow views of Julia sets (connected, on the edge, dust)
// probe's counts (the renderers' arithmetic) agree with probe --exact's at pixels off the
// boundary: all but a few (those that differ are counts in the hundreds, on the boundary,
// where every fixed precision moves them, as TestProbeAgainstExact explains).
func TestJuliaProbeAgainstExact(t *testing.T) {
	var pts []string
	for i := range 40 {
		pts = append(pts, fmt.Sprintf("%d,%d", i*83%320, i*47%180))
	}
	for _, c := range []string{"-0.122561166876654,0.744861766619744", "-0.8,0.156", "0.285,0.01", "-0.75,0.3"} {
		for _, z := range []string{"2", "7"} { // zoom 2: the view spans |re| <= 1.8, few pixels escape at once
			flags := []string{"--julia=" + c, "--zoom=" + z, "--center=0.05,-0.02", "--size=320x180", "--iterations=500"}
			same, diffs := juliaProbeDiff(t, flags, pts)
			t.Logf("c = %s, zoom %s: %d of %d pixels agree with probe --exact %v", c, z, same, len(pts), diffs)
			if same < len(pts)*9/10 {
				t.Errorf("c = %s, zoom %s: %d of %d pixels agree with the exact count: %v", c, z, same, len(pts), diffs)
			}
		}
	}
}
