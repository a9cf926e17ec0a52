package export

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/pngverify"
	"mandelscope/render/cpu"
)

// The tests here are issue 8's cases (the export side), one or more per item.

func relOpts() Options {
	return Options{Location: testLoc(), Width: 160, Height: 120, StripBytes: 4 * 160 * 10, Version: "t"}
}

// interrupted leaves an export to dir/r.png stopped after k strips (as if killed) and returns
// the output path.
func interrupted(t *testing.T, dir string, opt Options, k int) string {
	t.Helper()
	path := filepath.Join(dir, "r.png")
	opt.stopAfter = k
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, opt); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("stopped export: %v", err)
	}
	return path
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// noAdvice: the library's messages say what happened, never which command-line flag to use.
func noAdvice(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), "--") {
		t.Errorf("the library's error carries command-line advice: %v", err)
	}
}

// diskFiller passes writes to the real .part until limit bytes have gone through it in this
// run, then fails as a full disk does.
type diskFiller struct {
	sink
	n, limit int
}

func (d *diskFiller) Write(p []byte) (int, error) {
	if d.n+len(p) > d.limit {
		k := max(0, d.limit-d.n)
		n, _ := d.sink.Write(p[:k])
		d.n += n
		return n, &os.PathError{Op: "write", Path: "r.png.part", Err: diskFullErrs[0]}
	}
	n, err := d.sink.Write(p)
	d.n += n
	return n, err
}

// A resume that fills the disk keeps the .part and a checkpoint (the one it continued
// from, or a later one), and resuming again once there is space gives the whole file.
func TestResumeFullDiskKeepsProgress(t *testing.T) {
	for _, limit := range []int{0, 100, 5000} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			dir := t.TempDir()
			opt := relOpts()
			whole, _ := export(t, t.TempDir(), opt)
			path := interrupted(t, dir, opt, 3)
			res := opt
			res.Resume = true
			res.wrapPart = func(s sink) sink { return &diskFiller{sink: s, limit: limit} }
			_, err := Export(context.Background(), &cpu.Renderer{}, path, res)
			var ee *Error
			if !errors.Is(err, ErrNoSpace) || !errors.As(err, &ee) || !ee.Kept {
				t.Fatalf("resume on a full disk: %v, want ErrNoSpace with the files kept", err)
			}
			noAdvice(t, err)
			if ee.Done < 3 || !strings.Contains(err.Error(), "kept") {
				t.Errorf("error %q says %d strips done, want at least 3", err, ee.Done)
			}
			for _, p := range []string{PartPath(path), CheckpointPath(path)} {
				if _, err := os.Stat(p); err != nil {
					t.Fatalf("%s not kept: %v", p, err)
				}
			}
			res.wrapPart = nil
			if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
				t.Fatalf("resume once there is space: %v", err)
			}
			sameFile(t, path, whole)
		})
	}
}

// The same on a real full disk: stop an export, fill a small tmpfs, resume (refused for lack of
// space, files kept), free the space, resume: the bytes of an uninterrupted export. Root only.
func TestResumeFullDiskTmpfs(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	opt := Options{Location: testLoc(), Width: 400, Height: 300, StripBytes: 4 * 400 * 10, Level: -2, Version: "t"} // Huffman only: about 360 kB
	whole, _ := export(t, t.TempDir(), opt)
	path := interrupted(t, dir, opt, 4)
	before := mustRead(t, CheckpointPath(path))
	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	f.Close()
	res := opt
	res.Resume = true
	_, err = Export(context.Background(), &cpu.Renderer{}, path, res)
	var ee *Error
	if !errors.Is(err, ErrNoSpace) || !errors.As(err, &ee) || !ee.Kept {
		t.Fatalf("resume on a full disk: %v, want ErrNoSpace with the files kept", err)
	}
	for _, p := range []string{PartPath(path), CheckpointPath(path)} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s not kept: %v", p, err)
		}
	}
	if !bytes.Equal(mustRead(t, CheckpointPath(path)), before) {
		t.Log("the checkpoint moved on before the disk filled (allowed)")
	}
	os.Remove(filler)
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
		t.Fatalf("resume after freeing space: %v", err)
	}
	sameFile(t, path, whole)
}

// The published image never shares its data with a .part: after an export its link
// count is 1; a .part that is a hard link to it (what an interrupted link-then-remove publish
// left) is never written through: an interrupted --force run and a refused resume leave the
// image byte for byte.
func TestPublishNeverSharesTheImage(t *testing.T) {
	dir := t.TempDir()
	opt := relOpts()
	path, _ := export(t, dir, opt)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := linkCount(st); n != 1 {
		t.Errorf("the published image has %d links", n)
	}
	if _, err := os.Lstat(PartPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".part left beside the image: %v", err)
	}
	image := mustRead(t, path)
	// The state an interrupted link-then-remove publish left: image and .part one file.
	if err := os.Link(path, PartPath(path)); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	force := opt
	force.Overwrite, force.stopAfter = true, 2
	force.Location.Iterations++
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, force); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted --force export: %v", err)
	}
	if !bytes.Equal(mustRead(t, path), image) {
		t.Fatal("an interrupted --force export changed the published image")
	}
	// A resume refuses a .part that is a hard link to another file.
	os.Remove(PartPath(path))
	os.Remove(CheckpointPath(path))
	other := filepath.Join(t.TempDir(), "r.png")
	interrupted(t, filepath.Dir(other), opt, 2)
	elsewhere := filepath.Join(filepath.Dir(other), "elsewhere.png")
	if err := os.Link(PartPath(other), elsewhere); err != nil {
		t.Fatal(err)
	}
	linked := mustRead(t, elsewhere)
	res := opt
	res.Resume = true
	if _, err := Export(context.Background(), &cpu.Renderer{}, other, res); !errors.Is(err, ErrDamaged) {
		t.Errorf("resume of a hard-linked .part: %v, want ErrDamaged", err)
	}
	if !bytes.Equal(mustRead(t, elsewhere), linked) {
		t.Error("a refused resume changed the file its .part is linked to")
	}
}

// The no-overwrite promise kept by the rename: a file that appears at the output
// during the export is not replaced; the image waits as the .part, and a resume with
// Overwrite publishes it.
func TestPublishKeepsAFileThatAppeared(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.png")
	opt := relOpts()
	opt.Progress = func(p Progress) {
		if p.Strip == 2 {
			os.WriteFile(path, []byte("someone else's file"), 0o644)
		}
	}
	_, err := Export(context.Background(), &cpu.Renderer{}, path, opt)
	if !errors.Is(err, ErrAppeared) {
		t.Fatalf("err = %v, want ErrAppeared", err)
	}
	noAdvice(t, err)
	if got := mustRead(t, path); string(got) != "someone else's file" {
		t.Fatal("the file that appeared was replaced")
	}
	res := relOpts()
	res.Resume, res.Overwrite = true, true
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
		t.Fatal(err)
	}
	whole, _ := export(t, t.TempDir(), relOpts())
	sameFile(t, path, whole)
}

// tamper is one change to an interrupted export's files.
type tamper struct {
	name string
	part func(b []byte) []byte  // changes the .part's bytes (nil: none)
	ck   func(c map[string]any) // changes checkpoint fields (nil: none)
	sum  bool                   // recompute the checkpoint's sum after ck (a careful forger)
	crc  bool                   // and the CRC-32 of the changed .part (a more careful one)
	want error                  // the kind of refusal
}

// A resume verifies everything it continues from; every change to the .part or to
// any checkpoint field is refused, and the refusal changes neither file.
func TestResumeRefusesTampering(t *testing.T) {
	opt := relOpts()
	src := t.TempDir()
	path := interrupted(t, src, opt, 4)
	part0, ck0 := mustRead(t, PartPath(path)), mustRead(t, CheckpointPath(path))
	var ck checkpoint
	if err := json.Unmarshal(ck0, &ck); err != nil {
		t.Fatal(err)
	}
	off := int(ck.Offset)
	if len(part0) < off || off < 1000 {
		t.Fatalf(".part %d bytes, offset %d", len(part0), off)
	}
	flip := func(at int) func([]byte) []byte {
		return func(b []byte) []byte { b[at] ^= 0x10; return b }
	}
	set := func(k string, v any) func(map[string]any) {
		return func(c map[string]any) { c[k] = v }
	}
	add := func(k string, d float64) func(map[string]any) {
		return func(c map[string]any) { c[k] = c[k].(float64) + d }
	}
	var cases []tamper
	for _, at := range []int{3, 20, 60, off / 2, off - 5, off - 1} {
		cases = append(cases, tamper{name: fmt.Sprintf("flip byte %d", at), part: flip(at), want: ErrDamaged})
	}
	cases = append(cases,
		tamper{name: "zero a range", part: func(b []byte) []byte { clear(b[off/3 : off/3+200]); return b }, want: ErrDamaged},
		tamper{name: "zero the tail", part: func(b []byte) []byte { clear(b[off-300 : off]); return b }, want: ErrDamaged},
		tamper{name: "flip byte, CRC-32 and sum recomputed", part: flip(off / 2), crc: true, sum: true, want: ErrDamaged},
		tamper{name: "zero a range, CRC-32 and sum recomputed", part: func(b []byte) []byte { clear(b[off/3 : off/3+200]); return b }, crc: true, sum: true, want: ErrDamaged},
		tamper{name: "cut short", part: func(b []byte) []byte { return b[:off-1] }, want: ErrDamaged},
		tamper{name: "empty", part: func(b []byte) []byte { return nil }, want: ErrDamaged},
	)
	fields := []struct {
		k   string
		chg func(map[string]any)
	}{
		{"next_strip -1", add("next_strip", -1)}, {"next_strip +1", add("next_strip", 1)},
		{"next_strip 0", set("next_strip", 0.0)}, {"next_strip huge", set("next_strip", 1e6)},
		{"offset -1", add("offset", -1)}, {"offset +1", add("offset", 1)}, {"offset -12", add("offset", -12)},
		{"adler32", add("adler32", 1)}, {"uncompressed", add("uncompressed", 1)}, {"crc32", add("crc32", 1)},
		{"strips", add("strips", 1)}, {"format", set("format", 1.0)},
	}
	for _, f := range fields {
		cases = append(cases, tamper{name: f.k, ck: f.chg, want: ErrDamaged})
		cases = append(cases, tamper{name: f.k + " (sum recomputed)", ck: f.chg, sum: true, want: ErrDamaged})
	}
	cases = append(cases,
		tamper{name: "params", ck: set("params", strings.Repeat("0", 64)), want: ErrDamaged},
		tamper{name: "params (sum recomputed)", ck: set("params", strings.Repeat("0", 64)), sum: true, want: ErrParamsDiffer},
		tamper{name: "renderer (sum recomputed)", ck: set("renderer", "OpenGL: some GPU, float32"), sum: true, want: ErrRendererDiffers},
		tamper{name: "description", ck: set("description", "another view"), want: ErrDamaged},
		tamper{name: "sum", ck: set("sum", strings.Repeat("a", 64)), want: ErrDamaged},
		tamper{name: "unknown field", ck: set("extra", 1.0), sum: true, want: ErrDamaged},
	)
	res := opt
	res.Resume = true
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "r.png")
			partB, ckB := bytes.Clone(part0), bytes.Clone(ck0)
			if tc.part != nil {
				partB = tc.part(partB)
			}
			if tc.ck != nil || tc.crc {
				var m map[string]any
				json.Unmarshal(ckB, &m)
				if tc.ck != nil {
					tc.ck(m)
				}
				if tc.crc {
					m["crc32"] = float64(crc32.ChecksumIEEE(partB[:off]))
				}
				if tc.sum {
					var c checkpoint
					b, _ := json.Marshal(m)
					json.Unmarshal(b, &c)
					m["sum"] = c.sum()
				}
				ckB, _ = json.Marshal(m)
			}
			os.WriteFile(PartPath(p), partB, 0o644)
			os.WriteFile(CheckpointPath(p), ckB, 0o644)
			_, err := Export(context.Background(), &cpu.Renderer{}, p, res)
			if !errors.Is(err, tc.want) || !errors.Is(err, ErrCannotResume) {
				t.Fatalf("resume: %v, want a refusal of kind %v", err, tc.want)
			}
			noAdvice(t, err)
			if !bytes.Equal(mustRead(t, PartPath(p)), partB) || !bytes.Equal(mustRead(t, CheckpointPath(p)), ckB) {
				t.Error("a refused resume changed the files")
			}
			if _, err := os.Stat(p); err == nil {
				t.Error("a refused resume wrote the output")
			}
		})
	}
	// Untouched, the same files resume to the bytes of an uninterrupted export.
	whole, _ := export(t, t.TempDir(), opt)
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
		t.Fatal(err)
	}
	sameFile(t, path, whole)
}

// Bytes past the checkpoint (a strip being written when the export was killed) are
// not part of what is verified, and are dropped by the resume.
func TestResumeAfterKillMidStrip(t *testing.T) {
	opt := relOpts()
	path := interrupted(t, t.TempDir(), opt, 3)
	f, err := os.OpenFile(PartPath(path), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(bytes.Repeat([]byte{0xAB}, 777)) // half a strip, garbage
	f.Close()
	res := opt
	res.Resume = true
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
		t.Fatal(err)
	}
	whole, _ := export(t, t.TempDir(), opt)
	sameFile(t, path, whole)
}

// blockingRenderer draws a flat colour, but its first Render call waits until release is
// closed (ignoring ctx, as a long GPU draw does).
type blockingRenderer struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newBlocking() *blockingRenderer {
	return &blockingRenderer{entered: make(chan struct{}), release: make(chan struct{})}
}

func (b *blockingRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	b.once.Do(func() {
		close(b.entered)
		<-b.release
	})
	for i := range dst.Pix {
		dst.Pix[i] = 200
	}
	return nil
}
func (b *blockingRenderer) MaxTile() int { return 4096 }
func (b *blockingRenderer) Name() string { return "blocking" }

// One export per target at a time: while one runs, a second one (plain, --force or
// --resume) is refused with ErrBusy, changes nothing, and the first one finishes intact.
func TestOneExportPerTarget(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "o.png")
	b := newBlocking()
	opt := relOpts()
	done := make(chan error)
	go func() {
		_, err := Export(context.Background(), b, path, opt)
		done <- err
	}()
	<-b.entered
	part := mustRead(t, PartPath(path))
	for _, o := range []struct{ resume, force bool }{{false, false}, {false, true}, {true, false}, {true, true}} {
		o2 := opt
		o2.Resume, o2.Overwrite = o.resume, o.force
		_, err := Export(context.Background(), &cpu.Renderer{}, path, o2)
		if !errors.Is(err, ErrBusy) {
			t.Errorf("second export (resume %v, force %v): %v, want ErrBusy", o.resume, o.force, err)
		}
		noAdvice(t, err)
		if err := Precheck(path, o.resume, o.force); !errors.Is(err, ErrBusy) {
			t.Errorf("Precheck (resume %v, force %v): %v, want ErrBusy", o.resume, o.force, err)
		}
	}
	if !bytes.Equal(mustRead(t, PartPath(path)), part) {
		t.Error("the refused exports changed the running one's .part")
	}
	close(b.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := pngverify.Verify(f, nil); err != nil {
		t.Fatalf("the first export's file: %v", err)
	}
	if _, err := os.Lstat(LockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left behind: %v", err)
	}
	if busy(path) {
		t.Error("still busy after the export")
	}
}

// otherRenderer draws the CPU renderer's pixels but says it is another renderer.
type otherRenderer struct{ cpu.Renderer }

func (o *otherRenderer) Identity(f fractal.Frame) string {
	return "OpenGL: test GPU, " + f.Precision().String()
}

// The renderer's identity is part of what a resume checks.
func TestResumeRefusesAnotherRenderer(t *testing.T) {
	opt := relOpts()
	dir := t.TempDir()
	path := filepath.Join(dir, "g.png")
	stop := opt
	stop.stopAfter = 2
	if _, err := Export(context.Background(), &otherRenderer{}, path, stop); !errors.Is(err, ErrInterrupted) {
		t.Fatal(err)
	}
	res := opt
	res.Resume = true
	_, err := Export(context.Background(), &cpu.Renderer{}, path, res)
	var ee *Error
	if !errors.Is(err, ErrRendererDiffers) || !errors.As(err, &ee) {
		t.Fatalf("resume with the CPU: %v, want ErrRendererDiffers", err)
	}
	if !strings.HasPrefix(ee.Was, "OpenGL: test GPU") || !strings.HasPrefix(ee.Now, "CPU") {
		t.Errorf("Was %q, Now %q", ee.Was, ee.Now)
	}
	if _, err := Export(context.Background(), &otherRenderer{}, path, res); err != nil {
		t.Fatalf("resume with the same renderer: %v", err)
	}
	// Without Identifier, Name and Mode are the identity; CPU's ignores the thread count.
	f := fractal.NewFrame(testLoc(), 10, 10)
	if a, b := identity(&cpu.Renderer{Workers: 1}, f), identity(&cpu.Renderer{Workers: 3}, f); a != b {
		t.Errorf("CPU identity depends on threads: %q vs %q", a, b)
	}
	if got := identity(patternRenderer{16}, f); got != "pattern" {
		t.Errorf("identity of a renderer without Identifier = %q, want its Name", got)
	}
}

// slowView is a view whose middle row (64x47: that row is on the real axis) lies just right of
// the cusp at 0.25, where an orbit takes about pi/sqrt(re - 0.25) iterations to escape,
// here 3e7 to 1e8 (about 0.1 to 0.4 s a pixel) that periodicity detection cannot cut short.
func slowView() (fractal.Location, int, int) {
	l := fractal.Home()
	l.Re, l.Im = fractal.MustDecimal("0.250000000000001"), fractal.MustDecimal("0")
	l.Zoom = fractal.MustDecimal("3.5e14")
	l.Iterations = 100_000_000
	l.Color.AutoDensity = false // no sample of the view before the first render call
	return l, 64, 47
}

// cancelling cancels the export's context at the start of its first render call, then renders
// as cpu.Renderer does, with the export's (now cancelled) ctx.
type cancelling struct {
	cpu.Renderer
	cancel context.CancelFunc
	once   sync.Once
}

func (c *cancelling) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	c.once.Do(c.cancel)
	return c.Renderer.Render(ctx, f, rect, dst)
}

// A cancel is seen inside a tile: a one-tile export whose middle row takes many seconds (a
// pixel there 0.1 to 0.4 s), cancelled as its tile starts, ends as an interrupt keeping the
// .part and checkpoint. (Were the cancel seen only between tiles, the tile would hold this
// test for a minute; that pixels see it within microseconds, render/cpu's
// TestCancelInsideDeepPixel measures.)
func TestCancelInsideTile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "slow.png")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	loc, w, h := slowView()
	opt := Options{Location: loc, Width: w, Height: h, Tile: 64, Version: "t"}
	_, err := Export(ctx, &cancelling{cancel: cancel}, path, opt)
	var ee *Error
	if !errors.Is(err, ErrInterrupted) || !errors.As(err, &ee) || !ee.Kept || ee.Done >= ee.Strips {
		t.Fatalf("err = %v, want an interrupt with the files kept", err)
	}
	for _, p := range []string{PartPath(path), CheckpointPath(path)} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not kept: %v", p, err)
		}
	}
}

// ReadMetadata reads only the chunks it needs: big text chunks it does not need are
// skipped without being read into memory; too many chunks, a needed chunk that is too big
// and a needed key given twice are refused.
func TestReadMetadataBounded(t *testing.T) {
	dir := t.TempDir()
	loc := testLoc()
	text := MetadataText(loc, 32, 20, 1, "t")
	write := func(name string, extra []Text) string {
		return writeMetadataPNG(t, dir, name, 32, 20, append(append([]Text{}, extra...), text...))
	}
	big := strings.Repeat("x", 1<<20)
	var junk []Text
	for i := range 40 {
		junk = append(junk, Text{fmt.Sprintf("Comment%d", i), big})
	}
	p := write("junk.png", junk)
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	md, err := ReadMetadata(p)
	runtime.ReadMemStats(&ms1)
	if err != nil {
		t.Fatal(err)
	}
	if md.Location != loc {
		t.Errorf("location %v", md.Location)
	}
	if alloc := ms1.TotalAlloc - ms0.TotalAlloc; alloc > 1<<20 {
		t.Errorf("reading a PNG with 40 MB of unneeded text allocated %d bytes", alloc)
	}
	if len(md.Text) > len(metadataKeys) {
		t.Errorf("kept %d text chunks", len(md.Text))
	}
	var many []Text
	for i := range maxChunks + 5 {
		many = append(many, Text{fmt.Sprintf("C%d", i), "x"})
	}
	if _, err := ReadMetadata(write("many.png", many)); err == nil || !strings.Contains(err.Error(), "chunks") {
		t.Errorf("%d chunks: %v", maxChunks+5, err)
	}
	if _, err := ReadMetadata(write("bigkey.png", []Text{{KeyVersion, strings.Repeat("9", maxTextChunk+1)}})); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("a needed chunk over the cap: %v", err)
	}
	if _, err := ReadMetadata(write("dup.png", []Text{{KeyIterations, "5"}})); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a key given twice: %v", err)
	}
}

// Values from a PNG are checked as flags are: the size from IHDR
// (1 to MaxSide a side), whole numbers for iterations and supersampling (not truncated),
// finite colouring numbers, and the location through Validate.
func TestReadMetadataValidates(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, w, h int, change func(k string) (string, bool)) string {
		var text []Text
		for _, tx := range MetadataText(testLoc(), 10, 10, 2, "t") {
			if v, ok := change(tx.Key); ok {
				tx.Value = v
			}
			text = append(text, tx)
		}
		return writeMetadataPNG(t, dir, name, w, h, text)
	}
	none := func(string) (string, bool) { return "", false }
	key := func(key, v string) func(string) (string, bool) {
		return func(k string) (string, bool) { return v, k == key }
	}
	if _, err := ReadMetadata(mk("ok.png", 100, 10, none)); err != nil {
		t.Fatalf("a good file: %v", err)
	}
	for _, tc := range []struct {
		name   string
		w, h   int
		change func(string) (string, bool)
		want   string
	}{
		{"wide", 100000, 10, none, "out of range"},
		{"huge", 1 << 30, 1, none, "out of range"},
		{"iterations 200.9", 10, 10, key(KeyIterations, "200.9"), "whole number"},
		{"iterations 1e3", 10, 10, key(KeyIterations, "1e3"), "whole number"},
		{"iterations huge", 10, 10, key(KeyIterations, "99999999999999999999"), "whole number"},
		{"iterations 0", 10, 10, key(KeyIterations, "0"), "iterations"},
		{"supersample 2.5", 10, 10, key(KeySupersample, "2.5"), "whole number"},
		{"supersample 9", 10, 10, key(KeySupersample, "9"), "supersampling"},
		{"density NaN", 10, 10, key(KeyDensity, "NaN"), "finite"},
		{"offset Inf", 10, 10, key(KeyOffset, "+Inf"), "finite"},
		{"density 1e308", 10, 10, key(KeyDensity, "1e308"), "palette density 1e+308 is out of range"},
		{"density 1e-300", 10, 10, key(KeyDensity, "1e-300"), "palette density 1e-300 is out of range"},
		{"offset -1e300", 10, 10, key(KeyOffset, "-1e300"), "palette offset -1e+300 is out of range"},
		{"zoom 0", 10, 10, key(KeyZoom, "0"), "zoom"},
		{"palette", 10, 10, key(KeyPalette, "nope"), "palette"},
	} {
		_, err := ReadMetadata(mk(tc.name+".png", tc.w, tc.h, tc.change))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
	// Export itself refuses a size over the limit before allocating anything.
	if _, err := Export(context.Background(), &cpu.Renderer{}, filepath.Join(dir, "w.png"), Options{Location: testLoc(), Width: 1 << 30, Height: 1}); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("Export of 2^30x1: %v", err)
	}
}

// A .part without a checkpoint has one way out: a plain export and a resume both
// say so (Kept false / true), and Overwrite starts over.
func TestPartWithoutCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "n.png")
	os.WriteFile(PartPath(path), []byte("half an export"), 0o644)
	opt := relOpts()
	_, err := Export(context.Background(), &cpu.Renderer{}, path, opt)
	var ee *Error
	if !errors.Is(err, ErrUnfinished) || !errors.As(err, &ee) || ee.Kept {
		t.Errorf("plain export: %v, want ErrUnfinished without a checkpoint", err)
	}
	opt.Resume = true
	_, err = Export(context.Background(), &cpu.Renderer{}, path, opt)
	if !errors.Is(err, ErrNothingToResume) || !errors.As(err, &ee) || !ee.Kept {
		t.Errorf("resume: %v, want ErrNothingToResume with a .part", err)
	}
	noAdvice(t, err)
	opt.Resume, opt.Overwrite = false, true
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, opt); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	whole, _ := export(t, t.TempDir(), relOpts())
	sameFile(t, path, whole)
}

// A path whose folder is a file says so.
func TestCheckFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for _, tc := range []struct{ dir, want string }{
		{file, file + " is a file, not a folder"},
		{filepath.Join(file, "x"), file + " is a file, not a folder"},
		{filepath.Join(dir, "no", "such"), "does not exist"},
	} {
		err := checkFolder(tc.dir)
		if !errors.Is(err, ErrNotFolder) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("checkFolder(%s) = %v, want %q", tc.dir, err, tc.want)
		}
	}
	if err := checkFolder(dir); err != nil {
		t.Error(err)
	}
	_, err := Export(context.Background(), &cpu.Renderer{}, filepath.Join(file, "x.png"), relOpts())
	if !errors.Is(err, ErrNotFolder) {
		t.Errorf("Export into a file: %v", err)
	}
}

// A deep (perturbation) export computes its reference orbit once, at its own centre, in a
// cache of its own: a resume gives the bytes of an uninterrupted export even when a shared
// cache holds a nearby view's reference.
func TestDeepExportResume(t *testing.T) {
	loc := fractal.Home()
	loc.Re = fractal.MustDecimal("-0.743643887037158704752191506114774")
	loc.Im = fractal.MustDecimal("0.131825904205311970493132056385139")
	loc.Zoom = fractal.MustDecimal("1e20")
	loc.Iterations = 3000
	opt := Options{Location: loc, Width: 96, Height: 64, StripBytes: 4 * 96 * 8, Version: "t"}
	if f := fractal.NewFrame(loc, 96, 64); f.Precision() != fractal.Perturbation {
		t.Fatalf("precision %v: the test means a perturbation frame", f.Precision())
	}
	whole, _ := export(t, t.TempDir(), opt)
	// A nearby view's reference in the shared cache.
	near := loc
	near.Re = fractal.MustDecimal("-0.743643887037158704752191506114770")
	if _, err := fractal.NewFrame(near, 96, 64).WithReference(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	path := interrupted(t, t.TempDir(), opt, 3)
	res := opt
	res.Resume = true
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
		t.Fatal(err)
	}
	sameFile(t, path, whole)

	// The distance colouring carries the derivative through the perturbation: the same.
	opt.Location.Color.Method = colour.MethodDistance
	whole, _ = export(t, t.TempDir(), opt)
	path = interrupted(t, t.TempDir(), opt, 3)
	res = opt
	res.Resume = true
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
		t.Fatal(err)
	}
	sameFile(t, path, whole)
}

// BenchmarkResumeVerify measures what a resume costs before it renders: verifying a .part
// against its checkpoint (CRC-32, chunk CRCs, inflating every row, Adler-32). Bytes are the
// filtered rows inflated (3 per pixel); the time grows with them.
func BenchmarkResumeVerify(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "v.png")
	const w, h = 4000, 3000
	opt := Options{Location: testLoc(), Width: w, Height: h, Version: "t", stopAfter: 1 << 30}
	plan, err := newStripPlan(w, h, 1, 1000, 0)
	if err != nil {
		b.Fatal(err)
	}
	opt.stopAfter = plan.Strips - 1
	if _, err := Export(context.Background(), patternRenderer{1000}, path, opt); !errors.Is(err, ErrInterrupted) {
		b.Fatal(err)
	}
	ck, err := readCheckpoint(CheckpointPath(path))
	if err != nil {
		b.Fatal(err)
	}
	header, _ := opt.header(plan)
	rows := min(h, ck.NextStrip*plan.StripRows)
	b.SetBytes(int64(rows) * int64(3*w+1))
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(PartPath(path))
		if err != nil {
			b.Fatal(err)
		}
		if err := verifyPart(f, ck, header, rows, int64(3*w+1)); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	b.ReportMetric(float64(ck.Offset)/1e6, "part-MB")
}

// TestDeepExpExportResume is TestDeepExportResume past float64's exponent: a view at zoom
// 1e1000 next to c = i, its centre written with 1,003 digits a part. An interrupted export
// resumed from its checkpoint gives the bytes of an uninterrupted one, and the PNG's metadata
// gives back the location digit for digit.
func TestDeepExpExportResume(t *testing.T) {
	loc, err := fractal.ParseLocationText("re=3e-1001 im=1."+strings.Repeat("0", 1000)+"45 zoom=1e1000 iterations=6000", fractal.Home())
	if err != nil {
		t.Fatal(err)
	}
	loc.Re = fractal.MustDecimal("0." + strings.Repeat("0", 1000) + "3") // the same number, all digits written
	if len(loc.Re.String()) < 1000 || len(loc.Im.String()) < 1000 {
		t.Fatalf("centre of %d and %d characters, want 1000+", len(loc.Re.String()), len(loc.Im.String()))
	}
	loc.Color.AutoDensity = false // the density the file records: explicit
	opt := Options{Location: loc, Width: 96, Height: 64, StripBytes: 4 * 96 * 8, Version: "t"}
	if f := fractal.NewFrame(loc, 96, 64); f.Precision() != fractal.PerturbationExp {
		t.Fatalf("precision %v: the test means an extended-exponent frame", f.Precision())
	}
	whole, _ := export(t, t.TempDir(), opt)
	md, err := ReadMetadata(whole)
	if err != nil {
		t.Fatal(err)
	}
	if md.Location != loc {
		t.Errorf("metadata location differs: zoom %s, %d iterations, centre digits kept: %v",
			md.Location.Zoom, md.Location.Iterations, md.Location.Re == loc.Re && md.Location.Im == loc.Im)
	}
	path := interrupted(t, t.TempDir(), opt, 3)
	res := opt
	res.Resume = true
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
		t.Fatal(err)
	}
	sameFile(t, path, whole)
}
