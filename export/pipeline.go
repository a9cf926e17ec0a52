package export

// The pipeline of one export: strips rendered on the caller's goroutine, filtered and
// deflated by workers, written in order, made durable and checkpointed after each strip.

import (
	"context"
	"fmt"
	"hash/crc32"
	"image"
	"sync"
	"sync/atomic"
	"time"

	"mandelscope/fractal"
)

// exporter runs one export's pipeline.
type exporter struct {
	opt        *Options
	plan       stripPlan
	r          TileRenderer
	out        *crcSink
	pw         *pngWriter
	sum        *Summary
	part, ckpt string
	hash, desc string
	ident      string        // the renderer's identity (see Identifier)
	frame      fractal.Frame // the rendered frame (with its reference orbit for deep views)
	start      int
	resumed    bool       // continued from a checkpoint
	lastCk     checkpoint // the last checkpoint on disk (what a resume can continue from)
	t0         time.Time
	done       atomic.Int64 // strips durable (including resumed ones)
	compressNS atomic.Int64
}

// bufPool recycles the compressed blocks between the workers and the writer.
type bufPool struct{ p sync.Pool }

var outPool bufPool

func (b *bufPool) get(n int) []byte {
	if v, ok := b.p.Get().(*[]byte); ok && cap(*v) >= n {
		return (*v)[:0]
	}
	return make([]byte, 0, n+n/4)
}

func (b *bufPool) put(buf []byte) {
	if cap(buf) > 0 {
		b.p.Put(&buf)
	}
}

// strip is a rendered strip on its way to the writer.
type strip struct {
	k   int
	buf *image.RGBA
	// jobs left; the last one to finish returns buf to the free list
	left atomic.Int32
}

// job is one block of rows of a strip to filter and deflate.
type job struct {
	s      *strip
	r0, r1 int // output rows within the strip
	last   bool
	done   chan struct{}
	out    []byte
	adler  uint32
	raw    int64
	err    error
}

func (e *exporter) run(ctx context.Context) error {
	p, opt := e.plan, e.opt
	e.done.Store(int64(e.start))
	if e.pw == nil {
		text := MetadataText(opt.Location, p.W, p.H, p.N, opt.Version)
		pw, err := newPNGWriter(e.out, p.W, p.H, text)
		if err != nil {
			return err
		}
		e.pw = pw
		if err := e.durable(0); err != nil {
			return err
		}
	}
	if e.start >= p.Strips {
		return e.finish()
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	frame := e.frame
	stripRenderRows := p.StripRows * p.N
	free := make(chan *image.RGBA, 2) // at most two strips in flight
	for range 2 {
		free <- image.NewRGBA(image.Rect(0, 0, p.W*p.N, min(stripRenderRows, p.H*p.N)))
	}
	work := make(chan *job, 2*opt.Workers)
	order := make(chan *job, 4*((p.StripRows+p.BlockRows-1)/p.BlockRows)+8)

	// Compression workers.
	var wg sync.WaitGroup
	for range opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := newBlockCompressor(opt.Level)
			for j := range work {
				if err == nil && ctx.Err() == nil {
					t := time.Now()
					var out []byte
					out, j.adler, j.raw, j.err = c.compress(j.s.buf, p.N, p.W, j.r0, j.r1)
					j.out = append(outPool.get(len(out)), out...)
					e.compressNS.Add(int64(time.Since(t)))
				} else if err != nil {
					j.err = err
				} else {
					j.err = context.Cause(ctx)
				}
				if j.s.left.Add(-1) == 0 {
					free <- j.s.buf
				}
				close(j.done)
			}
		}()
	}

	// Writer: blocks in order; after each strip, fsync and checkpoint.
	writeErr := make(chan error, 1)
	go func() {
		var err error
		for j := range order {
			<-j.done
			if err != nil {
				continue
			}
			if j.err != nil {
				err = j.err
				cancel(err)
				continue
			}
			t := time.Now()
			err = e.pw.WriteBlock(j.out, j.adler, j.raw)
			outPool.put(j.out)
			j.out = nil
			if err == nil && j.last {
				err = e.durable(j.s.k + 1)
				if err == nil {
					e.report()
					if opt.stopAfter > 0 && j.s.k+1-e.start >= opt.stopAfter {
						err = fmt.Errorf("%w (test stop)", ErrInterrupted)
					}
				}
				if err == nil && ctx.Err() != nil {
					err = context.Cause(ctx)
				}
			}
			e.sum.Write += time.Since(t)
			if err != nil {
				cancel(err)
			}
		}
		writeErr <- err
	}()

	// Render on this goroutine.
	var drawStart, readStart time.Duration
	dt, hasDT := e.r.(DrawTimer)
	if hasDT {
		drawStart, readStart = dt.DrawTimes()
	}
	var renderErr error
render:
	for k := e.start; k < p.Strips; k++ {
		tw := time.Now()
		var buf *image.RGBA
		select {
		case buf = <-free:
		case <-ctx.Done():
			break render
		}
		e.sum.Wait += time.Since(tw)
		y0, _ := p.Strip(k)
		for _, t := range p.Tiles(k) {
			if ctx.Err() != nil {
				free <- buf
				break render
			}
			off := buf.PixOffset(t.Min.X, t.Min.Y-y0*p.N)
			dst := &image.RGBA{Pix: buf.Pix[off:], Stride: buf.Stride, Rect: image.Rect(0, 0, t.Dx(), t.Dy())}
			t0 := time.Now()
			if err := e.r.Render(ctx, frame, t, dst); err != nil {
				free <- buf
				if ctx.Err() != nil {
					break render // interrupted inside the tile: the strip is not written
				}
				renderErr = fmt.Errorf("%s: tile %v: %w", e.r.Name(), t, err)
				cancel(renderErr)
				break render
			}
			d := time.Since(t0)
			e.sum.Render += d
			e.sum.LongestDraw = max(e.sum.LongestDraw, d)
			e.sum.Tiles++
		}
		s := &strip{k: k, buf: buf}
		sy0, sy1 := p.Strip(k)
		nj := (sy1 - sy0 + p.BlockRows - 1) / p.BlockRows
		s.left.Store(int32(nj))
		for i := 0; i < nj; i++ {
			j := &job{s: s, r0: i * p.BlockRows, r1: min(sy1-sy0, (i+1)*p.BlockRows), last: i == nj-1, done: make(chan struct{})}
			order <- j
			work <- j
		}
	}
	close(work)
	close(order)
	wg.Wait()
	err := <-writeErr
	if hasDT {
		d, r := dt.DrawTimes()
		e.sum.Draw, e.sum.ReadBack = d-drawStart, r-readStart
	}
	e.sum.Compress = time.Duration(e.compressNS.Load())
	if renderErr != nil {
		return renderErr
	}
	if err == nil {
		err = context.Cause(ctx)
		if err == nil && int(e.done.Load()) < p.Strips {
			err = ErrInterrupted
		}
	}
	if err != nil {
		return err
	}
	return e.finish()
}

// durable makes everything written so far durable and records a checkpoint saying the next
// strip is next.
func (e *exporter) durable(next int) error {
	if err := e.pw.Err(); err != nil {
		return err
	}
	if err := e.out.Sync(); err != nil {
		return err
	}
	adler, raw := e.pw.Adler()
	if e.opt.openPart == nil {
		ck := checkpoint{Params: e.hash, Description: e.desc, Renderer: e.ident, Strips: e.plan.Strips,
			NextStrip: next, Offset: e.pw.Offset(), CRC32: e.out.crc, Adler: adler, Uncompressed: raw}
		if err := writeCheckpoint(e.ckpt, ck); err != nil {
			return err
		}
		e.lastCk = ck
	}
	e.done.Store(int64(next))
	return nil
}

func (e *exporter) report() {
	if e.opt.Progress == nil {
		return
	}
	p := e.plan
	done := int(e.done.Load())
	pr := Progress{Strip: done, Strips: p.Strips, Total: int64(p.W) * int64(p.H), Elapsed: time.Since(e.t0)}
	_, y1 := p.Strip(done - 1)
	pr.Done = int64(p.W) * int64(y1)
	y0, _ := p.Strip(e.start)
	thisRun := int64(p.W) * int64(y1-y0)
	if s := pr.Elapsed.Seconds(); s > 0 && thisRun > 0 {
		pr.Rate = float64(thisRun) / s / 1e6
		pr.ETA = time.Duration(float64(pr.Total-pr.Done) / (pr.Rate * 1e6) * float64(time.Second))
	}
	e.opt.Progress(pr)
}

func (e *exporter) finish() error {
	if err := e.pw.Close(); err != nil {
		return err
	}
	return e.out.Sync()
}

// crcSink keeps the CRC-32 of everything written through it, for the checkpoint.
type crcSink struct {
	sink
	crc uint32
}

func (c *crcSink) Write(p []byte) (int, error) {
	n, err := c.sink.Write(p)
	c.crc = crc32.Update(c.crc, crc32.IEEETable, p[:n])
	return n, err
}
