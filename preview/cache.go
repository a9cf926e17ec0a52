package preview

import (
	"container/list"
	"context"
	"image"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// The cache of views left (issue 21): when the worker leaves a view at rest, the view goes
// into a cache keyed by the exact view (its location without the colouring, and its size),
// with its picture and, when it was kept, its data (the full frame's and every accumulated
// sample's). A request for a view in the cache is answered from it, nothing rendered: the
// picture as it was when its colouring is the same (byte for byte), else the data coloured
// anew; an accumulation left partway goes on from the samples kept. Only views whose picture
// is as refined as it gets are kept without their data.

// CacheBudget is the memory the pictures and data of the views the worker knows take at most:
// the view at rest's (keptBytes of it, reserved from the start) and the cache's together. At
// 1280x720 with 4 x 4 samples a view's data is 250 MB, so the view at rest and two more
// keep their data; when the budget runs out, the least recently used views lose their data
// first (a complete picture stays: 3.7 MB at 1280x720), then their pictures. 896 MiB and
// MemoryLimit's eighth more keep the window's resident memory under 1.3 GB with the toolkit
// and the OpenGL driver beside them (measured: 150 PageUp steps 2 s apart at 800x450 from
// zoom 1e3 in seahorse valley peaked at 1.37 GB with a budget of 1 GiB).
const CacheBudget = 896 << 20

// MemoryLimit is the Go runtime's memory limit for the window's process (SetMemoryLimit):
// CacheBudget and an eighth more for the rest (the frame in progress, the reference orbits,
// the toolkit). Without it the collector lets the heap grow to twice what is live (GOGC=100)
// before it collects, and a window whose cache was full (1 GiB live) grew past 2 GB resident.
const MemoryLimit = CacheBudget + CacheBudget/8

// SetMemoryLimit sets the process's soft memory limit (runtime/debug.SetMemoryLimit) to
// MemoryLimit, unless the GOMEMLIMIT environment variable sets one already, and reports
// whether it did.
func SetMemoryLimit() bool {
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return false
	}
	debug.SetMemoryLimit(MemoryLimit)
	return true
}

// viewCache is the views left, least recently used last. Safe for concurrent use.
type viewCache struct {
	mu      sync.Mutex
	budget  int64 // CacheBudget unless set
	reserve int64 // what the view at rest may take
	bytes   int64 // what the entries take: their pictures and data, and the reference orbits their frames hold
	order   list.List
	at      map[string]*list.Element // by cacheKey; the elements hold *kept
	// refs are the reference orbits (with their BLA tables) the entries' frames hold, each
	// counted once in bytes however many entries share it, with what it took when it came.
	refs map[*fractal.Reference]*refUse
}

// refUse is how many entries hold a reference orbit, and the bytes it was counted for.
type refUse struct {
	n     int
	bytes int64
}

// account adds (sign 1) or takes away (sign -1) what k holds to or from c.bytes (c.mu
// held): its pictures and data, and the reference orbits no other entry holds.
func (c *viewCache) account(k *kept, sign int64) {
	c.bytes += sign * int64(k.Bytes())
	for _, r := range k.refs() {
		u := c.refs[r]
		switch {
		case sign > 0 && u == nil:
			if c.refs == nil {
				c.refs = map[*fractal.Reference]*refUse{}
			}
			u = &refUse{bytes: r.Bytes()}
			c.refs[r] = u
			c.bytes += u.bytes
			u.n++
		case sign > 0:
			u.n++
		case u != nil:
			if u.n--; u.n == 0 {
				c.bytes -= u.bytes
				delete(c.refs, r)
			}
		}
	}
}

// cacheKey identifies r's view: its size and location without the colouring.
func cacheKey(r Request) string {
	return strconv.Itoa(r.W) + "x" + strconv.Itoa(r.H) + " " + viewKey(r.Loc)
}

// limit is the cache's budget.
func (c *viewCache) limit() int64 {
	if c.budget > 0 {
		return c.budget
	}
	return CacheBudget
}

// setBudget sets the budget (<= 0: CacheBudget) and evicts what no longer fits.
func (c *viewCache) setBudget(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.budget = n
	c.evict()
}

// setReserve sets what the view at rest may take and evicts what no longer fits beside it.
func (c *viewCache) setReserve(n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reserve = n
	c.evict()
}

// put adds k, the view left, as the most recently used (replacing an entry of its view).
func (c *viewCache) put(k *kept) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil {
		c.at = map[string]*list.Element{}
	}
	key := cacheKey(k.req)
	if e, ok := c.at[key]; ok {
		c.remove(e)
	}
	c.at[key] = c.order.PushFront(k)
	c.account(k, 1)
	c.evict()
}

// usable reports whether k answers r: it has data, or its picture is in r's colouring.
func usable(k *kept, r Request) bool {
	return k.pic != nil && (k.full != nil || k.req.Loc.Color == r.Loc.Color)
}

// has reports whether the cache answers r.
func (c *viewCache) has(r Request) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.at[cacheKey(r)]
	return ok && usable(e.Value.(*kept), r)
}

// take removes r's view from the cache and returns it when it answers r (nil when not: an
// entry of the view that does not, a picture in another colouring, is dropped).
func (c *viewCache) take(r Request) *kept {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.at[cacheKey(r)]
	if !ok {
		return nil
	}
	c.remove(e)
	k := e.Value.(*kept)
	if !usable(k, r) {
		return nil
	}
	return k
}

// remove drops entry e (c.mu held).
func (c *viewCache) remove(e *list.Element) {
	k := e.Value.(*kept)
	c.order.Remove(e)
	delete(c.at, cacheKey(k.req))
	c.account(k, -1)
}

// clear empties the cache.
func (c *viewCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.order.Init()
	c.at, c.refs = nil, nil
	c.bytes = 0
}

// evict brings the entries within the budget less the reserve (c.mu held): the least
// recently used first lose their data (a view whose picture is not complete goes whole),
// then, if that is not enough, their pictures.
func (c *viewCache) evict() {
	room := c.limit() - c.reserve
	for e := c.order.Back(); e != nil && c.bytes > room; {
		prev := e.Prev()
		if k := e.Value.(*kept); k.full != nil {
			if k.complete() {
				c.account(k, -1)
				k.dropData()
				c.account(k, 1)
			} else {
				c.remove(e)
			}
		}
		e = prev
	}
	for c.bytes > room && c.order.Len() > 0 {
		c.remove(c.order.Back())
	}
}

// stats is the number of views cached, those with data, and the bytes they take.
func (c *viewCache) stats() (views, withData int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.order.Front(); e != nil; e = e.Next() {
		if e.Value.(*kept).full != nil {
			withData++
		}
	}
	return c.order.Len(), withData, c.bytes
}

// snapTolerance is, in pixels, how close a view must come to a cached one to be taken for it:
// a location's text moves its centre to a thousandth of a pixel (Location.Offset), so views
// that differ by less are the same view written twice (a burst of wheel notches in and out
// again comes back within rounding of where it started).
const snapTolerance = 1e-3

// near reports whether view l at w x h is within snapTolerance of cached view c: the same
// size and set (formula, Julia parameter), a zoom that moves no pixel of the view by more
// than the tolerance, and a centre within it.
func near(l fractal.Location, w, h int, c Request) bool {
	if c.W != w || c.H != h || c.Loc.Formula != l.Formula || c.Loc.Julia != l.Julia {
		return false // another size, or another set: another picture wherever it is
	}
	if c.Loc.Bailout != l.Bailout || c.Loc.StripeDensity != l.StripeDensity || c.Loc.StripeLast != l.StripeLast {
		return false // other orbit parameters (an escape radius): other data wherever it is
	}
	if c.Loc.Rotation != l.Rotation {
		return false // the picture turned
	}
	k := c.Loc.ZoomExp().Quo(l.ZoomExp()).Float64()
	if !(math.Abs(k-1)*float64(max(w, h)) < snapTolerance) {
		return false
	}
	dx, dy := CentreShift(l, c.Loc, fractal.SpacingExp(l.ZoomExp(), w, h))
	return math.Abs(dx) < snapTolerance && math.Abs(dy) < snapTolerance
}

// Snap returns the view, among the view at rest and those in the cache, that view l at
// width x height is the same as but for rounding (within a thousandth of a pixel: see
// snapTolerance), whose iterations iter accepts, in l's colouring: navigating there instead
// of to l shows the view the cache holds, exactly its pixels. ok is false when there is none
// (or l is exactly such a view already, or iter accepts none).
func (w *Worker) Snap(l fractal.Location, width, height int, iter func(int) bool) (fractal.Location, bool) {
	cands := w.cache.views()
	w.mu.Lock()
	if w.restReq != nil {
		cands = append(cands, *w.restReq)
	}
	w.mu.Unlock()
	key := viewKey(l)
	for _, c := range cands {
		if viewKey(c.Loc) == key && c.W == width && c.H == height {
			return l, false // l is such a view
		}
	}
	for _, c := range cands {
		if iter(c.Loc.Iterations) && near(l, width, height, c) {
			s := c.Loc
			s.Color = l.Color
			return s, true
		}
	}
	return l, false
}

// views is the requests of the views cached, most recently used first.
func (c *viewCache) views() []Request {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Request, 0, c.order.Len())
	for e := c.order.Front(); e != nil; e = e.Next() {
		out = append(out, e.Value.(*kept).req)
	}
	return out
}

// Cached reports whether a request of loc at width x height would be answered from the cache
// (or is the view at rest, whose picture the worker has): its picture shows at once.
func (w *Worker) Cached(loc fractal.Location, width, height int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.servable(Request{Loc: loc, W: width, H: height})
}

// servable reports whether r is answered without rendering (w.mu held): a view in the cache,
// or the view at rest (its data, or its complete picture in r's colouring).
func (w *Worker) servable(r Request) bool {
	if w.restReq != nil && sameView(*w.restReq, r) && (w.keptReq != nil || w.restReq.Loc.Color == r.Loc.Color) {
		return true
	}
	return w.cache.has(r)
}

// SetCacheBudget sets the memory the views' pictures and data may take (<= 0: CacheBudget).
func (w *Worker) SetCacheBudget(n int64) { w.cache.setBudget(n) }

// ForgetViews forgets the views left and the view at rest (after the renderer changed: their
// pictures are another renderer's), so that every view renders anew.
func (w *Worker) ForgetViews() {
	w.mu.Lock()
	w.keptReq, w.restReq = nil, nil
	w.mu.Unlock()
	w.rmu.Lock()
	w.kept = nil
	w.rmu.Unlock()
	w.cache.clear()
	w.cache.setReserve(0)
}

// CacheStats is the number of views in the cache, those of them with their data, and the
// bytes they take.
func (w *Worker) CacheStats() (views, withData int, bytes int64) { return w.cache.stats() }

// fromCache answers the full request r from the cache, if it holds r's view: it makes the
// view the one at rest again and delivers its picture (the one it had when the colouring is
// the same, else its data coloured anew) as a full-resolution frame with FrameStats.Cached,
// then goes on accumulating where the view was left, n x n samples in all. It reports whether
// it answered r.
func (w *Worker) fromCache(ctx context.Context, r Request, n int) bool {
	if r.Loc.Color.HasShader() {
		return false // drawn by the renderer (recolourOnly)
	}
	k := w.cache.take(r)
	if k == nil {
		return false
	}
	if k.req.Loc.Color.HasShader() && k.req.Loc.Color != r.Loc.Color {
		return false // its picture is the shader's, and its samples are none of ours to colour
	}
	start := time.Now()
	w.rmu.Lock()
	if k.req.Loc.Color != r.Loc.Color {
		if err := k.colourIn(r); err != nil {
			w.rmu.Unlock()
			w.deliver(Result{Req: r, Err: err})
			return true
		}
	}
	k.req = r
	w.kept = k
	res := Result{Req: r, Image: k.pic, Samples: k.picN, SamplesOf: k.of, Stats: FrameStats{
		Scale: 1, Width: r.W, Height: r.H, RenderW: r.W, RenderH: r.H, Block: 1, BlockP95: 1, Cached: true,
	}}
	data := k.full != nil
	w.rmu.Unlock()
	w.cache.setReserve(keptBytes(r.W, r.H, n, data))
	w.mu.Lock()
	w.restReq = &r
	if data {
		w.keptReq = &r
	}
	w.mu.Unlock()
	w.last, w.lastReq = k.pic, r
	w.s.setBase(k.pic, r.Loc, 1, nil) // what the next drag starts from
	res.Stats.Total = time.Since(start)
	w.deliver(res)
	if data && k.picN < k.of && k.of == n*n {
		w.accumulate(ctx, r, n, true)
	}
	return true
}

// colourIn colours k's data in r's colouring: its picture (the samples' mean once there are
// ShowAfter of them, else the full frame) and the samples' sum.
func (k *kept) colourIn(r Request) error {
	col, err := colour.NewColourer(r.Loc.Color)
	if err != nil {
		return err
	}
	img := image.NewRGBA(image.Rect(0, 0, r.W, r.H))
	col.SumOf(k.sum, k.samples)
	if n := len(k.samples); n > 0 && n >= min(ShowAfter, k.of) {
		colour.MeanInto(img, k.sum, n)
	} else {
		col.Paint(img, k.full)
	}
	k.pic, k.picN = img, len(k.samples)
	return nil
}

// computedOf is the exactly computed data of the views cached, most recently used first: the
// full frames' (sample < 0), or sample number sample (in SampleOrder) of the views that
// accumulate of samples each. A new view's frame takes what it can of it (exact.go).
func (c *viewCache) computedOf(sample, of int) []computed {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []computed
	for e := c.order.Front(); e != nil; e = e.Next() {
		k := e.Value.(*kept)
		switch {
		case k.full == nil:
		case sample < 0 && k.fullAt != nil:
			out = append(out, computed{f: *k.fullAt, data: k.full, exact: true})
		case sample >= 0 && k.of == of && sample < len(k.samples) && sample < len(k.sampleAt) && k.sampleAt[sample] != nil:
			out = append(out, computed{f: *k.sampleAt[sample], data: k.samples[sample], exact: true})
		}
	}
	return out
}
