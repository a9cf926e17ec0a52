// Package export renders a view to a PNG of any size (32K and beyond) without holding the
// image: the picture is cut into strips of full-width rows, each strip rendered as tiles by a
// TileRenderer (GPU or CPU) while the previous strip is filtered, deflated on every core
// (pigz-style independent blocks joined by Adler-32 combination) and streamed to FILE.png.part.
// After each strip a checkpoint makes the export resumable; the file is renamed to FILE.png
// only when complete. The package knows neither Fyne nor OpenGL.
package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
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
	wrapPart  func(sink) sink      // tests: wraps the real .part file (e.g. to fill the disk)
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

// Identifier is optionally implemented by a TileRenderer to name everything besides the
// frame that decides its pixels for frame f: the renderer, its precision mode and shader
// variant, and nothing that does not change pixels (not a thread count). A checkpoint
// records it, and a resume with a renderer of another identity is refused, so that a file is
// never half one renderer's picture and half another's. Without it, the identity is Name(),
// followed by Mode(f) when the renderer has that method (as the GL renderer has).
type Identifier interface {
	Identity(f fractal.Frame) string
}

// Identity returns r's identity for frame f (see Identifier).
func Identity(r TileRenderer, f fractal.Frame) string {
	if id, ok := r.(Identifier); ok {
		return id.Identity(f)
	}
	s := r.Name()
	if m, ok := r.(interface{ Mode(fractal.Frame) string }); ok {
		s += ", " + m.Mode(f)
	}
	return s
}

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
	if err := CheckSize(o.Width, o.Height); err != nil {
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

// header is what the .part starts with: signature, IHDR, text chunks and the zlib header.
func (o *Options) header(p Plan) ([]byte, error) {
	var buf bytes.Buffer
	_, err := NewPNGWriter(&buf, p.W, p.H, MetadataText(o.Location, p.W, p.H, p.N, o.Version))
	return buf.Bytes(), err
}

// Export renders opt's view with r to the PNG file path, through path.part, and returns a
// summary.
//
// One export per path runs at a time: it holds path's lock file (LockPath) from before it
// touches the .part until it is done; another export of the same path gets ErrBusy. It
// refuses an existing path unless opt.Overwrite (ErrExists), and an existing .part unless
// opt.Resume (continue it) or opt.Overwrite (start over) (ErrUnfinished). A resume verifies
// the checkpoint and the .part (parameters, renderer identity, every checkpoint field, the
// .part's checksums and structure) and refuses any mismatch, leaving both files as they were
// (errors matching ErrCannotResume). The finished file is renamed into place (never
// replacing a file that appeared meanwhile unless opt.Overwrite), so the published image
// never shares its data with a file a later export writes.
//
// Cancelling ctx stops it within about one tile's render call, keeping the .part and
// checkpoint; the error then is an *Error of kind ErrInterrupted. A full disk gives
// ErrNoSpace: a fresh export removes its .part (freeing the space), a resumed one keeps the
// .part and checkpoint it had. Render calls are made on the calling goroutine.
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
	if err := CheckFolder(filepath.Dir(path)); err != nil {
		return sum, err
	}

	var lock *targetLock
	if opt.openPart == nil {
		if lock, err = lockTarget(path); err != nil {
			return sum, err
		}
		defer lock.release()
	}
	if opt.openPart == nil {
		if err := checkFiles(path, opt.Resume, opt.Overwrite); err != nil {
			return sum, err
		}
	}

	// The frame, with its reference orbit at its own centre for deep views: computed here,
	// once for every tile, in a cache of its own so that the pixels never depend on which
	// reference an earlier frame (the window's preview) left in a shared cache.
	// Its colouring is Sampled: the distance colouring's lines keep their width in the
	// image's pixels at every supersampling.
	floc := opt.Location
	floc.Color = floc.Color.Sampled(plan.N)
	frame, err := fractal.NewFrame(floc, plan.W*plan.N, plan.H*plan.N).WithReference(ctx, &fractal.ReferenceCache{}, nil)
	if err != nil {
		if ctx.Err() != nil {
			return sum, &Error{Kind: ErrInterrupted, Path: part, Kept: opt.Resume, Strips: plan.Strips, Err: err,
				Msg: "interrupted while computing the reference orbit, before anything was written"}
		}
		return sum, err
	}

	// Open the .part: fresh, or resumed from the checkpoint.
	e := &exporter{opt: &opt, plan: plan, r: r, sum: &sum, part: part, ckpt: ckptPath,
		hash: hash, desc: desc, ident: Identity(r, frame), frame: frame}
	switch {
	case opt.openPart != nil:
		out, err := opt.openPart()
		if err != nil {
			return sum, err
		}
		e.out = &crcSink{sink: out}
	case opt.Resume:
		if err := e.openResume(); err != nil {
			return sum, err
		}
		sum.Resumed = e.start
	default:
		if err := e.openFresh(); err != nil {
			return sum, err
		}
	}
	e.t0 = time.Now()
	err = e.run(ctx)
	closeErr := e.out.Close()
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
		sum.Rate = float64(int64(opt.Width)*int64(opt.Height)) * float64(plan.Strips-e.start) / float64(plan.Strips) / s / 1e6
	}
	return sum, nil
}

// CheckFolder checks that dir, the folder of an output file, exists and is a folder; the
// error (of kind ErrNotFolder) names the first part of the path that is not a folder, as in
// "/etc/passwd is a file, not a folder".
func CheckFolder(dir string) error {
	st, err := os.Stat(dir)
	if err == nil {
		if st.IsDir() {
			return nil
		}
		return newError(ErrNotFolder, dir, "%s is a file, not a folder", dir)
	}
	// Find the longest existing prefix: a file there, or the first missing folder.
	for d := dir; ; {
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		if st, perr := os.Stat(parent); perr == nil {
			if !st.IsDir() {
				return newError(ErrNotFolder, dir, "%s is a file, not a folder", parent)
			}
			if errors.Is(err, os.ErrNotExist) {
				return newError(ErrNotFolder, dir, "folder %s does not exist", dir)
			}
			break
		}
		d = parent
	}
	if errors.Is(err, os.ErrNotExist) {
		return newError(ErrNotFolder, dir, "folder %s does not exist", dir)
	}
	return &Error{Kind: ErrNotFolder, Path: dir, Msg: fmt.Sprintf("folder %s: %v", dir, err), Err: err}
}

// Precheck says, without changing anything, whether an export to path with these resume and
// overwrite settings would be refused for the state of its files, with the error Export would
// return: a missing folder, another export running (ErrBusy), an existing file, a .part left
// (or none to resume). A front end calls it to refuse early; Export checks again under its
// lock.
func Precheck(path string, resume, overwrite bool) error {
	if err := CheckFolder(filepath.Dir(path)); err != nil {
		return err
	}
	if Busy(path) {
		return newError(ErrBusy, path, "another export of %s is running (it holds %s)", path, LockPath(path))
	}
	return checkFiles(path, resume, overwrite)
}

// checkFiles refuses an existing output without overwrite, a .part or checkpoint left from
// an earlier export without resume or overwrite, and a resume without a checkpoint.
func checkFiles(path string, resume, overwrite bool) error {
	if st, err := os.Lstat(path); err == nil {
		if st.IsDir() {
			return newError(ErrNotFolder, path, "%s is a folder", path)
		}
		if !overwrite {
			return newError(ErrExists, path, "%s already exists", path)
		}
	}
	part, ckpt := PartPath(path), CheckpointPath(path)
	_, partErr := os.Lstat(part)
	_, ckErr := os.Lstat(ckpt)
	hasPart, hasCkpt := partErr == nil, ckErr == nil
	switch {
	case resume && !hasCkpt && hasPart:
		return &Error{Kind: ErrNothingToResume, Path: part, Kept: true,
			Msg: fmt.Sprintf("nothing to resume: %s has no checkpoint (it saved no progress)", part)}
	case resume && !hasCkpt:
		return &Error{Kind: ErrNothingToResume, Path: ckpt,
			Msg: fmt.Sprintf("nothing to resume: no interrupted export of %s (no %s)", path, ckpt)}
	case !resume && !overwrite && (hasPart || hasCkpt):
		return &Error{Kind: ErrUnfinished, Path: part, Kept: hasPart && hasCkpt, Msg: unfinishedText(part, hasPart, hasCkpt)}
	}
	return nil
}

// openFresh starts a new .part. An old .part is removed first, never truncated or written
// through: it may share its data with another file (a hard link, or a link-then-remove
// publish of an older version interrupted halfway), which must not change.
func (e *exporter) openFresh() error {
	os.Remove(e.ckpt)
	if err := os.Remove(e.part); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(e.part, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	e.out = &crcSink{sink: e.wrap(f)}
	return nil
}

func (e *exporter) wrap(f sink) sink {
	if e.opt.wrapPart != nil {
		return e.opt.wrapPart(f)
	}
	return f
}

func unfinishedText(part string, hasPart, hasCkpt bool) string {
	switch {
	case hasPart && hasCkpt:
		return part + " is left from an interrupted export"
	case hasPart:
		return part + " is left from an export that saved no checkpoint (nothing in it can be resumed)"
	default:
		return "a checkpoint without its " + part + " is left from an interrupted export"
	}
}

// openResume verifies the checkpoint and the .part it describes and opens the .part
// positioned after the last durable strip. Every refusal leaves both files as they were.
func (e *exporter) openResume() error {
	ck, err := readCheckpoint(e.ckpt)
	if err != nil {
		var ee *Error
		if errors.As(err, &ee) {
			return err
		}
		return resumeError(ErrDamaged, e.ckpt, "%v", err)
	}
	p := e.plan
	switch {
	case ck.Params != e.hash:
		return resumeError(ErrParamsDiffer, e.ckpt, "%s was made for different parameters (%s)", e.ckpt, ck.Description)
	case ck.Renderer != e.ident:
		x := resumeError(ErrRendererDiffers, e.ckpt, "%s was drawn by %s, and this export would draw with %s: the file would mix two renderers' pixels", e.part, ck.Renderer, e.ident)
		x.Was, x.Now = ck.Renderer, e.ident
		return x
	case ck.Strips != p.Strips || ck.NextStrip < 0 || ck.NextStrip > p.Strips:
		return resumeError(ErrDamaged, e.ckpt, "%s says strip %d of %d is next, but this export has %d strips", e.ckpt, ck.NextStrip, ck.Strips, p.Strips)
	}
	rows := min(p.H, ck.NextStrip*p.StripRows)
	rowLen := int64(3*p.W + 1)
	if ck.Uncompressed != int64(rows)*rowLen {
		return resumeError(ErrDamaged, e.ckpt, "%s says %d bytes of rows are written, but %d strips hold %d", e.ckpt, ck.Uncompressed, ck.NextStrip, int64(rows)*rowLen)
	}
	st, err := os.Lstat(e.part)
	if err != nil {
		return resumeError(ErrDamaged, e.part, "%s is missing (%v)", e.part, err)
	}
	if !st.Mode().IsRegular() {
		return resumeError(ErrDamaged, e.part, "%s is not a plain file", e.part)
	}
	if linkCount(st) > 1 {
		return resumeError(ErrDamaged, e.part, "%s shares its data with another file (a hard link): resuming would change that file too", e.part)
	}
	if st.Size() < ck.Offset {
		return resumeError(ErrDamaged, e.part, "%s is shorter (%d bytes) than its checkpoint says (%d)", e.part, st.Size(), ck.Offset)
	}
	header, err := e.opt.header(p)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(e.part, os.O_RDWR, 0)
	if err != nil {
		return resumeError(ErrDamaged, e.part, "%v", err)
	}
	if err := verifyPart(f, ck, header, rows, rowLen); err != nil {
		f.Close()
		return resumeError(ErrDamaged, e.part, "%s does not match its checkpoint: %v", e.part, err)
	}
	// Bytes past the checkpoint are a strip that was being written when the export stopped.
	err = f.Truncate(ck.Offset)
	if err == nil {
		_, err = f.Seek(ck.Offset, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("cannot resume: %v", err)
	}
	e.out = &crcSink{sink: e.wrap(f), crc: ck.CRC32}
	e.pw = ResumePNGWriter(e.out, ck.Offset, ck.Adler, ck.Uncompressed)
	e.start = ck.NextStrip
	e.resumed = true
	e.lastCk = ck
	return nil
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

// fail turns an error into what the caller is told, and tidies up: a full disk removes a
// fresh export's .part (freeing the space) but keeps a resumed one's, cut back to its last
// checkpoint; an interrupt or another error keeps the .part with its checkpoint.
func (e *exporter) fail(err error) error {
	real := e.opt.openPart == nil
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, ErrNoSpace) {
		dir := filepath.Dir(e.part)
		x := &Error{Kind: ErrNoSpace, Path: e.part, Done: e.lastCk.NextStrip, Strips: e.plan.Strips, Err: err}
		need := humanBytes(EstimateSize(e.opt.Width, e.opt.Height))
		if e.resumed && real {
			// Keep what the resume continued from, and what it added: the checkpoint on disk
			// describes the .part's first lastCk.Offset bytes; the rest is dropped.
			os.Truncate(e.part, e.lastCk.Offset)
			x.Kept = true
			x.Msg = fmt.Sprintf("no space left on %s: the export may need up to about %s; kept %s and its checkpoint (%d of %d strips done)",
				dir, need, filepath.Base(e.part), e.lastCk.NextStrip, e.plan.Strips)
			return x
		}
		if real {
			os.Remove(e.part)
			os.Remove(e.ckpt)
		}
		x.Msg = fmt.Sprintf("no space left on %s: the export may need up to about %s; the partial file %s was removed", dir, need, filepath.Base(e.part))
		return x
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrInterrupted) {
		x := &Error{Kind: ErrInterrupted, Path: e.part, Done: int(e.done.Load()), Strips: e.plan.Strips}
		if _, statErr := os.Stat(e.ckpt); statErr == nil || !real {
			x.Kept = true
			x.Msg = fmt.Sprintf("interrupted after %d of %d strips: kept %s and its checkpoint", x.Done, x.Strips, e.part)
			return x
		}
		os.Remove(e.part)
		x.Msg = "interrupted before anything was written"
		return x
	}
	if _, statErr := os.Stat(e.ckpt); statErr == nil && real {
		return &Error{Kind: ErrInterrupted, Path: e.part, Done: int(e.done.Load()), Strips: e.plan.Strips, Kept: true, Err: err,
			Msg: fmt.Sprintf("%v (kept %s and its checkpoint)", err, filepath.Base(e.part))}
	}
	if real {
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

// publish renames the finished .part to path: one atomic rename, after which the image and
// any later .part are different files. Without overwrite it never replaces a file that
// appeared meanwhile: renameat2(RENAME_NOREPLACE) where the system has it, else a check
// under the target's lock (which keeps other exports out; only another program could
// create path between the check and the rename there).
func publish(part, path string, overwrite bool) error {
	if overwrite {
		return os.Rename(part, path)
	}
	appeared := func() error {
		return newError(ErrAppeared, path, "%s appeared during the export; the finished image is kept as %s", path, part)
	}
	ok, err := renameNoReplace(part, path)
	if ok {
		if errors.Is(err, os.ErrExist) {
			return appeared()
		}
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return appeared()
	}
	return os.Rename(part, path)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

func isKind(err, kind error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind
}

// exporter runs one export's pipeline.
type exporter struct {
	opt        *Options
	plan       Plan
	r          TileRenderer
	out        *crcSink
	pw         *PNGWriter
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
