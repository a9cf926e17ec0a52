package app

import (
	"image"
	"math"

	"mandelscope/app/preview"
	"mandelscope/fractal"
)

// composeWithLastFull improves a reduced or partial frame with the last full-resolution frame
// when the view has only been panned since (same zoom, iterations and colouring): the part
// of the old frame still in view is copied in, shifted by the pan, so a drag shows sharp
// pixels everywhere but the newly exposed strips. Rows a partial frame has already rendered
// at full resolution are kept. It returns res.Image itself when there is nothing to add.
func composeWithLastFull(res preview.Result, full *image.RGBA, fullLoc fractal.Location) *image.RGBA {
	img := res.Image
	if full == nil || img == nil || (!res.Partial && res.Stats.Scale <= 1) {
		return img
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if full.Rect.Dx() != w || full.Rect.Dy() != h {
		return img
	}
	l := res.Req.Loc
	if !l.Zoom.Equal(fullLoc.Zoom) || l.Iterations != fullLoc.Iterations || l.Color != fullLoc.Color {
		return img
	}
	s := fractal.Spacing(l.ZoomFloat(), w, h)
	fx := (l.Re.Float64() - fullLoc.Re.Float64()) / s
	fy := -(l.Im.Float64() - fullLoc.Im.Float64()) / s
	if math.IsNaN(fx) || math.IsNaN(fy) || math.Abs(fx) >= float64(w) || math.Abs(fy) >= float64(h) {
		return img
	}
	// out(x, y) = full(x+dx, y+dy)
	dx, dy := int(math.Round(fx)), int(math.Round(fy))
	y0 := 0
	if res.Partial {
		y0 = int(math.Round(res.Done * float64(h))) // rows above are rendered already
	}
	out := image.NewRGBA(img.Rect)
	copy(out.Pix, img.Pix)
	x0, x1 := max(0, -dx), min(w, w-dx)
	for y := max(y0, -dy); y < min(h, h-dy); y++ {
		srow := full.Pix[(y+dy)*full.Stride:]
		drow := out.Pix[y*out.Stride:]
		copy(drow[x0*4:x1*4], srow[(x0+dx)*4:(x1+dx)*4])
	}
	return out
}
