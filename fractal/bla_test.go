package fractal

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"mandelscope/internal/cputime"
)

// blaComparison is plain perturbation against BLA on a grid of a view's pixels.
type blaComparison struct {
	pixels, same, within3 int
	stable, stableSame    int // pixels whose plain count a relative change of dc by eps keeps
	maxDiff               int
	plainSteps, blaSteps  int
}

// compareBLA runs every grid x grid-th pixel of f (a Perturbation frame with its reference)
// with and without the table at eps, on every core.
func compareBLA(f Frame, eps float64, grid int) blaComparison {
	bla := f.Ref.BLAWithEpsilon(f.DeltaMax(), eps)
	var mu sync.Mutex
	var c blaComparison
	rows := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var local blaComparison
			for y := range rows {
				for x := grid / 2; x < f.W; x += grid {
					dr, di := f.Delta(x, y)
					n0, _, s0 := perturbEscape(f.Ref, nil, dr, di, f.Loc.Iterations, nil)
					n1, _, s1 := perturbEscape(f.Ref, bla, dr, di, f.Loc.Iterations, nil)
					j := eps * math.Hypot(dr, di)
					if nj, _, _ := perturbEscape(f.Ref, nil, dr+j, di+j, f.Loc.Iterations, nil); nj == n0 {
						local.stable++
						if n1 == n0 {
							local.stableSame++
						}
					}
					local.pixels++
					local.plainSteps += s0
					local.blaSteps += s1
					d := n1 - n0
					if n0 < 0 || n1 < 0 {
						d = f.Loc.Iterations // escaping against not escaping
						if n0 == n1 {
							d = 0
						}
					}
					d = max(d, -d)
					if d == 0 {
						local.same++
					}
					if d <= 3 {
						local.within3++
					}
					local.maxDiff = max(local.maxDiff, d)
				}
			}
			mu.Lock()
			c.pixels += local.pixels
			c.stable += local.stable
			c.stableSame += local.stableSame
			c.same += local.same
			c.within3 += local.within3
			c.maxDiff = max(c.maxDiff, local.maxDiff)
			c.plainSteps += local.plainSteps
			c.blaSteps += local.blaSteps
			mu.Unlock()
		}()
	}
	for y := grid / 2; y < f.H; y += grid {
		rows <- y
	}
	close(rows)
	wg.Wait()
	return c
}

func deepFrame(t testing.TB, name string, w, h int) Frame {
	t.Helper()
	f, err := NewFrame(deepLocationNamed(t, name), w, h).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Ref == nil {
		t.Fatalf("%s: no reference (precision %v)", name, f.Precision())
	}
	return f
}

// BenchmarkBLAEpsilon is the measurement DefaultBLAEpsilon was chosen by: for each deep view
// and eps, the share of pixels (a 32x32 grid of a 1024x1024 frame) with the same escape count
// as plain perturbation, the largest difference, and the step reduction. Run with
// -benchtime=1x.
func BenchmarkBLAEpsilon(b *testing.B) {
	for _, name := range []string{"p8007", "p136119z45", "p136119z50", "p136119near", "misiurewicz1e290"} {
		f := deepFrame(b, name, 1024, 1024)
		for _, e := range blaEpsExponents {
			b.Run(fmt.Sprintf("%s/eps=2^-%d", name, e), func(b *testing.B) {
				var c blaComparison
				for range b.N {
					c = compareBLA(f, 1/float64(uint64(1)<<e), 32)
				}
				b.ReportMetric(100*float64(c.same)/float64(c.pixels), "%same")
				b.ReportMetric(100*float64(c.within3)/float64(c.pixels), "%within3")
				b.ReportMetric(float64(c.maxDiff), "maxdiff")
				b.ReportMetric(100*float64(c.stable)/float64(c.pixels), "%stable")
				b.ReportMetric(100*float64(c.stableSame)/float64(c.stable), "%stable-same")
				b.ReportMetric(float64(c.plainSteps)/float64(c.blaSteps), "x-fewer-steps")
			})
		}
	}
}

// BenchmarkPerturb measures perturbation per pixel-iteration, plain and with the default BLA
// table, on a 32x32 grid of a 1024x1024 frame of deep views, one goroutine: ns/pixel-iter
// (wall) and cpu-ns/pixel-iter (the process's CPU time, steadier on a shared machine), and
// the steps taken per pixel.
func BenchmarkPerturb(b *testing.B) {
	for _, name := range []string{"p136119z45", "p136119z50", "p8007"} {
		f := deepFrame(b, name, 1024, 1024)
		for _, withBLA := range []bool{false, true} {
			sub := name + "/plain"
			var bla *BLA
			if withBLA {
				sub = name + "/bla"
				bla = f.BLA()
			}
			b.Run(sub, func(b *testing.B) {
				iters, steps := 0, 0
				cpu0 := cputime.Process()
				for b.Loop() {
					for y := 16; y < f.H; y += 32 {
						for x := 16; x < f.W; x += 32 {
							dr, di := f.Delta(x, y)
							n, _, s := perturbEscape(f.Ref, bla, dr, di, f.Loc.Iterations, nil)
							if n < 0 {
								n = f.Loc.Iterations
							}
							iters += n
							steps += s
						}
					}
				}
				cpu := cputime.Process() - cpu0
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(iters), "ns/pixel-iter")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(iters), "cpu-ns/pixel-iter")
				b.ReportMetric(float64(steps)/float64(32*32*b.N), "steps/pixel")
				b.ReportMetric(float64(iters)/float64(32*32*b.N), "iters/pixel")
			})
		}
	}
}

// blaEpsExponents are the eps = 2^-e BenchmarkBLAEpsilon tries.
var blaEpsExponents = []int{24, 32, 40, 44, 48, 53}

// TestBLAMatchesPlainPerturbation is the BLA accuracy requirement: on deep views with 100k
// to 700k iterations, the default table must give the same escape count as plain
// perturbation for at least 99% of the pixels whose plain count is stable (unchanged when dc
// moves by eps of itself, the relative error a block may add: the others are so
// ill-conditioned that any two ways of rounding give different counts), and for at least
// 95% of all pixels. BenchmarkBLAEpsilon gives the figures on a 32x32 grid for several eps:
// at p136119z50 even eps = 2^-53 leaves 1.6% of pixels different from plain perturbation,
// about the share whose plain count changes when dc moves by 2^-48 of itself.
func TestBLAMatchesPlainPerturbation(t *testing.T) {
	grid := 64
	if raceEnabled || testing.Short() {
		grid = 256
	}
	for _, name := range []string{"p8007", "p136119z45", "p136119z50"} {
		f := deepFrame(t, name, 1024, 1024)
		c := compareBLA(f, DefaultBLAEpsilon, grid)
		t.Logf("%s: %d pixels, same %.2f%%, within 3 %.2f%%, max difference %d; stable %d, same among them %.2f%%; %.1fx fewer steps",
			name, c.pixels, 100*float64(c.same)/float64(c.pixels), 100*float64(c.within3)/float64(c.pixels), c.maxDiff,
			c.stable, 100*float64(c.stableSame)/float64(c.stable), float64(c.plainSteps)/float64(c.blaSteps))
		if c.stable < c.pixels*9/10 || c.stableSame*100 < c.stable*99 {
			t.Errorf("%s: %d of %d stable pixels (of %d) same as plain perturbation, want 99%%", name, c.stableSame, c.stable, c.pixels)
		}
		if c.same*100 < c.pixels*95 {
			t.Errorf("%s: %d of %d pixels same as plain perturbation, want 95%%", name, c.same, c.pixels)
		}
		if c.blaSteps*4 > c.plainSteps {
			t.Errorf("%s: BLA took %d steps for %d plain ones: it skips almost nothing", name, c.blaSteps, c.plainSteps)
		}
	}
}

// flatPerturb is PerturbEscape written from the BLA documentation alone, on Flat's table
// and the documented top-down lookup, as the GLSL shader does it: it checks that the doc
// and the layout say what the Go code does.
func flatPerturb(ref *Reference, b *BLA, dcr, dci float64, maxIter int) int {
	flat := b.Flat()
	z := ref.OrbitFloats()
	last := len(z)/2 - 1
	var dr, di float64
	m, n := 0, 0
	for n < maxIter {
		jumped := false
		if m >= 1 {
			l := b.Levels() - 1
			if m > 1 {
				l = min(bits.TrailingZeros(uint(m-1)), b.Levels()-1)
			}
			for ; l >= 0; l-- {
				k := (m - 1) >> uint(l)
				if k >= b.Count(l) || n+1<<uint(l) > maxIter {
					continue
				}
				e := flat[BLAStride*(b.Offset(l)+k):]
				if math.Abs(dr)+math.Abs(di) < e[4] {
					dr, di = e[0]*dr-e[1]*di+e[2]*dcr-e[3]*dci, e[0]*di+e[1]*dr+e[2]*dci+e[3]*dcr
					m += 1 << uint(l)
					n += 1 << uint(l)
					jumped = true
					break
				}
			}
		}
		if !jumped {
			zr, zi := z[2*m], z[2*m+1]
			dr, di = 2*(zr*dr-zi*di)+dr*dr-di*di+dcr, 2*(zr*di+zi*dr)+2*dr*di+dci
			m++
			n++
		}
		zr, zi := z[2*m]+dr, z[2*m+1]+di
		if zr*zr+zi*zi > 4 {
			return n
		}
		if m == last || zr*zr+zi*zi < dr*dr+di*di {
			dr, di, m = zr, zi, 0
		}
	}
	return -1
}

// TestBLAFlatLayout checks Flat against the documented layout (counts, offsets, level 0
// entries from Z, level 1 entries merged from level 0) and that the documented lookup on the
// flat table gives PerturbEscape's escape counts.
func TestBLAFlatLayout(t *testing.T) {
	f := deepFrame(t, "p8007", 320, 200)
	f.Loc.Iterations = 40000
	ref, err := ComputeReference(context.Background(), f.Loc.Re, f.Loc.Im, f.ReferenceBits(), 40000, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Ref = ref
	b := ref.BLA(f.DeltaMax())
	if b != ref.BLA(f.DeltaMax()*0.75) || b.DcMax < f.DeltaMax() || b.DcMax >= 2*f.DeltaMax() {
		t.Errorf("BLA for dcMax %g: built for %g, not shared within its power of two", f.DeltaMax(), b.DcMax)
	}
	flat := b.Flat()
	s := len(ref.Z) - 2
	if b.Steps() != s || len(flat) != BLAStride*b.Offset(b.Levels()) {
		t.Fatalf("steps %d (want %d), flat %d values for %d entries", b.Steps(), s, len(flat), b.Offset(b.Levels()))
	}
	for l := range b.Levels() {
		if b.Count(l) != s>>uint(l) || b.Count(l) < 1 {
			t.Fatalf("level %d has %d entries, want %d", l, b.Count(l), s>>uint(l))
		}
	}
	if s>>uint(b.Levels()) != 0 {
		t.Errorf("%d levels for %d steps: a level is missing", b.Levels(), s)
	}
	for k := range s {
		e := flat[BLAStride*k:][:BLAStride]
		zm := ref.Z[k+1]
		want := [6]float64{2 * real(zm), 2 * imag(zm), 1, 0, b.Eps * math.Hypot(real(zm), imag(zm)), 0}
		if [6]float64(e) != want {
			t.Fatalf("level 0 entry %d = %v, want %v", k, e, want)
		}
	}
	for k := range b.Count(1) {
		x, y := flat[BLAStride*(2*k):], flat[BLAStride*(2*k+1):]
		e := flat[BLAStride*(b.Offset(1)+k):]
		ar, ai := y[0]*x[0]-y[1]*x[1], y[0]*x[1]+y[1]*x[0]
		br, bi := y[0]*x[2]-y[1]*x[3]+y[2], y[0]*x[3]+y[1]*x[2]+y[3]
		r := min(x[4], max(0, (y[4]-math.Hypot(x[2], x[3])*b.DcMax)/math.Hypot(x[0], x[1])))
		if e[0] != ar || e[1] != ai || e[2] != br || e[3] != bi || math.Abs(e[4]-r) > 1e-15*r {
			t.Fatalf("level 1 entry %d = %v, want A %g%+gi B %g%+gi R %g", k, e[:5], ar, ai, br, bi, r)
		}
	}
	for y := 5; y < f.H; y += 19 {
		for x := 3; x < f.W; x += 23 {
			dr, di := f.Delta(x, y)
			want, _ := PerturbEscape(ref, b, dr, di, f.Loc.Iterations, nil)
			if got := flatPerturb(ref, b, dr, di, f.Loc.Iterations); got != want {
				t.Errorf("pixel %d,%d: documented lookup on Flat gives %d, PerturbEscape %d", x, y, got, want)
			}
		}
	}
}

// TestMemoryMillionIterations measures the heap a reference of 1,000,000 iterations and its
// BLA table hold (the bound: under 300 MB), and that Flat has the documented size.
// The view's centre is a nucleus, whose orbit would stop at its period (period.go): the
// orbit here is computed in full, as for a centre that settles on no cycle.
func TestMemoryMillionIterations(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("a million-iteration orbit is slow under the race detector")
	}
	l := deepLocationNamed(t, "p136119z50")
	f := NewFrame(l, 1024, 1024)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ref := longReference(t, l, f.ReferenceBits(), 1_000_000)
	f.Ref = ref
	bla := f.BLA()
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("1,000,000 iterations: heap %.1f MB (%.0f bytes an iteration): orbit %d MB, BLA %d MB in %d levels",
		float64(held)/1e6, float64(held)/1e6, 16*len(ref.Z)>>20, bla.Bytes()>>20, bla.Levels())
	if held > 300<<20 {
		t.Errorf("reference and BLA hold %d MB, want under 300 MB", held>>20)
	}
	if len(ref.Z) != 1_000_001 || bla.Offset(bla.Levels()) < 1_999_000 {
		t.Errorf("orbit %d values, BLA %d entries", len(ref.Z), bla.Offset(bla.Levels()))
	}
	runtime.KeepAlive(ref)
}

// longReference is ComputeReference without looking for a period: the orbit of n iterations
// (unless it escapes), as a centre that settles on no cycle has.
func longReference(t testing.TB, l Location, bits uint, n int) *Reference {
	t.Helper()
	ref, err := newReference(l.Re, l.Im, bits, n)
	if err != nil {
		t.Fatal(err)
	}
	ref.noPeriod = true
	if err := ref.iterateFixed(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return ref
}

// TestNearBound checks nearBound, below which the vector loops skip the check after a step:
// for Z and d with |Re d| + |Im d| < nearBound(|Z|), PerturbEscape's check (computed as it
// computes it) must find neither an escape (z^2 > 4) nor a rebase (z^2 < d^2, z^2 < 2^-900).
// Z all over the disc of radius 2 (near 0, near |Z| = 2, tiny, at depth), d in every
// direction, most of them just below the bound, where a bound too loose would show.
func TestNearBound(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	checked := 0
	for range 2_000_000 {
		var a float64
		switch r.IntN(4) {
		case 0:
			a = 2 * r.Float64()
		case 1:
			a = 2 - math.Ldexp(r.Float64(), -r.IntN(60)) // near the escape circle
		case 2:
			a = math.Ldexp(1+r.Float64(), -r.IntN(1000)) // small, to below 2^-440
		default:
			a = math.Ldexp(1+r.Float64(), -r.IntN(460)+20)
			a = min(a, 2)
		}
		th := 2 * math.Pi * r.Float64()
		zr, zi := a*math.Cos(th), a*math.Sin(th)
		bound := nearBound(math.Hypot(zr, zi))
		if bound == 0 {
			continue
		}
		// |dr| + |di| just below the bound, or anywhere below it.
		s := bound * (1 - math.Ldexp(r.Float64(), -r.IntN(52)))
		if r.IntN(4) == 0 {
			s = bound * r.Float64()
		}
		u := r.Float64()
		dr, di := s*u, s*(1-u)
		if r.IntN(2) == 0 {
			dr = -dr
		}
		if r.IntN(2) == 0 {
			di = -di
		}
		if !(math.Abs(dr)+math.Abs(di) < bound) {
			continue
		}
		checked++
		xr, xi := zr+dr, zi+di
		z2 := xr*xr + xi*xi
		if z2 > 4 || z2 < dr*dr+di*di || z2 < 0x1p-900 {
			t.Fatalf("Z = %g%+gi, d = %g%+gi below nearBound %g: z^2 = %g, d^2 = %g", zr, zi, dr, di, bound, z2, dr*dr+di*di)
		}
	}
	if checked < 1_000_000 {
		t.Errorf("only %d cases checked", checked)
	}
}
