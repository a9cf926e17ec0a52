package preview

import (
	"context"
	"encoding/binary"
	"image"
	"math"
	"testing"
	"time"

	"mandelscope/fractal"
)

// coordRenderer writes into each pixel the point it samples, quantised: the real part's
// offset from re0 in steps of q as a 16-bit number in the first two bytes, the imaginary
// part's in the last two, so a test can read back where every pixel's value came from.
type coordRenderer struct {
	re0, im0, q float64
	px          int // pixels rendered
}

func (c *coordRenderer) Render(_ context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			re, im := f.Point64(x, y)
			i := dst.PixOffset(x-rect.Min.X+dst.Rect.Min.X, y-rect.Min.Y+dst.Rect.Min.Y)
			binary.LittleEndian.PutUint16(dst.Pix[i:], uint16(int64(math.Round((re-c.re0)/c.q))))
			binary.LittleEndian.PutUint16(dst.Pix[i+2:], uint16(int64(math.Round((im-c.im0)/c.q))))
			c.px++
		}
	}
	return nil
}

// decode is the point pixel (x, y) of img came from, the 16-bit offsets unwrapped to the
// values nearest to the point (near) the pixel shows.
func (c *coordRenderer) decode(img *image.RGBA, x, y int, nearRe, nearIm float64) (re, im float64) {
	i := img.PixOffset(x, y)
	unwrap := func(v uint16, near, base float64) float64 {
		n := (near - base) / c.q
		d := float64(int16(v - uint16(int64(math.Round(n)))))
		return base + (math.Round(n)+d)*c.q
	}
	return unwrap(binary.LittleEndian.Uint16(img.Pix[i:]), nearRe, c.re0), unwrap(binary.LittleEndian.Uint16(img.Pix[i+2:]), nearIm, c.im0)
}

// Every pixel of an interactive frame that reuses the last one shows a point within (b-1)/2
// pixels (along each axis) of the pixel's own, b its block side (as a reduced render at 1/b
// does: its value is the block's centre),
// through pans, zooms in and out, at a view size that is not a multiple of the tiles.
func TestIncrementalBlocksAreHonest(t *testing.T) {
	// No time to render (only what the old frame does not cover, at 1/16), some, and plenty.
	for _, target := range []time.Duration{time.Nanosecond, 100 * time.Microsecond, time.Second} {
		t.Run(target.String(), func(t *testing.T) { testHonestBlocks(t, target) })
	}
}

func testHonestBlocks(t *testing.T, target time.Duration) {
	const w, h = 151, 97
	loc := testLoc()
	loc.Zoom = fractal.MustDecimal("2e4")
	f0 := fractal.NewFrame(loc, w, h)
	r := &coordRenderer{re0: f0.Re, im0: f0.Im, q: f0.Spacing / 64}
	s := New(r)
	s.Target = target
	if _, _, err := s.Full(context.Background(), loc, w, h, nil); err != nil {
		t.Fatal(err)
	}
	steps := []func(fractal.Location) fractal.Location{
		func(l fractal.Location) fractal.Location { return l.Offset(7, -3, w, h) },
		func(l fractal.Location) fractal.Location { return l.ZoomAt(40.3, 70.9, 1.25, w, h) },
		func(l fractal.Location) fractal.Location { return l.ZoomAt(100, 20, 1.25, w, h) },
		func(l fractal.Location) fractal.Location { return l.ZoomAt(75.5, 48.5, 1.25, w, h) },
		func(l fractal.Location) fractal.Location { return l.Offset(-30.5, 12, w, h) },
		func(l fractal.Location) fractal.Location { return l.ZoomAt(10, 90, 0.8, w, h) },
		func(l fractal.Location) fractal.Location { return l.ZoomAt(75.5, 48.5, 1.5, w, h) },
	}
	for i, step := range steps {
		loc = step(loc)
		r.px = 0
		img, st, err := s.Interactive(context.Background(), loc, w, h)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Reused {
			t.Fatalf("step %d: the frame did not reuse the last one", i)
		}
		if st.PixelsRendered != r.px {
			t.Errorf("step %d: stats say %d pixels rendered, the renderer did %d", i, st.PixelsRendered, r.px)
		}
		b := s.last.block
		f := fractal.NewFrame(loc, w, h)
		worst := 0.0
		for y := range h {
			for x := range w {
				pre, pim := f.Point64(x, y)
				re, im := r.decode(img, x, y, pre, pim)
				d := math.Max(math.Abs(re-pre), math.Abs(im-pim)) / f.Spacing
				if d > (float64(b[y*w+x])-1)/2+1.0/32 {
					t.Fatalf("step %d: pixel %d,%d shows a point %.3f pixels away, its block is %.3f", i, x, y, d, b[y*w+x])
				}
				worst = max(worst, d)
			}
		}
		if st.BlockP95 < st.Block || st.Block < 1 {
			t.Errorf("step %d: block median %.3f, p95 %.3f", i, st.Block, st.BlockP95)
		}
		t.Logf("step %d: %d px rendered, block median %.2f p95 %.2f, farthest point %.2f px", i, st.PixelsRendered, st.Block, st.BlockP95, worst)
	}
}

// After a full frame, a pan renders only the tiles it exposes and shows the rest of the full
// frame shifted, pixel for pixel.
func TestIncrementalPanRendersOnlyWhatIsNew(t *testing.T) {
	const w, h = 200, 120
	loc := testLoc()
	loc.Zoom = fractal.MustDecimal("2e4")
	f0 := fractal.NewFrame(loc, w, h)
	r := &coordRenderer{re0: f0.Re, im0: f0.Im, q: f0.Spacing / 64}
	s := New(r)
	s.Target = time.Second // budget for everything
	full, _, err := s.Full(context.Background(), loc, w, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	const dx = 10 // the view moves 10 pixels right: the picture 10 left
	img, st, err := s.Interactive(context.Background(), loc.Offset(dx, 0, w, h), w, h)
	if err != nil {
		t.Fatal(err)
	}
	kept := (w - dx) / tileSide * tileSide // the tiles left of the exposed strip
	if st.PixelsRendered == 0 || st.PixelsRendered > (w-kept)*h {
		t.Errorf("%d pixels rendered, want the tiles the pan exposes (at most %d)", st.PixelsRendered, (w-kept)*h)
	}
	for y := range h {
		for x := range kept {
			if got, want := img.RGBAAt(x, y), full.RGBAAt(x+dx, y); got != want {
				t.Fatalf("pixel %d,%d = %v, want the full frame's %d,%d %v", x, y, got, x+dx, y, want)
			}
		}
	}
	if st.Block != 1 || st.BlockP95 != 1 {
		t.Errorf("block median %.2f p95 %.2f after a pan of a full frame rendered at full resolution, want 1", st.Block, st.BlockP95)
	}
}

// A new colouring or size starts over: nothing to reuse.
func TestIncrementalStartsOver(t *testing.T) {
	const w, h = 120, 80
	loc := testLoc()
	r := &coordRenderer{q: 1e-9}
	s := New(r)
	if _, _, err := s.Full(context.Background(), loc, w, h, nil); err != nil {
		t.Fatal(err)
	}
	other := loc
	other.Color.Offset = 0.5
	for _, c := range []struct {
		loc  fractal.Location
		w, h int
	}{{other, w, h}, {loc, w + 1, h}} {
		if _, st, err := s.Interactive(context.Background(), c.loc, c.w, c.h); err != nil || st.Reused {
			t.Errorf("%dx%d %v: reused %v, err %v", c.w, c.h, c.loc.Color, st.Reused, err)
		}
		if _, _, err := s.Full(context.Background(), loc, w, h, nil); err != nil {
			t.Fatal(err)
		}
	}
}

type nopRenderer struct{}

func (nopRenderer) Render(context.Context, fractal.Frame, image.Rectangle, *image.RGBA) error {
	return nil
}

// BenchmarkIncrementalOverhead measures what a reusing frame costs besides rendering, at
// 1280x720 during a slow zoom (x1.01 a frame): the resample, the tile plan and the block
// statistics.
func BenchmarkIncrementalOverhead(b *testing.B) {
	const w, h = 1280, 720
	s := New(nopRenderer{})
	s.Target = time.Nanosecond // no time to render: the overhead alone
	loc := testLoc()
	if _, _, err := s.Full(context.Background(), loc, w, h, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		loc = loc.ZoomAt(700, 300, 1.01, w, h)
		if _, _, err := s.Interactive(context.Background(), loc, w, h); err != nil {
			b.Fatal(err)
		}
	}
}

// countRenderer draws nothing and counts the pixels it is asked for.
type countRenderer struct{ px int }

func (c *countRenderer) Render(_ context.Context, _ fractal.Frame, rect image.Rectangle, _ *image.RGBA) error {
	c.px += rect.Dx() * rect.Dy()
	return nil
}

// Past float64's exponent range (zoom 1e400) a pan still reuses the last frame: the shift is
// taken in math/big and the spacing with an unbounded exponent.
func TestIncrementalBeyondFloat64(t *testing.T) {
	const w, h = 200, 120
	loc := testLoc()
	loc.Re = fractal.MustDecimal("-1.99999911758766165543536704557")
	loc.Im = fractal.MustDecimal("0")
	loc.Zoom = fractal.MustDecimal("1e400")
	loc.Iterations = 100
	r := &countRenderer{}
	s := New(r)
	s.Target = time.Second
	if _, _, err := s.Full(context.Background(), loc, w, h, nil); err != nil {
		t.Fatal(err)
	}
	r.px = 0
	_, st, err := s.Interactive(context.Background(), loc.Offset(10, 0, w, h), w, h)
	if err != nil {
		t.Fatal(err)
	}
	kept := (w - 10) / tileSide * tileSide
	if !st.Reused || r.px == 0 || r.px > (w-kept)*h {
		t.Errorf("reused %v, %d pixels rendered; want the pan's exposed tiles only (at most %d)", st.Reused, r.px, (w-kept)*h)
	}
}
