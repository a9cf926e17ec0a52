package render

import (
	"context"
	"fmt"
	"image"
	"math"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
	"mandelscope/shaders"
)

// orbitFrame is a shallow view (seahorse valley at zoom 1e3, 600 iterations) on the orbit
// path: the colouring method col, escape radius bailout (0: 2), in the precision the GL's
// variant prec computes ("f32": float32; "f64": float64, forced on the frame too).
func orbitFrame(t testing.TB, prec, col string, bailout float64, w, h int) fractal.Frame {
	l := seahorseLoc(t)
	l.Color.Method = col
	l.Bailout = bailout
	f := fractal.NewFrame(l, w, h)
	if prec == "f64" {
		f.MinPrecision = fractal.Double
	}
	return f
}

// TestOrbitShadersCompile compiles mandel.frag's orbit-path programs: the float and double
// variants, single pass and samples, with and without SHADE and DERIV.
func TestOrbitShadersCompile(t *testing.T) {
	for _, glsl := range []string{"default", "330"} {
		t.Run(glsl, func(t *testing.T) {
			g := testGL(t, Options{})
			if glsl == "330" {
				g = newGL33(t)
			}
			orbitShadersCompile(t, g)
		})
	}
}

func orbitShadersCompile(t *testing.T, g *GL) {
	for _, v := range []shaders.Variant{shaders.F32, shaders.F64} {
		if v == shaders.F64 && !g.fp64 {
			continue
		}
		for _, stage := range []string{stageSingle, stageSample} {
			for _, sd := range [][2]bool{{false, false}, {true, false}, {true, true}, {false, true}} {
				if err := g.th.call(func() error {
					_, err := g.lazyProgram(progKey{v: v, stage: stage, shade: sd[0], deriv: sd[1], orbit: true})
					return err
				}); err != nil {
					t.Fatalf("%s %q shade %v deriv %v: %v", v, stage, sd[0], sd[1], err)
				}
			}
		}
	}
}

// TestOrbitAgainstCPU: the GL renderer draws the angle and stripe colourings of the
// Mandelbrot set itself (no frame handed to the CPU renderer), in float and double, at the
// escape radii 2 and 1000, and its pictures agree with the CPU renderer's as every GPU-vs-CPU
// picture must (matchesCPU); each picture differs from the smooth colouring's.
func TestOrbitAgainstCPU(t *testing.T) {
	for _, prec := range []string{"f32", "f64"} {
		for _, col := range []string{colour.MethodAngle, colour.MethodStripe} {
			for _, bailout := range []float64{0, 1000} {
				name := fmt.Sprintf("%s_%s_R%g", prec, col, fractal.Location{Bailout: bailout}.BailoutRadius())
				t.Run(name, func(t *testing.T) {
					g := testGL(t, Options{Precision: prec})
					if prec == "f64" && !g.fp64 {
						t.Skipf("%s has no native fp64", g.renderer)
					}
					f := orbitFrame(t, prec, col, bailout, 160, 100)
					if !f.OrbitPath() {
						t.Fatal("the frame is not on the orbit path")
					}
					if m := g.Mode(f); strings.Contains(m, "CPU") {
						t.Fatalf("Mode %q: want the GPU", m)
					}
					before := g.Stats().CPUFrames
					got := renderGL(t, g, f)
					if n := g.Stats().CPUFrames - before; n != 0 {
						t.Fatalf("%d frames went to the CPU renderer", n)
					}
					want := image.NewRGBA(got.Bounds())
					if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
						t.Fatal(err)
					}
					plain := orbitFrame(t, prec, colour.MethodSmooth, bailout, 160, 100)
					smooth := image.NewRGBA(got.Bounds())
					if err := (&cpu.Renderer{}).Render(context.Background(), plain, smooth.Bounds(), smooth); err != nil {
						t.Fatal(err)
					}
					if same := agreement(want, smooth); same > 0.99 {
						t.Errorf("%s changes only %.1f%% of the smooth colouring's pixels", col, 100*(1-same))
					}
					frac := matchesCPU(t, "orbit_"+name, got, want)
					t.Logf("%.3f%% within 6/255 (%s)", 100*frac, g.Mode(f))
				})
			}
		}
	}
}

// agreement is the share of pixels a and b have equal.
func agreement(a, b *image.RGBA) float64 {
	same := 0
	for i := 0; i < len(a.Pix); i += 4 {
		if a.Pix[i] == b.Pix[i] && a.Pix[i+1] == b.Pix[i+1] && a.Pix[i+2] == b.Pix[i+2] {
			same++
		}
	}
	return float64(same) / float64(len(a.Pix)/4)
}

// TestOrbitComputeAgainstCPU: GL Compute gives the orbit channels itself (Frame.Channels, the
// smooth colouring; float and double; radii 2 and 1000): the samples agree with the CPU's as
// TestComputeAgainstCPU asks (nu, distance estimate and normal), and of the escaped pixels that
// agree, 99% have T within 1e-4 turns and STRIPE within 1e-3 of the CPU's, none further than
// 0.002 and 0.01 (issue 41's bounds).
func TestOrbitComputeAgainstCPU(t *testing.T) {
	for _, prec := range []string{"f32", "f64"} {
		for _, bailout := range []float64{0, 1000} {
			name := fmt.Sprintf("%s_R%g", prec, fractal.Location{Bailout: bailout}.BailoutRadius())
			t.Run(name, func(t *testing.T) {
				g := testGL(t, Options{Precision: prec})
				if prec == "f64" && !g.fp64 {
					t.Skipf("%s has no native fp64", g.renderer)
				}
				f := orbitFrame(t, prec, colour.MethodSmooth, bailout, 130, 90)
				f.Channels = true
				before := g.Stats().CPUFrames
				got := computeGL(t, g, f)
				if n := g.Stats().CPUFrames - before; n != 0 {
					t.Fatalf("%d frames went to the CPU renderer", n)
				}
				want := computeCPU(t, f)
				a := compareSamples(got, want, true, exactTol)
				if float64(a.deOK) < exactTol.share*float64(a.pixels) {
					t.Errorf("samples: %d of %d pixels agree (want %.0f%%); first bad %v", a.deOK, a.pixels, 100*exactTol.share, a.firstBad)
				}
				checked, close, worstT, worstS := 0, 0, 0.0, 0.0
				for y := range f.H {
					gr, wr := got.Row(y), want.Row(y)
					for x := range gr {
						if gr[x].Inside() || wr[x].Inside() || math.Abs(gr[x].Nu-wr[x].Nu) > 1e-3 {
							continue
						}
						checked++
						dt := math.Abs(float64(gr[x].T - wr[x].T))
						dt = min(dt, 1-dt) // turns: 0 and 1 meet
						ds := math.Abs(float64(gr[x].Stripe - wr[x].Stripe))
						worstT, worstS = max(worstT, dt), max(worstS, ds)
						if dt <= 1e-4 && ds <= 1e-3 {
							close++
						}
					}
				}
				t.Logf("%d escaped pixels compared: %.3f%% close; worst T %.2g turns, STRIPE %.2g", checked, 100*float64(close)/float64(checked), worstT, worstS)
				if checked < f.W*f.H/2 {
					t.Fatalf("only %d of %d pixels escaped in both", checked, f.W*f.H)
				}
				if float64(close) < 0.99*float64(checked) || worstT > 0.002 || worstS > 0.01 {
					t.Errorf("T and STRIPE: %d of %d close; worst %.3g turns and %.3g", close, checked, worstT, worstS)
				}
			})
		}
	}
}

// TestOrbitOnCPU: the orbit-path frames the shaders do not compute go to the CPU renderer,
// and Mode says why: a Julia set, perturbation, the emulated double, iterations in passes, a
// radius past float in the float variant.
func TestOrbitOnCPU(t *testing.T) {
	julia := orbitFrame(t, "f32", colour.MethodAngle, 1000, 40, 30)
	l := julia.Loc
	l.Julia.On = true
	julia = fractal.NewFrame(l, 40, 30)
	deep := fractal.NewFrame(func() fractal.Location {
		l := deepSeahorseLoc(t)
		l.Zoom, _ = fractal.ParseDecimal("1e20")
		l.Color.Method = colour.MethodStripe
		return l
	}(), 40, 30)
	for _, c := range []struct {
		name string
		opts Options
		f    fractal.Frame
		why  string
	}{
		{"julia", Options{}, julia, "Julia sets"},
		{"perturbation", Options{}, deep, "perturbation"},
		{"emulated", Options{Precision: "emulated"}, orbitFrame(t, "f64", colour.MethodAngle, 0, 40, 30), "emulated double"},
		{"passes", Options{PassIterations: 100}, orbitFrame(t, "f32", colour.MethodAngle, 0, 40, 30), "iterations past one pass"},
		{"radius", Options{Precision: "f32"}, orbitFrame(t, "f32", colour.MethodAngle, 1e10, 40, 30), "a radius past float"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := testGL(t, c.opts)
			if want := "CPU (escape radius or orbit channels: " + c.why + ")"; g.Mode(c.f) != want {
				t.Fatalf("Mode %q, want %q", g.Mode(c.f), want)
			}
			before := g.Stats().CPUFrames
			got := renderGL(t, g, c.f)
			if n := g.Stats().CPUFrames - before; n != 1 {
				t.Fatalf("%d frames went to the CPU renderer, want 1", n)
			}
			want := image.NewRGBA(got.Bounds())
			if err := (&cpu.Renderer{}).Render(context.Background(), c.f, want.Bounds(), want); err != nil {
				t.Fatal(err)
			}
			if agreement(got, want) != 1 {
				t.Error("the picture differs from the CPU renderer's")
			}
		})
	}
}
