package fractal

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"mandelscope/internal/cputime"
	"mandelscope/internal/text"
)

// BenchmarkReference measures the reference orbit per iteration (ns/iter) at 350 and 1100
// bits (zooms 1e90 and 1e310), 3400 and 11000 (1e1000 and 1e3300, issue 11) and 33300
// (MaxZoom, 1e10000), in big.Int fixed point (the one used) and big.Float, on a point whose
// orbit stays bounded (the nucleus of period 136119, testdata/deep).
func BenchmarkReference(b *testing.B) {
	l := deepLocationNamed(b, "p136119z50")
	for _, bits := range []uint{350, 1100, 3400, 11000, 33300} {
		for _, float := range []bool{false, true} {
			name := fmt.Sprintf("bits=%d/fixed", bits)
			if float {
				name = fmt.Sprintf("bits=%d/float", bits)
			}
			b.Run(name, func(b *testing.B) {
				n := min(max(b.N, 1000), MaxReferenceLength) // a fast machine's b.N passes the bound
				b.ReportAllocs()
				cpu0 := cputime.Process()
				ref, err := computeReference(context.Background(), l.Re, l.Im, bits, n, nil, float)
				if err != nil || len(ref.Z) != n+1 {
					b.Fatalf("reference: %v (%d values)", err, len(ref.Z))
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/iter")
				b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(n), "cpu-ns/iter")
			})
		}
	}
}

// bigOrbit is the orbit of c in big.Float, written out plainly, for checking ComputeReference.
func bigOrbit(re, im Decimal, prec uint, n int) []complex128 {
	cr, ci := re.Big(prec), im.Big(prec)
	zr, zi := new(big.Float).SetPrec(prec), new(big.Float).SetPrec(prec)
	out := []complex128{0}
	for range n {
		zr2 := new(big.Float).SetPrec(prec).Mul(zr, zr)
		zi2 := new(big.Float).SetPrec(prec).Mul(zi, zi)
		t := new(big.Float).SetPrec(prec).Mul(zr, zi)
		zi = t.Add(t, t)
		zi.Add(zi, ci)
		zr = zr2.Sub(zr2, zi2)
		zr.Add(zr, cr)
		fr, _ := zr.Float64()
		fi, _ := zi.Float64()
		out = append(out, complex(fr, fi))
		if fr*fr+fi*fi > 4 {
			break
		}
	}
	return out
}

// TestReferenceOrbit checks the orbit, in fixed point and in big.Float, against a plain
// big.Float iteration: on a nucleus's bounded orbit (no escape) and on a point that escapes
// (the orbit ends at its first |Z| > 2, kept).
func TestReferenceOrbit(t *testing.T) {
	for _, c := range []struct {
		re, im string
		prec   uint
		n      int
	}{
		{deepLocationNamed(t, "p8007").Re.String(), deepLocationNamed(t, "p8007").Im.String(), 300, 20000},
		{"-0.743643887037151", "0.131825904205330", 1100, 5000},
		{"0.3", "0.5", 64, 1000},
		{"-3.5", "3.9", 200, 100},
	} {
		re, im := MustDecimal(c.re), MustDecimal(c.im)
		want := bigOrbit(re, im, c.prec, c.n)
		for _, float := range []bool{false, true} {
			ref, err := computeReference(context.Background(), re, im, c.prec, c.n, nil, float)
			if err != nil {
				t.Fatal(err)
			}
			if len(ref.Z) != len(want) || ref.Escaped() != (len(want) <= c.n) {
				t.Errorf("%s: %d values (escaped %v), want %d", text.Clip(c.re, 40), len(ref.Z), ref.Escaped(), len(want))
				continue
			}
			for i, z := range ref.Z {
				if d := cmplx.Abs(z - want[i]); d > 1e-13*math.Max(1, cmplx.Abs(want[i])) {
					t.Errorf("%s (big.Float %v): Z[%d] = %v, want %v", text.Clip(c.re, 40), float, i, z, want[i])
					break
				}
			}
			if r, i := ref.Point64(); r != re.Float64() || i != im.Float64() {
				t.Errorf("Point64 = %g, %g", r, i)
			}
		}
	}
}

// TestFixedFloat64 checks the fixed-point to float64 conversion against big.Float's
// correctly rounded one, within one unit in the last place.
func TestFixedFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tmp := new(big.Int)
	for i := range 2000 {
		words := make([]big.Word, 1+r.IntN(22))
		for j := range words {
			words[j] = big.Word(r.Uint64())
		}
		x := new(big.Int).SetBits(words)
		x.Rsh(x, uint(r.IntN(64)))
		if i%2 == 1 {
			x.Neg(x)
		}
		scale := -r.IntN(1200)
		want, _ := new(big.Float).SetMantExp(new(big.Float).SetInt(x), scale).Float64()
		got := fixedFloat64(x, scale, tmp)
		if got != want && math.Abs(got-want) > math.Abs(want)*0x1p-52 {
			t.Fatalf("fixedFloat64(%d bits, %d) = %g, want %g", x.BitLen(), scale, got, want)
		}
	}
}

func TestComputeReferenceBadInput(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		re, im string
		prec   uint
		n      int
	}{{"0", "0", 100, 0}, {"0", "0", 100, MaxIterations + 1}, {"0", "0", 10, 100}, {"0", "0", MaxReferencePrec + 1, 100}, {"5", "0", 100, 100}, {"0", "-4.5", 100, 100}} {
		if _, err := ComputeReference(ctx, MustDecimal(c.re), MustDecimal(c.im), c.prec, c.n, nil); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("ComputeReference(%s, %s, %d bits, %d): error %v, want a one-line error", c.re, c.im, c.prec, c.n, err)
		}
	}
}

// TestComputeReferenceCancel checks that a cancelled context ends a long orbit at once (at
// the next check, every 1024 iterations) and that progress comes at most a few times a second.
func TestComputeReferenceCancel(t *testing.T) {
	l := deepLocationNamed(t, "p136119z50")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ComputeReference(ctx, l.Re, l.Im, 1100, 10_000_000, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the start: %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	calls, lastDone := 0, 0
	start := time.Now()
	_, err := ComputeReference(ctx, l.Re, l.Im, 1100, 10_000_000, func(done, total int) {
		calls++
		lastDone = done
		if total != MaxReferenceLength || done <= 0 || done > total {
			t.Errorf("progress(%d, %d)", done, total)
		}
		cancel() // the first report cancels: the orbit must end within 1024 iterations
	})
	elapsed := time.Since(start)
	if !errors.Is(err, context.Canceled) || calls != 1 {
		t.Errorf("cancelled from its first progress report (at %d): %v after %d reports, want context.Canceled after 1", lastDone, err, calls)
	}
	if max := int(elapsed/(200*time.Millisecond)) + 1; calls > max {
		t.Errorf("%d progress reports in %v", calls, elapsed)
	}
	// A finished orbit reports its end.
	var got [2]int
	if _, err := ComputeReference(context.Background(), l.Re, l.Im, 200, 3000, func(done, total int) { got = [2]int{done, total} }); err != nil || got != [2]int{3000, 3000} {
		t.Errorf("last progress %v (err %v), want [3000 3000]", got, err)
	}
}

// TestReferenceCacheReuse checks when a cache reuses an orbit: the same view, a pan within
// reach, a zoom out and more iterations after the reference escaped reuse it; a pan far
// away, a zoom in past its bits and more iterations than it has compute a new one.
func TestReferenceCacheReuse(t *testing.T) {
	ctx := context.Background()
	base := deepLocationNamed(t, "p8007")
	base.Zoom, base.Iterations = MustDecimal("1e30"), 20000
	const w, h = 320, 200
	var c ReferenceCache
	get := func(l Location) Frame {
		t.Helper()
		f, err := NewFrame(l, w, h).WithReference(ctx, &c, nil)
		if err != nil || f.Ref == nil {
			t.Fatalf("WithReference: %v", err)
		}
		return f
	}
	f0 := get(base)
	// The reference point is the centre rounded to the orbit's precision: the offset is far
	// below a pixel.
	if math.Hypot(f0.DRe, f0.DIm) > 0x1p-60*f0.Spacing || get(base).Ref != f0.Ref {
		t.Fatalf("the same view: offset %g,%g (spacing %g), or a new orbit", f0.DRe, f0.DIm, f0.Spacing)
	}
	pan := base.Offset(150, -90, w, h)
	fp := get(pan)
	if fp.Ref != f0.Ref {
		t.Error("a pan of 150,-90 pixels computed a new orbit")
	}
	// The panned frame's pixel (x, y) is the base frame's (x+150, y-90), to the thousandth
	// of a pixel to which Offset writes the new centre.
	dr, di := fp.Delta(10, 100)
	wr, wi := f0.Delta(160, 10)
	if math.Abs(dr-wr) > 2e-3*f0.Spacing || math.Abs(di-wi) > 2e-3*f0.Spacing {
		t.Errorf("panned delta %g,%g, want %g,%g", dr, di, wr, wi)
	}
	out := base
	out.Zoom = MustDecimal("2.5e29")
	if get(out).Ref != f0.Ref {
		t.Error("zooming out computed a new orbit")
	}
	if get(base.Offset(20*w, 0, w, h)).Ref == f0.Ref {
		t.Error("a pan of 20 image widths reused the orbit")
	}
	deeper := base
	deeper.Zoom = MustDecimal("1e45")
	if f := get(deeper); f.Ref == f0.Ref || f.Ref.Prec() < f.ReferenceBits() {
		t.Error("zooming in by 1e15 reused the orbit")
	}
	more := base
	more.Iterations = 40000
	if get(more).Ref == f0.Ref {
		t.Error("twice the iterations reused an orbit that stops at the first")
	}
	// An orbit that escaped serves any iteration count (a fresh cache: the orbits above are
	// within reach of this view, which lies 8e-15 from them).
	c = ReferenceCache{}
	esc := deepLocationNamed(t, "issue1e14")
	fe := get(esc)
	esc.Iterations *= 3
	if !fe.Ref.Escaped() || get(esc).Ref != fe.Ref {
		t.Errorf("escaped %v: more iterations did not reuse an orbit that escaped", fe.Ref.Escaped())
	}
	// Not a Perturbation frame: no reference.
	if f, err := NewFrame(Home(), w, h).WithReference(ctx, &c, nil); err != nil || f.Ref != nil {
		t.Errorf("home view: reference %v, error %v", f.Ref != nil, err)
	}
}

// TestFrameEscapeDeep checks that Frame.Escape, without a reference, takes the perturbation
// path of the renderers (DefaultReferences, the frame's BLA) and agrees with an explicit one.
func TestFrameEscapeDeep(t *testing.T) {
	l := deepLocationNamed(t, "misiurewicz1e290")
	bare := NewFrame(l, 97, 41)
	f, err := bare.WithReference(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < f.H; y += 5 {
		for x := 0; x < f.W; x += 7 {
			dr, di := f.Delta(x, y)
			wn, wnu := PerturbEscape(f.Ref, f.BLA(), dr, di, l.Iterations, nil)
			if n, nu := bare.Escape(x, y); n != wn || nu != wnu || n < 0 {
				t.Fatalf("pixel %d,%d: Escape %d %g, want %d %g (escaping)", x, y, n, nu, wn, wnu)
			}
		}
	}
}

// TestManyDigitsCentre checks a centre with far more digits than the zoom needs: the orbit
// keeps the zoom's precision (the digits only enter the exact offset), and the picture is
// that of the same view with the digits cut off.
func TestManyDigitsCentre(t *testing.T) {
	l := deepLocationNamed(t, "issue1e14")
	long := l
	// 3000 more digits, from the 40th decimal on: 1e-40 is far below a pixel (5e-17).
	long.Re = MustDecimal(l.Re.String() + strings.Repeat("0", 24) + strings.Repeat("31415926", 400)[:3000])
	long.Im = MustDecimal(l.Im.String() + strings.Repeat("0", 25) + strings.Repeat("27182818", 400)[:3000])
	if err := long.Validate(); err != nil {
		t.Fatal(err)
	}
	f, err := NewFrame(long, 1280, 720).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil || f.Ref == nil {
		t.Fatalf("precision %v, error %v: want a perturbation frame", f.Precision(), err)
	}
	if f.Ref.Prec() != f.ReferenceBits() || f.Ref.Prec() > 200 {
		t.Errorf("orbit at %d bits for a zoom that needs %d", f.Ref.Prec(), f.ReferenceBits())
	}
	short := NewFrame(l, 1280, 720)
	same, total := 0, 0
	for y := 0; y < f.H; y += 61 {
		for x := 0; x < f.W; x += 97 {
			n, _ := f.Escape(x, y)
			want, _ := short.Escape(x, y)
			total++
			if n == want {
				same++
			}
		}
	}
	if same < total*95/100 {
		t.Errorf("%d of %d pixels same as with the digits cut off", same, total)
	}
}

// TestReferenceCacheConcurrent checks that concurrent requests for one view share one orbit
// computation, and that a request waiting on a computation whose caller gives up computes its
// own.
func TestReferenceCacheConcurrent(t *testing.T) {
	l := deepLocationNamed(t, "p136119z50")
	l.Iterations = 100000
	f := NewFrame(l, 640, 360)
	var c ReferenceCache
	refs := make([]*Reference, 6)
	var wg sync.WaitGroup
	for i := range refs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ref, err := c.Get(context.Background(), f, nil)
			if err != nil {
				t.Error(err)
			}
			refs[i] = ref
		}()
	}
	wg.Wait()
	for _, r := range refs[1:] {
		if r != refs[0] || r == nil {
			t.Fatal("concurrent requests for one view got different orbits")
		}
	}

	// The first caller cancels its computation from its first progress report, after a
	// second caller has started waiting for it: the second computes its own. (At the cusp
	// c = 1/4, whose orbit neither escapes nor settles on a cycle: it runs to its length.)
	var c2 ReferenceCache
	l.Re, l.Im = MustDecimal("0.25"), MustDecimal("0")
	l.Iterations = MaxReferenceLength
	f = NewFrame(l, 640, 360)
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	waiting := make(chan struct{})
	var waitOnce, firstOnce sync.Once
	c2.onWait = func() { waitOnce.Do(func() { close(waiting) }) }
	_, err := c2.Get(ctx, f, func(done, total int) {
		firstOnce.Do(func() {
			go func() {
				sctx, scancel := context.WithCancel(context.Background())
				defer scancel()
				_, err := c2.Get(sctx, f, func(done, total int) { scancel() }) // its own, then stop
				second <- err
			}()
			<-waiting // the second caller waits for this orbit
			cancel()
		})
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("first caller: %v, want context.Canceled", err)
	}
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Errorf("second caller: %v, want its own computation, cancelled by its own progress", err)
	}
}
