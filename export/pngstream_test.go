package export

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// TestPNGStream writes an image through PNGStream in strips of several heights and decodes
// it with image/png: the same pixels; too few or too many rows are refused.
func TestPNGStream(t *testing.T) {
	const w, h = 37, 23
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i*7 + i/5)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	for _, rows := range []int{1, 4, 10, h} {
		var b bytes.Buffer
		s, err := NewPNGStream(&b, w, h)
		if err != nil {
			t.Fatal(err)
		}
		for y := 0; y < h; y += rows {
			strip := img.SubImage(image.Rect(0, y, w, min(y+rows, h))).(*image.RGBA)
			if err := s.WriteRows(strip); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("strips of %d rows: %v", rows, err)
		}
		for y := range h {
			for x := range w {
				r, g, bl, _ := got.At(x, y).RGBA()
				p := img.Pix[img.PixOffset(x, y):]
				if byte(r>>8) != p[0] || byte(g>>8) != p[1] || byte(bl>>8) != p[2] {
					t.Fatalf("strips of %d rows: pixel (%d, %d) differs", rows, x, y)
				}
			}
		}
	}
	var b bytes.Buffer
	s, _ := NewPNGStream(&b, w, h)
	if err := s.WriteRows(img.SubImage(image.Rect(0, 0, w, 5)).(*image.RGBA)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err == nil {
		t.Error("a PNG closed after 5 of 23 rows: no error")
	}
	if err := s.WriteRows(img); err == nil {
		t.Error("more rows than the height: no error")
	}
}
