//go:build !unix

package main

import "testing"

// interruptSelf would send this process Ctrl-C; Go cannot signal its own process here
// (os.Process.Signal supports only Kill on Windows), so the test is skipped.
func interruptSelf(t *testing.T) {
	t.Skip("cannot send this process an interrupt on this system")
}
