// Package par runs a loop over rows on every core.
package par

import (
	"runtime"
	"sync"
)

// Rows runs f over the rows [0, h) in pieces on every core (four pieces a core, so that
// uneven rows even out) when the loop's cost, h times rowWork (a row's cost in the caller's
// unit: pixels times samples), is at least minWork; otherwise in one piece on the calling
// goroutine. It returns when every piece has.
func Rows(h, rowWork, minWork int, f func(y0, y1 int)) {
	n := runtime.GOMAXPROCS(0)
	if h*rowWork < minWork || n == 1 || h < 2 {
		f(0, h)
		return
	}
	n = min(n*4, h)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { f(h*i/n, h*(i+1)/n) })
	}
	wg.Wait()
}
