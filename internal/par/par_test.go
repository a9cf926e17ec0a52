package par

import (
	"sync"
	"testing"
)

// TestRows: every row is visited once, in one piece below the threshold and in several above.
func TestRows(t *testing.T) {
	for _, c := range []struct{ h, work, min int }{{1, 10, 1}, {7, 5, 10}, {1000, 1 << 20, 1 << 15}, {3, 1 << 20, 1}} {
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
		if c.work < c.min && pieces != 1 {
			t.Errorf("%+v: %d pieces below the threshold", c, pieces)
		}
	}
}
