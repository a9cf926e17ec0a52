package fractal

import (
	"strings"
	"testing"
)

// TestCentreLimitExact (issue 39: --center=4.0000000000000000001,0 was accepted, the ±4
// limit being checked on the float64 the text rounds to): the limit holds on the decimal
// text itself, for the centre and the Julia parameter, read from flags' text or a file's.
func TestCentreLimitExact(t *testing.T) {
	for _, c := range []struct {
		text string
		ok   bool
	}{
		{"4", true}, {"-4", true}, {"4.000000000000000000000", true}, {"3.99999999999999999999999", true},
		{"4e0", true}, {"0.4e1", true},
		{"4.0000000000000000001", false}, {"-4.0000000000000000001", false},
		{"4.00000000000000000000000000000000000000000000000000000000001", false},
		{"4.0000000000000001e0", false}, {"4.1", false}, {"1e400", false},
	} {
		d, err := ParseDecimal(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		if got := d.AbsWithin(MaxCentre); got != c.ok {
			t.Errorf("AbsWithin(%s) = %v, want %v", c.text, got, c.ok)
		}
		l := Home()
		l.Re = d
		if err := l.Validate(); (err == nil) != c.ok {
			t.Errorf("centre %s: Validate %v", c.text, err)
		}
		l = Home()
		l.Im = d
		if err := l.Validate(); (err == nil) != c.ok {
			t.Errorf("centre imaginary %s: Validate %v", c.text, err)
		}
		if j, err := ParseJulia("0," + c.text); (err == nil) != c.ok {
			t.Errorf("julia 0,%s: %v %v", c.text, j, err)
		}
		// A file's location text.
		if _, err := ParseLocationText("re="+c.text+" im=0 zoom=1", Home()); !c.ok && (err == nil || !strings.Contains(err.Error(), "out of range")) {
			t.Errorf("location text re=%s: %v, want out of range", c.text, err)
		}
	}
}
