package fractal

import (
	"context"
	"mandelscope/colour"
	"math"
	"strings"
	"testing"
)

// TestEscapeDEMatchesEscape: carrying the derivative changes neither the escape count nor
// the smooth value, in float32 and float64.
func TestEscapeDEMatchesEscape(t *testing.T) {
	f := NewFrame(Home(), 97, 61)
	for y := range f.H {
		for x := range f.W {
			cr, ci := f.Point64(x, y)
			n, nu := Escape64(cr, ci, 500)
			r := EscapeDE64(cr, ci, 500, f.Spacing)
			if r.N != n || r.Nu != nu {
				t.Fatalf("float64 (%d,%d): EscapeDE64 %d %v, Escape64 %d %v", x, y, r.N, r.Nu, n, nu)
			}
			fr, fi := f.Point32(x, y)
			n, nu = Escape32(fr, fi, 500)
			r = EscapeDE32(fr, fi, 500, float32(f.Spacing))
			if r.N != n || r.Nu != nu {
				t.Fatalf("float32 (%d,%d): EscapeDE32 %d %v, Escape32 %d %v", x, y, r.N, r.Nu, n, nu)
			}
		}
	}
}

// TestDistanceEstimateBounds checks the estimate against the true distance where it is known:
// on the real axis left of -2, the tip of the set's antenna. The classic estimate b satisfies
// b/4 <= d <= b (Koebe, as the Green's function tends to 0; 10% slack for the
// finite escape radius); b is in pixels, so b*spacing.
func TestDistanceEstimateBounds(t *testing.T) {
	const spacing = 1e-3
	for _, c := range []float64{-2.0001, -2.001, -2.01, -2.05, -2.2} {
		d := -2 - c
		r := EscapeDE64(c, 0, 10000, spacing)
		b := r.DE * spacing
		if r.N < 0 || !(b/4 <= d*1.1 && d <= b*1.02) {
			t.Errorf("c=%g: estimate %g (n=%d), true distance %g: want b/4 <= d <= b", c, b, r.N, d)
		}
	}
}

// TestDistanceEstimateScale: the estimate is in pixels, so for one c it scales as 1/spacing
// (lines keep their width in pixels at any zoom), also where dz/dc itself would overflow.
func TestDistanceEstimateScale(t *testing.T) {
	c := complex(-0.7436438870371, 0.1318259042053)
	a := EscapeDE64(real(c), imag(c), 5000, 1e-6)
	b := EscapeDE64(real(c), imag(c), 5000, 1e-300)
	if a.N < 0 || a.N != b.N {
		t.Fatalf("n %d and %d", a.N, b.N)
	}
	if got := b.DE * 1e-300 / (a.DE * 1e-6); math.Abs(got-1) > 1e-9 {
		t.Errorf("DE*spacing differs between spacings 1e-6 and 1e-300 by a factor %v", got)
	}
	if b.DE <= 0 || math.IsInf(b.DE, 0) {
		t.Errorf("DE at spacing 1e-300 is %v", b.DE)
	}
}

// TestPerturbEscapeDE: perturbation with the derivative gives PerturbEscape's n and nu, and
// (plain and through BLA jumps) the distance estimate and normal of the direct float64
// iteration at a view float64 still resolves.
func TestPerturbEscapeDE(t *testing.T) {
	l := Home()
	l.Re, l.Im, l.Zoom = MustDecimal("-0.743643887037151"), MustDecimal("0.13182590420533"), MustDecimal("2e4")
	l.Iterations = 3000
	f := NewFrame(l, 64, 48)
	ref, err := ComputeReference(context.Background(), l.Re, l.Im, f.ReferenceBits(), l.Iterations, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Ref = ref
	f.DRe, f.DIm = f.offsetFrom(ref)
	bla := f.BLA()
	total, close, closeBLA := 0, 0, 0
	for y := range f.H {
		for x := range f.W {
			dr, di := f.Delta(x, y)
			for _, b := range []*BLA{nil, bla} {
				n, nu := PerturbEscape(ref, b, dr, di, l.Iterations, nil)
				r := PerturbEscapeDE(ref, b, dr, di, l.Iterations, f.Spacing, nil)
				if r.N != n || r.Nu != nu {
					t.Fatalf("(%d,%d) bla=%v: PerturbEscapeDE %d %v, PerturbEscape %d %v", x, y, b != nil, r.N, r.Nu, n, nu)
				}
			}
			cr, ci := f.Point64(x, y)
			want := EscapeDE64(cr, ci, l.Iterations, f.Spacing)
			if want.N < 0 {
				continue
			}
			total++
			near := func(r Result) bool {
				return r.N == want.N && math.Abs(r.DE/want.DE-1) < 1e-3 && math.Hypot(r.Ur-want.Ur, r.Ui-want.Ui) < 1e-3
			}
			if near(PerturbEscapeDE(ref, nil, dr, di, l.Iterations, f.Spacing, nil)) {
				close++
			}
			if near(PerturbEscapeDE(ref, bla, dr, di, l.Iterations, f.Spacing, nil)) {
				closeBLA++
			}
		}
	}
	t.Logf("of %d escaping pixels, DE and normal within 1e-3 of EscapeDE64: plain %d, BLA %d", total, close, closeBLA)
	if total < 100 || close < total*98/100 || closeBLA < total*98/100 {
		t.Errorf("of %d escaping pixels, plain %d and BLA %d agree with EscapeDE64: want 98%%", total, close, closeBLA)
	}
}

// TestColouringText: the new keys round-trip through the compact text form, a default
// colouring writes none of them, and bad values are refused with their name.
func TestColouringText(t *testing.T) {
	l := Home()
	if s := l.String(); strings.Contains(s, "colouring") || strings.Contains(s, "transfer") || strings.Contains(s, "interior") {
		t.Errorf("default location's text %q names the new keys", s)
	}
	l.Color.Method, l.Color.Transfer, l.Color.Width, l.Color.Light, l.Color.Strength = colour.MethodSlopes, colour.TransferLog, 2.5, -30, 0.5
	l.Color.Interior = colour.InteriorPeriod
	got, err := ParseLocationText(l.String(), Home())
	if err != nil || got != l {
		t.Fatalf("round trip of %q: %+v, %v", l.String(), got, err)
	}
	got, err = ParseLocationText("colouring=smooth transfer=linear interior=black", l)
	if err != nil || got.Color.Method != "" || got.Color.Transfer != "" || got.Color.Interior != "" {
		t.Errorf("smooth/linear should read as the defaults' one form: %+v %v", got.Color, err)
	}
	for text, want := range map[string]string{
		"colouring=plasma": "unknown colouring",
		"transfer=cube":    "unknown transfer",
		"interior=pink":    "unknown interior colouring",
		"width=1000":       "line width",
		"width=NaN":        "line width",
		"light=1e9":        "light angle",
		"strength=2":       "light strength",
		"strength=-0.5":    "light strength",
		"width=x":          "width",
	} {
		if _, err := ParseLocationText(text, Home()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one naming %q", text, err, want)
		}
	}
}
