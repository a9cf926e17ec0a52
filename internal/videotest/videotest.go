// Package videotest holds what video's tests and bench/video-quality both measure zoom videos
// with: the seahorse-valley view they zoom into, direct renders to compare frames against,
// PSNR, a 3x3 blur, the frame-to-frame change and the frames folder's PNGs. It returns
// errors rather than failing a test, for the command's sake.
package videotest

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// The seahorse valley's centre, with detail at every depth to 1e32.
const (
	SeaRe = "-0.743643887037158704752191506114779778215256207948181289816883901818560735783796478634787822762144461879186420389368802996"
	SeaIm = "0.131825904205311970493132056385140678972952279328918966209127677465513481738298337234738964180367638081912623954274282987"
)

// Seahorse is the end view of the measured videos: the seahorse centre at zoom, with iter
// iterations and an explicit density of 1 (an automatic one is resolved from the end view
// alike, but Direct colours with the number).
func Seahorse(zoom string, iter int) fractal.Location {
	l := fractal.Home()
	l.Re, l.Im = fractal.MustDecimal(SeaRe), fractal.MustDecimal(SeaIm)
	l.Zoom = fractal.MustDecimal(zoom)
	l.Iterations = iter
	l.Color.AutoDensity = false
	l.Color.Density = 1
	return l
}

// Direct renders loc at zoom as a supersampled export does: a q-times larger frame computed
// by the CPU renderer, coloured, each q x q block averaged (rounding half up).
func Direct(loc fractal.Location, zoom fractal.Exp, w, h, q int) (*image.RGBA, error) {
	c, err := compute(loc, zoom, w, h, q)
	if err != nil {
		return nil, err
	}
	return c.average(0, 1), nil
}

// Twins renders loc at zoom as a 4x4 supersampled export and, from the same samples, as two
// 2x2 exports whose grids lie 1/4 pixel apart on both axes (the 4x4 grid's even and odd
// subsamples: a 2x2 export's grid moved by 1/8 pixel one way and the other). The two are
// equally good renders of the frame; what they differ by is what a 2x2 export's sampling
// leaves undecided, the least a frame made otherwise can be expected to differ from one.
func Twins(loc fractal.Location, zoom fractal.Exp, w, h int) (even, odd, fine *image.RGBA, err error) {
	c, err := compute(loc, zoom, w, h, 4)
	if err != nil {
		return nil, nil, nil, err
	}
	return c.average(0, 2), c.average(1, 2), c.average(0, 1), nil
}

// computed is a q-times larger frame's samples with their colourer.
type computed struct {
	d       *colour.Data
	col     *colour.Colourer
	w, h, q int
}

func compute(loc fractal.Location, zoom fractal.Exp, w, h, q int) (*computed, error) {
	loc.Zoom = fractal.DecimalFromExp(zoom)
	f := fractal.NewFrame(loc, q*w, q*h)
	d := colour.NewData(image.Rect(0, 0, q*w, q*h))
	if err := (&cpu.Renderer{}).Compute(context.Background(), f, d.Rect, d); err != nil {
		return nil, err
	}
	col, err := colour.NewColourer(loc.Color.Sampled(q))
	if err != nil {
		return nil, err
	}
	return &computed{d: d, col: col, w: w, h: h, q: q}, nil
}

// average is the w x h image each of whose pixels averages the subsamples first, first+step,
// ... of its q x q block on both axes (rounding half up).
func (c *computed) average(first, step int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, c.w, c.h))
	var n uint32
	for b := first; b < c.q; b += step {
		for a := first; a < c.q; a += step {
			n++
		}
	}
	q := c.q
	for y := range c.h {
		for x := range c.w {
			var s [3]uint32
			for b := first; b < q; b += step {
				for a := first; a < q; a += step {
					col := c.col.Colour(c.d.At(q*x+a, q*y+b))
					s[0] += uint32(col.R)
					s[1] += uint32(col.G)
					s[2] += uint32(col.B)
				}
			}
			p := img.Pix[img.PixOffset(x, y):]
			p[0], p[1], p[2], p[3] = byte((s[0]+n/2)/n), byte((s[1]+n/2)/n), byte((s[2]+n/2)/n), 255
		}
	}
	return img
}

// PSNR is the peak signal-to-noise ratio of b against a over R, G and B, in dB (+Inf for
// equal images).
func PSNR(a, b *image.RGBA) float64 {
	var se float64
	n := 0
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			pa, pb := a.Pix[a.PixOffset(x, y):], b.Pix[b.PixOffset(x, y):]
			for c := range 3 {
				d := float64(pa[c]) - float64(pb[c])
				se += d * d
				n++
			}
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}

// Blur3 is img averaged over 3x3 neighbourhoods (clamped at the edges).
func Blur3(img *image.RGBA) *image.RGBA {
	r := img.Rect
	out := image.NewRGBA(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			var s [3]int
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := min(max(x+dx, r.Min.X), r.Max.X-1), min(max(y+dy, r.Min.Y), r.Max.Y-1)
					p := img.Pix[img.PixOffset(xx, yy):]
					for c := range 3 {
						s[c] += int(p[c])
					}
				}
			}
			p := out.Pix[out.PixOffset(x, y):]
			p[0], p[1], p[2], p[3] = byte((s[0]+4)/9), byte((s[1]+4)/9), byte((s[2]+4)/9), 255
		}
	}
	return out
}

// MeanAbsDiff is the mean absolute difference of a and b per channel value.
func MeanAbsDiff(a, b *image.RGBA) float64 {
	var s float64
	for i := range a.Pix {
		if i%4 == 3 {
			continue
		}
		s += math.Abs(float64(a.Pix[i]) - float64(b.Pix[i]))
	}
	return s / float64(len(a.Pix)*3/4)
}

// Changes is the change between consecutive frames (MeanAbsDiff) of the first n frames in the
// frames folder dir, split by whether the outer keyframe that pair gives (video.Plan.Pair)
// switches between them (across) or not (within): a seam shows as a change across a switch
// larger than those within the spans.
func Changes(dir string, n int, pair func(k int) (outer, inner int)) (within, across []float64, err error) {
	prev, err := Frame(dir, 0)
	if err != nil {
		return nil, nil, err
	}
	for k := 1; k < n; k++ {
		cur, err := Frame(dir, k)
		if err != nil {
			return nil, nil, err
		}
		d := MeanAbsDiff(prev, cur)
		o0, _ := pair(k - 1)
		if o1, _ := pair(k); o0 != o1 {
			across = append(across, d)
		} else {
			within = append(within, d)
		}
		prev = cur
	}
	return within, across, nil
}

// ReadPNG reads a PNG as RGBA.
func ReadPNG(path string) (*image.RGBA, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rgba, ok := img.(*image.RGBA); ok {
		return rgba, nil
	}
	r := image.NewRGBA(img.Bounds())
	for y := r.Rect.Min.Y; y < r.Rect.Max.Y; y++ {
		for x := r.Rect.Min.X; x < r.Rect.Max.X; x++ {
			r.Set(x, y, img.At(x, y))
		}
	}
	return r, nil
}

// Frame reads frame k of a frames folder.
func Frame(dir string, k int) (*image.RGBA, error) {
	return ReadPNG(filepath.Join(dir, fmt.Sprintf("frame-%06d.png", k)))
}

// WritePNG writes img to path as a PNG.
func WritePNG(path string, img *image.RGBA) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
