package fractal

import "testing"

// ClampCentre brings each part of a centre within ±MaxCentre exactly and leaves one within
// it as it was (its text too), so that a clamped view always validates.
func TestClampCentre(t *testing.T) {
	for _, c := range []struct {
		re, im         string
		wantRe, wantIm string
		moved          bool
	}{
		{"-0.5", "0", "-0.5", "0", false},
		{"-24.5", "0", "-4", "0", true},
		{"0.25", "31.75", "0.25", "4", true},
		{"1e3", "-1e3", "4", "-4", true},
		{"4", "-4", "4", "-4", false},
		{"4.000", "-4.0e0", "4.000", "-4.0e0", false},
		// Beyond 4 by less than float64 tells apart: still outside, still clamped.
		{"4.0000000000000000001", "0", "4", "0", true},
		{"-3.99999999999999999999", "0.1", "-3.99999999999999999999", "0.1", false},
	} {
		l := Home()
		l.Re, l.Im = MustDecimal(c.re), MustDecimal(c.im)
		got, moved := l.ClampCentre()
		if got.Re.String() != c.wantRe || got.Im.String() != c.wantIm || moved != c.moved {
			t.Errorf("ClampCentre(%s, %s) = %s, %s moved %v; want %s, %s moved %v", c.re, c.im, got.Re, got.Im, moved, c.wantRe, c.wantIm, c.moved)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("ClampCentre(%s, %s) does not validate: %v", c.re, c.im, err)
		}
	}
}
