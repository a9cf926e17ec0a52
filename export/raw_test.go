package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/exr"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// rawOpts is a small export whose strips (17 rows, times the supersampling) are not whole
// chunks of the raw file (16 lines), so that lines are held from strip to strip.
func rawOpts(ss int) Options {
	loc := testLoc()
	// An explicit density: the file records the one drawn (an automatic one resolved, which
	// TestRawRecordsAutoDensity checks), and these tests compare locations.
	loc.Color.AutoDensity = false
	return Options{Location: loc, Width: 211, Height: 143, Supersample: ss, Tile: 77,
		StripBytes: 4 * 211 * ss * ss * 17, Version: "t"}
}

// computeAll computes the samples of opt's frame in one piece, with the derivative and the
// inside's cycles, as a raw export keeps them.
func computeAll(t *testing.T, opt Options) *colour.Data {
	t.Helper()
	loc := opt.Location
	n := max(opt.Supersample, 1)
	loc.Color = loc.Color.Sampled(n)
	f := fractal.NewFrame(loc, opt.Width*n, opt.Height*n)
	f.Derivative, f.Cycles = true, true
	d := colour.NewData(image.Rect(0, 0, f.W, f.H))
	if err := (&cpu.Renderer{}).Compute(context.Background(), f, d.Rect, d); err != nil {
		t.Fatal(err)
	}
	return d
}

// readAll reads every sample of a raw file, and checks its header against opt.
func readAll(t *testing.T, path string, opt Options) *colour.Data {
	t.Helper()
	r, err := OpenRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := max(opt.Supersample, 1)
	if r.Location != opt.Location || r.Width != opt.Width || r.Height != opt.Height || r.Supersample != n || r.Version != opt.Version {
		t.Fatalf("header: %v %dx%d x%d %q, want %v %dx%d x%d %q", r.Location, r.Width, r.Height, r.Supersample, r.Version,
			opt.Location, opt.Width, opt.Height, n, opt.Version)
	}
	w, h := r.Samples()
	d := colour.NewData(image.Rect(0, 0, w, h))
	if err := r.ReadSamples(d, 0, h); err != nil {
		t.Fatal(err)
	}
	return d
}

// sameBits reports whether two float32s are the same bits (NaN payloads aside).
func sameBits(a, b float32) bool {
	return a == b && math.Signbit(float64(a)) == math.Signbit(float64(b)) || a != a && b != b
}

// checkSamples compares the samples read back with those computed: N and NF exactly as the
// convention splits them, DEX and DEY bit for bit.
func checkSamples(t *testing.T, got, want *colour.Data) {
	t.Helper()
	if got.Rect != want.Rect {
		t.Fatalf("samples %v, want %v", got.Rect, want.Rect)
	}
	bad, inside := 0, 0
	for y := want.Rect.Min.Y; y < want.Rect.Max.Y; y++ {
		for x := want.Rect.Min.X; x < want.Rect.Max.X; x++ {
			g, w := got.At(x, y), want.At(x, y)
			n, nf := rawSplit(w.Nu)
			if w.Inside() {
				inside++
			}
			if g.Nu != rawJoin(n, nf) || !sameBits(g.DEX, w.DEX) || !sameBits(g.DEY, w.DEY) {
				if bad < 5 {
					t.Errorf("sample (%d,%d) = %+v, want %+v", x, y, g, w)
				}
				bad++
			}
			if !w.Inside() && math.Abs(g.Nu-w.Nu) > 1e-7*max(1, w.Nu) {
				t.Fatalf("sample (%d,%d): nu %v read back as %v", x, y, w.Nu, g.Nu)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d samples differ", bad)
	}
	if inside == 0 || inside == len(want.Pix) {
		t.Fatalf("%d of %d samples inside: the view tests little", inside, len(want.Pix))
	}
}

func TestRawSplit(t *testing.T) {
	for _, c := range []struct {
		nu float64
		n  uint32
		nf float32
	}{{colour.Inside, RawInside, 0}, {0.25, 0, 0.25}, {-0.5, 0, -0.5}, {3.75, 3, 0.75}, {1e6 + 0.5, 1e6, 0.5}, {5, 5, 0}} {
		n, nf := rawSplit(c.nu)
		if n != c.n || nf != c.nf {
			t.Errorf("rawSplit(%v) = %d, %v, want %d, %v", c.nu, n, nf, c.n, c.nf)
		}
		if back := rawJoin(n, nf); back != c.nu {
			t.Errorf("rawJoin(%d, %v) = %v, want %v", n, nf, back, c.nu)
		}
	}
}

// TestRawExport: with --raw the PNG is byte for byte the PNG of an export without it, and the
// raw file holds every sample as Compute gives it, with the view in its header, as Debian's
// OpenEXR tools read it.
func TestRawExport(t *testing.T) {
	for _, ss := range []int{1, 2} {
		t.Run(fmt.Sprintf("ss%d", ss), func(t *testing.T) {
			opt := rawOpts(ss)
			opt.Location.Color.Method = colour.MethodSlopes
			plain, _ := export(t, t.TempDir(), opt)
			dir := t.TempDir()
			opt.Raw = filepath.Join(dir, "r.exr")
			path := filepath.Join(dir, "r.png")
			sum, err := Export(context.Background(), &cpu.Renderer{}, path, opt)
			if err != nil {
				t.Fatal(err)
			}
			sameFile(t, path, plain)
			if st, err := os.Stat(opt.Raw); err != nil || st.Size() != sum.RawBytes {
				t.Fatalf("raw file: %v, summary says %d bytes", err, sum.RawBytes)
			}
			for _, p := range []string{PartPath(opt.Raw), CheckpointPath(path), CheckpointPath(opt.Raw)} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s is left", p)
				}
			}
			checkSamples(t, readAll(t, opt.Raw, opt), computeAll(t, opt))
			md, err := ReadMetadata(opt.Raw)
			if err != nil || md.Location != opt.Location || md.Width != opt.Width || md.Height != opt.Height || md.Supersample != ss {
				t.Fatalf("ReadMetadata: %v %+v", err, md)
			}
			checkOpenEXRTools(t, opt.Raw, opt)
		})
	}
}

// checkOpenEXRTools reads the raw file's header with exrheader (and exrinfo where there is
// one) and checks the channels, their types and the attributes.
func checkOpenEXRTools(t *testing.T, path string, opt Options) {
	t.Helper()
	if _, err := exec.LookPath("exrheader"); err != nil {
		if os.Getenv("MANDELSCOPE_REQUIRE_EXR_TOOLS") != "" {
			t.Fatal("exrheader is not installed (Debian package openexr)")
		}
		t.Skip("exrheader is not installed (Debian package openexr)")
	}
	out, err := exec.Command("exrheader", path).CombinedOutput()
	if err != nil {
		t.Fatalf("exrheader: %v\n%s", err, out)
	}
	n := max(opt.Supersample, 1)
	for _, want := range []string{
		"DEX, 32-bit floating-point", "DEY, 32-bit floating-point", "N, 32-bit unsigned integer", "NF, 32-bit floating-point",
		"compression (type compression): zip",
		fmt.Sprintf("dataWindow (type box2i): (0 0) - (%d %d)", opt.Width*n-1, opt.Height*n-1),
		"mandelscope.format (type int): 1",
		fmt.Sprintf("mandelscope.location (type string): %q", opt.Location.String()),
		fmt.Sprintf("mandelscope.width (type int): %d", opt.Width),
		fmt.Sprintf("mandelscope.height (type int): %d", opt.Height),
		fmt.Sprintf("mandelscope.supersample (type int): %d", n),
		fmt.Sprintf("mandelscope.iterations (type int): %d", opt.Location.Iterations),
		fmt.Sprintf("mandelscope.version (type string): %q", opt.Version),
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("exrheader does not say %q:\n%s", want, out)
		}
	}
	if _, err := exec.LookPath("exrinfo"); err == nil {
		out, err := exec.Command("exrinfo", "--strict", "-v", path).CombinedOutput()
		if err != nil {
			t.Fatalf("exrinfo: %v\n%s", err, out)
		}
		for _, want := range []string{"'N': uint", "'NF': float", "'DEX': float", "'DEY': float", "mandelscope.location: string"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("exrinfo does not say %q:\n%s", want, out)
			}
		}
	}
}

// TestRawResumeByteIdentical: a raw export stopped after k strips (as if killed) and resumed
// gives the files of an uninterrupted one, byte for byte: with a PNG and without one.
func TestRawResumeByteIdentical(t *testing.T) {
	for _, c := range []struct {
		ss, k int
		png   bool
	}{{1, 1, true}, {2, 3, true}, {1, 4, false}, {2, 1, false}} {
		t.Run(fmt.Sprintf("ss%d-after%d-png%v", c.ss, c.k, c.png), func(t *testing.T) {
			opt := rawOpts(c.ss)
			name := func(dir, ext string) string {
				if ext == ".png" && !c.png {
					return ""
				}
				return filepath.Join(dir, "r"+ext)
			}
			wdir, dir := t.TempDir(), t.TempDir()
			whole := opt
			whole.Raw = name(wdir, ".exr")
			if _, err := Export(context.Background(), &cpu.Renderer{}, name(wdir, ".png"), whole); err != nil {
				t.Fatal(err)
			}
			stop := opt
			stop.Raw = name(dir, ".exr")
			stop.stopAfter = c.k
			_, err := Export(context.Background(), &cpu.Renderer{}, name(dir, ".png"), stop)
			var ee *Error
			if !errors.As(err, &ee) || ee.Kind != ErrInterrupted || !ee.Kept {
				t.Fatalf("stopped export: %v", err)
			}
			if _, err := os.Stat(stop.Raw); err == nil {
				t.Fatal("FILE.exr exists after a kill")
			}
			res := stop
			res.stopAfter, res.Resume = 0, true
			sum, err := Export(context.Background(), &cpu.Renderer{}, name(dir, ".png"), res)
			if err != nil {
				t.Fatal(err)
			}
			if sum.Resumed != c.k {
				t.Errorf("resumed after %d strips, want %d", sum.Resumed, c.k)
			}
			sameFile(t, stop.Raw, whole.Raw)
			if c.png {
				sameFile(t, name(dir, ".png"), name(wdir, ".png"))
			}
		})
	}
}

// TestRawResumeRefusals: a raw .part changed after its checkpoint, or a resume that would add
// or drop the raw file, is refused, and the files stay as they were.
func TestRawResumeRefusals(t *testing.T) {
	opt := rawOpts(1)
	dir := t.TempDir()
	path := filepath.Join(dir, "r.png")
	opt.Raw = filepath.Join(dir, "r.exr")
	stop := opt
	stop.stopAfter = 3
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, stop); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("stopped export: %v", err)
	}
	res := opt
	res.Resume = true
	noRaw := res
	noRaw.Raw = ""
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, noRaw); !errors.Is(err, ErrParamsDiffer) || !strings.Contains(err.Error(), "raw") {
		t.Errorf("resume without the raw file: %v", err)
	}
	part := PartPath(opt.Raw)
	data, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(data)
	bad[len(bad)-20] ^= 1
	if err := os.WriteFile(part, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "r.exr.part") {
		t.Errorf("resume of a changed raw .part: %v", err)
	}
	if got, _ := os.ReadFile(part); !bytes.Equal(got, bad) {
		t.Error("the refused resume changed the raw .part")
	}
	if err := os.WriteFile(part, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
		t.Fatalf("resume of the restored .part: %v", err)
	}
}

// TestRawOutputRules: the raw file follows the PNG's rules: an existing file is kept unless
// overwriting, a name that is not .exr or is the PNG's is refused, a renderer that computes
// no samples is refused.
func TestRawOutputRules(t *testing.T) {
	dir := t.TempDir()
	opt := rawOpts(1)
	opt.Raw = filepath.Join(dir, "r.exr")
	if err := os.WriteFile(opt.Raw, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(context.Background(), &cpu.Renderer{}, "", opt); !errors.Is(err, ErrExists) {
		t.Errorf("existing raw file: %v", err)
	}
	if _, err := Export(context.Background(), &cpu.Renderer{}, filepath.Join(dir, "x.png"), opt); !errors.Is(err, ErrExists) {
		t.Errorf("existing raw file beside a PNG: %v", err)
	}
	if got, _ := os.ReadFile(opt.Raw); string(got) != "mine" {
		t.Error("the existing raw file was changed")
	}
	o := opt
	o.Raw = filepath.Join(dir, "r.png")
	if _, err := Export(context.Background(), &cpu.Renderer{}, "", o); err == nil || !strings.Contains(err.Error(), ".exr") {
		t.Errorf("raw file not .exr: %v", err)
	}
	o.Overwrite = true
	if _, err := Export(context.Background(), patternRenderer{tile: 64}, "", opt); err == nil || !strings.Contains(err.Error(), "samples") {
		t.Errorf("renderer without Compute: %v", err)
	}
	o = opt
	o.Overwrite = true
	if _, err := Export(context.Background(), &cpu.Renderer{}, "", o); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	checkSamples(t, readAll(t, opt.Raw, opt), computeAll(t, opt))
}

// recolourDiff compares two images: the share of pixels whose channels are all within 6 of
// each other, the longest horizontal run of pixels beyond that, and the count of bytes that
// differ at all.
func recolourDiff(a, b *image.RGBA) (within float64, run, bytesDiffer int) {
	w, h := a.Bounds().Dx(), a.Bounds().Dy()
	ok := 0
	for y := 0; y < h; y++ {
		cur := 0
		for x := 0; x < w; x++ {
			p, q := a.RGBAAt(x, y), b.RGBAAt(x, y)
			d := max(absDiff(p.R, q.R), absDiff(p.G, q.G), absDiff(p.B, q.B))
			for _, c := range [][2]byte{{p.R, q.R}, {p.G, q.G}, {p.B, q.B}} {
				if c[0] != c[1] {
					bytesDiffer++
				}
			}
			if d <= 6 {
				ok++
				cur = 0
			} else {
				cur++
				run = max(run, cur)
			}
		}
	}
	return float64(ok) / float64(w*h), run, bytesDiffer
}

func absDiff(a, b byte) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func readPNG(t *testing.T, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

// TestRecolour: a raw file recoloured with other colours is the PNG an export with those
// colours gives (byte for byte with the CPU renderer), its metadata that of the new colours;
// with another supersampling too (the samples regrouped).
func TestRecolour(t *testing.T) {
	opt := rawOpts(2)
	dir := t.TempDir()
	opt.Raw = filepath.Join(dir, "r.exr")
	if _, err := Export(context.Background(), &cpu.Renderer{}, "", opt); err != nil {
		t.Fatal(err)
	}
	raw, err := OpenRaw(opt.Raw)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, c := range []struct {
		name string
		ss   int
		col  func(*colour.Coloring)
	}{
		{"same", 2, func(*colour.Coloring) {}},
		{"fire", 2, func(c *colour.Coloring) { c.Palette, c.Density, c.Offset = "fire", 0.37, 0.2 }},
		{"distance", 2, func(c *colour.Coloring) { c.Method, c.Width = colour.MethodDistance, 1.5 }},
		{"slopes-log", 2, func(c *colour.Coloring) { c.Method, c.Transfer, c.Light = colour.MethodSlopes, colour.TransferLog, 30 }},
		{"ss1", 1, func(c *colour.Coloring) { c.Palette = "fire" }},
		{"histogram", 2, func(c *colour.Coloring) { c.Method = colour.MethodHistogram }},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Location: raw.Location, Supersample: c.ss, Version: "t"}
			c.col(&o.Location.Color)
			o.Location.Color = o.Location.Color.Canonical()
			if o.Width, o.Height, err = raw.SizeFor(c.ss); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "c.png")
			if _, err := Recolour(context.Background(), raw, out, o); err != nil {
				t.Fatal(err)
			}
			o.Tile = 77
			want, _ := export(t, t.TempDir(), o)
			md, err := ReadMetadata(out)
			if err != nil || md.Location != o.Location || md.Supersample != c.ss || md.Width != o.Width {
				t.Fatalf("metadata of the recoloured PNG: %v %+v", err, md)
			}
			within, run, differ := recolourDiff(readPNG(t, out), readPNG(t, want))
			if within < 0.99 || run > 2 {
				t.Fatalf("recoloured: %.4f of pixels within 6/255, a run of %d beyond", within, run)
			}
			if differ > 0 {
				t.Errorf("recoloured: %d bytes differ from the export's (%.5f within 6/255)", differ, within)
			}
			if differ == 0 {
				sameFile(t, out, want)
			}
		})
	}
	o := Options{Location: raw.Location, Supersample: 3, Width: 140, Height: 95, Version: "t"}
	if _, err := Recolour(context.Background(), raw, filepath.Join(dir, "x.png"), o); err == nil || !strings.Contains(err.Error(), "divide") {
		t.Errorf("supersampling 3 of 422x286 samples: %v", err)
	}
	o = Options{Location: raw.Location, Supersample: 2, Width: 211, Height: 143, Version: "t"}
	o.Location.Iterations++
	if _, err := Recolour(context.Background(), raw, filepath.Join(dir, "x.png"), o); err == nil || !strings.Contains(err.Error(), "view") {
		t.Errorf("other iterations: %v", err)
	}
	o.Location.Iterations--
	o.Location.Julia = fractal.JuliaParam{On: true, Re: fractal.MustDecimal("-0.8"), Im: fractal.MustDecimal("0.156")}
	if _, err := Recolour(context.Background(), raw, filepath.Join(dir, "x.png"), o); err == nil || !strings.Contains(err.Error(), "Julia set's parameter") {
		t.Errorf("a Julia view of a Mandelbrot raw file: %v", err)
	}
}

// writeRawFile writes an OpenEXR file with the raw file's channels (or chans), the header
// attributes given, and zero samples.
func writeRawFile(t testing.TB, w, h int, chans []exr.Channel, strs map[string]string, ints map[string]int32) []byte {
	f, err := os.CreateTemp(t.TempDir(), "raw-*.exr")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wr, err := exr.NewWriter(f, exr.Header{Width: w, Height: h, Channels: chans, Strings: strs, Ints: ints})
	if err != nil {
		t.Fatal(err)
	}
	var cols []any
	for _, c := range chans {
		if c.Type == exr.Uint {
			cols = append(cols, make([]uint32, w*h))
		} else {
			cols = append(cols, make([]float32, w*h))
		}
	}
	if err := wr.WriteLines(cols...); err != nil {
		t.Fatal(err)
	}
	if err := wr.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// smallRaw is a valid 3x2 raw file with 2x2 supersampling (6x4 samples).
func smallRaw(t testing.TB) []byte {
	h, err := rawHeader(testLoc(), 3, 2, 2, "t")
	if err != nil {
		t.Fatal(err)
	}
	return writeRawFile(t, h.Width, h.Height, h.Channels, h.Strings, h.Ints)
}

// TestReadRawHostile: raw files whose header lies get one-line errors naming what is wrong.
func TestReadRawHostile(t *testing.T) {
	good, err := rawHeader(testLoc(), 3, 2, 2, "t")
	if err != nil {
		t.Fatal(err)
	}
	type mod func(h *exr.Header)
	cases := []struct {
		name, want string
		m          mod
	}{
		{"size disagrees", "disagrees with the data window", func(h *exr.Header) { h.Ints[RawKeyWidth] = 4 }},
		{"supersample disagrees", "disagrees with the data window", func(h *exr.Header) { h.Ints[RawKeySupersample] = 1 }},
		{"supersample range", "out of range", func(h *exr.Header) { h.Ints[RawKeySupersample] = 6; h.Width, h.Height = 18, 12 }},
		{"negative size", "out of range", func(h *exr.Header) { h.Ints[RawKeyWidth] = -3 }},
		{"location does not parse", "mandelscope.location", func(h *exr.Header) { h.Strings[RawKeyLocation] = "re=x im=0" }},
		{"location out of range", "mandelscope.location", func(h *exr.Header) { h.Strings[RawKeyLocation] = "re=1e300 im=0 zoom=1" }},
		{"location missing", "mandelscope.location", func(h *exr.Header) { delete(h.Strings, RawKeyLocation) }},
		// Issue 31: a centre of 20,000 digits is too long, not "not a valid value".
		{"centre too long", "re: number of 20004 characters is too long (at most 12288)", func(h *exr.Header) {
			h.Strings[RawKeyLocation] = "re=-0." + strings.Repeat("1", 20000) + "9 im=0 zoom=1 iterations=200"
		}},
		{"iterations disagree", "disagrees", func(h *exr.Header) { h.Ints[RawKeyIterations] = 7 }},
		// Issue 39: attributes of ours that this version does not read are refused, not
		// ignored (a Julia parameter misspelt would be the Mandelbrot set), and so is a
		// density mark other than auto.
		{"unknown string attribute", `"mandelscope.juliA" is not a key this version reads`, func(h *exr.Header) { h.Strings["mandelscope.juliA"] = "0,1" }},
		{"unknown int attribute", `"Mandelscope.Width" is not a key this version reads`, func(h *exr.Header) { h.Ints["Mandelscope.Width"] = 3 }},
		{"density mark", `mandelscope.density.chosen is "maybe", not auto`, func(h *exr.Header) { h.Strings[RawKeyDensityChosen] = "maybe" }},
		{"no format", "not a Mandelscope raw file", func(h *exr.Header) { delete(h.Ints, RawKeyFormat) }},
		{"other format", "format 2", func(h *exr.Header) { h.Ints[RawKeyFormat] = 2 }},
		{"missing channel", "channels", func(h *exr.Header) { h.Channels = h.Channels[:3] }},
		{"channel type", "channels", func(h *exr.Header) {
			h.Channels = []exr.Channel{{Name: ChanN, Type: exr.Float}, {Name: ChanNF, Type: exr.Float}, {Name: ChanDEX, Type: exr.Float}, {Name: ChanDEY, Type: exr.Float}}
		}},
		{"extra channel", "channels", func(h *exr.Header) { h.Channels = append(h.Channels, exr.Channel{Name: "T", Type: exr.Float}) }},
		{"width missing", "mandelscope.width", func(h *exr.Header) { delete(h.Ints, RawKeyWidth) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := good
			h.Strings, h.Ints = map[string]string{}, map[string]int32{}
			for k, v := range good.Strings {
				h.Strings[k] = v
			}
			for k, v := range good.Ints {
				h.Ints[k] = v
			}
			h.Channels = append([]exr.Channel(nil), good.Channels...)
			c.m(&h)
			data := writeRawFile(t, h.Width, h.Height, h.Channels, h.Strings, h.Ints)
			path := filepath.Join(t.TempDir(), "h.exr")
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := OpenRaw(path)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("OpenRaw: %v, want one line with %q", err, c.want)
			}
			if _, err2 := ReadMetadata(path); err2 == nil || err2.Error() != err.Error() {
				t.Errorf("ReadMetadata: %v, want %v", err2, err)
			}
		})
	}
	// Cut files, and damage in the samples, found when read.
	data := smallRaw(t)
	for _, n := range []int{0, 3, 8, 100} {
		if _, err := readRaw(bytes.NewReader(data[:n]), int64(n)); err == nil {
			t.Errorf("a raw file cut to %d bytes was accepted", n)
		}
	}
	cut := data[:len(data)-1]
	raw, err := readRaw(bytes.NewReader(cut), int64(len(cut)))
	if err == nil {
		w, h := raw.Samples()
		err = raw.ReadSamples(colour.NewData(image.Rect(0, 0, w, h)), 0, h)
	}
	if err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("a raw file cut by a byte: %v, want a one-line error", err)
	}
	// Issue 31: the damage is named as such (ErrRawDamaged), with the lines it takes.
	var rd *RawReadError
	if !errors.Is(err, ErrRawDamaged) || !errors.As(err, &rd) || rd.First != 0 || rd.Lines != 4 || rd.Height != 4 ||
		!strings.Contains(err.Error(), "(1 missing)") {
		t.Errorf("a raw file cut by a byte: %v (%+v), want ErrRawDamaged in sample lines 0 to 3 of 4, 1 byte missing", err, rd)
	}
}

// FuzzRecolourInput feeds arbitrary bytes to the recolour's input path: reading and validating
// the raw file, then colouring all of it into a PNG (in memory). It must never panic, and
// what it accepts must be a valid view whose recolour succeeds or fails with an error.
func FuzzRecolourInput(f *testing.F) {
	good := smallRaw(f)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(exrMagic))
	f.Add([]byte("not an exr"))
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, err := readRaw(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if err := raw.Location.Validate(); err != nil {
			t.Fatalf("accepted an invalid location: %v", err)
		}
		w, h := raw.Samples()
		if int64(w)*int64(h) > 1<<16 {
			return // accepted and bounded by the file's size (exr's ratio limit), but slow to colour here
		}
		o := Options{Location: raw.Location, Width: raw.Width, Height: raw.Height, Supersample: raw.Supersample, Version: "t"}
		if _, err := Recolour(context.Background(), raw, filepath.Join(t.TempDir(), "fuzz.png"), o); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("error of more than one line: %q", err)
		}
	})
}

// TestRawRecordsAutoDensity: an automatic density is recorded in the raw file as the number
// drawn, so that recolour and --from draw what the PNG shows; the PNG records that number
// too, and that it was chosen automatically.
func TestRawRecordsAutoDensity(t *testing.T) {
	opt := rawOpts(1)
	opt.Location.Color.AutoDensity = true
	dir := t.TempDir()
	opt.Raw = filepath.Join(dir, "r.exr")
	sum, err := Export(context.Background(), &cpu.Renderer{}, filepath.Join(dir, "r.png"), opt)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := OpenRaw(opt.Raw)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	md, err := ReadMetadata(filepath.Join(dir, "r.png"))
	if err != nil {
		t.Fatal(err)
	}
	png := md.Location
	png.Color = drawnColour(png.Color)
	if raw.Location.Color.AutoDensity || !md.Location.Color.AutoDensity || raw.Location != png || raw.Location != sum.Location {
		t.Errorf("raw file's location %v, PNG's %v, drawn %v: want one density, automatic in the PNG only", raw.Location, md.Location, sum.Location)
	}
}

// Issue 31, item 7: a raw file whose samples no export writes (N above the iterations, NF,
// DEX or DEY infinite, NF or DEX not a number) is refused when read, in one line naming the
// sample, its pixel and the channel; the values an export does write (N at the iterations,
// NaN in DEY for an estimate without a normal, a negative NF below 1, inside) are read.
func TestRawImpossibleSamples(t *testing.T) {
	hd, err := rawHeader(testLoc(), 3, 2, 2, "t") // 6x4 samples, 400 iterations
	if err != nil {
		t.Fatal(err)
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	type sample struct {
		n           uint32
		nf, dex, de float32
	}
	write := func(s sample) *RawFile {
		const w, h = 6, 4
		n, nf := make([]uint32, w*h), make([]float32, w*h)
		dex, dey := make([]float32, w*h), make([]float32, w*h)
		n[0], nf[0], dex[0], dey[0] = RawInside, 0, 0, 0
		i := 2*w + 5 // sample (5, 2), pixel (2, 1)
		n[i], nf[i], dex[i], dey[i] = s.n, s.nf, s.dex, s.de
		path := filepath.Join(t.TempDir(), "s.exr")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		wr, err := exr.NewWriter(f, hd)
		if err == nil {
			err = wr.WriteLines(n, nf, dex, dey)
		}
		if err == nil {
			err = wr.Close()
		}
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		r, err := OpenRaw(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	read := func(r *RawFile) error {
		w, h := r.Samples()
		return r.ReadSamples(colour.NewData(image.Rect(0, 0, w, h)), 0, h)
	}
	for _, c := range []struct {
		s    sample
		want string
	}{
		{sample{402, 0.5, 1, 0}, "N 402 is above the file's 400 iterations"},
		{sample{RawInside - 1, 0.5, 1, 0}, "N 4294967294 is above"},
		{sample{12, nan, 1, 0}, "NF is NaN, not a number"},
		{sample{12, -inf, 1, 0}, "NF is -Inf, not a number"},
		{sample{12, 1.5, 1, 0}, "NF is 1.5 with N 12, outside 0 to 1"},
		{sample{12, 0.5, nan, 0}, "DEX is NaN, not a number"},
		{sample{12, 0.5, inf, 0}, "DEX is +Inf, not a number"},
		{sample{12, 0.5, 1, -inf}, "DEY is -Inf, not a number"},
		{sample{12, 0.5, -2, nan}, "DEX is -2 without a normal"},
		{sample{RawInside, 0, 2.5, 0.5}, "inside the set with period 2.5"},
		{sample{RawInside, 0, -1, 0}, "inside the set with period -1"},
		{sample{RawInside, 0, 3, 1.5}, "inside the set with multiplier 1.5"},
		{sample{RawInside, 0, 3, nan}, "inside the set with multiplier NaN"},
	} {
		err := read(write(c.s))
		var rd *RawReadError
		if err == nil || !strings.Contains(err.Error(), "sample (5, 2) of pixel (2, 1): "+c.want) || strings.Contains(err.Error(), "\n") ||
			!errors.As(err, &rd) || rd.First != 2 || rd.Lines != 1 || !errors.Is(err, ErrRawDamaged) {
			t.Errorf("%+v: %v, want one line naming sample (5, 2) of pixel (2, 1): %s", c.s, err, c.want)
		}
	}
	for _, s := range []sample{{400, 0.999, 3, 4}, {401, 0, 3, 4}, {0, -3.5, 0, 0}, {20, 0.25, 7, nan}, {0, 0, 0, 0}, {RawInside, 0, 7, 0.25}, {RawInside, 0, 0, 0}} {
		if err := read(write(s)); err != nil {
			t.Errorf("%+v, which an export may write: %v", s, err)
		}
	}
}

// TestRecolourInterior: a raw file keeps the inside's periods and multipliers whatever the
// export's colouring, so that recolouring it with the inside coloured by period or
// multiplier gives the PNG an export with that colouring gives, byte for byte.
func TestRecolourInterior(t *testing.T) {
	opt := rawOpts(1)
	opt.Location.Zoom = fractal.MustDecimal("1.3")
	opt.Width, opt.Height, opt.StripBytes = 90, 60, 4*90*13
	dir := t.TempDir()
	opt.Raw = filepath.Join(dir, "r.exr")
	if _, err := Export(context.Background(), &cpu.Renderer{}, filepath.Join(dir, "black.png"), opt); err != nil {
		t.Fatal(err)
	}
	raw, err := OpenRaw(opt.Raw)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, in := range []string{colour.InteriorPeriod, colour.InteriorMultiplier} {
		o := Options{Location: raw.Location, Supersample: 1, Width: 90, Height: 60, Version: "t"}
		o.Location.Color.Interior = in
		out := filepath.Join(t.TempDir(), "c.png")
		if _, err := Recolour(context.Background(), raw, out, o); err != nil {
			t.Fatal(err)
		}
		want, _ := export(t, t.TempDir(), o)
		sameFile(t, out, want)
		if md, err := ReadMetadata(out); err != nil || md.Location.Color.Interior != in {
			t.Errorf("%s: the PNG records interior %q (%v)", in, md.Location.Color.Interior, err)
		}
		if bytes.Equal(readPNG(t, out).Pix, readPNG(t, filepath.Join(dir, "black.png")).Pix) {
			t.Errorf("%s: the recoloured PNG is the black inside's", in)
		}
	}
}
