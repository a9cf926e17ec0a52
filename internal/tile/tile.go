// Package tile declares the rendering contract once: the method every renderer provides (the
// GL one in render, the CPU one in render/cpu) and every user of a renderer (export, the
// preview scheduler, and through it the window and the bench) builds its own interface on.
// It depends on the model (fractal) only: no Fyne, no OpenGL.
package tile

import (
	"context"
	"image"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// Renderer draws the pixels rect of frame f, in f's global pixel coordinates, into dst, whose
// top-left pixel receives rect.Min (dst holds at least rect's size). Cancelling ctx stops it
// early with ctx's error, dst then partly drawn.
type Renderer interface {
	Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error
}

// Computer is the compute stage alone: the samples (colour.Sample: smooth escape count and
// derivative) of the pixels rect of frame f, in f's global pixel coordinates, into dst, whose
// top-left sample receives rect.Min (dst holds at least rect's size), with the derivative
// where f.NeedsDerivative. A colour pass (colour.Colourer) over them gives what Render draws.
// Cancelling ctx stops it early with ctx's error, dst then partly computed.
type Computer interface {
	Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error
}
