package render

import (
	"context"
	"errors"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// shaderFrame computes the samples, with the derivative, of a small non-square view.
func shaderFrame(t *testing.T) (fractal.Frame, *colour.Data) {
	t.Helper()
	l := seahorseLoc(t)
	l.Color = colour.Coloring{Palette: "classic", Density: 0.7, Offset: 0.3}
	f := fractal.NewFrame(l, 150, 97)
	f.Derivative = true
	return f, computeCPU(t, f)
}

func shaderPicture(f fractal.Frame) ShaderPicture {
	return ShaderPicture{Width: f.W, Height: f.H, Iterations: f.Loc.Iterations, Coloring: f.Loc.Color}
}

// TestColourShaderRefusesBadSource: a shader that does not compile is refused with the
// compiler's message and the line of the file it names; one without colour() at link.
func TestColourShaderRefusesBadSource(t *testing.T) {
	g := testGL(t, Options{})
	err := g.CompileColourShader("bad.glsl", "vec3 colour()\n{\n  return vec3(nothing);\n}\n")
	var se *ShaderError
	if !errors.As(err, &se) || se.Line != 3 || !strings.Contains(se.Text, "nothing") || !strings.Contains(err.Error(), "bad.glsl") {
		t.Fatalf("got %v, want a ShaderError naming bad.glsl line 3", err)
	}
	if err := g.CompileColourShader("none.glsl", "vec3 other() { return vec3(1.0); }\n"); !errors.As(err, &se) {
		t.Fatalf("no colour(): %v", err)
	}
	if err := g.CompileColourShader("ok.glsl", "vec3 colour() { return vec3(getNF()); }\n"); err != nil {
		t.Fatal(err)
	}
}

// TestColourShaderAgainstCPU: a shader's colours are its formula computed in Go from the same
// samples (within 1/255 a channel, float32 arithmetic on the GPU), in tiles smaller than the
// picture (neighbours read across tile edges) and in two strips (origin says where each
// starts, getCoord and inImage see the whole picture).
func TestColourShaderAgainstCPU(t *testing.T) {
	g := testGL(t, Options{MaxTile: 64})
	f, d := shaderFrame(t)
	const src = `vec3 colour()
{
  if (getInterior()) return vec3(0.0, 0.0, 1.0);
  float n = to_float(getN());
  float right = inImage(ivec2(1, 0)) ? to_float(getN(ivec2(1, 0))) : n;
  vec2 de = getDE();
  return vec3(fract(n / 7.0), clamp(length(de) / 4.0, 0.0, 1.0), clamp(0.5 + (right - n), 0.0, 1.0) * getCoord().y / float(ImageSize.y));
}
`
	want := image.NewRGBA(d.Rect)
	for y := range f.H {
		for x := range f.W {
			s := d.At(x, y)
			var c [3]float64
			if s.Inside() {
				c = [3]float64{0, 0, 1}
			} else {
				n := s.Nu
				right := n
				if x+1 < f.W {
					right = d.At(x+1, y).Nu
					if math.IsInf(right, 1) {
						right = float64(f.Loc.Iterations) + 1 - 0 // KF's interior N with NF 0
					}
				}
				c = [3]float64{n/7 - math.Floor(n/7), math.Min(s.DE()/4, 1), math.Min(math.Max(0.5+right-n, 0), 1) * (float64(y) + 0.5) / float64(f.H)}
			}
			o := want.PixOffset(x, y)
			for i := range 3 {
				want.Pix[o+i] = uint8(math.Round(255 * c[i]))
			}
			want.Pix[o+3] = 255
		}
	}
	check := func(name string, got *image.RGBA) {
		t.Helper()
		bad := 0
		for i := range got.Pix {
			if dv := int(got.Pix[i]) - int(want.Pix[i]); dv > 1 || dv < -1 {
				bad++
			}
		}
		if bad > len(got.Pix)/500 {
			saveFailed(t, "colourshader_"+name+"_gpu.png", got)
			saveFailed(t, "colourshader_"+name+"_cpu.png", want)
			t.Errorf("%s: %d of %d channels beyond 1/255 of the formula in Go", name, bad, len(got.Pix))
		}
	}
	whole := image.NewRGBA(d.Rect)
	if err := g.PaintColourShader(context.Background(), shaderPicture(f), "test.glsl", src, d, image.Point{}, whole); err != nil {
		t.Fatal(err)
	}
	check("whole", whole)
	strips := image.NewRGBA(d.Rect)
	for _, r := range []image.Rectangle{image.Rect(0, 0, f.W, 40), image.Rect(0, 40, f.W, f.H)} {
		// Each strip's data starts at row 0, as an export's strip buffer does.
		sd := &colour.Data{Pix: d.SubData(r).Pix, Stride: d.Stride, Rect: image.Rect(0, 0, r.Dx(), r.Dy())}
		if err := g.PaintColourShader(context.Background(), shaderPicture(f), "test.glsl", src, sd, r.Min, strips.SubImage(r).(*image.RGBA)); err != nil {
			t.Fatal(err)
		}
	}
	check("strips", strips)
}

// TestKFDefaultShader: Kalles Fraktaler's default shader, docs/shaders/kf-default.glsl
// (KF_Colour: the palette at the smooth count), run unchanged, draws the smooth colouring's
// picture within 2/255; the other examples compile and draw.
func TestKFDefaultShader(t *testing.T) {
	g := testGL(t, Options{})
	f, d := shaderFrame(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "docs", "shaders", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	got := image.NewRGBA(d.Rect)
	if err := g.PaintColourShader(context.Background(), shaderPicture(f), "kf-default.glsl", read("kf-default.glsl"), d, image.Point{}, got); err != nil {
		t.Fatal(err)
	}
	k, err := colour.NewColourer(f.Loc.Color)
	if err != nil {
		t.Fatal(err)
	}
	want := image.NewRGBA(d.Rect)
	k.Paint(want, d)
	bad := 0
	for i := range got.Pix {
		if dv := int(got.Pix[i]) - int(want.Pix[i]); dv > 2 || dv < -2 {
			bad++
		}
	}
	if bad > len(got.Pix)/500 {
		saveFailed(t, "kfdefault_gpu.png", got)
		saveFailed(t, "kfdefault_cpu.png", want)
		t.Errorf("%d of %d channels beyond 2/255 of the smooth colouring", bad, len(got.Pix))
	}
	for _, name := range []string{"kf-log-de.glsl", "decomposition.glsl"} {
		img := image.NewRGBA(d.Rect)
		if err := g.PaintColourShader(context.Background(), shaderPicture(f), name, read(name), d, image.Point{}, img); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestRenderColourShaderBands: Render in a colouring shader that reads the neighbours above
// and below draws a frame in bands (as the window draws it) as it draws it whole: each band is
// computed with its neighbours' rows.
func TestRenderColourShaderBands(t *testing.T) {
	g := testGL(t, Options{})
	f, _ := shaderFrame(t)
	f.Loc.Color.Shader = "vec3 colour() {\n  return vec3(fract(to_float(getN(ivec2(0, -1))) / 5.0), fract(to_float(getN(ivec2(0, 2))) / 3.0), getInterior() ? 1.0 : 0.0);\n}\n"
	whole := renderGL(t, g, f)
	bands := image.NewRGBA(whole.Rect)
	for _, r := range []image.Rectangle{image.Rect(0, 0, f.W, 33), image.Rect(0, 33, f.W, 34), image.Rect(0, 34, f.W, f.H)} {
		if err := g.Render(context.Background(), f, r, bands.SubImage(r).(*image.RGBA)); err != nil {
			t.Fatal(err)
		}
	}
	if n := countDiffering(whole, bands); n != 0 {
		t.Errorf("%d bytes of the frame drawn in bands differ from the frame drawn whole", n)
	}
}

func countDiffering(a, b *image.RGBA) int {
	n := 0
	for i := range a.Pix {
		if a.Pix[i] != b.Pix[i] {
			n++
		}
	}
	return n
}
