package render

import (
	"context"
	"fmt"
	"image"
	"math/big"
	"math/cmplx"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/render/cpu"
	"mandelscope/shaders"
)

// juliaParams are the Julia sets the GPU is tested on: the rabbit (c inside the Mandelbrot
// set, attracting 3-cycle), c = i (a dendrite, c on the set's edge) and -0.8+0.156i.
var juliaParams = []struct{ name, re, im string }{
	{"rabbit", "-0.123", "0.745"},
	{"i", "0", "1"},
	{"c08", "-0.8", "0.156"},
}

// juliaLoc is the Julia set of c = (re, im) seen whole (zoom 1, centre 0) with iter
// iterations.
func juliaLoc(t testing.TB, re, im string, iter int) fractal.Location {
	t.Helper()
	j, err := fractal.ParseJulia(re + "," + im)
	if err != nil {
		t.Fatal(err)
	}
	l := fractal.Home().JuliaAt(j.Re, j.Im)
	l.Iterations = iter
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	return l
}

// juliaPoint is a point of the Julia set of c (to about float64's precision): the preimages
// z <- +-sqrt(z - c) converge on the set from any start but c's orbit; the signs follow a
// fixed pseudo-random pattern, so that the point is not the repelling fixed point itself.
func juliaPoint(c complex128) complex128 {
	z := complex(1, 0.5)
	seed := uint32(12345)
	for range 200 {
		z = cmplx.Sqrt(z - c)
		seed = seed*1664525 + 1013904223
		if seed>>31 == 1 {
			z = -z
		}
	}
	return z
}

// juliaDeepLoc is the Julia set of c = (re, im) at zoom 1e6 about a point of the set, off its
// centre.
func juliaDeepLoc(t testing.TB, re, im string, iter int) fractal.Location {
	t.Helper()
	l := juliaLoc(t, re, im, iter)
	p := juliaPoint(complex(l.Julia.Re.Float64(), l.Julia.Im.Float64()))
	var err error
	if l.Re, err = fractal.ParseDecimal(strconv.FormatFloat(real(p), 'g', 17, 64)); err != nil {
		t.Fatal(err)
	}
	if l.Im, err = fractal.ParseDecimal(strconv.FormatFloat(imag(p), 'g', 17, 64)); err != nil {
		t.Fatal(err)
	}
	if l.Zoom, err = fractal.ParseDecimal("1e6"); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	return l
}

// juliaReference is the CPU picture of Julia frame f in the arithmetic of shader variant v,
// as reference draws the Mandelbrot set's: float32 with Point32 and the parameter rounded to
// float32 for F32 (fractal.EscapeJulia32, EscapeJuliaDE32), float64 with Point64 for the
// double variants.
func juliaReference(t testing.TB, f fractal.Frame, v shaders.Variant) *image.RGBA {
	t.Helper()
	if !f.Loc.IsJulia() {
		t.Fatal("juliaReference of a Mandelbrot frame")
	}
	pal, err := f.Loc.Color.ColorPalette()
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
	c := f.Loc.Color
	it := f.Loc.Iterations
	for y := range f.H {
		for x := range f.W {
			var r fractal.Result
			switch {
			case v == shaders.F32 && c.NeedsDerivative():
				re, im := f.Point32(x, y)
				r = fractal.EscapeJuliaDE32(re, im, float32(f.JRe), float32(f.JIm), it, float32(f.Spacing))
			case v == shaders.F32:
				re, im := f.Point32(x, y)
				r.N, r.Nu = fractal.EscapeJulia32(re, im, float32(f.JRe), float32(f.JIm), it)
			case c.NeedsDerivative():
				re, im := f.Point64(x, y)
				r = fractal.EscapeJuliaDE64(re, im, f.JRe, f.JIm, it, f.Spacing)
			default:
				re, im := f.Point64(x, y)
				r.N, r.Nu = fractal.EscapeJulia64(re, im, f.JRe, f.JIm, it)
			}
			img.SetRGBA(x, y, c.Shade(pal, r.Sample()))
		}
	}
	return img
}

// juliaViews are the Julia views of the GPU-CPU tests: each parameter seen whole (float32)
// and at zoom 1e6 off-centre (double).
func juliaViews(t testing.TB) []struct {
	name   string
	loc    fractal.Location
	w, h   int
	double bool
} {
	var out []struct {
		name   string
		loc    fractal.Location
		w, h   int
		double bool
	}
	for _, p := range juliaParams {
		out = append(out, struct {
			name   string
			loc    fractal.Location
			w, h   int
			double bool
		}{p.name + "_whole", juliaLoc(t, p.re, p.im, 300), 180, 120, false})
		out = append(out, struct {
			name   string
			loc    fractal.Location
			w, h   int
			double bool
		}{p.name + "_1e6", juliaDeepLoc(t, p.re, p.im, 1500), 150, 110, true})
	}
	return out
}

// TestJuliaAgainstCPU checks the GPU's Julia sets against the CPU's as TestAgainstCPU checks
// the Mandelbrot set (>= 98% of pixels within 6/255, the differing ones
// isolated), in every precision variant, in the smooth, distance and slopes colourings; and
// that the pictures are neither the Mandelbrot set's nor featureless.
func TestJuliaAgainstCPU(t *testing.T) {
	for _, prec := range []string{"", "f32", "f64", "emulated"} {
		for _, v := range juliaViews(t) {
			for _, col := range []string{"smooth", "distance", "slopes"} {
				name := prec
				if name == "" {
					name = "auto"
				}
				t.Run(name+"_"+col+"/"+v.name, func(t *testing.T) {
					if prec == "f32" && v.double {
						t.Skip("the frame needs double precision")
					}
					g := testGL(t, Options{Precision: prec})
					f := fractal.NewFrame(withColouring(t, v.loc, col), v.w, v.h)
					if want := map[bool]fractal.Precision{false: fractal.Float32, true: fractal.Double}[v.double]; f.Precision() != want {
						t.Fatalf("view %s is %v, want %v", v.name, f.Precision(), want)
					}
					got := renderGL(t, g, f)
					var want *image.RGBA
					if prec == "" {
						// The automatic precision against the CPU renderer itself.
						want = image.NewRGBA(image.Rect(0, 0, f.W, f.H))
						if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
							t.Fatal(err)
						}
					} else {
						want = juliaReference(t, f, g.variant(f))
					}
					// The view must have structure: both escaped and inside pixels, or
					// many distinct colours (a dust has no inside).
					colours := map[[3]uint8]bool{}
					for i := 0; i < len(want.Pix); i += 4 {
						colours[[3]uint8{want.Pix[i], want.Pix[i+1], want.Pix[i+2]}] = true
					}
					if len(colours) < 20 {
						t.Fatalf("the reference picture has %d colours: the view tests little", len(colours))
					}
					// And it must not be the Mandelbrot set's picture of the same frame.
					m := f
					m.Loc.Julia = fractal.JuliaParam{}
					if same, _ := imagetest.Agreement(got, renderGL(t, g, m), 6); same > 0.9 {
						t.Errorf("the Julia picture is %.1f%% the Mandelbrot set's", 100*same)
					}
					frac := matchesCPU(t, fmt.Sprintf("julia_%s_%s_%s", name, col, v.name), got, want)
					t.Logf("%s: %.3f%% within 6/255 (%s), %d colours", v.name, 100*frac, g.Mode(f), len(colours))
				})
			}
		}
	}
}

// TestJuliaPassesAndCompute: a Julia set drawn in passes gives the single pass's picture
// byte for byte (the orbit's start, z_1 = the pixel at iteration 2, carried across the
// first pass), and its samples from Compute, single-pass and in passes, are the same bit for
// bit and, coloured by the Go colour pass, give Render's picture (>= 99% within 6/255), in
// every precision variant, with and without the derivative.
func TestJuliaPassesAndCompute(t *testing.T) {
	views := juliaViews(t)
	for _, prec := range []string{"f32", "f64", "emulated"} {
		for _, vi := range []int{0, 5} { // the rabbit whole, -0.8+0.156i at 1e6
			v := views[vi]
			for _, col := range []string{"smooth", "distance"} {
				t.Run(prec+"_"+col+"/"+v.name, func(t *testing.T) {
					if prec == "f32" && v.double {
						t.Skip("the frame needs double precision")
					}
					single := testGL(t, Options{Precision: prec})
					passes := testGL(t, Options{Precision: prec, PassIterations: 7})
					l := withColouring(t, v.loc, col)
					l.Iterations = 400
					f := fractal.NewFrame(l, 120, 90)
					want := renderGL(t, single, f)
					if got := renderGL(t, passes, f); string(got.Pix) != string(want.Pix) {
						frac, bad := imagetest.Agreement(got, want, 0)
						saveFailed(t, fmt.Sprintf("julia_passes_%s_%s_%s.png", prec, col, v.name), got)
						t.Errorf("multi-pass render differs from the single-pass one: %.3f%% equal, first difference at %v", 100*frac, bad)
					}
					data := computeGL(t, single, f)
					if !sameSamples(data, computeGL(t, passes, f)) {
						t.Errorf("Compute in passes differs from Compute in one pass")
					}
					k, err := colour.NewColourer(f.Loc.Color)
					if err != nil {
						t.Fatal(err)
					}
					got := image.NewRGBA(want.Bounds())
					k.Paint(got, data)
					if frac, bad := imagetest.Agreement(got, want, 6); frac < 0.99 {
						t.Errorf("Compute then colour: only %.2f%% of pixels within 6/255 of Render; first bad pixel %v", 100*frac, bad)
					}
				})
			}
		}
	}
}

// TestJuliaGL33 draws Julia sets on a GL 3.3 core context with GLSL 3.30 shaders in every
// variant it has, in the smooth and distance colourings, against the contract's arithmetic.
func TestJuliaGL33(t *testing.T) {
	g := newGL33(t)
	views := juliaViews(t)
	for _, c := range []struct {
		v    shaders.Variant
		view int
	}{{shaders.F32, 0}, {shaders.F64, 1}, {shaders.Emulated, 3}} {
		if g.progs[c.v] == nil {
			t.Logf("%s: not available on %s with GLSL 3.30", c.v, g.renderer)
			continue
		}
		for _, col := range []string{"smooth", "distance"} {
			v := views[c.view]
			f := fractal.NewFrame(withColouring(t, v.loc, col), 150, 100)
			g.opts.Precision = map[shaders.Variant]string{shaders.F32: "f32", shaders.F64: "f64", shaders.Emulated: "emulated"}[c.v]
			got := renderGL(t, g, f)
			frac := matchesCPU(t, fmt.Sprintf("julia_gl33_%s_%s_%s", c.v, col, v.name), got, juliaReference(t, f, c.v))
			t.Logf("GLSL 3.30 %s %s %s: %.3f%% within 6/255", c.v, col, v.name, 100*frac)
		}
	}
}

// juliaPointBig is juliaPoint at prec bits: the preimages z <- +-sqrt(z - c) contract onto the
// Julia set, so that after enough of them z lies on it to the last bit, for deep views.
func juliaPointBig(re, im string, prec uint) (zr, zi string) {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	cr, _, _ := big.ParseFloat(re, 10, prec, big.ToNearestEven)
	ci, _, _ := big.ParseFloat(im, 10, prec, big.ToNearestEven)
	xr, xi := nf().SetFloat64(1), nf().SetFloat64(0.5)
	seed := uint32(12345)
	half := big.NewFloat(0.5)
	for range 3 * int(prec) {
		// w = z - c; sqrt(w) = sqrt((|w| + a)/2) + i sign(b) sqrt((|w| - a)/2)
		a, b := nf().Sub(xr, cr), nf().Sub(xi, ci)
		mod := nf().Sqrt(nf().Add(nf().Mul(a, a), nf().Mul(b, b)))
		sq := func(v *big.Float) *big.Float { // sqrt(v / 2), 0 for a v rounded below 0
			if v.Sign() <= 0 {
				return nf()
			}
			return nf().Sqrt(nf().Mul(v, half))
		}
		xr, xi = sq(nf().Add(mod, a)), sq(nf().Sub(mod, a))
		if b.Sign() < 0 {
			xi.Neg(xi)
		}
		seed = seed*1664525 + 1013904223
		if seed>>31 == 1 {
			xr.Neg(xr)
			xi.Neg(xi)
		}
	}
	return xr.Text('g', int(float64(prec)*0.3)), xi.Text('g', int(float64(prec)*0.3))
}

// juliaDeepFrame is the w x h frame of the Julia set of c = (re, im) at zoom about a point of
// the set, with its own reference orbit.
func juliaDeepFrame(t testing.TB, re, im, zoom string, iter, w, h int) fractal.Frame {
	t.Helper()
	l := juliaLoc(t, re, im, iter)
	prec := uint(256) // the point on the set to well below the pixel spacing
	if e, err := strconv.Atoi(strings.TrimPrefix(zoom, "1e")); err == nil {
		prec = uint(max(256, 4*e+128))
	}
	zr, zi := juliaPointBig(re, im, prec)
	var err error
	if l.Re, err = fractal.ParseDecimal(zr); err != nil {
		t.Fatal(err)
	}
	if l.Im, err = fractal.ParseDecimal(zi); err != nil {
		t.Fatal(err)
	}
	if l.Zoom, err = fractal.ParseDecimal(zoom); err != nil {
		t.Fatal(err)
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	f, err := fractal.NewFrame(l, w, h).WithReference(context.Background(), &fractal.ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Ref.JuliaStart() == 0 {
		t.Fatal("a Julia frame's reference has no critical orbit before its own")
	}
	return f
}

// juliaWrapFrame is a w x h frame of the rabbit's Julia set at zoom 1e20 centred on an
// interior point near the set, a black pixel of juliaDeepFrame's view (its orbit never escapes: the reference point's orbit ends at
// the iterations it was computed for), whose reference orbit was computed for fewer
// iterations (orbitIter) than the frame has, as the window's cache hands it on when the
// iterations rise: pixels that reach the end of the reference point's orbit rebase to the
// critical orbit's start, which is periodic and so covers them.
func juliaWrapFrame(t testing.TB, re, im, zoom string, orbitIter, iter, w, h int) fractal.Frame {
	t.Helper()
	base := juliaDeepFrame(t, re, im, zoom, orbitIter, w, h)
	cr, _, _ := big.ParseFloat(re, 10, 256, big.ToNearestEven)
	ci, _, _ := big.ParseFloat(im, 10, 256, big.ToNearestEven)
	// The black pixels of the view, nearest the centre first.
	var black []image.Point
	for y := range h {
		for x := range w {
			if base.Pixel(x, y).N < 0 {
				black = append(black, image.Pt(x, y))
			}
		}
	}
	d2 := func(p image.Point) int { return (2*p.X-w)*(2*p.X-w) + (2*p.Y-h)*(2*p.Y-h) }
	slices.SortFunc(black, func(a, b image.Point) int { return d2(a) - d2(b) })
	for _, p := range black[:min(len(black), 8)] {
		zr, zi := base.PointBig(p.X, p.Y, 256)
		if fractal.EscapeJuliaBig(zr, zi, cr, ci, iter, 256) >= 0 {
			continue
		}
		l := base.Loc
		var err error
		if l.Re, err = fractal.ParseDecimal(zr.Text('g', 70)); err != nil {
			t.Fatal(err)
		}
		if l.Im, err = fractal.ParseDecimal(zi.Text('g', 70)); err != nil {
			t.Fatal(err)
		}
		cache := &fractal.ReferenceCache{}
		lo := l
		lo.Iterations = orbitIter
		if _, err := fractal.NewFrame(lo, w, h).WithReference(context.Background(), cache, nil); err != nil {
			t.Fatal(err)
		}
		l.Iterations = iter
		f, err := fractal.NewFrame(l, w, h).WithReference(context.Background(), cache, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(f.Ref.Z) - f.Ref.JuliaStart(); f.Ref.Period() == 0 || n > orbitIter+1 {
			t.Fatalf("critical orbit's period %d, reference point's orbit of %d values: want a periodic critical orbit and %d values", f.Ref.Period(), n, orbitIter)
		}
		return f
	}
	t.Fatal("no interior point near the centre")
	return base
}

// TestJuliaPerturbAgainstCPU renders Julia sets at zoom 1e20 with the perturbation shader
// (JULIA: the critical orbit then the reference point's in one texture, a pixel starting at
// the second with n = 1, dc = 0, rebasing to the first), and the rabbit whole (pixels that
// escape at 1) and from a reference point's orbit shorter than the iterations (pixels that
// rebase at its end), against the CPU's perturbation:
// >= 98% of pixels within 6/255, the differing ones isolated; in passes of a forced length
// it gives the single pass's bytes.
func TestJuliaPerturbAgainstCPU(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	if !g.fp64 {
		t.Skipf("%s has no fp64", g.renderer)
	}
	passes := testGL(t, Options{Perturb: "gpu", PassIterations: 29})
	for _, c := range []struct {
		name, re, im, col string
		iter              int
	}{
		{"rabbit_1e20", "-0.123", "0.745", "smooth", 3000},
		{"rabbit_1e20", "-0.123", "0.745", "distance", 3000},
		{"i_1e20", "0", "1", "smooth", 3000},
		{"i_1e20", "0", "1", "slopes", 3000},
		{"c08_1e20", "-0.8", "0.156", "smooth", 3000},
		{"c08_1e20", "-0.8", "0.156", "distance", 3000},
		{"rabbit_whole", "-0.123", "0.745", "distance", 300},
		{"wrap", "-1.3", "0", "smooth", 3000},
	} {
		t.Run(c.name+"_"+c.col, func(t *testing.T) {
			var f fractal.Frame
			switch c.name {
			case "rabbit_whole":
				// The whole set drawn by perturbation (MinPrecision): the corners' pixels
				// have |z_1| > 2, escaping at 1 before any step.
				f = fractal.NewFrame(juliaLoc(t, c.re, c.im, c.iter), 48, 36)
				f.MinPrecision = fractal.Perturbation
				var err error
				if f, err = f.WithReference(context.Background(), &fractal.ReferenceCache{}, nil); err != nil {
					t.Fatal(err)
				}
			case "wrap":
				f = juliaWrapFrame(t, c.re, c.im, "1e40", 150, c.iter, 48, 36)
			default:
				f = juliaDeepFrame(t, c.re, c.im, "1e20", c.iter, 48, 36)
			}
			f.Loc = withColouring(t, f.Loc, c.col)
			if f.Precision() != fractal.Perturbation {
				t.Fatalf("precision %v, want perturbation", f.Precision())
			}
			if m := g.Mode(f); m != "perturbation (fp64)" {
				t.Errorf("Mode = %q", m)
			}
			got := renderGL(t, g, f)
			want, counts := perturbCPU(t, f)
			distinct, lo, hi, black := spread(counts)
			frac := matchesCPU(t, "julia_perturb_"+c.name+"_"+c.col, got, want)
			t.Logf("%.3f%% within 6/255; escape counts %d distinct, %d to %d, %d black; critical orbit %d values, period %d, reference point's %d",
				100*frac, distinct, lo, hi, black, f.Ref.WLast()+1, f.Ref.Period(), len(f.Ref.Z)-f.Ref.JuliaStart())
			if distinct < 10 {
				t.Errorf("only %d distinct escape counts: the view tests little", distinct)
			}
			if end := len(f.Ref.Z) - f.Ref.JuliaStart(); c.name == "wrap" && hi <= end {
				t.Errorf("escape counts up to %d, the reference point's orbit %d values: no pixel goes past its end", hi, end)
			}
			// Not the Mandelbrot set's picture of the same place.
			ml := f.Loc
			ml.Julia = fractal.JuliaParam{}
			mp, _ := perturbCPU(t, fractal.NewFrame(ml, f.W, f.H))
			if same, _ := imagetest.Agreement(got, mp, 6); same > 0.9 {
				t.Errorf("the Julia picture is %.1f%% the Mandelbrot set's", 100*same)
			}
			if p := renderGL(t, passes, f); string(p.Pix) != string(got.Pix) {
				frac, bad := imagetest.Agreement(p, got, 0)
				t.Errorf("in passes: %.3f%% equal to the single pass, first difference at %v", 100*frac, bad)
			}
		})
	}
}

// TestJuliaPerturbExpAgainstCPU renders Julia sets past float64's exponent range (a Julia
// frame is PerturbationExp from fractal.JuliaExpSpacing, about 1e-152, down) with
// perturbexp.frag's JULIA programs against the CPU's fractal.PerturbEscapeExp and
// PerturbEscapeDEExp: >= 98% of pixels within 6/255, the differing ones isolated, and in
// passes of a forced length the single pass's bytes.
func TestJuliaPerturbExpAgainstCPU(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	if !g.fp64 {
		t.Skipf("%s has no fp64", g.renderer)
	}
	passes := testGL(t, Options{Perturb: "gpu", PassIterations: 41})
	for _, c := range []struct {
		name, re, im, zoom, col string
		iter                    int
	}{
		{"rabbit", "-0.123", "0.745", "1e200", "smooth", 6000},
		{"rabbit", "-0.123", "0.745", "1e200", "distance", 6000},
		{"c08", "-0.8", "0.156", "1e200", "smooth", 6000},
		{"i", "0", "1", "1e320", "smooth", 10000},
		{"rabbit", "-0.123", "0.745", "1e320", "slopes", 10000},
	} {
		t.Run(c.name+"_"+c.zoom+"_"+c.col, func(t *testing.T) {
			f := juliaDeepFrame(t, c.re, c.im, c.zoom, c.iter, 32, 24)
			f.Loc = withColouring(t, f.Loc, c.col)
			if f.Precision() != fractal.PerturbationExp {
				t.Fatalf("precision %v, want %v", f.Precision(), fractal.PerturbationExp)
			}
			if m := g.Mode(f); m != "perturbation (extended exponent, fp64)" {
				t.Errorf("Mode = %q", m)
			}
			before := g.Stats()
			got := renderGL(t, g, f)
			if s := g.Stats(); s.CPUFrames != before.CPUFrames {
				t.Errorf("%d frames to the CPU, want 0", s.CPUFrames-before.CPUFrames)
			}
			want, counts := perturbCPU(t, f)
			distinct, lo, hi, black := spread(counts)
			frac := matchesCPU(t, "julia_perturbexp_"+c.name+"_"+c.zoom+"_"+c.col, got, want)
			exact, _ := imagetest.Agreement(got, want, 0)
			t.Logf("%.3f%% within 6/255 (%.3f%% equal); escape counts %d distinct, %d to %d, %d black; critical orbit %d values, period %d, reference point's %d",
				100*frac, 100*exact, distinct, lo, hi, black, f.Ref.WLast()+1, f.Ref.Period(), len(f.Ref.Z)-f.Ref.JuliaStart())
			if distinct < 10 {
				t.Errorf("only %d distinct escape counts: the view tests little", distinct)
			}
			if p := renderGL(t, passes, f); string(p.Pix) != string(got.Pix) {
				frac, bad := imagetest.Agreement(p, got, 0)
				t.Errorf("in passes: %.3f%% equal to the single pass, first difference at %v", 100*frac, bad)
			}
		})
	}
}

// TestJuliaPerturbExpAtZero: a Julia set's extended-exponent frame centred on the critical
// point 0 (in the Julia set of c = i, whose critical orbit is preperiodic), whose reference
// point's orbit starts at Z = 0, kept among the orbit's tiny values: the GPU's picture agrees
// with the CPU's. Uploaded with the low 32 bits of fractal's zero exponent (0, not the
// shader's ZERO_EXP), that zero swallowed every delta added to it and no pixel agreed.
func TestJuliaPerturbExpAtZero(t *testing.T) {
	g := testGL(t, Options{Perturb: "gpu"})
	if !g.fp64 {
		t.Skipf("%s has no fp64", g.renderer)
	}
	l := juliaLoc(t, "0", "1", 3000)
	l.Zoom = fractal.MustDecimal("1e320")
	f, err := fractal.NewFrame(l, 24, 16).WithReference(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Precision() != fractal.PerturbationExp {
		t.Fatalf("precision %v, want %v", f.Precision(), fractal.PerturbationExp)
	}
	zero := false
	for _, z := range f.Ref.Tiny() {
		zero = zero || z.Re == 0 && z.Im == 0
	}
	if !zero {
		t.Fatal("no zero among the reference's tiny values: the view tests nothing")
	}
	want, counts := perturbCPU(t, f)
	if distinct, _, _, _ := spread(counts); distinct < 10 {
		t.Fatalf("only %d distinct escape counts: the view tests little", distinct)
	}
	matchesCPU(t, "julia_perturbexp_zero", renderGL(t, g, f), want)
}

// TestJuliaComputeAgainstCPU: the compute stage alone (Compute: samples, no colour) of Julia
// frames in every precision the GPU draws, float32, double, perturbation and extended
// exponents, with and without the derivative, against the CPU renderer's Compute, with
// TestComputeAgainstCPU's tolerance.
func TestJuliaComputeAgainstCPU(t *testing.T) {
	views := juliaViews(t)
	g := testGL(t, Options{Perturb: "gpu"})
	frames := []struct {
		name string
		f    fractal.Frame
		prec fractal.Precision
	}{
		{"float32", fractal.NewFrame(views[0].loc, 90, 60), fractal.Float32},
		{"double", fractal.NewFrame(views[5].loc, 90, 60), fractal.Double},
		{"perturbation", juliaDeepFrame(t, "-0.123", "0.745", "1e20", 3000, 40, 30), fractal.Perturbation},
		{"extended", juliaDeepFrame(t, "-0.8", "0.156", "1e200", 6000, 30, 20), fractal.PerturbationExp},
	}
	for _, v := range frames {
		for _, deriv := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s_derivative_%v", v.name, deriv), func(t *testing.T) {
				if v.prec.Perturbs() && !g.fp64 {
					t.Skipf("%s has no fp64", g.renderer)
				}
				f := v.f
				if f.Precision() != v.prec {
					t.Fatalf("frame is %v, want %v", f.Precision(), v.prec)
				}
				f.Derivative = deriv
				before := g.Stats()
				got := computeGL(t, g, f)
				if n := g.Stats().CPUFrames - before.CPUFrames; n != 0 {
					t.Errorf("%d frames to the CPU, want 0", n)
				}
				a := compareSamples(got, computeCPU(t, f), deriv, exactTol)
				side := float64(a.sameSide) / float64(a.pixels)
				nu := float64(a.nuOK) / float64(max(a.escaped, 1))
				de := float64(a.deOK) / float64(max(a.escaped, 1))
				t.Logf("%s: %d pixels, %d escaped: inside/escaped agree on %.3f%%, nu on %.3f%%, DE and normal on %.3f%%", g.Mode(f), a.pixels, a.escaped, 100*side, 100*nu, 100*de)
				if side < 0.99 || nu < exactTol.share || de < exactTol.share || a.escaped == 0 {
					t.Errorf("inside/escaped %.3f%%, nu %.3f%%, DE and normal %.3f%% (want 99%%), %d escaped; first disagreement at %v", 100*side, 100*nu, 100*de, a.escaped, a.firstBad)
				}
			})
		}
	}
}
