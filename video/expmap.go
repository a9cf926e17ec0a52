package video

// Keyframes as an exponential map: keyframe j is the rings of one halving of the radius about
// the centre (a fractal.Rings frame: column x the angle, row y the ring), from the frame's
// half-diagonal at keyframe j's zoom in to half of it, so that the keyframes together hold
// each depth's samples once, on a grid as fine as the frame needs at its corners and finer
// towards its centre; one more keyframe, at the end zoom, is flat (the "centre": a flat
// keyframe's, s times the frame a side, and taller where the end view is too short to hold the
// disc within the deepest ring) and gives every sample at or past the end zoom that it
// covers, so that the last frame is exactly the end view's supersampled export, as with flat
// keyframes. A frame's subsample at radius rho pixels and angle a lies, at the frame's
// level lv, on the ring of level t = lv + log2(R/rho) (R the outer radius in pixels): keyframe
// floor(t)'s row (t - floor(t)) x rows, its column a/(2 pi) x cols. Those two numbers are the
// same for every frame but for lv, so they are worked out once per subsample (ringTable), and
// composing a frame is, per subsample, a level added and the colours of four samples blended.
// The keyframes a frame reads at depth k halvings inside its outer ring are read at a level of
// detail (lod) k, each block of 2^k x 2^k samples held as its mean colour (or as its middle
// sample where the colours change from frame to frame), so that what is held stays about 2.3
// keyframes' samples.

import (
	"fmt"
	"image"
	"image/color"
	"math"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/par"
)

// LayoutRings and LayoutFlat name the keyframe layouts (Options.Layout).
const (
	LayoutRings = "rings"
	LayoutFlat  = "flat"
)

// maxLOD is the coarsest level of detail: a keyframe read every 2^maxLOD-th sample. The
// columns are a multiple of 2^maxLOD so that every level wraps around the circle exactly.
const maxLOD = 6

// ringDensity is the samples per frame pixel, over the keyframe scale, along the outer ring
// (the frame's corners): 1 gives the keyframe scale's spacing there (a frame pixel over s),
// which a flat keyframe has only just before the next one takes over. At 0.6 the rings of a
// halving are about as many samples as a flat keyframe (2 pi ln 2 (0.6 R s)^2 against W H s^2,
// R the half-diagonal: 0.92 times for 16:9), and the frames between keyframes' zooms come closer to direct renders
// than flat keyframes' do (TestRingFrames: 33.6 dB worst after a 3x3 blur, 34.6 at 0.75 and
// 35.3 at 1, against flat keyframes' 32.5), since the rings are finer than the frame inside its
// outer ring.
const ringDensity = 0.6

// ringLayout is the exponential map's geometry for frames of w x h pixels with keyframe
// scale s: cols angles by rows rings a keyframe (one halving of the radius), the outer ring at
// radius r pixels of the keyframe's own zoom (the half-diagonal, and a sample more), and the
// centre keyframe cw x ch flat samples at s per end-view pixel (the end view's flat keyframe,
// and more: centreFrame).
type ringLayout struct {
	w, h, s    int
	cols, rows int
	r          float64
	cw, ch     int
}

func newRingLayout(w, h, s int) ringLayout {
	r := 0.5*math.Hypot(float64(w), float64(h)) + 1
	step := 1 << maxLOD
	cols := step * int(math.Ceil(2*math.Pi*r*float64(s)*ringDensity/float64(step)))
	rows := max(2, int(math.Round(float64(cols)*math.Ln2/(2*math.Pi))))
	// The centre holds the end view's flat keyframe and the disc of radius r/2 end-view pixels
	// (what lies within the deepest ring), by rows added above and below it, or columns on
	// either side of a portrait one.
	disc := int(math.Ceil(r/2*float64(s))) + 1
	mx, my := max(0, disc-s*w/2), max(0, disc-s*h/2)
	return ringLayout{w: w, h: h, s: s, cols: cols, rows: rows, r: r, cw: s*w + 2*mx, ch: s*h + 2*my}
}

// centreFrame is the centre keyframe of the end view loc: cw x ch samples with the spacing
// of the end view's flat keyframe (s w x s h), so that the end view's subsamples fall on its
// samples.
func (g ringLayout) centreFrame(loc fractal.Location) fractal.Frame {
	f := fractal.NewFrame(loc, g.cw, g.ch)
	flat := fractal.NewFrame(loc, g.s*g.w, g.s*g.h)
	f.Spacing, f.SpacingX = flat.Spacing, flat.SpacingX
	return f
}

// ringFrame is the rings keyframe of loc (at its zoom): the outer ring at g.r pixels of a
// w x h frame of loc, in the ring frame's spacing (that of a cols x rows frame).
func (g ringLayout) ringFrame(loc fractal.Location) fractal.Frame {
	return fractal.NewRingFrame(loc, g.cols, g.rows, g.r*float64(g.rows)/float64(min(g.w, g.h)))
}

// ringTable is, for each subsample of a frame (q x q a pixel, row by row), its ring level
// inside the outer ring (log2 of R over its radius) and its column (its angle in columns).
type ringTable struct {
	depth, col []float32
	maxDepth   float64
}

func newRingTable(g ringLayout, q int) *ringTable {
	qw, qh := q*g.w, q*g.h
	t := &ringTable{depth: make([]float32, qw*qh), col: make([]float32, qw*qh)}
	for j := range qh {
		for i := range qw {
			// Image rows go down, the imaginary axis up (fractal.Frame.Offsets).
			dx := (float64(i) + 0.5 - float64(qw)/2) / float64(q)
			dy := (float64(qh)/2 - float64(j) - 0.5) / float64(q)
			a := math.Atan2(dy, dx)
			if a < 0 {
				a += 2 * math.Pi
			}
			k := j*qw + i
			d := math.Log2(g.r / math.Hypot(dx, dy))
			t.depth[k], t.col[k] = float32(d), float32(a/(2*math.Pi)*float64(g.cols))
			t.maxDepth = max(t.maxDepth, d)
		}
	}
	return t
}

// heldRing is a keyframe as a frame reads it: its level, its level of detail and its
// samples at that level (every 2^lod-th row and column, from the middle of each block), and
// their colours; or, boxed, only the colours, each its block's mean. Rings keyframes wrap
// around in x; the centre keyframe is flat.
type heldRing struct {
	level float64
	lod   int
	// boxed says each held colour is its block's mean (centred on the block), not the
	// colour of the block's middle sample.
	boxed   bool
	w, h    int // the samples held
	centre  bool
	samples []colour.Sample
	tint    []color.RGBA
	// tinted is what the colours were made with (the colouring's offset and the distance
	// scale), so that a frame that needs other colours makes them again.
	tinted     [2]float64
	tintedOnce bool
}

// lodPick is the full-size index a level-of-detail sample i stands for: the middle of its
// block of 2^lod.
func lodPick(i, lod int) int { return i<<lod + (1<<lod)>>1 }

// lodCount is the samples a side of n at level of detail lod.
func lodCount(n, lod int) int { return max(1, (n-(1<<lod)>>1+(1<<lod)-1)>>lod) }

// loadRing reads keyframe u (unpacked, w x h) at level of detail lod. With col set (a
// colouring that cannot change and reads no distance estimate: colourKey key), it colours the
// samples row by row as it reads them and keeps only their colours: at a level of detail
// above 0, each the mean colour of its block of 2^lod x 2^lod samples (boxed), so that every
// sample computed counts, as a supersampled export's do; otherwise it keeps every 2^lod-th
// sample (the middle of each block), to be coloured for each frame.
func loadRing(u *unpacked, lod int, centre bool, col *colour.Colourer, key float64) (*heldRing, error) {
	if col != nil && lod > 0 {
		return loadRingBoxed(u, lod, centre, col, key)
	}
	hw, hh := lodCount(u.w, lod), lodCount(u.h, lod)
	hr := &heldRing{level: u.level, lod: lod, w: hw, h: hh, centre: centre}
	var row []colour.Sample
	if col != nil {
		hr.tint = make([]color.RGBA, hw*hh)
		hr.tinted, hr.tintedOnce = [2]float64{key, 1}, true
		row = make([]colour.Sample, hw)
	} else {
		hr.samples = make([]colour.Sample, hw*hh)
	}
	var band *colour.Data
	for y := range hh {
		r := min(lodPick(y, lod), u.h-1)
		k, d, err := u.band(r, r+1, band)
		if err != nil {
			return nil, err
		}
		band = d
		src := k.Data.Row(r)
		out := row
		if col == nil {
			out = hr.samples[y*hw : (y+1)*hw]
		}
		for x := range out {
			out[x] = src[min(lodPick(x, lod), u.w-1)]
		}
		if col != nil {
			tint := hr.tint[y*hw : (y+1)*hw]
			for x, s := range row {
				tint[x] = col.Colour(s)
			}
		}
	}
	return hr, nil
}

// loadRingBoxed is loadRing with a colourer at a level of detail above 0: each held colour
// is the mean of its block's 2^lod x 2^lod colours (fewer at a keyframe's last row or column
// where the side is not a multiple of the block), read a band of 2^lod rows at a time.
func loadRingBoxed(u *unpacked, lod int, centre bool, col *colour.Colourer, key float64) (*heldRing, error) {
	b := 1 << lod
	hw, hh := (u.w+b-1)>>lod, (u.h+b-1)>>lod
	hr := &heldRing{level: u.level, lod: lod, boxed: true, w: hw, h: hh, centre: centre,
		tint: make([]color.RGBA, hw*hh), tinted: [2]float64{key, 1}, tintedOnce: true}
	sum := make([][4]uint32, hw) // R, G, B and the count of each block of a band
	var band *colour.Data
	for y := range hh {
		r0, r1 := y<<lod, min((y+1)<<lod, u.h)
		k, d, err := u.band(r0, r1, band)
		if err != nil {
			return nil, err
		}
		band = d
		clear(sum)
		// par.Rows' rows are the block columns here, each (r1-r0) x 2^lod samples.
		par.Rows(hw, (r1-r0)<<lod, 1<<14, func(x0, x1 int) {
			for r := r0; r < r1; r++ {
				src := k.Data.Row(r)
				for x := x0; x < x1; x++ {
					a := &sum[x]
					for _, s := range src[x<<lod : min((x+1)<<lod, u.w)] {
						c := col.Colour(s)
						a[0] += uint32(c.R)
						a[1] += uint32(c.G)
						a[2] += uint32(c.B)
						a[3]++
					}
				}
			}
		})
		tint := hr.tint[y*hw : (y+1)*hw]
		for x, a := range sum {
			n := a[3]
			tint[x] = color.RGBA{byte((a[0] + n/2) / n), byte((a[1] + n/2) / n), byte((a[2] + n/2) / n), 255}
		}
	}
	return hr, nil
}

// colourAll colours hr's samples with col, their distance estimates scaled by deScale, unless
// they are coloured so already (key: what else decides the colours). Unless keep, the samples
// are dropped once coloured (the colours are all a frame reads, and they do not change).
func (hr *heldRing) colourAll(col *colour.Colourer, deScale float32, key float64, keep bool) {
	k := [2]float64{key, float64(deScale)}
	if hr.tintedOnce && (hr.tinted == k || hr.samples == nil) {
		return
	}
	if hr.tint == nil {
		hr.tint = make([]color.RGBA, len(hr.samples))
	}
	par.Rows(hr.h, hr.w, 1<<14, func(y0, y1 int) {
		for i := y0 * hr.w; i < y1*hr.w; i++ {
			s := hr.samples[i]
			if deScale != 1 {
				s.DEX *= deScale
				s.DEY *= deScale
			}
			hr.tint[i] = col.Colour(s)
		}
	})
	hr.tinted, hr.tintedOnce = k, true
	if !keep {
		hr.samples = nil
	}
}

// ringComposer composes frames from rings keyframes.
type ringComposer struct {
	g      ringLayout
	q      int
	col    *colour.Colourer
	table  *ringTable
	levels []float64 // the rings keyframes' levels (the plan's); the centre's is the last
	// colourKey names the colouring (it changes with colour cycling and palettes at
	// waypoints); needsDE says the colours read the distance estimate, whose scale changes
	// with the frame's level; keep says the held samples are kept to be coloured again for
	// each frame (needsDE, or colour cycling). Otherwise the keyframes are coloured as they
	// are read, and read again when colourKey changes (a palette at a waypoint).
	colourKey float64
	needsDE   bool
	keep      bool
	sum       []uint32
}

func newRingComposer(g ringLayout, q int, col *colour.Colourer, levels []float64, needsDE, changing bool) *ringComposer {
	return &ringComposer{g: g, q: q, col: col, table: newRingTable(g, q), levels: levels, needsDE: needsDE, keep: needsDE || changing}
}

// centreIndex is the centre keyframe's index: after the rings keyframes.
func (c *ringComposer) centreIndex() int { return len(c.levels) }

// needs lists the keyframes frame level lv reads and the level of detail of each: the rings
// keyframes whose halving meets [lv, lv + the deepest subsample's depth] and the centre one
// when that reaches the end view's outer ring.
func (c *ringComposer) needs(lv float64) map[int]int {
	out := map[int]int{}
	n := len(c.levels)
	last := c.levels[n-1]
	lo, hi := lv, lv+c.table.maxDepth
	for j, l := range c.levels {
		if l+1 <= lo || l > hi || j < n-1 && l >= last {
			continue
		}
		out[j] = min(maxLOD, max(0, int(math.Floor(l-lv))))
	}
	if hi >= last {
		// The centre keyframe's samples are s per end-view pixel: at a frame 2^k times
		// shallower, 2^k times finer than needed.
		out[c.centreIndex()] = min(maxLOD, max(0, int(math.Floor(last-lv))))
	}
	return out
}

// compose draws the frame at level lv into dst (w x h) from held (the keyframes needs names,
// at those levels of detail or finer).
func (c *ringComposer) compose(dst *image.RGBA, lv float64, held map[int]*heldRing) {
	g, q := c.g, c.q
	n := len(c.levels)
	last := c.levels[n-1]
	for j, hr := range held {
		scale := float32(1)
		if c.needsDE {
			scale = c.deScale(j, hr, lv)
		}
		hr.colourAll(c.col, scale, c.colourKey, c.keep)
	}
	qw, qh := q*g.w, q*g.h
	if need := 3 * g.w * g.h; cap(c.sum) < need {
		c.sum = make([]uint32, need)
	}
	sum := c.sum[:3*g.w*g.h]
	var rings []*heldRing
	for j := range n {
		rings = append(rings, held[j])
	}
	centre := held[n]
	// The centre keyframe's samples a frame pixel, and its middle.
	cs := float64(g.s) * math.Exp2(last-lv)
	cmx, cmy := float64(g.cw)/2-0.5, float64(g.ch)/2-0.5
	nq := uint32(q * q)
	par.Rows(g.h, g.w*q*q, 1<<14, func(y0, y1 int) {
		for y := y0; y < y1; y++ {
			s := sum[3*g.w*y : 3*g.w*(y+1)]
			clear(s)
			for b := range q {
				row := (y*q + b) * qw
				for x := range g.w {
					a := s[3*x : 3*x+3 : 3*x+3]
					for i := range q {
						k := row + x*q + i
						t := lv + float64(c.table.depth[k])
						if t >= last {
							// At or past the end zoom: the centre keyframe, flat, where it
							// covers the point (always within the deepest ring).
							// The subsample's offset from the centre in pixels, as newRingTable has it.
							u := (float64(x*q+i)+0.5-float64(qw)/2)/float64(q)*cs + cmx
							v := -(float64(qh)/2-float64(y*q+b)-0.5)/float64(q)*cs + cmy
							if t >= last+1 || u >= -0.5 && v >= -0.5 && u <= float64(g.cw)-0.5 && v <= float64(g.ch)-0.5 {
								centre.add(a, u, v)
								continue
							}
						}
						j := min(max(int(math.Floor(t)), 0), n-2)
						if t >= last {
							j = n - 1
						}
						hr := rings[j]
						v := (t-hr.level)*float64(g.rows) - 0.5
						hr.add(a, float64(c.table.col[k])-0.5, v)
					}
				}
			}
			o := dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+y)
			px := dst.Pix[o : o+4*g.w]
			for x := range g.w {
				p := px[4*x : 4*x+4 : 4*x+4]
				p[0] = byte((s[3*x] + nq*128) / (nq * 256))
				p[1] = byte((s[3*x+1] + nq*128) / (nq * 256))
				p[2] = byte((s[3*x+2] + nq*128) / (nq * 256))
				p[3] = 255
			}
		}
	})
}

// deScale is the factor from keyframe j's distance estimates (in its frame's spacing) to the
// frame's subsamples at level lv.
func (c *ringComposer) deScale(j int, hr *heldRing, lv float64) float32 {
	g := c.g
	sub := float64(min(g.w, g.h) * c.q) // subsamples across the frame's shorter side
	if hr.centre {
		// Its spacing is the end view's pixel over s.
		return float32(math.Exp2(lv-hr.level) * sub / float64(min(g.w, g.h)*g.s))
	}
	// Its spacing is that of a cols x rows frame at its level (4 / zoom / rows).
	return float32(math.Exp2(lv-hr.level) * sub / float64(g.rows))
}

// add adds to a, weighted 256, the colour at full-size sample coordinates (u, v) (samples'
// centres at the integers): the four held samples around it blended bilinearly, wrapping
// around in u for a rings keyframe, clamped at the edges otherwise.
func (hr *heldRing) add(a []uint32, u, v float64) {
	if hr.lod > 0 {
		b := 1 << hr.lod
		h, f := float64(b>>1), float64(b)
		if hr.boxed {
			h = (f - 1) / 2 // a block's mean stands at its centre
		}
		u, v = (u-h)/f, (v-h)/f
	}
	v = min(max(v, 0), float64(hr.h-1))
	y0 := int(v)
	y1 := min(y0+1, hr.h-1)
	fy := v - float64(y0)
	var x0, x1 int
	var fx float64
	if hr.centre {
		u = min(max(u, 0), float64(hr.w-1))
		x0 = int(u)
		x1 = min(x0+1, hr.w-1)
		fx = u - float64(x0)
	} else {
		fl := math.Floor(u)
		fx = u - fl
		x0 = int(fl) % hr.w
		if x0 < 0 {
			x0 += hr.w
		}
		x1 = x0 + 1
		if x1 == hr.w {
			x1 = 0
		}
	}
	c00, c01 := hr.tint[y0*hr.w+x0], hr.tint[y0*hr.w+x1]
	c10, c11 := hr.tint[y1*hr.w+x0], hr.tint[y1*hr.w+x1]
	w00, w01, w10, w11 := (1-fx)*(1-fy)*256, fx*(1-fy)*256, (1-fx)*fy*256, fx*fy*256
	a[0] += uint32(w00*float64(c00.R) + w01*float64(c01.R) + w10*float64(c10.R) + w11*float64(c11.R) + 0.5)
	a[1] += uint32(w00*float64(c00.G) + w01*float64(c01.G) + w10*float64(c10.G) + w11*float64(c11.G) + 0.5)
	a[2] += uint32(w00*float64(c00.B) + w01*float64(c01.B) + w10*float64(c10.B) + w11*float64(c11.B) + 0.5)
}

// String describes the layout for messages.
func (g ringLayout) String() string {
	return fmt.Sprintf("%dx%d rings a halving, a %dx%d centre", g.cols, g.rows, g.cw, g.ch)
}

// RingsKeyframe is the size of the rings keyframes of frames w x h at keyframe scale s (cols
// angles by rows rings, one a doubling of the zoom), and of their centre keyframe (the end
// view's flat keyframe, cw x ch), for estimates of a video's work.
func RingsKeyframe(w, h, s int) (cols, rows, cw, ch int) {
	g := newRingLayout(w, h, s)
	return g.cols, g.rows, g.cw, g.ch
}
