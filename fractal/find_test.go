package fractal

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/cmplx"
	"strconv"
	"strings"
	"testing"
	"time"
)

// findView is a view the finder is tested from, with its search limit.
type findView struct {
	name   string
	loc    Location
	period int // the period expected, 0: any
	slow   bool
}

func findViews(t *testing.T) []findView {
	l := func(re, im, zoom string) Location {
		loc := Home()
		loc.Re, loc.Im, loc.Zoom = MustDecimal(re), MustDecimal(im), MustDecimal(zoom)
		loc.Iterations = 1000
		return loc
	}
	// i + (0.3 + 0.45i) 10^-1000, as the misiurewicz views of testdata/deep are built.
	re1000 := "0." + strings.Repeat("0", 999) + "3"
	im1000 := "1." + strings.Repeat("0", 999) + "45"
	return []findView{
		{name: "seahorse1e5", loc: l("-0.743643887037151", "0.131825904205330", "1e5")},
		{name: "p8007", loc: deepLocationNamed(t, "p8007"), period: 5 * 8007}, // inside the p8007 one: its copy's period-5 island
		{name: "misiurewicz1e100", loc: deepLocationNamed(t, "misiurewicz1e100")},
		{name: "nucleus1e451", loc: deepLocationNamed(t, "nucleus1e451"), period: 5 * 600}, // inside the p600 one: its copy's period-5 island
		// At 1e1000 the nearest minibrots (period about 2658) lie 2 to 4 view heights away,
		// outside the view: at 1e999 they are inside it.
		{name: "near-i-1e999", loc: l(re1000, im1000, "1e999"), slow: true},
	}
}

// orbitBig iterates z_n(c) and dz_n/dc for n = 1..n in math/big and calls at(n, z, dz) after
// each.
func orbitBig(c [2]*big.Float, n int, prec uint, at func(k int, z, dz [2]*big.Float)) {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	zr, zi, dr, di := nf(), nf(), nf(), nf()
	for k := 1; k <= n; k++ {
		// dz <- 2 z dz + 1, z <- z^2 + c
		ndr := nf().Sub(nf().Mul(zr, dr), nf().Mul(zi, di))
		ndi := nf().Add(nf().Mul(zr, di), nf().Mul(zi, dr))
		ndr.SetMantExp(ndr, 1)
		ndi.SetMantExp(ndi, 1)
		ndr.Add(ndr, big.NewFloat(1))
		nzr := nf().Sub(nf().Mul(zr, zr), nf().Mul(zi, zi))
		nzr.Add(nzr, c[0])
		nzi := nf().Mul(zr, zi)
		nzi.SetMantExp(nzi, 1)
		nzi.Add(nzi, c[1])
		zr, zi, dr, di = nzr, nzi, ndr, ndi
		at(k, [2]*big.Float{zr, zi}, [2]*big.Float{dr, di})
	}
}

// rootDist is |f| / |f'| for complex f, f' in math/big: the distance to a root of f, to
// first order.
func rootDist(f, d [2]*big.Float) Exp {
	return cxFromExp(ExpFromBig(f[0]), ExpFromBig(f[1])).abs().Quo(cxFromExp(ExpFromBig(d[0]), ExpFromBig(d[1])).abs())
}

// TestFindMinibrot checks what FindMinibrot returns from views at zooms 1e5 to 1e999
// against math/big: the centre it suggests solves z_P(c) = 0 to within a hundredth of a
// pixel of the suggested view, no proper divisor k of P has a root of z_k within 2^-10 of
// the minibrot's size, the centre pixel of the suggested view is inside (EscapeBig, or the
// frame's perturbation where math/big would take too long) and its four corners escape.
func TestFindMinibrot(t *testing.T) {
	const w, h = 1280, 720
	for _, v := range findViews(t) {
		t.Run(v.name, func(t *testing.T) {
			if v.slow && (testing.Short() || raceEnabled) {
				t.Skip("slow in math/big (run without -short and the race detector)")
			}
			f, err := FindMinibrot(context.Background(), v.loc, w, h, w/2, h/2, 1_000_000)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("period %d size %s zoom %s iterations %d", f.Period, f.Size.Text(4), f.Loc.Zoom, f.Loc.Iterations)
			if v.period != 0 && f.Period != v.period {
				t.Errorf("period %d, want %d", f.Period, v.period)
			}
			back, err := ParseLocationText(strings.TrimSuffix(f.Text(), fmt.Sprintf(" period=%d", f.Period)), Home())
			if err != nil || !back.Re.Equal(f.Loc.Re) || !back.Zoom.Equal(f.Loc.Zoom) || back.Iterations != f.Loc.Iterations {
				t.Errorf("the location text does not read back: %v", err)
			}
			fr := NewFrame(f.Loc, w, h)
			spacing := SpacingExp(f.Loc.ZoomExp(), w, h)
			prec := bitsBelow(spacing) + 64
			c := [2]*big.Float{f.Loc.Re.Big(prec), f.Loc.Im.Big(prec)}
			var nucleus Exp
			divMin := MakeExp(1, 1<<30)
			orbitBig(c, f.Period, prec, func(k int, z, dz [2]*big.Float) {
				d := rootDist(z, dz)
				if k == f.Period {
					nucleus = d
				} else if f.Period%k == 0 && d.Cmp(divMin) < 0 {
					divMin = d
				}
			})
			if nucleus.Cmp(spacing.MulFloat(0.01)) > 0 {
				t.Errorf("z_P(c) = 0 is %s away, more than a hundredth of a pixel (%s)", nucleus.Text(3), spacing.Text(3))
			}
			if divMin.Cmp(f.Size.Ldexp(-10)) < 0 {
				t.Errorf("a root of a lower period is %s away (size %s): P is not minimal", divMin.Text(3), f.Size.Text(3))
			}
			escape := func(x, y int) int {
				re, im := fr.PointBig(x, y, prec)
				return EscapeBig(re, im, f.Loc.Iterations, prec)
			}
			if cost := float64(f.Loc.Iterations) * float64(prec); cost < 5e8 {
				if n := escape(w/2, h/2); n != -1 {
					t.Errorf("centre pixel escapes at %d (math/big)", n)
				}
			} else {
				pf, err := fr.WithReference(context.Background(), &ReferenceCache{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if n, _ := pf.Escape(w/2, h/2); n != -1 {
					t.Errorf("centre pixel escapes at %d (perturbation)", n)
				}
			}
			for _, p := range [][2]int{{0, 0}, {w - 1, 0}, {0, h - 1}, {w - 1, h - 1}} {
				if n := escape(p[0], p[1]); n == -1 {
					t.Errorf("corner %v does not escape within %d iterations", p, f.Loc.Iterations)
				}
			}
		})
	}
}

// TestFindMisiurewicz checks FindMisiurewicz: next to c = i it finds i itself (preperiod 2,
// period 2: i, -1+i, -i, -1+i, ...), and next to a deep minibrot a point whose orbit
// has a root of z_{Q+P} - z_Q within a hundredth of a pixel, and none of z_{Q-1+P} - z_{Q-1}
// or of z_{Q+k} - z_Q for a proper divisor k of P (math/big, from the printed centre).
func TestFindMisiurewicz(t *testing.T) {
	const w, h = 1280, 720
	f, err := FindMisiurewicz(context.Background(), deepLocationNamed(t, "misiurewicz1e100"), w, h, w/2, h/2, 20000)
	if err != nil {
		t.Fatal(err)
	}
	if f.Loc.Re.String() != "0" || f.Loc.Im.String() != "1" || f.Preperiod != 2 || f.Period != 2 {
		t.Errorf("got %s, want re=0 im=1 preperiod=2 period=2", f.Text())
	}
	if testing.Short() || raceEnabled { // math/big: the run without the race detector has it
		return
	}
	f, err = FindMisiurewicz(context.Background(), deepLocationNamed(t, "misi4e533"), w, h, w/2, h/2, 20000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("preperiod %d period %d", f.Preperiod, f.Period)
	checkMisiurewicz(t, "misi4e533", f, w, h)
}

// checkMisiurewicz checks from f's printed centre, in math/big, that it is a Misiurewicz
// point of preperiod f.Preperiod and period f.Period, both minimal: z_{Q+P} - z_Q has a root
// within a hundredth of a pixel, z_{Q-1+P} - z_{Q-1} and z_{Q+k} - z_Q for the proper
// divisors k of P have none; the orbit never comes within a pixel of 0 (not a nucleus), and
// the cycle it lands on is repelling.
func checkMisiurewicz(t *testing.T, name string, f Found, w, h int) {
	t.Helper()
	spacing := SpacingExp(f.Loc.ZoomExp(), w, h)
	prec := bitsBelow(spacing) + 64
	c := [2]*big.Float{f.Loc.Re.Big(prec), f.Loc.Im.Big(prec)}
	q, p := f.Preperiod, f.Period
	var zs [][2]*big.Float
	orbitBig(c, q+p, prec, func(_ int, z, _ [2]*big.Float) {
		zs = append(zs, z)
	})
	zs = append([][2]*big.Float{{new(big.Float), new(big.Float)}}, zs...)
	var dzs [][2]*big.Float
	orbitBig(c, q+p, prec, func(_ int, _, dz [2]*big.Float) { dzs = append(dzs, dz) })
	dzs = append([][2]*big.Float{{new(big.Float), new(big.Float)}}, dzs...)
	// rootAt(q, p): the distance to the nearest root of z_{q+p} - z_q, to first order.
	rootAt := func(q, p int) Exp {
		sub := func(a, b [2]*big.Float) [2]*big.Float {
			return [2]*big.Float{new(big.Float).SetPrec(prec).Sub(a[0], b[0]), new(big.Float).SetPrec(prec).Sub(a[1], b[1])}
		}
		return rootDist(sub(zs[q+p], zs[q]), sub(dzs[q+p], dzs[q]))
	}
	here := spacing.MulFloat(0.01)
	if d := rootAt(q, p); d.Cmp(here) > 0 {
		t.Errorf("%s: z_{Q+P} = z_Q is %s away, more than a hundredth of a pixel (%s)", name, d.Text(3), spacing.Text(3))
	}
	if d := rootAt(q-1, p); d.Cmp(here) <= 0 {
		t.Errorf("%s: preperiod %d is not minimal: z_{Q-1+P} = z_{Q-1} %s away", name, q, d.Text(3))
	}
	for k := 1; k < p; k++ {
		if d := rootAt(q, k); p%k == 0 && d.Cmp(here) <= 0 {
			t.Errorf("%s: period %d is not minimal: z_{Q+%d} = z_Q %s away", name, p, k, d.Text(3))
		}
	}
	mult := cxOne
	for k := 1; k <= q+p; k++ {
		z := cxFromExp(ExpFromBig(zs[k][0]), ExpFromBig(zs[k][1]))
		if z.abs().Cmp(spacing) < 0 {
			t.Errorf("%s: z_%d is within a pixel of 0: periodic, a nucleus", name, k)
		}
		if k >= q && k < q+p {
			mult = cxMul(mult, z.double())
		}
	}
	if mult.abs().Cmp(NewExp(1)) <= 0 {
		t.Errorf("%s: the cycle's multiplier %s is not repelling", name, mult.abs().Text(3))
	}
}

// TestMisiurewiczInView (issue 43): from views that find frames around a minibrot (the
// search from the middle of a minibrot said "none of the 16 nearest candidates settled"),
// and from boundary views where it went up to 1.8 view heights away, outside the view, the
// Misiurewicz search finds a point inside the view, checked by checkMisiurewicz, and near
// the centre it searched from (within 0.3 of the view's height: the simplest point in the
// first disc can be half a view away, and a nearer one is looked for); and from every
// corner of the boundary views, what it returns is inside the view, or nothing.
func TestMisiurewiczInView(t *testing.T) {
	const w, h = 1280, 720
	for _, c := range []struct {
		loc     string
		corners bool
	}{
		// Framing a minibrot (find's views from the boundary views below, bench/find-measure).
		{"re=-0.248676548391 im=0.806235114002 zoom=2.7e6 iterations=1800", false},
		{"re=-1.2946010720337276 im=-0.3527207776503184 zoom=1.27e10 iterations=1800", false},
		{"re=-0.63167442783387549539735 im=0.67962244578427790346105 zoom=1.05e17 iterations=3000", false},
		{"re=-0.1580013455486722949061639 im=1.1105076281761357649994906 zoom=2.52e19 iterations=3700", false},
		// On the boundary: the point found was outside the view.
		{"re=-0.24871574 im=0.80579462 zoom=275 iterations=393", true},
		{"re=-0.24874444563 im=0.80588304706 zoom=68000 iterations=676", true},
		{"re=-1.2945979281 im=-0.3527159978 zoom=10700 iterations=571", true},
		{"re=0.45820318422904 im=0.40336666203555 zoom=2.26e8 iterations=1259", true},
		{"re=-0.15800134563693 im=1.11050762847969 zoom=4.7e8 iterations=1321", true},
		{"re=-0.6316744286609851 im=0.679622450007270396 zoom=2.8e12 iterations=2186", true},
	} {
		l, err := ParseLocationText(c.loc, Home())
		if err != nil {
			t.Fatal(err)
		}
		f, err := FindMisiurewicz(context.Background(), l, w, h, w/2, h/2, 1_000_000)
		if err != nil {
			t.Errorf("%s: %v", c.loc, err)
			continue
		}
		if d, _ := f.Offset(l, w, h); !f.InView(l, w, h) {
			t.Errorf("%s: %s is %.2f view heights away, outside the view", c.loc, f.Text(), d)
		} else if d > 0.3 {
			t.Errorf("%s: %s is %.2f view heights away, more than 0.3", c.loc, f.Text(), d)
		}
		checkMisiurewicz(t, c.loc, f, w, h)
		if !c.corners || raceEnabled { // math/big: the run without the race detector has them
			continue
		}
		for _, p := range [][2]float64{{0, 0}, {w, 0}, {0, h}, {w, h}} {
			f, err := FindMisiurewicz(context.Background(), l, w, h, p[0], p[1], 1_000_000)
			if err == nil && !f.InView(l, w, h) {
				d, _ := f.Offset(l, w, h)
				t.Errorf("%s from %v: %s is %.2f view heights away, outside the view", c.loc, p, f.Text(), d)
			}
		}
	}
}

// TestMisiurewiczSeahorseFilament (issue 43): on the seahorse-valley filament of the famous
// period-136119 location the search said "no Misiurewicz point found inside this view".
// At zoom 1e9 and 1e10 the orbits linger near a weakly repelling cycle of period 39 (z_{q+39}
// within 1e-5 of z_q for hundreds of iterations), every candidate of the first disc was that
// cycle's, 20 to 50 disc radii from its root, and the 400 Newton runs went on such
// candidates; now a candidate whose first Newton step leaves the 8 disc radii Newton's method
// allows costs no Newton run, and smaller discs around the point are tried before the grids. In the
// view find frames around the period-8007 minibrot there (zoom 5.59e31) every candidate was
// the nucleus's own, up to the limit 16384; now the search tries the minibrot's tip, of
// preperiod 8008 and period 8007. Each point found is inside the view and checked in
// math/big. At zoom 1e25 that tip is 2e-32 from the nucleus, within a pixel of it (the
// view's digits cannot tell them apart, and checkMisiurewicz would take it for a nucleus):
// there the search may find another point or say none, never that one.
func TestMisiurewiczSeahorseFilament(t *testing.T) {
	const w, h = 1280, 720
	for _, c := range []struct {
		loc           string
		deep, mayFail bool
	}{
		{"re=-0.743643887037158704752191506114774 im=0.131825904205311970493132056385139 zoom=1e9", false, false},
		{"re=-0.743643887037158704752191506114774 im=0.131825904205311970493132056385139 zoom=1e10", false, false},
		// find's view of the period-8007 minibrot from the 1e25 view at the same centre.
		{"re=-0.74364388703715870475219150611477977822 im=0.13182590420531197049313205638514067897 zoom=5.59e31", true, false},
		{"re=-0.743643887037158704752191506114774 im=0.131825904205311970493132056385139 zoom=1e25", true, true},
	} {
		if c.deep && (testing.Short() || raceEnabled) { // math/big to 16384: the run without the race detector has it
			continue
		}
		l, err := ParseLocationText(c.loc, Home())
		if err != nil {
			t.Fatal(err)
		}
		f, err := FindMisiurewicz(context.Background(), l, w, h, w/2, h/2, 1_000_000)
		if c.mayFail && errors.Is(err, ErrNoMisiurewicz) {
			t.Logf("zoom %s: %v", l.Zoom, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.loc, err)
			continue
		}
		if !f.InView(l, w, h) {
			d, _ := f.Offset(l, w, h)
			t.Errorf("%s: %s is %.2f view heights away, outside the view", c.loc, f.Text(), d)
		}
		t.Logf("zoom %s: preperiod %d period %d", l.Zoom, f.Preperiod, f.Period)
		checkMisiurewicz(t, c.loc, f, w, h)
	}
}

// TestFindErrors checks the one-line errors: no period within the limit, a point outside
// the image, and cancellation.
func TestFindErrors(t *testing.T) {
	l := deepLocationNamed(t, "p8007")
	if _, err := FindMinibrot(context.Background(), l, 1280, 720, 640, 360, 100); !errors.Is(err, ErrPeriodLimit) {
		t.Errorf("limit 100: %v, want ErrPeriodLimit", err)
	}
	if _, err := FindMinibrot(context.Background(), l, 1280, 720, 2000, 360, 100); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("point outside: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := FindMinibrot(ctx, l, 1280, 720, 640, 360, 1_000_000); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := FindMinibrotWith(context.Background(), l, 1280, 720, 640, 360, FindOptions{Limit: 1_000_000, MaxTime: time.Nanosecond}); !errors.Is(err, ErrSearchTimeout) {
		t.Errorf("out of time: %v, want ErrSearchTimeout", err)
	}
	far := Home()
	far.Re, far.Zoom = MustDecimal("1.5"), MustDecimal("1e6")
	_, err := FindMinibrot(context.Background(), far, 1280, 720, 640, 360, 1000)
	var nm *NoMinibrotError
	if !errors.As(err, &nm) || !strings.Contains(nm.Why, "view heights away") {
		t.Errorf("outside the set: %v, want ErrNoMinibrot with the set's distance", err)
	}
}

// BenchmarkFind1e20 is the time to find the period-8007 minibrot from a view at zoom 1e20
// centred 10^-33 from its nucleus (the p8007 centre to 33 digits).
func BenchmarkFind1e20(b *testing.B) {
	l := deepLocationNamed(b, "p8007")
	l.Re = MustDecimal(l.Re.String()[:36])
	l.Im = MustDecimal(l.Im.String()[:35])
	l.Zoom = MustDecimal("1e20")
	l.Iterations = 20000
	for b.Loop() {
		f, err := FindMinibrot(context.Background(), l, 1280, 720, 640, 360, 1_000_000)
		if err != nil || f.Period != 8007 {
			b.Fatal(f.Period, err)
		}
	}
}

// TestMisiurewiczNeverPeriodic (issue 39: at -0.3,0 zoom 0.25 the search returned c = 0 as
// "preperiod 6, period 1"; issue 43: a minibrot's nucleus as "preperiod 31, period 15"):
// from views where Newton's method stops at a nucleus (0, -1) or near one, what is found is
// never periodic: checked from the printed centre, its orbit up to Q+P never comes within
// a pixel of 0, and the cycle it lands on is repelling. Views with genuine points nearby
// still find them (-1.839287 = M(3,2), -2 = M(2,1), -0.228155+1.115143i = M(3,1)).
func TestMisiurewiczNeverPeriodic(t *testing.T) {
	const w, h = 1280, 720
	for _, c := range []struct {
		re, im, zoom string
		x, y         float64
		want         string // a genuine point expected, or "" for any answer that is not periodic
	}{
		{"-0.3", "0", "0.25", w / 2, h / 2, ""},
		{"-0.4", "0", "0.8", w / 2, h / 2, ""},
		{"-0.75", "0", "3", w / 2, h / 2, ""},
		{"-0.7", "0", "1.5", w / 2, h / 2, ""},
		{"-0.5", "0", "1", 832, 448, ""},
		{"-0.6", "0", "0.25", w / 2, h / 2, "re=-1.83929 im=0 preperiod=3 period=2"},
		{"-2", "0", "1", w / 2, h / 2, "re=-2 im=0 preperiod=2 period=1"},
		{"0", "1", "2", w / 2, h / 2, "re=-0.228155 im=1.115143 preperiod=3 period=1"},
	} {
		l := Home()
		l.Re, l.Im, l.Zoom = MustDecimal(c.re), MustDecimal(c.im), MustDecimal(c.zoom)
		name := fmt.Sprintf("%s,%s zoom %s at %g,%g", c.re, c.im, c.zoom, c.x, c.y)
		f, err := FindMisiurewicz(context.Background(), l, w, h, c.x, c.y, 1000)
		if err != nil {
			if c.want != "" {
				t.Errorf("%s: %v, want %s", name, err, c.want)
			}
			continue
		}
		got := fmt.Sprintf("re=%s im=%s preperiod=%d period=%d", f.Loc.Re, f.Loc.Im, f.Preperiod, f.Period)
		if c.want != "" && got != c.want {
			t.Errorf("%s: %s, want %s", name, got, c.want)
		}
		cr, _ := strconv.ParseFloat(f.Loc.Re.String(), 64)
		ci, _ := strconv.ParseFloat(f.Loc.Im.String(), 64)
		pixel := SpacingExp(l.ZoomExp(), w, h).Float64()
		z, mult := complex(0, 0), complex(1, 0)
		for k := 1; k <= f.Preperiod+f.Period; k++ {
			z = z*z + complex(cr, ci)
			if k >= f.Preperiod && k < f.Preperiod+f.Period {
				mult *= 2 * z
			}
			if cmplx.Abs(z) < pixel {
				t.Errorf("%s: %s: z_%d = %v is within a pixel of 0: periodic", name, got, k, z)
			}
		}
		if cmplx.Abs(mult) <= 1 {
			t.Errorf("%s: %s: the cycle's multiplier %v is not repelling", name, got, mult)
		}
	}
}
