//go:build unix

// Package cputime measures the CPU time the process has used, for benchmarks on a machine
// shared with other work, where wall time says little.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time the whole process has used: every thread (llvmpipe's rasteriser
// threads included), user and system time together.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
