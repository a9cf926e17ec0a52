package render

import (
	"os"
	"testing"
)

// ScreenArea gives the display's size (Xvfb's screen in CI) on the main thread.
func TestScreenArea(t *testing.T) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		if os.Getenv("MANDELSCOPE_REQUIRE_GL") == "1" {
			t.Fatal("MANDELSCOPE_REQUIRE_GL=1 but there is no display")
		}
		t.Skip("no display")
	}
	var w, h int
	var ok bool
	if err := onMainQueue(func() { w, h, ok = ScreenArea() }); err != nil {
		t.Fatal(err)
	}
	if !ok || w < 64 || h < 64 {
		t.Fatalf("ScreenArea() = %d, %d, %v on display %q", w, h, ok, os.Getenv("DISPLAY"))
	}
	t.Logf("screen area %dx%d", w, h)
}
