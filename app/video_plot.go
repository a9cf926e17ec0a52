package app

// The video dialog's plot of zoom against time: the frames' log zoom as the video's plan
// (video.Plan) places them, holds and all, with a dot at each waypoint, so that a timeline
// typed as rows of numbers can be seen before anything is computed.

import (
	"image"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/fractal"
	"mandelscope/video"
)

// plotSamples is how many frames of the plan the curve passes through (at most).
const plotSamples = 256

// zoomPlot is the plot: a curve of log10 zoom (up) against seconds (across).
type zoomPlot struct {
	t, y   []float64 // the curve: seconds and log10 zoom, t increasing
	wt, wy []float64 // the waypoints' dots
	lo, hi float64   // the y axis' range

	raster       *canvas.Raster
	top, bottom  *widget.Label // the highest and lowest zooms
	end          *widget.Label // the duration
	obj          *fyne.Container
	curve, point color.Color
}

func newZoomPlot() *zoomPlot {
	p := &zoomPlot{
		top: widget.NewLabel(""), bottom: widget.NewLabel(""), end: widget.NewLabel(""),
		curve: theme.Color(theme.ColorNamePrimary), point: theme.Color(theme.ColorNameForeground),
	}
	p.raster = canvas.NewRaster(p.draw)
	p.raster.SetMinSize(fyne.NewSize(240, 80))
	axis := container.NewBorder(p.top, p.bottom, nil, nil)
	p.obj = container.NewBorder(nil, container.NewBorder(nil, nil, nil, p.end), axis, nil, p.raster)
	p.obj.Hide()
	return p
}

// set shows plan p (of a video of duration seconds whose timeline is ws, nil for the
// constant-speed zoom), or hides the plot when ok is false.
func (p *zoomPlot) set(pl video.Plan, duration float64, ws []video.Waypoint, ok bool) {
	if !ok || pl.Frames < 2 || !(duration > 0) {
		p.obj.Hide()
		return
	}
	n := min(pl.Frames, plotSamples)
	p.t, p.y = make([]float64, n), make([]float64, n)
	for i := range n {
		k := int(math.Round(float64(i) * float64(pl.Frames-1) / float64(n-1)))
		p.t[i] = float64(k) * duration / float64(pl.Frames-1)
		p.y[i] = pl.FrameZoom(k).Log2() * math.Log10(2)
	}
	p.wt, p.wy = p.wt[:0], p.wy[:0]
	for _, w := range ws {
		p.wt = append(p.wt, w.T)
		p.wy = append(p.wy, w.Zoom.Exp().Log2()*math.Log10(2))
	}
	if len(ws) == 0 {
		p.wt = append(p.wt, 0, duration)
		p.wy = append(p.wy, p.y[0], p.y[n-1])
	}
	p.lo, p.hi = p.y[0], p.y[0]
	for _, v := range p.y {
		p.lo, p.hi = min(p.lo, v), max(p.hi, v)
	}
	// The plan keeps every frame within its start (the least zoom) and its end.
	p.top.SetText("zoom " + fractal.FormatZoom(pl.End.Exp()))
	p.bottom.SetText("zoom " + fractal.FormatZoom(pl.Start.Exp()))
	p.end.SetText(formatValue(duration) + " s")
	p.obj.Show()
	p.raster.Refresh()
}

// row is the raster row of log zoom v in a raster h pixels high (the highest zoom at the
// top, a margin of 3 pixels).
func (p *zoomPlot) row(v float64, h int) int {
	if p.hi == p.lo {
		return h / 2
	}
	return 3 + int(math.Round((p.hi-v)/(p.hi-p.lo)*float64(h-7)))
}

// col is the raster column of time s in a raster w pixels wide.
func (p *zoomPlot) col(s float64, w int) int {
	end := p.t[len(p.t)-1]
	return 3 + int(math.Round(s/end*float64(w-7)))
}

// draw is the raster: the curve, joined column to column, and the waypoints' dots.
func (p *zoomPlot) draw(w, h int) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	if len(p.t) < 2 || w < 8 || h < 8 {
		return img
	}
	set := func(x, y int, c color.Color) {
		if x >= 0 && y >= 0 && x < w && y < h {
			img.Set(x, y, c)
		}
	}
	i, prev := 0, -1
	for x := 3; x <= w-4; x++ {
		s := float64(x-3) / float64(w-7) * p.t[len(p.t)-1]
		for i+2 < len(p.t) && s > p.t[i+1] {
			i++
		}
		v := p.y[i]
		if dt := p.t[i+1] - p.t[i]; dt > 0 {
			v += (p.y[i+1] - p.y[i]) * min(max((s-p.t[i])/dt, 0), 1)
		}
		r := p.row(v, h)
		a, b := r, r
		if prev >= 0 {
			a, b = min(r, prev), max(r, prev)
		}
		for y := a; y <= b; y++ {
			set(x, y, p.curve)
		}
		prev = r
	}
	for j := range p.wt {
		cx, cy := p.col(p.wt[j], w), p.row(p.wy[j], h)
		for dy := -2; dy <= 2; dy++ {
			for dx := -2; dx <= 2; dx++ {
				if dx*dx+dy*dy <= 5 {
					set(cx+dx, cy+dy, p.point)
				}
			}
		}
	}
	return img
}
