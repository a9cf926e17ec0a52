package video

import (
	"context"
	"image"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// TestEXRExpMap writes a zoom from 1 to 4 as exponential maps (three files, 72x8) and checks
// every sample against the point Fraktaler-3's layout puts it at, worked out here: file row y,
// column x of the file of zoom z is the centre plus R 2^((y+0.5)/8 - 1) 4/(8z) at the angle
// 2 pi (x+0.5)/72, R = hypot(72, 8)/2: the top row the innermost ring, each file going on
// from the deeper one. A flat sequence in the folder is another layout: --resume refuses it.
func TestEXRExpMap(t *testing.T) {
	const w, h = 72, 8
	opt := exrOpt(filepath.Join(t.TempDir(), "keys"))
	opt.Location = testLoc("4", 300)
	opt.Width, opt.Height, opt.ExpMap = w, h, true
	sum, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Files != 3 {
		t.Fatalf("%d files, want 3", sum.Files)
	}
	R := 0.5 * math.Hypot(w, h)
	escaped := 0
	for i, name := range sum.Names {
		hd, cols := readEXR(t, filepath.Join(opt.Dir, name))
		if hd.Strings[EXRKeyLayout] != "exponential map" {
			t.Fatalf("%s: layout %q", name, hd.Strings[EXRKeyLayout])
		}
		nCol := column(t, hd, cols, "N").([]uint32)
		nfCol := column(t, hd, cols, "NF").([]float32)
		zoom := math.Exp2(float64(2 - i))
		for y := range h {
			for x := range w {
				r := R * math.Exp2((float64(y)+0.5)/h-1) * 4 / (zoom * h)
				a := 2 * math.Pi * (float64(x) + 0.5) / w
				l := opt.Location
				l.Re = shifted(l.Re, r*math.Cos(a))
				l.Im = shifted(l.Im, r*math.Sin(a))
				one := fractal.NewFrame(l, 1, 1)
				d := colour.NewData(image.Rect(0, 0, 1, 1))
				if err := (&cpu.Renderer{}).Compute(context.Background(), one, d.Rect, d); err != nil {
					t.Fatal(err)
				}
				want := d.Pix[0].Nu
				k := y*w + x
				if math.IsInf(want, 0) {
					if nCol[k] != 0xFFFFFFFF {
						t.Fatalf("%s (%d, %d): N %d, want the interior's", name, x, y, nCol[k])
					}
					continue
				}
				escaped++
				got := float64(nCol[k]) - EXRBias + float64(nfCol[k])
				if math.Abs(got-want) > 1e-3*math.Max(1, math.Abs(want)) {
					t.Fatalf("%s (%d, %d): smooth count %v, the point's own %v", name, x, y, got, want)
				}
			}
		}
	}
	if escaped == 0 {
		t.Fatal("no sample escaped: the test compares nothing")
	}
	// A flat sequence of the same view is another layout.
	flat := opt
	flat.ExpMap, flat.Dir = false, filepath.Join(t.TempDir(), "flat")
	if _, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, flat); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(flat.Dir)
	if len(ents) != 3 {
		t.Fatalf("%d flat files", len(ents))
	}
	opt.Dir, opt.Resume = flat.Dir, true
	if _, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt); err == nil || !strings.Contains(err.Error(), `its layout is "flat", not "exponential map"`) {
		t.Fatalf("a flat sequence resumed as an exponential map: %v", err)
	}
	tall := opt
	tall.Width, tall.Height = 8, 9
	if err := CheckEXR(tall); err == nil || !strings.Contains(err.Error(), "at least as wide") {
		t.Fatalf("a tall exponential map: %v", err)
	}
}

// shifted is d + v, exactly, as a decimal.
func shifted(d fractal.Decimal, v float64) fractal.Decimal {
	s := d.Big(300)
	s.Add(s, new(big.Float).SetPrec(300).SetFloat64(v))
	return fractal.MustDecimal(s.Text('e', 80))
}
