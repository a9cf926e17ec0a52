package export

import (
	"context"
	"errors"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/render/cpu"
)

// goPainter stands in for the OpenGL renderer's colour shaders: it "compiles" any text but
// one containing "oops", and paints each sample with a formula of the picture's pixel (the
// origin says where src starts) and the count of its neighbour below (the last row of src
// reads its own, as the GL clamps to the data it has), which the test computes again.
type goPainter struct {
	compiled int
}

func (p *goPainter) CompileColourShader(name, text string) error {
	p.compiled++
	if strings.Contains(text, "oops") {
		return errors.New("colour shader: 0:2(14): error: `oops' undeclared [line 2: return vec3(oops);]")
	}
	return nil
}

func (p *goPainter) PaintColourShader(_ context.Context, pic colour.ShaderPicture, _, _ string, src *colour.Data, origin image.Point, dst *image.RGBA) error {
	for y := src.Rect.Min.Y; y < src.Rect.Max.Y; y++ {
		for x := src.Rect.Min.X; x < src.Rect.Max.X; x++ {
			c := goShade(pic, src.At(x, y), src.At(x, min(y+1, src.Rect.Max.Y-1)), origin.Add(image.Pt(x, y).Sub(src.Rect.Min)))
			dst.SetRGBA(dst.Rect.Min.X+x-src.Rect.Min.X, dst.Rect.Min.Y+y-src.Rect.Min.Y, c)
		}
	}
	return nil
}

// goShade is goPainter's formula: red from the row in the picture, green from the count of
// the neighbour below, blue 255 inside.
func goShade(pic colour.ShaderPicture, s, below colour.Sample, at image.Point) color.RGBA {
	if s.Inside() {
		return color.RGBA{B: 255, A: 255}
	}
	g := uint8(255)
	if !below.Inside() {
		g = uint8(int(below.Nu) % 255)
	}
	return color.RGBA{R: uint8(255 * at.Y / pic.Height), G: g, A: 255}
}

// TestShaderExport: an export with a colouring shader compiles it before any work (a shader
// that does not compile is refused and nothing is written; without a painter the export says
// it needs OpenGL), runs it over every strip's samples with the strip's place in the picture,
// records its text in the PNG (ReadMetadata gives it back exactly, so --from draws the same),
// and a recolour of the export's raw file draws the same picture.
func TestShaderExport(t *testing.T) {
	dir := t.TempDir()
	opt := rawOpts(1)
	opt.Location.Color.Shader = "// rows\nvec3 colour() { return vec3(getCoord().y); }\n"
	p := &goPainter{}
	opt.ShaderPainter = p
	opt.Raw = filepath.Join(dir, "s.exr")
	out := filepath.Join(dir, "s.png")
	if _, err := Export(context.Background(), &cpu.Renderer{}, out, opt); err != nil {
		t.Fatal(err)
	}
	got := readPNG(t, out)
	d := computeAll(t, opt)
	pic := colour.ShaderPicture{Width: opt.Width, Height: opt.Height}
	for y := range opt.Height {
		for x := range opt.Width {
			// The neighbour below in the whole picture: strips join as one.
			if want := goShade(pic, d.At(x, y), d.At(x, min(y+1, opt.Height-1)), image.Pt(x, y)); got.RGBAAt(x, y) != want {
				t.Fatalf("(%d, %d): %v, want %v", x, y, got.RGBAAt(x, y), want)
			}
		}
	}
	md, err := ReadMetadata(out)
	if err != nil || md.Location.Color.Shader != opt.Location.Color.Shader {
		t.Fatalf("metadata: %v, shader %q", err, md.Location.Color.Shader)
	}

	raw, err := OpenRaw(opt.Raw)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if raw.Location.Color.Shader != opt.Location.Color.Shader {
		t.Fatalf("the raw file's location lost the shader: %q", raw.Location.Color.Shader)
	}
	ro := Options{Location: raw.Location, Width: opt.Width, Height: opt.Height, Supersample: 1, Version: "t", ShaderPainter: p}
	again := filepath.Join(dir, "r.png")
	if _, err := Recolour(context.Background(), raw, again, ro); err != nil {
		t.Fatal(err)
	}
	if n := differingPixels(readPNG(t, again), got); n != 0 {
		t.Errorf("the recolour differs in %d pixels", n)
	}

	bad := opt
	bad.Raw = ""
	bad.Location.Color.Shader = "vec3 colour() {\n  return vec3(oops);\n}\n"
	badOut := filepath.Join(dir, "bad.png")
	if _, err := Export(context.Background(), &cpu.Renderer{}, badOut, bad); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a shader that does not compile: %v", err)
	}
	bad.Location.Color.Shader = opt.Location.Color.Shader
	bad.ShaderPainter = nil
	if _, err := Export(context.Background(), &cpu.Renderer{}, badOut, bad); !errors.Is(err, colour.ErrNoShaderPainter) {
		t.Errorf("no painter: %v", err)
	}
	if _, err := os.Stat(badOut + ".part"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused export left %s.part: %v", badOut, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("files after the refusals: %d, want s.png, s.exr and r.png", len(entries))
	}
}
