//go:build unix

// Package fifotest helps the tests that hand the program a named pipe where it expects a
// file: Make makes one that nothing writes (opening it for reading the usual way waits for a
// writer forever), and Prompt fails the test instead of hanging the test run when the code
// under test waits on it anyway. Watch and Ended use one to learn, without polling, when the
// processes a fake program started (an encoder's children) have all ended.
package fifotest

import (
	"errors"
	"io"
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

// Watch makes a named pipe at path and opens it for reading without waiting for a writer. A
// fake program the test runs opens it for writing (a shell script: exec 3>"$path"), writes a
// line to it, and starts its children, which inherit the descriptor; Ended then tells when they
// have all ended. The pipe is closed when the test ends.
func Watch(t testing.TB, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(Make(t, path), os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Ended waits until every process holding the pipe f (from Watch) open for writing has closed
// it: a process's descriptors close when it ends (a zombie holds none), so the read reaches the
// pipe's end when the last of them has ended. It fails the test if they have not within a
// minute (a process killed ends at once; the minute is for a machine under load), and if no
// writer wrote to the pipe: the end of a pipe no one had opened says nothing.
func Ended(t testing.TB, f *os.File, what string) {
	t.Helper()
	if err := f.SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
		t.Fatalf("cannot wait on the named pipe %s: %v", f.Name(), err)
	}
	b, err := io.ReadAll(f)
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		t.Fatalf("%s still runs a minute later", what)
	case err != nil:
		t.Fatal(err)
	case len(b) == 0:
		t.Fatalf("%s never opened the named pipe %s", what, f.Name())
	}
}
