package render

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// mainQueue carries closures to the goroutine running Main, which is the process's main
// thread (main() locks it in init). GLFW's window calls must run there. mainMu guards
// mainActive (Main is serving) and mainPending (closures accepted but not yet received), so
// that Main, once fn has returned, still serves every closure it accepted and none is left
// waiting forever.
var (
	mainQueue   = make(chan func())
	mainMu      sync.Mutex
	mainActive  int
	mainPending int
)

// Main runs fn on a new goroutine while the calling goroutine, which must be the process's
// main thread (main() locks it with runtime.LockOSThread in init), services the GLFW calls
// that must run on the main thread, until fn returns. CLI subcommands and tests (TestMain)
// wrap their work in it; the window does not, as Fyne owns the main thread there and the
// window passes Options.MainThread instead.
func Main(fn func()) {
	mainMu.Lock()
	mainActive++
	mainMu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	serve := func(f func()) {
		mainMu.Lock()
		mainPending--
		mainMu.Unlock()
		f()
	}
	for {
		select {
		case f := <-mainQueue:
			serve(f)
			continue
		case <-done:
		}
		break
	}
	mainMu.Lock()
	mainActive--
	mainMu.Unlock()
	for {
		mainMu.Lock()
		n := mainPending
		mainMu.Unlock()
		if n == 0 {
			return
		}
		serve(<-mainQueue)
	}
}

// mainRunning reports whether Main is serving the queue.
func mainRunning() bool {
	mainMu.Lock()
	defer mainMu.Unlock()
	return mainActive > 0
}

// errNoMain is returned when no main-thread loop is there to run GLFW's calls.
var errNoMain = errors.New("no main-thread loop for GLFW (wrap the program in render.Main or set Options.MainThread)")

// onMainQueue runs f through Main's queue and waits for it.
func onMainQueue(f func()) error {
	mainMu.Lock()
	if mainActive == 0 {
		mainMu.Unlock()
		return errNoMain
	}
	mainPending++
	mainMu.Unlock()
	done := make(chan struct{})
	mainQueue <- func() {
		defer close(done)
		f()
	}
	<-done
	return nil
}

// glThread is one goroutine locked to an OS thread on which a GL context is current: every
// GL call runs there, submitted as a closure (the idea of Ebitengine's internal/thread).
type glThread struct {
	calls chan func()
	done  chan struct{}
}

func newGLThread() *glThread {
	t := &glThread{calls: make(chan func()), done: make(chan struct{})}
	go func() {
		runtime.LockOSThread()
		// Never unlocked: the thread is thrown away with its context when the loop ends.
		defer close(t.done)
		for f := range t.calls {
			f()
		}
	}()
	return t
}

// call runs f on the GL thread and waits; a panic in f comes back as an error.
func (t *glThread) call(f func() error) (err error) {
	ch := make(chan error, 1)
	t.calls <- func() {
		defer func() {
			if r := recover(); r != nil {
				ch <- fmt.Errorf("panic on the GL thread: %v", r)
			}
		}()
		ch <- f()
	}
	return <-ch
}

// stop ends the thread's loop and waits for it.
func (t *glThread) stop() {
	close(t.calls)
	<-t.done
}
