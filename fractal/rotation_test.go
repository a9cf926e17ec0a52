package fractal

import (
	"context"
	"math"
	"math/big"
	"strings"
	"testing"
)

func TestParseRotation(t *testing.T) {
	for in, want := range map[string]float64{
		"0": 0, "-0": 0, "360": 0, "-360": 0, "90": 90, " 450 ": 90, "-90": -90, "270": -90,
		"180": 180, "-180": 180, "540": 180, "179.5": 179.5, "-179.5": -179.5, "1e6": -80,
	} {
		got, err := ParseRotation(in)
		if err != nil || got != want || math.Signbit(got) && got == 0 {
			t.Errorf("ParseRotation(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "abc", "NaN", "Inf", "-Inf", "1e400", "90deg", strings.Repeat("1", 50)} {
		if _, err := ParseRotation(in); err == nil || !strings.Contains(err.Error(), "must be a number of degrees") {
			t.Errorf("ParseRotation(%q): %v", in, err)
		}
	}
}

// TestRotationLocationText: rotation= is written only for a rotated view (an unrotated one's
// text is what it was), read back exactly, and a rotation out of range built by hand is refused
// by Validate.
func TestRotationLocationText(t *testing.T) {
	l := Home()
	if s := l.String(); strings.Contains(s, "rotation") {
		t.Errorf("unrotated text %q", s)
	}
	for _, r := range []float64{90, -45.25, 180, 1e-9} {
		l.Rotation = r
		s := l.String()
		back, err := ParseLocationText(s, Home())
		if err != nil || back != l {
			t.Errorf("%q read back as %+v, %v", s, back, err)
		}
	}
	if _, err := ParseLocationText("re=0 im=0 zoom=1 rotation=oops", Home()); err == nil || !strings.Contains(err.Error(), `rotation "oops"`) {
		t.Errorf("bad rotation= : %v", err)
	}
	for _, r := range []float64{-180, 181, math.NaN(), math.Inf(1)} {
		l.Rotation = r
		if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "rotation") {
			t.Errorf("Validate with rotation %v: %v", r, err)
		}
	}
}

// TestRotationMoves: in a rotated view, a pan moves along the screen's axes (the point at
// screen pixel (x, y) is at the centre after Offset by its offset), and ZoomAt keeps the point
// under the cursor there, exactly as PointBig places it.
func TestRotationMoves(t *testing.T) {
	const w, h = 120, 80
	for _, rot := range []float64{0, 90, 33, -150} {
		l := Location{Re: MustDecimal("-0.743643887037151"), Im: MustDecimal("0.131825904205330"),
			Zoom: MustDecimal("1e9"), Iterations: 100, Rotation: rot}
		f := NewFrame(l, w, h)
		px, py := 17, 61
		wantRe, wantIm := f.PointBig(px, py, 200)
		moved := l.Offset(float64(px)+0.5-w/2, float64(py)+0.5-h/2, w, h)
		gotRe, gotIm := moved.Re.Big(200), moved.Im.Big(200)
		sp := SpacingExp(l.ZoomExp(), w, h).Float64()
		if d := distBig(gotRe, gotIm, wantRe, wantIm); d > 1e-3*sp {
			t.Errorf("rotation %v: Offset to pixel (%d,%d) is %g pixels off", rot, px, py, d/sp)
		}
		z := l.ZoomAt(float64(px)+0.5, float64(py)+0.5, 8, w, h)
		zr, zi := NewFrame(z, w, h).PointBig(px, py, 200)
		if d := distBig(zr, zi, wantRe, wantIm); d > 1e-3*sp {
			t.Errorf("rotation %v: ZoomAt moved the point under pixel (%d,%d) by %g pixels", rot, px, py, d/sp)
		}
	}
}

// distBig is |(ar, ai) - (br, bi)| as a float64.
func distBig(ar, ai, br, bi *big.Float) float64 {
	dr, _ := new(big.Float).SetPrec(ar.Prec()).Sub(ar, br).Float64()
	di, _ := new(big.Float).SetPrec(ai.Prec()).Sub(ai, bi).Float64()
	return math.Hypot(dr, di)
}

// TestRotationFind: in a view turned by a quarter turn, a search from the pointer starts at
// the point the screen shows there (the minibrot and the Misiurewicz point found are those of
// the unrotated view from the pixel that shows the same point) and keeps the rotation; and
// the view's bounds are the turned rectangle's (inView).
func TestRotationFind(t *testing.T) {
	const w, h = 200, 200
	l := Home()
	l.Re, l.Im, l.Zoom, l.Iterations = MustDecimal("-0.7436"), MustDecimal("0.1318"), MustDecimal("300"), 500
	turned := l
	turned.Rotation = 90
	// Screen pixel (60, 150) of the turned view: offset (-40, -50) on the screen, (-50, 40)
	// in the plane: pixel (50, 60) of the unrotated view.
	for _, misi := range []bool{false, true} {
		find := FindMinibrot
		if misi {
			find = FindMisiurewicz
		}
		a, err := find(context.Background(), turned, w, h, 60, 150, 10000)
		if err != nil {
			t.Fatal(err)
		}
		b, err := find(context.Background(), l, w, h, 50, 60, 10000)
		if err != nil {
			t.Fatal(err)
		}
		if !a.Loc.Re.Equal(b.Loc.Re) || !a.Loc.Im.Equal(b.Loc.Im) || a.Loc.Rotation != 90 {
			t.Errorf("misiurewicz %v: turned view found %s, unrotated %s", misi, a.Loc, b.Loc)
		}
		if txt := a.Text(); !strings.Contains(txt, " rotation=90 ") || strings.Contains(b.Text(), "rotation") {
			t.Errorf("find's lines %q and %q", txt, b.Text())
		}
	}
	// A point at the unrotated view's corner lies outside the view turned by 45 degrees; one
	// along its diagonal, past the unrotated edge, lies inside it.
	wide := l
	wide.Rotation = 45
	sp := SpacingExp(l.ZoomExp(), w, h).Float64()
	at := func(dx, dy float64) (*big.Float, *big.Float) {
		re, im := l.Re.Big(128), l.Im.Big(128)
		return re.Add(re, big.NewFloat(dx*sp)), im.Add(im, big.NewFloat(dy*sp))
	}
	if cr, ci := at(95, 95); !inView(l, w, h, cr, ci) || inView(wide, w, h, cr, ci) {
		t.Errorf("corner (95, 95): in the unrotated view %v, in the turned one %v", inView(l, w, h, cr, ci), inView(wide, w, h, cr, ci))
	}
	if cr, ci := at(130, 0); inView(l, w, h, cr, ci) || !inView(wide, w, h, cr, ci) {
		t.Errorf("(130, 0): in the unrotated view %v, in the turned one %v", inView(l, w, h, cr, ci), inView(wide, w, h, cr, ci))
	}
}

// TestRotationDeltaExact: in a view turned by 37 degrees at zoom 1e100 (Perturbation) and 1e400
// (PerturbationExp), every pixel's delta from the reference is its point (PointBig, the turned
// offset from the exact decimal centre in math/big) minus the reference's, to float64's
// rounding of a pixel spacing: the turn costs no precision at any depth.
func TestRotationDeltaExact(t *testing.T) {
	for _, zoom := range []string{"1e100", "1e400"} {
		l := Home()
		l.Re, l.Im = MustDecimal("-1.7685"), MustDecimal("0.0012")
		l.Zoom, l.Iterations, l.Rotation = MustDecimal(zoom), 50, 37
		f, err := NewFrame(l, 40, 30).WithReference(context.Background(), &ReferenceCache{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]Precision{"1e100": Perturbation, "1e400": PerturbationExp}[zoom]; f.Precision() != want {
			t.Fatalf("zoom %s is %v, want %v", zoom, f.Precision(), want)
		}
		sp := f.spacing()
		prec := f.Ref.prec + 64
		for _, p := range [][2]int{{0, 0}, {39, 0}, {0, 29}, {39, 29}, {17, 11}} {
			re, im := f.PointBig(p[0], p[1], prec)
			wr := ExpFromBig(re.Sub(re, f.Ref.re))
			wi := ExpFromBig(im.Sub(im, f.Ref.im))
			var gr, gi Exp
			if f.Precision() == PerturbationExp {
				gr, gi = f.DeltaExp(p[0], p[1])
			} else {
				dr, di := f.Delta(p[0], p[1])
				gr, gi = NewExp(dr), NewExp(di)
			}
			if e := hypotExp(gr.Sub(wr), gi.Sub(wi)).Quo(sp).Float64(); !(e < 1e-12) {
				t.Errorf("zoom %s (%v), pixel %v: delta %s%+si, exact %s%+si: %g spacings off", zoom, f.Precision(), p, gr.Text(6), gi.Text(6), wr.Text(6), wi.Text(6), e)
			}
		}
	}
}
