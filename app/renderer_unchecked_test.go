package app

import (
	"context"
	"image"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// framesSeen is the CPU renderer recording whether the frames it is handed are Unchecked.
type framesSeen struct {
	cpu.Renderer
	unchecked []bool
}

func (c *framesSeen) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	c.unchecked = append(c.unchecked, f.Unchecked)
	return c.Renderer.Render(ctx, f, rect, dst)
}

func (c *framesSeen) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	c.unchecked = append(c.unchecked, f.Unchecked)
	return c.Renderer.Compute(ctx, f, rect, dst)
}

// TestPreviewFramesUnchecked: the window's preview renderer (swapRenderer) hands its renderer
// frames marked Unchecked, so that a minibrot's edge at millions of iterations is drawn at the
// loops' speed, without the recheck of its long counts (fractal.Frame.Recheck) that exports
// do; the renderer itself, which exports take (get), sees the frames as they are given.
func TestPreviewFramesUnchecked(t *testing.T) {
	seen := &framesSeen{}
	s := &swapRenderer{r: seen}
	f := fractal.NewFrame(fractal.Home(), 8, 6)
	rect := image.Rect(0, 0, 8, 6)
	if err := s.Render(context.Background(), f, rect, image.NewRGBA(rect)); err != nil {
		t.Fatal(err)
	}
	if err := s.Compute(context.Background(), f, rect, colour.NewData(rect)); err != nil {
		t.Fatal(err)
	}
	if err := s.get().Render(context.Background(), f, rect, image.NewRGBA(rect)); err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, true, false}; len(seen.unchecked) != 3 || seen.unchecked[0] != want[0] || seen.unchecked[1] != want[1] || seen.unchecked[2] != want[2] {
		t.Errorf("Unchecked for preview Render, preview Compute, the renderer itself: %v, want %v", seen.unchecked, want)
	}
}
