package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcessGrows: busy work adds CPU time (on Unix, where it is measured).
func TestProcessGrows(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("not measured here")
	}
	before := Process()
	x := 0.0
	for start := time.Now(); time.Since(start) < 50*time.Millisecond; {
		for i := range 1000 {
			x += float64(i) * 1e-9
		}
	}
	if after := Process(); after <= before {
		t.Errorf("CPU time went from %v to %v over 50 ms of busy work (x=%g)", before, after, x)
	}
}
