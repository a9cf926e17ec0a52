package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"mandelscope/internal/imagetest"
)

// TestWindowEndToEnd builds the binary, opens the real window on the current X display,
// waits for the window titled Mandelscope, and checks from screenshots (ImageMagick's import)
// that the set is drawn (dark interior and coloured exterior), that a wheel zoom (xdotool
// click 4) and a drag (mousedown, mousemove, mouseup) each change at least 30% of the view,
// that the drag moves the picture with the pointer, and that the window is still alive
// afterwards. With MANDELSCOPE_REQUIRE_GL=1 it fails instead of
// skipping when there is no display or tool, and wants the window to have used OpenGL.
// MANDELSCOPE_E2E_SHOTS=DIR keeps the screenshots (view area) there for a person to look at.
func TestWindowEndToEnd(t *testing.T) {
	required := os.Getenv(imagetest.RequireGLEnv) == "1"
	bin := windowTest(t, "xdotool", "import")
	dir := t.TempDir()
	cmd, logs, exited := startWindow(t, bin, filepath.Join(dir, "config"), "--size=900x640")

	wid := waitWindow(t, cmd.Process.Pid, exited)
	geo := windowGeometry(t, wid)
	// The view: the window's middle, clear of the toolbar, controls and status bar.
	view := image.Rect(geo.Min.X+geo.Dx()/10, geo.Min.Y+geo.Dy()*25/100, geo.Max.X-geo.Dx()/10, geo.Max.Y-geo.Dy()*25/100)
	t.Logf("window %s at %v, checking view area %v", wid, geo, view)
	shots := t.TempDir()
	if d := os.Getenv("MANDELSCOPE_E2E_SHOTS"); d != "" {
		shots = d
	}

	first := waitStable(t, filepath.Join(shots, "e2e-1-start.png"), view, 20*time.Second)
	checkSetVisible(t, "start", first)

	cx, cy := view.Min.X+view.Dx()*3/5, view.Min.Y+view.Dy()/2
	xdo(t, "mousemove", strconv.Itoa(cx), strconv.Itoa(cy))
	for range 4 {
		xdo(t, "click", "4")
		time.Sleep(50 * time.Millisecond)
	}
	zoomed := waitStable(t, filepath.Join(shots, "e2e-2-zoomed.png"), view, 20*time.Second)
	if f := changedFraction(first, zoomed); f < 0.3 {
		t.Errorf("wheel zoom changed %.0f%% of the view, want at least 30%%", 100*f)
	}
	checkSetVisible(t, "after zoom", zoomed)

	xdo(t, "mousedown", "1")
	for i := 1; i <= 10; i++ {
		xdo(t, "mousemove", strconv.Itoa(cx-15*i), strconv.Itoa(cy-6*i))
		time.Sleep(20 * time.Millisecond)
	}
	xdo(t, "mouseup", "1")
	dragged := waitStable(t, filepath.Join(shots, "e2e-3-dragged.png"), view, 20*time.Second)
	if f := changedFraction(zoomed, dragged); f < 0.3 {
		t.Errorf("drag changed %.0f%% of the view, want at least 30%%", 100*f)
	}
	// A drag moves the picture with the pointer: the dragged picture, shifted back by the
	// drag (150, 60), matches the picture before it where both overlap.
	if f := shiftedMismatch(zoomed, dragged, -150, -60); f > 0.2 {
		t.Errorf("the drag did not move the picture with the pointer: %.0f%% mismatch after shifting back", 100*f)
	}
	select {
	case err := <-exited:
		exited <- err
		t.Fatalf("the window exited: %v", err)
	default:
	}
	if required && !strings.Contains(logs.String(), "renders with OpenGL") {
		t.Errorf("MANDELSCOPE_REQUIRE_GL=1 but the window did not use OpenGL")
	}
}

func xdo(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		t.Fatalf("xdotool %v: %v %s", args, err, out)
	}
}

func windowGeometry(t *testing.T, wid string) image.Rectangle {
	t.Helper()
	out, err := exec.Command("xdotool", "getwindowgeometry", "--shell", wid).Output()
	if err != nil {
		t.Fatalf("getwindowgeometry: %v", err)
	}
	v := map[string]int{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, s, ok := strings.Cut(line, "="); ok {
			v[k], _ = strconv.Atoi(s)
		}
	}
	if v["WIDTH"] < 200 || v["HEIGHT"] < 200 {
		t.Fatalf("window geometry %q", out)
	}
	return image.Rect(v["X"], v["Y"], v["X"]+v["WIDTH"], v["Y"]+v["HEIGHT"])
}

// screenshot grabs the screen and returns the area r, also writing it to path.
func screenshot(t *testing.T, path string, r image.Rectangle) *image.RGBA {
	t.Helper()
	out, err := exec.Command("import", "-window", "root", "png:-").Output()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	crop := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			crop.Set(x, y, img.At(r.Min.X+x, r.Min.Y+y))
		}
	}
	if f, err := os.Create(path); err == nil {
		_ = png.Encode(f, crop)
		f.Close()
	}
	return crop
}

// waitStable takes screenshots until two in a row are the same (the refine has landed).
func waitStable(t *testing.T, path string, r image.Rectangle, timeout time.Duration) *image.RGBA {
	t.Helper()
	deadline := time.Now().Add(timeout)
	prev := screenshot(t, path, r)
	for {
		time.Sleep(400 * time.Millisecond)
		cur := screenshot(t, path, r)
		if changedFraction(prev, cur) == 0 && !isBlank(cur) {
			return cur
		}
		if time.Now().After(deadline) {
			t.Logf("view still changing after %v", timeout)
			return cur
		}
		prev = cur
	}
}

func isBlank(img *image.RGBA) bool {
	p0 := img.Pix[:4]
	for i := 0; i < len(img.Pix); i += 4 {
		if !bytes.Equal(img.Pix[i:i+4], p0) {
			return false
		}
	}
	return true
}

func changedFraction(a, b *image.RGBA) float64 {
	n, changed := 0, 0
	for i := 0; i+3 < len(a.Pix) && i+3 < len(b.Pix); i += 4 {
		n++
		if diff(a.Pix[i], b.Pix[i]) > 6 || diff(a.Pix[i+1], b.Pix[i+1]) > 6 || diff(a.Pix[i+2], b.Pix[i+2]) > 6 {
			changed++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(changed) / float64(n)
}

// shiftedMismatch compares b shifted by (dx, dy) with a where they overlap.
func shiftedMismatch(a, b *image.RGBA, dx, dy int) float64 {
	n, bad := 0, 0
	r := a.Rect
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			bx, by := x+dx, y+dy
			if !(image.Point{bx, by}.In(b.Rect)) {
				continue
			}
			n++
			p, q := a.RGBAAt(x, y), b.RGBAAt(bx, by)
			if diff(p.R, q.R) > 24 || diff(p.G, q.G) > 24 || diff(p.B, q.B) > 24 {
				bad++
			}
		}
	}
	if n == 0 {
		return 1
	}
	return float64(bad) / float64(n)
}

func diff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// checkSetVisible wants both the dark interior and a coloured exterior in the view.
func checkSetVisible(t *testing.T, when string, img *image.RGBA) {
	t.Helper()
	n, dark, colour := 0, 0, 0
	for i := 0; i+3 < len(img.Pix); i += 4 {
		r, g, b := int(img.Pix[i]), int(img.Pix[i+1]), int(img.Pix[i+2])
		n++
		if r+g+b < 30 {
			dark++
		}
		if max(r, g, b)-min(r, g, b) > 40 {
			colour++
		}
	}
	fd, fc := float64(dark)/float64(n), float64(colour)/float64(n)
	if fd < 0.01 || fc < 0.1 {
		t.Errorf("%s: %.1f%% dark and %.1f%% coloured pixels in the view, want the set visible (>= 1%% dark, >= 10%% coloured)", when, 100*fd, 100*fc)
	}
	t.Logf("%s: %.1f%% dark, %.1f%% coloured", when, 100*fd, 100*fc)
}

// syncBuffer is a bytes.Buffer safe for the process's output goroutines and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// windowTest ends a test of the real window where it cannot run: without an X display or one
// of tools it skips (or, under MANDELSCOPE_REQUIRE_GL=1, fails: imagetest.NoGL), and in -short
// mode it skips. It returns the program, built once for all the tests (buildBinary).
func windowTest(t *testing.T, tools ...string) string {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		imagetest.NoGL(t, "DISPLAY is not set: no X server for the window")
	}
	if testing.Short() {
		t.Skip("end-to-end window test skipped in -short mode")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			imagetest.NoGL(t, tool+" is not installed")
		}
	}
	return buildBinary(t)
}

// startWindow starts the window program bin with args and a configuration folder of its own
// (it would otherwise reopen the user's last view). It returns the command, its output and
// the channel its end is sent on; when the test ends the window is killed, and its output
// logged if the test failed.
func startWindow(t *testing.T, bin, config string, args ...string) (*exec.Cmd, *syncBuffer, chan error) {
	t.Helper()
	logs := &syncBuffer{}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.Env = append(os.Environ(), "LANG=en_US.UTF-8", "XDG_CONFIG_HOME="+config, "GOTRACEBACK=all")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		if t.Failed() {
			// A window that still runs when a test fails prints where each goroutine is
			// (Go's SIGQUIT dump) before it is killed: a hang shows its cause in the log.
			_ = cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case err := <-exited:
				exited <- err
			case <-time.After(5 * time.Second):
			}
		}
		_ = cmd.Process.Kill()
		err := <-exited
		exited <- err // for a test that waits on it in its own cleanup
		if t.Failed() {
			t.Logf("window output:\n%s", logs.String())
		}
	})
	return cmd, logs, exited
}
