package export

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/deeptest"
	"mandelscope/internal/imagetest"
	"mandelscope/render/cpu"
)

// renderOnly is a renderer that draws but does not compute samples (as the GL renderer did
// before it could).
type renderOnly struct{ r *cpu.Renderer }

func (r renderOnly) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	return r.r.Render(ctx, f, rect, dst)
}
func (r renderOnly) MaxTile() int { return r.r.MaxTile() }
func (r renderOnly) Name() string { return r.r.Name() }

// failingComputer fails every Compute, counting them.
type failingComputer struct{ calls *int }

func (c failingComputer) Compute(context.Context, fractal.Frame, image.Rectangle, *colour.Data) error {
	*c.calls++
	return errors.New("no")
}

func TestDensitySampleSize(t *testing.T) {
	for _, c := range []struct{ w, h, sw, sh int }{
		{1920, 1080, 96, 54}, {1080, 1920, 54, 96}, {400, 400, 96, 96}, {30720, 17280, 96, 54},
		{10000, 1, 96, 1}, {1, 10000, 1, 96}, {64, 47, 16, 12}, {3, 2, 1, 1}, {0, 0, 1, 1},
	} {
		if sw, sh := densitySampleSize(c.w, c.h); sw != c.sw || sh != c.sh {
			t.Errorf("%dx%d: sample %dx%d, want %dx%d", c.w, c.h, sw, sh, c.sw, c.sh)
		}
	}
}

func TestResolveDensity(t *testing.T) {
	// An explicit density computes nothing.
	calls := 0
	ex := testLoc()
	ex.Color.AutoDensity, ex.Color.Density = false, 3
	if got, err := ResolveDensity(context.Background(), failingComputer{&calls}, ex, 300, 200, nil); err != nil || got != ex || calls != 0 {
		t.Errorf("explicit: %+v, %v, %d computes", got.Color, err, calls)
	}
	// The computer's error comes back, the location unchanged.
	if got, err := ResolveDensity(context.Background(), failingComputer{&calls}, testLoc(), 300, 200, nil); err == nil || got != testLoc() || calls != 1 {
		t.Errorf("failing computer: %+v, %v, %d computes", got.Color, err, calls)
	}
	// A shallow view resolves to 1, explicit; the rest of the location is as it was.
	got, err := ResolveDensity(context.Background(), &cpu.Renderer{}, testLoc(), 300, 200, &fractal.ReferenceCache{})
	want := testLoc()
	want.Color.AutoDensity = false
	if err != nil || got != want {
		t.Errorf("shallow view: %+v, %v", got.Color, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ResolveDensity(ctx, &cpu.Renderer{}, deepLoc(t, "p8007"), 300, 200, &fractal.ReferenceCache{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// deepLoc is deeptest.Location.
func deepLoc(t testing.TB, name string) fractal.Location { return deeptest.Location(t, name) }

// pngChunk is one chunk of a PNG file: its type and data.
type pngChunk struct{ typ, data string }

// readChunks reads every chunk of the (small) PNG at path, checking its framing.
func readChunks(t *testing.T, path string) []pngChunk {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte(pngSignature)) {
		t.Fatalf("%s is not a PNG", path)
	}
	var out []pngChunk
	for b = b[len(pngSignature):]; len(b) > 0; {
		if len(b) < 12 {
			t.Fatalf("%s: %d bytes left over", path, len(b))
		}
		n := int(binary.BigEndian.Uint32(b))
		if len(b) < 12+n {
			t.Fatalf("%s: a chunk of %d bytes with %d left", path, n, len(b)-12)
		}
		out = append(out, pngChunk{string(b[4:8]), string(b[8 : 8+n])})
		b = b[12+n:]
	}
	return out
}

// trailerChunk is the chunk an export whose density was chosen automatically writes after
// its image data.
var trailerChunk = pngChunk{"tEXt", KeyDensityChosen + "\x00auto"}

// sameButAuto checks that the PNG at auto is the one at explicit (an export of the density
// auto resolved to), chunk for chunk, but for trailerChunk after the image data: the header,
// text and image data the same, auto's last two chunks trailerChunk and IEND.
func sameButAuto(t *testing.T, auto, explicit string) {
	t.Helper()
	a, e := readChunks(t, auto), readChunks(t, explicit)
	if len(a) != len(e)+1 || len(a) < 3 || a[len(a)-2] != trailerChunk {
		t.Fatalf("%s (%d chunks) is not %s (%d chunks) with the auto chunk before IEND", auto, len(a), explicit, len(e))
	}
	if !slices.Equal(append(a[:len(a)-2:len(a)-2], a[len(a)-1]), e) {
		t.Fatalf("%s and %s differ beyond the auto chunk", auto, explicit)
	}
	if slices.Contains(e, trailerChunk) {
		t.Fatalf("%s, of an explicit density, has the auto chunk", explicit)
	}
}

// TestExportAutoDensityShallow: at a shallow view the automatic density is 1, and the export
// is the one with density 1 given, chunk for chunk, but for the chunk after the image data
// that says the density was chosen automatically: opened, it is automatic again.
func TestExportAutoDensityShallow(t *testing.T) {
	auto := testLoc()
	if !auto.Color.AutoDensity {
		t.Fatal("the test view's density is not automatic")
	}
	explicit := auto
	explicit.Color.AutoDensity = false
	a, sum := export(t, t.TempDir(), Options{Location: auto, Width: 120, Height: 80})
	b, _ := export(t, t.TempDir(), Options{Location: explicit, Width: 120, Height: 80})
	sameButAuto(t, a, b)
	if sum.Location != explicit {
		t.Errorf("summary's location %+v, want %+v", sum.Location.Color, explicit.Color)
	}
	md, err := ReadMetadata(a)
	if err != nil || md.Location != auto || md.Text[KeyDensity] != "1" {
		t.Errorf("auto's metadata %+v (density %q), %v", md.Location.Color, md.Text[KeyDensity], err)
	}
	md, err = ReadMetadata(b)
	if err != nil || md.Location != explicit {
		t.Errorf("explicit's metadata %+v, %v", md.Location.Color, err)
	}
	// Both decode to the same image.
	if !bytes.Equal(imagetest.Decode(t, a).Pix, imagetest.Decode(t, b).Pix) {
		t.Error("the images differ")
	}
}

// TestExportAutoDensityDeep: at a deep view whose counts spread over tens of thousands of
// iterations the export chooses a density from its sample of the view, draws it, records it
// (explicit) in the file, and the file's own view (--from) draws the same bytes.
func TestExportAutoDensityDeep(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a deep view (run without -short and the race detector)")
	}
	const w, h = 384, 216 // a 96x54 sample
	loc := deepLoc(t, "p8007")
	path, sum := export(t, t.TempDir(), Options{Location: loc, Width: w, Height: h})
	d := sum.Location.Color.Density
	if sum.Location.Color.AutoDensity || !(d >= 1.0/512 && d <= 0.01) { // 1/512: the neighbouring samples' bound (colour.AutoDensityOf)
		t.Fatalf("resolved to %+v", sum.Location.Color)
	}
	md, err := ReadMetadata(path)
	opened := sum.Location
	opened.Color.AutoDensity = true // automatic again, from the number drawn
	if err != nil || md.Location != opened {
		t.Fatalf("metadata %+v, %v; drew %+v", md.Location.Color, err, sum.Location.Color)
	}
	again, _ := export(t, t.TempDir(), Options{Location: md.Location, Width: md.Width, Height: md.Height})
	sameFile(t, path, again)
	drawn, _ := export(t, t.TempDir(), Options{Location: sum.Location, Width: w, Height: h})
	sameButAuto(t, path, drawn)
	// A renderer that cannot compute samples, and no sampler: drawn at the Density held (1),
	// recorded as that.
	other := filepath.Join(t.TempDir(), "o.png")
	sum, err = Export(context.Background(), renderOnly{&cpu.Renderer{}}, other, Options{Location: loc, Width: w, Height: h, Version: "test"})
	if err != nil || sum.Location.Color.AutoDensity || sum.Location.Color.Density != 1 {
		t.Fatalf("render-only renderer: %+v, %v", sum.Location.Color, err)
	}
	// ... and with a sampler, the same choice as the CPU renderer's own.
	sum, err = Export(context.Background(), renderOnly{&cpu.Renderer{}}, other, Options{Location: loc, Width: w, Height: h, Version: "test", Sampler: &cpu.Renderer{}, Overwrite: true})
	if err != nil || sum.Location.Color != drawnColour(md.Location.Color) {
		t.Fatalf("with a sampler: %+v, %v", sum.Location.Color, err)
	}
	sameFile(t, other, path)
}

// drawnColour is c with its density explicit: the number an automatic one was drawn at.
func drawnColour(c colour.Coloring) colour.Coloring {
	c.AutoDensity = false
	return c
}

// TestResumeAutoDensity: an interrupted export resumed with an automatic density continues
// with the density its checkpoint records (the first run's), byte for byte but for the chunk
// after the image data that says the density was chosen automatically; with another
// explicit density it is refused, naming the density.
func TestResumeAutoDensity(t *testing.T) {
	loc := testLoc()
	loc.Color.AutoDensity, loc.Color.Density = false, 0.25 // as if the first run chose 1/4
	base := Options{Location: loc, Width: 150, Height: 100, Tile: 64, StripBytes: 4 * 150 * 10, Version: "t"}
	whole, _ := export(t, t.TempDir(), base)
	path := filepath.Join(t.TempDir(), "r.png")
	stop := base
	stop.stopAfter = 2
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, stop); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("stopped export: %v", err)
	}
	other := base
	other.Resume = true
	other.Location.Color.Density = 0.5
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, other); !errors.Is(err, ErrParamsDiffer) || !strings.Contains(err.Error(), "density") {
		t.Errorf("resume at another density: %v", err)
	}
	res := base
	res.Resume = true
	res.Location = testLoc() // automatic: a fresh choice would be 1
	sum, err := Export(context.Background(), &cpu.Renderer{}, path, res)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Resumed != 2 || sum.Location.Color != loc.Color {
		t.Errorf("resumed from strip %d at %+v", sum.Resumed, sum.Location.Color)
	}
	sameButAuto(t, path, whole)
	md, err := ReadMetadata(path)
	if err != nil || !md.Location.Color.AutoDensity || md.Location.Color.Density != 0.25 {
		t.Errorf("the resumed file's density: %+v, %v", md.Location.Color, err)
	}
}

func TestCheckpointDensity(t *testing.T) {
	l := testLoc()
	l.Color.AutoDensity, l.Color.Density = false, 0.0078125
	o := Options{Location: l, Width: 10, Height: 10, Version: "t"}
	_, desc := o.params(stripPlan{}, true)
	if d, ok := checkpointDensity(desc); !ok || d != 0.0078125 {
		t.Errorf("%q: %g, %v", desc, d, ok)
	}
	for _, bad := range []string{"", "size=1x1", "re=x size=1x1", "density=auto size=1x1", "re=0 im=0 zoom=1 density=1e400 size=1x1"} {
		if d, ok := checkpointDensity(bad); ok {
			t.Errorf("%q read as density %g", bad, d)
		}
	}
}

// writeChunks writes chunks as a PNG file at path.
func writeChunks(t *testing.T, path string, chunks []pngChunk) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(pngSignature)
	for _, c := range chunks {
		writeChunk(&b, c.typ, []byte(c.data))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	*bytes.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	c.n += n
	return n, err
}

// TestReadMetadataDensityChosen: the chunk after the image data that says an export's
// density was chosen automatically is read from the end of the file without reading the
// image; a file without it (an explicit density, or one written before it) reads as it did;
// the chunk moved before the image data (by another program) still counts; a damaged or
// unknown value, or the chunk given twice, is refused, naming what is wrong.
func TestReadMetadataDensityChosen(t *testing.T) {
	dir := t.TempDir()
	a, _ := export(t, dir, Options{Location: testLoc(), Width: 60, Height: 40})
	chunks := readChunks(t, a)
	last := len(chunks) - 1
	if chunks[last-1] != trailerChunk {
		t.Fatalf("the automatic export's last chunks are %q, %q", chunks[last-1].typ, chunks[last].typ)
	}
	idat := slices.IndexFunc(chunks, func(c pngChunk) bool { return c.typ == "IDAT" })
	without := slices.Delete(slices.Clone(chunks), last-1, last)
	density := func(t *testing.T, name string, cs []pngChunk) (colour.Coloring, error) {
		t.Helper()
		p := filepath.Join(dir, name)
		writeChunks(t, p, cs)
		md, err := ReadMetadata(p)
		return md.Location.Color, err
	}
	if c, err := density(t, "without.png", without); err != nil || c.AutoDensity || c.Density != 1 {
		t.Errorf("without the chunk: %+v, %v; want explicit 1", c, err)
	}
	moved := slices.Insert(slices.Clone(without), idat, trailerChunk)
	if c, err := density(t, "moved.png", moved); err != nil || !c.AutoDensity || c.Density != 1 {
		t.Errorf("the chunk before the image data: %+v, %v; want automatic", c, err)
	}
	twice := slices.Insert(slices.Clone(chunks), idat, trailerChunk)
	if _, err := density(t, "twice.png", twice); err == nil || !strings.Contains(err.Error(), KeyDensityChosen+" text chunk appears twice") {
		t.Errorf("the chunk twice: %v", err)
	}
	other := slices.Clone(chunks)
	other[last-1].data = KeyDensityChosen + "\x00given"
	if _, err := density(t, "other.png", other); err == nil || !strings.Contains(err.Error(), `"given" is not auto`) {
		t.Errorf("another value: %v", err)
	}
	// A damaged CRC: the bytes of the file, its chunk's CRC changed.
	b, err := os.ReadFile(a)
	if err != nil {
		t.Fatal(err)
	}
	bad := slices.Clone(b)
	bad[len(bad)-12-1] ^= 0xff
	p := filepath.Join(dir, "badcrc.png")
	os.WriteFile(p, bad, 0o644)
	if _, err := ReadMetadata(p); err == nil || !strings.Contains(err.Error(), "bad CRC") {
		t.Errorf("a damaged chunk: %v", err)
	}
	// Bytes after IEND (not a file an export writes): the chunks up to IEND are read, the
	// trailer among them, and what follows IEND is not.
	p = filepath.Join(dir, "appended.png")
	os.WriteFile(p, append(slices.Clone(b), "junk"...), 0o644)
	if md, err := ReadMetadata(p); err != nil || !md.Location.Color.AutoDensity {
		t.Errorf("bytes after IEND: %+v, %v", md.Location.Color, err)
	}
	// 64 MB of image data between the header and the trailer: read is the header and the
	// last few hundred bytes.
	big := slices.Insert(slices.Clone(chunks), idat+1, pngChunk{"IDAT", strings.Repeat("\x00", 64<<20)})
	var buf bytes.Buffer
	buf.WriteString(pngSignature)
	for _, c := range big {
		writeChunk(&buf, c.typ, []byte(c.data))
	}
	cr := &countingReader{Reader: bytes.NewReader(buf.Bytes())}
	md, err := readMetadata(cr)
	if err != nil || !md.Location.Color.AutoDensity {
		t.Errorf("with 64 MB of image data: %+v, %v", md.Location.Color, err)
	}
	if cr.n > 1<<20 {
		t.Errorf("read %d bytes of a %d-byte file for its metadata", cr.n, buf.Len())
	}
}

// TestDensityChosen: an explicit density that the caller chose automatically (the window's
// drawn density, Options.DensityChosen) is recorded as automatic, changing no pixel; an
// interrupted export of it resumed without the option (the window resuming an export's own
// view) still records it, from its checkpoint.
func TestDensityChosen(t *testing.T) {
	loc := testLoc()
	loc.Color.AutoDensity, loc.Color.Density = false, 0.25
	base := Options{Location: loc, Width: 150, Height: 100, Tile: 64, StripBytes: 4 * 150 * 10, Version: "t"}
	explicit, _ := export(t, t.TempDir(), base)
	chosen := base
	chosen.DensityChosen = true
	whole, _ := export(t, t.TempDir(), chosen)
	sameButAuto(t, whole, explicit)
	md, err := ReadMetadata(whole)
	if err != nil || !md.Location.Color.AutoDensity || md.Location.Color.Density != 0.25 {
		t.Errorf("chosen density reads back %+v, %v", md.Location.Color, err)
	}
	path := filepath.Join(t.TempDir(), "r.png")
	stop := chosen
	stop.stopAfter = 2
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, stop); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("stopped export: %v", err)
	}
	res := base
	res.Resume = true
	if sum, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil || sum.Resumed != 2 {
		t.Fatalf("resume: %+v, %v", sum, err)
	}
	sameFile(t, path, whole)
}

// TestTextChunksStrict (issue 39: a second mandelscope.julia chunk after the image data was
// ignored, and a key of ours misspelt was read as absent: a Julia set's file shown as the
// Mandelbrot set): a text chunk of ours after the image data other than the density mark, a
// second one of any key (before or after), and a key of ours this version does not read (in
// any case, tEXt or iTXt, before or after the image data) are refused with one line naming
// the key; chunks of other programs are left alone wherever they are.
func TestTextChunksStrict(t *testing.T) {
	dir := t.TempDir()
	a, _ := export(t, dir, Options{Location: testLoc(), Width: 60, Height: 40})
	chunks := readChunks(t, a)
	idat := slices.IndexFunc(chunks, func(c pngChunk) bool { return c.typ == "IDAT" })
	iend := len(chunks) - 1
	text := func(key, value string) pngChunk { return pngChunk{"tEXt", key + "\x00" + value} }
	itext := func(key, value string) pngChunk { return pngChunk{"iTXt", key + "\x00\x00\x00\x00\x00" + value} }
	for _, c := range []struct {
		name  string
		at    int
		chunk pngChunk
		want  string // "" reads as before
	}{
		{"julia after the image data", iend, text(KeyJulia, "0,1"), KeyJulia + " text chunk comes after the image data"},
		{"a second centre after the image data", iend, text(KeyRe, "0.25"), KeyRe + " text chunk comes after the image data"},
		{"a second centre before", idat, text(KeyRe, "0.25"), KeyRe + " text chunk appears twice"},
		{"julia misspelt before", idat, text("mandelscope.juliA", "0,1"), `"mandelscope.juliA" is not a key this version reads`},
		{"julia misspelt after", iend, text("mandelscope.juliA", "0,1"), `"mandelscope.juliA" is not a key this version reads`},
		{"a key of ours in capitals", idat, text("Mandelscope.Julia", "0,1"), `"Mandelscope.Julia" is not a key this version reads`},
		{"an iTXt key of ours after", iend, itext(KeyJulia, "0,1"), KeyJulia + " text chunk comes after the image data"},
		{"another program's chunk before", idat, text("Comment", "hello"), ""},
		{"another program's chunk after", iend, text("Comment", "mandelscope.julia=0,1"), ""},
	} {
		p := filepath.Join(dir, "x.png")
		writeChunks(t, p, slices.Insert(slices.Clone(chunks), c.at, c.chunk))
		md, err := ReadMetadata(p)
		switch {
		case c.want == "" && (err != nil || md.Location.IsJulia() || md.Location.Re.String() != testLoc().Re.String()):
			t.Errorf("%s: %v %v", c.name, md.Location, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: %v, want one line containing %q", c.name, err, c.want)
		}
	}
}
