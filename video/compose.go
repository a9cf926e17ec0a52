package video

import (
	"context"
	"image"
	"image/color"
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
	// Equal is the keyframe's own equalisation, which the histogram colouring colours its
	// samples with (nil: the composer's colouring's).
	Equal *colour.Equalisation
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
	// The colours of the samples of the outer and inner keyframes a strip reads.
	outerTint, innerTint []color.RGBA
	// eqCols are col with the equalisations of the keyframes in use (colourerOf).
	eqCols map[*colour.Equalisation]*colour.Colourer
	eqBase *colour.Colourer // the col they were made from

	// painter, when not nil, colours the keyframes' samples with the colouring shader of
	// shader (colour.Coloring.Shader) in place of col; pic is what the shader is told of a
	// keyframe (its size and zoom are the keyframe's: ZoomLog2 is that of level 0). err is
	// the first error it gave (Err).
	painter colour.ShaderPainter
	shader  colour.Coloring
	pic     colour.ShaderPicture
	err     error
}

// SetShader makes c colour the keyframes' samples with the colouring shader of col (its
// Shader, palette, density and offset), run by p; pic gives the iterations and the zoom of
// level 0.
func (c *Composer) SetShader(p colour.ShaderPainter, col colour.Coloring, pic colour.ShaderPicture) {
	c.painter, c.shader, c.pic = p, col, pic
}

// shaderRows widens the keyframe rows [r0, r1) by colour.ShaderMargin each side (within a
// keyframe of h rows) when a colouring shader colours them, so that it reads the neighbours
// of the rows a strip uses; it returns them as they are otherwise.
func (c *Composer) shaderRows(r0, r1, h int) (int, int) {
	if c.painter == nil {
		return r0, r1
	}
	return max(0, r0-colour.ShaderMargin), min(h, r1+colour.ShaderMargin)
}

// Err is the first error the colouring shader gave, nil without one.
func (c *Composer) Err() error { return c.err }

// colourerOf is the colourer of keyframe k's samples: col, or with k's own equalisation
// (Keyframe.Equal) where it has one.
func (c *Composer) colourerOf(k *Keyframe) *colour.Colourer {
	if k == nil || k.Equal == nil {
		return c.col
	}
	if c.eqBase != c.col {
		c.eqCols, c.eqBase = nil, c.col // a new colouring (palette cycling)
	}
	if col, ok := c.eqCols[k.Equal]; ok {
		return col
	}
	if c.eqCols == nil || len(c.eqCols) > 4 {
		c.eqCols = make(map[*colour.Equalisation]*colour.Colourer)
	}
	col := c.col.WithEqualisation(k.Equal)
	c.eqCols[k.Equal] = col
	return col
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
	// Each keyframe sample these rows read is coloured once, then blended.
	mo := c.keyMapping(outer, lv)
	c.outerTint = c.tint(&mo, c.outerTint, y0, y1, c.colourerOf(outer), outer)
	var mi *mapping
	if inner != nil {
		m := c.keyMapping(inner, lv)
		c.innerTint = c.tint(&m, c.innerTint, y0, y1, c.colourerOf(inner), inner)
		mi = &m
	}
	par.Rows(y1-y0, c.w*c.q*c.q, 1<<14, func(r0, r1 int) {
		for i := r0; i < r1; i++ {
			s := c.sum[3*c.w*i : 3*c.w*(i+1)]
			c.row(s, y0+i, &mo, mi)
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

// tint colours the samples of m's keyframe that frame rows [y0, y1) read (the distance
// estimate rescaled to subsample pixels) into buf (reused when it has room), and points m at
// them, with col (or the colouring shader: SetShader), key the keyframe.
func (c *Composer) tint(m *mapping, buf []color.RGBA, y0, y1 int, col *colour.Colourer, key *Keyframe) []color.RGBA {
	r0, r1 := m.span(c.q*c.h, y0*c.q, y1*c.q, m.cy, m.maxY)
	x0, x1 := m.span(c.q*c.w, 0, c.q*c.w, m.cx, m.maxX)
	r0, r1 = max(r0, m.d.Rect.Min.Y), min(r1, m.d.Rect.Max.Y)
	n := (r1 - r0) * (x1 - x0)
	if cap(buf) < n {
		buf = make([]color.RGBA, n)
	}
	buf = buf[:n]
	m.t = tinted{pix: buf, r0: r0, c0: x0, stride: x1 - x0}
	d, scale := m.d, m.deScale
	if c.painter != nil {
		c.paintTint(buf, d, image.Rect(x0, r0, x1, r1), scale, key)
		return buf
	}
	par.Rows(r1-r0, n, 1<<14, func(a, b int) {
		for y := r0 + a; y < r0+b; y++ {
			src := d.Row(y)[x0:x1]
			out := buf[(y-r0)*(x1-x0):][:len(src)]
			for i, s := range src {
				if scale != 1 {
					s.DEX *= scale
					s.DEY *= scale // NaN stays NaN
				}
				out[i] = col.Colour(s)
			}
		}
	})
	return buf
}

// span is the keyframe samples [a, b) along one axis that subsamples [i0, i1) of the n along
// it read: every sample a point there is blended from lies in it.
func (m *mapping) span(n, i0, i1 int, centre, last float64) (a, b int) {
	// A subsample's keyframe coordinate grows with its index (m.r > 0), so the span runs from
	// the first subsample's sample to the one after the last subsample's.
	lo := float64(i0) + 0.5 - float64(n)/2
	hi := float64(i1-1) + 0.5 - float64(n)/2
	u0 := min(max(lo*m.r+centre, 0), last)
	u1 := min(max(hi*m.r+centre, 0), last)
	return int(u0), min(int(u1)+2, int(last)+1)
}

// Rows is the band of rows [r0, r1) of a keyframe (kw x kh samples, at level kl) that frame
// rows [y0, y1) of the frame at level lv read: every sample blended there lies in it.
func (c *Composer) Rows(kl float64, kw, kh int, lv float64, y0, y1 int) (r0, r1 int) {
	m := c.mapping(kl, kw, kh, lv)
	return m.span(c.q*c.h, y0*c.q, y1*c.q, m.cy, m.maxY)
}

// mapping places a frame's subsamples on one keyframe: subsample offset d from the frame's
// centre (in subsamples) lies at keyframe coordinate d*r + c (in keyframe samples, whose
// centres are the integers).
type mapping struct {
	d          *colour.Data
	t          tinted  // d's samples that are read, coloured
	r          float64 // keyframe samples per subsample
	cx, cy     float64
	maxX, maxY float64 // the last sample's coordinates
	deScale    float32 // keyframe pixels to subsample pixels, for the distance estimate
}

// tinted is a rectangle of a keyframe's samples, coloured: rows from r0, columns from c0.
type tinted struct {
	pix            []color.RGBA
	r0, c0, stride int
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

// row sums the colours of frame row y's subsamples into sum, from mo and mi (nil: outer
// alone), tinted.
func (c *Composer) row(sum []uint32, y int, mo, mi *mapping) {
	clear(sum)
	qw, qh := float64(c.q*c.w), float64(c.q*c.h)
	for b := range c.q {
		dy := float64(y*c.q+b) + 0.5 - qh/2
		for x := range c.w {
			a := sum[3*x : 3*x+3 : 3*x+3]
			for i := range c.q {
				dx := float64(x*c.q+i) + 0.5 - qw/2
				w := 0.0
				if mi != nil {
					w = mi.weight(dx, dy, c.Margin)
				}
				if w >= 1 {
					mi.add(a, dx, dy, weightOne)
					continue
				}
				if w <= 0 {
					mo.add(a, dx, dy, weightOne)
					continue
				}
				wi := uint32(w*weightOne + 0.5)
				mi.add(a, dx, dy, wi)
				mo.add(a, dx, dy, weightOne-wi)
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
// (dx, dy): the colours of the four samples around the point (tinted), blended bilinearly.
// Blending colours rather than the data keeps what supersampling keeps where the smooth count
// changes faster than the samples (filaments finer than a keyframe sample: a blended count
// would be a colour found in none of them), and a point on a sample (every frame at a
// keyframe's zoom, with as many subsamples as keyframe samples a side) takes that sample's
// colour exactly.
func (m *mapping) add(a []uint32, dx, dy float64, w uint32) {
	u := min(max(dx*m.r+m.cx, 0), m.maxX)
	v := min(max(dy*m.r+m.cy, 0), m.maxY)
	x0, y0 := int(u), int(v)
	fx, fy := u-float64(x0), v-float64(y0)
	x1, y1 := min(x0+1, int(m.maxX)), min(y0+1, int(m.maxY))
	t := &m.t
	i0, i1 := (y0-t.r0)*t.stride-t.c0, (y1-t.r0)*t.stride-t.c0
	c00, c01, c10, c11 := t.pix[i0+x0], t.pix[i0+x1], t.pix[i1+x0], t.pix[i1+x1]
	w00, w01, w10, w11 := (1-fx)*(1-fy), fx*(1-fy), (1-fx)*fy, fx*fy
	fw := float64(w)
	a[0] += uint32((w00*float64(c00.R)+w01*float64(c01.R)+w10*float64(c10.R)+w11*float64(c11.R))*fw + 0.5)
	a[1] += uint32((w00*float64(c00.G)+w01*float64(c01.G)+w10*float64(c10.G)+w11*float64(c11.G))*fw + 0.5)
	a[2] += uint32((w00*float64(c00.B)+w01*float64(c01.B)+w10*float64(c10.B)+w11*float64(c11.B))*fw + 0.5)
}

// paintTint colours the samples r of the keyframe key (d holds them), their distance
// estimates rescaled by scale, with the colouring shader into buf, a row of r after another.
func (c *Composer) paintTint(buf []color.RGBA, d *colour.Data, r image.Rectangle, scale float32, key *Keyframe) {
	if r.Empty() || c.err != nil {
		return
	}
	inner := r
	r = r.Inset(-colour.ShaderMargin).Intersect(d.Rect) // the neighbours held too
	src := colour.NewData(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := src.Row(y)
		copy(row, d.Row(y)[r.Min.X:r.Max.X])
		if scale != 1 {
			for i := range row {
				row[i].DEX *= scale
				row[i].DEY *= scale // NaN stays NaN
			}
		}
	}
	pic := c.pic
	pic.Coloring = c.shader
	pic.Width, pic.Height = key.size()
	pic.ZoomLog2 += key.Level
	img := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	if err := c.painter.PaintColourShader(context.Background(), pic, c.shader.ShaderName(), c.shader.Shader, src, r.Min, img); err != nil {
		c.err = err
		return
	}
	i := 0
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			p := img.Pix[img.PixOffset(x-r.Min.X, y-r.Min.Y):]
			buf[i] = color.RGBA{p[0], p[1], p[2], p[3]}
			i++
		}
	}
}
