// The renderer the window draws with, and the swap from the CPU renderer to the GPU one.

package app

import (
	"context"
	"errors"
	"image"
	"sync"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/tile"
	"mandelscope/preview"
)

// Renderer is what the window needs from a renderer: the rendering contract plus a name for
// the status bar.
type Renderer interface {
	preview.Renderer
	Name() string
}

// computer is the compute stage of a renderer, internal/tile's contract: the CPU renderer
// has it, and the GL one once it computes into float targets.
type computer = tile.Computer

// moder is implemented by renderers that say which arithmetic a frame uses (the GL renderer).
type moder interface {
	Mode(f fractal.Frame) string
}

// swapRenderer is the renderer the scheduler uses; the GPU renderer replaces the CPU one
// when it becomes available, and the CPU one comes back if the GPU one fails a render (a
// program that does not link on this driver, a lost context): that render is drawn again on
// the CPU and onFail is told, once. After close it renders nothing. Its frames are the
// window's preview: it marks them Unchecked (fractal.Frame), so that a minibrot's edge at
// millions of iterations is drawn as the loops give it, at their speed (the shader's too),
// not after seconds of recheck a pixel; exports take the renderer itself (get), unmarked.
type swapRenderer struct {
	mu       sync.Mutex
	r        Renderer
	cpu      Renderer    // the fallback (nil: none)
	onFail   func(error) // called (on the rendering goroutine) when the GPU renderer fails
	closed   bool
	inFlight sync.WaitGroup
}

// errClosed is what a render after close returns.
var errClosed = errors.New("the window is closed")

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

// begin counts a render in flight and returns the renderer for it (errClosed after close).
func (s *swapRenderer) begin() (Renderer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	s.inFlight.Add(1)
	return s.r, nil
}

// close lets no render start and waits for those in flight.
func (s *swapRenderer) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.inFlight.Wait()
}

func (s *swapRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	r, err := s.begin()
	if err != nil {
		return err
	}
	defer s.inFlight.Done()
	f.Unchecked = true
	err = r.Render(ctx, f, rect, dst)
	if err == nil || s.cpu == nil || r == s.cpu || ctx.Err() != nil {
		return err
	}
	s.mu.Lock()
	failed := s.r == r
	if failed {
		s.r = s.cpu
	}
	s.mu.Unlock()
	if failed && s.onFail != nil {
		s.onFail(err)
	}
	return s.cpu.Render(ctx, f, rect, dst)
}

// Compute is the compute stage of the renderer in use, routed as Render is (a failed GPU
// compute is done again on the CPU, which draws from then on); a renderer that is no
// computer gives preview.ErrNoData, and the scheduler renders pixels as before.
func (s *swapRenderer) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	r, err := s.begin()
	if err != nil {
		return err
	}
	defer s.inFlight.Done()
	f.Unchecked = true
	c, ok := r.(computer)
	if !ok {
		return preview.ErrNoData
	}
	err = c.Compute(ctx, f, rect, dst)
	if err == nil || s.cpu == nil || r == s.cpu || ctx.Err() != nil {
		return err
	}
	cc, ok := s.cpu.(computer)
	if !ok {
		return err
	}
	s.mu.Lock()
	failed := s.r == r
	if failed {
		s.r = s.cpu
	}
	s.mu.Unlock()
	if failed && s.onFail != nil {
		s.onFail(err)
	}
	return cc.Compute(ctx, f, rect, dst)
}

func (s *swapRenderer) Name() string { return s.get().Name() }

// ComputesExactly is the renderer in use's (preview.ExactComputer; false for one that does
// not say), so that the window's full frames reuse the CPU renderer's data after a pan.
func (s *swapRenderer) ComputesExactly(f fractal.Frame) bool {
	e, ok := s.get().(preview.ExactComputer)
	return ok && e.ComputesExactly(f)
}
