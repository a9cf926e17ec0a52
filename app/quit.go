// Ending a session. The window's close button, File > Quit (Ctrl+Q), and the signals that a
// desktop sends at logout or a terminal at Ctrl-C or `timeout` (SIGINT, SIGTERM, SIGHUP) all
// end it the same way: the state is saved (state.go), the background work is stopped and waited
// for, so that nothing draws on the GL context when GLFW terminates (a draw in flight then
// crashed with SIGSEGV or hung in glfwTerminate), and the app quits.

package app

import (
	"bytes"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// QuitSignals are the signals that end the window as its close button does.
var QuitSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// shutdownWait bounds how long closing waits for the background work to stop.
const shutdownWait = 3 * time.Second

// quitShortcut is Ctrl+Q (Cmd+Q on macOS).
var quitShortcut = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}

// Quit ends the session as the close button does (shutdown: an export in progress is
// interrupted, its .part kept), then quits the app. It runs on the UI goroutine. The windows
// are left to the driver to destroy: a Fyne window closed but not yet destroyed dereferences
// nil when the pointer moves over it (fyne v2.7.1, processMouseMoved), as the driver handles
// the next events before it quits.
func (w *Window) Quit() {
	w.shutdown()
	w.app.Driver().Quit()
}

// shutdown is the window's OnClosed: it saves the state and writes it to disk, stops the work
// on the UI goroutine, then stops the render worker, the prober and a running export, and lets
// no render start on the GPU renderer, waiting (at most shutdownWait) for what is in flight.
// Calling it again does no harm. Options.Stopped is called when it returns.
func (w *Window) shutdown() {
	w.saveState()
	if w.opts.Restore {
		flushPreferences(w.app)
	}
	if w.opts.Stopped != nil {
		defer w.stopOnce.Do(w.opts.Stopped)
	}
	w.stopUI()
	w.closeOnce.Do(func() { close(w.closing) })
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.stopWorkers()
		if w.exp != nil {
			w.exp.stop()
		}
		if w.vid != nil {
			w.vid.stop()
		}
		w.rend.close()
	}()
	// Wait for them, and for a GPU renderer being made (GLFW terminates when this returns),
	// running what they ask of the main thread meanwhile (MainThread).
	timeout := time.NewTimer(shutdownWait)
	defer timeout.Stop()
	gpu := w.gpuDone
	for done != nil || gpu != nil {
		if w.shutdownWaiting != nil {
			w.shutdownWaiting()
		}
		select {
		case f := <-w.mainPump:
			f()
		case <-done:
			done = nil
		case <-gpu:
			gpu = nil
		case <-timeout.C:
			return
		}
	}
}

// MainThread runs f on the main thread (the UI goroutine) and waits for it: through fyne.Do,
// or, while the window is closing, in shutdown's wait, whichever comes first. The GPU renderer
// makes and destroys its GLFW window through it (Options.NewGPU). Before the app runs and after
// it has stopped, fyne.Do runs f on the calling goroutine.
func (w *Window) MainThread(f func()) {
	var once sync.Once
	done := make(chan struct{})
	run := func() {
		once.Do(func() {
			defer close(done)
			f()
		})
	}
	fyne.Do(run)
	select {
	case w.mainPump <- run:
	case <-done:
	}
	<-done
}

// listenForQuit ends the session (Quit, on the UI goroutine) when a signal comes on sigs,
// until the window closes; a second signal calls Options.ForceQuit, for a quit that does not
// end.
func (w *Window) listenForQuit(sigs <-chan os.Signal) {
	go func() {
		select {
		case <-sigs:
			w.uiDo(w.Quit)
			// Meanwhile the renders stop, leaving the CPU (and a software rasteriser's
			// threads) to the UI goroutine, which may be slow to come to Quit under their load.
			w.stopWorkers()
		case <-w.closing:
			return
		}
		if w.opts.ForceQuit != nil {
			<-sigs
			w.opts.ForceQuit()
		}
	}()
}

// takeSignalsFromFyne relays SIGINT and SIGTERM to c alone once Fyne's desktop driver has set
// up its own handler for them (Run starts it on a goroutine of its own). That handler quits
// the driver without closing the windows, so no OnClosed would save the state, and GLFW would
// terminate while the GL renderer may be drawing; it is reset (signal.Reset) as soon as a dump
// of the goroutines shows it waiting, which proves that its signal.Notify has returned. It
// gives up after 10 s or when stop is closed (a later Fyne that does this differently: the
// window's OnStopped hook still saves the state).
func takeSignalsFromFyne(c chan os.Signal, stop <-chan struct{}) {
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		for n == len(buf) {
			buf = make([]byte, 2*len(buf))
			n = runtime.Stack(buf, true)
		}
		if fyneCatchesTerm(buf[:n]) {
			signal.Reset(syscall.SIGINT, syscall.SIGTERM)
			signal.Notify(c, QuitSignals...)
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return
		case <-stop:
			return
		}
	}
}

// fyneCatchesTerm says whether a dump of every goroutine (runtime.Stack(buf, true)) shows
// Fyne's desktop driver waiting for SIGINT or SIGTERM: its catchTerm blocked on its channel.
func fyneCatchesTerm(dump []byte) bool {
	for _, g := range bytes.Split(dump, []byte("\n\n")) {
		header, _, _ := bytes.Cut(g, []byte("\n"))
		if bytes.Contains(header, []byte("[chan receive")) && bytes.Contains(g, []byte("fyne.io/fyne/v2/internal/driver/glfw.(*gLDriver).catchTerm(")) {
			return true
		}
	}
	return false
}

// isClosed says whether c is closed.
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
