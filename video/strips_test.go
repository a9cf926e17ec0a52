package video

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// stripKeyframes computes keyframes 0 and 1 (zoom 1000 and 2000, seahorse valley, with the
// derivative) of w x h frames at scale s, writes them as keyframe files in dir and returns
// them in memory.
func stripKeyframes(t *testing.T, dir string, w, h, s int) [2]*Keyframe {
	t.Helper()
	var ks [2]*Keyframe
	for j, z := range []string{"1000", "2000"} {
		l := testLoc(z, 2000)
		f := fractal.NewFrame(l, s*w, s*h)
		f.Derivative = true
		d := colour.NewData(image.Rect(0, 0, s*w, s*h))
		if err := (&cpu.Renderer{}).Compute(context.Background(), f, d.Rect, d); err != nil {
			t.Fatal(err)
		}
		if err := writeKeyframe(filepath.Join(dir, keyName(j)), keyID{index: j}, d); err != nil {
			t.Fatal(err)
		}
		ks[j] = &Keyframe{Level: float64(j), Data: d}
	}
	return ks
}

// TestComposeStrips checks that a frame composed in strips, each from the bands of rows the
// Composer names read from the unpacked keyframe files, is byte for byte the frame composed
// whole from the keyframes in memory: at every level between the two keyframes, for strips
// of one row up to the whole frame, with colourings that read the distance estimate.
func TestComposeStrips(t *testing.T) {
	const w, h, s = 48, 27, 2
	dir := t.TempDir()
	ks := stripKeyframes(t, dir, w, h, s)
	var us [2]*unpacked
	for j := range us {
		u, err := unpack(dir, keyID{index: j}, float64(j), s*w, s*h, false)
		if err != nil {
			t.Fatal(err)
		}
		defer u.close()
		us[j] = u
	}
	for _, method := range []string{"", "distance"} {
		loc := testLoc("2000", 2000)
		loc.Color.Method = method
		for _, q := range []int{1, 2, 3} {
			col, err := colour.NewColourer(loc.Color.Sampled(q))
			if err != nil {
				t.Fatal(err)
			}
			comp := NewComposer(w, h, q, s, col)
			for _, lv := range []float64{0, 0.1, 0.5, 0.77, 0.999} {
				inner, uinner := ks[1], us[1]
				if lv == 0 {
					inner, uinner = nil, nil
				}
				want := image.NewRGBA(image.Rect(0, 0, w, h))
				comp.Compose(want, lv, ks[0], inner)
				for _, rows := range []int{1, 4, 7, h} {
					got := image.NewRGBA(image.Rect(0, 0, w, h))
					strip := image.NewRGBA(image.Rect(0, 0, w, rows))
					var ob, ib *colour.Data
					y := 0
					err := composeFrame(comp, lv, us[0], uinner, s*w, s*h, rows, strip, &ob, &ib, func(st *image.RGBA) error {
						copy(got.Pix[y*got.Stride:], st.Pix[:st.Rect.Dy()*st.Stride])
						y += st.Rect.Dy()
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
					if y != h {
						t.Fatalf("%d rows handed out, want %d", y, h)
					}
					if !bytes.Equal(got.Pix, want.Pix) {
						t.Errorf("colouring %q, %dx%d subsamples, level %g, strips of %d rows: differs from the frame composed whole", method, q, q, lv, rows)
					}
				}
			}
		}
	}
}

// TestUnpack checks the scratch file round trip and that a damaged keyframe is not unpacked.
func TestUnpack(t *testing.T) {
	dir := t.TempDir()
	ks := stripKeyframes(t, dir, 20, 12, 2)
	u, err := unpack(dir, keyID{index: 1}, 1, 40, 24, false)
	if err != nil {
		t.Fatal(err)
	}
	k, _, err := u.band(5, 17, nil)
	if err != nil {
		t.Fatal(err)
	}
	for y := 5; y < 17; y++ {
		a, b := ks[1].Data.Row(y), k.Data.Row(y)
		if !bytes.Equal(sampleBytes(a), sampleBytes(b)) {
			t.Fatalf("row %d of the band differs from the keyframe's", y)
		}
	}
	u.close()
	if _, err := os.Stat(filepath.Join(dir, rawName(1))); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("scratch file left after close: %v", err)
	}
	path := filepath.Join(dir, keyName(0))
	b, _ := os.ReadFile(path)
	b[len(b)-9] ^= 0x10
	os.WriteFile(path, b, 0o644)
	if _, err := unpack(dir, keyID{}, 0, 40, 24, false); !errors.Is(err, errDamaged) {
		t.Errorf("damaged keyframe unpacked: %v", err)
	}
	if err := checkKeyframe(path, keyID{}, 40, 24); !errors.Is(err, errDamaged) {
		t.Errorf("damaged keyframe checked sound: %v", err)
	}
	// A keyframe of the first format (whole planes) is not read as this one.
	b[6] = 1
	os.WriteFile(path, b, 0o644)
	if err := checkKeyframe(path, keyID{}, 40, 24); !errors.Is(err, errDamaged) {
		t.Errorf("first-format keyframe: %v, want a damaged keyframe", err)
	}
}

// TestStripRows checks that a frame's strip keeps to its budget at every size, and has rows.
func TestStripRows(t *testing.T) {
	for _, c := range []struct{ w, h, s int }{{64, 36, 2}, {1920, 1080, 2}, {3840, 2160, 2}, {7680, 4320, 4}, {8192, 8192, 4}} {
		r := frameStripRows(c.w, c.h, c.s)
		bands := (c.s*r + 2 + 2*c.s*r + 2) * c.s * c.w * 16
		frame := r * c.w * 16
		if r < 1 || r > c.h {
			t.Errorf("%dx%d at %dx: %d rows", c.w, c.h, c.s, r)
		}
		if r > 1 && bands+frame > frameBudget+4*c.s*c.w*16 {
			t.Errorf("%dx%d at %dx: strips of %d rows take %d bytes, over the budget %d", c.w, c.h, c.s, r, bands+frame, frameBudget)
		}
	}
}

// TestUnpackEqualises: for the histogram colouring a keyframe is equalised over its own
// samples as it is unpacked, its bands carry that equalisation, and the composer colours
// their samples with it.
func TestUnpackEqualises(t *testing.T) {
	dir := t.TempDir()
	ks := stripKeyframes(t, dir, 20, 12, 2)
	u, err := unpack(dir, keyID{index: 1}, 1, 40, 24, true)
	if err != nil {
		t.Fatal(err)
	}
	defer u.close()
	c := colour.Coloring{Palette: "classic", Density: 1, Method: colour.MethodHistogram}
	want := c.Equalise(ks[1].Data)
	if want.Equal == nil || !u.eq.Same(want.Equal) {
		t.Fatal("the unpacked keyframe's equalisation is not its samples'")
	}
	k, _, err := u.band(3, 9, nil)
	if err != nil {
		t.Fatal(err)
	}
	col, err := colour.NewColourer(c)
	if err != nil {
		t.Fatal(err)
	}
	comp := NewComposer(20, 12, 1, 2, col)
	kc := comp.colourerOf(k)
	wk, _ := colour.NewColourer(want)
	changed := false
	for _, s := range k.Data.Pix {
		if kc.Colour(s) != wk.Colour(s) {
			t.Fatal("the composer does not colour the keyframe with its equalisation")
		}
		changed = changed || col.Colour(s) != wk.Colour(s)
	}
	if !changed {
		t.Error("the equalisation changes no colour: the test cannot tell")
	}
}

// colourerPainter stands in for the OpenGL renderer's colour shaders: it paints each sample
// with a colourer, and records what it was told of the keyframes.
type colourerPainter struct {
	col  *colour.Colourer
	pics []colour.ShaderPicture
}

func (p *colourerPainter) CompileColourShader(string, string) error { return nil }

func (p *colourerPainter) PaintColourShader(_ context.Context, pic colour.ShaderPicture, _, _ string, src *colour.Data, origin image.Point, dst *image.RGBA) error {
	p.pics = append(p.pics, pic)
	if !origin.Eq(src.Rect.Min) {
		return fmt.Errorf("origin %v for samples at %v", origin, src.Rect.Min)
	}
	for y := src.Rect.Min.Y; y < src.Rect.Max.Y; y++ {
		for x := src.Rect.Min.X; x < src.Rect.Max.X; x++ {
			dst.SetRGBA(x-src.Rect.Min.X, y-src.Rect.Min.Y, p.col.Colour(src.At(x, y)))
		}
	}
	return nil
}

// TestComposeWithShader: a colouring shader colours the keyframes' samples in place of the
// colourer: a painter that paints as the colourer does composes the colourer's frames, in
// strips, told each keyframe's size and zoom.
func TestComposeWithShader(t *testing.T) {
	const w, h, s = 48, 27, 2
	dir := t.TempDir()
	ks := stripKeyframes(t, dir, w, h, s)
	loc := testLoc("2000", 2000)
	col, err := colour.NewColourer(loc.Color)
	if err != nil {
		t.Fatal(err)
	}
	p := &colourerPainter{col: col}
	sh := loc.Color
	sh.Shader = "vec3 colour() { return KF_Colour(); }"
	comp := NewComposer(w, h, 1, s, nil)
	comp.SetShader(p, sh, colour.ShaderPicture{Iterations: 2000, ZoomLog2: 10})
	plain := NewComposer(w, h, 1, s, col)
	for _, lv := range []float64{0, 0.5} {
		want := image.NewRGBA(image.Rect(0, 0, w, h))
		plain.Compose(want, lv, ks[0], ks[1])
		got := image.NewRGBA(image.Rect(0, 0, w, h))
		comp.Compose(got, lv, ks[0], ks[1])
		if comp.Err() != nil {
			t.Fatal(comp.Err())
		}
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("level %g: the shader's frame differs from the colourer's", lv)
		}
	}
	if len(p.pics) == 0 || p.pics[0].Width != s*w || p.pics[0].Height != s*h || p.pics[0].Coloring.Shader != sh.Shader || p.pics[0].ZoomLog2 != 10 {
		t.Errorf("the painter was told %+v", p.pics)
	}
}

// belowPainter paints each sample as its neighbour below (clamped to the samples it is
// given, as the GL clamps to the data it has) would be coloured.
type belowPainter struct{ colourerPainter }

func (p *belowPainter) PaintColourShader(_ context.Context, _ colour.ShaderPicture, _, _ string, src *colour.Data, _ image.Point, dst *image.RGBA) error {
	for y := src.Rect.Min.Y; y < src.Rect.Max.Y; y++ {
		for x := src.Rect.Min.X; x < src.Rect.Max.X; x++ {
			dst.SetRGBA(x-src.Rect.Min.X, y-src.Rect.Min.Y, p.col.Colour(src.At(x, min(y+1, src.Rect.Max.Y-1))))
		}
	}
	return nil
}

// TestComposeShaderStrips: a colouring shader that reads a neighbour composes a frame in
// strips (bands of the keyframes read with their neighbours' rows) as it composes it whole.
func TestComposeShaderStrips(t *testing.T) {
	const w, h, s = 48, 27, 2
	dir := t.TempDir()
	ks := stripKeyframes(t, dir, w, h, s)
	var us [2]*unpacked
	for j := range us {
		u, err := unpack(dir, keyID{index: j}, float64(j), s*w, s*h, false)
		if err != nil {
			t.Fatal(err)
		}
		defer u.close()
		us[j] = u
	}
	loc := testLoc("2000", 2000)
	col, err := colour.NewColourer(loc.Color)
	if err != nil {
		t.Fatal(err)
	}
	sh := loc.Color
	sh.Shader = "vec3 colour() { return KF_Colour(ivec2(0, 1)); }"
	comp := NewComposer(w, h, 1, s, nil)
	comp.SetShader(&belowPainter{colourerPainter{col: col}}, sh, colour.ShaderPicture{})
	const lv = 0.4
	want := image.NewRGBA(image.Rect(0, 0, w, h))
	comp.Compose(want, lv, ks[0], ks[1])
	for _, rows := range []int{1, 5, h} {
		got := image.NewRGBA(image.Rect(0, 0, w, h))
		strip := image.NewRGBA(image.Rect(0, 0, w, rows))
		var ob, ib *colour.Data
		y := 0
		err := composeFrame(comp, lv, us[0], us[1], s*w, s*h, rows, strip, &ob, &ib, func(st *image.RGBA) error {
			copy(got.Pix[y*got.Stride:], st.Pix[:st.Rect.Dy()*st.Stride])
			y += st.Rect.Dy()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("strips of %d rows: differs from the frame composed whole", rows)
		}
	}
}
