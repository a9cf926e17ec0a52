package cli

import (
	"bytes"
	"image"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mandelscope/bookmarks"
	"mandelscope/export"
	"mandelscope/internal/imagetest"
)

// turned is img (n x n) turned counter-clockwise by quarter turns q (1, 2 or 3): the pixel at
// (x, y) moves to (y, n-1-x) for each quarter turn.
func turned(img *image.RGBA, q int) *image.RGBA {
	n := img.Rect.Dx()
	out := img
	for range q {
		next := image.NewRGBA(image.Rect(0, 0, n, n))
		for y := range n {
			for x := range n {
				next.SetRGBA(y, n-1-x, out.RGBAAt(x, y))
			}
		}
		out = next
	}
	return out
}

// TestExportRotation: --rotation=0 (and 360) draws today's picture byte for byte; a square
// view at 90, 180 and -90 degrees is the unrotated picture turned by a quarter turn, pixel for
// pixel (the cosine and sine are exact there); the slopes colouring's light stays on the
// screen (the picture at 90 degrees lit from L is the unrotated one lit from L-90, turned);
// the angle is kept in the PNG's metadata, which --from draws again byte for byte.
func TestExportRotation(t *testing.T) {
	dir := t.TempDir()
	flags := []string{"--renderer=cpu", "--center=-0.7436,0.1318", "--zoom=200", "--size=40x40", "--iterations=600", "--density=0.5"}
	out := func(name string, extra ...string) string {
		p := filepath.Join(dir, name+".png")
		mustExport(t, append(append(append([]string{}, flags...), extra...), "-o", p)...)
		return p
	}
	plain := out("plain")
	for _, r := range []string{"0", "360", "-0"} {
		if !bytes.Equal(readFile(t, plain), readFile(t, out("r"+r, "--rotation="+r))) {
			t.Errorf("--rotation=%s changed the file", r)
		}
	}
	orig := imagetest.Decode(t, plain)
	for _, c := range []struct {
		deg string
		q   int
	}{{"90", 1}, {"180", 2}, {"-90", 3}, {"270", 3}, {"-180", 2}} {
		got := imagetest.Decode(t, out("q"+c.deg, "--rotation="+c.deg))
		if !bytes.Equal(got.Pix, turned(orig, c.q).Pix) {
			t.Errorf("--rotation=%s is not the picture turned by %d quarter turns", c.deg, c.q)
		}
	}
	slopes := []string{"--colouring=slopes", "--light-strength=1"}
	lit := imagetest.Decode(t, out("slopes90", append(slopes, "--rotation=90", "--light=30")...))
	unturned := imagetest.Decode(t, out("slopes", append(slopes, "--light=-60")...))
	if a, at := imagetest.Agreement(lit, turned(unturned, 1), 1); a < 0.999 {
		t.Errorf("slopes at 90 degrees lit from 30: %.4f of pixels agree with the unrotated picture lit from -60, turned (first off at %v)", a, at)
	}
	if a, _ := imagetest.Agreement(lit, turned(imagetest.Decode(t, out("slopes30", append(slopes, "--light=30")...)), 1), 1); a > 0.9 {
		t.Errorf("slopes at 90 degrees: the light turned with the picture (%.3f of pixels agree with the unrotated picture turned)", a)
	}
	rot := out("r30", "--rotation=390")
	md, err := export.ReadMetadata(rot)
	if err != nil || md.Location.Rotation != 30 {
		t.Fatalf("metadata %+v, %v", md.Location, err)
	}
	if s := md.Location.String(); !strings.Contains(s, " rotation=30 ") {
		t.Errorf("location text %q", s)
	}
	again := filepath.Join(dir, "again.png")
	mustExport(t, "--renderer=cpu", "--from="+rot, "-o", again)
	if !bytes.Equal(readFile(t, rot), readFile(t, again)) {
		t.Error("--from did not draw the rotated view again byte for byte")
	}
	if bytes.Equal(imagetest.Decode(t, rot).Pix, orig.Pix) {
		t.Error("--rotation=30 drew the unrotated picture")
	}
}

// TestRotationRefused: a rotation that is not a number of degrees is refused in one line
// naming the flag; recolour, which keeps a raw file's view, refuses --rotation.
func TestRotationRefused(t *testing.T) {
	for _, arg := range []string{"--rotation=abc", "--rotation=NaN", "--rotation=Inf", "--rotation=1e400", "--rotation="} {
		code, _, errs := exportCmd("--renderer=cpu", "--size=8x8", arg, "-o", filepath.Join(t.TempDir(), "x.png"))
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "--rotation: rotation") || !strings.Contains(errs, "must be a number of degrees") {
			t.Errorf("%s: exit %d, %q", arg, code, errs)
		}
	}
	var o, e bytes.Buffer
	if code := Run([]string{"recolour", "--rotation=10", "in.exr", "-o", "out.png"}, &o, &e); code != 2 || !strings.Contains(e.String(), "--rotation") {
		t.Errorf("recolour --rotation: exit %d, %q", code, e.String())
	}
}

// TestProbeRotationDeep: at zoom 1e100 beside the Misiurewicz point i, a view turned by 37
// degrees probes (perturbation from the exact decimal centre, the pixel's float64 offset
// turned) as math/big does with the same rotation (probe --exact), and otherwise than the
// unrotated view.
func TestProbeRotationDeep(t *testing.T) {
	// misiurewicz1e100 of fractal/testdata/deep/locations.txt.
	const re = "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030"
	const im = "1.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000450"
	args := []string{"probe", "--center=" + re + "," + im, "--zoom=1e100", "--iterations=3000", "--size=160x90"}
	var pts []string
	for y := 3; y < 90; y += 12 {
		for x := 3; x < 160; x += 17 {
			pts = append(pts, strconv.Itoa(x)+","+strconv.Itoa(y))
		}
	}
	run := func(extra ...string) []string {
		var out, errb bytes.Buffer
		if code := Run(append(append(append([]string{}, args...), extra...), pts...), &out, &errb); code != 0 {
			t.Fatalf("probe %v: exit %d: %s", extra, code, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != len(pts) {
			t.Fatalf("probe %v: %d lines for %d pixels", extra, len(lines), len(pts))
		}
		return lines
	}
	got, exact, plain := run("--rotation=37"), run("--rotation=37", "--exact"), run()
	same, moved := 0, 0
	for i := range got {
		if got[i] == exact[i] {
			same++
		}
		if got[i] != plain[i] {
			moved++
		}
	}
	if same < len(pts)*95/100 {
		t.Errorf("%d of %d rotated pixels agree with math/big; first lines %q, exact %q", same, len(pts), got[:3], exact[:3])
	}
	if moved < len(pts)/2 {
		t.Errorf("only %d of %d pixels changed with the rotation", moved, len(pts))
	}
}

// TestRotationRawFile: a rotated view's raw file keeps the angle in its location; its recolour
// (here to slopes, whose light stays on the screen: the raw file's DEX and DEY are the
// screen's) is the rotated export byte for byte, and export --from the raw file draws it again.
func TestRotationRawFile(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "v.exr")
	view := []string{"--renderer=cpu", "--center=-0.7453,0.1127", "--zoom=180", "--iterations=400", "--size=48x30", "--density=0.5", "--rotation=-70"}
	mustExport(t, append(view, "--colouring=distance", "--raw="+raw)...)
	want, got := filepath.Join(dir, "export.png"), filepath.Join(dir, "recolour.png")
	mustExport(t, append(view, "--colouring=slopes", "-o", want)...)
	if code, errs := recolourCmd(raw, "--colouring=slopes", "-o", got); code != 0 {
		t.Fatalf("recolour: exit %d: %s", code, errs)
	}
	if !bytes.Equal(readFile(t, want), readFile(t, got)) {
		t.Error("the recolour of a rotated raw file to slopes differs from the rotated export")
	}
	md, err := export.ReadMetadata(raw)
	if err != nil || md.Location.Rotation != -70 {
		t.Fatalf("raw file's metadata: %+v, %v", md.Location, err)
	}
	again := filepath.Join(dir, "again.png")
	mustExport(t, "--renderer=cpu", "--from="+raw, "--colouring=slopes", "-o", again)
	if !bytes.Equal(imagetest.Decode(t, want).Pix, imagetest.Decode(t, again).Pix) {
		t.Error("export --from the rotated raw file drew another picture")
	}
}

// TestBookmarksRotation: `bookmarks add --rotation` keeps the angle, and `bookmarks list`
// gives it back as a flag, so that an export with the listed flags draws the bookmark's view.
func TestBookmarksRotation(t *testing.T) {
	path := bmFile(t)
	bmOK(t, "add", "--center=-0.75,0.1", "--zoom=20", "--rotation=-405", "--thumbnail=false", "turned")
	bmOK(t, "add", "--center=-0.75,0.1", "--zoom=20", "--thumbnail=false", "upright")
	out := bmOK(t, "list")
	if !strings.Contains(out, "turned\t--center=-0.75,0.1 --zoom=20 ") || !strings.Contains(out, " --rotation=-45") || strings.Count(out, "--rotation") != 1 {
		t.Errorf("list:\n%s", out)
	}
	s, err := bookmarks.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Get("turned"); b.Location.Rotation != -45 {
		t.Errorf("stored rotation %v", b.Location.Rotation)
	}
}
