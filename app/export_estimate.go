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

// sampleRepeats and sampleBudget bound the warm renders of a sample (sampleView): up to
// sampleRepeats of them, while the sample has taken less than sampleBudget in all.
const (
	sampleRepeats = 3
	sampleBudget  = 1500 * time.Millisecond
)

// exportFixedCost is what an export spends once whatever its size: its files made, synced to
// disk and renamed (several fsyncs), and the automatic density's sample. Measured here with
// the CPU renderer: 384x216 and 768x432 exports spent 80 to 190 ms writing (mostly syncing)
// for 41 to 150 ms rendering; nothing next to a 4K export's seconds, but half a small one's.
const exportFixedCost = 100 * time.Millisecond

// exportSample is what a sample of one view measured.
type exportSample struct {
	view      string        // the location and frame size it was made for (sampleKey)
	perSample time.Duration // render time per sample, warm (the least of the warm renders)
	fixed     time.Duration // what the first render took beyond a warm one: paid once
	bpp       float64       // PNG bytes per pixel
	err       error
}

// sampleKey names the sample of view l for a frame of w x h rendered pixels.
func sampleKey(l fractal.Location, w, h int) string {
	return fmt.Sprintf("%s %dx%d", l.String(), w, h)
}

// sampleBands is the number of bands of rows a sample takes across its frame (sampleFrame).
const sampleBands = 8

// sampleView measures a sample of l at sampleW x sampleH, whole (the video dialog's, for
// its keyframes).
func sampleView(r export.TileRenderer, l fractal.Location) exportSample {
	return sampleFrame(r, l, sampleW, sampleH)
}

// sampleFrame measures a sample of l in the frame of w x h pixels that an export renders
// (its size times the supersampling), with the export's renderer (on the calling
// goroutine): sampleBands bands of rows spread evenly down the frame, of sampleW x sampleH
// pixels in all (full rows where that many allow; a centred part of each row of a wider
// frame). The frame's own pixels, not a smaller picture of the view: a view costs more a
// pixel the finer it is drawn (seahorse valley at zoom 300: 650 ns a pixel at 1920x1080,
// 416 at 384x216, on the CPU here), and compresses better.
//
// The first render of a view pays once for what an export pays once too (a GL program
// compiled for a new mode, the reference orbit of a deep view): 117 ms for the 5 ms of a
// warm render at the whole set with the GL renderer here, which counted per sample made a
// 1920x1080 export's estimate 5.4 times its time (2.9 s for 0.54 s). So the sample is
// rendered again, warm, up to sampleRepeats times, and its rate is the least of those (a
// render that waited for the preview's, on the same GL thread, is not the rate); what the
// first render took beyond that is the fixed cost.
func sampleFrame(r export.TileRenderer, l fractal.Location, w, h int) exportSample {
	return sampleFrameBy(r, l, w, h, time.Now)
}

// sampleFrameBy is sampleFrame timing the renders by the clock now (a test's model renderer
// advances its own).
func sampleFrameBy(r export.TileRenderer, l fractal.Location, w, h int, now func() time.Time) exportSample {
	s := exportSample{view: sampleKey(l, w, h)}
	f := fractal.NewFrame(l, w, h)
	bands := sampleRects(w, h, r.MaxTile())
	imgs := make([]*image.RGBA, len(bands))
	n := 0
	for i, b := range bands {
		imgs[i] = image.NewRGBA(b)
		n += b.Dx() * b.Dy()
	}
	render := func() (time.Duration, error) {
		t0 := now()
		for i, b := range bands {
			if err := r.Render(context.Background(), f, b, imgs[i]); err != nil {
				return 0, err
			}
		}
		return now().Sub(t0), nil
	}
	start := now()
	cold, err := render()
	if err != nil {
		s.err = err
		return s
	}
	warm := cold
	for i := 0; i < sampleRepeats && (i == 0 || now().Sub(start) < sampleBudget); i++ {
		d, err := render()
		if err != nil {
			s.err = err
			return s
		}
		warm = min(warm, d)
	}
	s.perSample = warm / time.Duration(n)
	s.fixed = cold - warm
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	for _, img := range imgs {
		if err := enc.Encode(&buf, img); err != nil {
			s.err = err
			return s
		}
	}
	s.bpp = float64(buf.Len()) / float64(n)
	return s
}

// sampleRects are the bands of a sample of a w x h frame (sampleFrame): sampleBands of them,
// centred at the middle of each eighth of the height, together about sampleW x sampleH
// pixels, each at most maxTile wide; a frame that small is taken whole.
func sampleRects(w, h, maxTile int) []image.Rectangle {
	budget := sampleW * sampleH
	if w*h <= budget && w <= maxTile && h <= maxTile {
		return []image.Rectangle{image.Rect(0, 0, w, h)}
	}
	bw := min(w, maxTile, budget/sampleBands)
	rows := max(1, min(h/sampleBands, budget/(sampleBands*bw)))
	x0 := (w - bw) / 2
	var out []image.Rectangle
	for k := range sampleBands {
		y0 := min(max(0, (2*k+1)*h/(2*sampleBands)-rows/2), h-rows)
		out = append(out, image.Rect(x0, y0, x0+bw, y0+rows))
	}
	return out
}

// estimate says how long an export of w x h at ss x ss supersampling takes and how large its
// file is, from the sample: the fixed costs once (the first render's and exportFixedCost),
// and the warm rate plus the export's overhead per sample.
func (s exportSample) estimate(w, h, ss int) (time.Duration, int64) {
	samples := float64(w) * float64(h) * float64(ss*ss)
	t := s.fixed + exportFixedCost + time.Duration(samples*float64(s.perSample+exportOverheadPerSample))
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
