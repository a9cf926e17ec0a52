package render

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/render/cpu"
	"mandelscope/shaders"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata/ from the GPU output")

// loc builds a location from text, failing the test on a mistake.
func loc(t testing.TB, re, im, zoom string, iter int) fractal.Location {
	t.Helper()
	l := fractal.Home()
	var err error
	if l.Re, err = fractal.ParseDecimal(re); err != nil {
		t.Fatal(err)
	}
	if l.Im, err = fractal.ParseDecimal(im); err != nil {
		t.Fatal(err)
	}
	if l.Zoom, err = fractal.ParseDecimal(zoom); err != nil {
		t.Fatal(err)
	}
	l.Iterations = iter
	return l
}

// Test views: the whole set, seahorse valley at zoom 1e3, and a zoom 2e6 needing double (at
// 1600 iterations the deepest double keeps: fractal.ChoosePrecision).
func homeLoc(t testing.TB) fractal.Location { return fractal.Home() }
func seahorseLoc(t testing.TB) fractal.Location {
	return loc(t, "-0.7436438870371587", "0.1318259042053120", "1e3", 600)
}
func deepLoc(t testing.TB) fractal.Location {
	return loc(t, "-0.10109636384562", "0.95628651080914", "2e6", 1600)
}

// deepSeahorseLoc is a zoom 2e6 in seahorse valley: filaments around a minibrot, escape counts
// up to 1600.
func deepSeahorseLoc(t testing.TB) fractal.Location {
	return loc(t, "-0.743643887037158704752191506114774", "0.131825904205311970493132056385139", "2e6", 1600)
}

// render draws all of f with g into a new image.
func renderGL(t testing.TB, g *GL, f fractal.Frame) *image.RGBA {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
	if err := g.Render(context.Background(), f, img.Bounds(), img); err != nil {
		t.Fatalf("Render %dx%d: %v", f.W, f.H, err)
	}
	return img
}

// reference is the CPU picture of f in the arithmetic of a shader variant: float32 with
// Point32 for F32, float64 with Point64 for the double variants.
func reference(t testing.TB, f fractal.Frame, v shaders.Variant) *image.RGBA {
	t.Helper()
	pal, err := f.Loc.Color.ColorPalette()
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
	c := f.Loc.Color
	for y := range f.H {
		for x := range f.W {
			var r fractal.Result
			switch {
			case v == shaders.F32 && c.NeedsDerivative():
				re, im := f.Point32(x, y)
				r = fractal.EscapeDE32(re, im, f.Loc.Iterations, float32(f.Spacing))
			case v == shaders.F32:
				re, im := f.Point32(x, y)
				r.N, r.Nu = fractal.Escape32(re, im, f.Loc.Iterations)
			case c.NeedsDerivative():
				re, im := f.Point64(x, y)
				r = fractal.EscapeDE64(re, im, f.Loc.Iterations, f.Spacing)
			default:
				re, im := f.Point64(x, y)
				r.N, r.Nu = fractal.Escape64(re, im, f.Loc.Iterations)
			}
			img.SetRGBA(x, y, c.Shade(pal, f.ScreenNormal(r).Sample()))
		}
	}
	return img
}

// colourings are the colourings beyond the default that the GPU-CPU and pass tests draw
// every view in, by name: each method, and each transfer function (with a method).
var colourings = []struct {
	name string
	set  func(*colour.Coloring)
}{
	{"distance", func(c *colour.Coloring) { c.Method, c.Width = colour.MethodDistance, 2 }},
	{"slopes", func(c *colour.Coloring) { c.Method, c.Light, c.Strength = colour.MethodSlopes, 20, 0.9 }},
	{"sqrt", func(c *colour.Coloring) { c.Transfer, c.Density = colour.TransferSqrt, 4 }},
	{"log_distance", func(c *colour.Coloring) {
		c.Method, c.Transfer, c.Density = colour.MethodDistance, colour.TransferLog, 20
	}},
	// A user's gradient by value: positioned stops with a hard edge, drawn through the
	// MaxStops-entry table (the whole uniform array), in the default shading and with a method.
	{"gradient", func(c *colour.Coloring) { *c = c.WithGradient("test", testGradient) }},
	{"gradient_slopes", func(c *colour.Coloring) {
		*c = c.WithGradient("test", testGradient)
		c.Method, c.Density = colour.MethodSlopes, 2
	}},
}

// testGradient is a user gradient with positions and a hard edge at 0.55.
var testGradient = func() colour.Gradient {
	g, err := colour.ParseGradientText("0.05:#0B1026,0.3:#3FA7D6,0.55:#F6F7EB,0.55:#E94F37,0.8:#F2C14E,0.95:#393E41")
	if err != nil {
		panic(err)
	}
	return g
}()

// withColouring returns l in the named colouring ("" or "smooth": unchanged).
func withColouring(t testing.TB, l fractal.Location, name string) fractal.Location {
	t.Helper()
	if name == "" || name == "smooth" {
		return l
	}
	for _, c := range colourings {
		if c.name == name {
			c.set(&l.Color)
			if err := l.Validate(); err != nil {
				t.Fatal(err)
			}
			return l
		}
	}
	t.Fatalf("no colouring %q", name)
	return l
}

// saveFailed writes an image under testdata/failed/ for a person to look at.
func saveFailed(t testing.TB, name string, img image.Image) {
	t.Helper()
	dir := filepath.Join("testdata", "failed")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("cannot save failed image: %v", err)
		return
	}
	p := filepath.Join(dir, name)
	if err := writePNG(p, img); err != nil {
		t.Logf("cannot save failed image: %v", err)
		return
	}
	t.Logf("wrote %s", p)
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func readPNG(path string) (*image.RGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		return nil, err
	}
	out := image.NewRGBA(image.Rect(0, 0, m.Bounds().Dx(), m.Bounds().Dy()))
	for y := range out.Bounds().Dy() {
		for x := range out.Bounds().Dx() {
			out.Set(x, y, m.At(m.Bounds().Min.X+x, m.Bounds().Min.Y+y))
		}
	}
	return out, nil
}

func TestShadersCompile(t *testing.T) {
	g := testGL(t, Options{})
	for _, v := range shaders.Variants {
		t.Run(string(v), func(t *testing.T) {
			if v == shaders.F64 && !g.fp64 {
				t.Skipf("%s has no native fp64", g.renderer)
			}
			err := g.th.call(func() error {
				p, err := newProgram(g.glsl, v, shaders.FullscreenVert, shaders.MandelFrag)
				if err == nil {
					deleteProgram(p)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			// The programs with the derivative, every stage that iterates.
			for _, stage := range []string{stageSingle, stageIterate, stageSample} {
				if err := g.th.call(func() error {
					_, err := g.lazyProgram(progKey{v: v, stage: stage, shade: true, deriv: true})
					return err
				}); err != nil {
					t.Fatalf("%s with DERIV: %v", stage, err)
				}
			}
		})
	}
	t.Run("perturb", func(t *testing.T) {
		if !g.fp64 {
			t.Skipf("%s has no native fp64", g.renderer)
		}
		for pages := 1; pages <= maxPages; pages++ {
			for _, stage := range []string{stageSingle, stageIterate} {
				for _, deriv := range []bool{false, true} {
					if err := g.th.call(func() error {
						_, err := g.perturbProgram(pages, stage, deriv, deriv, false)
						return err
					}); err != nil {
						t.Fatalf("%d pages, stage %q, derivative %v: %v", pages, stage, deriv, err)
					}
				}
				// The extended-exponent programs: the default colouring, SHADE, SHADE and DERIV.
				for _, sd := range [][2]bool{{false, false}, {true, false}, {true, true}} {
					if err := g.th.call(func() error {
						_, err := g.perturbProgram(pages, stage, sd[0], sd[1], true)
						return err
					}); err != nil {
						t.Fatalf("%d pages, stage %q, extended exponent, shade %v, derivative %v: %v", pages, stage, sd[0], sd[1], err)
					}
				}
			}
		}
	})
}

func TestBrokenShaderReturnsLog(t *testing.T) {
	g := testGL(t, Options{})
	broken := strings.Replace(shaders.MandelFrag, "if (pixelC(cr, ci)) {", "if (pixelC(cr, ci) || undefinedThing) {", 1)
	if broken == shaders.MandelFrag {
		t.Fatal("test cannot break the shader: marker text not found")
	}
	err := g.th.call(func() error {
		p, err := newProgram(g.glsl, shaders.F32, shaders.FullscreenVert, broken)
		if err == nil {
			deleteProgram(p)
		}
		return err
	})
	var se *ShaderError
	if !errors.As(err, &se) {
		t.Fatalf("want a *ShaderError, got %v", err)
	}
	if se.Log == "" || !strings.Contains(err.Error(), "undefinedThing") {
		t.Errorf("error lacks the GL log or the offending line: %v", err)
	}
	if se.Line == 0 || !strings.Contains(se.Text, "undefinedThing") {
		t.Errorf("error names line %d %q, want the line with undefinedThing", se.Line, se.Text)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
	t.Log(err)

	// A broken perturbation shader names its file.
	// Every call site, so that whichever the defines compile is broken (the first is in the
	// ORBIT programs' branch, which this program leaves out).
	brokenP := strings.ReplaceAll(shaders.PerturbFrag, "int r = perturb(", "int r = 1 + notDeclared + perturb(")
	if brokenP == shaders.PerturbFrag {
		t.Fatal("test cannot break the perturbation shader: marker text not found")
	}
	err = g.th.call(func() error {
		p, err := linkProgram(g.glsl, shaders.Perturb, stageIterate, shaders.FullscreenVert, []source{{"perturb.frag", brokenP}}, []string{string(shaders.F64), "PAGES 1"})
		if err == nil {
			deleteProgram(p)
		}
		return err
	})
	if !g.fp64 {
		t.Logf("no fp64: the perturbation shader is not compiled")
	} else if !errors.As(err, &se) || !strings.Contains(se.Name, "perturb.frag") || !strings.Contains(se.Text, "notDeclared") {
		t.Errorf("broken perturb.frag: want a *ShaderError naming perturb.frag and the line, got %v", err)
	} else {
		t.Log(err)
	}

	// A broken vertex shader too.
	err = g.th.call(func() error {
		_, err := newProgram(g.glsl, shaders.F32, "void main() { gl_Position = vec4(1.0) * nothing; }", shaders.MandelFrag)
		return err
	})
	if !errors.As(err, &se) || se.Stage != "vertex" {
		t.Errorf("broken vertex shader: want a vertex *ShaderError, got %v", err)
	}
}

type goldenCase struct {
	name string
	loc  func(testing.TB) fractal.Location
	w, h int
	mod  func(*fractal.Location)
}

var goldenCases = []goldenCase{
	{"home_320x200", homeLoc, 320, 200, nil},
	{"home_200x320", homeLoc, 200, 320, nil},
	{"seahorse_1e3_256x160", seahorseLoc, 256, 160, nil},
	{"deep_2e6_160x256", deepLoc, 160, 256, nil},
	{"deep_seahorse_2e6_256x160", deepSeahorseLoc, 256, 160, nil},
	{"seahorse_fire_240x180", seahorseLoc, 240, 180, func(l *fractal.Location) {
		l.Color = colour.Coloring{Palette: "fire", Density: 3, Offset: 0.25}
	}},
}

// TestGolden compares GPU pictures with reference PNGs under testdata/ (a few pixels may
// differ slightly between drivers). go test -run Golden -update rewrites them.
func TestGolden(t *testing.T) {
	g := testGL(t, Options{})
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			l := c.loc(t)
			if c.mod != nil {
				c.mod(&l)
			}
			got := renderGL(t, g, fractal.NewFrame(l, c.w, c.h))
			path := filepath.Join("testdata", c.name+".png")
			if *update {
				if err := writePNG(path, got); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := readPNG(path)
			if err != nil {
				t.Fatalf("golden image: %v (run go test -run Golden -update to make it)", err)
			}
			if want.Bounds().Size() != got.Bounds().Size() {
				t.Fatalf("golden image is %v, render is %v", want.Bounds().Size(), got.Bounds().Size())
			}
			frac, bad := imagetest.Agreement(got, want, 6)
			if frac < 0.995 {
				saveFailed(t, c.name+".png", got)
				t.Errorf("%.2f%% of pixels match the golden image within 6/255 (want >= 99.5%%); first bad pixel %v", 100*frac, bad)
			}
		})
	}
}

// TestAgainstCPU checks GPU and CPU agreement (>= 98% of pixels within 6/255) for every
// precision variant at several views and non-square sizes.
func TestAgainstCPU(t *testing.T) {
	type view struct {
		name   string
		loc    func(testing.TB) fractal.Location
		w, h   int
		double bool // the frame needs double: the f32 variant does not apply
	}
	views := []view{
		{"home", homeLoc, 320, 200, false},
		{"home_tall", homeLoc, 150, 260, false},
		{"seahorse_1e3", seahorseLoc, 300, 170, false},
		{"deep_2e6", deepLoc, 200, 300, true},
		{"deep_seahorse_2e6", deepSeahorseLoc, 210, 140, true},
	}
	cols := []string{"smooth"}
	for _, c := range colourings {
		cols = append(cols, c.name)
	}
	for _, prec := range []string{"", "f32", "f64", "emulated"} {
		for _, v := range views {
			for _, col := range cols {
				name := prec
				if name == "" {
					name = "auto"
				}
				if col != "smooth" {
					name += "_" + col
				}
				t.Run(name+"/"+v.name, func(t *testing.T) {
					if prec == "f32" && v.double {
						t.Skip("the frame needs double precision")
					}
					g := testGL(t, Options{Precision: prec})
					f := fractal.NewFrame(withColouring(t, v.loc(t), col), v.w, v.h)
					if v.double && f.Precision() != fractal.Double {
						t.Fatalf("view %s is %v, want double", v.name, f.Precision())
					}
					got := renderGL(t, g, f)
					var want *image.RGBA
					if prec == "" {
						want = image.NewRGBA(image.Rect(0, 0, f.W, f.H))
						if err := (&cpu.Renderer{}).Render(context.Background(), f, want.Bounds(), want); err != nil {
							t.Fatal(err)
						}
					} else {
						want = reference(t, f, g.variant(f))
					}
					if col != "smooth" {
						// The colouring must change the picture (at least 1% of it: the lines of a whole-set
						// view cover 2.6%), or the comparison tests nothing new.
						plain := fractal.NewFrame(v.loc(t), v.w, v.h)
						same, _ := imagetest.Agreement(want, reference(t, plain, g.variant(plain)), 0)
						t.Logf("%s: %.1f%% of pixels differ from the smooth colouring's", col, 100*(1-same))
						if same > 0.99 {
							t.Errorf("%s changes only %.1f%% of the pixels of the smooth colouring", col, 100*(1-same))
						}
					}
					frac := matchesCPU(t, fmt.Sprintf("cpu_%s_%s", name, v.name), got, want)
					sc := imagetest.Scattering(got, want, 6)
					t.Logf("%s: %.3f%% within 6/255 (%s); longest run %d, worst line %.1f%%", v.name, 100*frac, g.Mode(f), sc.LongestRun, 100*sc.WorstLine)
				})
			}
		}
	}
}

// TestTilesMatchWhole renders a 500x333 frame in tiles of 61 px and in one piece: the bytes
// must be identical.
func TestTilesMatchWhole(t *testing.T) {
	for _, c := range []struct {
		name string
		prec string
		loc  func(testing.TB) fractal.Location
	}{
		{"seahorse_f32", "", seahorseLoc},
		{"deep_double", "", deepLoc},
		{"deep_emulated", "emulated", deepLoc},
		{"seahorse_f32_distance", "", func(t testing.TB) fractal.Location { return withColouring(t, seahorseLoc(t), "distance") }},
		{"deep_double_slopes", "", func(t testing.TB) fractal.Location { return withColouring(t, deepLoc(t), "slopes") }},
		{"deep_emulated_log_distance", "emulated", func(t testing.TB) fractal.Location { return withColouring(t, deepLoc(t), "log_distance") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			whole := testGL(t, Options{Precision: c.prec})
			tiled := testGL(t, Options{Precision: c.prec, MaxTile: 61})
			if tiled.MaxTile() != 61 {
				t.Fatalf("MaxTile() = %d, want 61", tiled.MaxTile())
			}
			l := c.loc(t)
			l.Iterations = min(l.Iterations, 400)
			f := fractal.NewFrame(l, 500, 333)
			a := renderGL(t, whole, f)
			before := tiled.Stats().Tiles
			b := renderGL(t, tiled, f)
			if n := tiled.Stats().Tiles - before; n != 9*6 {
				t.Errorf("drew %d tiles, want 9x6 = 54", n)
			}
			if string(a.Pix) != string(b.Pix) {
				frac, bad := imagetest.Agreement(a, b, 0)
				saveFailed(t, "tiles_"+c.name+".png", b)
				t.Errorf("tiled render differs from the one-piece render: %.3f%% equal, first difference at %v", 100*frac, bad)
			}
		})
	}
}

// TestRenderIntoSubImage draws a rect that is not at the frame's origin into part of a bigger
// image (a stride wider than the tile), and checks the pixels around it are untouched.
func TestRenderIntoSubImage(t *testing.T) {
	g := testGL(t, Options{})
	f := fractal.NewFrame(seahorseLoc(t), 300, 200)
	whole := renderGL(t, g, f)
	canvas := image.NewRGBA(image.Rect(0, 0, 400, 300))
	marker := color.RGBA{1, 2, 3, 4}
	for i := 0; i < len(canvas.Pix); i += 4 {
		copy(canvas.Pix[i:], []byte{marker.R, marker.G, marker.B, marker.A})
	}
	rect := image.Rect(37, 21, 251, 163)
	dst := canvas.SubImage(image.Rect(50, 60, 50+rect.Dx(), 60+rect.Dy())).(*image.RGBA)
	if err := g.Render(context.Background(), f, rect, dst); err != nil {
		t.Fatal(err)
	}
	for y := range 300 {
		for x := range 400 {
			got := canvas.RGBAAt(x, y)
			p := image.Pt(x, y)
			if p.In(dst.Bounds()) {
				if want := whole.RGBAAt(x-50+rect.Min.X, y-60+rect.Min.Y); got != want {
					t.Fatalf("pixel %v = %v, want %v", p, got, want)
				}
			} else if got != marker {
				t.Fatalf("pixel %v outside the destination was overwritten: %v", p, got)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	g := testGL(t, Options{})
	f := fractal.NewFrame(fractal.Home(), 100, 80)
	img := image.NewRGBA(image.Rect(0, 0, 100, 80))
	bad := f
	bad.Loc.Color.Palette = "nope"
	cases := []struct {
		name string
		err  error
	}{
		{"small dst", g.Render(context.Background(), f, image.Rect(0, 0, 100, 80), image.NewRGBA(image.Rect(0, 0, 50, 80)))},
		{"nil dst", g.Render(context.Background(), f, image.Rect(0, 0, 10, 10), nil)},
		{"rect outside", g.Render(context.Background(), f, image.Rect(90, 0, 110, 10), img)},
		{"palette", g.Render(context.Background(), bad, image.Rect(0, 0, 10, 10), img)},
		{"short pixels", g.Render(context.Background(), f, image.Rect(0, 0, 100, 80), &image.RGBA{Pix: make([]byte, 100), Stride: 400, Rect: image.Rect(0, 0, 100, 80)})},
		{"odd stride", g.Render(context.Background(), f, image.Rect(0, 0, 10, 10), &image.RGBA{Pix: make([]byte, 4000), Stride: 41, Rect: image.Rect(0, 0, 10, 10)})},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
		} else if strings.Contains(c.err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", c.name, c.err)
		}
	}
	if err := g.Render(context.Background(), f, image.Rectangle{}, img); err != nil {
		t.Errorf("empty rect: %v", err)
	}
	if _, err := NewGL(Options{Precision: "f16"}); err == nil || !strings.Contains(err.Error(), "f16") {
		t.Errorf("NewGL with precision f16: %v, want an error naming it", err)
	}
	if _, err := NewGL(Options{Perturb: "tpu"}); err == nil || !strings.Contains(err.Error(), "tpu") {
		t.Errorf("NewGL with perturbation renderer tpu: %v, want an error naming it", err)
	}
}

func TestModeAndBands(t *testing.T) {
	g := testGL(t, Options{})
	if !strings.HasPrefix(g.Name(), "OpenGL: ") || g.Renderer() == "" {
		t.Errorf("Name %q, Renderer %q", g.Name(), g.Renderer())
	}
	if m := g.Mode(fractal.NewFrame(fractal.Home(), 320, 200)); m != "float32" {
		t.Errorf("home view mode %q, want float32", m)
	}
	deep := fractal.NewFrame(deepLoc(t), 320, 200)
	if m := g.Mode(deep); !strings.HasPrefix(m, "float64") && !strings.HasPrefix(m, "double") {
		t.Errorf("deep view mode %q, want a double mode", m)
	}
	l := deepLoc(t)
	l.Zoom = fractal.MustDecimal("1e20")
	wantMode := "perturbation (fp64)"
	if !g.fp64 || softwareRenderer(g.renderer) {
		wantMode = "perturbation (CPU: "
	}
	if m := g.Mode(fractal.NewFrame(l, 320, 200)); !strings.HasPrefix(m, wantMode) {
		t.Errorf("zoom 1e20 mode %q, want %q...", m, wantMode)
	}
	if m := testGL(t, Options{Perturb: "gpu"}).Mode(fractal.NewFrame(l, 320, 200)); g.fp64 && m != "perturbation (fp64)" {
		t.Errorf("zoom 1e20 mode with the GPU forced %q", m)
	}
	if m := testGL(t, Options{Perturb: "cpu"}).Mode(fractal.NewFrame(l, 320, 200)); m != "perturbation (CPU: forced)" {
		t.Errorf("zoom 1e20 mode with the CPU forced %q", m)
	}
	if m := testGL(t, Options{Precision: "f64"}).Mode(fractal.NewFrame(l, 320, 200)); m != "double (limit reached)" {
		t.Errorf("zoom 1e20 mode with f64 forced %q", m)
	}
	// Bands cover the tile exactly, each within the budget.
	for _, c := range []struct{ w, h, iter int }{{16384, 16384, 200}, {500, 333, 1_000_000}, {61, 7, 1}} {
		area := 0
		for _, b := range bands(c.w, c.h, c.iter, 4) {
			area += b.Dx() * b.Dy()
			if b.Dx()*b.Dy() > 1 && int64(b.Dx()*b.Dy())*int64(c.iter)*4 > drawBudget {
				t.Errorf("band %v of %dx%d at %d iterations is over budget", b, c.w, c.h, c.iter)
			}
		}
		if area != c.w*c.h {
			t.Errorf("bands of %dx%d cover %d pixels", c.w, c.h, area)
		}
	}
}

// TestNewGLWithoutDisplay runs this test binary again with no display: NewGL must return an
// error saying so (callers fall back to the CPU), not panic.
func TestNewGLWithoutDisplay(t *testing.T) {
	if os.Getenv("MANDELSCOPE_NODISPLAY_CHILD") == "1" {
		g, err := NewGL(Options{})
		if err == nil {
			g.Close()
			fmt.Println("NEWGL-OK")
			return
		}
		fmt.Println("NEWGL-ERROR:", err)
		return
	}
	if testing.Short() {
		t.Skip("starts a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNewGLWithoutDisplay$", "-test.count=1")
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "DISPLAY=") && !strings.HasPrefix(e, "WAYLAND_DISPLAY=") &&
			!strings.HasPrefix(e, "MANDELSCOPE_REQUIRE_GL=") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, "MANDELSCOPE_NODISPLAY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child failed (panic?): %v\n%s", err, out)
	}
	switch {
	case strings.Contains(string(out), "NEWGL-OK"):
		t.Skip("a GL context was made even without DISPLAY (EGL or similar)")
	case !strings.Contains(string(out), "NEWGL-ERROR: opengl:"):
		t.Fatalf("child output lacks the error:\n%s", out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "NEWGL-ERROR") {
			t.Log(line)
		}
	}
}

// TestMainQueue checks that closures sent to Main's queue from many goroutines all run, on
// one thread, and that NewGL without Main or Options.MainThread reports it.
func TestMainQueue(t *testing.T) {
	var mu sync.Mutex
	ran := 0
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := onMainQueue(func() { mu.Lock(); ran++; mu.Unlock() }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if ran != 20 {
		t.Errorf("%d of 20 closures ran", ran)
	}
}

// newGL33 makes a renderer on a GL 3.3 core context with GLSL 3.30 shaders, as on drivers
// without GL 4; it skips when there is no GL at all and is closed when the test ends.
func newGL33(t *testing.T) *GL {
	t.Helper()
	testGL(t, Options{})
	oldV, oldS := contextVersions, glslOverride
	contextVersions, glslOverride = [][2]int{{3, 3}}, 330
	g, err := NewGL(Options{})
	contextVersions, glslOverride = oldV, oldS
	if err != nil {
		t.Fatalf("GL 3.3 with GLSL 3.30: %v", err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// TestGL33 makes a GL 3.3 core context with GLSL 3.30 shaders (fp64 through
// GL_ARB_gpu_shader_fp64 where the driver has it), as on drivers without GL 4, and checks
// every variant against the CPU.
func TestGL33(t *testing.T) {
	g := newGL33(t)
	slopes := func(l func(testing.TB) fractal.Location) func(testing.TB) fractal.Location {
		return func(t testing.TB) fractal.Location { return withColouring(t, l(t), "slopes") }
	}
	for _, c := range []struct {
		v   shaders.Variant
		loc func(testing.TB) fractal.Location
	}{{shaders.F32, seahorseLoc}, {shaders.F64, deepLoc}, {shaders.Emulated, deepLoc},
		{shaders.F32, slopes(seahorseLoc)}, {shaders.F64, slopes(deepLoc)}, {shaders.Emulated, slopes(deepLoc)}} {
		p := g.progs[c.v]
		if p == nil {
			t.Logf("%s: not available on %s with GLSL 3.30", c.v, g.renderer)
			continue
		}
		f := fractal.NewFrame(c.loc(t), 170, 110)
		img := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
		g.opts.Precision = map[shaders.Variant]string{shaders.F32: "f32", shaders.F64: "f64", shaders.Emulated: "emulated"}[c.v]
		if err := g.Render(context.Background(), f, img.Bounds(), img); err != nil {
			t.Fatal(err)
		}
		ref := reference(t, f, c.v)
		frac, bad := imagetest.Agreement(img, ref, 6)
		t.Logf("GLSL 3.30 %s: %.3f%% within 6/255", c.v, 100*frac)
		if frac < 0.98 {
			t.Errorf("GLSL 3.30 %s: only %.2f%% of pixels agree with the CPU; first bad pixel %v", c.v, 100*frac, bad)
		}
		if err := imagetest.Isolated(img, ref, 6); err != nil {
			t.Errorf("GLSL 3.30 %s vs CPU: %v", c.v, err)
		}
	}
}

// matchesCPU checks the GPU picture got against the CPU's want as every GPU-vs-CPU test does:
// at least 98% of pixels within 6/255, and the differing pixels isolated (no runs along a row
// or column: imagetest.Isolated). On a failure both pictures are written to testdata/failed as
// NAME_gpu.png and NAME_cpu.png. It returns the share of pixels within 6/255, for the log.
func matchesCPU(t *testing.T, name string, got, want *image.RGBA) float64 {
	t.Helper()
	frac, bad := imagetest.Agreement(got, want, 6)
	err := imagetest.Isolated(got, want, 6)
	if frac < 0.98 || err != nil {
		saveFailed(t, name+"_gpu.png", got)
		saveFailed(t, name+"_cpu.png", want)
	}
	if frac < 0.98 {
		t.Errorf("only %.2f%% of pixels within 6/255 of the CPU (want >= 98%%); first bad pixel %v", 100*frac, bad)
	}
	if err != nil {
		t.Errorf("GPU vs CPU: %v", err)
	}
	return frac
}
