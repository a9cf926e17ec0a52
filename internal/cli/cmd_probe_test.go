package cli

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// probe runs `mandelscope probe` in-process and returns its output lines.
func probe(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Run(append([]string{"probe"}, args...), &out, &errb); code != 0 {
		t.Fatalf("probe %v: exit %d: %s", args, code, errb.String())
	}
	return strings.Split(strings.TrimSpace(out.String()), "\n")
}

// TestProbeAgainstExact compares probe's escape counts (float32 or float64, as the image would
// use) with the exact math/big reference (--exact) at zooms from 1 to 1e12. At low zoom they
// agree everywhere. Near the boundary an orbit of hundreds of iterations amplifies the last
// bit of c and of every step (|dz/dc| grows past 1e16), so a few boundary pixels' counts move
// in any fixed precision, at every depth: from zoom 1e6 on, 95% of the pixels must agree. The
// counts are the automatic ones (thousands at 1e12), where direct float64 had one pixel in
// five wrong at 1e12 until the precision rule took the count into account.
func TestProbeAgainstExact(t *testing.T) {
	if testing.Short() {
		t.Skip("exact reference is slow")
	}
	var pts []string
	for i := range 60 {
		pts = append(pts, fmt.Sprintf("%d,%d", i*83%1280, i*47%720))
	}
	for _, c := range []string{"-0.743643887037151,0.131825904205330", "-1.7687788,0.0017389", "0.360240443437614,-0.641313061064803"} {
		for _, z := range []string{"1", "1e3", "1e6", "1e9", "1e12"} {
			flags := []string{"--center=" + c, "--zoom=" + z, "--size=1280x720"}
			got := probe(t, append(flags, pts...)...)
			want := probe(t, append(append(flags, "--exact"), pts...)...)
			if len(got) != len(pts) || len(want) != len(pts) {
				t.Fatalf("%s @ %s: %d and %d lines for %d pixels", c, z, len(got), len(want), len(pts))
			}
			same := 0
			for i := range got {
				var x, y, n, xe, ye, ne int
				fmt.Sscanf(got[i], "%d %d %d", &x, &y, &n)
				fmt.Sscanf(want[i], "%d %d %d", &xe, &ye, &ne)
				if x != xe || y != ye {
					t.Fatalf("line %d: %q vs %q", i, got[i], want[i])
				}
				if n == ne {
					same++
				} else {
					t.Logf("%s @ %s pixel %d,%d: count %d, exact %d", c, z, x, y, n, ne)
				}
			}
			need := len(pts)
			if z != "1" && z != "1e3" {
				need = len(pts) * 95 / 100
			}
			if same < need {
				t.Errorf("%s @ %s: %d of %d pixels agree with the exact count, want at least %d", c, z, same, len(pts), need)
			}
		}
	}
}

func TestProbeKnownCounts(t *testing.T) {
	// A 1x1 image samples its centre exactly: c = 1 escapes at iteration 3, c = -2.5 at 1, and
	// c = 0 and c = -1 never (-1).
	for _, tc := range []struct {
		center string
		want   string
	}{{"1,0", "0 0 3"}, {"0,0", "0 0 -1"}, {"-1,0", "0 0 -1"}, {"-2.5,0", "0 0 1"}} {
		got := probe(t, "--center="+tc.center, "--size=1x1", "--iterations=100", "0,0")
		if got[0] != tc.want {
			t.Errorf("probe at %s: %q, want %q", tc.center, got[0], tc.want)
		}
	}
}

func TestProbeBadInput(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--size=0x10", "0,0"},
		{"--size=10x10", "200000,0"},
		{"--size=10x10", "-70000,0"},
		{"--size=10x10", "a,b"},
		{"--zoom=NaN", "0,0"},
		{"--center=1", "0,0"},
		{"--iterations=-5", "0,0"},
		{"--bogus", "0,0"},
	} {
		var out, errb bytes.Buffer
		code := Run(append([]string{"probe"}, args...), &out, &errb)
		msg := errb.String()
		if code == 0 || strings.Count(msg, "\n") != 1 || strings.Contains(msg, "goroutine") {
			t.Errorf("probe %v: exit %d, stderr %q: want a one-line error and a non-zero exit", args, code, msg)
		}
	}
}

// TestProbeDeep compares probe (perturbation past float64's reach) with --exact (math/big, at
// a precision from log2 of the zoom) at zoom 1e14, the view whose pixels escape
// after 2920-3084 iterations, at 1e290 near the Misiurewicz point i, and there at 1e1000, past
// float64's exponent (--zoom=1e1000: perturbation with extended exponents).
func TestProbeDeep(t *testing.T) {
	if testing.Short() {
		t.Skip("exact reference is slow")
	}
	var pts []string
	for i := range 16 {
		pts = append(pts, fmt.Sprintf("%d,%d", i*83%1280, i*47%720))
	}
	for _, c := range []struct{ re, im, zoom string }{
		{"-0.743643887037151", "0.131825904205330", "1e14"},
		{"3e-291", "1.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000045", "1e290"},
		{"3e-1001", "1." + strings.Repeat("0", 1000) + "45", "1e1000"},
	} {
		flags := []string{"--center=" + c.re + "," + c.im, "--zoom=" + c.zoom, "--size=1280x720", "--iterations=5000"}
		got := probe(t, append(flags, pts...)...)
		want := probe(t, append(append(flags, "--exact"), pts...)...)
		same := 0
		for i := range got {
			var x, y, n, ne int
			fmt.Sscanf(got[i], "%d %d %d", &x, &y, &n)
			fmt.Sscanf(want[i], "%d %d %d", &x, &y, &ne)
			if n < 0 || ne < 0 {
				t.Errorf("zoom %s pixel %d,%d: count %d, exact %d: these pixels escape", c.zoom, x, y, n, ne)
			}
			if n == ne {
				same++
			} else {
				t.Logf("zoom %s pixel %d,%d: count %d, exact %d", c.zoom, x, y, n, ne)
			}
		}
		if same < len(pts)*9/10 {
			t.Errorf("zoom %s: %d of %d pixels agree with the exact count", c.zoom, same, len(pts))
		}
	}
}

// TestProbeNegativePixels checks that a negative coordinate is a pixel, not a flag, before
// or after the flags, and that it lies where the image's pixel grid continues: one pixel
// left of a 1x1 image at zoom 4 (spacing 1) centred on 2 is c = 1, which escapes at 3.
func TestProbeNegativePixels(t *testing.T) {
	for _, args := range [][]string{
		{"--center=2,0", "--size=1x1", "--zoom=4", "--iterations=100", "-1,0"},
		{"-1,0", "--center=2,0", "--size=1x1", "--zoom=4", "--iterations=100"},
		{"--center", "2,0", "--size", "1x1", "--zoom", "4", "--iterations", "100", "-1,0"},
	} {
		if got := probe(t, args...); len(got) != 1 || got[0] != "-1 0 3" {
			t.Errorf("probe %q = %q, want [\"-1 0 3\"]", args, got)
		}
	}
	// A negative number stays the value of the flag before it.
	if got := probe(t, "--center", "-1.5,0", "--size=1x1", "--iterations=100", "0,0", "-1,0"); len(got) != 2 {
		t.Errorf("probe with a negative flag value: %q", got)
	}
}
