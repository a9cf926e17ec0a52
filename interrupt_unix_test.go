//go:build unix

package main

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"
)

// keepTestProcess registers a SIGINT channel of the test binary's own, once, so that a
// self-sent SIGINT that arrives when no export is listening (one that finished first, on a
// fast machine) is dropped instead of killing the whole test process with Go's default action.
// An export that is listening still receives every SIGINT: each registered channel gets a copy.
var keepTestProcess sync.Once

// interruptSelf sends this process SIGINT, as Ctrl-C does.
func interruptSelf(t *testing.T) {
	t.Helper()
	keepTestProcess.Do(func() { signal.Notify(make(chan os.Signal, 1), os.Interrupt) })
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
}
