package imagetest

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
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

// TestIsolated checks the seam criterion: one bad row in every 64 (which passes the 98%
// agreement test), a bad column, and a 10x10 block fail; scattered single pixels and short
// runs, as rounding noise gives, pass.
func TestIsolated(t *testing.T) {
	const w, h = 200, 128
	base := func() *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = uint8(i * 13)
		}
		return img
	}
	spoil := func(img *image.RGBA, x, y int) {
		c := img.RGBAAt(x, y)
		c.G += 100
		img.SetRGBA(x, y, c)
	}
	a := base()

	rows := base()
	for y := 5; y < h; y += 64 {
		for x := range w {
			spoil(rows, x, y)
		}
	}
	if frac, _ := Agreement(a, rows, 6); frac < 0.98 {
		t.Fatalf("bad rows agree on %.3f: the test meant them to pass the 98%% criterion", frac)
	}
	if err := Isolated(a, rows, 6); err == nil {
		t.Error("one bad row in 64 passes Isolated")
	} else {
		t.Log(err)
	}

	col := base()
	for y := range h {
		spoil(col, 77, y)
	}
	if err := Isolated(a, col, 6); err == nil || !strings.Contains(err.Error(), "column") {
		t.Errorf("a bad column: %v, want an error naming a column", err)
	}

	block := base()
	for y := 30; y < 40; y++ {
		for x := 50; x < 60; x++ {
			spoil(block, x, y)
		}
	}
	if err := Isolated(a, block, 6); err == nil {
		t.Error("a 10x10 bad block passes Isolated")
	}
	if s := Scattering(a, block, 6); s.Differing != 100 || s.LongestRun != 10 || s.RunAt != image.Pt(50, 30) {
		t.Errorf("block: %+v, want 100 differing, a run of 10 from (50,30)", s)
	}

	noise := base() // every tenth pixel of every fourth row, and a few runs as long as allowed
	for y := 0; y < h; y += 4 {
		for x := 0; x < w; x += 10 {
			spoil(noise, x, y)
		}
	}
	for _, y := range []int{2, 50, 90} {
		for x := 11; x < 11+MaxRun; x++ {
			spoil(noise, x, y)
		}
	}
	if err := Isolated(a, noise, 6); err != nil {
		t.Errorf("scattered noise: %v", err)
	}
	if err := Isolated(a, image.NewRGBA(image.Rect(0, 0, 3, 3)), 6); err == nil {
		t.Error("images of different sizes pass Isolated")
	}
}
