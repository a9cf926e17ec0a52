package video

import (
	"image"
	"math"

	"mandelscope/colour"
	"mandelscope/internal/par"
)

// Keyframe is one keyframe, or a band of its rows, in memory: its level (log2 of its zoom
// over the start zoom), its size and samples. A keyframe covers KeyScale times a frame's side
// at its own zoom.
type Keyframe struct {
	Level float64
	// W, H are the whole keyframe's size in samples (0, 0: Data's size, Data holding it all).
	W, H int
	// Data holds the keyframe's samples, or a band of its rows: Rect is (0, r0)-(W, r1), at
	// least the rows Composer.Rows names for the frame rows composed from it.
	Data *colour.Data
}

// size is the whole keyframe's size.
func (k *Keyframe) size() (w, h int) {
	if k.W == 0 {
		return k.Data.Rect.Dx(), k.Data.Rect.Dy()
	}
	return k.W, k.H
}

// Composer composes frames of W x H pixels from keyframes of KeyScale times that size: each
// output pixel the mean of Supersample x Supersample subsamples, each subsample the colours of
// the four keyframe samples around its point, blended bilinearly. A frame can be composed whole (Compose) or in
// strips of rows (ComposeRows), each from the bands of the keyframes' rows it reads (Rows),
// so that neither the frame nor a keyframe needs to be in memory whole. Its zero value is not
// usable: use NewComposer. A Composer is used by one goroutine at a time (it spreads each
// strip's rows over the cores itself).
type Composer struct {
	w, h, q, s int
	col        *colour.Colourer
	// Margin is the width, in inner-keyframe pixels, of the band along the inner
	// keyframe's edge over which it blends into the outer one (0: a hard switch).
	Margin float64
	sum    []uint32 // a strip's weighted colour sums, 3 a pixel
}

// weightOne is a subsample's full weight in the sums: a blend splits it between the
// keyframes in 1/256ths.
const weightOne = 256

// NewComposer returns a composer of w x h frames with q x q subsamples a pixel, from
// keyframes of s times the frame's side, coloured by col (made for the subsamples' spacing:
// colour.Coloring.Sampled(q)).
func NewComposer(w, h, q, s int, col *colour.Colourer) *Composer {
	return &Composer{w: w, h: h, q: q, s: s, col: col, Margin: defaultMargin(w, h, s)}
}

// marginFrac is the blending band's width over the keyframe's shorter side.
var marginFrac = 0.05

// defaultMargin is the blending band's width for keyframes of s times a w x h frame.
func defaultMargin(w, h, s int) float64 { return marginFrac * float64(s*min(w, h)) }

// Compose draws the frame at level lv into dst (w x h, its top-left pixel at dst.Rect.Min)
// from outer (covering the frame: its level at or below lv) and inner (nil, or the next
// keyframe, finer, whose samples are used wherever it covers the frame).
func (c *Composer) Compose(dst *image.RGBA, lv float64, outer, inner *Keyframe) {
	c.ComposeRows(dst, 0, c.h, lv, outer, inner)
}

// ComposeRows draws rows [y0, y1) of the frame at level lv into dst (w x (y1-y0), row y0 at
// dst.Rect.Min), as Compose does; outer's and inner's Data need hold only the rows Rows names
// for them.
func (c *Composer) ComposeRows(dst *image.RGBA, y0, y1 int, lv float64, outer, inner *Keyframe) {
	n := c.q * c.q * weightOne
	if need := 3 * c.w * (y1 - y0); cap(c.sum) < need {
		c.sum = make([]uint32, need)
	}
	par.Rows(y1-y0, c.w*c.q*c.q, 1<<14, func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			s := c.sum[3*c.w*i : 3*c.w*(i+1)]
			c.row(s, y0+i, lv, outer, inner)
			o := dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+i)
			px := dst.Pix[o : o+4*c.w]
			for x := range c.w {
				p := px[4*x : 4*x+4 : 4*x+4]
				p[0] = byte((s[3*x] + uint32(n/2)) / uint32(n))
				p[1] = byte((s[3*x+1] + uint32(n/2)) / uint32(n))
				p[2] = byte((s[3*x+2] + uint32(n/2)) / uint32(n))
				p[3] = 255
			}
		}
	})
}

// Rows is the band of rows [r0, r1) of a keyframe (kw x kh samples, at level kl) that frame
// rows [y0, y1) of the frame at level lv read: every sample interpolated there lies in it.
func (c *Composer) Rows(kl float64, kw, kh int, lv float64, y0, y1 int) (r0, r1 int) {
	m := c.mapping(kl, kw, kh, lv)
	qh := float64(c.q * c.h)
	// A subsample's keyframe row grows with its frame row (m.r > 0), so the band runs from
	// the first subsample row's to the row below the last one's.
	top := float64(y0*c.q) + 0.5 - qh/2
	bottom := float64(y1*c.q-1) + 0.5 - qh/2
	v0 := min(max(top*m.r+m.cy, 0), m.maxY)
	v1 := min(max(bottom*m.r+m.cy, 0), m.maxY)
	return int(v0), min(int(v1)+2, kh)
}

// mapping places a frame's subsamples on one keyframe: subsample offset d from the frame's
// centre (in subsamples) lies at keyframe coordinate d*r + c (in keyframe samples, whose
// centres are the integers).
type mapping struct {
	d          *colour.Data
	r          float64 // keyframe samples per subsample
	cx, cy     float64
	maxX, maxY float64 // the last sample's coordinates
	deScale    float32 // keyframe pixels to subsample pixels, for the distance estimate
}

func (c *Composer) mapping(kl float64, kw, kh int, lv float64) mapping {
	// The keyframe's sample spacing is the frame's at its own level over s; a subsample's
	// is the frame's at lv over q.
	r := math.Exp2(kl-lv) * float64(c.s) / float64(c.q)
	return mapping{r: r, cx: float64(kw)/2 - 0.5, cy: float64(kh)/2 - 0.5,
		maxX: float64(kw - 1), maxY: float64(kh - 1), deScale: float32(1 / r)}
}

// keyMapping is c.mapping for keyframe k, reading its Data.
func (c *Composer) keyMapping(k *Keyframe, lv float64) mapping {
	kw, kh := k.size()
	m := c.mapping(k.Level, kw, kh, lv)
	m.d = k.Data
	return m
}

// row sums the colours of frame row y's subsamples into sum.
func (c *Composer) row(sum []uint32, y int, lv float64, outer, inner *Keyframe) {
	mo := c.keyMapping(outer, lv)
	var mi mapping
	if inner != nil {
		mi = c.keyMapping(inner, lv)
	}
	clear(sum)
	qw, qh := float64(c.q*c.w), float64(c.q*c.h)
	for b := range c.q {
		dy := float64(y*c.q+b) + 0.5 - qh/2
		for x := range c.w {
			a := sum[3*x : 3*x+3 : 3*x+3]
			for i := range c.q {
				dx := float64(x*c.q+i) + 0.5 - qw/2
				w := 0.0
				if inner != nil {
					w = mi.weight(dx, dy, c.Margin)
				}
				if w >= 1 {
					mi.add(a, c.col, dx, dy, weightOne)
					continue
				}
				if w <= 0 {
					mo.add(a, c.col, dx, dy, weightOne)
					continue
				}
				wi := uint32(w*weightOne + 0.5)
				mi.add(a, c.col, dx, dy, wi)
				mo.add(a, c.col, dx, dy, weightOne-wi)
			}
		}
	}
}

// weight is the inner keyframe's share of the subsample at (dx, dy): 1 well inside it, 0
// outside it, rising over margin keyframe samples from its edge.
func (m mapping) weight(dx, dy, margin float64) float64 {
	u, v := dx*m.r+m.cx, dy*m.r+m.cy
	d := min(u+0.5, m.maxX+0.5-u, v+0.5, m.maxY+0.5-v)
	if d <= 0 {
		return 0
	}
	if margin <= 0 || d >= margin {
		return 1
	}
	return d / margin
}

// add adds to the sums a, weighted w (of weightOne), the keyframe's colour at the subsample
// (dx, dy): the four samples around the point each coloured (the distance estimate rescaled
// to subsample pixels) and their colours blended bilinearly. Blending colours rather than
// the data keeps what supersampling keeps where the smooth count changes faster than the
// samples (filaments finer than a keyframe sample: a blended count would be a colour found in
// none of them), and a point on a sample (every frame at a keyframe's zoom, with as many
// subsamples as keyframe samples a side) takes that sample's colour exactly.
func (m mapping) add(a []uint32, col *colour.Colourer, dx, dy float64, w uint32) {
	d := m.d
	u := min(max(dx*m.r+m.cx, 0), m.maxX)
	v := min(max(dy*m.r+m.cy, 0), m.maxY)
	x0, y0 := int(u), int(v)
	fx, fy := u-float64(x0), v-float64(y0)
	x1, y1 := min(x0+1, int(m.maxX)), min(y0+1, int(m.maxY))
	r0, r1 := d.Pix[(y0-d.Rect.Min.Y)*d.Stride:], d.Pix[(y1-d.Rect.Min.Y)*d.Stride:]
	var r, g, b float64
	blend := func(s colour.Sample, k float64) {
		if k == 0 {
			return
		}
		if m.deScale != 1 {
			s.DEX *= m.deScale
			s.DEY *= m.deScale // NaN stays NaN
		}
		c := col.Colour(s)
		r += k * float64(c.R)
		g += k * float64(c.G)
		b += k * float64(c.B)
	}
	blend(r0[x0], (1-fx)*(1-fy))
	blend(r0[x1], fx*(1-fy))
	blend(r1[x0], (1-fx)*fy)
	blend(r1[x1], fx*fy)
	fw := float64(w)
	a[0] += uint32(r*fw + 0.5)
	a[1] += uint32(g*fw + 0.5)
	a[2] += uint32(b*fw + 0.5)
}
