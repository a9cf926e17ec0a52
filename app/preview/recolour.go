package preview

import (
	"image"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// Recolouring without rendering (issue 17): the worker keeps the data of the view's picture
// at rest, the full-resolution frame's and every accumulated sample's (colour.Data, 16 bytes
// a sample: 17 x 16 bytes a pixel with 4 x 4 samples, 250 MB at 1280x720), and a request
// that changes only the colouring of that view is answered by colouring the data anew, on a
// goroutine of its own, while the accumulation goes on with the new colouring.

// KeepBudget is the most memory the kept data may take: a view whose full frame and samples
// would take more (above 1920x1080 with 4 x 4 samples) keeps none, and a change of its
// colouring renders it again.
const KeepBudget = 640 << 20

// keepable reports whether the data of a w x h view with n x n samples fits KeepBudget.
func keepable(w, h, n int) bool {
	return int64(w)*int64(h)*16*int64(1+max(n*n, 0)) <= KeepBudget
}

// kept is the data of the view at rest: the full frame's and the samples accumulated so far.
type kept struct {
	req     Request        // the view, in the colouring the picture shows now
	full    *colour.Data   // the full-resolution frame's samples
	samples []*colour.Data // the accumulated samples, in SampleOrder
	of      int            // the samples the accumulation will have (0: none)
	sum     []uint32       // the samples' colours in req's colouring, summed (colour.Colourer.Sum)
}

// Bytes is the memory the kept data takes.
func (k *kept) Bytes() int {
	n := len(k.full.Pix)
	for _, d := range k.samples {
		n += len(d.Pix)
	}
	return 16*n + 4*len(k.sum)
}

// viewKey is what identifies l's pixels' data: l without its colouring.
func viewKey(l fractal.Location) string {
	l.Color = colour.Coloring{}
	return l.String()
}

// sameView reports whether a and b ask for the same data: the same size and view, the
// colouring aside.
func sameView(a, b Request) bool {
	return a.W == b.W && a.H == b.H && viewKey(a.Loc) == viewKey(b.Loc)
}

// recolourOnly reports whether r changes nothing but the colouring of the view whose data the
// worker keeps, the newest request so far at rest (w.mu held): then the kept data answers it.
func (w *Worker) recolourOnly(r Request) bool {
	return w.keptReq != nil && w.pending == nil && !w.latest.Interactive &&
		sameView(*w.keptReq, r) && sameView(w.latest, r)
}

// keep stores data (nil: none) as the view at rest of request r, n x n samples to come,
// when it fits KeepBudget; it reports whether it did.
func (w *Worker) keep(r Request, data *colour.Data, n int) bool {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	var req *Request
	w.kept = nil
	if data != nil && keepable(r.W, r.H, n) {
		w.kept = &kept{req: r, full: data}
		if n > 1 {
			w.kept.of = n * n
		}
		req = &r
	}
	w.mu.Lock()
	w.keptReq = req
	w.mu.Unlock()
	return req != nil
}

// KeptBytes is the memory the data kept for recolouring takes now (0 when none is kept).
func (w *Worker) KeptBytes() int {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	if w.kept == nil {
		return 0
	}
	return w.kept.Bytes()
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
	if k == nil || !sameView(k.req, r) {
		return
	}
	start := time.Now()
	col, err := colour.NewColourer(r.Loc.Color)
	if err != nil {
		w.deliver(Result{Req: r, Err: err})
		return
	}
	k.req = r
	img := image.NewRGBA(image.Rect(0, 0, r.W, r.H))
	col.SumOf(k.sum, k.samples)
	if n := len(k.samples); n > 0 && n >= min(ShowAfter, k.of) {
		colour.MeanInto(img, k.sum, n)
	} else {
		col.Paint(img, k.full)
	}
	w.s.recoloured(img, r.Loc) // what the next drag starts from, as the shown picture
	d := time.Since(start)
	w.deliver(Result{Req: r, Image: img, Samples: len(k.samples), SamplesOf: k.of, Stats: FrameStats{
		Scale: 1, Width: r.W, Height: r.H, RenderW: r.W, RenderH: r.H, Block: 1, BlockP95: 1,
		Total: d, Recoloured: true,
	}})
}

// addSample adds the data of the next sample of r's view to the kept data, sums its colours
// and delivers the count, with the mean from the ShowAfter-th sample on; false when the kept
// data is no longer r's view (the accumulation stops).
func (w *Worker) addSample(r Request, d *colour.Data) bool {
	w.rmu.Lock()
	defer w.rmu.Unlock()
	k := w.kept
	if k == nil || !sameView(k.req, r) {
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
	col.Sum(k.sum, d)
	res := Result{Req: k.req, Samples: len(k.samples), SamplesOf: k.of}
	if len(k.samples) >= min(ShowAfter, k.of) {
		res.Image = image.NewRGBA(image.Rect(0, 0, r.W, r.H))
		colour.MeanInto(res.Image, k.sum, len(k.samples))
		res.Stats = FrameStats{Scale: 1, Width: r.W, Height: r.H, RenderW: r.W, RenderH: r.H, Block: 1, BlockP95: 1}
	}
	w.deliver(res)
	return true
}
