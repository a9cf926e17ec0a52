package app

import (
	"context"
	"errors"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"mandelscope/bookmarks"
	"mandelscope/fractal"
)

// openRestoring opens a CPU-rendered window that saves its state, in a fresh headless app.
func openRestoring(t *testing.T, opts Options) (*Window, fyne.App) {
	t.Helper()
	t.Setenv(bookmarks.EnvPath, filepath.Join(t.TempDir(), "bookmarks.json"))
	a := test.NewTempApp(t)
	opts.Renderer, opts.Restore, opts.do, opts.bookmarksWatch = "cpu", true, testUI.do, -1
	opts.Size = fyne.NewSize(700, 500)
	w := New(a, opts)
	t.Cleanup(func() {
		if !isClosed(w.closing) { // Fyne's test driver fails a second Close
			w.FyneWindow().Close()
		}
		w.stop()
		testUI.reset()
	})
	w.FyneWindow().Show()
	return w, a
}

// Ctrl+Q (the desktop's quit shortcut) ends the session as the close button does: the view is
// saved and the background work stopped; File > Quit, last in its menu, shows it.
func TestCtrlQQuitsAndSaves(t *testing.T) {
	w, a := openRestoring(t, Options{})
	l := testLoc("-0.743643887037151", "0.131825904205330", "5e5", 3000)
	w.SetLocation(l)
	w.FyneWindow().Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault})
	if got := a.Preferences().String(prefView); got != l.String() {
		t.Errorf("after Ctrl+Q the saved view is %q, want %q", got, l.String())
	}
	if !isClosed(w.closing) {
		t.Error("Ctrl+Q did not close the window")
	}
	var file *fyne.Menu
	for _, m := range w.menus {
		if m.Label == "File" {
			file = m
		}
	}
	if file == nil || len(file.Items) < 2 {
		t.Fatal("no File menu")
	}
	last := file.Items[len(file.Items)-1]
	if !last.IsQuit || last.Label != "Quit" || last.Shortcut == nil || last.Shortcut.ShortcutName() != quitShortcut.ShortcutName() {
		t.Errorf("the File menu ends with %q (quit %v, shortcut %v), want Quit with Ctrl+Q", last.Label, last.IsQuit, last.Shortcut)
	}
	if !file.Items[len(file.Items)-2].IsSeparator {
		t.Error("no separator before Quit")
	}
}

// SIGINT, SIGTERM (logout, `timeout`) and SIGHUP end the session as the close button does: the
// view is saved. The signal comes through the window's channel (Options.Signals), as
// signal.Notify delivers it in the program.
func TestSignalsQuitAndSave(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			sigs := make(chan os.Signal, 1)
			w, a := openRestoring(t, Options{Signals: sigs})
			l := testLoc("-1.25066", "0.02012", "1.5e4", 1200)
			w.SetLocation(l)
			if a.Preferences().String(prefView) != "" {
				t.Fatal("the view was saved before the window closed")
			}
			sigs <- sig
			waitFor(t, "the window to close on "+sig.String(), func() bool { return isClosed(w.closing) })
			if got := a.Preferences().String(prefView); got != l.String() {
				t.Errorf("after %v the saved view is %q, want %q", sig, got, l.String())
			}
		})
	}
}

// A second signal, while the first one's quit has not ended the program, forces it.
func TestSecondSignalForces(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	forced := make(chan struct{})
	w, _ := openRestoring(t, Options{Signals: sigs, ForceQuit: func() { close(forced) }})
	sigs <- syscall.SIGTERM
	waitFor(t, "the window to close", func() bool { return isClosed(w.closing) })
	sigs <- syscall.SIGTERM
	select {
	case <-forced:
	case <-time.After(60 * time.Second):
		t.Fatal("a second SIGTERM did not force the quit")
	}
}

// A quit that closes no window (Fyne's own signal handler, before the window takes the
// signals over) saves the state as the app stops.
func TestStoppedAppSavesState(t *testing.T) {
	w, a := openRestoring(t, Options{})
	l := testLoc("0.2501", "0.00001", "2e3", 900)
	w.SetLocation(l)
	lc, ok := a.Lifecycle().(interface{ OnStopped() func() })
	if !ok {
		t.Skip("the test app's lifecycle does not give its stopped hook")
	}
	stopped := lc.OnStopped()
	if stopped == nil {
		t.Fatal("no stopped hook")
	}
	stopped()
	if got := a.Preferences().String(prefView); got != l.String() {
		t.Errorf("after the app stopped the saved view is %q, want %q", got, l.String())
	}
}

// slowGPU stands for the GL renderer: a draw goes on after it is cancelled (a GL draw in
// flight finishes), until release is closed, and it counts the draws in progress and those
// begun after the window closed.
type slowGPU struct {
	mu      sync.Mutex
	active  int
	started chan struct{}
	release chan struct{} // a cancelled draw ends when this is closed
	closed  atomic.Bool
	late    atomic.Int32
}

func (g *slowGPU) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if g.closed.Load() {
		g.late.Add(1)
		return errors.New("drawn after the window closed")
	}
	g.mu.Lock()
	g.active++
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.active--
		g.mu.Unlock()
	}()
	select {
	case g.started <- struct{}{}:
	default:
	}
	<-ctx.Done()
	<-g.release // the draw in flight ends after the cancel
	return ctx.Err()
}

func (g *slowGPU) Name() string { return "OpenGL (test)" }

func (g *slowGPU) inFlight() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.active
}

// Closing the window waits for the GPU draw in flight and lets none begin after it: GLFW
// terminates right after, and a draw still running then crashed (SIGSEGV) or hung. The fake
// draw ends only once shutdown is waiting for the background work, so a close that does not
// wait returns with the draw still in flight.
func TestCloseWaitsForTheGPU(t *testing.T) {
	g := &slowGPU{started: make(chan struct{}, 1), release: make(chan struct{})}
	var once sync.Once
	release := func() { once.Do(func() { close(g.release) }) }
	w := openTestWindow(t, Options{Size: fyne.NewSize(520, 400), NewGPU: func() (Renderer, error) { return g, nil }})
	t.Cleanup(release) // before the window's cleanup, which waits for the worker
	w.shutdownWaiting = release
	w.startGPU()
	testUI.drain()
	select {
	case <-g.started:
	case <-time.After(60 * time.Second):
		t.Fatal("the GPU renderer was never asked for a frame")
	}
	w.FyneWindow().Close()
	g.closed.Store(true)
	if n := g.inFlight(); n != 0 {
		t.Errorf("%d GPU draws still in flight after the window closed", n)
	}
	w.RenderThumbnail(fractal.Home(), 32, 24) // drawn on the CPU now
	if n := g.late.Load(); n != 0 {
		t.Errorf("%d GPU draws began after the window closed", n)
	}
}

// linkFailGPU is a GPU renderer whose programs do not link on this driver.
type linkFailGPU struct{ calls atomic.Int32 }

func (g *linkFailGPU) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	g.calls.Add(1)
	return errors.New(`opengl: linking program "mandel.frag": failed to link OpenGL program; error code: 505`)
}

func (g *linkFailGPU) Name() string { return "OpenGL (test)" }

// A GPU renderer that fails (a program that does not link) is an error the window handles:
// the CPU renderer draws the view from then on, and the status bar says why.
func TestGPUFailureFallsBackToCPU(t *testing.T) {
	g := &linkFailGPU{}
	w := openTestWindow(t, Options{Size: fyne.NewSize(520, 400), NewGPU: func() (Renderer, error) { return g, nil }})
	w.startGPU()
	testUI.drain()
	l := testLoc("-0.7436", "0.1318", "300", 600)
	w.SetLocation(l)
	pw, ph := w.ViewSize()
	waitFor(t, "a full-resolution frame", func() bool {
		img := w.shownImage()
		w.mu.Lock()
		done := w.lastFullLoc.String() == l.String()
		w.mu.Unlock()
		return done && img != nil && img.Rect.Dx() == pw && img.Rect.Dy() == ph
	})
	if g.calls.Load() == 0 {
		t.Error("the GPU renderer was never tried")
	}
	if got := w.statusRend.Text; !strings.Contains(got, "CPU renderer (OpenGL failed: ") || !strings.Contains(got, "505") {
		t.Errorf("renderer shows %q, want the CPU with the reason", got)
	}
	if strings.Contains(w.statusTime.Text, "failed") {
		t.Errorf("status shows %q", w.statusTime.Text)
	}
	calls := g.calls.Load()
	w.SetLocation(testLoc("-0.7437", "0.1318", "300", 600))
	waitFor(t, "the next frame", func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.lastFullLoc.Re.String() == "-0.7437"
	})
	if n := g.calls.Load(); n != calls {
		t.Errorf("the failed GPU renderer was asked for %d more renders", n-calls)
	}
}

func TestFyneCatchesTerm(t *testing.T) {
	waiting := `goroutine 1 [running]:
main.main()

goroutine 68 [chan receive, 2 minutes]:
fyne.io/fyne/v2/internal/driver/glfw.(*gLDriver).catchTerm(0xc0000b4000)
	/root/go/pkg/mod/fyne.io/fyne/v2@v2.7.1/internal/driver/glfw/driver_desktop.go:210 +0x8d
created by fyne.io/fyne/v2/internal/driver/glfw.(*gLDriver).Run in goroutine 1
`
	if !fyneCatchesTerm([]byte(waiting)) {
		t.Error("Fyne's handler waiting on its channel not recognised")
	}
	starting := strings.Replace(waiting, "[chan receive, 2 minutes]", "[runnable]", 1)
	if fyneCatchesTerm([]byte(starting)) {
		t.Error("Fyne's handler not yet waiting taken for one that is")
	}
	other := strings.Replace(waiting, "catchTerm", "runGL", 1)
	if fyneCatchesTerm([]byte(other)) {
		t.Error("another goroutine taken for Fyne's signal handler")
	}
}

// Options.Stopped comes once the session has ended, and only once: the view is saved and
// written by then, the work stopped (the window program ends itself after it if the toolkit's
// run loop does not return, cmd_window.go). Closing again calls it no more.
func TestStoppedAfterTheSessionEnds(t *testing.T) {
	var calls atomic.Int32
	var a fyne.App
	var saved string
	var closed bool
	var w *Window
	w, a = openRestoring(t, Options{Stopped: func() {
		calls.Add(1)
		saved = a.Preferences().String(prefView)
		closed = isClosed(w.closing)
	}})
	l := testLoc("-0.743643887037151", "0.131825904205330", "5e5", 3000)
	w.SetLocation(l)
	w.FyneWindow().Canvas().(fyne.Shortcutable).TypedShortcut(quitShortcut)
	if n := calls.Load(); n != 1 {
		t.Fatalf("Stopped was called %d times after Ctrl+Q, want 1", n)
	}
	if saved != l.String() {
		t.Errorf("when Stopped was called the saved view was %q, want %q", saved, l.String())
	}
	if !closed {
		t.Error("Stopped was called before the window's work was told to stop")
	}
	w.shutdown()
	if n := calls.Load(); n != 1 {
		t.Errorf("Stopped was called %d times after a second shutdown, want 1", n)
	}
}
