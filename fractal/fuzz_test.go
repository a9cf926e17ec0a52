package fractal

import (
	"math"
	"strings"
	"testing"
)

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "-0.75", "1e-12", digits60, "NaN", "1e", ".", "+.5e+3", "1e999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecimal(s)
		if err != nil {
			return
		}
		if d.String() != strings.TrimSpace(s) {
			t.Fatalf("text changed: %q -> %q", s, d.String())
		}
		if math.IsNaN(d.Float64()) {
			t.Fatalf("%q parsed to NaN", s)
		}
		again, err := ParseDecimal(d.String())
		if err != nil || !again.Equal(d) {
			t.Fatalf("re-parse of %q: %v", d.String(), err)
		}
		_ = d.Big(d.SignificantBits())
	})
}

func FuzzParseLocationText(f *testing.F) {
	l := Home()
	l.Re = MustDecimal(digits60)
	for _, s := range []string{l.String(), Home().String(), "-0.75, 0.1, 1e3", "-0.75, 0.1, 1e3, 500", "re=1 im=x", "zoom=0", "palette=fire density=2", "a,b,c", "re=0 im=0 zoom=1e300 iterations=100000000"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseLocationText(s, Home())
		if err != nil {
			if got != Home() {
				t.Fatalf("a failed parse changed the location: %v", got)
			}
			return
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("accepted an invalid location %v: %v", got, err)
		}
		back, err := ParseLocationText(got.String(), Home())
		if err != nil || back != got {
			t.Fatalf("round trip of %q: %v, %v", got.String(), back, err)
		}
		// Navigating from any accepted location must not panic.
		_ = got.Offset(3, -2, 320, 200).ZoomAt(10, 10, 2, 320, 200)
	})
}
