package app

import (
	"image"
	"image/color"
	"testing"

	"mandelscope/app/preview"
	"mandelscope/fractal"
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
	zoomed.Zoom = fractal.MustDecimal("2")
	iters := loc
	iters.Iterations++
	pal := loc
	pal.Color.Offset = 0.5
	for _, l := range []fractal.Location{zoomed, iters, pal} {
		r := preview.Result{Req: preview.Request{Loc: l, W: w, H: h, Interactive: true}, Image: red, Stats: preview.FrameStats{Scale: 2}}
		if composeWithLastFull(r, full, loc) != red {
			t.Errorf("composed over a changed view %v", l)
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
