package app

import (
	"context"
	"image"
	"path/filepath"
	"testing"
	"time"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// slowStart renders nothing, taking perPixel a pixel, and first more at its first call (a GL
// program compiled, a reference orbit) and busy more at its call number busyCall (a render
// that waited for the preview's). It takes that time on its own clock, now, which the test
// gives sampleFrameBy: the measure is exact, whatever else the machine does.
type slowStart struct {
	calls                 int
	perPixel, first, busy time.Duration
	busyCall              int
	now                   time.Time
}

// clock is s's time, for sampleFrameBy.
func (s *slowStart) clock() time.Time { return s.now }

func (s *slowStart) Render(_ context.Context, _ fractal.Frame, rect image.Rectangle, _ *image.RGBA) error {
	d := time.Duration(rect.Dx()*rect.Dy()) * s.perPixel
	if s.calls == 0 {
		d += s.first
	}
	if s.calls == s.busyCall {
		d += s.busy
	}
	s.calls++
	s.now = s.now.Add(d)
	return nil
}

func (s *slowStart) MaxTile() int { return 4096 }
func (s *slowStart) Name() string { return "slow start" }

// The sample's rate is a warm render's, not the first's: a renderer whose first call takes
// 300 ms more (and one later call 100 ms more) and then 100 ns a pixel gives about 100 ns a
// sample and 300 ms once, and a 4K estimate within a factor of two of that model's time (the
// first call counted per sample made it 31 s for 1.6 s).
func TestExportSampleIsWarm(t *testing.T) {
	r := &slowStart{perPixel: 100 * time.Nanosecond, first: 300 * time.Millisecond, busy: 100 * time.Millisecond, busyCall: sampleBands}
	s := sampleFrameBy(r, fractal.Home(), 3840, 2160, r.clock)
	if s.err != nil {
		t.Fatal(s.err)
	}
	if s.perSample < r.perPixel || s.perSample > 2*r.perPixel {
		t.Errorf("rate %v a sample, want %v to twice that", s.perSample, r.perPixel)
	}
	if s.fixed < r.first*3/4 || s.fixed > 2*r.first {
		t.Errorf("fixed cost %v, want about %v", s.fixed, r.first)
	}
	const w, h = 3840, 2160
	model := r.first + exportFixedCost + time.Duration(w*h)*(r.perPixel+exportOverheadPerSample)
	if got, _ := s.estimate(w, h, 1); got < model/2 || got > 2*model {
		t.Errorf("4K estimate %v, the model's time %v", got, model)
	}
}

// A sample takes sampleBands bands of full rows of the export's own frame, spread down it,
// about sampleW x sampleH pixels in all; a small frame whole; a wide one a centred part of
// each row, no wider than a tile.
func TestSampleRects(t *testing.T) {
	for _, c := range []struct{ w, h, tile int }{{3840, 2160, 4096}, {1920, 1080, 4096}, {600, 7000, 4096}, {65536 * 4, 100, 16384}, {384, 216, 4096}, {100, 50, 4096}} {
		rs := sampleRects(c.w, c.h, c.tile)
		n := 0
		for i, r := range rs {
			n += r.Dx() * r.Dy()
			if !r.In(image.Rect(0, 0, c.w, c.h)) || r.Empty() || r.Dx() > c.tile {
				t.Errorf("%dx%d: band %v outside the frame, empty or wider than a tile", c.w, c.h, r)
			}
			if i > 0 && r.Min.Y < rs[i-1].Max.Y {
				t.Errorf("%dx%d: bands %v and %v overlap", c.w, c.h, rs[i-1], r)
			}
		}
		switch {
		case c.w*c.h <= sampleW*sampleH:
			if len(rs) != 1 || rs[0] != image.Rect(0, 0, c.w, c.h) {
				t.Errorf("%dx%d: %v, want the whole frame", c.w, c.h, rs)
			}
		case len(rs) != sampleBands || n > sampleW*sampleH || n < sampleW*sampleH/2:
			t.Errorf("%dx%d: %d bands of %d pixels in all", c.w, c.h, len(rs), n)
		}
		if c.w == 1920 && (rs[0].Dx() != 1920 || rs[len(rs)-1].Max.Y < c.h*7/8) {
			t.Errorf("1920x1080: bands %v are not full rows down the frame", rs)
		}
	}
}

// BenchmarkExportEstimate measures the Export dialog's estimate of a small CPU export against
// the time the export takes, both here, each the least of three runs: the ratio (est/actual) is
// the metric; timing belongs in a benchmark, not a test. Measured on 2 loaded cores: 0.91-0.96.
//
//	go test ./app -run XXX -bench ExportEstimate -benchtime=1x
func BenchmarkExportEstimate(b *testing.B) {
	r := &cpu.Renderer{}
	l := testLoc("-0.7436438870371587", "0.1318259042053113", "300", 400)
	const w, h = 768, 432
	dir := b.TempDir()
	for b.Loop() {
		var est, took time.Duration
		for i := range 3 {
			e, _ := sampleFrame(r, l, w, h).estimate(w, h, 1)
			t0 := time.Now()
			if _, err := export.Export(context.Background(), r, filepath.Join(dir, "x.png"),
				export.Options{Location: l, Width: w, Height: h, Overwrite: true, Version: "test"}); err != nil {
				b.Fatal(err)
			}
			d := time.Since(t0)
			if i == 0 || e < est {
				est = e
			}
			if i == 0 || d < took {
				took = d
			}
		}
		b.ReportMetric(float64(est)/float64(took), "est/actual")
	}
}
