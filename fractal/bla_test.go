package fractal

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"
)

// blaComparison is plain perturbation against BLA on a grid of a view's pixels.
type blaComparison struct {
	pixels, same, within3 int
	stable, stableSame    int // pixels whose plain count a 2^-48 relative change of dc keeps
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
					n0, _, s0 := perturbEscape(f.Ref, nil, dr, di, f.Loc.Iterations)
					n1, _, s1 := perturbEscape(f.Ref, bla, dr, di, f.Loc.Iterations)
					j := 0x1p-48 * math.Hypot(dr, di)
					if nj, _, _ := perturbEscape(f.Ref, nil, dr+j, di+j, f.Loc.Iterations); nj == n0 {
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
				cpu0 := processCPUTime()
				for b.Loop() {
					for y := 16; y < f.H; y += 32 {
						for x := 16; x < f.W; x += 32 {
							dr, di := f.Delta(x, y)
							n, _, s := perturbEscape(f.Ref, bla, dr, di, f.Loc.Iterations)
							if n < 0 {
								n = f.Loc.Iterations
							}
							iters += n
							steps += s
						}
					}
				}
				cpu := processCPUTime() - cpu0
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
