package fractal

import (
	"strings"
	"testing"
)

// TestCheckZoomExact: the zoom's limits are compared exactly, digit for digit: a zoom a hair
// below 1e-3 or above 1e10000 (which rounds to the limit in 53 bits) is refused, and every
// way of writing a limit itself is accepted.
func TestCheckZoomExact(t *testing.T) {
	for _, z := range []string{
		"0.001", "1e-3", "1E-3", "0.0010", "1.000e-3", "000.001000", "0.00100000000000000000000000000001",
		"1e10000", "10e9999", "0.1e10001", "1.0000000000000000000000000000000e10000", "9.99999999999999999999999e9999",
		"1", "+1", "4.00000000000E533", ".5", "1e-2",
	} {
		if err := CheckZoom(MustDecimal(z)); err != nil {
			t.Errorf("CheckZoom(%s): %v", z, err)
		}
	}
	for _, z := range []string{
		"0.00099999999999999999999", "0.0009999999999999999999999999999999999999", "9.99999999999999999999e-4",
		"0.000999", "1e-4", "1e-999999",
		"1.00000000000000000000001e10000", "10000000000000000000000001e9975", "1e10001", "1.0000000000000001e10000",
	} {
		err := CheckZoom(MustDecimal(z))
		if err == nil || !strings.Contains(err.Error(), "is out of range (0.001 to 1e10000)") || strings.Contains(err.Error(), "\n") {
			t.Errorf("CheckZoom(%s): %v, want out of range", z, err)
		}
	}
	for _, z := range []string{"0", "-1", "0e5", "-0.0", "-1e-3", "0.000"} {
		if err := CheckZoom(MustDecimal(z)); err == nil || !strings.Contains(err.Error(), "must be a positive number") {
			t.Errorf("CheckZoom(%s): %v, want not positive", z, err)
		}
	}
	for _, bad := range []Decimal{DecimalFromFloat(0), {text: "+Inf"}, {text: "NaN"}} {
		if err := CheckZoom(bad); err == nil {
			t.Errorf("CheckZoom(%q) accepted", bad.String())
		}
	}
	// Zooming out and in to the limits lands on them, and they are valid.
	l := Home()
	for range 20 {
		l = l.ZoomAt(0, 0, 1e-300, 640, 480)
	}
	if err := CheckZoom(l.Zoom); err != nil || l.Zoom.String() != "0.001" {
		t.Errorf("zoomed out to %s: %v", l.Zoom, err)
	}
	l.Zoom = MustDecimal("1e9990")
	for range 10 {
		l = l.ZoomAt(0, 0, 1e300, 640, 480)
	}
	if err := CheckZoom(l.Zoom); err != nil {
		t.Errorf("zoomed in to %s: %v", l.Zoom, err)
	}
}

func FuzzCompareDecimal(f *testing.F) {
	for _, s := range []string{"0.001", "1e-3", "-0", "0.00099999999999999999999", "1e10000", "12.5e-1"} {
		f.Add(s, "0.001")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		x, err1 := ParseDecimal(a)
		y, err2 := ParseDecimal(b)
		if err1 != nil || err2 != nil || len(a) > 60 || len(b) > 60 {
			return
		}
		c := compareDecimal(x, y)
		if compareDecimal(y, x) != -c {
			t.Fatalf("compare(%s, %s) = %d, not antisymmetric", a, b, c)
		}
		// Against math/big at a precision that holds 60 digits and any exponent.
		want := x.Big(512).Cmp(y.Big(512))
		if c != want {
			t.Fatalf("compare(%s, %s) = %d, math/big says %d", a, b, c, want)
		}
	})
}
