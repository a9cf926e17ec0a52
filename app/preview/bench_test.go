package preview

import (
	"context"
	"image"
	"strconv"
	"testing"

	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// BenchmarkScaleUp measures the nearest-neighbour scale-up of an interactive frame to
// 1280x720 at 1/2 and 1/16.
func BenchmarkScaleUp(b *testing.B) {
	for _, sc := range []int{2, 16} {
		b.Run("1/"+strconv.Itoa(sc), func(b *testing.B) {
			src := image.NewRGBA(image.Rect(0, 0, ceilDiv(1280, sc), ceilDiv(720, sc)))
			dst := image.NewRGBA(image.Rect(0, 0, 1280, 720))
			b.SetBytes(int64(len(dst.Pix)))
			b.ReportAllocs()
			for b.Loop() {
				ScaleUp(dst, src, sc)
			}
		})
	}
}

// BenchmarkInteractiveCPU measures an interactive frame of the home view at 640x360 on the
// CPU renderer, at the scale the scheduler picks.
func BenchmarkInteractiveCPU(b *testing.B) {
	s := New(&cpu.Renderer{})
	loc := fractal.Home()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := s.Interactive(context.Background(), loc, 640, 360); err != nil {
			b.Fatal(err)
		}
	}
}
