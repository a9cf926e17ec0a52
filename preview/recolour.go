package preview

import (
	"image"
	"slices"
	"time"
	"unsafe"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// Recolouring without rendering (issue 17): the worker keeps the data of the view's picture
// at rest, the full-resolution frame's and every accumulated sample's (colour.Data,
// sampleSize bytes a sample: 17 x 24 bytes a pixel with 4 x 4 samples, 376 MB at 1280x720), and a request
// that changes only the colouring of that view is answered by colouring the data anew, on a
// goroutine of its own, while the accumulation goes on with the new colouring.

// sampleSize is the bytes of one colour.Sample.
const sampleSize = int64(unsafe.Sizeof(colour.Sample{}))

// KeepBudget is the most memory the kept data may take: a view whose full frame and samples
// would take more (above 1920x1080 with 4 x 4 samples) keeps none, and a change of its
// colouring renders it again.
const KeepBudget = 960 << 20

// keepable reports whether the data of a w x h view with n x n samples fits KeepBudget.
func keepable(w, h, n int) bool {
	return int64(w)*int64(h)*sampleSize*int64(1+max(n*n, 0)) <= KeepBudget
}

// keptBytes is the most memory the view at rest of a w x h view with n x n samples takes:
// its picture, and its data when data says so (the full frame's and every sample's, and
// their colours' sum).
func keptBytes(w, h, n int, data bool) int64 {
	px := int64(w) * int64(h)
	if !data {
		return 4 * px
	}
	return px * (4 + sampleSize*int64(1+max(n*n, 0)) + 12)
}

// kept is the view at rest: its picture and, when the renderer gives it and it fits
// KeepBudget, its data, the full frame's and the samples accumulated so far. A view left
// goes into the worker's cache as it is (cache.go).
type kept struct {
	req     Request        // the view, in the colouring the picture shows now
	full    *colour.Data   // the full-resolution frame's samples (nil: the picture alone)
	samples []*colour.Data // the accumulated samples, in SampleOrder
	of      int            // the samples the accumulation will have (0: none)
	sum     []uint32       // the samples' colours in req's colouring, summed (colour.Colourer.Sum)
	pic     *image.RGBA    // the picture last delivered of the view at full resolution (nil: none yet)
	picN    int            // the samples pic is the mean of (0: the full frame)
	// fullAt and sampleAt are the frames full and each sample were computed for, when the
	// renderer computed them exactly (nil when not): a later view reuses them (exact.go).
	fullAt   *fractal.Frame
	sampleAt []*fractal.Frame
}

// Bytes is the memory the kept data and picture take.
func (k *kept) Bytes() int {
	n := 0
	if k.full != nil {
		n += len(k.full.Pix)
	}
	for _, d := range k.samples {
		n += len(d.Pix)
	}
	b := int(sampleSize)*n + 4*len(k.sum)
	if k.pic != nil {
		b += len(k.pic.Pix)
	}
	return b
}

// refs are the reference orbits k's frames hold, each once.
func (k *kept) refs() []*fractal.Reference {
	var out []*fractal.Reference
	add := func(f *fractal.Frame) {
		if f != nil && f.Ref != nil && !slices.Contains(out, f.Ref) {
			out = append(out, f.Ref)
		}
	}
	add(k.fullAt)
	for _, f := range k.sampleAt {
		add(f)
	}
	return out
}

// complete reports whether k's picture is as refined as the view gets: every sample
// accumulated (or none to accumulate).
func (k *kept) complete() bool { return k.picN >= k.of }

// dropData forgets k's data, keeping its picture.
func (k *kept) dropData() {
	k.full, k.samples, k.sum, k.fullAt, k.sampleAt = nil, nil, nil, nil, nil
}

// frameOf is c's frame when c is exactly computed (nil: not).
func frameOf(c computed) *fractal.Frame {
	if !c.exact {
		return nil
	}
	return &c.f
}

// viewKey is what identifies l's pixels' data: l without its colouring (Location.View), and
// whether its data holds the orbit channels (Location.OrbitPath: a colouring that reads them
// makes data that the others' does not answer, so a change to or from angle or stripe at
// radius 2 computes again once; between them, or at another radius, it recolours), and
// whether its inside samples carry their cycles (colour.Coloring.NeedsInterior: a colouring
// of the inside needs data computed with them).
func viewKey(l fractal.Location) string {
	k := l.View()
	if l.OrbitPath() {
		k += " +channels"
	}
	if l.Color.NeedsInterior() {
		k += " +cycles"
	}
	return k
}

// sameView reports whether a and b ask for the same data: the same size and view, the
// colouring aside.
func sameView(a, b Request) bool {
	return a.W == b.W && a.H == b.H && viewKey(a.Loc) == viewKey(b.Loc)
}

// recolourOnly reports whether r changes nothing but the colouring of the view whose data the
// worker keeps, the newest request so far at rest (w.mu held): then the kept data answers it.
//
// A colouring shader (colour.Coloring.Shader), to or from, is drawn by the renderer (the
// OpenGL one runs it over the samples it computes), never recoloured here.
func (w *Worker) recolourOnly(r Request) bool {
	return w.keptReq != nil && w.pending == nil && !w.latest.Interactive &&
		sameView(*w.keptReq, r) && sameView(w.latest, r) &&
		!r.Loc.Color.HasShader() && !w.keptReq.Loc.Color.HasShader()
}

// keep makes request r's full frame, img, the view at rest, with its data (c.data, nil:
// none) when it fits KeepBudget, n x n samples to come; it reports whether the data is kept.
// The view at rest before, if any, goes into the cache (leave).
func (w *Worker) keep(r Request, img *image.RGBA, c computed, n int) bool {
	data := c.data
	w.leave()
	w.rmu.Lock()
	defer w.rmu.Unlock()
	k := &kept{req: r, pic: img}
	if n > 1 {
		k.of = n * n
	}
	var req *Request
	if data != nil && keepable(r.W, r.H, n) {
		k.full, k.fullAt = data, frameOf(c)
		req = &r
	}
	w.kept = k
	w.cache.setReserve(keptBytes(r.W, r.H, n, req != nil))
	w.mu.Lock()
	w.keptReq = req
	w.restReq = &r
	w.mu.Unlock()
	return req != nil
}

// leave puts the view at rest, if any, into the cache (its data, or a picture that is as
// refined as it gets) and makes the worker keep none.
func (w *Worker) leave() {
	w.mu.Lock()
	w.keptReq, w.restReq = nil, nil
	w.mu.Unlock()
	w.rmu.Lock()
	k := w.kept
	w.kept = nil
	w.rmu.Unlock()
	w.cache.setReserve(0)
	if k != nil && k.pic != nil && (k.full != nil || k.complete()) {
		w.cache.put(k)
	}
}

// KeptBytes is the memory the data kept for recolouring takes now (0 when none is kept).
func (w *Worker) KeptBytes() int {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	if w.kept == nil || w.kept.full == nil {
		return 0
	}
	k := *w.kept
	k.pic = nil
	return k.Bytes()
}

// recolourLoop answers the colour-only requests (the newest of them) until the worker closes.
func (w *Worker) recolourLoop() {
	defer close(w.rdone)
	for range w.rwake {
		w.mu.Lock()
		r := w.recolour
		w.recolour = nil
		closed := w.closed
		w.mu.Unlock()
		if r != nil && !closed {
			w.recolourKept(*r)
		}
	}
}

// recolourKept colours the kept data in r's colouring and delivers the picture: the mean of
// the samples accumulated once there are ShowAfter of them, else the full frame (the full
// frame's data is then not coloured: nothing shows it), with
// FrameStats.Recoloured and the samples' count. The samples still to come are summed in r's
// colouring. When the data kept is no longer r's view (a newer request took over), nothing
// is done: that request renders in r's colouring.
func (w *Worker) recolourKept(r Request) {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	k := w.kept
	if k == nil || k.full == nil || !sameView(k.req, r) {
		return
	}
	start := time.Now()
	if err := k.colourIn(r); err != nil {
		w.deliver(Result{Req: r, Err: err})
		return
	}
	k.req = r
	img := k.pic
	w.s.recoloured(img, r.Loc) // what the next drag starts from, as the shown picture
	d := time.Since(start)
	w.deliver(Result{Req: r, Image: img, Samples: len(k.samples), SamplesOf: k.of, Stats: FrameStats{
		Scale: 1, Width: r.W, Height: r.H, RenderW: r.W, RenderH: r.H, Block: 1, BlockP95: 1,
		Total: d, Recoloured: true,
	}})
}

// addSample adds the data of the next sample of r's view (c.data) to the kept data, sums its
// colours and delivers the count, with the mean from the ShowAfter-th sample on; false when
// the kept data is no longer r's view (the accumulation stops).
func (w *Worker) addSample(r Request, c computed) bool {
	d := c.data
	w.rmu.Lock()
	defer w.rmu.Unlock()
	k := w.kept
	if k == nil || k.full == nil || !sameView(k.req, r) {
		return false
	}
	col, err := colour.NewColourer(k.req.Loc.Color)
	if err != nil {
		w.deliver(Result{Req: k.req, Err: err})
		return false
	}
	if k.sum == nil {
		k.sum = make([]uint32, 3*r.W*r.H)
	}
	k.samples = append(k.samples, d)
	k.sampleAt = append(k.sampleAt, frameOf(c))
	col.Sum(k.sum, d)
	res := Result{Req: k.req, Samples: len(k.samples), SamplesOf: k.of}
	if len(k.samples) >= min(ShowAfter, k.of) {
		res.Image = image.NewRGBA(image.Rect(0, 0, r.W, r.H))
		colour.MeanInto(res.Image, k.sum, len(k.samples))
		res.Stats = FrameStats{Scale: 1, Width: r.W, Height: r.H, RenderW: r.W, RenderH: r.H, Block: 1, BlockP95: 1}
		k.pic = res.Image
	}
	k.picN = len(k.samples)
	w.deliver(res)
	return true
}
