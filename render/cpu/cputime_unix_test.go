//go:build unix

package cpu

import (
	"syscall"
	"time"
)

// processCPUTime is the CPU time the whole process has used, for benchmarks on a machine
// shared with other work (wall time there measures the neighbours too).
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
