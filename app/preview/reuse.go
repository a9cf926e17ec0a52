package preview

import (
	"context"
	"encoding/binary"
	"image"
	"math"
	"math/big"
	"sort"
	"time"

	"mandelscope/fractal"
)

// Reuse of the last frame (XaoS's idea, on the renderer's regular grids): an interactive
// frame starts from the last frame delivered at the same size and colouring, resampled to
// the new view (nearest neighbour, the shift taken exactly), and renders only what that
// leaves too coarse. Every pixel carries the side, in screen pixels, of the block its value
// stands for (1: computed for that pixel; a reduced render at 1/s gives s; a reused pixel's
// side grows with the magnification since it was computed), so the error of the picture is
// known, never accumulated unseen. The view is cut into tiles of tileSide pixels (a multiple
// of every scale, so a reduced render's blocks line up with them): tiles the old frame does
// not cover (the strips a pan exposes, the border a zoom out shows) are rendered first; the
// rest of the time budget refreshes the coarsest tiles, so that a zoom keeps every part of
// the picture within a few pixels of exact while each frame renders only a share of it.

// tileSide is the side of the tiles the reuse plans in: the least common multiple of Scales.
const tileSide = 48

// slack is how much coarser than a scale a tile may be and still count as rendered at it: a
// pan by whole pixels, whose centre is written to a thousandth of a pixel, keeps its blocks.
const slack = 1.0 / 16

// base is the last frame delivered and its blocks; it is only read once stored.
type base struct {
	img   *image.RGBA
	block []float32 // per pixel: the side of the block its value stands for, in pixels
	loc   fractal.Location
	w, h  int
}

// setBase stores img (w x h, of loc) as what the next interactive frame starts from, every
// pixel standing for a block of side (block nil) or block[i].
func (s *Scheduler) setBase(img *image.RGBA, loc fractal.Location, side float32, block []float32) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if block == nil {
		block = make([]float32, w*h)
		for i := range block {
			block[i] = side
		}
	}
	s.mu.Lock()
	if s.last != nil {
		s.spare = s.last.block // nothing reads the old blocks any more
	}
	s.last = &base{img: img, block: block, loc: loc, w: w, h: h}
	s.mu.Unlock()
}

// reusable returns the base an interactive frame of loc at w x h can start from: same size
// and colouring, and not merely another iteration count at the same zoom (the pixels would
// be stale, not approximate).
func (s *Scheduler) reusable(loc fractal.Location, w, h int) *base {
	s.mu.Lock()
	b := s.last
	s.mu.Unlock()
	if b == nil || b.w != w || b.h != h || b.loc.Color != loc.Color {
		return nil
	}
	if b.loc.Iterations != loc.Iterations && b.loc.Zoom.Equal(loc.Zoom) {
		return nil
	}
	return b
}

// CentreShift is l's centre minus from's, in pixels of spacing (x right, y down). The
// difference is taken exactly (math/big) and divided by the spacing before it is rounded to
// float64: at depth the centres differ only in digits far below float64's precision, and
// past zoom 1e308 the difference itself is below float64's range.
func CentreShift(l, from fractal.Location, spacing fractal.Exp) (dx, dy float64) {
	prec := max(l.Re.SignificantBits(), l.Im.SignificantBits(), from.Re.SignificantBits(), from.Im.SignificantBits()) + 64
	sp := spacing.Big(prec)
	diff := func(a, b fractal.Decimal) float64 {
		d := new(big.Float).SetPrec(prec).Sub(a.Big(prec), b.Big(prec))
		v, _ := d.Quo(d, sp).Float64()
		return v
	}
	return diff(l.Re, from.Re), -diff(l.Im, from.Im)
}

// resample returns b's picture and blocks mapped onto the view loc at w x h: pixel (x, y)
// takes the old pixel under its centre; pixels the old frame does not cover are black with
// block +Inf. k is the old pixels per new pixel (< 1 zoomed in); dup[y] says that row y is a
// copy of row y-1 (pixels and blocks), which the statistics use to skip it; worst is the
// largest block of each tile (tileSide square, row by row). block reuses spare's memory when
// it has the size.
func resample(b *base, loc fractal.Location, w, h int, spare []float32) (img *image.RGBA, block []float32, dup []bool, worst []float32, k float64) {
	img = image.NewRGBA(image.Rect(0, 0, w, h))
	block = spare
	if len(block) != w*h {
		block = make([]float32, w*h)
	}
	dup = make([]bool, h)
	tw := ceilDiv(w, tileSide)
	worst = make([]float32, tw*ceilDiv(h, tileSide))
	inf := float32(math.Inf(1))
	// rowWorst folds row y's blocks into its tiles' worst.
	rowWorst := func(y int) {
		tr := worst[y/tileSide*tw:]
		row := block[y*w : y*w+w]
		for tx := range tw {
			m := tr[tx]
			for _, v := range row[tx*tileSide : min(tx*tileSide+tileSide, w)] {
				if v > m {
					m = v
				}
			}
			tr[tx] = m
		}
	}
	k = b.loc.ZoomExp().Quo(loc.ZoomExp()).Float64() // the new spacing over the old
	ox, oy := CentreShift(loc, b.loc, fractal.SpacingExp(b.loc.ZoomExp(), w, h))
	if math.IsNaN(ox+oy+k) || math.IsInf(ox+oy+k, 0) || k <= 0 ||
		math.Abs(ox) >= float64(w)*(1+k) || math.Abs(oy) >= float64(h)*(1+k) {
		for i := range block {
			block[i] = inf
		}
		for i := range worst {
			worst[i] = inf
		}
		return img, block, dup, worst, k
	}
	// New pixel x's centre lies at old position px (in old pixels), inside old pixel cols[x]
	// whose centre is dcol[x] old pixels from it.
	cols := make([]int, w)
	dcol := make([]float32, w)
	for x := range cols {
		px := ox + (float64(x)+0.5-float64(w)/2)*k + float64(w)/2
		cols[x] = int(math.Floor(px))
		dcol[x] = float32(math.Abs(px - math.Floor(px) - 0.5))
	}
	grow := float32(1 / k)
	prev, prevD := -2, float32(-1) // the old row the last new row came from, and its drow0
	for y := range h {
		db := block[y*w : y*w+w]
		drow := img.Pix[y*img.Stride : y*img.Stride+w*4]
		py := oy + (float64(y)+0.5-float64(h)/2)*k + float64(h)/2
		yo := int(math.Floor(py))
		d := float32(math.Abs(py - math.Floor(py) - 0.5))
		if yo < 0 || yo >= h {
			for x := range db {
				db[x] = inf
			}
			tr := worst[y/tileSide*tw : y/tileSide*tw+tw]
			for tx := range tr {
				tr[tx] = inf
			}
			dup[y] = prev == -1
			prev = -1
			continue
		}
		if yo == prev {
			// The same old row: the same pixels; the same blocks too when the centre lies as
			// far from the old row's.
			copy(drow, img.Pix[(y-1)*img.Stride:])
			if d == prevD {
				copy(db, block[(y-1)*w:y*w])
				dup[y] = true
				if y%tileSide == 0 {
					rowWorst(y) // the row above counted for the tiles above
				}
				continue
			}
		}
		sb := b.block[yo*w : yo*w+w]
		if yo != prev {
			src := b.img.Pix[yo*b.img.Stride : yo*b.img.Stride+w*4]
			for x, xo := range cols {
				if xo >= 0 && xo < w {
					binary.LittleEndian.PutUint32(drow[x*4:], binary.LittleEndian.Uint32(src[xo*4:]))
				}
			}
		}
		prev, prevD = yo, d
		for x, xo := range cols {
			if xo >= 0 && xo < w {
				// The old value's point lies within (b-1)/2 old pixels of the old pixel's
				// centre (b its block), which lies within max(dcol, d) old pixels of the new
				// pixel's centre.
				db[x] = 2*((sb[xo]-1)/2+max(dcol[x], d))*grow + 1
			} else {
				db[x] = inf
			}
		}
		rowWorst(y)
	}
	return img, block, dup, worst, k
}

// tilePlan is one tile of the view and the coarsest block in it.
type tilePlan struct {
	tx, ty int
	worst  float32
	px     int // the tile's pixels (edge tiles are smaller)
	scale  int // the scale it is rendered at; 0: kept as it is
}

// runRect is a run of tiles rendered with one call: screen pixels r at reduction sc.
type runRect struct {
	r  image.Rectangle
	sc int
}

// incremental renders an interactive frame of loc at w x h over the base b (see the top of
// this file).
func (s *Scheduler) incremental(ctx context.Context, loc fractal.Location, w, h int, b *base) (*image.RGBA, FrameStats, error) {
	start := time.Now()
	if _, err := s.Reference(ctx, fractal.NewFrame(loc, w, h), nil); err != nil {
		return canceled(ctx, start, err)
	}
	s.mu.Lock()
	spare := s.spare
	s.spare = nil
	s.mu.Unlock()
	img, block, dup, worst, k := resample(b, loc, w, h, spare)
	over := time.Since(start)

	// The tiles and their coarsest blocks.
	tw, th := ceilDiv(w, tileSide), ceilDiv(h, tileSide)
	tiles := make([]tilePlan, 0, tw*th)
	for ty := range th {
		for tx := range tw {
			x0, y0 := tx*tileSide, ty*tileSide
			x1, y1 := min(x0+tileSide, w), min(y0+tileSide, h)
			tiles = append(tiles, tilePlan{tx: tx, ty: ty, worst: worst[ty*tw+tx], px: (x1 - x0) * (y1 - y0)})
		}
	}

	lo, hi := s.scaleBounds()
	budget := s.budgetPixels(loc.Iterations, w, h, over+s.after)
	scales := make([]int, 0, len(Scales))
	for _, sc := range Scales {
		if sc >= lo && sc <= hi {
			scales = append(scales, sc)
		}
	}
	need := func(sc int) (px int) { // pixels rendered to bring every tile to sc or finer
		for _, t := range tiles {
			if t.worst > float32(sc)+slack {
				px += ceilDiv(t.px, sc*sc)
			}
		}
		return px
	}
	// The scale that bounds what a frame loses to zooming: refreshing a share of the view
	// per frame at sr, while the rest is magnified by g a frame, keeps the coarsest block
	// near sr * g^(N/(budget*sr^2)), least for sr^2 = 2 ln(g) N / budget.
	// g is the magnification per frame, averaged over the last few (a wheel zoom alternates
	// notches and pans), at least 1.02.
	s.lnGrow = 0.7*s.lnGrow + 0.3*math.Max(-math.Log(k), math.Log(1.02))
	sr := hi
	if budget > 0 {
		ideal := math.Sqrt(2 * s.lnGrow * float64(w*h) / budget)
		sr = scales[len(scales)-1]
		for _, sc := range scales {
			if float64(sc) >= ideal {
				sr = sc
				break
			}
		}
	}
	all := 0 // the finest scale at which every tile fits the budget, 0 if none
	for _, sc := range scales {
		if float64(need(sc)) <= budget {
			all = sc
			break
		}
	}
	left := budget
	// spend gives the tiles idx, coarsest first, the scale sc while the budget left lasts.
	spend := func(idx []int, sc int) {
		sort.SliceStable(idx, func(a, b int) bool { return tiles[idx[a]].worst > tiles[idx[b]].worst })
		for _, i := range idx {
			c := float64(ceilDiv(tiles[i].px, sc*sc))
			if c > left {
				break
			}
			tiles[i].scale = sc
			left -= c
		}
	}
	if all != 0 && all <= sr {
		for i := range tiles {
			if tiles[i].worst > float32(all)+slack {
				tiles[i].scale = all
			}
		}
		left -= float64(need(all))
	} else {
		// Uncovered tiles (and those coarser than the coarsest scale) first, at the finest
		// scale the budget allows for them, then the coarsest tiles at sr while the budget
		// lasts.
		mand := 0
		for _, t := range tiles {
			if t.worst > float32(hi)+slack {
				mand += t.px
			}
		}
		sm := hi
		for _, sc := range scales {
			if float64(ceilDiv(mand, sc*sc)) <= budget {
				sm = sc
				break
			}
		}
		order := make([]int, 0, len(tiles))
		for i, t := range tiles {
			if t.worst > float32(hi)+slack {
				tiles[i].scale = sm
				left -= float64(ceilDiv(t.px, sm*sm))
			} else if t.worst > float32(sr)+slack {
				order = append(order, i)
			}
		}
		spend(order, sr)
	}
	// What the budget has left refines the coarsest of the other tiles at one finer scale
	// (one scale, so that the tiles make few runs: every render call has its cost).
	main := sr
	if all != 0 && all <= sr {
		main = all
	}
	fine := lo
	for _, sc := range scales {
		if sc < main {
			fine = sc
		}
	}
	var rest []int
	for i, t := range tiles {
		if t.scale == 0 && t.worst > float32(fine)+slack {
			rest = append(rest, i)
		}
	}
	spend(rest, fine)

	// Runs of tiles along rows, merged down the rows where they line up.
	var runs []runRect
	open := map[runRect]int{} // a run of the previous tile row (rect at its last row) -> index in runs
	for ty := range th {
		next := map[runRect]int{}
		for tx := 0; tx < tw; {
			sc := tiles[ty*tw+tx].scale
			if sc == 0 {
				tx++
				continue
			}
			e := tx
			for e < tw && tiles[ty*tw+e].scale == sc {
				e++
			}
			y0, y1 := ty*tileSide, min(ty*tileSide+tileSide, h)
			key := runRect{image.Rect(tx*tileSide, 0, min(e*tileSide, w), 0), sc}
			if i, ok := open[key]; ok && runs[i].r.Max.Y == y0 {
				runs[i].r.Max.Y = y1
				next[key] = i
			} else {
				runs = append(runs, runRect{image.Rect(tx*tileSide, y0, min(e*tileSide, w), y1), sc})
				next[key] = len(runs) - 1
			}
			tx = e
		}
		open = next
	}

	// Render the runs, each into its reduced frame, and scale them up into the picture.
	rstart := time.Now()
	frames := map[int]fractal.Frame{}
	rendered, coarsest := 0, 0
	var prec fractal.Precision
	for _, run := range runs {
		f, ok := frames[run.sc]
		if !ok {
			var err error
			if f, err = s.Reference(ctx, ReducedFrame(loc, w, h, run.sc), nil); err != nil {
				return canceled(ctx, start, err)
			}
			frames[run.sc] = f
			prec = f.Precision()
		}
		sc := run.sc
		rr := image.Rect(run.r.Min.X/sc, run.r.Min.Y/sc, ceilDiv(run.r.Max.X, sc), ceilDiv(run.r.Max.Y, sc))
		small := image.NewRGBA(rr)
		if err := s.r.Render(ctx, f, rr, small); err != nil {
			return canceled(ctx, start, err)
		}
		rendered += rr.Dx() * rr.Dy()
		coarsest = max(coarsest, sc)
		for y := run.r.Min.Y; y < min(run.r.Max.Y+1, h); y++ {
			dup[y] = false
		}
		x0, x1 := run.r.Min.X, run.r.Max.X
		for y := run.r.Min.Y; y < run.r.Max.Y; y++ {
			drow := img.Pix[y*img.Stride : y*img.Stride+x1*4]
			if y%sc != 0 && y > run.r.Min.Y {
				copy(drow[x0*4:], img.Pix[(y-1)*img.Stride+x0*4:(y-1)*img.Stride+x1*4])
			} else {
				srow := small.Pix[(y/sc-rr.Min.Y)*small.Stride:]
				for x := x0; x < x1; x++ {
					si := (x/sc - rr.Min.X) * 4
					binary.LittleEndian.PutUint32(drow[x*4:], binary.LittleEndian.Uint32(srow[si:]))
				}
			}
			brow := block[y*w+x0 : y*w+x1]
			for x := range brow {
				brow[x] = float32(sc)
			}
		}
	}
	rd := time.Since(rstart)
	after := time.Now()
	if rendered > 0 {
		// A render of a few pixels is mostly the call's latency (the GL thread busy, the
		// machine loaded): it bounds the cost per pixel from above but must not raise it,
		// or one slow call would starve the next frames.
		s.mu.Lock()
		est := s.nsPerPx
		s.mu.Unlock()
		if rendered*64 >= w*h || est == 0 || float64(rd.Nanoseconds())/float64(rendered) < est {
			s.observe(rd, rendered, loc.Iterations)
		}
	}
	if len(frames) == 0 {
		prec = fractal.NewFrame(loc, w, h).Precision()
	}
	med, p95 := blockStats(block, dup, w)
	s.setBase(img, loc, 0, block)
	s.after = time.Since(after)
	return img, FrameStats{
		Scale: max(coarsest, 1), Width: w, Height: h, RenderW: w, RenderH: h,
		Render: rd, Total: time.Since(start), Interactive: true, Reused: true,
		Precision: prec, PixelsRendered: rendered, Block: med, BlockP95: p95,
	}, nil
}

// scaleBounds is the scheduler's interactive reduction range.
func (s *Scheduler) scaleBounds() (lo, hi int) {
	lo, hi = s.MinScale, s.MaxScale
	if lo < 1 {
		lo = 1
	}
	if hi < lo {
		hi = max(lo, 16)
	}
	return lo, hi
}

// budgetPixels is how many pixels an interactive frame of iter iterations at w x h can render
// within the target after spent (what the frame took before rendering).
func (s *Scheduler) budgetPixels(iter, w, h int, spent time.Duration) float64 {
	s.mu.Lock()
	cost := scaled(s.nsPerPx, s.iter, iter)
	if cost == 0 {
		cost = 2 * scaled(s.fullNsPerPx, s.fullIter, iter)
	}
	s.mu.Unlock()
	target := s.Target
	if target <= 0 {
		target = DefaultTarget
	}
	if cost == 0 {
		return float64(w*h) / 9 // nothing measured yet: as a 1/3 frame
	}
	return math.Max(0, float64(target-spent)) / cost
}

// blockStats is the median and 95th percentile of the block sides over a frame's pixels, w
// a row, taken on every fourth row and column, rows marked in dup counted as copies of the
// row above (to the nearest sixteenth of a pixel; sides over 64, +Inf included, count as 64).
func blockStats(block []float32, dup []bool, w int) (med, p95 float64) {
	const q = 16
	hist := make([]int, 64*q+1)
	top := float32(len(hist) - 1)
	h := len(block) / w
	total := 0
	for y := 0; y < h; {
		n := 1 // this row and its copies below, every fourth one counted
		for y+n < h && dup[y+n] {
			n++
		}
		c := 0 // the rows y..y+n-1 that are multiples of 4
		for r := y; r < y+n; r++ {
			if r%4 == 0 {
				c++
			}
		}
		if c > 0 {
			row := block[y*w : y*w+w]
			for x := 0; x < w; x += 4 {
				i := int(top)
				if f := row[x]*q + 0.5; f < top {
					i = int(f)
				}
				hist[i] += c
				total += c
			}
		}
		y += n
	}
	at := func(p float64) float64 {
		n := int(math.Ceil(p * float64(total)))
		c := 0
		for i, v := range hist {
			c += v
			if c >= n {
				return float64(i) / q
			}
		}
		return float64(len(hist)-1) / q
	}
	return at(0.5), at(0.95)
}
