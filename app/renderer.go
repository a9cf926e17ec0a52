// The renderer the window draws with, and the swap from the CPU renderer to the GPU one.

package app

import (
	"context"
	"image"
	"sync"

	"mandelscope/app/preview"
	"mandelscope/fractal"
)

// Renderer is what the window needs from a renderer: the rendering contract plus a name for
// the status bar.
type Renderer interface {
	preview.Renderer
	Name() string
}

// moder is implemented by renderers that say which arithmetic a frame uses (the GL renderer).
type moder interface {
	Mode(f fractal.Frame) string
}

// swapRenderer is the renderer the scheduler uses; the GPU renderer replaces the CPU one
// when it becomes available.
type swapRenderer struct {
	mu sync.Mutex
	r  Renderer
}

func (s *swapRenderer) get() Renderer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.r
}

func (s *swapRenderer) set(r Renderer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.r = r
}

func (s *swapRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	return s.get().Render(ctx, f, rect, dst)
}

func (s *swapRenderer) Name() string { return s.get().Name() }
