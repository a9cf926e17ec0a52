package cli

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/bookmarks"
	"mandelscope/colour"
	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
)

// exportCmd runs `mandelscope export` in-process.
func exportCmd(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Run(append([]string{"export"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func mustExport(t *testing.T, args ...string) string {
	t.Helper()
	code, _, errs := exportCmd(args...)
	if code != 0 {
		t.Fatalf("export %v: exit %d: %s", args, code, errs)
	}
	return errs
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExportValidation: every bad command line gives exit 2, one line naming what is wrong,
// and no file.
func TestExportValidation(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(bookmarks.EnvPath, filepath.Join(dir, "bookmarks.json"))
	existing := filepath.Join(dir, "exists.png")
	os.WriteFile(existing, []byte("user's file"), 0o644)
	notPNG := filepath.Join(dir, "text.png")
	os.WriteFile(notPNG, []byte("not a png"), 0o644)
	plain := filepath.Join(dir, "plain.png")
	var buf bytes.Buffer
	png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 4, 3)))
	os.WriteFile(plain, buf.Bytes(), 0o644)
	out := filepath.Join(dir, "out.png")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--size=0x5", "-o", out}, "--size"},
		{[]string{"--size=huge", "-o", out}, "--size"},
		{[]string{"--size=70000x10", "-o", out}, "--size"},
		{[]string{"--zoom=-1", "-o", out}, "--zoom"},
		{[]string{"--zoom=abc", "-o", out}, "--zoom"},
		{[]string{"--center=9,0", "-o", out}, "--center"},
		{[]string{"--center=1", "-o", out}, "--center"},
		{[]string{"--iterations=0", "-o", out}, "--iterations"},
		{[]string{"--iterations=many", "-o", out}, "--iterations"},
		{[]string{"--palette=nope", "-o", out}, "--palette"},
		{[]string{"--tile=0", "-o", out}, "--tile"},
		{[]string{"--tile=-5", "-o", out}, "--tile"},
		{[]string{"--tile=15", "-o", out}, "--tile"},
		{[]string{"--supersample=0", "-o", out}, "--supersample"},
		{[]string{"--supersample=-2", "-o", out}, "--supersample"},
		{[]string{"--supersample=5", "-o", out}, "--supersample"},
		{[]string{"--renderer=vulkan", "-o", out}, "--renderer"},
		{[]string{"--bookmark=nowhere", "-o", out}, "--bookmark"},
		{[]string{"--bookmark=a", "--from=" + plain, "-o", out}, "--bookmark and --from"},
		{[]string{"--from=" + filepath.Join(dir, "missing.png"), "-o", out}, "--from"},
		{[]string{"--from=" + notPNG, "-o", out}, "not a PNG"},
		{[]string{"--from=" + plain, "-o", out}, "not a Mandelscope PNG"},
		{[]string{"--size=10x10"}, "-o"},
		{[]string{"-o", filepath.Join(dir, "no", "such", "dir", "x.png")}, "does not exist"},
		{[]string{"-o", existing}, "already exists"},
		{[]string{"-o", filepath.Join(dir, "x.jpg")}, ".png"},
		{[]string{"-o", dir + "/"}, ".png"},
		{[]string{"--resume", "-o", out}, "--resume"},
		{[]string{"-o", out, "extra"}, "unexpected argument"},
	} {
		code, _, errs := exportCmd(tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%q)", tc.args, code, errs)
		}
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if len(lines) != 1 || !strings.Contains(errs, tc.want) || !strings.HasPrefix(errs, "mandelscope export: ") {
			t.Errorf("%v: message %q should be one line naming %q", tc.args, errs, tc.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files created: %v", names)
	}
	if string(readFile(t, existing)) != "user's file" {
		t.Error("an existing file was changed")
	}
}

// TestExportFromAndForce: --from gives exactly the bytes of the export with the same flags;
// explicit flags override the stored view; --force overwrites.
func TestExportFromAndForce(t *testing.T) {
	dir := t.TempDir()
	a, b, c, d := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png"), filepath.Join(dir, "c.png"), filepath.Join(dir, "d.png")
	flags := []string{"--renderer=cpu", "--center=-0.743643887037158704752191506114774,0.131825904205311970493132056385139", "--zoom=3000", "--size=150x97", "--supersample=2", "--palette=" + colour.PaletteNames()[0], "--density=0.5"}
	mustExport(t, append(flags, "-o", a)...)
	mustExport(t, "--renderer=cpu", "--from="+a, "-o", b)
	if !bytes.Equal(readFile(t, a), readFile(t, b)) {
		t.Fatal("--from did not reproduce the export byte for byte")
	}
	mustExport(t, "--renderer=cpu", "--from="+a, "--iterations=77", "--size=80x60", "-o", c)
	mustExport(t, append(flags, "--iterations=77", "--size=80x60", "-o", d)...)
	if !bytes.Equal(readFile(t, c), readFile(t, d)) {
		t.Fatal("--from with explicit flags differs from the export with the same flags")
	}
	md, err := export.ReadMetadata(c)
	if err != nil || md.Location.Iterations != 77 || md.Width != 80 || md.Supersample != 2 {
		t.Fatalf("metadata %+v, %v", md, err)
	}
	if code, _, _ := exportCmd("--renderer=cpu", "--size=20x16", "-o", a); code != 2 {
		t.Fatal("overwrote without --force")
	}
	mustExport(t, "--renderer=cpu", "--size=20x16", "--force", "-o", a)
	if md, err := export.ReadMetadata(a); err != nil || md.Width != 20 {
		t.Fatalf("--force did not overwrite: %+v %v", md, err)
	}
}

func TestExportBookmark(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "bookmarks.json")
	t.Setenv(bookmarks.EnvPath, store)
	loc := fractal.Home()
	loc.Re, loc.Im = fractal.MustDecimal("-1.25066"), fractal.MustDecimal("0.02012")
	loc.Zoom, loc.Iterations = fractal.MustDecimal("400"), 500
	if err := bookmarks.Add(store, bookmarks.Bookmark{Name: "Seahorse tail", Location: loc}); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	mustExport(t, "--renderer=cpu", "--bookmark=Seahorse tail", "--size=90x50", "--offset=0.5", "-o", a)
	mustExport(t, "--renderer=cpu", "--center=-1.25066,0.02012", "--zoom=400", "--iterations=500", "--size=90x50", "--offset=0.5", "-o", b)
	if !bytes.Equal(readFile(t, a), readFile(t, b)) {
		t.Fatal("--bookmark differs from the export with the same explicit flags")
	}
	if code, _, errs := exportCmd("--renderer=cpu", "--bookmark=Other", "-o", filepath.Join(dir, "c.png")); code != 2 || !strings.Contains(errs, "no bookmark named") {
		t.Errorf("missing bookmark: %d %q", code, errs)
	}
}

// TestExportInterruptResume interrupts an export (SIGINT, through doExport's signal channel,
// at its fifth tile): exit 130, no FILE.png, the .part and checkpoint kept; --resume then
// gives the bytes of an uninterrupted export.
func TestExportInterruptResume(t *testing.T) {
	if testing.Short() {
		t.Skip("renders a few seconds")
	}
	dir := t.TempDir()
	out, whole := filepath.Join(dir, "i.png"), filepath.Join(dir, "whole.png")
	flags := []string{"--renderer=cpu", "--size=1200x900", "--tile=64", "--center=-0.75,0.1", "--zoom=4", "--iterations=3000"}
	job, err := parseExport(append(flags, "-o", out), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	sigs := make(chan os.Signal, 2)
	r := &signalling{at: 5, sig: os.Interrupt, sigs: sigs}
	var errb lockedBuffer
	err = doExport(job, r, &errb, sigs)
	var ee ExitError
	if !errors.As(err, &ee) || ee.Code != 130 || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("err = %v (%q), want exit 130 with --resume advice", err, errb.String())
	}
	t.Logf("interrupted at tile 5: %d render calls in all", r.calls.Load())
	if _, err := os.Stat(out); err == nil {
		t.Fatal("FILE.png exists after an interrupt")
	}
	for _, p := range []string{export.PartPath(out), export.CheckpointPath(out)} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s not kept: %v", p, err)
		}
	}
	if code, _, errs := exportCmd(append(flags, "-o", out)...); code != 2 || !strings.Contains(errs, "--resume") {
		t.Errorf("a fresh export over a .part: %d %q", code, errs)
	}
	if code, _, errs := exportCmd(append(flags, "--iterations=100", "--resume", "-o", out)...); code == 0 || !strings.Contains(errs, "different parameters") {
		t.Errorf("resume with other flags: %d %q", code, errs)
	}
	mustExport(t, append(flags, "--resume", "-o", out)...)
	mustExport(t, append(flags, "-o", whole)...)
	if !bytes.Equal(readFile(t, out), readFile(t, whole)) {
		t.Fatal("resumed export differs from an uninterrupted one")
	}
}

// TestExportGPUMatchesCPU: --renderer=gpu and --renderer=cpu agree (the pixels that differ by
// more than 6/255 are isolated, and at most 2% of all), on a non-square size with
// supersampling, in the default colouring and others; GPU exports with 61-pixel and 4096-pixel
// tiles are byte for byte the same. Skipped without GL unless MANDELSCOPE_REQUIRE_GL=1.
func TestExportGPUMatchesCPU(t *testing.T) {
	for _, col := range [][]string{nil, {"--colouring=distance", "--transfer=sqrt"}, {"--colouring=slopes"},
		{"--colouring=angle", "--bailout=1000"}, {"--colouring=stripe", "--bailout=65536"}} {
		t.Run(strings.Join(append([]string{"default"}, col...), ""), func(t *testing.T) {
			dir := t.TempDir()
			g, c := filepath.Join(dir, "g.png"), filepath.Join(dir, "c.png")
			flags := append([]string{"--size=333x187", "--supersample=2", "--tile=100", "--center=-0.7453,0.1127", "--zoom=180", "--iterations=400"}, col...)
			errs := mustExport(t, append(flags, "--renderer=gpu", "-o", g)...)
			if strings.Contains(errs, "GPU renderer unavailable") {
				imagetest.NoGL(t, "no GL: "+strings.TrimSpace(errs))
			}
			mustExport(t, append(flags, "--renderer=cpu", "-o", c)...)
			// Odd GPU tiles give the same bytes as big ones.
			g61 := filepath.Join(dir, "g61.png")
			mustExport(t, append(flags[1:], "--size=333x187", "--tile=61", "--renderer=gpu", "-o", g61)...)
			gBig := filepath.Join(dir, "gbig.png")
			mustExport(t, append(flags[1:], "--size=333x187", "--tile=4096", "--renderer=gpu", "-o", gBig)...)
			if !bytes.Equal(readFile(t, g61), readFile(t, gBig)) {
				t.Error("GPU export with 61-pixel tiles differs from one with big tiles")
			}
			gi, ci := imagetest.Decode(t, g), imagetest.Decode(t, c)
			if err := imagetest.Isolated(gi, ci, 6); err != nil {
				t.Errorf("GPU export vs CPU export: %v", err)
			}
			frac, _ := imagetest.Agreement(gi, ci, 6)
			if frac < 0.98 {
				t.Fatalf("only %.2f%% of pixels agree within 6/255", 100*frac)
			} else {
				t.Logf("%.3f%% of pixels within 6/255", 100*frac)
			}
		})
	}
}

// TestExportFullDisk exports to a 1 MB tmpfs (root only; skipped where mount fails): a warning
// before starting, then "no space left on DIR", exit 1, no FILE.png and no .part.
func TestExportFullDisk(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	out := filepath.Join(dir, "full.png")
	code, _, errs := exportCmd("--renderer=cpu", "--size=2400x1600", "--center=-0.7453,0.1127", "--zoom=180", "--iterations=300", "-o", out)
	if code != 1 || !strings.Contains(errs, "no space left on "+dir) {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "warning: "+dir+" has") {
		t.Errorf("no low-disk warning: %s", errs)
	}
	for _, p := range []string{out, export.PartPath(out)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s exists", p)
		}
	}
}

// TestExportFromColouring: an export in a colouring beyond the default stores it, and --from
// reproduces the file byte for byte; a flag given with --from overrides it.
func TestExportFromColouring(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png"), filepath.Join(dir, "c.png")
	mustExport(t, "--renderer=cpu", "--center=-0.7453,0.1127", "--zoom=180", "--size=90x60", "--colouring=distance", "--line-width=1.5", "--transfer=log", "--density=20", "-o", a)
	md, err := export.ReadMetadata(a)
	if err != nil {
		t.Fatal(err)
	}
	if col := md.Location.Color; col.Method != colour.MethodDistance || col.Width != 1.5 || col.Transfer != colour.TransferLog {
		t.Fatalf("stored colouring %+v", col)
	}
	mustExport(t, "--renderer=cpu", "--from="+a, "-o", b)
	if !bytes.Equal(readFile(t, a), readFile(t, b)) {
		t.Fatal("--from did not reproduce the export byte for byte")
	}
	mustExport(t, "--renderer=cpu", "--from="+a, "--colouring=smooth", "--transfer=linear", "-o", c)
	if md, err := export.ReadMetadata(c); err != nil || md.Location.Color.Method != "" || md.Location.Color.Transfer != "" {
		t.Fatalf("--from with --colouring=smooth: %+v %v", md.Location.Color, err)
	}
}

// export --shard=I/N for every I, then assemble: the one-machine export, byte for byte;
// bad --shard values are refused with one line; a shard run again says it is complete.
func TestExportShardsAndAssemble(t *testing.T) {
	dir := t.TempDir()
	view := []string{"--center=-0.7453,0.1127", "--zoom=180", "--iterations=300", "--size=150x97", "--renderer=cpu"}
	whole := filepath.Join(dir, "whole.png")
	mustExport(t, append(view, "-o", whole)...)
	out := filepath.Join(dir, "s.png")
	for i := range 3 {
		mustExport(t, append(view, "--shard="+string(rune('0'+i))+"/3", "-o", out)...)
	}
	if errs := mustExport(t, append(view, "--shard=2/3", "-o", out)...); !strings.Contains(errs, "already complete") {
		t.Errorf("a shard run again: %s", errs)
	}
	var so, se bytes.Buffer
	if code := Run([]string{"assemble", out}, &so, &se); code != 0 {
		t.Fatalf("assemble: exit %d: %s", code, se.String())
	}
	if !bytes.Equal(readFile(t, out), readFile(t, whole)) {
		t.Fatal("the assembled PNG differs from the one-machine export")
	}
	se.Reset()
	if code := Run([]string{"assemble", out}, &so, &se); code != 1 || !strings.Contains(se.String(), "add --force") {
		t.Errorf("assemble over the PNG: exit %d: %s", code, se.String())
	}
	for _, bad := range [][]string{{"--shard=3/3", "-o", out}, {"--shard=x", "-o", out}, {"--shard=0/2", "--raw=" + filepath.Join(dir, "q.exr")}, {"--shard=0/2", "--raw=" + filepath.Join(dir, "r.exr"), "-o", out}} {
		code, _, errs := exportCmd(append(view, bad...)...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "--shard") {
			t.Errorf("%v: exit %d: %q", bad, code, errs)
		}
	}
	for _, bad := range [][]string{{}, {"a.png", "b.png"}, {"x.jpg"}, {"--shards=0", out}} {
		se.Reset()
		if code := Run(append([]string{"assemble"}, bad...), &so, &se); code != 2 || strings.Count(se.String(), "\n") != 1 {
			t.Errorf("assemble %v: exit %d: %q", bad, code, se.String())
		}
	}
}

// --reference-out writes a deep view's orbit once; shards given it with --reference-in
// assemble into the one-machine export; a file that is not the view's, or not an orbit, is
// refused in one line.
func TestExportReferenceFlags(t *testing.T) {
	dir := t.TempDir()
	view := []string{"--center=-0.743643887037158704752191506114774,0.131825904205311970493132056385139",
		"--zoom=1e20", "--iterations=2000", "--size=120x80", "--renderer=cpu"}
	ref := filepath.Join(dir, "v.ref")
	if errs := mustExport(t, append(view, "--reference-out="+ref)...); !strings.Contains(errs, "wrote "+ref) {
		t.Errorf("--reference-out alone: %s", errs)
	}
	whole := filepath.Join(dir, "whole.png")
	mustExport(t, append(view, "-o", whole)...)
	out := filepath.Join(dir, "s.png")
	for _, s := range []string{"0/2", "1/2"} {
		mustExport(t, append(view, "--reference-in="+ref, "--shard="+s, "-o", out)...)
	}
	var so, se bytes.Buffer
	if code := Run([]string{"assemble", out}, &so, &se); code != 0 || !strings.Contains(se.String(), "reference orbit") {
		t.Fatalf("assemble: exit %d: %s", code, se.String())
	}
	if !bytes.Equal(readFile(t, out), readFile(t, whole)) {
		t.Fatal("the assembled PNG differs from the one-machine export")
	}
	junk := filepath.Join(dir, "junk.ref")
	os.WriteFile(junk, []byte("junk"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{append(view[:len(view):len(view)], "--reference-in="+junk, "-o", filepath.Join(dir, "a.png")), 2, "not a Mandelscope reference orbit"},
		{append(view[:len(view):len(view)], "--reference-in="+filepath.Join(dir, "none.ref"), "-o", filepath.Join(dir, "a.png")), 2, "--reference-in"},
		{append(view[:len(view):len(view)], "--iterations=2001", "--reference-in="+ref, "-o", filepath.Join(dir, "b.png")), 2, "for 2000 iterations"},
		{[]string{"--reference-out=" + filepath.Join(dir, "shallow.ref")}, 1, "not deep enough"},
		{append(view[:len(view):len(view)], "--reference-in="+ref, "--reference-out="+ref), 2, "one or the other"},
	} {
		code, _, errs := exportCmd(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: exit %d: %q, want exit %d with %q", c.args[len(c.args)-1], code, errs, c.code, c.want)
		}
	}
}
