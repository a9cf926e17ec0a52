package export

import (
	"context"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// benchLoc is the benchmark view of the brief: the whole set, real axis -2.5..1.5.
func benchLoc() fractal.Location {
	l := fractal.Home()
	l.Zoom = fractal.MustDecimal("1.7777777777777777")
	return l
}

var (
	benchOnce  sync.Once
	benchStrip *image.RGBA
)

// stripOf renders (once) 256 rows across the middle of the 8K benchmark view.
func stripOf(b *testing.B) *image.RGBA {
	benchOnce.Do(func() {
		f := fractal.NewFrame(benchLoc(), 7680, 4320)
		benchStrip = image.NewRGBA(image.Rect(0, 0, 7680, 256))
		if err := (&cpu.Renderer{}).Render(context.Background(), f, image.Rect(0, 2000, 7680, 2256), benchStrip); err != nil {
			b.Fatal(err)
		}
	})
	return benchStrip
}

// BenchmarkCompressBlock: filter + deflate of one compression job on one core, per level.
func BenchmarkCompressBlock(b *testing.B) {
	src := stripOf(b)
	for _, level := range []int{-2, 1, 2, 3} {
		b.Run(fmt.Sprintf("level%d", level), func(b *testing.B) {
			c, err := newBlockCompressor(level)
			if err != nil {
				b.Fatal(err)
			}
			rows := 64
			b.SetBytes(int64(rows * (3*7680 + 1)))
			b.ReportAllocs()
			var out int
			for b.Loop() {
				d, _, _, err := c.compress(src, 1, 7680, 0, rows)
				if err != nil {
					b.Fatal(err)
				}
				out = len(d)
			}
			b.ReportMetric(float64(out)/float64(rows*(3*7680+1)), "ratio")
		})
	}
}

// copyRenderer "renders" by copying a pre-rendered strip, so that a benchmark measures the
// export pipeline (filter, compression, ordering, writes, fsync), not the fractal.
type copyRenderer struct{ src *image.RGBA }

func (c copyRenderer) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	for y := 0; y < rect.Dy(); y++ {
		sy := (rect.Min.Y + y) % c.src.Rect.Dy()
		copy(dst.Pix[y*dst.Stride:y*dst.Stride+4*rect.Dx()], c.src.Pix[sy*c.src.Stride+4*rect.Min.X:])
	}
	return nil
}
func (c copyRenderer) MaxTile() int { return 1 << 16 }
func (c copyRenderer) Name() string { return "copy" }

// BenchmarkPNGWriter: the whole writing side of an export of 7680x4320 samples to a file (8K,
// or 4K supersampled 2x2); bytes are the samples' RGB bytes (7680x4320x3 in both cases).
func BenchmarkPNGWriter(b *testing.B) {
	r := copyRenderer{stripOf(b)}
	dir := b.TempDir()
	for _, ss := range []int{1, 2} {
		b.Run(fmt.Sprintf("8k-ss%d", ss), func(b *testing.B) {
			b.SetBytes(7680 * 4320 * 3)
			b.ReportAllocs()
			for b.Loop() {
				path := filepath.Join(dir, "b.png")
				os.Remove(path)
				w, h := 7680/ss, 4320/ss
				if _, err := Export(context.Background(), r, path, Options{Location: benchLoc(), Width: w, Height: h, Supersample: ss, Version: "bench"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStripRender: one 1080p export with the CPU renderer (render + write together).
func BenchmarkStripRender(b *testing.B) {
	dir := b.TempDir()
	b.SetBytes(1920 * 1080 * 3)
	for b.Loop() {
		path := filepath.Join(dir, "r.png")
		os.Remove(path)
		if _, err := Export(context.Background(), &cpu.Renderer{}, path, Options{Location: benchLoc(), Width: 1920, Height: 1080, Tile: 1024, Version: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}
