// Package imagetest holds the image helpers that Mandelscope's tests share: decoding a PNG
// into an *image.RGBA, and measuring how closely two pictures agree (the rendering contract's
// "pixels within 6/255 on every channel").
package imagetest

import (
	"image"
	"image/draw"
	"image/png"
	"os"
	"testing"
)

// Decode reads the PNG at path with the standard library's decoder into an *image.RGBA whose
// bounds start at (0, 0); it fails the test if the file does not decode.
func Decode(t testing.TB, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("image/png cannot decode %s: %v", path, err)
	}
	out := image.NewRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(out, out.Bounds(), img, img.Bounds().Min, draw.Src)
	return out
}

// Agreement returns the fraction of pixels of a and b whose four channels all lie within tol
// of each other, and the first pixel (row by row, relative to each image's bounds) that does
// not, or (-1, -1). Images of different sizes agree nowhere.
func Agreement(a, b *image.RGBA, tol int) (float64, image.Point) {
	bad := image.Pt(-1, -1)
	if a.Bounds().Size() != b.Bounds().Size() {
		return 0, image.Point{}
	}
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	if w == 0 || h == 0 {
		return 0, bad
	}
	ok := 0
	for y := range h {
		ra := a.Pix[a.PixOffset(a.Bounds().Min.X, a.Bounds().Min.Y+y):]
		rb := b.Pix[b.PixOffset(b.Bounds().Min.X, b.Bounds().Min.Y+y):]
		for x := range w {
			good := true
			for c := range 4 {
				if d := int(ra[4*x+c]) - int(rb[4*x+c]); d > tol || d < -tol {
					good = false
				}
			}
			if good {
				ok++
			} else if bad.X < 0 {
				bad = image.Pt(x, y)
			}
		}
	}
	return float64(ok) / float64(w*h), bad
}
