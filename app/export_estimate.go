// The export dialog's estimate of an export's time and file size, from a quick sample: the
// view rendered at sampleW x sampleH with the export's renderer, timed, and compressed as PNG.
// Time scales with the samples an export renders (its pixels times the supersampling
// squared); the file with its pixels, at the sample's bytes per pixel, kept within
// export.EstimateRange. A larger picture of the same view is smoother, so the sample's rate
// is an upper bound: 1.1 MB for 510 kB at the whole set, 3.4 MB for 2.8 and 3.2 MB deeper.

package app

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"time"

	"mandelscope/export"
	"mandelscope/fractal"
)

const sampleW, sampleH = 384, 216

// exportOverheadPerSample is what an export spends per sample besides rendering it (tiles,
// the supersampling filter, compression, writing): measured here with the CPU renderer at
// 1920x1080, where a fast view (the whole set) took 3.4 times its sample's render time; with
// it, estimates of 1920x1080 exports at zoom 1, 5e3 and 1e10, 1x and 2x2 supersampling, came
// within 0.65 to 1.55 times the real time on a loaded machine.
const exportOverheadPerSample = 60 * time.Nanosecond

// exportSample is what a sample of one view measured.
type exportSample struct {
	view      string        // the location it was made for (Location.String)
	perSample time.Duration // render time per sample
	bpp       float64       // PNG bytes per pixel
	err       error
}

// sampleView measures a sample of l with the export's renderer (on the calling goroutine).
func sampleView(r export.TileRenderer, l fractal.Location) exportSample {
	s := exportSample{view: l.String()}
	img := image.NewRGBA(image.Rect(0, 0, sampleW, sampleH))
	f := fractal.NewFrame(l, sampleW, sampleH)
	t0 := time.Now()
	if err := r.Render(context.Background(), f, img.Rect, img); err != nil {
		s.err = err
		return s
	}
	s.perSample = time.Since(t0) / (sampleW * sampleH)
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		s.err = err
		return s
	}
	s.bpp = float64(buf.Len()) / (sampleW * sampleH)
	return s
}

// estimate says how long an export of w x h at ss x ss supersampling takes and how large its
// file is, from the sample.
func (s exportSample) estimate(w, h, ss int) (time.Duration, int64) {
	samples := float64(w) * float64(h) * float64(ss*ss)
	t := time.Duration(samples * float64(s.perSample+exportOverheadPerSample))
	lo, hi := export.EstimateRange(w, h)
	size := int64(float64(w)*float64(h)*s.bpp) + 4096
	return t, min(max(size, lo), hi)
}

// roughDuration writes a duration for people: "under a second", "about 40 s", "about 3 min",
// "about 2 h".
func roughDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return "under a second"
	case d < 90*time.Second:
		return fmt.Sprintf("about %d s", int(d.Seconds()+0.5))
	case d < 90*time.Minute:
		return fmt.Sprintf("about %d min", int(d.Minutes()+0.5))
	default:
		return fmt.Sprintf("about %.1f h", d.Hours())
	}
}
