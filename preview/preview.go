// Package preview is the explorer's preview scheduler, free of Fyne so that the window and
// `mandelscope bench` drive the same code: while the user drags or zooms it renders at a
// reduced resolution chosen from measured frame times (1/2, 1/3, ... per side) and scales
// the result up to the view's size; when input stops it renders at full resolution, in bands
// that stop early when a newer request makes the frame stale. Perturbation frames (deep
// views) get their reference orbit from the scheduler's cache, reused while the view stays
// within its reach. Worker adds the coalescing queue (at most one pending render, newer
// requests replace it and cancel the work in progress that they make stale) and the idle
// refine timer.
package preview

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"math"
	"sort"
	"sync"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/tile"
)

// Renderer is what the scheduler needs from a renderer (GPU or CPU): draw the pixels rect,
// in frame f's global pixel coordinates, into dst whose top-left pixel receives rect.Min.
type Renderer interface {
	tile.Renderer
}

// Scales are the reduction factors per side the scheduler chooses from while interacting.
var Scales = []int{1, 2, 3, 4, 6, 8, 12, 16}

// DefaultTarget is the time an interactive frame aims at: well under the 50 ms p95 goal,
// so that a frame costlier than the estimate still answers in time.
const DefaultTarget = 25 * time.Millisecond

// BandTime is about how long one band of a full frame takes: a newer request waits at most
// about this long for the full frame in progress to give way.
const BandTime = 40 * time.Millisecond

// WheelStep is the zoom factor of one wheel notch in the window (and in the bench's path).
const WheelStep = 1.25

// FrameStats describes one rendered frame.
type FrameStats struct {
	Scale          int           // reduction per side: 1 is full resolution
	Width, Height  int           // the output size (the view's size)
	RenderW        int           // the size actually rendered: about Width/Scale
	RenderH        int           // about Height/Scale
	Render         time.Duration // time spent in the renderer
	Total          time.Duration // render plus scaling up
	Interactive    bool          // rendered as an interactive (reduced) frame
	Canceled       bool          // a full frame abandoned because it went stale
	Precision      fractal.Precision
	PixelsRendered int
	// Reused says the frame started from the last one (resampled) and rendered only part of
	// the view (PixelsRendered pixels, at reductions up to Scale).
	Reused bool
	// Block and BlockP95 are the median and 95th percentile over the frame's pixels of the
	// side, in pixels, of the block each pixel's value stands for: 1 at full resolution, s
	// for a reduced render at 1/s, more for a reused pixel magnified since it was computed.
	Block, BlockP95 float64
	// Recoloured says the frame is the kept data of the view's last picture (the full frame
	// and the samples accumulated, Result.Samples) coloured anew, nothing computed: Total is
	// the colour pass's time.
	Recoloured bool
	// Cached says the frame is a view's picture taken from the worker's cache (cache.go),
	// coloured anew from its data when the colouring changed since: nothing computed.
	Cached bool
	// PixelsReused is the number of pixels of a full frame whose samples were taken, bit for
	// bit, from the data of a view computed before (exact.go); PixelsRendered counts the rest.
	PixelsReused int
}

// ErrNoData is what a renderer's Compute returns when it cannot give the computed data (a
// renderer that only draws pixels): the scheduler then renders as it did before data.
var ErrNoData = errors.New("preview: the renderer gives no per-pixel data")

// computer is s's renderer as a tile.Computer, nil when it is not one.
func (s *Scheduler) computer() tile.Computer {
	c, _ := s.r.(tile.Computer)
	return c
}

// Scheduler renders preview frames through a Renderer and keeps the cost estimate that picks
// the interactive resolution. It renders for one goroutine at a time; Reference may be called
// from any goroutine.
type Scheduler struct {
	r Renderer
	// Target is the time an interactive frame aims at (DefaultTarget when zero).
	Target time.Duration
	// MinScale and MaxScale bound the interactive reduction (defaults 1 and 16).
	MinScale, MaxScale int
	// Bands is the number of horizontal bands a full frame is rendered in, checking for
	// staleness between them; 0 chooses it from the cost estimate so that each band takes
	// about BandTime.
	Bands int

	refs fractal.ReferenceCache // the reference orbits of recent deep views

	lnGrow float64       // the log of the magnification per interactive frame, averaged (reuse.go)
	after  time.Duration // what the last reusing frame took after rendering (its statistics)

	mu          sync.Mutex
	nsPerPx     float64   // estimated cost per pixel of interactive frames (ns), 0 until measured
	fullNsPerPx float64   // the same for full frames
	iter        int       // the iterations of the last interactive frame measured
	fullIter    int       // the same for full frames
	last        *base     // the last frame rendered, which the next interactive one starts from
	spare       []float32 // the blocks of the frame before it, memory for the next
}

// scaled is a cost per pixel measured at measured iterations, for frames of iter: scaled up
// in proportion when iter is higher (a deep view after shallow ones costs far more per
// pixel than they did), never down (much of a cheap frame's cost is not iterations).
func scaled(cost float64, measured, iter int) float64 {
	if measured > 0 && iter > measured {
		return cost * float64(iter) / float64(measured)
	}
	return cost
}

// Reference returns f with its reference orbit when f is a Perturbation frame (others are
// returned as they are): a cached orbit within reach of f, else one computed now, reporting
// its progress to progress (may be nil). Cancelling ctx stops the computation with ctx's
// error. A new orbit is computed for the iterations rounded up to a power of two, so that
// the automatic iterations, which rise a little with every zoom step, keep finding it.
func (s *Scheduler) Reference(ctx context.Context, f fractal.Frame, progress func(done, total int)) (fractal.Frame, error) {
	if f.Precision() != fractal.Perturbation {
		return f, nil
	}
	g := f
	g.Loc.Iterations = roundIterations(f.Loc.Iterations)
	g, err := g.WithReference(ctx, &s.refs, progress)
	if err != nil {
		return f, err
	}
	f.Ref, f.DRe, f.DIm = g.Ref, g.DRe, g.DIm
	return f, nil
}

// roundIterations is n rounded up to a power of two, at most fractal.MaxIterations.
func roundIterations(n int) int {
	p := 1
	for p < n {
		p *= 2
	}
	return min(p, fractal.MaxIterations)
}

// New returns a scheduler for r.
func New(r Renderer) *Scheduler { return &Scheduler{r: r} }

// Reset forgets the cost estimate (after the renderer changed).
func (s *Scheduler) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nsPerPx = 0
	s.fullNsPerPx = 0
	s.iter, s.fullIter = 0, 0
	s.last, s.spare = nil, nil
}

// CostPerPixel returns the current estimate of the render cost per pixel (0 before any frame).
func (s *Scheduler) CostPerPixel() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Duration(s.nsPerPx)
}

// ChooseScale returns the reduction per side an interactive frame of w x h would use now.
func (s *Scheduler) ChooseScale(w, h int) int { return s.ChooseScaleFor(0, w, h) }

// ChooseScaleFor is ChooseScale for a frame of iter iterations (0: as measured), the cost
// estimate scaled up when iter is above the iterations it was measured at.
func (s *Scheduler) ChooseScaleFor(iter, w, h int) int {
	s.mu.Lock()
	cost := scaled(s.nsPerPx, s.iter, iter)
	if cost == 0 {
		// No interactive frame yet: a full frame's cost, with room for the per-frame
		// overhead that weighs more on small frames.
		cost = 2 * scaled(s.fullNsPerPx, s.fullIter, iter)
	}
	s.mu.Unlock()
	lo, hi := s.scaleBounds()
	target := s.Target
	if target <= 0 {
		target = DefaultTarget
	}
	if cost == 0 {
		return max(lo, min(3, hi)) // nothing measured yet: a safe middle
	}
	best := hi
	for _, sc := range Scales {
		if sc < lo || sc > hi {
			continue
		}
		px := float64(ceilDiv(w, sc) * ceilDiv(h, sc))
		if time.Duration(px*cost) <= target {
			best = sc
			break
		}
	}
	return best
}

// observe folds a measured frame into the cost estimate. It reacts fast to slower frames
// (they are what the p95 sees) and slowly to faster ones.
func (s *Scheduler) observe(d time.Duration, px, iter int) {
	if px <= 0 {
		return
	}
	c := float64(d.Nanoseconds()) / float64(px)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.iter = iter
	switch {
	case s.nsPerPx == 0:
		s.nsPerPx = c
	case c > s.nsPerPx:
		s.nsPerPx = 0.3*s.nsPerPx + 0.7*c
	default:
		s.nsPerPx = 0.7*s.nsPerPx + 0.3*c
	}
}

// ReducedFrame returns the frame an interactive render of loc at w x h uses at reduction
// sc: ceil(w/sc) x ceil(h/sc) pixels whose centres fall on the centres of the sc x sc blocks
// of the full image, so that the scaled-up picture lines up with the full one. Its float64
// centre and spacing (what float32 and double renderers compute with) are derived from the
// full frame's in float64; its Loc has the matching decimal centre, moved exactly (to a
// thousandth of a pixel at any depth), and zoom, which is what a Perturbation frame's pixel
// deltas come from.
func ReducedFrame(loc fractal.Location, w, h, sc int) fractal.Frame {
	full := fractal.NewFrame(loc, w, h)
	if sc <= 1 {
		return full
	}
	rw, rh := ceilDiv(w, sc), ceilDiv(h, sc)
	// Reduced pixel i has its centre at full pixel i*sc + sc/2; the reduced frame's centre
	// therefore sits (rw*sc - w)/2 full pixels right of (and (rh*sc - h)/2 below) the view's.
	dx, dy := float64(rw*sc-w)/2, float64(rh*sc-h)/2
	l := loc
	if dx != 0 || dy != 0 {
		l = loc.Offset(dx, dy, w, h)
	}
	// The zoom with an unbounded exponent (the same roundings as float64 in its range): past
	// 1e308 full.Spacing is 0.
	sp := full.SpacingX.MulFloat(float64(sc))
	l.Zoom = fractal.DecimalFromExp(fractal.NewExp(4).Quo(sp.MulFloat(float64(min(rw, rh)))))
	f := fractal.NewFrame(l, rw, rh)
	pr, pi := loc.PlaneOffset(dx, -dy)
	f.Re = full.Re + pr*full.Spacing
	f.Im = full.Im + pi*full.Spacing
	f.Spacing = full.Spacing * float64(sc)
	f.SpacingX = sp
	return f
}

// Interactive renders an interactive frame of loc at w x h within the target time. When the
// last frame rendered (interactive or full) has the same size and colouring, it starts from
// that one, resampled, and renders only what is new or has grown too coarse (reuse.go);
// otherwise it renders the whole view at the reduced resolution the cost estimate allows and
// scales it up to w x h. Cancelling ctx abandons it: a nil image, Canceled stats and no error.
func (s *Scheduler) Interactive(ctx context.Context, loc fractal.Location, w, h int) (*image.RGBA, FrameStats, error) {
	if w >= 1 && h >= 1 {
		if b := s.reusable(loc, w, h); b != nil {
			return s.incremental(ctx, loc, w, h, b)
		}
	}
	return s.InteractiveAt(ctx, loc, w, h, s.ChooseScaleFor(loc.Iterations, w, h))
}

// InteractiveAt is Interactive at a given reduction per side.
func (s *Scheduler) InteractiveAt(ctx context.Context, loc fractal.Location, w, h, sc int) (*image.RGBA, FrameStats, error) {
	if w < 1 || h < 1 {
		return nil, FrameStats{}, fmt.Errorf("preview: view size %dx%d is empty", w, h)
	}
	sc = max(sc, 1)
	start := time.Now()
	// The full frame's reference first (the reduced frame needs fewer bits, so it finds the
	// same orbit in the cache, and the full frame that follows reuses it).
	if _, err := s.Reference(ctx, fractal.NewFrame(loc, w, h), nil); err != nil {
		return canceled(ctx, start, err)
	}
	f, err := s.Reference(ctx, ReducedFrame(loc, w, h, sc), nil)
	if err != nil {
		return canceled(ctx, start, err)
	}
	small := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
	if err := s.r.Render(ctx, f, small.Rect, small); err != nil {
		return canceled(ctx, start, err)
	}
	rd := time.Since(start)
	s.observe(rd, f.W*f.H, loc.Iterations)
	out := small
	if sc > 1 {
		out = image.NewRGBA(image.Rect(0, 0, w, h))
		ScaleUp(out, small, sc)
	}
	s.setBase(out, loc, float32(sc), nil)
	return out, FrameStats{
		Scale: sc, Width: w, Height: h, RenderW: f.W, RenderH: f.H,
		Render: rd, Total: time.Since(start), Interactive: true,
		Precision: f.Precision(), PixelsRendered: f.W * f.H,
		Block: float64(sc), BlockP95: float64(sc),
	}, nil
}

// canceled is the result of a frame whose rendering failed with err: Canceled stats and no
// error when ctx was cancelled (err is then ctx's), else err.
func canceled(ctx context.Context, start time.Time, err error) (*image.RGBA, FrameStats, error) {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		d := time.Since(start)
		return nil, FrameStats{Canceled: true, Render: d, Total: d}, nil
	}
	return nil, FrameStats{}, err
}

// Full renders loc at w x h at full resolution, in bands; between bands it calls stale (when
// not nil) and gives up, returning a nil image and Canceled stats, if it reports true, as it
// does when ctx is cancelled (at once: the renderer stops too).
func (s *Scheduler) Full(ctx context.Context, loc fractal.Location, w, h int, stale func() bool) (*image.RGBA, FrameStats, error) {
	return s.FullWith(ctx, loc, w, h, FullOptions{Stale: stale})
}

// ProgressInterval is the least time between two progress calls of a full frame.
const ProgressInterval = 200 * time.Millisecond

// FullOptions are the optional parts of a full-resolution render.
type FullOptions struct {
	// Stale is polled between bands; true abandons the frame.
	Stale func() bool
	// Base (w x h) is what the rows not yet rendered show in progress reports: the last
	// interactive frame of the same view. Nil means black.
	Base *image.RGBA
	// Progress, when set, receives a copy of the frame so far (rendered bands over Base) and
	// the fraction done, at most every ProgressInterval while the frame takes longer.
	Progress func(partial *image.RGBA, done float64)
	// Every is the least time between progress calls: 0 means ProgressInterval, a negative
	// value every band.
	Every time.Duration
}

// FullWith is Full with progress reports over a base picture.
func (s *Scheduler) FullWith(ctx context.Context, loc fractal.Location, w, h int, o FullOptions) (*image.RGBA, FrameStats, error) {
	img, _, st, err := s.FullData(ctx, loc, w, h, o)
	return img, st, err
}

// FullData is FullWith that keeps the frame's data: when the renderer is a tile.Computer it
// computes every band's samples, the derivative included (so that any colouring of them
// needs no recompute), and colours them with loc's colouring (colour.Colourer), the picture
// the renderer's Render draws; the data is returned with the picture. A renderer that is no
// tile.Computer, or whose Compute returns ErrNoData, renders as FullWith does, and the data
// is nil.
func (s *Scheduler) FullData(ctx context.Context, loc fractal.Location, w, h int, o FullOptions) (*image.RGBA, *colour.Data, FrameStats, error) {
	img, c, st, err := s.fullData(ctx, loc, w, h, o, nil)
	return img, c.data, st, err
}

// fullData is FullData taking, when the renderer computes exactly, every sample it can from
// the data computed before (from: exact.go); the data comes back with its frame.
func (s *Scheduler) fullData(ctx context.Context, loc fractal.Location, w, h int, o FullOptions, from []computed) (*image.RGBA, computed, FrameStats, error) {
	if w < 1 || h < 1 {
		return nil, computed{}, FrameStats{}, fmt.Errorf("preview: view size %dx%d is empty", w, h)
	}
	start := time.Now()
	f, err := s.Reference(ctx, fractal.NewFrame(loc, w, h), nil)
	if err != nil {
		img, st, err := canceled(ctx, start, err)
		return img, computed{}, st, err
	}
	bd := s.newBandData(f, from)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	if o.Base != nil && o.Base.Rect.Dx() == w && o.Base.Rect.Dy() == h {
		copy(img.Pix, o.Base.Pix)
	}
	bands := s.Bands
	if bands <= 0 {
		bands = s.autoBands(loc.Iterations, w, h)
	}
	bands = max(1, min(bands, h))
	st := FrameStats{Scale: 1, Width: w, Height: h, RenderW: w, RenderH: h, Precision: f.Precision()}
	lastReport := start
	every := o.Every
	if every == 0 {
		every = ProgressInterval
	}
	for b := range bands {
		if o.Stale != nil && o.Stale() {
			st.Canceled = true
			st.Render = time.Since(start)
			st.Total = st.Render
			return nil, computed{}, st, nil
		}
		y0, y1 := h*b/bands, h*(b+1)/bands
		rect := image.Rect(0, y0, w, y1)
		if err := bd.band(ctx, s.r, rect, img.SubImage(rect).(*image.RGBA)); err != nil {
			img, st, err := canceled(ctx, start, err)
			return img, computed{}, st, err
		}
		st.PixelsRendered, st.PixelsReused = bd.computed, bd.reused
		if o.Progress != nil && b < bands-1 && time.Since(lastReport) >= every {
			lastReport = time.Now()
			cp := image.NewRGBA(img.Rect)
			copy(cp.Pix, img.Pix)
			o.Progress(cp, float64(y1)/float64(h))
		}
	}
	st.Render = time.Since(start)
	st.Total = st.Render
	st.Block, st.BlockP95 = 1, 1
	s.setBase(img, loc, 1, nil)
	if bd.reused == 0 { // a frame that took samples says little about what computing costs
		s.mu.Lock()
		c := float64(st.Render.Nanoseconds()) / float64(w*h)
		if s.fullNsPerPx == 0 {
			s.fullNsPerPx = c
		} else {
			s.fullNsPerPx = 0.5*s.fullNsPerPx + 0.5*c
		}
		s.fullIter = loc.Iterations
		s.mu.Unlock()
	}
	return img, bd.result(s), st, nil
}

// bandData is a frame computed band by band into data and coloured, or rendered when the
// renderer gives no data (data nil).
type bandData struct {
	f     fractal.Frame
	c     tile.Computer
	k     *colour.Colourer
	data  *colour.Data
	exact bool       // the renderer computes f exactly (ExactComputer)
	plan  *reusePlan // the samples taken from data computed before (nil: none)
	// computed and reused count the pixels computed (or rendered) and taken from the plan.
	computed, reused int
}

// newBandData prepares f's bands: computed, with the derivative, when s's renderer is a
// tile.Computer and f's colouring has a colourer, else rendered. When the renderer computes
// f exactly, the bands take what they can from the data of from (exact.go).
func (s *Scheduler) newBandData(f fractal.Frame, from []computed) *bandData {
	bd := &bandData{f: f}
	c := s.computer()
	if c == nil {
		return bd
	}
	k, err := colour.NewColourer(f.Loc.Color)
	if err != nil {
		return bd // Render reports it
	}
	bd.f.Derivative = true
	bd.c, bd.k, bd.data = c, k, colour.NewData(image.Rect(0, 0, f.W, f.H))
	if bd.exact = s.exact(bd.f); bd.exact {
		bd.plan = planReuse(bd.f, from)
	}
	return bd
}

// result is the data computed and its frame, exact when the renderer still says it computes
// the frame exactly.
func (bd *bandData) result(s *Scheduler) computed {
	if bd.data == nil {
		return computed{}
	}
	return computed{f: bd.f, data: bd.data, exact: bd.exact && s.exact(bd.f)}
}

// band computes and colours (or renders) the pixels rect of the frame (whole rows) into dst,
// which receives rect.Min at its top left; the samples the plan has are taken from it. A
// renderer whose Compute says ErrNoData is rendered from then on.
func (bd *bandData) band(ctx context.Context, r Renderer, rect image.Rectangle, dst *image.RGBA) error {
	if bd.data != nil {
		rest, reused := []image.Rectangle{rect}, 0
		if bd.plan != nil {
			rest, reused = bd.plan.fill(bd.data, rect.Min.Y, rect.Max.Y)
		}
		var err error
		n := 0
		for _, t := range rest {
			if err = bd.c.Compute(ctx, bd.f, t, bd.data.SubData(t)); err != nil {
				break
			}
			n += t.Dx() * t.Dy()
		}
		if err == nil {
			bd.computed += n
			bd.reused += reused
			if dst != nil {
				bd.k.Paint(dst, bd.data.SubData(rect))
			}
			return nil
		}
		if !errors.Is(err, ErrNoData) {
			return err
		}
		bd.data = nil
	}
	if dst == nil {
		return ErrNoData
	}
	f := bd.f
	f.Derivative = false
	bd.computed += rect.Dx() * rect.Dy()
	return r.Render(ctx, f, rect, dst)
}

// FullEstimate is the estimated time of a full frame of w x h (0 before any measurement).
func (s *Scheduler) FullEstimate(w, h int) time.Duration { return s.FullEstimateFor(0, w, h) }

// FullEstimateFor is FullEstimate for a frame of iter iterations (0: as measured), scaled up
// when iter is above the iterations the estimate was measured at.
func (s *Scheduler) FullEstimateFor(iter, w, h int) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	cost := scaled(s.fullNsPerPx, s.fullIter, iter)
	if cost == 0 {
		cost = scaled(s.nsPerPx, s.iter, iter)
	}
	return time.Duration(cost * float64(w) * float64(h))
}

// autoBands is the number of bands that makes each take about BandTime by the estimate for
// a frame of iter iterations, with at least 4 rows a band.
func (s *Scheduler) autoBands(iter, w, h int) int {
	est := s.FullEstimateFor(iter, w, h)
	if est == 0 {
		return min(4, h)
	}
	return max(1, min(int(math.Ceil(float64(est)/float64(BandTime))), h/4))
}

// ScaleUp fills dst (w x h) from src by repeating each src pixel over an sc x sc block
// (nearest neighbour); blocks past dst's edge are clipped.
func ScaleUp(dst, src *image.RGBA, sc int) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	sw, sh := src.Rect.Dx(), src.Rect.Dy()
	for sy := 0; sy < sh; sy++ {
		y0 := sy * sc
		if y0 >= h {
			break
		}
		srow := src.Pix[sy*src.Stride : sy*src.Stride+sw*4]
		drow := dst.Pix[y0*dst.Stride : y0*dst.Stride+w*4]
		for sx := 0; sx < sw; sx++ {
			p := binary.LittleEndian.Uint32(srow[sx*4:])
			x1 := min(sx*sc+sc, w)
			for x := sx * sc; x < x1; x++ {
				binary.LittleEndian.PutUint32(drow[x*4:], p)
			}
		}
		for y := y0 + 1; y < min(y0+sc, h); y++ {
			copy(dst.Pix[y*dst.Stride:y*dst.Stride+w*4], drow)
		}
	}
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Percentile returns the p-th percentile (0..100) of ds by nearest rank; 0 for none.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(k, len(s)-1))]
}
