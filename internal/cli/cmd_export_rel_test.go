package cli

import (
	"bytes"
	"context"
	"errors"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
	"mandelscope/internal/version"
	"mandelscope/render/cpu"
)

// The command-line side of issue 8's export cases: each refusal is one line that says what
// to do, in the command line's own terms.

var relFlags = []string{"--renderer=cpu", "--size=160x120", "--center=-0.7453,0.1127", "--zoom=180", "--iterations=300"}

func flagsWith(extra ...string) []string { return append(append([]string{}, relFlags...), extra...) }

// oneLineWith checks an exit code and that the message is one line containing every want.
func oneLineWith(t *testing.T, what string, code int, errs string, wantCode int, want ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	last := lines[len(lines)-1]
	if code != wantCode {
		t.Errorf("%s: exit %d, want %d: %q", what, code, wantCode, errs)
	}
	for _, w := range want {
		if !strings.Contains(last, w) {
			t.Errorf("%s: %q does not say %q", what, last, w)
		}
	}
}

// interruptedCmd runs `export` to out with a job stopped after its first strips: it cancels
// from the progress callback, as Ctrl-C would.
func interruptedCmd(t *testing.T, r export.TileRenderer, args ...string) {
	t.Helper()
	job, err := parseExport(args, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	opt := export.Options{Location: job.loc, Width: job.w, Height: job.h, Supersample: job.ss, Tile: job.tile, Version: version.Version,
		Progress: func(p export.Progress) {
			if p.Strip >= 2 {
				cancel()
			}
		}}
	if _, err := export.Export(ctx, r, job.out, opt); !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("interrupted export: %v", err)
	}
}

// gpuLike draws the CPU renderer's pixels but has a GPU's identity.
type gpuLike struct{ cpu.Renderer }

func (g *gpuLike) Identity(f fractal.Frame) string {
	return "OpenGL: test GPU, " + f.Precision().String()
}
func (g *gpuLike) Name() string { return "OpenGL: test GPU" }

func TestExportRefusalsSayWhatToDo(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o.png")

	// A .part without a checkpoint: both ways say --force, and --force works.
	os.WriteFile(export.PartPath(out), []byte("half"), 0o644)
	code, _, errs := exportCmd(flagsWith("-o", out)...)
	oneLineWith(t, ".part without checkpoint", code, errs, 2, "no checkpoint", "--force")
	code, _, errs = exportCmd(flagsWith("--resume", "-o", out)...)
	oneLineWith(t, "--resume of a .part without checkpoint", code, errs, 2, "nothing to resume", "--force")
	mustExport(t, flagsWith("--force", "-o", out)...)
	if _, err := export.ReadMetadata(out); err != nil {
		t.Fatal(err)
	}

	// The parent is a file.
	code, _, errs = exportCmd(flagsWith("-o", filepath.Join(out, "x.png"))...)
	oneLineWith(t, "-o under a file", code, errs, 2, out+" is a file, not a folder")

	// A checkpoint made by another renderer.
	g := filepath.Join(dir, "g.png")
	interruptedCmd(t, &gpuLike{}, flagsWith("-o", g)...)
	code, _, errs = exportCmd(flagsWith("--resume", "-o", g)...)
	oneLineWith(t, "GPU checkpoint resumed on the CPU", code, errs, 1, "OpenGL: test GPU", "--renderer=gpu", "--force")
	c := filepath.Join(dir, "c.png")
	interruptedCmd(t, &cpu.Renderer{}, flagsWith("-o", c)...)
	job, err := parseExport(flagsWith("--resume", "-o", c), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = doExport(job, &gpuLike{}, &buf, nil)
	oneLineWith(t, "CPU checkpoint resumed on the GPU", 1, err.Error(), 1, "CPU (pure Go)", "--renderer=cpu")

	// A damaged checkpoint.
	ck := export.CheckpointPath(c)
	data, _ := os.ReadFile(ck)
	os.WriteFile(ck, bytes.Replace(data, []byte(`"next_strip": 2`), []byte(`"next_strip": 0`), 1), 0o644)
	code, _, errs = exportCmd(flagsWith("--resume", "-o", c)...)
	oneLineWith(t, "edited checkpoint", code, errs, 1, "cannot resume", "--force")
	if b, _ := os.ReadFile(ck); bytes.Equal(b, data) {
		t.Fatal("the test did not change the checkpoint")
	}
}

// A size from --from's IHDR is checked like --size; non-integer metadata is refused.
func TestExportFromChecksFile(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, w, h int, key, val string) string {
		var text []export.Text
		for _, tx := range export.MetadataText(fractal.Home(), w, h, 1, version.Version) {
			if tx.Key == key {
				tx.Value = val
			}
			text = append(text, tx)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, imagetest.MetadataPNG(w, h, text), 0o644)
		return p
	}
	out := filepath.Join(dir, "o.png")
	for _, tc := range []struct {
		from string
		want string
	}{
		{mk("wide.png", 100000, 10, "", ""), "100000x10 is out of range"},
		{mk("tall.png", 1, 1<<30, "", ""), "out of range"},
		{mk("frac.png", 10, 10, export.KeyIterations, "200.9"), "whole number"},
		{mk("nan.png", 10, 10, export.KeyDensity, "NaN"), "finite"},
	} {
		code, _, errs := exportCmd("--renderer=cpu", "--from="+tc.from, "-o", out)
		oneLineWith(t, tc.from, code, errs, 2, "--from", tc.want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an export was written")
	}
}

// A second export of a file that is being exported gets a clear one-line error,
// whatever its flags.
func TestExportBusy(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.png")
	b := &stuckRenderer{entered: make(chan struct{}), release: make(chan struct{})}
	job, err := parseExport(flagsWith("-o", out), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- doExport(job, b, &bytes.Buffer{}, nil) }()
	<-b.entered
	for _, extra := range [][]string{nil, {"--force"}, {"--resume"}} {
		code, _, errs := exportCmd(flagsWith(append(extra, "-o", out)...)...)
		oneLineWith(t, "second export "+strings.Join(extra, " "), code, errs, 2, "another export of "+out+" is running")
	}
	close(b.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// stuckRenderer's first Render call blocks until release, ignoring ctx (a GPU draw that
// cannot be interrupted); cancelled closes when that call's ctx is cancelled.
type stuckRenderer struct {
	cpu.Renderer
	entered, release chan struct{}
	cancelled        chan struct{}
	once             sync.Once
}

func (s *stuckRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	s.once.Do(func() {
		if s.cancelled != nil {
			go func() { <-ctx.Done(); close(s.cancelled) }()
		}
		close(s.entered)
		<-s.release
	})
	return s.Renderer.Render(context.Background(), f, rect, dst)
}

// The first Ctrl-C asks the export to stop; a second one ends the process at once, even while
// a render call does not return. The signals come through doExport's channel, in order: an
// unbuffered send returns once the export has taken the signal.
func TestExportSecondInterruptQuits(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "q.png")
	job, err := parseExport(flagsWith("-o", out), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan int, 1)
	exitNow = func(code int) { exited <- code }
	defer func() { exitNow = os.Exit }()
	s := &stuckRenderer{entered: make(chan struct{}), release: make(chan struct{}), cancelled: make(chan struct{})}
	var errb lockedBuffer
	sigs := make(chan os.Signal)
	done := make(chan error)
	go func() { done <- doExport(job, s, &errb, sigs) }()
	<-s.entered
	sigs <- os.Interrupt
	<-s.cancelled // the first signal has been handled: the export is cancelled
	select {
	case code := <-exited:
		t.Fatalf("the first Ctrl-C quit at once (%d)", code)
	default:
	}
	sigs <- os.Interrupt
	if code := <-exited; code != 130 {
		t.Errorf("exit code %d, want 130", code)
	}
	if _, err := os.Lstat(export.LockPath(out)); err == nil {
		t.Error("the lock file is left after quitting at once")
	}
	close(s.release)
	err = <-done
	if !strings.Contains(err.Error(), "--resume") {
		t.Errorf("after the interrupt: %v", err)
	}
	if !strings.Contains(errb.String(), "again to quit at once") {
		t.Errorf("the first Ctrl-C does not say a second one quits: %q", errb.String())
	}
}

// lockedBuffer is a bytes.Buffer that the export's goroutines and the test may share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// signalling sends sig on sigs at the start of its render call number at (counting from 1),
// then renders that tile with the export's ctx (cancelled by then, or soon) and every other
// as cpu.Renderer does; calls counts them.
type signalling struct {
	cpu.Renderer
	at    int64
	sig   os.Signal
	sigs  chan<- os.Signal
	calls atomic.Int64
}

func (s *signalling) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if s.calls.Add(1) == s.at {
		s.sigs <- s.sig
	}
	return s.Renderer.Render(ctx, f, rect, dst)
}

// At 1e8 iterations a small export stops on SIGTERM with exit 143, keeping the .part for
// --resume. (Its middle row lies on the real axis just right of the cusp at 0.25: 3e7 to
// 1e8 iterations a pixel, many seconds a row; a cancel reaching no pixel in progress would
// hold this test for minutes. That the pixels see it at once, render/cpu's
// TestCancelInsideDeepPixel measures.)
func TestExportInterruptHighIterations(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "slow.png")
	// --density=1: an automatic one would compute a sample of these slow pixels first.
	flags := []string{"--renderer=cpu", "--size=64x47", "--center=0.250000000000001,0", "--zoom=3.5e14", "--iterations=100000000", "--density=1", "-o", out}
	job, err := parseExport(flags, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	sigs := make(chan os.Signal, 2)
	var errb lockedBuffer
	err = doExport(job, &signalling{at: 1, sig: syscall.SIGTERM, sigs: sigs}, &errb, sigs)
	var ee ExitError
	if !errors.As(err, &ee) || ee.Code != 143 || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("err = %v (%q), want exit 143 with --resume advice", err, errb.String())
	}
	for _, p := range []string{export.PartPath(out), export.CheckpointPath(out)} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s not kept: %v", p, err)
		}
	}
}

// Issue 16, item 6: -o naming a folder is refused up front, with or without --force or
// --resume, in one line that says it is a folder and never suggests --force.
func TestExportOntoAFolder(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "d.png")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"--force"}, {"--resume"}, {"--resume", "--force"}} {
		code, _, errs := exportCmd(flagsWith(append(extra, "-o", folder)...)...)
		want := "mandelscope export: " + folder + " is a folder, not a file"
		if code != 2 || strings.TrimSpace(errs) != want {
			t.Errorf("export %v onto a folder: exit %d, %q; want exit 2, %q", extra, code, errs, want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the folder's folder, want the folder alone", len(ents))
	}
	// A folder that appeared during the export: the image waits as the .part for --resume;
	// --force would not replace a folder either, and is not offered.
	err := withAdvice(&export.Error{Kind: export.ErrIsFolder, Kept: true, Msg: folder + " is a folder, not a file (it appeared during the export)"}, exportJob{})
	if s := err.Error(); !strings.Contains(s, "--resume") || strings.Contains(s, "--force") {
		t.Errorf("advice for a folder that appeared: %q", s)
	}
}

// Issue 16, item 7: a lock file that is a symbolic link is said to be one, with what to do,
// not "another export is running".
func TestExportLockIsALink(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "o.png")
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), export.LockPath(out)); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, extra := range [][]string{nil, {"--force"}} {
		code, _, errs := exportCmd(flagsWith(append(extra, "-o", out)...)...)
		oneLineWith(t, "a lock file that is a link", code, errs, 2, export.LockPath(out)+" is a symbolic link, not a lock file", "move it away")
		if strings.Contains(errs, "another export") {
			t.Errorf("%q", errs)
		}
	}
}

// Issue 16, items 5 and 6: a resume with other parameters at 1e10000, its centre written with
// 12,288 characters, is refused at once (before a million-iteration reference orbit) in one
// line that names what differs, with both values abbreviated.
func TestExportResumeNamesWhatDiffers(t *testing.T) {
	re := "-0." + strings.Repeat("9", fractal.MaxDecimalDigits-3)
	out := filepath.Join(t.TempDir(), "deep.png")
	flags := []string{"--renderer=cpu", "--size=48x48", "--center=" + re + ",0", "--zoom=1e10000"}
	interruptedCmd(t, &cpu.Renderer{}, append(flags, "--iterations=200", "-o", out)...)
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{append(flags, "--iterations=1000000"), "iterations was 200, now 1000000"},
		{[]string{"--renderer=cpu", "--size=48x48", "--center=" + re[:len(re)-1] + "8,0", "--zoom=1e10000", "--iterations=200"},
			"centre re was -0.99999999999999999…(12286 digits)…99999999, now -0.99999999999999999…(12286 digits)…99999998"},
	} {
		t0 := time.Now()
		code, _, errs := exportCmd(append(tc.flags, "--resume", "-o", out)...)
		oneLineWith(t, "resume with other parameters", code, errs, 1, "different parameters: "+tc.want, "--force")
		last := strings.TrimSpace(errs[strings.LastIndex(strings.TrimSpace(errs), "\n")+1:])
		if len(last) > 450 || strings.Contains(last, strings.Repeat("9", 40)) {
			t.Errorf("a refusal of %d bytes: %s", len(last), last)
		}
		t.Logf("%d bytes in %v: %s", len(last), time.Since(t0).Round(time.Millisecond), last)
	}
}
