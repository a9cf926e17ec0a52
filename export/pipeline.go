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

	"mandelscope/colour"
	"mandelscope/exr"
	"mandelscope/fractal"
	"mandelscope/internal/tile"
)

// exporter runs one export's pipeline.
type exporter struct {
	opt        *Options
	plan       stripPlan
	r          TileRenderer
	comp       tile.Computer // r, when the export computes samples (a raw file)
	png        bool          // the export writes a PNG
	out        *crcSink
	pw         *pngWriter
	sum        *Summary
	part, ckpt string
	rawPart    string               // the raw file's .part ("" without one)
	rawHdr     exr.Header           // its header
	raw        *rawSink             // its writer, once it is open
	colourer   *colour.Colourer     // colours the samples for the PNG
	painter    colour.ShaderPainter // runs the colouring shader, where there is one (checkShader)
	needData   bool                 // the strips are computed as samples, then coloured, without a raw file too
	hash, desc string
	ident      string        // the renderer's identity (see Identifier)
	frame      fractal.Frame // the rendered frame (with its reference orbit for deep views)
	target     string        // the file published: the PNG, or a shard's file
	first, end int           // the strips of this export: all, or a shard's [first, end)
	refDigest  string        // the reference orbit's digest ("" without one)
	start      int
	resumed    bool       // continued from a checkpoint
	lastCk     checkpoint // the last checkpoint on disk (what a resume can continue from)
	t0         time.Time
	done       atomic.Int64 // strips durable (including resumed ones)
	compressNS atomic.Int64
	// autoDensity: the density asked for was automatic (resolved, or taken from the
	// checkpoint, before anything is drawn), which the PNG's trailer records.
	autoDensity bool
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
	k    int
	buf  *image.RGBA  // the PNG's pixels (nil without a PNG)
	data *colour.Data // the samples, for the raw file (nil without one)
	// jobs left; the last one to finish returns buf to the free list
	left atomic.Int32
}

// job is one block of rows of a strip to filter and deflate.
type job struct {
	s      *strip
	r0, r1 int  // output rows within the strip
	png    bool // a block of the PNG (else only the end of a strip without one)
	last   bool
	done   chan struct{}
	out    []byte
	adler  uint32
	raw    int64
	err    error
}

// run writes the export from strip e.start on: the PNG header first when nothing is
// written yet, then the strips, rendered here, compressed by opt.Workers workers and written
// in order (each made durable and checkpointed), then the end of the file.
func (e *exporter) run(ctx context.Context) error {
	e.done.Store(int64(e.start))
	if err := e.begin(); err != nil {
		return err
	}
	if e.start >= e.end {
		return e.finish()
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	q := e.newQueues()
	var wg sync.WaitGroup
	for range e.opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.compress(ctx, q)
		}()
	}
	writeErr := make(chan error, 1)
	go func() { writeErr <- e.write(ctx, cancel, q) }()

	drawn := e.drawTimes()
	renderErr := e.render(ctx, cancel, q)
	close(q.work)
	close(q.order)
	wg.Wait()
	err := <-writeErr
	drawn()
	e.sum.Compress = time.Duration(e.compressNS.Load())
	if err := outcome(renderErr, err, context.Cause(ctx), int(e.done.Load()), e.end); err != nil {
		return err
	}
	return e.finish()
}

// begin writes the PNG header, durably, when nothing is written yet (not on a resume).
func (e *exporter) begin() error {
	if e.resumed {
		return nil
	}
	if e.png && e.opt.Shards > 0 {
		hdr, err := e.shardHeader()
		if err != nil {
			return err
		}
		e.pw = &pngWriter{w: e.out, adler: 1}
		e.pw.write(hdr)
	} else if e.png {
		p := e.plan
		text := MetadataText(e.opt.Location, p.W, p.H, p.N, e.opt.Version)
		pw, err := newPNGWriter(e.out, p.W, p.H, text)
		if err != nil {
			return err
		}
		e.pw = pw
	}
	return e.durable(0)
}

// queues are what the pipeline's stages pass: free strip buffers (two, so at most two strips
// are in flight) to the renderer, compression jobs to the workers, and the same jobs, in
// order, to the writer; for a raw file, free sample buffers (two) too.
type queues struct {
	free        chan *image.RGBA
	freeData    chan *colour.Data
	work, order chan *job
}

func (e *exporter) newQueues() queues {
	p := e.plan
	q := queues{
		free:  make(chan *image.RGBA, 2),
		work:  make(chan *job, 2*e.opt.Workers),
		order: make(chan *job, 4*((p.StripRows+p.BlockRows-1)/p.BlockRows)+8),
	}
	r := image.Rect(0, 0, p.W*p.N, min(p.StripRows*p.N, p.H*p.N))
	if e.raw != nil || e.needData {
		q.freeData = make(chan *colour.Data, 2)
	}
	for range 2 {
		if e.png {
			q.free <- image.NewRGBA(r)
		}
		if e.raw != nil || e.needData {
			q.freeData <- colour.NewData(r)
		}
	}
	return q
}

// compress is a compression worker: it filters and deflates the jobs' rows (or, once ctx is
// done or its compressor failed, marks them failed), gives a strip's buffer back after its
// last job, and closes each job's done.
func (e *exporter) compress(ctx context.Context, q queues) {
	c, err := newBlockCompressor(e.opt.Level)
	for j := range q.work {
		if err == nil && ctx.Err() == nil {
			t := time.Now()
			var out []byte
			out, j.adler, j.raw, j.err = c.compress(j.s.buf, e.plan.N, e.plan.W, j.r0, j.r1)
			j.out = append(outPool.get(len(out)), out...)
			e.compressNS.Add(int64(time.Since(t)))
		} else if err != nil {
			j.err = err
		} else {
			j.err = context.Cause(ctx)
		}
		if j.s.left.Add(-1) == 0 {
			q.free <- j.s.buf
		}
		close(j.done)
	}
}

// write is the writer: it writes the jobs' blocks in order and, after each strip's last one,
// makes the file durable and checkpoints it. After the first error (its own or a job's,
// which cancels the export) it only drains the jobs. It returns that error.
func (e *exporter) write(ctx context.Context, cancel context.CancelCauseFunc, q queues) error {
	var err error
	for j := range q.order {
		<-j.done
		if err != nil {
			continue
		}
		if j.err != nil {
			err = j.err
			cancel(err)
			continue
		}
		if err = e.writeJob(ctx, j, q); err != nil {
			cancel(err)
		}
	}
	return err
}

// writeJob writes one compressed block, and after a strip's last one makes it durable.
func (e *exporter) writeJob(ctx context.Context, j *job, q queues) error {
	t := time.Now()
	var err error
	if j.png {
		err = e.pw.WriteBlock(j.out, j.adler, j.raw)
		outPool.put(j.out)
		j.out = nil
	}
	if err == nil && j.last && e.raw != nil {
		err = e.writeRaw(j.s, q)
	}
	if err == nil && j.last {
		err = e.stripWritten(ctx, j.s.k)
	}
	e.sum.Write += time.Since(t)
	return err
}

// stripWritten makes strip k durable and checkpoints it, reports the progress, and stops the
// export where a test asks it to or where ctx is done.
func (e *exporter) stripWritten(ctx context.Context, k int) error {
	err := e.durable(k + 1)
	if err == nil {
		e.report()
		if e.opt.stopAfter > 0 && k+1-e.start >= e.opt.stopAfter {
			err = fmt.Errorf("%w (test stop)", ErrInterrupted)
		}
	}
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return err
}

// drawTimes starts counting the renderer's draw and read-back times (when it keeps them); the
// function it returns puts in the summary what they have grown by since.
func (e *exporter) drawTimes() func() {
	dt, ok := e.r.(DrawTimer)
	if !ok {
		return func() {}
	}
	draw, read := dt.DrawTimes()
	return func() {
		d, r := dt.DrawTimes()
		e.sum.Draw, e.sum.ReadBack = d-draw, r-read
	}
}

// render renders the strips from e.start on, each into a free buffer, and queues its
// compression jobs. It stops when ctx is done, or at a tile that fails: then it cancels the
// export and returns the error.
func (e *exporter) render(ctx context.Context, cancel context.CancelCauseFunc, q queues) error {
	for k := e.start; k < e.end; k++ {
		tw := time.Now()
		var buf *image.RGBA
		var data *colour.Data
		if e.png {
			select {
			case buf = <-q.free:
			case <-ctx.Done():
				return nil
			}
		}
		if e.raw != nil || e.needData {
			select {
			case data = <-q.freeData:
			case <-ctx.Done():
				if buf != nil {
					q.free <- buf
				}
				return nil
			}
		}
		e.sum.Wait += time.Since(tw)
		var t image.Rectangle
		var err error
		if data != nil {
			t, err = e.computeStrip(ctx, k, data, buf)
		} else {
			t, err = e.renderStrip(ctx, k, buf)
		}
		if err != nil {
			if buf != nil {
				q.free <- buf
			}
			if data != nil {
				q.freeData <- data
			}
			if ctx.Err() != nil {
				return nil // interrupted, perhaps inside the tile: the strip is not written
			}
			err = fmt.Errorf("%s: tile %v: %w", e.r.Name(), t, err)
			cancel(err)
			return err
		}
		if data != nil && e.raw == nil {
			q.freeData <- data // coloured: only a raw file keeps the samples longer
			data = nil
		}
		e.queueStrip(k, buf, data, q)
	}
	return nil
}

// computeStrip computes strip k's tiles' samples into data and, for the PNG, colours them
// into buf (nil without a PNG). It stops as renderStrip does.
func (e *exporter) computeStrip(ctx context.Context, k int, data *colour.Data, buf *image.RGBA) (image.Rectangle, error) {
	p := e.plan
	y0, y1 := p.Strip(k)
	for _, t := range p.Tiles(k) {
		if err := ctx.Err(); err != nil {
			return t, err
		}
		dst := data.SubData(t.Sub(image.Pt(0, y0*p.N)))
		t0 := time.Now()
		if err := e.comp.Compute(ctx, e.frame, t, dst); err != nil {
			return t, err
		}
		d := time.Since(t0)
		e.sum.Render += d
		e.sum.LongestDraw = max(e.sum.LongestDraw, d)
		e.sum.Tiles++
	}
	if buf != nil && e.frame.Loc.Color.HasShader() {
		t0 := time.Now()
		err := e.shadeStrip(ctx, data.SubData(image.Rect(0, 0, p.W*p.N, (y1-y0)*p.N)), y0*p.N, buf)
		e.sum.Render += time.Since(t0)
		return image.Rectangle{}, err
	}
	if buf != nil {
		if e.colourer == nil {
			c, err := colour.NewColourer(e.frame.Loc.Color)
			if err != nil {
				return image.Rectangle{}, err
			}
			e.colourer = c
		}
		t0 := time.Now()
		e.colourer.Paint(buf, data.SubData(image.Rect(0, 0, p.W*p.N, (y1-y0)*p.N)))
		e.sum.Render += time.Since(t0)
	}
	return image.Rectangle{}, nil
}

// writeRaw writes strip s's samples to the raw file (whole chunks; the rest is held for the
// next strip, and written with the last) and gives its sample buffer back.
func (e *exporter) writeRaw(s *strip, q queues) error {
	p := e.plan
	y0, y1 := p.Strip(s.k)
	e.raw.add(s.data.SubData(image.Rect(0, 0, p.W*p.N, (y1-y0)*p.N)))
	q.freeData <- s.data
	s.data = nil
	return e.raw.flush(s.k == p.Strips-1)
}

// renderStrip renders strip k's tiles into buf. It stops at the first tile that fails, or
// before a tile when ctx is done, returning the tile and the error.
func (e *exporter) renderStrip(ctx context.Context, k int, buf *image.RGBA) (image.Rectangle, error) {
	p := e.plan
	y0, _ := p.Strip(k)
	for _, t := range p.Tiles(k) {
		if err := ctx.Err(); err != nil {
			return t, err
		}
		dst := tileDst(buf, t, y0*p.N)
		t0 := time.Now()
		if err := e.r.Render(ctx, e.frame, t, dst); err != nil {
			return t, err
		}
		d := time.Since(t0)
		e.sum.Render += d
		e.sum.LongestDraw = max(e.sum.LongestDraw, d)
		e.sum.Tiles++
	}
	return image.Rectangle{}, nil
}

// tileDst is the part of a strip's render buffer buf, whose first row is the frame's row top,
// that tile t (in the frame's pixels) goes to, with its top-left pixel at 0, 0.
func tileDst(buf *image.RGBA, t image.Rectangle, top int) *image.RGBA {
	off := buf.PixOffset(t.Min.X, t.Min.Y-top)
	return &image.RGBA{Pix: buf.Pix[off:], Stride: buf.Stride, Rect: image.Rect(0, 0, t.Dx(), t.Dy())}
}

// queueStrip hands strip k, rendered into buf, to the workers and the writer: one job per
// block of rows.
func (e *exporter) queueStrip(k int, buf *image.RGBA, data *colour.Data, q queues) {
	s := &strip{k: k, buf: buf, data: data}
	if buf == nil {
		// No PNG: one job that only ends the strip (its samples go to the raw file).
		j := &job{s: s, last: true, done: make(chan struct{})}
		close(j.done)
		q.order <- j
		return
	}
	y0, y1 := e.plan.Strip(k)
	spans := blockSpans(y1-y0, e.plan.BlockRows)
	s.left.Store(int32(len(spans)))
	for i, b := range spans {
		j := &job{s: s, r0: b.r0, r1: b.r1, png: true, last: i == len(spans)-1, done: make(chan struct{})}
		q.order <- j
		q.work <- j
	}
}

// rowSpan is the rows [r0, r1) of a strip.
type rowSpan struct{ r0, r1 int }

// blockSpans cuts a strip of rows output rows into compression blocks of blockRows rows,
// the last one what is left.
func blockSpans(rows, blockRows int) []rowSpan {
	n := (rows + blockRows - 1) / blockRows
	spans := make([]rowSpan, n)
	for i := range spans {
		spans[i] = rowSpan{i * blockRows, min(rows, (i+1)*blockRows)}
	}
	return spans
}

// outcome is what run returns, given the render's error, the writer's, the cause of the
// export's cancellation and how many of its strips are durable: the first error of those,
// else ErrInterrupted when strips are missing, else nil (the file is then finished).
func outcome(renderErr, writeErr, cause error, done, strips int) error {
	switch {
	case renderErr != nil:
		return renderErr
	case writeErr != nil:
		return writeErr
	case cause != nil:
		return cause
	case done < strips:
		return ErrInterrupted
	}
	return nil
}

// durable makes everything written so far durable and records a checkpoint saying the next
// strip is next.
func (e *exporter) durable(next int) error {
	ck := checkpoint{Params: e.hash, Description: e.desc, Renderer: e.ident, Strips: e.plan.Strips, NextStrip: next, RawFile: e.opt.Raw,
		AutoDensity: e.autoDensity}
	if e.pw != nil {
		if err := e.pw.Err(); err != nil {
			return err
		}
		if err := e.out.Sync(); err != nil {
			return err
		}
		ck.Offset, ck.CRC32 = e.pw.Offset(), e.out.crc
		ck.Adler, ck.Uncompressed = e.pw.Adler()
	}
	if e.raw != nil {
		if err := e.raw.f.Sync(); err != nil {
			return err
		}
		ck.RawLines, ck.RawOffset, ck.RawCRC32 = e.raw.w.Lines(), e.raw.w.Offset(), e.raw.f.crc
		if e.raw.f.n != ck.RawOffset {
			return fmt.Errorf("%s: the raw file's writer is at byte %d, its file at %d", e.rawPart, ck.RawOffset, e.raw.f.n)
		}
	}
	if err := writeCheckpoint(e.ckpt, ck); err != nil {
		return err
	}
	e.lastCk = ck
	e.done.Store(int64(next))
	return nil
}

func (e *exporter) report() {
	if e.opt.Progress == nil {
		return
	}
	p := e.plan
	done := int(e.done.Load())
	top, _ := p.Strip(e.first)
	_, bottom := p.Strip(e.end - 1)
	pr := Progress{Strip: done - e.first, Strips: e.end - e.first, Total: int64(p.W) * int64(bottom-top), Elapsed: time.Since(e.t0)}
	_, y1 := p.Strip(done - 1)
	pr.Done = int64(p.W) * int64(y1-top)
	y0, _ := p.Strip(e.start)
	thisRun := int64(p.W) * int64(y1-y0)
	if s := pr.Elapsed.Seconds(); s > 0 && thisRun > 0 {
		pr.Rate = float64(thisRun) / s / 1e6
		pr.ETA = time.Duration(float64(pr.Total-pr.Done) / (pr.Rate * 1e6) * float64(time.Second))
	}
	e.opt.Progress(pr)
}

func (e *exporter) finish() error {
	if e.pw != nil && e.opt.Shards > 0 {
		if err := e.writeShardTrailer(); err != nil {
			return err
		}
		return e.out.Sync()
	}
	if e.pw != nil {
		if err := e.pw.Close(TrailerText(e.autoDensity)...); err != nil {
			return err
		}
		if err := e.out.Sync(); err != nil {
			return err
		}
	}
	if e.raw != nil {
		if err := e.raw.w.Close(); err != nil {
			if e.raw.f.err != nil {
				return fmt.Errorf("%s: %w", e.rawPart, e.raw.f.err)
			}
			return err
		}
		return e.raw.f.Sync()
	}
	return nil
}

// mainPart is the .part named in messages: the PNG's, else the raw file's.
func (e *exporter) mainPart() string {
	if e.png {
		return e.part
	}
	return e.rawPart
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
