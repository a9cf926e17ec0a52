package cpu

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"os"
	"strings"
	"testing"

	"mandelscope/fractal"
)

// deepLocation reads a named view from fractal's committed deep test locations.
func deepLocation(t testing.TB, name string) fractal.Location {
	t.Helper()
	data, err := os.ReadFile("../../fractal/testdata/deep/locations.txt")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n, rest, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if n == name {
			l, err := fractal.ParseLocationText(rest, fractal.Home())
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return l
		}
	}
	t.Fatalf("no deep location %q", name)
	return fractal.Location{}
}

// BenchmarkRenderDeep renders 1024x1024 deep views on every core, reference orbit and BLA
// table included (a fresh cache each time), as an export of that view does.
func BenchmarkRenderDeep(b *testing.B) {
	for _, c := range []struct {
		name string
		rows int // rows rendered, from the middle (1024 = the whole image)
	}{{"p136119z45", 1024}, {"p136119z50", 1024}, {"p8007", 1024}, {"p136119z45", 64}} {
		b.Run(fmt.Sprintf("%s/rows=%d", c.name, c.rows), func(b *testing.B) {
			f := fractal.NewFrame(deepLocation(b, c.name), 1024, 1024)
			rect := image.Rect(0, 512-c.rows/2, 1024, 512+c.rows/2)
			img := image.NewRGBA(rect)
			for b.Loop() {
				r := &Renderer{References: &fractal.ReferenceCache{}}
				if err := r.Render(context.Background(), f, rect, img); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/frame")
		})
	}
}
