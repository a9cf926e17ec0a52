package app

import (
	"context"
	"flag"
	"image"
	"os"
	"runtime"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/render"
)

func init() {
	// GLFW's window calls must run on the main thread: keep TestMain's goroutine on it.
	runtime.LockOSThread()
}

// TestMain runs the tests inside render.Main, so that the GL tests can make a context.
func TestMain(m *testing.M) {
	flag.Parse()
	code := 1
	render.Main(func() { code = m.Run() })
	os.Exit(code)
}

// newGL makes the GL renderer, skipping the test when there is none (failing when
// MANDELSCOPE_REQUIRE_GL=1).
func newGL(t *testing.T) *render.GL {
	t.Helper()
	g, err := render.NewGL(render.Options{})
	if err != nil {
		imagetest.NoGL(t, "no GL context: "+err.Error())
	}
	t.Cleanup(func() { _ = g.Close() })
	return g
}

// The window switches to the GL renderer when it comes up: the status bar names it and its
// precision mode, and its frames match the CPU renderer's.
func TestWindowOnGL(t *testing.T) {
	g := newGL(t)
	w := openTestWindow(t, Options{Size: fyne.NewSize(520, 400), NewGPU: func() (Renderer, error) { return g, nil }})
	w.startGPU()
	testUI.drain()
	if got := w.statusRend.Text; !strings.Contains(got, "OpenGL") {
		t.Errorf("renderer shows %q", got)
	}
	if got := w.statusMode.Text; strings.Contains(got, "CPU") || !strings.Contains(got, "float32") {
		t.Errorf("mode at home shows %q, want the GL renderer's float32 mode", got)
	}
	l := fractal.Home()
	l.Re = fractal.MustDecimal("-0.74364388703")
	l.Im = fractal.MustDecimal("0.13182590420")
	l.Zoom = fractal.MustDecimal("2e5")
	l.Iterations = 900
	w.SetLocation(l)
	if got := w.fullText(w.statusMode); got != g.Mode(fractal.NewFrame(l, w.view.lastW, w.view.lastH)) {
		t.Errorf("mode at zoom 2e5 shows %q, want the renderer's %q", got, g.Mode(fractal.NewFrame(l, w.view.lastW, w.view.lastH)))
	}
	pw, ph := w.ViewSize()
	waitFor(t, "a full-resolution GL frame", func() bool {
		img := w.shownImage()
		w.mu.Lock()
		done := w.lastFullLoc.String() == l.String()
		w.mu.Unlock()
		return done && img != nil && img.Rect.Dx() == pw && img.Rect.Dy() == ph
	})
	cpuImg := image.NewRGBA(image.Rect(0, 0, pw, ph))
	if err := w.cpu.Render(context.Background(), fractal.NewFrame(l, pw, ph), cpuImg.Rect, cpuImg); err != nil {
		t.Fatal(err)
	}
	if f, _ := imagetest.Agreement(w.shownImage(), cpuImg, 6); f < 0.98 {
		t.Errorf("GL frame in the view matches the CPU render on %.1f%% of pixels, want >= 98%%", 100*f)
	}
	if err := imagetest.Isolated(w.shownImage(), cpuImg, 6); err != nil {
		t.Errorf("GL frame in the view vs the CPU render: %v", err)
	}
	th := w.RenderThumbnail(l, 97, 61)
	cth := image.NewRGBA(image.Rect(0, 0, 97, 61))
	_ = w.cpu.Render(context.Background(), fractal.NewFrame(l, 97, 61), cth.Rect, cth)
	if f, _ := imagetest.Agreement(th, cth, 6); f < 0.98 {
		t.Errorf("GL thumbnail matches the CPU on %.1f%% of pixels, want >= 98%%", 100*f)
	}
	if err := imagetest.Isolated(th, cth, 6); err != nil {
		t.Errorf("GL thumbnail vs the CPU: %v", err)
	}
}
