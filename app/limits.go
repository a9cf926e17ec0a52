// How large the window may be: the preview keeps several pictures of the view's size and a
// per-pixel block map (preview/), Fyne keeps a texture of the shown picture, and the GL
// driver a framebuffer of the window's, so the memory the window needs grows with its pixels.
// Measured here (llvmpipe under Xvfb, the whole set, the 4x4 accumulation at rest, then three
// wheel notches, a drag and the accumulation again; peak resident memory): 573 MB at
// 2048x2048, 1938 MB at 4096x4096, about 180 MB with no window to speak of: 107 bytes a
// window pixel beyond that. A saved window of 8192x8192 ran out of memory at every start.

package app

import (
	"fmt"
	"math"

	"fyne.io/fyne/v2"
)

const (
	// PreviewBudget is the memory the window's pixels may take (bytes).
	PreviewBudget = 1 << 30
	// PreviewBytesPerPixel is what one window pixel takes at the peak (measured: 107).
	PreviewBytesPerPixel = 110
	// MaxWindowPixels is the most pixels a window holds within PreviewBudget: 9.76 million,
	// a 4K screen (3840x2160, 8.3 million) and a little more.
	MaxWindowPixels = PreviewBudget / PreviewBytesPerPixel
	// MaxWindowSide is the longest side of a window in pixels: GL_MAX_VIEWPORT_DIMS and
	// GL_MAX_RENDERBUFFER_SIZE of Mesa's llvmpipe and of most GPUs' drivers (a window wider than
	// the viewport is drawn only in part), and half of X11's limit (32767).
	MaxWindowSide = 16384
)

// CheckWindowSize says whether a window of width x height pixels fits MaxWindowSide and
// MaxWindowPixels, with a one-line error that names the bound it exceeds.
func CheckWindowSize(width, height int) error {
	if width > MaxWindowSide || height > MaxWindowSide {
		return fmt.Errorf("%dx%d is too large for the window: at most %d pixels a side (the OpenGL viewport); larger pictures: mandelscope export", width, height, MaxWindowSide)
	}
	if px := int64(width) * int64(height); px > MaxWindowPixels {
		return fmt.Errorf("%dx%d is too large for the window: %.1f million pixels, at most %.1f million (%d MiB of preview memory at about %d bytes a pixel); larger pictures: mandelscope export",
			width, height, float64(px)/1e6, float64(MaxWindowPixels)/1e6, PreviewBudget>>20, PreviewBytesPerPixel)
	}
	return nil
}

// clampWindowSize is s (in screen units) made to fit: within screen (when it is not zero,
// also in units), then within MaxWindowSide and MaxWindowPixels at scale pixels a unit, keeping
// its aspect ratio for the pixel budget. A size that fits is returned as it is.
func clampWindowSize(s, screen fyne.Size, scale float32) fyne.Size {
	if scale <= 0 {
		scale = 1
	}
	if screen.Width > 0 && screen.Height > 0 {
		s = s.Min(screen)
	}
	side := float32(MaxWindowSide) / scale
	s = s.Min(fyne.NewSize(side, side))
	if px := float64(s.Width*scale) * float64(s.Height*scale); px > MaxWindowPixels {
		k := float32(math.Sqrt(MaxWindowPixels / px))
		s = fyne.NewSize(float32(int(s.Width*k)), float32(int(s.Height*k)))
	}
	return s
}
