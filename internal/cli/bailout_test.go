package cli

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/export"
)

// TestExportBailout: --bailout=2 (the default) draws today's picture byte for byte; another
// radius draws another picture, is kept in the PNG's metadata, and --from draws it again byte
// for byte.
func TestExportBailout(t *testing.T) {
	dir := t.TempDir()
	plain, two, hundred, again := filepath.Join(dir, "p.png"), filepath.Join(dir, "2.png"), filepath.Join(dir, "100.png"), filepath.Join(dir, "a.png")
	flags := []string{"--renderer=cpu", "--center=-0.743643887,0.131825904", "--zoom=3000", "--size=96x54", "--iterations=1000", "--density=0.5"}
	mustExport(t, append(flags, "-o", plain)...)
	mustExport(t, append(flags, "--bailout=2", "-o", two)...)
	if !bytes.Equal(readFile(t, plain), readFile(t, two)) {
		t.Fatal("--bailout=2 changed the picture")
	}
	mustExport(t, append(flags, "--bailout=100", "--stripe-density=7", "--stripe-last=9", "-o", hundred)...)
	// The smooth count hardly depends on the radius (that is what makes it smooth): the
	// escape counts do.
	var o2, o100 bytes.Buffer
	Run([]string{"probe", "--center=-0.743643887,0.131825904", "--zoom=3000", "--size=96x54", "--iterations=1000", "10,10", "50,30"}, &o2, &o2)
	Run([]string{"probe", "--center=-0.743643887,0.131825904", "--zoom=3000", "--size=96x54", "--iterations=1000", "--bailout=100", "10,10", "50,30"}, &o100, &o100)
	if o2.String() == o100.String() || strings.Count(o100.String(), "\n") != 2 {
		t.Errorf("probe counts at radius 2:\n%s\nat 100:\n%s", o2.String(), o100.String())
	}
	md, err := export.ReadMetadata(hundred)
	if err != nil || md.Location.Bailout != 100 || md.Location.StripeDensity != 7 || md.Location.StripeLast != 9 {
		t.Fatalf("metadata %+v, %v", md.Location, err)
	}
	if s := md.Location.String(); !strings.Contains(s, " bailout=100 stripe-density=7 stripe-last=9") {
		t.Errorf("location text %q", s)
	}
	mustExport(t, "--renderer=cpu", "--from="+hundred, "-o", again)
	if !bytes.Equal(readFile(t, hundred), readFile(t, again)) {
		t.Fatal("--from did not reproduce the radius's picture byte for byte")
	}
}

// TestOrbitFlagsRefused: bad radii and stripe parameters are refused in one line naming the
// flag, on the command line and in a location's text.
func TestOrbitFlagsRefused(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"--bailout=1", `--bailout: bailout "1" must be a number from 2 to 1e10`},
		{"--bailout=1e11", `--bailout: bailout "1e11" must be a number from 2 to 1e10`},
		{"--bailout=NaN", `--bailout: bailout "NaN" must be a number from 2 to 1e10`},
		{"--bailout=abc", `--bailout: bailout "abc" must be a number from 2 to 1e10`},
		{"--stripe-density=0", `--stripe-density: stripe density "0" must be a whole number from 1 to 64`},
		{"--stripe-density=2.5", `--stripe-density: stripe density "2.5" must be a whole number from 1 to 64`},
		{"--stripe-last=65", `--stripe-last: stripe last "65" must be a whole number from 1 to 64`},
	} {
		code, _, errs := exportCmd("--renderer=cpu", "--size=8x8", tc.arg, "-o", filepath.Join(t.TempDir(), "x.png"))
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, %q; want one line with %q", tc.arg, code, errs, tc.want)
		}
	}
}

// TestRecolourOrbitChannels: a raw file of a view with the orbit channels holds T and STRIPE;
// its recolour to the angle or the stripe colouring is the export of that colouring byte for
// byte; a raw file without them refuses those colourings in one line.
func TestRecolourOrbitChannels(t *testing.T) {
	dir := t.TempDir()
	raw, plainRaw := filepath.Join(dir, "v.exr"), filepath.Join(dir, "p.exr")
	view := []string{"--renderer=cpu", "--center=-0.7453,0.1127", "--zoom=180", "--iterations=400", "--size=96x54", "--bailout=1000", "--density=0.5"}
	mustExport(t, append(view, "--colouring=angle", "--raw="+raw)...)
	src, err := export.OpenRaw(raw)
	if err != nil || !src.Channels {
		t.Fatalf("raw file: channels %v, %v", src != nil && src.Channels, err)
	}
	src.Close()
	for _, m := range []string{"angle", "stripe", "slopes"} {
		want, got := filepath.Join(dir, m+"-export.png"), filepath.Join(dir, m+"-recolour.png")
		mustExport(t, append(view, "--colouring="+m, "-o", want)...)
		if code, errs := recolourCmd(raw, "--colouring="+m, "-o", got); code != 0 {
			t.Fatalf("recolour %s: exit %d: %s", m, code, errs)
		}
		if !bytes.Equal(readFile(t, want), readFile(t, got)) {
			t.Errorf("recolour to %s differs from its export", m)
		}
	}
	mustExport(t, "--renderer=cpu", "--size=32x18", "--raw="+plainRaw)
	code, errs := recolourCmd(plainRaw, "--colouring=stripe", "-o", filepath.Join(dir, "x.png"))
	if want := "the stripe colouring reads the orbit channels T and STRIPE, which " + plainRaw + " does not hold"; code != 2 || !strings.Contains(errs, want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("recolour of a raw file without the channels: exit %d, %q", code, errs)
	}
}

// TestProbeChannelsExact: `probe --channels` against `probe --channels --exact` at zoom 1e100,
// radius 1000: every pixel that escapes with the same count has T within 0.002 turns and
// STRIPE within 0.01 of math/big's, printed as X Y N T STRIPE with 6 decimals.
func TestProbeChannelsExact(t *testing.T) {
	// misiurewicz1e100 of fractal/testdata/deep/locations.txt: beside the Misiurewicz point i.
	const re = "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030"
	const im = "1.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000450"
	args := []string{"probe", "--channels", "--center=" + re + "," + im, "--zoom=1e100", "--iterations=3000", "--bailout=1000", "--size=160x90"}
	var pts []string
	for y := 5; y < 90; y += 20 {
		for x := 5; x < 160; x += 20 {
			pts = append(pts, fmt.Sprintf("%d,%d", x, y))
		}
	}
	run := func(extra ...string) []string {
		var out, errb bytes.Buffer
		if code := Run(append(append(append([]string{}, args...), extra...), pts...), &out, &errb); code != 0 {
			t.Fatalf("probe %v: exit %d: %s", extra, code, errb.String())
		}
		return strings.Split(strings.TrimSpace(out.String()), "\n")
	}
	got, exact := run(), run("--exact")
	if len(got) != len(pts) || len(exact) != len(pts) {
		t.Fatalf("%d and %d lines for %d pixels", len(got), len(exact), len(pts))
	}
	same := 0
	for i := range got {
		var x, y, n, xe, ye, ne int
		var tt, st, te, se float64
		if k, err := fmt.Sscanf(got[i], "%d %d %d %f %f", &x, &y, &n, &tt, &st); k != 5 || err != nil || !strings.Contains(got[i], ".") {
			t.Fatalf("line %q: %v", got[i], err)
		}
		fmt.Sscanf(exact[i], "%d %d %d %f %f", &xe, &ye, &ne, &te, &se)
		if n < 0 || n != ne {
			continue
		}
		same++
		d := math.Abs(tt - te)
		if d = math.Min(d, 1-d); d > 0.002 || math.Abs(st-se) > 0.01 {
			t.Errorf("pixel %d,%d: %q, exact %q", x, y, got[i], exact[i])
		}
	}
	t.Logf("%d of %d pixels compared", same, len(pts))
	if same < len(pts)*3/4 {
		t.Errorf("only %d of %d pixels escaped with the exact count:\n%s\n%s", same, len(pts), strings.Join(got, "\n"), strings.Join(exact, "\n"))
	}
}
