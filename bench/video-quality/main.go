// Command video-quality measures the zoom videos' composed frames: for keyframe scales 1 to
// 4 and 2x2 or 4x4 subsamples a pixel, the PSNR of frames composed by video.Make against
// direct renders of their zoom (2x2 and 4x4 supersampled), and after a 3x3 blur, over frames
// spread across the doublings of a 160x90 zoom in the seahorse valley to 1e6; the
// frame-to-frame change across keyframe switches over that within a span (seams); and the
// floor, a direct 2x2 render against a direct 4x4 one. It takes a minute or so; README's
// "Zoom videos" section quotes its figures. (It was video's TestMeasureQuality; the blend
// band's width is video's default here, which Make does not take as an option.)
//
// Usage (from the project root): go run ./bench/video-quality [-w WIDTH] [-density auto] [-quick]
package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"

	"mandelscope/colour"
	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
	"mandelscope/video"
)

// The seahorse valley's centre, the end of the measured zoom.
const (
	seaRe = "-0.743643887037158704752191506114779778215256207948181289816883901818560735783796478634787822762144461879186420389368802996"
	seaIm = "0.131825904205311970493132056385140678972952279328918966209127677465513481738298337234738964180367638081912623954274282987"
)

func main() {
	w := flag.Int("w", 160, "frame `width` in pixels (the height is 9/16 of it)")
	density := flag.String("density", "", "auto: the density a user gets by default, chosen from the end view (else 1)")
	quick := flag.Bool("quick", false, "only keyframes at 2x with 2x2 and 4x4 subsamples")
	flag.Parse()
	if flag.NArg() > 0 || *w < 16 || *density != "" && *density != "auto" {
		fmt.Fprintln(os.Stderr, "usage: video-quality [-w WIDTH (16 or more)] [-density auto] [-quick]")
		os.Exit(2)
	}
	if err := measure(*w, *w*9/16, *density == "auto", *quick); err != nil {
		fmt.Fprintln(os.Stderr, "video-quality:", err)
		os.Exit(1)
	}
}

func measure(w, h int, autoDensity, quick bool) error {
	ctx := context.Background()
	loc := fractal.Home()
	loc.Re, loc.Im = fractal.MustDecimal(seaRe), fractal.MustDecimal(seaIm)
	loc.Zoom = fractal.MustDecimal("1e6")
	loc.Iterations = 4000
	loc.Color.AutoDensity = false
	loc.Color.Density = 1
	if autoDensity {
		loc.Color.AutoDensity = true
		var err error
		if loc, err = export.ResolveDensity(ctx, &cpu.Renderer{}, loc, w, h, nil); err != nil {
			return err
		}
	}
	fmt.Printf("%dx%d, zoom 1 to %s, density %g\n", w, h, loc.Zoom, loc.Color.Density)
	const frames = 61
	plan, err := video.NewPlan(fractal.MustDecimal("1"), loc.Zoom, frames)
	if err != nil {
		return err
	}
	ks := []int{5, 13, 22, 31, 40, 47, 55}
	refs, err := directRefs(loc, plan, ks, w, h)
	if err != nil {
		return err
	}
	combos := [][2]int{{1, 2}, {2, 2}, {3, 2}, {4, 2}, {2, 4}, {3, 4}}
	if quick {
		combos = [][2]int{{2, 2}, {2, 4}}
	}
	tmp, err := os.MkdirTemp("", "video-quality-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for i, c := range combos {
		scale, q := c[0], c[1]
		dir := filepath.Join(tmp, fmt.Sprint(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		opt := video.Options{Location: loc, Width: w, Height: h, FPS: frames, Duration: 1, KeyScale: scale, Supersample: q, FramesDir: filepath.Join(dir, "f")}
		sum, err := video.Make(ctx, &cpu.Renderer{}, opt)
		if err != nil {
			return err
		}
		var p2, p2b, p4, p4b float64
		worst2b := math.Inf(1)
		for _, k := range ks {
			got, err := frame(opt.FramesDir, k)
			if err != nil {
				return err
			}
			a, b := refs[k][0], refs[k][1]
			p2 += psnr(a, got)
			pb := psnr(blur3(a), blur3(got))
			p2b += pb
			worst2b = min(worst2b, pb)
			p4 += psnr(b, got)
			p4b += psnr(blur3(b), blur3(got))
		}
		across, within, err := seams(opt.FramesDir, plan, frames)
		if err != nil {
			return err
		}
		n := float64(len(ks))
		fmt.Printf("keyframes %dx frame (%dx%d), %dx%d subsamples, %d keyframes computed in %s, frames in %s: mean PSNR vs 2x2 direct %.1f dB (blurred %.1f, worst %.1f); vs 4x4 direct %.1f dB (blurred %.1f)\n",
			scale, scale*w, scale*h, q, q, sum.Keyframes, sum.Keyframe.Round(1e6), sum.Compose.Round(1e6), p2/n, p2b/n, worst2b, p4/n, p4b/n)
		fmt.Printf("  frame-to-frame change: across switches %.2f, within spans %.2f (ratio %.2f)\n", across, within, across/within)
		os.RemoveAll(dir)
	}
	// The floor: how far a direct 2x2 render is from a direct 4x4 one.
	var p, pb float64
	for _, k := range ks {
		a, b := refs[k][0], refs[k][1]
		p += psnr(b, a)
		pb += psnr(blur3(b), blur3(a))
	}
	fmt.Printf("direct 2x2 vs direct 4x4: mean PSNR %.1f dB (blurred %.1f)\n", p/float64(len(ks)), pb/float64(len(ks)))
	return nil
}

// directRefs renders the frames ks directly, 2x2 and 4x4 supersampled, the references
// the video's frames are measured against.
func directRefs(loc fractal.Location, plan video.Plan, ks []int, w, h int) (map[int][2]*image.RGBA, error) {
	refs := map[int][2]*image.RGBA{}
	for _, k := range ks {
		a, err := direct(loc, plan.FrameZoom(k), w, h, 2)
		if err != nil {
			return nil, err
		}
		b, err := direct(loc, plan.FrameZoom(k), w, h, 4)
		if err != nil {
			return nil, err
		}
		refs[k] = [2]*image.RGBA{a, b}
	}
	return refs, nil
}

// seams measures the frame-to-frame change (the mean over the pairs of frames) across a
// keyframe switch and within a span, for the frames in dir.
func seams(dir string, plan video.Plan, frames int) (across, within float64, err error) {
	var nw, na float64
	prev, err := frame(dir, 0)
	if err != nil {
		return 0, 0, err
	}
	for k := 1; k < frames; k++ {
		cur, err := frame(dir, k)
		if err != nil {
			return 0, 0, err
		}
		d := meanAbsDiff(prev, cur)
		o0, _ := plan.Pair(k - 1)
		if o1, _ := plan.Pair(k); o0 != o1 {
			across, na = across+d, na+1
		} else {
			within, nw = within+d, nw+1
		}
		prev = cur
	}
	return across / na, within / nw, nil
}

// direct renders loc at zoom as a supersampled export does: a q-times larger frame computed
// by the CPU renderer, coloured, each q x q block averaged (rounding half up).
func direct(loc fractal.Location, zoom fractal.Exp, w, h, q int) (*image.RGBA, error) {
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
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	n := uint32(q * q)
	for y := range h {
		for x := range w {
			var s [3]uint32
			for b := range q {
				for a := range q {
					c := col.Colour(d.At(q*x+a, q*y+b))
					s[0] += uint32(c.R)
					s[1] += uint32(c.G)
					s[2] += uint32(c.B)
				}
			}
			p := img.Pix[img.PixOffset(x, y):]
			p[0], p[1], p[2], p[3] = byte((s[0]+n/2)/n), byte((s[1]+n/2)/n), byte((s[2]+n/2)/n), 255
		}
	}
	return img, nil
}

// psnr is the peak signal-to-noise ratio of b against a over R, G and B, in dB (+Inf for
// equal images).
func psnr(a, b *image.RGBA) float64 {
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

// blur3 is img averaged over 3x3 neighbourhoods (clamped at the edges).
func blur3(img *image.RGBA) *image.RGBA {
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

// meanAbsDiff is the mean absolute difference of a and b per channel value.
func meanAbsDiff(a, b *image.RGBA) float64 {
	var s float64
	for i := range a.Pix {
		if i%4 == 3 {
			continue
		}
		s += math.Abs(float64(a.Pix[i]) - float64(b.Pix[i]))
	}
	return s / float64(len(a.Pix)*3/4)
}

// frame reads frame k of a frames folder.
func frame(dir string, k int) (*image.RGBA, error) {
	f, err := os.Open(filepath.Join(dir, fmt.Sprintf("frame-%06d.png", k)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, err
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
