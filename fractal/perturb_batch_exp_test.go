package fractal

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"mandelscope/internal/cputime"
)

// expBatchCase is a PerturbationExp frame, its table (nil: none) and the pixels a batch
// computes.
type expBatchCase struct {
	name string
	f    Frame
	bla  *BLAExp
	px   [][2]int
}

func expBatchCases(t *testing.T) []expBatchCase {
	short := raceEnabled || testing.Short()
	var cs []expBatchCase
	add := func(name string, l Location, w, h int, px ...[][2]int) {
		f, err := NewFrame(l, w, h).WithReference(context.Background(), &ReferenceCache{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if f.Precision() != PerturbationExp || f.Ref == nil {
			t.Fatalf("%s: precision %v: want an extended-exponent frame", name, f.Precision())
		}
		cs = append(cs, expBatchCase{name + "/rows", f, f.BLAExp(), px[0]})
		if len(px) > 1 {
			cs = append(cs, expBatchCase{name + "/grid", f, f.BLAExp(), px[1]})
			cs = append(cs, expBatchCase{name + "/grid/no BLA", f, nil, px[1]})
		}
	}
	add("1e400", misiurewicz(400, 3000), 320, 180, rowPixels(0, 320, 40, 41), gridPixels(320, 180, 23))
	add("1e1000", misiurewicz(1000, 6000), 320, 180, rowPixels(60, 200, 100), gridPixels(320, 180, 37))
	// A minibrot's nucleus filling half the view (the reference returns within 1e-19 of 0
	// every 600 iterations): pixels rebase where Z is tiny, back to extended deltas.
	l := deepLocationNamed(t, "nucleus1e451")
	add("nucleus1e451", l, 320, 180, rowPixels(0, 320, 30), gridPixels(320, 180, 29))
	// A minibrot's nucleus whose reference passes within 1e-350 of 0 (below float64's range)
	// every 930 iterations: pixels rebase where Z_m is held exactly (Reference.tiny), back to
	// extended deltas in the check (render's testdata: the GL tests' view).
	l = tinyLocation(t, "nucleus2e698")
	add("nucleus2e698", l, 160, 90, rowPixels(0, 160, 40), gridPixels(160, 90, 11))
	// A Julia set past 1e308 (c = i, beside a preimage of 0: pixels rebase to the critical
	// orbit).
	for _, jc := range juliaCases[1:2] {
		re, im := juliaPreimage(jc.c, 30, 11, 440)
		l := Home()
		l.Re, l.Im, l.Zoom, l.Iterations, l.Julia = re, im, MustDecimal("1e400"), 3000, jc.c
		add("julia "+jc.name+" 1e400", l.Offset(30, 0, 256, 144), 256, 144, rowPixels(0, 256, 60, 72), gridPixels(256, 144, 13))
	}
	// The reference on the escape circle at 1e400 (escring.go): the tip -2 and the Julia set
	// of -2 at 2.
	for _, v := range circleViews() {
		if v.zoom == "1e400" && v.bailout == 0 && v.formula == Mandelbrot && v.re != "0" {
			l := v.frame(t).Loc
			add(v.name, l, 64, 36, rowPixels(0, 64, 3, 17))
		}
	}
	if !short {
		add("1e5000", misiurewicz(5000, 30000), 160, 90, rowPixels(40, 104, 45))
		add("misi4e533", deepLocationNamed(t, "misi4e533"), 1024, 1024, rowPixels(480, 560, 512))
	}
	return cs
}

// TestPerturbExpBatchMatchesScalar checks PerturbEscapeExpBatch on each of its loops (scalar,
// AVX2, AVX-512, as the build and CPU have them) against PerturbEscapeExp pixel by pixel: the
// same counts and smooth values, bit for bit, at 1e400, 1e1000 and 1e5000 beside c = i, at
// misi4e533 (KF's benchmark view: 120,000 iterations), on minibrots' nuclei at 1e451 and 2e698
// (pixels going back to extended deltas near the nucleus, and coming back) and on a Julia set
// at 1e400, with BLA and without, in rows of neighbours and grids of pixels far apart.
func TestPerturbExpBatchMatchesScalar(t *testing.T) {
	for _, c := range expBatchCases(t) {
		dcr, dci := make([]Exp, len(c.px)), make([]Exp, len(c.px))
		wantN, wantNu := make([]int, len(c.px)), make([]float64, len(c.px))
		for i, p := range c.px {
			dcr[i], dci[i] = c.f.DeltaExp(p[0], p[1])
			wantN[i], wantNu[i] = PerturbEscapeExp(c.f.Ref, c.bla, dcr[i], dci[i], c.f.Loc.Iterations, nil)
		}
		escaped := 0
		for _, n := range wantN {
			if n >= 0 {
				escaped++
			}
		}
		t.Logf("%s: %d pixels, %d escaped", c.name, len(c.px), escaped)
		if escaped == 0 {
			t.Errorf("%s: no pixel escaped", c.name)
		}
		for _, w := range vectorWidths() {
			t.Run(fmt.Sprintf("%s/width=%d", c.name, w), func(t *testing.T) {
				restore, ok := ForceVectorPath(w)
				if !ok {
					t.Fatalf("no loop of width %d", w)
				}
				defer restore()
				n, nu := make([]int, len(c.px)), make([]float64, len(c.px))
				if !PerturbEscapeExpBatch(c.f.Ref, c.bla, dcr, dci, c.f.Loc.Iterations, nil, n, nu) {
					t.Fatal("the batch stopped without a stop channel")
				}
				bad := 0
				for i := range n {
					if n[i] != wantN[i] || math.Float64bits(nu[i]) != math.Float64bits(wantNu[i]) {
						if bad++; bad <= 5 {
							t.Errorf("pixel %v: %d, %v; PerturbEscapeExp %d, %v", c.px[i], n[i], nu[i], wantN[i], wantNu[i])
						}
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d pixels differ from PerturbEscapeExp", bad, len(n))
				}
			})
		}
	}
}

// TestPerturbDEExpBatchMatchesScalar is TestPerturbExpBatchMatchesScalar with the derivative:
// PerturbEscapeDEExpBatch on each loop against PerturbEscapeDEExp, every field of the result
// bit for bit.
func TestPerturbDEExpBatchMatchesScalar(t *testing.T) {
	bits := func(r Result) [5]uint64 {
		return [5]uint64{uint64(r.N), math.Float64bits(r.Nu), math.Float64bits(r.DE), math.Float64bits(r.Ur), math.Float64bits(r.Ui)}
	}
	for _, c := range expBatchCases(t) {
		dcr, dci := make([]Exp, len(c.px)), make([]Exp, len(c.px))
		want := make([]Result, len(c.px))
		sp := c.f.PixelSpacing()
		for i, p := range c.px {
			dcr[i], dci[i] = c.f.DeltaExp(p[0], p[1])
			want[i] = PerturbEscapeDEExp(c.f.Ref, c.bla, dcr[i], dci[i], c.f.Loc.Iterations, sp, nil)
		}
		finite := 0
		for _, r := range want {
			if r.N >= 0 && r.DE > 0 && !math.IsInf(r.DE, 0) {
				finite++
			}
		}
		t.Logf("%s: %d pixels, %d escaped with a finite distance estimate", c.name, len(c.px), finite)
		if finite == 0 {
			t.Errorf("%s: no pixel escaped with a finite distance estimate", c.name)
		}
		for _, w := range vectorWidths() {
			t.Run(fmt.Sprintf("%s/width=%d", c.name, w), func(t *testing.T) {
				restore, ok := ForceVectorPath(w)
				if !ok {
					t.Fatalf("no loop of width %d", w)
				}
				defer restore()
				got := make([]Result, len(c.px))
				if !PerturbEscapeDEExpBatch(c.f.Ref, c.bla, dcr, dci, c.f.Loc.Iterations, sp, nil, got) {
					t.Fatal("the batch stopped without a stop channel")
				}
				bad := 0
				for i := range got {
					if bits(got[i]) != bits(want[i]) {
						if bad++; bad <= 5 {
							t.Errorf("pixel %v: %+v; PerturbEscapeDEExp %+v", c.px[i], got[i], want[i])
						}
					}
				}
				if bad > 0 {
					t.Errorf("%d of %d pixels differ from PerturbEscapeDEExp", bad, len(got))
				}
			})
		}
	}
}

// BenchmarkPerturbExpLoop measures PerturbEscapeExpBatch on each loop at misi4e533 (KF's
// benchmark view at 4e533, 120,000 iterations), a block of 64x16 pixels of a 1024x1024
// frame handed over in the renderer's order (4x4 blocks), the reference and the table built
// before, and PerturbEscapeDEExpBatch (.../de): CPU microseconds a pixel, and Giter/cpu-s
// (the pixels' counts, maxIter for those inside, per CPU second).
func BenchmarkPerturbExpLoop(b *testing.B) {
	f, err := NewFrame(deepLocationNamed(b, "misi4e533"), 1024, 1024).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	bla := f.BLAExp()
	var dcr, dci []Exp
	for bx := 480; bx < 544; bx += 4 {
		for y := 504; y < 520; y++ {
			for x := bx; x < bx+4; x++ {
				re, im := f.DeltaExp(x, y)
				dcr, dci = append(dcr, re), append(dci, im)
			}
		}
	}
	for _, de := range []bool{false, true} {
		for _, width := range vectorWidths() {
			name := map[int]string{0: "scalar", 4: "avx2", 8: "avx512"}[width]
			if de {
				name += "/de"
			}
			b.Run(name, func(b *testing.B) {
				restore, _ := ForceVectorPath(width)
				defer restore()
				n, nu, out := make([]int, len(dcr)), make([]float64, len(dcr)), make([]Result, len(dcr))
				iters := 0
				cpu0 := cputime.Process()
				for b.Loop() {
					if de {
						PerturbEscapeDEExpBatch(f.Ref, bla, dcr, dci, f.Loc.Iterations, f.PixelSpacing(), nil, out)
						for i := range out {
							n[i] = out[i].N
						}
					} else {
						PerturbEscapeExpBatch(f.Ref, bla, dcr, dci, f.Loc.Iterations, nil, n, nu)
					}
					for _, k := range n {
						if k < 0 {
							k = f.Loc.Iterations
						}
						iters += k
					}
				}
				cpu := cputime.Process() - cpu0
				b.ReportMetric(cpu.Seconds()/float64(b.N)*1e6/float64(len(dcr)), "cpu-us/pixel")
				b.ReportMetric(float64(iters)/cpu.Seconds()/1e9, "Giter/cpu-s")
			})
		}
	}
}

// TestPerturbExpBatchStops checks that every loop ends an extended-exponent batch whose stop
// is closed, inside its pixels: the middle of nucleus1e451, inside its minibrot, at 10^6
// iterations without a table (every one a step).
func TestPerturbExpBatchStops(t *testing.T) {
	l := deepLocationNamed(t, "nucleus1e451")
	l.Iterations = 1000000
	f, err := NewFrame(l, 16, 9).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var dcr, dci []Exp
	for x := range 16 {
		a, b := f.DeltaExp(x, 4)
		dcr, dci = append(dcr, a), append(dci, b)
	}
	stop := make(chan struct{})
	close(stop)
	for _, w := range vectorWidths() {
		restore, _ := ForceVectorPath(w)
		n, nu := make([]int, 16), make([]float64, 16)
		if PerturbEscapeExpBatch(f.Ref, nil, dcr, dci, l.Iterations, stop, n, nu) {
			t.Errorf("width %d: the batch finished with its stop closed", w)
		}
		if PerturbEscapeDEExpBatch(f.Ref, nil, dcr, dci, l.Iterations, f.PixelSpacing(), stop, make([]Result, 16)) {
			t.Errorf("width %d: the batch with the derivative finished with its stop closed", w)
		}
		restore()
	}
}

// tinyLocation is a view of render/testdata/tiny.txt (views whose reference holds values
// below float64's range), in deepLocations' format.
func tinyLocation(t *testing.T, name string) Location {
	t.Helper()
	b, err := os.ReadFile("../render/testdata/tiny.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || f[0] != name {
			continue
		}
		l := Home()
		l.Re, l.Im, l.Zoom = MustDecimal(f[1]), MustDecimal(f[2]), MustDecimal(f[3])
		if l.Iterations, err = strconv.Atoi(f[4]); err != nil {
			t.Fatal(err)
		}
		return l
	}
	t.Fatalf("no view %s in render/testdata/tiny.txt", name)
	return Location{}
}
