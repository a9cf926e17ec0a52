package export

import (
	"context"
	"errors"
	"image"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/deeptest"
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

// TestExportAutoDensityShallow: at a shallow view the automatic density is 1, and the export
// is byte for byte the one with density 1 given.
func TestExportAutoDensityShallow(t *testing.T) {
	auto := testLoc()
	if !auto.Color.AutoDensity {
		t.Fatal("the test view's density is not automatic")
	}
	explicit := auto
	explicit.Color.AutoDensity = false
	a, sum := export(t, t.TempDir(), Options{Location: auto, Width: 120, Height: 80})
	b, _ := export(t, t.TempDir(), Options{Location: explicit, Width: 120, Height: 80})
	sameFile(t, a, b)
	if sum.Location != explicit {
		t.Errorf("summary's location %+v, want %+v", sum.Location.Color, explicit.Color)
	}
	md, err := ReadMetadata(a)
	if err != nil || md.Location != explicit {
		t.Errorf("metadata %+v, %v", md.Location.Color, err)
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
	if sum.Location.Color.AutoDensity || !(d >= 0.003 && d <= 0.01) {
		t.Fatalf("resolved to %+v", sum.Location.Color)
	}
	md, err := ReadMetadata(path)
	if err != nil || md.Location != sum.Location {
		t.Fatalf("metadata %+v, %v; drew %+v", md.Location.Color, err, sum.Location.Color)
	}
	again, _ := export(t, t.TempDir(), Options{Location: md.Location, Width: md.Width, Height: md.Height})
	sameFile(t, path, again)
	// A renderer that cannot compute samples, and no sampler: drawn at the Density held (1),
	// recorded as that.
	other := filepath.Join(t.TempDir(), "o.png")
	sum, err = Export(context.Background(), renderOnly{&cpu.Renderer{}}, other, Options{Location: loc, Width: w, Height: h, Version: "test"})
	if err != nil || sum.Location.Color.AutoDensity || sum.Location.Color.Density != 1 {
		t.Fatalf("render-only renderer: %+v, %v", sum.Location.Color, err)
	}
	// ... and with a sampler, the same choice as the CPU renderer's own.
	sum, err = Export(context.Background(), renderOnly{&cpu.Renderer{}}, other, Options{Location: loc, Width: w, Height: h, Version: "test", Sampler: &cpu.Renderer{}, Overwrite: true})
	if err != nil || sum.Location.Color != md.Location.Color {
		t.Fatalf("with a sampler: %+v, %v", sum.Location.Color, err)
	}
	sameFile(t, other, path)
}

// TestResumeAutoDensity: an interrupted export resumed with an automatic density continues
// with the density its checkpoint records (the first run's), byte for byte; with another
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
	sameFile(t, path, whole)
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
