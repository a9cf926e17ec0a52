package fractal

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// circleView is a view whose reference orbit lies on the escape circle: the tip c = -2 (0,
// -2, 2, 2, ...: |Z_m| = 2 from m = 2 on), the Julia set of c = -2 at its fixed point 2, at
// -2 (which goes to 2) and at 0 (0, -2, 2, ...), the same tip for the Burning Ship and the
// Mandelbar (whose maps agree with z^2 + c on the real axis), and the orbit path with radius
// 2 given (Bailout: the channels' loops).
type circleView struct {
	name    string
	re, im  string
	julia   bool // the Julia set of c = -2
	formula FormulaKind
	bailout float64
	zoom    string
	iter    int
	w, h    int
}

func circleViews() []circleView {
	var vs []circleView
	for _, z := range []struct {
		zoom   string
		iter   int
		w, h   int
		suffix string
	}{{"1e30", 300, 20, 12, ""}, {"1e400", 2000, 8, 4, " 1e400"}} {
		add := func(v circleView) {
			v.zoom, v.iter, v.w, v.h, v.name = z.zoom, z.iter, z.w, z.h, v.name+z.suffix
			vs = append(vs, v)
		}
		add(circleView{name: "tip -2", re: "-2", im: "0"})
		add(circleView{name: "tip -2 bailout 2", re: "-2", im: "0", bailout: 2})
		add(circleView{name: "julia -2 at 2", re: "2", im: "0", julia: true})
		add(circleView{name: "julia -2 at -2", re: "-2", im: "0", julia: true})
		add(circleView{name: "julia -2 at 0", re: "0", im: "0", julia: true})
		add(circleView{name: "julia -2 at 2 bailout 2", re: "2", im: "0", julia: true, bailout: 2})
		add(circleView{name: "burning ship tip -2", re: "-2", im: "0", formula: BurningShip})
		add(circleView{name: "mandelbar tip -2", re: "-2", im: "0", formula: Mandelbar})
		add(circleView{name: "mandelbar julia -2 at 2", re: "2", im: "0", julia: true, formula: Mandelbar})
	}
	return vs
}

func (v circleView) frame(t testing.TB) Frame {
	t.Helper()
	l := Home()
	l.Re, l.Im, l.Zoom, l.Iterations, l.Bailout = MustDecimal(v.re), MustDecimal(v.im), MustDecimal(v.zoom), v.iter, v.bailout
	if v.julia {
		l.Julia = JuliaParam{On: true, Re: MustDecimal("-2"), Im: MustDecimal("0")}
	}
	if v.formula != Mandelbrot {
		fm, err := MakeFormula(v.formula, 2)
		if err != nil {
			t.Fatal(err)
		}
		l.Formula = fm
	}
	f := NewFrame(l, v.w, v.h)
	if !f.Precision().Perturbs() {
		t.Fatalf("%s: precision %v, want perturbation", v.name, f.Precision())
	}
	f, err := f.WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestEscapeOnCircle: where the reference orbit lies on the escape circle (|Z_m| = 2
// exactly), |Z_m + d|^2 > 4 computed in float64 rounds to 4 for a tiny d, and the pixels left
// of the tip -2, which escape at their first iteration, went on for 25 (at 1e30) until d had
// grown past the rounding. Every pixel's count, by the loops the picture takes (plain, with
// the derivative, the orbit path, a formula's; float64 and extended-exponent deltas), is
// math/big's (EscapeBig, the probe's --exact).
func TestEscapeOnCircle(t *testing.T) {
	for _, v := range circleViews() {
		if v.zoom == "1e400" && (raceEnabled || testing.Short()) {
			v.w, v.h = 4, 2 // math/big at 2,700 bits: seconds a view with the race detector
		}
		t.Run(v.name, func(t *testing.T) {
			f := v.frame(t)
			want := make([]int, v.w*v.h)
			escaped := 0
			for i := range want {
				want[i], _, _ = f.EscapeBig(i%v.w, i/v.w, false)
				if want[i] >= 0 {
					escaped++
				}
			}
			if escaped == 0 {
				t.Errorf("no pixel escaped: the view tests nothing")
			}
			for _, de := range []bool{false, true} {
				f.Derivative = de
				bad := 0
				for i, w := range want {
					x, y := i%v.w, i/v.w
					var n int
					switch {
					case f.OrbitPath():
						n = f.PixelChannels(x, y).N
					case de:
						n = f.Pixel(x, y).N
					default:
						n, _ = f.Escape(x, y)
					}
					if n != w {
						if bad++; bad <= 5 {
							t.Errorf("derivative %v: pixel %d,%d: %d, math/big %d", de, x, y, n, w)
						}
					}
				}
				if bad > 0 {
					t.Errorf("derivative %v: %d of %d pixels differ from math/big (precision %v)", de, bad, len(want), f.Precision())
				}
			}
		})
	}
}

// TestEscapeExact checks the exact test against the points it decides: on the circle (the
// four points of radius 2 that float64 holds, and (3, 4) on radius 5) with deltas from 1e-300
// to 1e-3 in every direction (escaped exactly where 2 Re(conj(Z) d) + |d|^2 > 0), a delta
// perpendicular to Z (|d|^2 alone decides: out), none (not out), and the points just inside
// and outside the circle by one ulp.
func TestEscapeExact(t *testing.T) {
	type pt struct{ x, y, r2 float64 }
	pts := []pt{{2, 0, 4}, {-2, 0, 4}, {0, 2, 4}, {0, -2, 4}, {3, 4, 25}, {-4, 3, 25}}
	for _, p := range pts {
		if escapeExact(p.x, p.y, 0, 0, p.r2) {
			t.Errorf("Z = %v, %v with d = 0: escaped, but |Z|^2 = R^2", p.x, p.y)
		}
		for _, s := range []float64{1e-300, 1e-200, 1e-30, 1e-17, 1e-10, 1e-3} {
			for k := range 16 {
				a := 2 * math.Pi * float64(k) / 16
				dr, di := s*math.Cos(a), s*math.Sin(a)
				dot := p.x*dr + p.y*di
				v := 2*dot + dr*dr + di*di // |Z + d|^2 - R^2, d far beyond the rounding of Z
				if math.Abs(v) < 1e-9*s || math.Abs(dot) < 1e-9*s {
					continue // within rounding of the tie: either answer
				}
				if got := escapeExact(p.x, p.y, dr, di, p.r2); got != (v > 0) {
					t.Errorf("Z = %v, %v, d = %g, %g: escaped %v, want %v", p.x, p.y, dr, di, got, v > 0)
				}
				// The extended form, at the same d and at d 2^-2000 (where the sign of
				// Re(conj(Z) d) alone decides).
				if got := escapeExactCx(p.x, p.y, cxFrom(dr, di), p.r2); got != (v > 0) {
					t.Errorf("Z = %v, %v, d = %g, %g (cx): escaped %v, want %v", p.x, p.y, dr, di, got, v > 0)
				}
				d := cxFrom(dr, di)
				d.e -= 2000
				if got := escapeExactCx(p.x, p.y, d, p.r2); got != (dot > 0) {
					t.Errorf("Z = %v, %v, d = (%g, %g) 2^-2000 (cx): escaped %v, want %v", p.x, p.y, dr, di, got, dot > 0)
				}
			}
		}
		// Perpendicular (d a power of two times (-y, x), exactly): |Z + d|^2 = R^2 + |d|^2,
		// out, however small |d|^2 (below float64's range from 2^-540 on).
		for _, s := range []float64{0x1p-1000, 0x1p-700, 0x1p-100, 0x1p-56, 0x1p-10} {
			if dr, di := -p.y*s, p.x*s; !escapeExact(p.x, p.y, dr, di, p.r2) {
				t.Errorf("Z = %v, %v, d = %g, %g (perpendicular): not escaped", p.x, p.y, dr, di)
			}
		}
	}
	// One ulp inside and outside the circle, d = 0.
	for _, c := range []struct {
		x    float64
		want bool
	}{{math.Nextafter(2, 0), false}, {math.Nextafter(2, 3), true}} {
		if got := escapeExact(c.x, 0, 0, 0, 4); got != c.want {
			t.Errorf("Z = %v: escaped %v, want %v", c.x, got, c.want)
		}
	}
	// escapes agrees with the plain test away from the band.
	for _, z2 := range []float64{3.9, 4 * (1 - 0x1p-30), 4 * (1 + 0x1p-30), 4.1} {
		x := math.Sqrt(z2)
		if got := escapes(complex(x, 0), 0, 0, z2, 4); got != (z2 > 4) {
			t.Errorf("escapes at |z|^2 = %v: %v", z2, got)
		}
	}
}

// TestNearBoundBelowMaybe: nearBound keeps every lane it lets skip the check below the
// escape test's "maybe" threshold esc4Lo (else a lane on the circle could skip the exact
// test): |Z| + near < sqrt(esc4Lo) with room for the rounding, for |Z| up to 2.
func TestNearBoundBelowMaybe(t *testing.T) {
	for _, a := range []float64{0x1p-440, 0.5, 1, 1.9, 2 - 0x1p-30, 2 - 0x1p-34, 2 - 0x1p-40, math.Nextafter(2, 0), 2} {
		nb := nearBound(a)
		if r := a + nb; nb > 0 && r*r*(1+0x1p-48) > esc4Lo {
			t.Errorf("nearBound(%v) = %v: |Z| + near = %v reaches the maybe threshold", a, nb, r)
		}
	}
	if nearBound(2) != 0 {
		t.Errorf("nearBound(2) = %v, want 0: every lane on the circle is checked", nearBound(2))
	}
}

func ExampleFrame_EscapeBig() {
	l := Home()
	l.Re, l.Zoom, l.Iterations = MustDecimal("-2"), MustDecimal("1e30"), 300
	f := NewFrame(l, 200, 120)
	for _, p := range [][2]int{{5, 7}, {100, 60}, {150, 60}} {
		n, _, _ := f.EscapeBig(p[0], p[1], false)
		fmt.Println(p, n)
	}
	// Output:
	// [5 7] 1
	// [100 60] 55
	// [150 60] 59
}
