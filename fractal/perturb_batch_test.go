package fractal

import (
	"context"
	"fmt"
	"math"
	"testing"

	"mandelscope/internal/cputime"
)

// vectorWidths are the loops PerturbEscapeBatch has in this build on this CPU: the scalar
// loop always, AVX2's and AVX-512's where there are (GOEXPERIMENT=simd on amd64).
func vectorWidths() []int {
	ws := []int{0}
	for _, w := range []int{4, 8} {
		if w <= hardwareVectorWidth() {
			ws = append(ws, w)
		}
	}
	return ws
}

// batchCase is a frame and the pixels of it a batch computes.
type batchCase struct {
	name string
	f    Frame
	bla  *BLA
	px   [][2]int
}

// rowPixels is pixels x0..x1-1 of rows ys: neighbours, as the renderer hands them over.
func rowPixels(x0, x1 int, ys ...int) [][2]int {
	var px [][2]int
	for _, y := range ys {
		for x := x0; x < x1; x++ {
			px = append(px, [2]int{x, y})
		}
	}
	return px
}

// gridPixels is every step-th pixel of every step-th row: far apart, so that a vector's
// lanes part ways.
func gridPixels(w, h, step int) [][2]int {
	var px [][2]int
	for y := step / 2; y < h; y += step {
		for x := step / 3; x < w; x += step {
			px = append(px, [2]int{x, y})
		}
	}
	return px
}

func batchCases(t *testing.T) []batchCase {
	short := raceEnabled || testing.Short()
	var cs []batchCase
	add := func(name string, f Frame, bla *BLA, px [][2]int) {
		cs = append(cs, batchCase{name, f, bla, px})
	}
	f := deepFrame(t, "issue1e14", 1024, 1024)
	add("issue1e14/rows", f, f.BLA(), rowPixels(0, 1024, 300, 301))
	add("issue1e14/grid/no BLA", f, nil, gridPixels(1024, 1024, 97))
	f = deepFrame(t, "p8007", 1024, 1024)
	f.Loc.Iterations = 150000
	add("p8007/rows", f, f.BLA(), rowPixels(200, 600, 511))
	add("p8007/grid", f, f.BLA(), gridPixels(1024, 1024, 61))
	if !short {
		f = deepFrame(t, "p136119near", 1024, 1024)
		add("p136119near/rows", f, f.BLA(), rowPixels(0, 1024, 700))
		add("p136119near/grid", f, f.BLA(), gridPixels(1024, 1024, 79))
		f = deepFrame(t, "misiurewicz1e290", 1024, 1024)
		add("misiurewicz1e290/rows", f, f.BLA(), rowPixels(100, 357, 900))
	}
	// Inside the main cardioid: a periodic reference, every pixel to maxIter (the BLA
	// levels limited by it, the reference's end crossed again and again).
	l, err := ParseLocationText("re=-0.1 im=0.1 zoom=1e20 iterations=50000", Home())
	if err != nil {
		t.Fatal(err)
	}
	if f, err = NewFrame(l, 64, 64).WithReference(context.Background(), &ReferenceCache{}, nil); err != nil {
		t.Fatal(err)
	}
	if f.Ref.Period() == 0 {
		t.Fatal("the cardioid's reference is not periodic")
	}
	add("cardioid", f, f.BLA(), rowPixels(0, 64, 5, 40))
	// A reference far shorter than the pixels' counts: rebasing at its end (the odd count of
	// pixels leaves lanes empty in the last vector).
	l.Re, l.Im, l.Zoom, l.Iterations = MustDecimal("-0.743643887037151"), MustDecimal("0.13182590420533"), MustDecimal("2e4"), 3000
	f = NewFrame(l, 64, 48)
	ref, err := ComputeReference(context.Background(), l.Re, l.Im, f.ReferenceBits(), 100, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Ref = ref
	f.DRe, f.DIm = f.offsetFrom(ref)
	add("short reference", f, f.BLA(), rowPixels(0, 61, 10, 30))
	// The reference on the escape circle (escring.go): the tip -2 and the Julia set of -2 at
	// its fixed point 2 (every lane checked every step there: nearBound is 0).
	for _, v := range circleViews()[:3] {
		if v.bailout == 0 {
			v.w, v.h = 64, 36
			f := v.frame(t)
			add(v.name, f, f.BLA(), rowPixels(0, 64, 3, 17))
		}
	}
	// Julia sets at 1e50 (julia_test.go): on a point of the rabbit's Julia set (interior
	// pixels: the critical orbit's period, maxIter reached), beside a preimage of 0 for c = i
	// (pixels rebasing to the critical orbit) and for the dust (the reference point escapes:
	// pixels reach its orbit's end).
	for _, jc := range juliaCases {
		re, im := juliaPoint(jc.c, 40, 11, 60)
		if jc.name != "rabbit" {
			re, im = juliaPreimage(jc.c, 30, 11, 60)
		}
		l := Home()
		l.Re, l.Im, l.Zoom, l.Iterations, l.Julia = re, im, MustDecimal("1e50"), 1000, jc.c
		if jc.name != "rabbit" {
			l = l.Offset(30, 0, 256, 144)
		}
		if f, err = NewFrame(l, 256, 144).WithReference(context.Background(), &ReferenceCache{}, nil); err != nil {
			t.Fatal(err)
		}
		add("julia "+jc.name, f, f.BLA(), rowPixels(0, 256, 60, 72))
		if !short {
			add("julia "+jc.name+"/no BLA", f, nil, gridPixels(256, 144, 13))
		}
	}
	return cs
}

// TestPerturbBatchMatchesScalar checks PerturbEscapeBatch on each of its loops (scalar,
// AVX2, AVX-512, as the build and CPU have them) against PerturbEscape pixel by pixel: the
// same counts and the same smooth values, bit for bit, on views at 1e14, 2e32, 1e50 and
// 1e290, with and without BLA, inside a minibrot's cardioid (a periodic reference, maxIter
// reached) and with a reference much shorter than the pixels' counts, in rows of neighbours
// and in grids of pixels far apart.
func TestPerturbBatchMatchesScalar(t *testing.T) {
	for _, c := range batchCases(t) {
		dcr, dci := make([]float64, len(c.px)), make([]float64, len(c.px))
		wantN, wantNu := make([]int, len(c.px)), make([]float64, len(c.px))
		for i, p := range c.px {
			dcr[i], dci[i] = c.f.Delta(p[0], p[1])
			wantN[i], wantNu[i] = PerturbEscape(c.f.Ref, c.bla, dcr[i], dci[i], c.f.Loc.Iterations, nil)
		}
		escaped := 0
		for _, n := range wantN {
			if n >= 0 {
				escaped++
			}
		}
		t.Logf("%s: %d pixels, %d escaped", c.name, len(c.px), escaped)
		for _, w := range vectorWidths() {
			t.Run(fmt.Sprintf("%s/width=%d", c.name, w), func(t *testing.T) {
				restore, ok := ForceVectorPath(w)
				if !ok {
					t.Fatalf("no loop of width %d", w)
				}
				defer restore()
				n, nu := make([]int, len(c.px)), make([]float64, len(c.px))
				if !PerturbEscapeBatch(c.f.Ref, c.bla, dcr, dci, c.f.Loc.Iterations, nil, n, nu) {
					t.Fatal("the batch stopped without a stop channel")
				}
				bad := 0
				for i := range n {
					if n[i] != wantN[i] || math.Float64bits(nu[i]) != math.Float64bits(wantNu[i]) {
						if bad++; bad <= 5 {
							t.Errorf("pixel %v: %d, %v; PerturbEscape %d, %v", c.px[i], n[i], nu[i], wantN[i], wantNu[i])
						}
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d pixels differ from PerturbEscape", bad, len(n))
				}
			})
		}
	}
}

// TestPerturbDEBatchMatchesScalar is TestPerturbBatchMatchesScalar with the derivative:
// PerturbEscapeDEBatch on each loop against PerturbEscapeDE, every field of the result bit for
// bit.
func TestPerturbDEBatchMatchesScalar(t *testing.T) {
	bits := func(r Result) [5]uint64 {
		return [5]uint64{uint64(r.N), math.Float64bits(r.Nu), math.Float64bits(r.DE), math.Float64bits(r.Ur), math.Float64bits(r.Ui)}
	}
	for _, c := range batchCases(t) {
		dcr, dci := make([]float64, len(c.px)), make([]float64, len(c.px))
		want := make([]Result, len(c.px))
		for i, p := range c.px {
			dcr[i], dci[i] = c.f.Delta(p[0], p[1])
			want[i] = PerturbEscapeDE(c.f.Ref, c.bla, dcr[i], dci[i], c.f.Loc.Iterations, c.f.Spacing, nil)
		}
		for _, w := range vectorWidths() {
			t.Run(fmt.Sprintf("%s/width=%d", c.name, w), func(t *testing.T) {
				restore, _ := ForceVectorPath(w)
				defer restore()
				got := make([]Result, len(c.px))
				if !PerturbEscapeDEBatch(c.f.Ref, c.bla, dcr, dci, c.f.Loc.Iterations, c.f.Spacing, nil, got) {
					t.Fatal("the batch stopped without a stop channel")
				}
				bad := 0
				for i := range got {
					if bits(got[i]) != bits(want[i]) {
						if bad++; bad <= 5 {
							t.Errorf("pixel %v: %+v; PerturbEscapeDE %+v", c.px[i], got[i], want[i])
						}
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d pixels differ from PerturbEscapeDE", bad, len(got))
				}
			})
		}
	}
}

// TestPerturbBatchStops checks that every loop ends a batch whose stop is closed, inside its
// pixels (the cardioid's never escape: 1e8 iterations each would take minutes).
func TestPerturbBatchStops(t *testing.T) {
	l, err := ParseLocationText("re=-0.1 im=0.1 zoom=1e20 iterations=100000000", Home())
	if err != nil {
		t.Fatal(err)
	}
	f, err := NewFrame(l, 16, 1).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dcr, dci []float64
	for x := range 16 {
		a, b := f.Delta(x, 0)
		dcr, dci = append(dcr, a), append(dci, b)
	}
	stop := make(chan struct{})
	close(stop)
	for _, w := range vectorWidths() {
		restore, _ := ForceVectorPath(w)
		n, nu := make([]int, 16), make([]float64, 16)
		if PerturbEscapeBatch(f.Ref, nil, dcr, dci, l.Iterations, stop, n, nu) {
			t.Errorf("width %d: the batch finished with its stop closed", w)
		}
		if PerturbEscapeDEBatch(f.Ref, nil, dcr, dci, l.Iterations, f.Spacing, stop, make([]Result, 16)) {
			t.Errorf("width %d: the batch with the derivative finished with its stop closed", w)
		}
		restore()
	}
}

// TestChooseVectorWidth checks MANDELSCOPE_SIMD's values against what the CPU has.
func TestChooseVectorWidth(t *testing.T) {
	hw := hardwareVectorWidth()
	for _, c := range []struct {
		setting string
		want    int
	}{{"", hw}, {"avx512", hw}, {"AVX2", min(hw, 4)}, {"scalar", 0}, {"off", 0}} {
		if got := chooseVectorWidth(c.setting); got != c.want {
			t.Errorf("MANDELSCOPE_SIMD=%q: width %d, want %d", c.setting, got, c.want)
		}
	}
	if _, ok := ForceVectorPath(16); ok {
		t.Error("ForceVectorPath(16) succeeded")
	}
	t.Logf("this build and CPU: %s", VectorPath())
}

// BenchmarkPerturbLoop measures the plain double perturbation loop (no BLA: every iteration a
// step) on each loop this build and CPU have, one goroutine: 256 neighbouring pixels of the
// 1e50 view p136119near, about 296,000 iterations each, in G iterations per second of wall
// time and of the process's CPU time (steadier on a shared machine).
func BenchmarkPerturbLoop(b *testing.B) { benchmarkPerturbLoop(b, false) }

// BenchmarkPerturbLoopDE is BenchmarkPerturbLoop with the derivative (PerturbEscapeDEBatch, as
// the distance and slopes colourings render).
func BenchmarkPerturbLoopDE(b *testing.B) { benchmarkPerturbLoop(b, true) }

func benchmarkPerturbLoop(b *testing.B, de bool) {
	f := deepFrame(b, "p136119near", 1024, 1024)
	const w = 256
	dcr, dci := make([]float64, w), make([]float64, w)
	for x := range w {
		dcr[x], dci[x] = f.Delta(384+x, 700)
	}
	for _, width := range vectorWidths() {
		name := map[int]string{0: "scalar", 4: "avx2", 8: "avx512"}[width]
		b.Run(name, func(b *testing.B) {
			restore, _ := ForceVectorPath(width)
			defer restore()
			n, nu, out := make([]int, w), make([]float64, w), make([]Result, w)
			iters := 0
			cpu0 := cputime.Process()
			for b.Loop() {
				if de {
					PerturbEscapeDEBatch(f.Ref, nil, dcr, dci, f.Loc.Iterations, f.Spacing, nil, out)
					for i := range out {
						n[i] = out[i].N
					}
				} else {
					PerturbEscapeBatch(f.Ref, nil, dcr, dci, f.Loc.Iterations, nil, n, nu)
				}
				for _, k := range n {
					if k < 0 {
						k = f.Loc.Iterations
					}
					iters += k
				}
			}
			cpu := cputime.Process() - cpu0
			b.ReportMetric(float64(iters)/b.Elapsed().Seconds()/1e9, "Giter/s")
			b.ReportMetric(float64(iters)/cpu.Seconds()/1e9, "Giter/cpu-s")
		})
	}
}

// BenchmarkBatchOrder measures PerturbEscapeBatch on a band of rows of a 1024x1024 frame
// handed over in three orders: rows (runs of 16 neighbours in a row), blocks of 8x2 and of
// 4x4 pixels (as the CPU renderer does); a vector loop's lanes hold 16 pixels on AVX-512, 8
// on AVX2. Pixels closer together part ways less often, so their lanes step together more;
// the cpu-ns/pixel of each order tell by how much (kf5e227, kf1e50: Kalles Fraktaler's
// benchmark views). The 4x4 order also runs PerturbEscapeDEBatch (.../de), as the window's
// full frames do.
func BenchmarkBatchOrder(b *testing.B) {
	for _, name := range []string{"kf1e50", "kf5e227"} {
		f := deepFrame(b, name, 1024, 1024)
		bla := f.BLA()
		const rows = 8
		for _, bh := range []int{1, 2, 4} {
			bw := 16 / bh
			n := 1024 * rows
			dcr, dci := make([]float64, n), make([]float64, n)
			k := 0
			for y0 := 512 - rows/2; y0 < 512+rows/2; y0 += bh {
				for bx := 0; bx < 1024; bx += bw {
					for y := y0; y < y0+bh; y++ {
						for x := bx; x < bx+bw; x++ {
							dcr[k], dci[k] = f.Delta(x, y)
							k++
						}
					}
				}
			}
			b.Run(fmt.Sprintf("%s/%dx%d", name, bw, bh), func(b *testing.B) {
				out, nu := make([]int, n), make([]float64, n)
				cpu0 := cputime.Process()
				for b.Loop() {
					PerturbEscapeBatch(f.Ref, bla, dcr, dci, f.Loc.Iterations, nil, out, nu)
				}
				cpu := cputime.Process() - cpu0
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(n*b.N), "cpu-ns/pixel")
				b.ReportMetric(0, "ns/op")
			})
			if bh != 4 {
				continue
			}
			// The same with the derivative (the window's full frames).
			b.Run(fmt.Sprintf("%s/%dx%d/de", name, bw, bh), func(b *testing.B) {
				out := make([]Result, n)
				cpu0 := cputime.Process()
				for b.Loop() {
					PerturbEscapeDEBatch(f.Ref, bla, dcr, dci, f.Loc.Iterations, f.Spacing, nil, out)
				}
				cpu := cputime.Process() - cpu0
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(n*b.N), "cpu-ns/pixel")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
