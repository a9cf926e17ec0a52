// Help > About: the program's name and version (internal/version, what `mandelscope version`
// prints and every export records), and where it runs: the renderer drawing the window now,
// the Go runtime and the system.

package app

import (
	"fmt"
	"runtime"

	"fyne.io/fyne/v2"

	"mandelscope/internal/version"
)

// installAbout adds Help > About to the window's menu.
func installAbout(w *Window) {
	w.AddMenuItem("Help", fyne.NewMenuItem("About Mandelscope", w.showAbout))
}

// aboutText is what the About dialog says.
func (w *Window) aboutText() string {
	rend := w.gpuNote
	if rend == "" {
		rend = w.rend.Name()
	}
	return fmt.Sprintf("Mandelscope %s\n\nA Mandelbrot and Julia set explorer: a preview on the GPU or the CPU, deep zoom by perturbation, exports up to 65536 pixels a side, bookmarks and zoom videos.\n\nRenderer: %s\nBuilt with %s for %s/%s.\n\nmandelscope version prints the version; mandelscope help lists the commands.",
		version.Version, rend, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// showAbout shows the About dialog.
func (w *Window) showAbout() {
	w.showInfo("About Mandelscope", w.aboutText())
}
