package render

import "github.com/go-gl/glfw/v3.3/glfw"

// ScreenArea is the primary monitor's work area (the screen less the desktop's panels) in
// pixels, or its whole video mode where no work area is known; ok is false when GLFW cannot
// start (no display) or there is no monitor. It initialises GLFW if need be, so it must run on
// the main thread (the window calls it from app.New, on the goroutine that runs Fyne).
func ScreenArea() (width, height int, ok bool) {
	defer func() {
		if recover() != nil { // go-gl/glfw panics on some errors
			width, height, ok = 0, 0, false
		}
	}()
	if err := glfw.Init(); err != nil {
		return 0, 0, false
	}
	m := glfw.GetPrimaryMonitor()
	if m == nil {
		return 0, 0, false
	}
	if _, _, w, h := m.GetWorkarea(); w > 0 && h > 0 {
		return w, h, true
	}
	if vm := m.GetVideoMode(); vm != nil && vm.Width > 0 && vm.Height > 0 {
		return vm.Width, vm.Height, true
	}
	return 0, 0, false
}
