package fractal

import (
	"math"
	"runtime"
	"sync"
	"testing"

	"mandelscope/colour"
	"mandelscope/internal/cputime"
)

// TestBLADerivative measures the derivative carried through BLA jumps (w' = A w + B spacing)
// against plain perturbation, which carries it step by step, on the deep views of
// TestBLAMatchesPlainPerturbation. As there, some pixels are so ill-conditioned that any two
// ways of rounding differ: a pixel is stable when plain perturbation at dc moved by eps of
// itself gives the same count and a distance estimate and normal within 1e-3. Among the
// pixels whose escape count BLA keeps, at least 99% of the stable ones must have BLA's
// distance estimate and normal within 1e-3 of plain's, and 99.5% of all of them the distance
// colouring's brightness (width 1) within 1/255.
func TestBLADerivative(t *testing.T) {
	grid := 64
	if raceEnabled || testing.Short() {
		grid = 256
	}
	for _, name := range []string{"p8007", "p136119z45", "p136119z50"} {
		f := deepFrame(t, name, 1024, 1024)
		bla := f.BLA()
		var mu sync.Mutex
		var pixels, sameN, closeDE, closeK, stable, stableClose int
		var worst float64
		rows := make(chan int)
		var wg sync.WaitGroup
		col := colour.Coloring{Method: colour.MethodDistance}
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for y := range rows {
					for x := grid / 2; x < f.W; x += grid {
						dr, di := f.Delta(x, y)
						p := PerturbEscapeDE(f.Ref, nil, dr, di, f.Loc.Iterations, f.Spacing, nil)
						b := PerturbEscapeDE(f.Ref, bla, dr, di, f.Loc.Iterations, f.Spacing, nil)
						j := DefaultBLAEpsilon * math.Hypot(dr, di)
						q := PerturbEscapeDE(f.Ref, nil, dr+j, di+j, f.Loc.Iterations, f.Spacing, nil)
						near := func(a, b Result) bool {
							return a.N == b.N && math.Abs(a.DE/b.DE-1) <= 1e-3 && math.Hypot(a.Ur-b.Ur, a.Ui-b.Ui) <= 1e-3
						}
						mu.Lock()
						pixels++
						if p.N == b.N && p.N > 0 {
							sameN++
							rel := math.Abs(b.DE/p.DE - 1)
							if near(b, p) {
								closeDE++
							}
							if near(q, p) {
								stable++
								if near(b, p) {
									stableClose++
								}
							}
							if math.Abs(col.Brightness(b.Sample())-col.Brightness(p.Sample())) <= 1.0/255 {
								closeK++
							}
							if !math.IsNaN(rel) {
								worst = max(worst, rel)
							}
						}
						mu.Unlock()
					}
				}
			}()
		}
		for y := grid / 2; y < f.H; y += grid {
			rows <- y
		}
		close(rows)
		wg.Wait()
		t.Logf("%s: %d pixels, %d escaping with BLA's count = plain's; of those DE and normal within 1e-3: %.2f%% (%d of %d stable ones), brightness within 1/255: %.2f%%; largest relative DE difference %.2g",
			name, pixels, sameN, 100*float64(closeDE)/float64(sameN), stableClose, stable, 100*float64(closeK)/float64(sameN), worst)
		if sameN < pixels/2 || stable < sameN*9/10 {
			t.Fatalf("%s: only %d of %d pixels escape with the same count, %d stable: the view tests little", name, sameN, pixels, stable)
		}
		if stableClose*100 < stable*99 || closeK*1000 < sameN*995 {
			t.Errorf("%s: of %d stable pixels, %d have BLA's DE within 1e-3 of plain's; of %d, %d the same brightness: want 99%% and 99.5%%", name, stable, stableClose, sameN, closeK)
		}
	}
}

// BenchmarkPerturbDE is what carrying the derivative costs: BenchmarkPerturb's grid (32x32
// pixels of a 1024x1024 frame) with the default BLA table, without and with the derivative,
// in CPU-ns per pixel-iteration.
func BenchmarkPerturbDE(b *testing.B) {
	for _, name := range []string{"p136119z50", "p8007"} {
		f := deepFrame(b, name, 1024, 1024)
		bla := f.BLA()
		for _, de := range []bool{false, true} {
			sub := name + "/escape"
			if de {
				sub = name + "/derivative"
			}
			b.Run(sub, func(b *testing.B) {
				iters := 0
				cpu0 := cputime.Process()
				for b.Loop() {
					for y := 16; y < f.H; y += 32 {
						for x := 16; x < f.W; x += 32 {
							dr, di := f.Delta(x, y)
							var n int
							if de {
								n = PerturbEscapeDE(f.Ref, bla, dr, di, f.Loc.Iterations, f.Spacing, nil).N
							} else {
								n, _ = PerturbEscape(f.Ref, bla, dr, di, f.Loc.Iterations, nil)
							}
							if n < 0 {
								n = f.Loc.Iterations
							}
							iters += n
						}
					}
				}
				cpu := cputime.Process() - cpu0
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(iters), "cpu-ns/pixel-iter")
			})
		}
	}
}
