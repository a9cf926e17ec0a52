package preview

import (
	"context"
	"image"
	"os"
	"strconv"
	"strings"
	"testing"

	"mandelscope/colour"
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

// BenchmarkCacheMemory is the memory of the window's PageUp run (issue 31, item 5) without a
// window and without rendering: 150 views of 800x450 left at rest with all their
// AccumulateN x AccumulateN samples (each 104 MB of data, written through so that it is
// resident), the view at rest's reserve held beside them, go through the views cache. It
// reports the peak resident memory (VmHWM) and the cache's bytes. It sets the window's memory
// limit (SetMemoryLimit) unless GOMEMLIMIT is set: GOMEMLIMIT=off measures without one.
// Run it alone: go test ./preview -run '^$' -bench CacheMemory -benchtime 1x.
func BenchmarkCacheMemory(b *testing.B) {
	limited := SetMemoryLimit()
	const w, h = 800, 450
	n := AccumulateN * AccumulateN
	fill := func(d *colour.Data) *colour.Data {
		for i := range d.Pix {
			d.Pix[i] = colour.Sample{Nu: float64(i)}
		}
		return d
	}
	for b.Loop() {
		var c viewCache
		c.setReserve(keptBytes(w, h, AccumulateN, true))
		l := fractal.Home()
		l.Re, l.Im, l.Zoom = fractal.MustDecimal("-0.743643887037151"), fractal.MustDecimal("0.131825904205330"), fractal.MustDecimal("1e3")
		var rest *kept
		for i := range 151 {
			if i > 0 {
				l = l.ZoomAt(w/2, h/2, 2, w, h)
			}
			l.Iterations = fractal.AutoIterations(l.ZoomFloat())
			k := &kept{req: Request{Loc: l, W: w, H: h}, of: n, picN: n, pic: image.NewRGBA(image.Rect(0, 0, w, h))}
			k.full = fill(colour.NewData(image.Rect(0, 0, w, h)))
			for range n {
				k.samples = append(k.samples, fill(colour.NewData(image.Rect(0, 0, w, h))))
			}
			k.sum = make([]uint32, 4*w*h)
			for j := range k.sum {
				k.sum[j] = uint32(j)
			}
			for j := range k.pic.Pix {
				k.pic.Pix[j] = byte(j)
			}
			if rest != nil {
				c.put(rest) // the view left
			}
			rest = k
			if i%25 == 0 {
				views, data, bytes := c.stats()
				b.Logf("view %d: RSS %s, peak %s, cache %d views (%d with data) %d MB", i, procStatus("VmRSS"), procStatus("VmHWM"), views, data, bytes>>20)
			}
		}
		_, _, bytes := c.stats()
		b.ReportMetric(float64(bytes)/(1<<20), "cacheMB")
	}
	if kb, err := strconv.Atoi(strings.TrimSuffix(procStatus("VmHWM"), " kB")); err == nil {
		b.ReportMetric(float64(kb)/1024, "peakRSS-MB")
	}
	b.Logf("memory limit set: %v", limited)
}

// procStatus is a field of /proc/self/status ("" where there is none).
func procStatus(key string) string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
