package render

import (
	"context"
	"image"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/cputime"
)

// exportFrame is the export's target view at w x h: the real axis from -2.5 to 1.5 across the
// width, 200 iterations (at 30720x17280 it is the 32K export the brief sizes for).
func exportFrame(w, h int) fractal.Frame {
	l := fractal.Home()
	l.Iterations = 200
	// The shorter side spans 4/zoom; the width must span 4.
	l.Zoom = fractal.DecimalFromFloat(float64(w) / float64(h))
	return fractal.NewFrame(l, w, h)
}

func benchRender(b *testing.B, f fractal.Frame, rect image.Rectangle) {
	g := testGL(b, Options{})
	dst := image.NewRGBA(image.Rect(0, 0, rect.Dx(), rect.Dy()))
	px := int64(rect.Dx()) * int64(rect.Dy())
	b.SetBytes(px * 4)
	b.ReportAllocs()
	before := g.Stats()
	cpu0 := cputime.Process()
	b.ResetTimer()
	for range b.N {
		if err := g.Render(context.Background(), f, rect, dst); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := cputime.Process() - cpu0
	s := g.Stats()
	if cpu > 0 {
		// Throughput per CPU-second: steadier than wall time on a machine shared with
		// other work; on an idle machine with N cores, wall Mpx/s is up to N times this.
		b.ReportMetric(float64(px)*float64(b.N)/cpu.Seconds()/1e6, "Mpx/cpu-s")
	}
	b.ReportMetric(float64(px)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpx/s")
	b.ReportMetric(float64(s.LongestDraw.Milliseconds()), "longest-draw-ms")
	b.ReportMetric(float64((s.ReadBack-before.ReadBack).Milliseconds())/float64(b.N), "readback-ms/op")
	b.ReportMetric(float64(s.Draws-before.Draws)/float64(b.N), "draws/op")
}

// BenchmarkRenderTile renders one 4096x4096 tile from the middle of the 32K export view
// (30720x17280, 200 iterations), the set's boundary included.
func BenchmarkRenderTile(b *testing.B) {
	f := exportFrame(30720, 17280)
	c := image.Pt(f.W/2, f.H/2)
	benchRender(b, f, image.Rect(c.X-2048, c.Y-2048, c.X+2048, c.Y+2048))
}

// BenchmarkRenderExportView4K renders the whole export view at 3840x2160: the same mix of
// cheap and costly pixels as the 32K export, 1/64 of its pixels.
func BenchmarkRenderExportView4K(b *testing.B) {
	f := exportFrame(3840, 2160)
	benchRender(b, f, image.Rect(0, 0, f.W, f.H))
}

// BenchmarkRenderExport32KStrips renders 8 strips of 30720x256, evenly spaced down the 32K
// export view (a 1/8.4 sample of its rows), as the export draws them: the per-pixel cost of
// the real 32K export, which is lower than at 4K because fewer SIMD groups straddle the
// set's boundary at the finer pixel size.
func BenchmarkRenderExport32KStrips(b *testing.B) {
	f := exportFrame(30720, 17280)
	g := testGL(b, Options{})
	const strips, rows = 8, 256
	dst := image.NewRGBA(image.Rect(0, 0, f.W, rows))
	px := int64(strips) * int64(f.W) * rows
	b.SetBytes(px * 4)
	cpu0 := cputime.Process()
	b.ResetTimer()
	for range b.N {
		for i := range strips {
			y := i * (f.H - rows) / (strips - 1)
			if err := g.Render(context.Background(), f, image.Rect(0, y, f.W, y+rows), dst); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(px)*float64(b.N)/cpu.Seconds()/1e6, "Mpx/cpu-s")
	}
	b.ReportMetric(float64(px)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpx/s")
}

// BenchmarkRenderColouring renders the 4K export view (BenchmarkRenderExportView4K) in each
// colouring: what carrying the derivative costs the shaders (smooth carries none).
func BenchmarkRenderColouring(b *testing.B) {
	for _, m := range colour.Methods {
		b.Run(m, func(b *testing.B) {
			f := exportFrame(3840, 2160)
			if m != colour.MethodSmooth {
				f.Loc.Color.Method = m
			}
			benchRender(b, f, image.Rect(0, 0, f.W, f.H))
		})
	}
}

// BenchmarkRenderJulia4K renders a Julia set seen whole at 3840x2160 and 200 iterations (the
// export view's iterations), to set against BenchmarkRenderExportView4K: the rabbit (c inside
// the Mandelbrot set: a large interior, found by the periodicity check, there being no bulb
// test) and c = i (a dendrite: no interior).
func BenchmarkRenderJulia4K(b *testing.B) {
	for _, c := range []struct{ name, re, im string }{{"rabbit", "-0.123", "0.745"}, {"i", "0", "1"}} {
		b.Run(c.name, func(b *testing.B) {
			l := juliaLoc(b, c.re, c.im, 200)
			l.Zoom = fractal.DecimalFromFloat(3840.0 / 2160 / 1.5) // the set's 3 units across the height, 5.3 across
			benchRender(b, fractal.NewFrame(l, 3840, 2160), image.Rect(0, 0, 3840, 2160))
		})
	}
}

// BenchmarkFormulaBLA draws a formula's deep view on the GPU with its BLA table and without
// (noBLA: every iteration a step), 128x96 pixels: the Burning Ship about its Misiurewicz point
// -1 - i and the cubic Mandelbrot set about one of its own (TestFormulaBLAAgainstCPU's views),
// 3000 iterations, at zoom 1e50 (the pixels escape after 100 to 200 iterations) and 1e250
// (after 450 to 600: the longer the orbit, the more the blocks skip), and the Burning Ship at
// 1e400, past float64's exponent range (perturbexp.frag: its table fractal.FormulaBLAExp).
func BenchmarkFormulaBLA(b *testing.B) {
	cre, cim := misiurewiczCubic(b)
	for _, c := range []struct {
		name         string
		fm           fractal.Formula
		re, im, zoom fractal.Decimal
	}{
		{"burning-ship-1e50", fractal.Formula{Kind: fractal.BurningShip}, fractal.MustDecimal("-1"), fractal.MustDecimal("-1"), fractal.MustDecimal("1e50")},
		{"mandelbrot-power-3-1e50", must(fractal.MakeFormula(fractal.Mandelbrot, 3)), cre, cim, fractal.MustDecimal("1e50")},
		{"burning-ship-1e250", fractal.Formula{Kind: fractal.BurningShip}, fractal.MustDecimal("-1"), fractal.MustDecimal("-1"), fractal.MustDecimal("1e250")},
		{"burning-ship-1e400", fractal.Formula{Kind: fractal.BurningShip}, fractal.MustDecimal("-1"), fractal.MustDecimal("-1"), fractal.MustDecimal("1e400")},
	} {
		l := fractal.HomeOf(c.fm)
		l.Re, l.Im, l.Zoom, l.Iterations = c.re, c.im, c.zoom, 3000
		f, err := fractal.NewFrame(l, 128, 96).WithReference(context.Background(), nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, plain := range []bool{false, true} {
			name := c.name + "/bla"
			if plain {
				name = c.name + "/plain"
			}
			b.Run(name, func(b *testing.B) {
				g := testGL(b, Options{Perturb: "gpu"})
				if !g.fp64 {
					b.Skipf("%s has no fp64", g.renderer)
				}
				noBLA = plain
				defer func() { noBLA = false }()
				dst := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
				cpu0 := cputime.Process()
				b.ResetTimer()
				for range b.N {
					if err := g.Render(context.Background(), f, dst.Rect, dst); err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if cpu := cputime.Process() - cpu0; cpu > 0 {
					b.ReportMetric(cpu.Seconds()*1e3/float64(b.N), "cpu-ms/op")
				}
			})
		}
	}
}
