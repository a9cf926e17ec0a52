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
		block = s.takeSpare() // the memory of the blocks no frame reads any more
		if len(block) != w*h {
			block = make([]float32, w*h)
		}
		fill(block, side)
	}
	s.mu.Lock()
	if s.last != nil {
		s.spare = s.last.block // nothing reads the old blocks any more
	}
	s.last = &base{img: img, block: block, loc: loc, w: w, h: h}
	s.mu.Unlock()
}

// recoloured makes img, loc's view in another colouring, what the next interactive frame
// starts from when the last frame is of that view at img's size: the same pixels coloured
// anew, standing for the same blocks.
func (s *Scheduler) recoloured(img *image.RGBA, loc fractal.Location) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.last
	if b == nil || b.w != img.Rect.Dx() || b.h != img.Rect.Dy() || viewKey(b.loc) != viewKey(loc) {
		return
	}
	s.last = &base{img: img, block: b.block, loc: loc, w: b.w, h: b.h}
}

// reusable returns the base an interactive frame of loc at w x h can start from: same size
// and colouring, and not merely another iteration count at the same zoom (the pixels would
// be stale, not approximate).
func (s *Scheduler) reusable(loc fractal.Location, w, h int) *base {
	s.mu.Lock()
	b := s.last
	s.mu.Unlock()
	if b == nil || b.w != w || b.h != h || b.loc.Color != loc.Color || b.loc.Rotation != loc.Rotation {
		return nil // another size or colouring, or a turned picture
	}
	if b.loc.Iterations != loc.Iterations && b.loc.Zoom.Equal(loc.Zoom) {
		return nil
	}
	return b
}

// CentreShift is l's centre minus from's, in pixels of spacing along from's screen axes (x
// right, y down; turned by from's rotation, fractal.Location.ScreenOffset). The
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
	dx, up := from.ScreenOffset(diff(l.Re, from.Re), diff(l.Im, from.Im))
	return dx, -up
}

// resampled is the view's picture taken over from the last frame, on its way to becoming
// the next one: its pixels, the side of the block each stands for, which rows are copies of
// the row above (pixels and blocks, which the statistics use to skip them), and the largest
// block of each tile (tileSide square, row by row, tw a row).
type resampled struct {
	img      *image.RGBA
	block    []float32
	dup      []bool
	worst    []float32
	w, h, tw int
}

// resample returns b's picture and blocks mapped onto the view loc at w x h: pixel (x, y)
// takes the old pixel under its centre; pixels the old frame does not cover are black with
// block +Inf. k is the old pixels per new pixel (< 1 zoomed in). The blocks reuse spare's
// memory when it has the size.
func resample(b *base, loc fractal.Location, w, h int, spare []float32) (r resampled, k float64) {
	r = newResampled(w, h, spare)
	k = b.loc.ZoomExp().Quo(loc.ZoomExp()).Float64() // the new spacing over the old
	ox, oy := CentreShift(loc, b.loc, fractal.SpacingExp(b.loc.ZoomExp(), w, h))
	if disjoint(ox, oy, k, w, h) {
		fill(r.block, inf)
		fill(r.worst, inf)
		return r, k
	}
	r.from(b, ox, oy, k)
	return r, k
}

// inf is the block of a pixel that shows nothing yet.
var inf = float32(math.Inf(1))

// newResampled is a black w x h picture, its blocks in spare when it has the size.
func newResampled(w, h int, spare []float32) resampled {
	block := spare
	if len(block) != w*h {
		block = make([]float32, w*h)
	}
	tw := ceilDiv(w, tileSide)
	return resampled{
		img:   image.NewRGBA(image.Rect(0, 0, w, h)),
		block: block,
		dup:   make([]bool, h),
		worst: make([]float32, tw*ceilDiv(h, tileSide)),
		w:     w, h: h, tw: tw,
	}
}

// disjoint says that the old frame, shifted by ox, oy old pixels and scaled by k old pixels
// per new one, has nothing to give the w x h view (or that the shift or scale is no number).
func disjoint(ox, oy, k float64, w, h int) bool {
	return math.IsNaN(ox+oy+k) || math.IsInf(ox+oy+k, 0) || k <= 0 ||
		math.Abs(ox) >= float64(w)*(1+k) || math.Abs(oy) >= float64(h)*(1+k)
}

// source is where the centre of new pixel i (of n along an axis) lies in the old frame
// shifted by o old pixels, at k old pixels per new one: inside old pixel at (which may be
// outside 0..n-1), d old pixels from its centre.
func source(o, k float64, n, i int) (at int, d float32) {
	p := o + (float64(i)+0.5-float64(n)/2)*k + float64(n)/2
	return int(math.Floor(p)), float32(math.Abs(p - math.Floor(p) - 0.5))
}

// sourceCols is source for every column of a view w wide.
func sourceCols(o, k float64, w int) (cols []int, dcol []float32) {
	cols = make([]int, w)
	dcol = make([]float32, w)
	for x := range cols {
		cols[x], dcol[x] = source(o, k, w, x)
	}
	return cols, dcol
}

// from fills every row from b's, shifted by ox, oy old pixels at k old pixels per new one.
func (r *resampled) from(b *base, ox, oy, k float64) {
	cols, dcol := sourceCols(ox, k, r.w)
	grow := float32(1 / k)
	prev, prevD := -2, float32(-1) // the old row the last new row came from, and its d
	for y := range r.h {
		yo, d := source(oy, k, r.h, y)
		switch {
		case yo < 0 || yo >= r.h:
			r.uncoveredRow(y)
			r.dup[y] = prev == -1
			prev = -1
		case yo == prev && d == prevD:
			// The same old row at the same distance: the same pixels and blocks.
			r.copyAbove(y, true)
			r.dup[y] = true
			if y%tileSide == 0 {
				r.foldWorst(y) // the row above counted for the tiles above
			}
		default:
			if yo == prev {
				r.copyAbove(y, false)
			} else {
				r.takeRow(y, b, yo, cols)
			}
			prev, prevD = yo, d
			r.magnify(y, b.block[yo*r.w:yo*r.w+r.w], cols, dcol, d, grow)
			r.foldWorst(y)
		}
	}
}

// uncoveredRow marks row y as showing nothing, its tiles' worst +Inf.
func (r *resampled) uncoveredRow(y int) {
	fill(r.block[y*r.w:y*r.w+r.w], inf)
	fill(r.worst[y/tileSide*r.tw:y/tileSide*r.tw+r.tw], inf)
}

// copyAbove copies row y-1's pixels into row y, and its blocks when blocks is set.
func (r *resampled) copyAbove(y int, blocks bool) {
	img := r.img
	copy(img.Pix[y*img.Stride:y*img.Stride+r.w*4], img.Pix[(y-1)*img.Stride:])
	if blocks {
		copy(r.block[y*r.w:y*r.w+r.w], r.block[(y-1)*r.w:y*r.w])
	}
}

// takeRow copies into row y the pixels of b's row yo at cols (those inside it).
func (r *resampled) takeRow(y int, b *base, yo int, cols []int) {
	w := r.w
	drow := r.img.Pix[y*r.img.Stride : y*r.img.Stride+w*4]
	src := b.img.Pix[yo*b.img.Stride : yo*b.img.Stride+w*4]
	for x, xo := range cols {
		if xo >= 0 && xo < w {
			binary.LittleEndian.PutUint32(drow[x*4:], binary.LittleEndian.Uint32(src[xo*4:]))
		}
	}
}

// magnify sets row y's blocks from the old row's, sb, its pixels taken at cols (dcol and d
// old pixels from their centres), each old pixel grow new pixels wide.
func (r *resampled) magnify(y int, sb []float32, cols []int, dcol []float32, d, grow float32) {
	w := r.w
	db := r.block[y*w : y*w+w]
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
}

// foldWorst folds row y's blocks into its tiles' worst.
func (r *resampled) foldWorst(y int) {
	foldWorst(r.worst[y/tileSide*r.tw:y/tileSide*r.tw+r.tw], r.block[y*r.w:y*r.w+r.w])
}

// foldWorst raises each tile's worst (tileSide wide, the last one what is left of the row) to
// the largest block of row under it.
func foldWorst(worst, row []float32) {
	for tx := range worst {
		m := worst[tx]
		for _, v := range row[tx*tileSide : min(tx*tileSide+tileSide, len(row))] {
			if v > m {
				m = v
			}
		}
		worst[tx] = m
	}
}

// fill sets every element of s to v.
func fill(s []float32, v float32) {
	for i := range s {
		s[i] = v
	}
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
// this file): it resamples b, plans which tiles to render at which scale within the time
// budget, renders them and keeps the result as the next frame's base.
func (s *Scheduler) incremental(ctx context.Context, loc fractal.Location, w, h int, b *base) (*image.RGBA, FrameStats, error) {
	start := time.Now()
	if _, err := s.Reference(ctx, fractal.NewFrame(loc, w, h), nil); err != nil {
		return canceled(ctx, start, err)
	}
	r, k := resample(b, loc, w, h, s.takeSpare())
	over := time.Since(start)

	tiles := tileGrid(r.worst, w, h)
	lo, hi := s.scaleBounds()
	budget := s.budgetPixels(loc.Iterations, w, h, over+s.after)
	scales := allowedScales(lo, hi)
	// g, the magnification per frame (refreshScale), averaged over the last few (a wheel
	// zoom alternates notches and pans), at least 1.02.
	s.lnGrow = 0.7*s.lnGrow + 0.3*math.Max(-math.Log(k), math.Log(1.02))
	assignScales(tiles, scales, lo, hi, refreshScale(scales, hi, budget, s.lnGrow, w*h), budget)
	runs := mergeRuns(tiles, w, h)

	rstart := time.Now()
	rendered, coarsest, prec, err := s.renderRuns(ctx, loc, w, h, runs, &r)
	if err != nil {
		return canceled(ctx, start, err)
	}
	rd := time.Since(rstart)
	after := time.Now()
	s.learnCost(rd, rendered, w, h, loc.Iterations)
	if len(runs) == 0 {
		prec = fractal.NewFrame(loc, w, h).Precision()
	}
	med, p95 := blockStats(r.block, r.dup, w)
	s.setBase(r.img, loc, 0, r.block)
	s.after = time.Since(after)
	return r.img, FrameStats{
		Scale: max(coarsest, 1), Width: w, Height: h, RenderW: w, RenderH: h,
		Render: rd, Total: time.Since(start), Interactive: true, Reused: true,
		Precision: prec, PixelsRendered: rendered, Block: med, BlockP95: p95,
	}, nil
}

// takeSpare hands over the blocks of the frame before the last, for the next one to reuse.
func (s *Scheduler) takeSpare() []float32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	spare := s.spare
	s.spare = nil
	return spare
}

// tileGrid is the view's tiles, row by row, each with the coarsest block in it (worst, in
// the same order).
func tileGrid(worst []float32, w, h int) []tilePlan {
	tw, th := ceilDiv(w, tileSide), ceilDiv(h, tileSide)
	tiles := make([]tilePlan, 0, tw*th)
	for ty := range th {
		for tx := range tw {
			x0, y0 := tx*tileSide, ty*tileSide
			x1, y1 := min(x0+tileSide, w), min(y0+tileSide, h)
			tiles = append(tiles, tilePlan{tx: tx, ty: ty, worst: worst[ty*tw+tx], px: (x1 - x0) * (y1 - y0)})
		}
	}
	return tiles
}

// allowedScales is Scales from lo to hi.
func allowedScales(lo, hi int) []int {
	scales := make([]int, 0, len(Scales))
	for _, sc := range Scales {
		if sc >= lo && sc <= hi {
			scales = append(scales, sc)
		}
	}
	return scales
}

// refreshScale is the scale that bounds what a frame of px pixels loses to zooming, given
// budget pixels a frame (hi when there is no budget): refreshing a share of the view per
// frame at sr, while the rest is magnified by g a frame (lnGrow = ln g), keeps the coarsest
// block near sr * g^(px/(budget*sr^2)), least for sr^2 = 2 ln(g) px / budget. It is the
// first of scales at or above that, else the coarsest.
func refreshScale(scales []int, hi int, budget, lnGrow float64, px int) int {
	if budget <= 0 {
		return hi
	}
	ideal := math.Sqrt(2 * lnGrow * float64(px) / budget)
	for _, sc := range scales {
		if float64(sc) >= ideal {
			return sc
		}
	}
	return scales[len(scales)-1]
}

// need is how many pixels are rendered to bring every tile to scale sc or finer.
func need(tiles []tilePlan, sc int) (px int) {
	for _, t := range tiles {
		if t.worst > float32(sc)+slack {
			px += ceilDiv(t.px, sc*sc)
		}
	}
	return px
}

// assignScales sets the scale each tile is rendered at (0: kept), within budget pixels:
// every tile at the finest scale at which all fit, if that is no coarser than sr; else the
// tiles the old frame does not cover (and those coarser than hi) first, at the finest scale
// the budget allows for them, then the coarsest tiles at sr while the budget lasts. What
// the budget has left then refines the coarsest of the other tiles at one scale finer than
// the one used (one scale, so that the tiles make few runs: every render call has its cost).
func assignScales(tiles []tilePlan, scales []int, lo, hi, sr int, budget float64) {
	all := 0 // the finest scale at which every tile fits the budget, 0 if none
	for _, sc := range scales {
		if float64(need(tiles, sc)) <= budget {
			all = sc
			break
		}
	}
	left, main := budget, sr
	if all != 0 && all <= sr {
		for i := range tiles {
			if tiles[i].worst > float32(all)+slack {
				tiles[i].scale = all
			}
		}
		left -= float64(need(tiles, all))
		main = all
	} else {
		left = uncoveredFirst(tiles, scales, hi, sr, budget)
	}
	fine := lo
	for _, sc := range scales {
		if sc < main {
			fine = sc
		}
	}
	rest := make([]int, 0, len(tiles))
	for i, t := range tiles {
		if t.scale == 0 && t.worst > float32(fine)+slack {
			rest = append(rest, i)
		}
	}
	spend(tiles, rest, fine, left)
}

// uncoveredFirst gives the tiles coarser than hi (those the old frame does not cover
// included) the finest scale the budget allows for them all, then the coarsest of the tiles
// coarser than sr the scale sr while the budget lasts. It returns the budget left.
func uncoveredFirst(tiles []tilePlan, scales []int, hi, sr int, budget float64) (left float64) {
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
	left = budget
	order := make([]int, 0, len(tiles))
	for i, t := range tiles {
		if t.worst > float32(hi)+slack {
			tiles[i].scale = sm
			left -= float64(ceilDiv(t.px, sm*sm))
		} else if t.worst > float32(sr)+slack {
			order = append(order, i)
		}
	}
	return spend(tiles, order, sr, left)
}

// spend gives the tiles idx, coarsest first, the scale sc while the budget left lasts, and
// returns what is left of it. It reorders idx.
func spend(tiles []tilePlan, idx []int, sc int, left float64) float64 {
	sort.SliceStable(idx, func(a, b int) bool { return tiles[idx[a]].worst > tiles[idx[b]].worst })
	for _, i := range idx {
		c := float64(ceilDiv(tiles[i].px, sc*sc))
		if c > left {
			break
		}
		tiles[i].scale = sc
		left -= c
	}
	return left
}

// mergeRuns is the tiles to render (tileGrid's, of a w x h view, with their scales) as
// runs along rows, merged down the rows where they line up, clipped to the view.
func mergeRuns(tiles []tilePlan, w, h int) []runRect {
	tw, th := ceilDiv(w, tileSide), ceilDiv(h, tileSide)
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
	return runs
}

// reducedRect is the pixels of the frame reduced by sc (ReducedFrame) that cover screen
// pixels r: reduced pixel i covers screen pixels i*sc to i*sc+sc-1.
func reducedRect(r image.Rectangle, sc int) image.Rectangle {
	return image.Rect(r.Min.X/sc, r.Min.Y/sc, ceilDiv(r.Max.X, sc), ceilDiv(r.Max.Y, sc))
}

// renderRuns renders each run into its reduced frame and pastes it, scaled up, into r. It
// returns the pixels rendered, the coarsest scale and the precision of the frames used.
func (s *Scheduler) renderRuns(ctx context.Context, loc fractal.Location, w, h int, runs []runRect, r *resampled) (rendered, coarsest int, prec fractal.Precision, err error) {
	frames := map[int]fractal.Frame{}
	for _, run := range runs {
		f, ok := frames[run.sc]
		if !ok {
			if f, err = s.Reference(ctx, ReducedFrame(loc, w, h, run.sc), nil); err != nil {
				return 0, 0, prec, err
			}
			frames[run.sc] = f
			prec = f.Precision()
		}
		rr := reducedRect(run.r, run.sc)
		small := image.NewRGBA(rr)
		if err := s.r.Render(ctx, f, rr, small); err != nil {
			return 0, 0, prec, err
		}
		rendered += rr.Dx() * rr.Dy()
		coarsest = max(coarsest, run.sc)
		r.paste(run, small)
	}
	return rendered, coarsest, prec, nil
}

// paste writes small, run's pixels rendered at 1/run.sc (reducedRect's), into the picture
// scaled up, their blocks run.sc, and marks the rows it changes (and the one below) as no
// copies.
func (r *resampled) paste(run runRect, small *image.RGBA) {
	img, sc, rr := r.img, run.sc, small.Rect
	for y := run.r.Min.Y; y < min(run.r.Max.Y+1, r.h); y++ {
		r.dup[y] = false
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
		fill(r.block[y*r.w+x0:y*r.w+x1], float32(sc))
	}
}

// learnCost feeds the time rd that rendering a reusing frame's rendered pixels took into the
// cost estimate. A render of a few pixels is mostly the call's latency (the GL thread busy,
// the machine loaded): it bounds the cost per pixel from above but must not raise it, or one
// slow call would starve the next frames.
func (s *Scheduler) learnCost(rd time.Duration, rendered, w, h, iter int) {
	if rendered == 0 {
		return
	}
	s.mu.Lock()
	est := s.nsPerPx
	s.mu.Unlock()
	if rendered*64 >= w*h || est == 0 || float64(rd.Nanoseconds())/float64(rendered) < est {
		s.observe(rd, rendered, iter)
	}
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
