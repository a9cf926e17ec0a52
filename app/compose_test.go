package app

import (
	"image"
	"image/color"
	"math"
	"testing"

	"mandelscope/fractal"
	"mandelscope/preview"
)

func patterned(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), uint8(x ^ y), 255})
		}
	}
	return img
}

// After a pan, a reduced frame shows the old full frame shifted by the pan, and its own
// pixels only in the newly exposed strips.
func TestComposeAfterPan(t *testing.T) {
	const w, h = 120, 70
	loc := fractal.Home()
	loc.Zoom = fractal.MustDecimal("3")
	full := patterned(w, h)
	// pan: the view moves 10 px right and 5 px up, so the old pixel (x+10, y-5) is now at (x, y)
	moved := loc.Offset(10, -5, w, h)
	blank := image.NewRGBA(image.Rect(0, 0, w, h))
	res := preview.Result{Req: preview.Request{Loc: moved, W: w, H: h, Interactive: true}, Image: blank, Stats: preview.FrameStats{Scale: 4}}
	out := composeWithLastFull(res, full, loc)
	if out == blank {
		t.Fatal("nothing composed")
	}
	for y := range h {
		for x := range w {
			got := out.RGBAAt(x, y)
			sx, sy := x+10, y-5
			want := color.RGBA{}
			if sx < w && sy >= 0 {
				want = full.RGBAAt(sx, sy)
			}
			if got != want {
				t.Fatalf("pixel %d,%d = %v, want %v", x, y, got, want)
			}
		}
	}
	if blank.RGBAAt(0, 10) != (color.RGBA{}) {
		t.Error("the reduced frame itself was modified")
	}
}

// Rows a partial frame has rendered stay; a changed zoom, iterations or colouring, or a
// full-resolution result, composes nothing.
func TestComposeRules(t *testing.T) {
	const w, h = 60, 40
	loc := fractal.Home()
	full := patterned(w, h)
	red := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(red.Pix); i += 4 {
		red.Pix[i], red.Pix[i+3] = 255, 255
	}
	part := preview.Result{Req: preview.Request{Loc: loc, W: w, H: h}, Image: red, Partial: true, Done: 0.5}
	out := composeWithLastFull(part, full, loc)
	for y := range h {
		got, want := out.RGBAAt(7, y), full.RGBAAt(7, y)
		if y < h/2 {
			want = color.RGBA{255, 0, 0, 255}
		}
		if got != want {
			t.Fatalf("partial frame row %d: %v, want %v", y, got, want)
		}
	}
	zoomed := loc
	zoomed.Zoom = fractal.MustDecimal("8") // magnified 8x: coarser than a 1/2 render
	iters := loc
	iters.Iterations++
	pal := loc
	pal.Color.Offset = 0.5
	for _, l := range []fractal.Location{zoomed, pal} {
		r := preview.Result{Req: preview.Request{Loc: l, W: w, H: h, Interactive: true}, Image: red, Stats: preview.FrameStats{Scale: 2}}
		if composeWithLastFull(r, full, loc) != red {
			t.Errorf("composed over a changed view %v", l)
		}
	}
	// a partial frame after a zoom or an iterations change: nothing
	for _, l := range []fractal.Location{zoomed, iters} {
		r := preview.Result{Req: preview.Request{Loc: l, W: w, H: h}, Image: red, Partial: true, Done: 0.25}
		if composeWithLastFull(r, full, loc) != red {
			t.Errorf("composed a partial frame over a changed view %v", l)
		}
	}
	fin := preview.Result{Req: preview.Request{Loc: loc, W: w, H: h}, Image: red, Stats: preview.FrameStats{Scale: 1}}
	if composeWithLastFull(fin, full, loc) != red {
		t.Error("composed over a full-resolution frame")
	}
	far := loc.Offset(float64(w), 0, w, h)
	r := preview.Result{Req: preview.Request{Loc: far, W: w, H: h, Interactive: true}, Image: red, Stats: preview.FrameStats{Scale: 2}}
	if composeWithLastFull(r, full, loc) != red {
		t.Error("composed after a pan of a whole view width")
	}
}

// After a zoom in by 2 about the centre, a 1/4 reduced frame shows the old frame magnified;
// after a zoom out, the old frame fills the middle and the reduced frame the border.
func TestComposeAfterZoom(t *testing.T) {
	const w, h = 80, 50
	loc := fractal.Home()
	full := patterned(w, h)
	blank := image.NewRGBA(image.Rect(0, 0, w, h))
	in := loc.ZoomAt(w/2, h/2, 2, w, h)
	in.Iterations = 300 // auto iterations changed with the zoom: still a fine preview
	r := preview.Result{Req: preview.Request{Loc: in, W: w, H: h, Interactive: true}, Image: blank, Stats: preview.FrameStats{Scale: 4}}
	out := composeWithLastFull(r, full, loc)
	for y := range h {
		for x := range w {
			ox := int(math.Floor((float64(x)+0.5-w/2)/2 + w/2))
			oy := int(math.Floor((float64(y)+0.5-h/2)/2 + h/2))
			if got, want := out.RGBAAt(x, y), full.RGBAAt(ox, oy); got != want {
				t.Fatalf("zoomed in: pixel %d,%d = %v, want old pixel %d,%d %v", x, y, got, ox, oy, want)
			}
		}
	}
	outZ := loc.ZoomAt(w/2, h/2, 0.5, w, h)
	r = preview.Result{Req: preview.Request{Loc: outZ, W: w, H: h, Interactive: true}, Image: blank, Stats: preview.FrameStats{Scale: 2}}
	out = composeWithLastFull(r, full, loc)
	// new pixel (40, 25) has its centre at old (41.0, 26.0): old pixel 41, 26
	if got, want := out.RGBAAt(w/2, h/2), full.RGBAAt(w/2+1, h/2+1); got != want {
		t.Errorf("zoomed out: centre %v, want the old centre %v", got, want)
	}
	if got := out.RGBAAt(1, 1); got != (color.RGBA{}) {
		t.Errorf("zoomed out: corner %v, want the reduced frame's own pixel", got)
	}
	// magnified 8x is coarser than a 1/4 render: no composition
	deep := loc.ZoomAt(w/2, h/2, 8, w, h)
	r = preview.Result{Req: preview.Request{Loc: deep, W: w, H: h, Interactive: true}, Image: blank, Stats: preview.FrameStats{Scale: 4}}
	if composeWithLastFull(r, full, loc) != blank {
		t.Error("composed an old frame magnified 8x over a 1/4 render")
	}
}
