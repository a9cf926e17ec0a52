package fractal

import (
	"bufio"
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// deepLocation is a committed test location (testdata/deep/locations.txt).
type deepLocation struct {
	name string
	loc  Location
}

func deepLocations(t testing.TB) []deepLocation {
	t.Helper()
	fh, err := os.Open("testdata/deep/locations.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []deepLocation
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			t.Fatalf("bad location line %q", line)
		}
		l := Home()
		var errs [4]error
		l.Re, errs[0] = ParseDecimal(f[1])
		l.Im, errs[1] = ParseDecimal(f[2])
		l.Zoom, errs[2] = ParseDecimal(f[3])
		l.Iterations, errs[3] = strconv.Atoi(f[4])
		for _, e := range errs {
			if e != nil {
				t.Fatalf("location %s: %v", f[0], e)
			}
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("location %s: %v", f[0], err)
		}
		out = append(out, deepLocation{f[0], l})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func deepLocationNamed(t testing.TB, name string) Location {
	for _, d := range deepLocations(t) {
		if d.name == name {
			return d.loc
		}
	}
	t.Fatalf("no deep location %q", name)
	return Location{}
}

// parallel runs f(i) for i in [0, n) on every core.
func parallel(n int, f func(i int)) {
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// TestPerturbAgainstBig compares the escape counts of the perturbation path the pictures use
// (Frame.Escape: one reference, rebasing, BLA at the default accuracy) with math/big
// (EscapeBig at the pixel's exact c) on sampled pixels of views from zoom 1e14 to 1e290,
// two of them with 100k+ iterations. Each pixel is computed in math/big at two precisions,
// 32 and 160 bits beyond the reference's; where those differ the pixel is ill-conditioned
// and left out. At least 95% of the rest must be within 1 iteration, in every view.
func TestPerturbAgainstBig(t *testing.T) {
	samples := map[string]int{
		"issue1e14": 48, "p8007": 8, "p136119z45": 6, "p136119near": 3,
		"misiurewicz1e100": 32, "misiurewicz1e200": 32, "misiurewicz1e290": 32,
	}
	for _, d := range deepLocations(t) {
		k, ok := samples[d.name]
		if !ok {
			continue
		}
		if raceEnabled || testing.Short() {
			k = max(1, k/4)
		}
		t.Run(d.name, func(t *testing.T) {
			f, err := NewFrame(d.loc, 640, 360).WithReference(context.Background(), &ReferenceCache{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if f.Precision() != Perturbation || f.Ref == nil {
				t.Fatalf("precision %v, reference %v: want a perturbation frame", f.Precision(), f.Ref != nil)
			}
			r := rand.New(rand.NewPCG(uint64(len(d.name)), 7))
			type px struct{ x, y, n, b1, b2 int }
			pxs := make([]px, k)
			for i := range pxs {
				pxs[i] = px{x: r.IntN(f.W), y: r.IntN(f.H)}
			}
			p1 := f.ReferenceBits() + 32
			parallel(2*k, func(i int) {
				p := &pxs[i/2]
				if i%2 == 0 {
					p.n, _ = f.Escape(p.x, p.y)
					cr, ci := f.PointBig(p.x, p.y, p1)
					p.b1 = EscapeBig(cr, ci, f.Loc.Iterations, p1)
				} else {
					cr, ci := f.PointBig(p.x, p.y, p1+128)
					p.b2 = EscapeBig(cr, ci, f.Loc.Iterations, p1+128)
				}
			})
			good, within := 0, 0
			for _, p := range pxs {
				if p.b1 != p.b2 {
					t.Logf("pixel %d,%d ill-conditioned: math/big gives %d and %d", p.x, p.y, p.b1, p.b2)
					continue
				}
				good++
				if p.n == p.b1 || p.n >= 0 && p.b1 >= 0 && abs(p.n-p.b1) <= 1 {
					within++
				} else {
					t.Logf("pixel %d,%d: perturbation %d, math/big %d", p.x, p.y, p.n, p.b1)
				}
			}
			t.Logf("%s: %d of %d well-conditioned pixels within 1 iteration (%d sampled)", d.name, within, good, len(pxs))
			if good < (len(pxs)+1)/2 || within*100 < good*95 {
				t.Errorf("%d of %d well-conditioned pixels (of %d) within 1 iteration of math/big, want 95%%", within, good, len(pxs))
			}
		})
	}
}

func abs(x int) int { return max(x, -x) }
