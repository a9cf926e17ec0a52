package app

import (
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"mandelscope/bookmarks"
)

func fits(s fyne.Size, scale float32) bool {
	w, h := float64(s.Width*scale), float64(s.Height*scale)
	return w <= MaxWindowSide && h <= MaxWindowSide && w*h <= MaxWindowPixels
}

func TestClampWindowSize(t *testing.T) {
	screen := fyne.NewSize(1600, 1000)
	for _, c := range []struct {
		s, screen fyne.Size
		scale     float32
		want      fyne.Size // zero: only check that it fits and keeps the aspect ratio
	}{
		{fyne.NewSize(900, 640), screen, 1, fyne.NewSize(900, 640)},                  // fits: as it is
		{fyne.NewSize(8192, 8192), screen, 1, fyne.NewSize(1600, 1000)},              // the screen
		{fyne.NewSize(1800, 700), screen, 1, fyne.NewSize(1600, 700)},                // one side
		{fyne.NewSize(3840, 2160), fyne.Size{}, 1, fyne.NewSize(3840, 2160)},         // 4K fits the budget
		{fyne.NewSize(30000, 300), fyne.Size{}, 1, fyne.NewSize(MaxWindowSide, 300)}, // a side
		{fyne.NewSize(8192, 8192), fyne.Size{}, 1, fyne.Size{}},                      // the budget
		{fyne.NewSize(65536, 65536), fyne.Size{}, 1, fyne.Size{}},
		{fyne.NewSize(3000, 2000), fyne.Size{}, 2, fyne.Size{}}, // 6000x4000 pixels at scale 2
		{fyne.NewSize(8192, 8192), fyne.NewSize(20000, 20000), 1, fyne.Size{}},
	} {
		got := clampWindowSize(c.s, c.screen, c.scale)
		if !fits(got, c.scale) {
			t.Errorf("clamp(%v, screen %v, scale %g) = %v: %g pixels, beyond the limits", c.s, c.screen, c.scale, got, float64(got.Width*c.scale)*float64(got.Height*c.scale))
		}
		if !c.want.IsZero() && got != c.want {
			t.Errorf("clamp(%v, screen %v, scale %g) = %v, want %v", c.s, c.screen, c.scale, got, c.want)
		}
		if c.want.IsZero() {
			if r0, r1 := c.s.Width/c.s.Height, got.Width/got.Height; r1 < r0*0.99 || r1 > r0*1.01 {
				t.Errorf("clamp(%v) = %v changed the aspect ratio", c.s, got)
			}
			if px := float64(got.Width*c.scale) * float64(got.Height*c.scale); px < 0.99*MaxWindowPixels {
				t.Errorf("clamp(%v) = %v: %g pixels, shrunk further than the budget asks", c.s, got, px)
			}
		}
	}
}

func TestCheckWindowSize(t *testing.T) {
	for _, c := range []struct {
		w, h int
		want string // "" for no error
	}{
		{1280, 800, ""},
		{3840, 2160, ""},
		{16384, 500, ""},
		{30000, 30000, "16384 pixels a side"},
		{65536, 65536, "16384 pixels a side"},
		{16385, 100, "16384 pixels a side"},
		{8192, 8192, "at most 9.8 million"},
		{7680, 4320, "1024 MiB"},
	} {
		err := CheckWindowSize(c.w, c.h)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%dx%d: %v", c.w, c.h, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%dx%d: error %v, want one line with %q", c.w, c.h, err, c.want)
		}
	}
}

// A saved window larger than the screen, or than the memory the preview may take (8192x8192
// ran out of memory at every start), comes back clamped; a size that fits comes back as it was.
func TestRestoredSizeIsClamped(t *testing.T) {
	t.Setenv(bookmarks.EnvPath, filepath.Join(t.TempDir(), "bookmarks.json"))
	a := test.NewTempApp(t)
	open := func(screen bool) fyne.Size {
		opts := Options{Renderer: "cpu", Restore: true, do: testUI.do, bookmarksWatch: -1}
		if screen {
			opts.Screen = func() (int, int, bool) { return 1600, 1000, true }
		}
		w := New(a, opts)
		w.FyneWindow().Show()
		s := w.win.Canvas().Size()
		w.FyneWindow().Close()
		w.stop()
		testUI.reset()
		return s
	}
	for _, c := range []struct {
		saved  fyne.Size
		screen bool
		want   fyne.Size
	}{
		{fyne.NewSize(8192, 8192), true, fyne.NewSize(1600, 1000)},
		{fyne.NewSize(900, 640), true, fyne.NewSize(900, 640)},
		{fyne.NewSize(8192, 8192), false, fyne.Size{}},
		{fyne.NewSize(65536, 65536), false, fyne.Size{}},
	} {
		a.Preferences().SetFloat(prefWidth, float64(c.saved.Width))
		a.Preferences().SetFloat(prefHeight, float64(c.saved.Height))
		got := open(c.screen)
		if !fits(got, 1) {
			t.Errorf("saved %v (screen known: %v) came back as %v, beyond the limits", c.saved, c.screen, got)
		}
		if !c.want.IsZero() && got != c.want {
			t.Errorf("saved %v (screen known: %v) came back as %v, want %v", c.saved, c.screen, got, c.want)
		}
	}
}

// unsetScale is an app whose settings have no scale (0), as the desktop app's have until the
// user sets one.
type unsetScale struct{ fyne.App }

func (a unsetScale) Settings() fyne.Settings { return zeroScale{a.App.Settings()} }

type zeroScale struct{ fyne.Settings }

func (zeroScale) Scale() float32 { return 0 }

// With no scale set (the desktop app's settings say 0), the screen still bounds a restored size.
func TestRestoredSizeUnsetScale(t *testing.T) {
	t.Setenv(bookmarks.EnvPath, filepath.Join(t.TempDir(), "bookmarks.json"))
	a := unsetScale{test.NewTempApp(t)}
	a.Preferences().SetFloat(prefWidth, 8192)
	a.Preferences().SetFloat(prefHeight, 8192)
	w := New(a, Options{Renderer: "cpu", Restore: true, do: testUI.do, bookmarksWatch: -1,
		Screen: func() (int, int, bool) { return 1600, 1000, true }})
	defer func() {
		w.FyneWindow().Close()
		w.stop()
		testUI.reset()
	}()
	w.FyneWindow().Show()
	if got := w.win.Canvas().Size(); got != fyne.NewSize(1600, 1000) {
		t.Errorf("saved 8192x8192 came back as %v on a 1600x1000 screen, want 1600x1000", got)
	}
}
