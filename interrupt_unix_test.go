//go:build unix

package main

import (
	"os"
	"syscall"
	"testing"
)

// interruptSelf sends this process SIGINT, as Ctrl-C does.
func interruptSelf(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
}
