package app

import (
	"image"
	"math"
	"math/big"

	"mandelscope/fractal"
	"mandelscope/preview"
)

// composeWithLastFull improves a reduced or partial frame with the last full-resolution frame
// (same size and colouring):
//
//   - after a pan (same zoom and iterations) the part of the old frame still in view is
//     copied in, shifted, so a drag shows sharp pixels everywhere but the newly exposed
//     strips; rows a partial frame has already rendered at full resolution are kept;
//   - after a zoom, a reduced frame takes the old frame resampled (nearest neighbour) where it
//     covers the view, as long as it is magnified no more than the reduced frame is (so the
//     picture never gets coarser than the fresh render); zooming out, the old frame fills
//     the middle and the reduced render the new border.
//
// The old pixels may have been computed with other iterations (auto iterations follow the
// zoom); the full-resolution frame that follows replaces them. It returns res.Image itself
// when there is nothing to add (a frame that reused the last one, preview.FrameStats.Reused,
// has done this already, with finer pixels where it could), and never modifies res.Image or full.
func composeWithLastFull(res preview.Result, full *image.RGBA, fullLoc fractal.Location) *image.RGBA {
	img := res.Image
	if full == nil || img == nil || res.Stats.Reused || (!res.Partial && res.Stats.Scale <= 1) {
		return img
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if full.Rect.Dx() != w || full.Rect.Dy() != h {
		return img
	}
	l := res.Req.Loc
	if l.Color != fullLoc.Color || l.Rotation != fullLoc.Rotation {
		return img
	}
	samePan := l.Zoom.Equal(fullLoc.Zoom) && l.Iterations == fullLoc.Iterations
	sNew := fractal.Spacing(l.ZoomFloat(), w, h)
	sOld := fractal.Spacing(fullLoc.ZoomFloat(), w, h)
	k := sNew / sOld // old pixels per new pixel: < 1 zoomed in
	if !samePan && (res.Partial || 1/k > float64(res.Stats.Scale)) {
		return img
	}
	// The new view's centre in old pixels, relative to the old centre.
	ox, oy := centreShift(l, fullLoc, sOld)
	if math.IsNaN(ox+oy+k) || math.IsInf(ox+oy+k, 0) ||
		math.Abs(ox) >= float64(w)*(1+k) || math.Abs(oy) >= float64(h)*(1+k) {
		return img
	}
	out := image.NewRGBA(img.Rect)
	copy(out.Pix, img.Pix)
	if samePan {
		// out(x, y) = full(x+dx, y+dy)
		dx, dy := int(math.Round(ox)), int(math.Round(oy))
		y0 := 0
		if res.Partial {
			y0 = int(math.Round(res.Done * float64(h))) // rows above are rendered already
		}
		x0, x1 := max(0, -dx), min(w, w-dx)
		if x0 >= x1 {
			return img
		}
		for y := max(y0, -dy); y < min(h, h-dy); y++ {
			srow := full.Pix[(y+dy)*full.Stride:]
			drow := out.Pix[y*out.Stride:]
			copy(drow[x0*4:x1*4], srow[(x0+dx)*4:(x1+dx)*4])
		}
		return out
	}
	// out(x, y) = full(floor(ox + (x+0.5-w/2)*k + w/2), likewise y)
	cols := make([]int, w)
	for x := range cols {
		cols[x] = int(math.Floor(ox + (float64(x)+0.5-float64(w)/2)*k + float64(w)/2))
	}
	for y := range h {
		yo := int(math.Floor(oy + (float64(y)+0.5-float64(h)/2)*k + float64(h)/2))
		if yo < 0 || yo >= h {
			continue
		}
		srow := full.Pix[yo*full.Stride:]
		drow := out.Pix[y*out.Stride:]
		for x, xo := range cols {
			if xo >= 0 && xo < w {
				copy(drow[x*4:x*4+4], srow[xo*4:xo*4+4])
			}
		}
	}
	return out
}

// centreShift is l's centre minus from's, in pixels of spacing along from's screen axes (x
// right, y down; turned by from's rotation, fractal.Location.ScreenOffset). The
// difference is taken exactly (math/big) before it is rounded: at depth the centres differ
// only in digits far below float64's precision, so float64 values of them would not.
func centreShift(l, from fractal.Location, spacing float64) (dx, dy float64) {
	prec := max(l.Re.SignificantBits(), l.Im.SignificantBits(), from.Re.SignificantBits(), from.Im.SignificantBits()) + 64
	diff := func(a, b fractal.Decimal) float64 {
		d, _ := new(big.Float).SetPrec(prec).Sub(a.Big(prec), b.Big(prec)).Float64()
		return d
	}
	dx, up := from.ScreenOffset(diff(l.Re, from.Re)/spacing, diff(l.Im, from.Im)/spacing)
	return dx, -up
}
