//go:build !unix

// Package cputime measures the CPU time the process has used, for benchmarks on a machine
// shared with other work, where wall time says little.
package cputime

import "time"

// Process is not measured on this system: it returns 0.
func Process() time.Duration { return 0 }
