package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/adler32"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/internal/pngverify"
	"mandelscope/render/cpu"
)

func testLoc() fractal.Location {
	l := fractal.Home()
	l.Re = fractal.MustDecimal("-0.7453")
	l.Im = fractal.MustDecimal("0.1127")
	l.Zoom = fractal.MustDecimal("180")
	l.Iterations = 400
	return l
}

// oneTile renders frame f in one piece with the CPU renderer.
func oneTile(t testing.TB, f fractal.Frame) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
	if err := (&cpu.Renderer{}).Render(context.Background(), f, img.Bounds(), img); err != nil {
		t.Fatal(err)
	}
	return img
}

func samePixels(t *testing.T, got, want *image.RGBA) {
	t.Helper()
	if got.Bounds().Size() != want.Bounds().Size() {
		t.Fatalf("size %v, want %v", got.Bounds().Size(), want.Bounds().Size())
	}
	w, h := want.Bounds().Dx(), want.Bounds().Dy()
	bad := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a, b := got.RGBAAt(x, y), want.RGBAAt(x, y)
			if a != b {
				if bad < 5 {
					t.Errorf("pixel (%d,%d) = %v, want %v", x, y, a, b)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d pixels differ", bad, w*h)
	}
}

func export(t *testing.T, dir string, opt Options) (string, Summary) {
	t.Helper()
	path := filepath.Join(dir, "out.png")
	if opt.Version == "" {
		opt.Version = "test"
	}
	sum, err := Export(context.Background(), &cpu.Renderer{}, path, opt)
	if err != nil {
		t.Fatal(err)
	}
	return path, sum
}

func TestAdlerCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 65520, 65521, 65522, 200000} {
		a := make([]byte, rng.IntN(100000))
		b := make([]byte, n)
		for i := range a {
			a[i] = byte(rng.Uint32())
		}
		for i := range b {
			b[i] = 0xff - byte(rng.IntN(3))
		}
		want := adler32.Checksum(append(append([]byte{}, a...), b...))
		if got := adlerCombine(adler32.Checksum(a), adler32.Checksum(b), int64(len(b))); got != want {
			t.Errorf("len %d+%d: combine = %08x, want %08x", len(a), len(b), got, want)
		}
	}
}

// TestExportMatchesOnePiece: many strips of odd heights, 61-pixel tiles, a non-square size;
// image/png decodes the file to exactly the pixels of a one-piece render.
func TestExportMatchesOnePiece(t *testing.T) {
	const w, h = 203, 117
	for _, tc := range []struct{ tile, stripBytes int }{{61, 4 * w * 13}, {1 << 16, 0}, {16, 4 * w * 1}} {
		t.Run(fmt.Sprintf("tile%d-strip%d", tc.tile, tc.stripBytes), func(t *testing.T) {
			path, sum := export(t, t.TempDir(), Options{Location: testLoc(), Width: w, Height: h, Tile: tc.tile, StripBytes: tc.stripBytes})
			if tc.stripBytes != 0 && sum.Strips < 5 {
				t.Fatalf("only %d strips: the test means to cut the image", sum.Strips)
			}
			want := oneTile(t, fractal.NewFrame(testLoc(), w, h))
			samePixels(t, imagetest.Decode(t, path), want)
			if _, err := os.Stat(PartPath(path)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf(".part left behind: %v", err)
			}
			if _, err := os.Stat(CheckpointPath(path)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("checkpoint left behind: %v", err)
			}
		})
	}
}

// TestSupersample: N x N supersampling equals the frame rendered N times bigger, averaged.
func TestSupersample(t *testing.T) {
	const w, h = 97, 53
	for _, n := range []int{2, 3, 4} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			path, _ := export(t, t.TempDir(), Options{Location: testLoc(), Width: w, Height: h, Supersample: n, Tile: 50, StripBytes: 4 * w * n * n * 7})
			big := oneTile(t, fractal.NewFrame(testLoc(), w*n, h*n))
			want := image.NewRGBA(image.Rect(0, 0, w, h))
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					var s [3]int
					for dy := 0; dy < n; dy++ {
						for dx := 0; dx < n; dx++ {
							c := big.RGBAAt(x*n+dx, y*n+dy)
							s[0] += int(c.R)
							s[1] += int(c.G)
							s[2] += int(c.B)
						}
					}
					nn := n * n
					want.Pix[want.PixOffset(x, y)+0] = byte((s[0] + nn/2) / nn)
					want.Pix[want.PixOffset(x, y)+1] = byte((s[1] + nn/2) / nn)
					want.Pix[want.PixOffset(x, y)+2] = byte((s[2] + nn/2) / nn)
					want.Pix[want.PixOffset(x, y)+3] = 255
				}
			}
			samePixels(t, imagetest.Decode(t, path), want)
			md, err := ReadMetadata(path)
			if err != nil {
				t.Fatal(err)
			}
			if md.Supersample != n {
				t.Errorf("metadata supersample %d, want %d", md.Supersample, n)
			}
		})
	}
}

func TestMetadataRoundTrip(t *testing.T) {
	loc := testLoc()
	loc.Re = fractal.MustDecimal("-0.743643887037158704752191506114774000000000000000000000000001")
	loc.Im = fractal.MustDecimal("0.131825904205311970493132056385139000000000000000000000000002")
	loc.Zoom = fractal.MustDecimal("2.5e3")
	loc.Iterations = 321
	loc.Color = colour.Coloring{Palette: colour.PaletteNames()[0], Density: 0.37, Offset: 0.25}
	path, _ := export(t, t.TempDir(), Options{Location: loc, Width: 64, Height: 40, Supersample: 2, Version: "9.9.9"})
	md, err := ReadMetadata(path)
	if err != nil {
		t.Fatal(err)
	}
	if md.Location.String() != loc.String() {
		t.Errorf("location\n got %s\nwant %s", md.Location, loc)
	}
	if !md.Location.Re.Equal(loc.Re) || len(loc.Re.String()) < 60 {
		t.Errorf("centre digits not exact: %s", md.Location.Re)
	}
	if md.Width != 64 || md.Height != 40 || md.Supersample != 2 || md.Version != "9.9.9" {
		t.Errorf("got %dx%d ss %d version %q", md.Width, md.Height, md.Supersample, md.Version)
	}
	if !strings.Contains(md.Text["Description"], "Mandelbrot") {
		t.Errorf("Description %q", md.Text["Description"])
	}
}

func TestReadMetadataErrors(t *testing.T) {
	dir := t.TempDir()
	notPNG := filepath.Join(dir, "a.png")
	os.WriteFile(notPNG, []byte("hello, world"), 0o644)
	if _, err := ReadMetadata(notPNG); !errors.Is(err, ErrNotPNG) {
		t.Errorf("text file: %v, want ErrNotPNG", err)
	}
	plain := filepath.Join(dir, "b.png")
	var buf bytes.Buffer
	png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 3, 2)))
	os.WriteFile(plain, buf.Bytes(), 0o644)
	if _, err := ReadMetadata(plain); !errors.Is(err, ErrNotMandelscope) {
		t.Errorf("plain PNG: %v, want ErrNotMandelscope", err)
	}
	if _, err := ReadMetadata(filepath.Join(dir, "missing.png")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// TestVerifyAndPngcheck: the streaming verifier and pngcheck (when installed) accept an
// export; the verifier's rows equal image/png's; a flipped byte and a cut file are caught.
func TestVerifyAndPngcheck(t *testing.T) {
	const w, h = 640, 371
	path, _ := export(t, t.TempDir(), Options{Location: testLoc(), Width: w, Height: h, StripBytes: 4 * w * 50})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := imagetest.Decode(t, path)
	rows := 0
	info, err := pngverify.Verify(bytes.NewReader(data), func(y int, rgb []byte) {
		rows++
		for x := 0; x < w; x++ {
			c := want.RGBAAt(x, y)
			if rgb[3*x] != c.R || rgb[3*x+1] != c.G || rgb[3*x+2] != c.B {
				t.Fatalf("verifier row %d pixel %d differs", y, x)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows != h || info.Width != w || info.Height != h || info.Raw != int64(h*(3*w+1)) {
		t.Errorf("verify: %d rows, info %+v", rows, info)
	}
	if pc, err := exec.LookPath("pngcheck"); err == nil {
		out, err := exec.Command(pc, "-v", path).CombinedOutput()
		if err != nil {
			t.Errorf("pngcheck rejects the export: %v\n%s", err, out)
		}
	} else {
		t.Log("pngcheck not installed; skipped")
	}
	for _, at := range []int{len(data) / 2, 20, len(data) - 10} {
		bad := bytes.Clone(data)
		bad[at] ^= 0x40
		if _, err := pngverify.Verify(bytes.NewReader(bad), nil); err == nil {
			t.Errorf("a byte flipped at %d of %d passes the verifier", at, len(data))
		}
	}
	if _, err := pngverify.Verify(bytes.NewReader(data[:len(data)-30]), nil); err == nil {
		t.Error("a truncated file passes the verifier")
	}
}

// TestCancelLeavesNoFile: a cancel between strips leaves no FILE.png, keeps the .part and its
// checkpoint (and says so), a plain export then refuses to replace them, and a resume gives
// the bytes of an uninterrupted export.
func TestCancelLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.png")
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	opt := Options{Location: testLoc(), Width: 300, Height: 200, StripBytes: 4 * 300 * 10, Version: "t",
		Progress: func(Progress) {
			n++
			if n == 3 {
				cancel()
			}
		}}
	_, err := Export(ctx, &cpu.Renderer{}, path, opt)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	var ee *Error
	if !errors.As(err, &ee) || !ee.Kept || !strings.Contains(err.Error(), "kept") {
		t.Errorf("error does not say the .part is kept: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("FILE.png exists after cancel")
	}
	for _, p := range []string{PartPath(path), CheckpointPath(path)} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not kept: %v", p, err)
		}
	}
	// Without --resume the .part is not silently replaced.
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, opt); !errors.Is(err, ErrUnfinished) {
		t.Errorf("a fresh export over a .part: %v, want ErrUnfinished", err)
	}
	// Resume after a cancel gives the same file as one go.
	opt.Progress, opt.Resume = nil, true
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, opt); err != nil {
		t.Fatal(err)
	}
	whole, _ := export(t, t.TempDir(), Options{Location: testLoc(), Width: 300, Height: 200, StripBytes: 4 * 300 * 10, Version: "t"})
	sameFile(t, path, whole)
}

func sameFile(t *testing.T, a, b string) {
	t.Helper()
	da, err1 := os.ReadFile(a)
	db, err2 := os.ReadFile(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !bytes.Equal(da, db) {
		t.Fatalf("%s (%d bytes) and %s (%d bytes) differ", a, len(da), b, len(db))
	}
}

// TestResumeByteIdentical: stop after k strips (as if killed), resume, compare bytes with an
// uninterrupted export; with supersampling too.
func TestResumeByteIdentical(t *testing.T) {
	type run struct {
		ss, k int
		col   string // a colouring method ("": the default)
	}
	runs := []run{{1, 1, ""}, {1, 4, ""}, {2, 1, ""}, {2, 4, ""},
		{1, 4, colour.MethodDistance}, {2, 1, colour.MethodSlopes}}
	for _, r := range runs {
		ss, k := r.ss, r.k
		t.Run(fmt.Sprintf("ss%d-after%d%s", ss, k, r.col), func(t *testing.T) {
			dir := t.TempDir()
			loc := testLoc()
			loc.Color.Method, loc.Color.Transfer = r.col, ""
			if r.col != "" {
				loc.Color.Transfer = colour.TransferSqrt
			}
			base := Options{Location: loc, Width: 211, Height: 143, Supersample: ss, Tile: 77, StripBytes: 4 * 211 * ss * ss * 17, Version: "t"}
			whole, sum := export(t, t.TempDir(), base)
			path := filepath.Join(dir, "r.png")
			stop := base
			stop.stopAfter = k
			_, err := Export(context.Background(), &cpu.Renderer{}, path, stop)
			if !errors.Is(err, ErrInterrupted) {
				t.Fatalf("stopped export: %v", err)
			}
			if _, err := os.Stat(path); err == nil {
				t.Fatal("FILE.png exists after a kill")
			}
			res := base
			res.Resume = true
			rs, err := Export(context.Background(), &cpu.Renderer{}, path, res)
			if err != nil {
				t.Fatal(err)
			}
			if rs.Resumed != k {
				t.Errorf("resumed from strip %d, want %d (of %d)", rs.Resumed, k, sum.Strips)
			}
			sameFile(t, path, whole)
		})
	}
}

func TestResumeRefusals(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.png")
	opt := Options{Location: testLoc(), Width: 120, Height: 90, StripBytes: 4 * 120 * 9, Version: "t", Resume: true}
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, opt); !errors.Is(err, ErrNothingToResume) || !errors.Is(err, ErrCannotResume) {
		t.Errorf("resume with nothing to resume: %v", err)
	}
	opt.Resume, opt.stopAfter = false, 2
	Export(context.Background(), &cpu.Renderer{}, path, opt)
	other := opt
	other.stopAfter, other.Resume = 0, true
	lit := other
	lit.Location.Color.Method = colour.MethodSlopes
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, lit); !errors.Is(err, ErrParamsDiffer) {
		t.Errorf("resume in another colouring: %v", err)
	}
	// Another gradient (even under the palette's own name, with one stop changed) is refused.
	for _, grad := range []string{"#000764,#206BCB,#EDFFFF,#FFAA00,#000200", "#000764,#206BCB,#EDFFFF,#FFAA00,#000201"} {
		g := other
		g.Location.Color = g.Location.Color.WithGradient("classic", mustGradient(t, grad))
		if _, err := Export(context.Background(), &cpu.Renderer{}, path, g); !errors.Is(err, ErrParamsDiffer) {
			t.Errorf("resume in gradient %s: %v", grad, err)
		}
	}
	other.Location.Iterations++
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, other); !errors.Is(err, ErrParamsDiffer) || !strings.Contains(err.Error(), "different parameters") {
		t.Errorf("resume with other parameters: %v", err)
	}
	// --force starts over.
	other.Resume, other.Overwrite = false, true
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, other); err != nil {
		t.Errorf("force over a .part: %v", err)
	}
	// An existing output is never replaced without Overwrite.
	other.Overwrite = false
	before, _ := os.ReadFile(path)
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, other); !errors.Is(err, ErrExists) {
		t.Errorf("export over an existing file: %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Error("existing file changed")
	}
}

// TestFullDiskWriter: a disk that fills at any point of a fresh export gives ErrNoSpace
// naming the folder, and leaves no file: neither the PNG nor its .part or checkpoint.
func TestFullDiskWriter(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "full.png")
	for _, limit := range []int{10, 3000, 20000} {
		opt := Options{Location: testLoc(), Width: 300, Height: 200, StripBytes: 4 * 300 * 10, Version: "t",
			wrapPart: func(s sink) sink { return &diskFiller{sink: s, limit: limit} }}
		_, err := Export(context.Background(), &cpu.Renderer{}, path, opt)
		if err == nil || !strings.Contains(err.Error(), "no space left on "+dir) {
			t.Errorf("limit %d: %v", limit, err)
		}
		for _, p := range []string{path, PartPath(path), CheckpointPath(path)} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("limit %d: %s exists", limit, p)
			}
		}
	}
}

// TestFullDiskTmpfs writes to a real 2 MB tmpfs (root only; skipped where mount fails).
func TestFullDiskTmpfs(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	path := filepath.Join(dir, "big.png")
	opt := Options{Location: testLoc(), Width: 2000, Height: 1500, Level: -2, Version: "t"} // Huffman only: ~ several MB
	_, err := Export(context.Background(), &cpu.Renderer{}, path, opt)
	if err == nil || !strings.Contains(err.Error(), "no space left on "+dir) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "removed") {
		t.Errorf("message does not say what became of the .part: %v", err)
	}
	for _, p := range []string{path, PartPath(path)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists", p)
		}
	}
}

func TestPlan(t *testing.T) {
	for _, tc := range []struct{ w, h, n int }{{30720, 17280, 1}, {30720, 17280, 4}, {7680, 4320, 2}, {65536, 3, 4}, {1, 1, 1}} {
		p, err := newStripPlan(tc.w, tc.h, tc.n, 4096, 0)
		if err != nil {
			t.Fatal(err)
		}
		buf := int64(p.StripRows) * int64(4*tc.w*tc.n*tc.n)
		if buf > 2*DefaultStripBytes && p.StripRows > 1 {
			t.Errorf("%dx%d x%d: strip buffer %d bytes", tc.w, tc.h, tc.n, buf)
		}
		rows := 0
		for k := 0; k < p.Strips; k++ {
			y0, y1 := p.Strip(k)
			if y0 != rows || y1 <= y0 {
				t.Fatalf("strip %d = [%d,%d)", k, y0, y1)
			}
			rows = y1
			for _, r := range p.Tiles(k) {
				if r.Dx() > p.Tile || r.Dy() > p.Tile {
					t.Fatalf("tile %v over %d", r, p.Tile)
				}
			}
		}
		if rows != tc.h {
			t.Errorf("strips cover %d rows of %d", rows, tc.h)
		}
	}
	for _, bad := range [][3]int{{0, 5, 1}, {5, 5, 0}, {5, 5, 5}} {
		if _, err := newStripPlan(bad[0], bad[1], bad[2], 64, 0); err == nil {
			t.Errorf("newStripPlan%v accepted", bad)
		}
	}
	if _, err := newStripPlan(5, 5, 1, 15, 0); err == nil {
		t.Error("tile 15 accepted")
	}
}

// patternRenderer draws a deterministic pattern from global pixel coordinates, fast, so that
// big exports test the strip, tile and compression machinery rather than the fractal.
type patternRenderer struct{ tile int }

func patternAt(x, y int) (r, g, b byte) {
	h := uint32(x)*2654435761 ^ uint32(y)*40503
	return byte(x >> 3), byte(y>>2) ^ byte(x>>9), byte(h>>13) & 0x0f
}

func (p patternRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		row := dst.Pix[(y-rect.Min.Y)*dst.Stride:]
		for x := rect.Min.X; x < rect.Max.X; x++ {
			r, g, b := patternAt(x, y)
			i := 4 * (x - rect.Min.X)
			row[i], row[i+1], row[i+2], row[i+3] = r, g, b, 255
		}
	}
	return nil
}
func (p patternRenderer) MaxTile() int { return p.tile }
func (p patternRenderer) Name() string { return "pattern" }

// TestBigExportStreamingVerify: a 6000x4100 export (many strips, tiles of 1000) checked row by
// row by the streaming verifier, never decoded whole.
func TestBigExportStreamingVerify(t *testing.T) {
	if testing.Short() {
		t.Skip("writes ~25 Mpx")
	}
	const w, h = 6000, 4100
	path := filepath.Join(t.TempDir(), "big.png")
	sum, err := Export(context.Background(), patternRenderer{1000}, path, Options{Location: testLoc(), Width: w, Height: h, Version: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Strips < 10 || sum.Tiles < 6*sum.Strips {
		t.Errorf("%d strips, %d tiles", sum.Strips, sum.Tiles)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bad := 0
	info, err := pngverify.Verify(f, func(y int, rgb []byte) {
		for x := 0; x < w; x++ {
			r, g, b := patternAt(x, y)
			if rgb[3*x] != r || rgb[3*x+1] != g || rgb[3*x+2] != b {
				bad++
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if bad > 0 || info.Height != h || info.Raw != int64(h)*(3*w+1) {
		t.Fatalf("%d bad rows, info %+v", bad, info)
	}
	if pc, err := exec.LookPath("pngcheck"); err == nil {
		if out, err := exec.Command(pc, path).CombinedOutput(); err != nil {
			t.Errorf("pngcheck: %v\n%s", err, out)
		}
	}
}

// TestEncodeSplitsIDAT: a block bigger than maxIDAT is split over IDAT chunks; image/png and
// the verifier read it back.
func TestEncodeSplitsIDAT(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1700, 1100))
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.Uint32())
	}
	var buf bytes.Buffer
	if err := encode(&buf, img, []Text{{"Comment", "noise"}}); err != nil {
		t.Fatal(err)
	}
	info, err := pngverify.Verify(bytes.NewReader(buf.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.IDATChunks < 3 || info.Text["Comment"] != "noise" {
		t.Errorf("info %+v", info)
	}
	dec, err := png.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []image.Point{{0, 0}, {1699, 1099}, {850, 550}} {
		r, g, b, _ := dec.At(p.X, p.Y).RGBA()
		c := img.RGBAAt(p.X, p.Y)
		if byte(r>>8) != c.R || byte(g>>8) != c.G || byte(b>>8) != c.B {
			t.Errorf("pixel %v differs", p)
		}
	}
}

// TestEdgeSizes: one-pixel-wide and one-row images, and supersampling of a tiny image.
func TestEdgeSizes(t *testing.T) {
	for _, tc := range []struct{ w, h, n int }{{1, 1, 1}, {1, 300, 1}, {300, 1, 1}, {17, 16, 4}, {2, 3, 3}} {
		t.Run(fmt.Sprintf("%dx%dx%d", tc.w, tc.h, tc.n), func(t *testing.T) {
			path, _ := export(t, t.TempDir(), Options{Location: testLoc(), Width: tc.w, Height: tc.h, Supersample: tc.n, Tile: 16})
			got := imagetest.Decode(t, path)
			if got.Bounds().Dx() != tc.w || got.Bounds().Dy() != tc.h {
				t.Fatalf("size %v", got.Bounds())
			}
			if tc.n == 1 {
				samePixels(t, got, oneTile(t, fractal.NewFrame(testLoc(), tc.w, tc.h)))
			}
		})
	}
}

// encode writes img (whole, in one piece) as an RGB PNG with text chunks, through the same
// filter and compression as Export. For the tests.
func encode(w io.Writer, img *image.RGBA, text []Text) error {
	b := img.Bounds()
	if b.Empty() {
		return errors.New("png: empty image")
	}
	if b.Min != (image.Point{}) {
		img = &image.RGBA{Pix: img.Pix[img.PixOffset(b.Min.X, b.Min.Y):], Stride: img.Stride, Rect: image.Rect(0, 0, b.Dx(), b.Dy())}
	}
	p, err := newPNGWriter(w, b.Dx(), b.Dy(), text)
	if err != nil {
		return err
	}
	c, err := newBlockCompressor(DefaultLevel)
	if err != nil {
		return err
	}
	out, adler, raw, err := c.compress(img, 1, b.Dx(), 0, b.Dy())
	if err != nil {
		return err
	}
	if err := p.WriteBlock(out, adler, raw); err != nil {
		return err
	}
	return p.Close()
}

func mustGradient(t *testing.T, text string) colour.Gradient {
	t.Helper()
	g, err := colour.ParseGradientText(text)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestExportGradient: a gradient by value travels through the text chunks exactly, draws
// what its stops say (a built-in palette's stops under another name draw that palette's
// pixels), and a resume in it is byte-identical.
func TestExportGradient(t *testing.T) {
	loc := testLoc()
	pal, _ := colour.PaletteByName(loc.Color.Palette)
	same := loc
	same.Color = same.Color.WithGradient("copy", colour.Gradient{Stops: pal.Stops})
	a, _ := export(t, t.TempDir(), Options{Location: loc, Width: 97, Height: 61, Version: "t"})
	b, _ := export(t, t.TempDir(), Options{Location: same, Width: 97, Height: 61, Version: "t"})
	ia, ib := imagetest.Decode(t, a), imagetest.Decode(t, b)
	if !bytes.Equal(ia.Pix, ib.Pix) {
		t.Error("the built-in palette's stops by value draw other pixels than the palette")
	}
	// The file records the density drawn (1), and that it was chosen automatically.
	md, err := ReadMetadata(b)
	if err != nil || md.Location != same {
		t.Fatalf("read back %+v, %v; wrote %+v", md.Location.Color, err, same.Color)
	}
	if md, _ := ReadMetadata(a); md.Text[KeyGradient] != "" {
		t.Error("a built-in palette's export writes a gradient")
	}
	// Positioned stops: stored, drawn differently, resumed byte for byte.
	loc.Color = loc.Color.WithGradient("sunset", mustGradient(t, "0:#1A0A3C,0.4:#E0503C,0.4:#FFD070,1:#1A0A3C"))
	base := Options{Location: loc, Width: 97, Height: 61, StripBytes: 4 * 97 * 11, Version: "t"}
	whole, sum := export(t, t.TempDir(), base)
	if sum.Strips < 4 {
		t.Fatalf("%d strips: the test means to stop after two", sum.Strips)
	}
	if bytes.Equal(imagetest.Decode(t, whole).Pix, ia.Pix) {
		t.Error("the gradient did not change the picture")
	}
	path := filepath.Join(t.TempDir(), "g.png")
	stop := base
	stop.stopAfter = 2
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, stop); !errors.Is(err, ErrInterrupted) {
		t.Fatal(err)
	}
	res := base
	res.Resume = true
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
		t.Fatal(err)
	}
	sameFile(t, path, whole)
	md, err = ReadMetadata(path)
	if err != nil || md.Location != loc { // the density drawn (1), chosen automatically
		t.Fatalf("read back %+v, %v", md.Location.Color, err)
	}
	loc.Color.AutoDensity = false
	// A damaged gradient chunk is refused, naming what is wrong.
	var text []Text
	for _, tx := range MetadataText(loc, 10, 10, 1, "t") {
		if tx.Key == KeyGradient {
			tx.Value = "0:#1A0A3C,0.4:#E0503C,0.3:#FFD070"
		}
		text = append(text, tx)
	}
	_, err = ReadMetadata(writeMetadataPNG(t, t.TempDir(), "bad.png", 10, 10, text))
	if err == nil || !strings.Contains(err.Error(), "position 0.3 comes before") {
		t.Errorf("damaged gradient: %v", err)
	}
}
