package fractal

import (
	"context"
	"fmt"
	"testing"
)

// juliaCheckPixels compares the counts of a few pixels of the Julia view l at w x h, computed
// as the pictures compute them (Frame.Escape, and Frame.Pixel with the derivative), with
// EscapeJuliaBig at two precisions (32 and 160 bits beyond the frame's reference, or beyond
// what the zoom needs where the frame has none); a pixel where those two differ is
// ill-conditioned and left out. Every other pixel must be within one iteration. want is the
// frame's precision, checked first (not when negative).
func juliaCheckPixels(t *testing.T, l Location, w, h int, want Precision, pxs [][2]int) {
	t.Helper()
	f, err := NewFrame(l, w, h).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Precision(); want >= 0 && p != want {
		t.Errorf("precision %v, want %v", p, want)
	}
	p1 := f.ReferenceBits() + 32
	fd := f
	fd.Derivative = true
	type res struct{ n, nd, b1, b2 int }
	out := make([]res, len(pxs))
	parallel(2*len(pxs), func(i int) {
		p, r := pxs[i/2], &out[i/2]
		prec := p1 + uint(128*(i%2))
		zr, zi := f.PointBig(p[0], p[1], prec)
		b := EscapeJuliaBig(zr, zi, l.Julia.Re.Big(prec), l.Julia.Im.Big(prec), l.Iterations, prec)
		if i%2 == 0 {
			r.n, _ = f.Escape(p[0], p[1])
			r.nd = fd.Pixel(p[0], p[1]).N
			r.b1 = b
		} else {
			r.b2 = b
		}
	})
	good := 0
	for i, r := range out {
		p := pxs[i]
		if r.b1 != r.b2 {
			t.Logf("pixel %v ill-conditioned: math/big gives %d and %d", p, r.b1, r.b2)
			continue
		}
		good++
		near := func(n int) bool { return n == r.b1 || n >= 0 && r.b1 >= 0 && abs(n-r.b1) <= 1 }
		if !near(r.n) || !near(r.nd) {
			t.Errorf("pixel %v: %v gives %d (%d with the derivative), math/big %d", p, f.Precision(), r.n, r.nd, r.b1)
		}
	}
	if good*2 < len(pxs) {
		t.Errorf("only %d of %d pixels well-conditioned", good, len(pxs))
	}
}

// juliaCycleCases are views centred exactly on periodic points of z^2 + c (and on points
// that land on one), whose orbits in the reference's fixed point repeat exactly: repelling
// cycles (on the Julia set: the pixels around escape) and an attracting one (c = -1: the
// pixels around are inside).
var juliaCycleCases = []struct {
	name, c, centre string
}{
	{"c0_fixed1", "0,0", "1,0"},             // the reported case: z = 1, multiplier 2
	{"c0_pre-1", "0,0", "-1,0"},             // -1 -> 1, then fixed
	{"ci_cycle-1+i", "0,1", "-1,1"},         // the 2-cycle -1+i, -i of c = i
	{"ci_cycle-i", "0,1", "0,-1"},           // its other point
	{"ci_critical", "0,1", "0,0"},           // 0 -> i -> -1+i: lands on it
	{"c-2_fixed-1", "-2,0", "-1,0"},         // z = -1, multiplier -2
	{"c-2_pre1", "-2,0", "1,0"},             // 1 -> -1, then fixed
	{"c1-i_fixed", "1,-1", "1,1"},           // z = 1+i, a fixed point of the dust of 1-i
	{"c-.75-2i_cycle", "-0.75,-2", "0.5,1"}, // the 2-cycle 0.5+i, -1.5-i (c outside the set)
	{"c-1_attracting", "-1,0", "-1,0"},      // the attracting 2-cycle 0, -1
}

// TestJuliaCycleCentre: a Julia view centred on a point of a cycle (or one that lands on a
// cycle) at zoom 1e30 (Perturbation) and 1e400 (PerturbationExp), whose reference orbit
// repeats exactly: the reference point's orbit must be kept as it goes on (a repelling cycle
// is no interior point), so that every pixel follows its own orbit off the cycle as math/big
// does; before, the orbit stopped where it repeated, and the pixels rebased there with their
// whole z in float64, losing their offsets (striped pictures, or every pixel stuck on the
// cycle to the iteration limit).
func TestJuliaCycleCentre(t *testing.T) {
	zooms := []struct {
		zoom string
		iter int
		want Precision
	}{{"1e30", 600, Perturbation}, {"1e400", 3000, PerturbationExp}}
	pxs := [][2]int{{150, 100}, {149, 99}, {10, 10}, {299, 0}, {0, 199}, {217, 31}}
	for _, c := range juliaCycleCases {
		for _, z := range zooms {
			t.Run(fmt.Sprintf("%s_%s", c.name, z.zoom), func(t *testing.T) {
				if raceEnabled && z.zoom == "1e400" {
					t.Skip("1e400 in math/big is slow under -race")
				}
				j, err := ParseJulia(c.c)
				if err != nil {
					t.Fatal(err)
				}
				l := Home().JuliaAt(j.Re, j.Im)
				if l.Re, l.Im, err = parseCentre(c.centre); err != nil {
					t.Fatal(err)
				}
				l.Zoom, l.Iterations = MustDecimal(z.zoom), z.iter
				juliaCheckPixels(t, l, 300, 200, z.want, pxs)
			})
		}
	}
}

// parseCentre reads "RE,IM".
func parseCentre(s string) (re, im Decimal, err error) {
	j, err := ParseJulia(s)
	return j.Re, j.Im, err
}

// TestJuliaPreimagePrecision: Julia views centred on 0 and on preimages of 0 (z_k = 0: the
// orbit squares the pixels' distances there), for c on the Mandelbrot set's edge (i),
// inside it (the rabbit: 0 lies in the basin of its attracting cycle), outside (dust), at zooms from float32's range
// to extended exponents (and c = 0.25+0.6i, arbitrary): the pixels beside the centre, whose orbits pass nearest 0, against
// math/big. Before the precision rule knew the squaring, the Julia set of i at centre 0 came
// out inside (-1) at zoom 300 in float32 and at 1e7 in float64.
func TestJuliaPreimagePrecision(t *testing.T) {
	cs := []struct{ name, c string }{{"i", "0,1"}, {"rabbit", "-0.12256116687665361237,0.74486176661974423659"}, {"dust", "-0.75,0.2"}, {"c.25+.6i", "0.25,0.6"}}
	zooms := []struct {
		zoom   string
		digits int
		iter   int
	}{{"300", 20, 400}, {"3000", 20, 400}, {"1e7", 30, 600}, {"1e10", 30, 600}, {"1e40", 60, 1000}, {"1e140", 160, 2000}, {"1e400", 420, 3000}}
	pxs := [][2]int{{150, 100}, {149, 99}, {151, 100}, {150, 101}, {148, 100}, {30, 170}}
	for _, c := range cs {
		j, err := ParseJulia(c.c)
		if err != nil {
			t.Fatal(err)
		}
		j.On = true
		for _, k := range []int{0, 1, 3} {
			for _, z := range zooms {
				t.Run(fmt.Sprintf("%s_pre%d_%s", c.name, k, z.zoom), func(t *testing.T) {
					if (raceEnabled || testing.Short()) && (z.zoom == "1e400" || z.zoom == "1e140") {
						t.Skip("deep math/big is slow under -race and -short")
					}
					l := Home().JuliaAt(j.Re, j.Im)
					l.Re, l.Im = juliaPreimage(j, k, uint64(k+1), z.digits)
					l.Zoom, l.Iterations = MustDecimal(z.zoom), z.iter
					want := Precision(-1)
					edge := c.name == "i" || c.name == "dust" // 0 is no interior point
					if edge && k == 0 && (z.zoom == "300" || z.zoom == "3000") {
						want = Double // float32 has too few steps for the squared spacing
					}
					if edge && k == 0 && (z.zoom == "1e7" || z.zoom == "1e10") {
						want = Perturbation // and float64 too
					}
					juliaCheckPixels(t, l, 300, 200, want, pxs)
				})
			}
		}
	}
}

// TestJuliaPrecisionOfChangedFrame: a frame whose float64 centre or spacing is changed after
// NewFrame (as a preview's sample frames are) gets the precision of what it now shows, not
// the one NewFrame computed for its location.
func TestJuliaPrecisionOfChangedFrame(t *testing.T) {
	l := Home().JuliaAt(MustDecimal("0"), MustDecimal("1"))
	l.Zoom, l.Iterations = MustDecimal("1e3"), 500
	f := NewFrame(l, 200, 120)
	if p := f.Precision(); p != Double {
		t.Fatalf("zoom 1e3 at the centre: %v, want double", p)
	}
	g := f
	g.Spacing /= 1e5 // zoom 1e8
	if p := g.Precision(); p != Perturbation {
		t.Errorf("spacing made 1e5 times finer: %v, want perturbation", p)
	}
	g = f
	g.Re = 0.75 // away from 0 and its low preimages: the spacing's own rule
	if p, want := g.Precision(), ChoosePrecision(g.Spacing, g.Re, g.Im, g.Loc.Iterations); p != want {
		t.Errorf("centre moved to 0.75: %v, want %v", p, want)
	}
	if p := f.Precision(); p != Double {
		t.Errorf("the unchanged frame again: %v, want double", p)
	}
}

// BenchmarkJuliaPrecision is the cost of a Julia frame's precision where NewFrame's is stale
// (a changed frame) and the view contracts (inside the rabbit's basin: juliaSquaring runs to
// juliaScanLimit), alternating two frames so that the last one's memo never serves.
func BenchmarkJuliaPrecision(b *testing.B) {
	l := Home().JuliaAt(MustDecimal("-0.12256116687665361237"), MustDecimal("0.74486176661974423659"))
	l.Zoom, l.Iterations = MustDecimal("1e3"), 1_000_000
	f := NewFrame(l, 200, 120)
	f.Re, f.Im = 0.01, 0.02
	g := f
	g.Re = 0.011
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			_ = f.Precision()
		} else {
			_ = g.Precision()
		}
	}
}
