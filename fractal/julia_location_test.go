package fractal

import (
	"math/big"
	"strings"
	"testing"
)

// TestJuliaLocationText: julia=RE,IM goes through the location text exactly, every digit, and
// a location without it is written as before (no julia key).
func TestJuliaLocationText(t *testing.T) {
	long := "-0.7436438870371587522158764240232652364824339214235353621412343124" + strings.Repeat("7", 200)
	l, err := ParseLocationText("re=0.1 im=-0.2 zoom=1e60 julia="+long+",0.13182590420531197049", Home())
	if err != nil {
		t.Fatal(err)
	}
	if !l.IsJulia() || l.Julia.Re.String() != long || l.Julia.Im.String() != "0.13182590420531197049" {
		t.Fatalf("julia parameter %q, want %s,0.13182590420531197049", l.Julia, long)
	}
	back, err := ParseLocationText(l.String(), Home())
	if err != nil || back != l {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, back, l)
	}
	if !strings.Contains(l.View(), "julia=") {
		t.Errorf("View %q does not name the parameter: Julia and Mandelbrot views would share samples", l.View())
	}
	if s := Home().String(); strings.Contains(s, "julia") {
		t.Errorf("Mandelbrot location text %q names julia", s)
	}
	off, err := ParseLocationText("julia=off", l)
	if err != nil || off.IsJulia() {
		t.Errorf("julia=off: %v, julia %v", err, off.Julia)
	}
}

func TestParseJuliaErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"0.3", "not RE,IM"},
		{"1,2,3", "not RE,IM"},
		{"x,0", "real part"},
		{"0,nan", "imaginary part"},
		{"5,0", "out of range"},
		{"0,-4.5", "out of range"},
	} {
		_, err := ParseJulia(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseJulia(%q) = %v, want one line naming %q", c.in, err, c.want)
		}
	}
	j, err := ParseJulia(" -0.123 , 0.745 ")
	if err != nil || j.String() != "-0.123,0.745" {
		t.Errorf("ParseJulia with spaces = %v, %v", j, err)
	}
}

// TestJuliaAtAndBack: JuliaAt shows the set whole; Mandelbrot returns to the parameter.
func TestJuliaAtAndBack(t *testing.T) {
	m := Home()
	m.Zoom = MustDecimal("1e20")
	j := m.JuliaAt(MustDecimal("-0.75"), MustDecimal("0.1"))
	if !j.IsJulia() || j.Re.String() != "0" || j.Zoom.String() != "1" || j.Iterations != m.Iterations {
		t.Fatalf("JuliaAt = %v", j)
	}
	j.Zoom = MustDecimal("1e20")
	b := j.Mandelbrot()
	if b.IsJulia() || b.Re.String() != "-0.75" || b.Im.String() != "0.1" || b.Zoom.String() != "1e20" {
		t.Fatalf("Mandelbrot() = %v", b)
	}
	if err := j.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestEscapeJuliaBigAtC: the Julia orbit of z1 = c is the Mandelbrot orbit of c.
func TestEscapeJuliaBigAtC(t *testing.T) {
	for _, c := range [][2]float64{{-0.75, 0.1}, {0.3, 0.5}, {-1.5, 0}, {0.26, 0}, {3, 1}} {
		cr, ci := big.NewFloat(c[0]).SetPrec(200), big.NewFloat(c[1]).SetPrec(200)
		if a, b := EscapeJuliaBig(cr, ci, cr, ci, 5000, 200), EscapeBig(cr, ci, 5000, 200); a != b {
			t.Errorf("c = %v: Julia count at z1 = c %d, Mandelbrot count %d", c, a, b)
		}
	}
}

// TestLongestJuliaLocationReadsBack: a location whose centre and Julia parameter all have
// MaxDecimalDigits digits, with a gradient, is read back from its own text.
func TestLongestJuliaLocationReadsBack(t *testing.T) {
	d := func(lead string) Decimal { return MustDecimal(lead + "." + strings.Repeat("3", MaxDecimalDigits-len(lead)-1)) }
	l := Home()
	l.Re, l.Im = d("0"), d("-0")
	l.Julia = JuliaParam{On: true, Re: d("-0"), Im: d("0")}
	back, err := ParseLocationText(l.String(), Home())
	if err != nil || back != l {
		t.Fatalf("read back: %v (equal %v)", err, back == l)
	}
}
