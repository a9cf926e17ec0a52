// Package export renders a view to a PNG of any size (32K and beyond) without holding the
// image: the picture is cut into strips of full-width rows, each strip rendered as tiles by a
// TileRenderer (GPU or CPU) while the previous strip is filtered, deflated on every core
// (pigz-style independent blocks joined by Adler-32 combination) and streamed to FILE.png.part.
// After each strip a checkpoint makes the export resumable; the file is renamed to FILE.png
// only when complete. The package knows neither Fyne nor OpenGL.
package export

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"mandelscope/fractal"
)

// TileRenderer draws tiles of a frame: rect in the frame's global pixel coordinates, dst's
// top-left pixel receiving rect.Min. Both the GL and the CPU renderers satisfy it.
type TileRenderer interface {
	Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error
	MaxTile() int
	Name() string
}

// DrawTimer is optionally implemented by a TileRenderer that can tell how much of its time
// went to drawing and how much to reading pixels back (cumulative, since it was made).
type DrawTimer interface {
	DrawTimes() (draw, readBack time.Duration)
}

// Options says what to export and how.
type Options struct {
	Location      fractal.Location
	Width, Height int // output size
	Supersample   int // N x N samples per pixel, 1..MaxSupersample (0 means 1)
	Tile          int // tile edge cap; 0 means the renderer's MaxTile
	StripBytes    int // render buffer per strip; 0 means DefaultStripBytes
	Level         int // deflate level; 0 means DefaultLevel
	Workers       int // compression goroutines; 0 means GOMAXPROCS
	Version       string
	// Resume continues an interrupted export from its checkpoint; Overwrite allows replacing
	// an existing output file and starting over an interrupted one.
	Resume, Overwrite bool
	// Progress, when set, is called after each strip (from another goroutine).
	Progress func(Progress)

	stopAfter int                  // tests: act as if killed after this many strips (0: never)
	openPart  func() (sink, error) // tests: replaces creating the .part file
}

// sink is where the .part bytes go: a file, or a test double.
type sink interface {
	io.Writer
	Sync() error
	Close() error
}

// Progress is reported after each strip.
type Progress struct {
	Done, Total int64 // output pixels
	Strip       int   // strips finished
	Strips      int
	Elapsed     time.Duration
	Rate        float64       // output megapixels per second, this run
	ETA         time.Duration // estimated time left
}

// Fraction is the share done, 0..1.
func (p Progress) Fraction() float64 {
	if p.Total == 0 {
		return 0
	}
	return float64(p.Done) / float64(p.Total)
}

// Summary tells how an export went.
type Summary struct {
	Path          string
	Width, Height int
	Supersample   int
	Renderer      string
	Bytes         int64 // file size
	Elapsed       time.Duration
	Rate          float64 // output megapixels per second
	Resumed       int     // strips skipped because a checkpoint had them
	Strips        int
	Tiles         int
	LongestDraw   time.Duration // the longest single Render call
	Render        time.Duration // time in Render calls (draw and read-back)
	Draw          time.Duration // of which drawing, when the renderer tells (DrawTimer)
	ReadBack      time.Duration // of which read-back, when the renderer tells
	Compress      time.Duration // filter + deflate, summed over workers
	Write         time.Duration // disk writes and fsyncs
	Wait          time.Duration // the renderer waiting for a free strip buffer
}

// PartPath and CheckpointPath name the files an export in progress keeps beside path.
func PartPath(path string) string       { return path + ".part" }
func CheckpointPath(path string) string { return path + ".part.ckpt" }

// ErrInterrupted is wrapped by the error Export returns when ctx is cancelled; the .part and
// its checkpoint are kept for Resume.
var ErrInterrupted = errors.New("interrupted")

// ErrNoSpace is wrapped when the disk is full.
var ErrNoSpace = errors.New("no space left")

// checkpoint is the JSON beside the .part, written atomically after each durable strip.
type checkpoint struct {
	Format       int    `json:"format"`
	Params       string `json:"params"` // hash of everything that determines the bytes
	Description  string `json:"description"`
	NextStrip    int    `json:"next_strip"`
	Offset       int64  `json:"offset"`
	Adler        uint32 `json:"adler32"`
	Uncompressed int64  `json:"uncompressed"`
}

const checkpointFormat = 1

func (o *Options) normalize(r TileRenderer) (Plan, error) {
	if o.Supersample == 0 {
		o.Supersample = 1
	}
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if err := o.Location.Validate(); err != nil {
		return Plan{}, err
	}
	tile := o.Tile
	if tile == 0 {
		tile = r.MaxTile()
	} else if m := r.MaxTile(); m > 0 && tile > m {
		tile = m
	}
	return NewPlan(o.Width, o.Height, o.Supersample, tile, o.StripBytes)
}

// params is the text that determines every byte of the output; its hash is in the checkpoint.
func (o *Options) params(p Plan) (hash, desc string) {
	desc = fmt.Sprintf("%s size=%dx%d supersample=%d strip=%d block=%d level=%d version=%s",
		o.Location, o.Width, o.Height, o.Supersample, p.StripRows, p.BlockRows, o.Level, o.Version)
	h := sha256.Sum256([]byte(desc))
	return hex.EncodeToString(h[:]), desc
}

// Export renders opt's view with r to the PNG file path, through path.part, and returns a
// summary. It refuses an existing path unless opt.Overwrite, and an existing .part unless
// opt.Resume (continue it) or opt.Overwrite (start over). Cancelling ctx stops it within about
// one strip, keeping the .part and checkpoint; the error then wraps ErrInterrupted. Render
// calls are made on the calling goroutine.
func Export(ctx context.Context, r TileRenderer, path string, opt Options) (Summary, error) {
	plan, err := opt.normalize(r)
	if err != nil {
		return Summary{}, err
	}
	sum := Summary{Path: path, Width: opt.Width, Height: opt.Height, Supersample: opt.Supersample,
		Renderer: r.Name(), Strips: plan.Strips}
	part, ckptPath := PartPath(path), CheckpointPath(path)
	hash, desc := opt.params(plan)
	if !strings.EqualFold(filepath.Ext(path), ".png") {
		return sum, fmt.Errorf("output %s must end in .png", path)
	}
	if _, err := os.Lstat(path); err == nil && !opt.Overwrite {
		return sum, fmt.Errorf("%s already exists (use --force to overwrite it)", path)
	}

	// Open the .part: fresh, or resumed from the checkpoint.
	var out sink
	var pw *PNGWriter
	start := 0
	if opt.openPart != nil {
		if out, err = opt.openPart(); err != nil {
			return sum, err
		}
	} else if opt.Resume {
		ck, err := readCheckpoint(ckptPath)
		if err != nil {
			return sum, err
		}
		if ck.Params != hash {
			return sum, fmt.Errorf("cannot resume: %s was made for different parameters (%s); run the same command as before, or drop --resume and add --force to start over", ckptPath, ck.Description)
		}
		f, err := os.OpenFile(part, os.O_RDWR, 0)
		if err != nil {
			return sum, fmt.Errorf("cannot resume: %v", err)
		}
		st, err := f.Stat()
		if err == nil && st.Size() < ck.Offset {
			err = fmt.Errorf("%s is shorter (%d bytes) than its checkpoint says (%d)", part, st.Size(), ck.Offset)
		}
		if err == nil {
			err = f.Truncate(ck.Offset)
		}
		if err == nil {
			_, err = f.Seek(ck.Offset, io.SeekStart)
		}
		if err != nil {
			f.Close()
			return sum, fmt.Errorf("cannot resume: %v", err)
		}
		out = f
		pw = ResumePNGWriter(f, ck.Offset, ck.Adler, ck.Uncompressed)
		start = ck.NextStrip
		sum.Resumed = start
	} else {
		if _, err := os.Lstat(part); err == nil && !opt.Overwrite {
			return sum, fmt.Errorf("%s is left from an interrupted export: add --resume to continue it or --force to start over", part)
		}
		flags := os.O_RDWR | os.O_CREATE | os.O_TRUNC
		if !opt.Overwrite {
			flags |= os.O_EXCL // another export of the same file that started meanwhile
		}
		f, err := os.OpenFile(part, flags, 0o644)
		if errors.Is(err, os.ErrExist) {
			return sum, fmt.Errorf("%s appeared meanwhile: another export of the same file is running", part)
		}
		if err != nil {
			return sum, err
		}
		os.Remove(ckptPath)
		out = f
	}
	e := &exporter{opt: &opt, plan: plan, r: r, out: out, pw: pw, sum: &sum, part: part, ckpt: ckptPath,
		hash: hash, desc: desc, start: start, t0: time.Now()}
	err = e.run(ctx)
	closeErr := out.Close()
	if err == nil {
		err = closeErr
	}
	if err != nil {
		return sum, e.fail(err)
	}
	if opt.openPart != nil {
		return sum, nil
	}
	if err := publish(part, path, opt.Overwrite); err != nil {
		return sum, err
	}
	os.Remove(ckptPath)
	syncDir(filepath.Dir(path))
	if st, err := os.Stat(path); err == nil {
		sum.Bytes = st.Size()
	}
	sum.Elapsed = time.Since(e.t0)
	if s := sum.Elapsed.Seconds(); s > 0 {
		sum.Rate = float64(int64(opt.Width)*int64(opt.Height)) * float64(plan.Strips-start) / float64(plan.Strips) / s / 1e6
	}
	return sum, nil
}

// fail turns an error into what the user is told, and tidies up: a full disk removes the .part
// (freeing the space); an interrupt or other error keeps it with its checkpoint.
func (e *exporter) fail(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, ErrNoSpace) {
		dir := filepath.Dir(e.part)
		if e.opt.openPart == nil {
			os.Remove(e.part)
			os.Remove(e.ckpt)
		}
		return fmt.Errorf("%w on %s: the export may need up to about %s; the partial file %s was removed", ErrNoSpace, dir, humanBytes(EstimateSize(e.opt.Width, e.opt.Height)), filepath.Base(e.part))
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrInterrupted) {
		if _, statErr := os.Stat(e.ckpt); statErr == nil {
			return fmt.Errorf("%w after %d of %d strips: kept %s and its checkpoint; run the same command with --resume to continue", ErrInterrupted, e.done.Load(), e.plan.Strips, e.part)
		}
		os.Remove(e.part)
		return fmt.Errorf("%w before anything was written", ErrInterrupted)
	}
	if _, statErr := os.Stat(e.ckpt); statErr == nil && e.opt.openPart == nil {
		return fmt.Errorf("%v (kept %s for --resume)", err, filepath.Base(e.part))
	}
	if e.opt.openPart == nil {
		os.Remove(e.part)
	}
	return err
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// HumanBytes formats a byte count for people (kB, MB, GB in powers of 1024).
func HumanBytes(n int64) string { return humanBytes(n) }

// publish renames the finished .part to path; without overwrite it never replaces a file that
// appeared meanwhile (a hard link fails when the name exists).
func publish(part, path string, overwrite bool) error {
	if overwrite {
		return os.Rename(part, path)
	}
	if err := os.Link(part, path); err != nil {
		if _, statErr := os.Lstat(path); statErr == nil {
			return fmt.Errorf("%s appeared during the export; the image is kept as %s", path, part)
		}
		// Filesystems without hard links: check, then rename.
		if err := os.Rename(part, path); err != nil {
			return err
		}
		return nil
	}
	return os.Remove(part)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

func readCheckpoint(path string) (checkpoint, error) {
	var ck checkpoint
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return ck, fmt.Errorf("cannot resume: no checkpoint %s (nothing to resume; run without --resume)", path)
	}
	if err != nil {
		return ck, fmt.Errorf("cannot resume: %v", err)
	}
	if err := json.Unmarshal(data, &ck); err != nil || ck.Format != checkpointFormat {
		return ck, fmt.Errorf("cannot resume: %s is not a checkpoint this version understands", path)
	}
	return ck, nil
}

func writeCheckpoint(path string, ck checkpoint) error {
	data, err := json.MarshalIndent(ck, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// exporter runs one export's pipeline.
type exporter struct {
	opt        *Options
	plan       Plan
	r          TileRenderer
	out        sink
	pw         *PNGWriter
	sum        *Summary
	part, ckpt string
	hash, desc string
	start      int
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
		pw, err := NewPNGWriter(e.out, p.W, p.H, text)
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
	frame := fractal.NewFrame(opt.Location, p.W*p.N, p.H*p.N)
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
		ck := checkpoint{Format: checkpointFormat, Params: e.hash, Description: e.desc, NextStrip: next,
			Offset: e.pw.Offset(), Adler: adler, Uncompressed: raw}
		if err := writeCheckpoint(e.ckpt, ck); err != nil {
			return err
		}
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
