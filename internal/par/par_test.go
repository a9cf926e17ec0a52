package par

import (
	"runtime"
	"sync"
	"testing"
)

// TestRows: every row is visited once, in one piece below the threshold (the rows times a
// row's work) and in several above. (Rows compared a row's work alone with the threshold,
// which every caller passes a row's cost to, as the helper it replaced took: the colour pass
// and the video's composition ran in one piece unless a row alone was 16,384 subsamples or
// more. {360, 2560, 1 << 14} is a 640x360 frame's composition at 2x2.)
func TestRows(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	for _, c := range []struct{ h, work, min int }{{1, 10, 1}, {7, 1, 10}, {1000, 1 << 20, 1 << 15}, {3, 1 << 20, 1}, {360, 2560, 1 << 14}, {100, 100, 1 << 15}} {
		var mu sync.Mutex
		seen := make([]int, c.h)
		pieces := 0
		Rows(c.h, c.work, c.min, func(y0, y1 int) {
			mu.Lock()
			defer mu.Unlock()
			pieces++
			for y := y0; y < y1; y++ {
				seen[y]++
			}
		})
		for y, n := range seen {
			if n != 1 {
				t.Fatalf("%+v: row %d visited %d times", c, y, n)
			}
		}
		if below := c.h*c.work < c.min; below && pieces != 1 || !below && c.h > 1 && pieces < 2 {
			t.Errorf("%+v: %d pieces, below the threshold %v", c, pieces, below)
		}
	}
}
