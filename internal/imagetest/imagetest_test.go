package imagetest

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestAgreementAndDecode(t *testing.T) {
	a := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for i := range a.Pix {
		a.Pix[i] = 100
	}
	b := image.NewRGBA(image.Rect(10, 10, 14, 13)) // other origin, same size
	copy(b.Pix, a.Pix)
	b.SetRGBA(12, 11, color.RGBA{107, 100, 100, 100}) // 7 off on red at (2, 1)
	b.SetRGBA(13, 12, color.RGBA{100, 94, 100, 100})  // 6 off: within tolerance
	frac, bad := Agreement(a, b, 6)
	if frac != 11.0/12 || bad != image.Pt(2, 1) {
		t.Errorf("Agreement = %g at %v, want %g at (2,1)", frac, bad, 11.0/12)
	}
	if frac, _ := Agreement(a, image.NewRGBA(image.Rect(0, 0, 3, 4)), 255); frac != 0 {
		t.Errorf("different sizes agree on %g", frac)
	}
	path := filepath.Join(t.TempDir(), "b.png")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	opaque := image.NewRGBA(image.Rect(0, 0, 5, 2))
	for i := range opaque.Pix {
		opaque.Pix[i] = uint8(i * 7)
		if i%4 == 3 {
			opaque.Pix[i] = 255
		}
	}
	if err := png.Encode(f, opaque); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if frac, bad := Agreement(Decode(t, path), opaque, 0); frac != 1 {
		t.Errorf("decoded image differs at %v", bad)
	}
}
