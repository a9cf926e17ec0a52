//go:build unix

// Package fifotest helps the tests that hand the program a named pipe where it expects a
// file: Make makes one that nothing writes (opening it for reading the usual way waits for a
// writer forever), and Prompt fails the test instead of hanging the test run when the code
// under test waits on it anyway.
package fifotest

import (
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Make makes a named pipe at path and returns path; the test is skipped where the file
// system cannot hold one.
func Make(t testing.TB, path string) string {
	t.Helper()
	if err := unix.Mkfifo(path, 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	return path
}

// Prompt runs fn and returns its error, failing the test if fn has not returned within 10 s.
// A reader still blocked on the named pipe fifo is then released by opening it for writing,
// so that the test binary can finish.
func Prompt(t testing.TB, fifo string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatalf("still blocked on the named pipe %s after 10 s", fifo)
		return nil
	}
}
