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
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/tile"
)

// TileRenderer is what an export needs from a renderer: the rendering contract (tile.Renderer),
// the largest tile edge it draws in one piece (the default tile edge cap) and a name for the
// summary. Both the GL and the CPU renderers satisfy it.
type TileRenderer interface {
	tile.Renderer
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
	// Raw, when set, is the path of an OpenEXR file (FILE.exr) that receives every computed
	// sample (see ChanN and RawKeyLocation): the strips are computed once (the renderer must
	// compute samples: tile.Computer), written there, and coloured for the PNG. Export's
	// path may then be "" (no PNG). The raw file follows the PNG's rules: FILE.exr.part while
	// it is written, published at the end with the PNG, resumed with it.
	Raw string
	// Resume continues an interrupted export from its checkpoint; Overwrite allows replacing
	// an existing output file and starting over an interrupted one.
	Resume, Overwrite bool
	// Shards > 0 makes this export shard Shard (0-based) of Shards: it renders only its share
	// of the strips (shardStrips) into ShardPath(path, Shard, Shards), which Assemble joins
	// with the others into path, byte for byte the file a one-machine export writes. A shard
	// needs no Resume: a checkpoint left by an earlier run of it is continued, and a shard
	// file already complete for these parameters is kept (Summary.AlreadyComplete); Overwrite
	// starts it over. No raw file.
	Shard, Shards int
	// WaitLock makes an export that finds its target's lock held (another run of the same
	// file or shard, ErrBusy) wait for it, calling Waiting (when set) once, and go on as
	// the other run left things: a shard that the other run completed is then kept.
	WaitLock bool
	Waiting  func(lockPath string)
	// Reference, when set, is the view's reference orbit, read from a file
	// (ReadReferenceFile) rather than computed: it must be the one the export would compute
	// (fractal.Reference.CheckFor), which makes the pixels the same bit for bit.
	// ReferenceDigest is its digest, which a shard records.
	Reference       *fractal.Reference
	ReferenceDigest string
	// Progress, when set, is called after each strip (from another goroutine).
	Progress func(Progress)
	// Sampler computes the sample of the view from which an automatic density
	// (colour.Coloring.AutoDensity) is chosen (ResolveDensity); nil means the renderer when it
	// is a tile.Computer, and without one the Density the location holds is drawn. The
	// density drawn is the number recorded in the file's header, so that the header is the
	// one an explicit density of that number writes (a resume and the shards compare it);
	// a PNG records after its image data that it was chosen automatically (TrailerText),
	// so that opening it (ReadMetadata, --from) makes it automatic again, starting from that
	// number. A resume continues with the density its checkpoint records.
	Sampler tile.Computer
	// ShaderPainter runs the location's colouring shader (colour.Coloring.Shader) over the
	// samples; nil means the renderer when it is one (the OpenGL renderer). Without either, an
	// export with a shader is refused (colour.ErrNoShaderPainter) before any work.
	ShaderPainter colour.ShaderPainter
	// DensityChosen says that the Location's explicit density is one chosen automatically
	// (the number the window drew its automatic density at): the PNG records it as automatic
	// (TrailerText), as it does a density the export resolves. It changes no pixel and no
	// parameter a resume compares; a resume records automatic too when its checkpoint's
	// first run did.
	DensityChosen bool

	stopAfter int             // tests: act as if killed after this many strips (0: never)
	wrapPart  func(sink) sink // tests: wraps the .part file as it is opened (e.g. to fill the disk)
	// tests: replaces computing the frame's reference orbit
	reference func(context.Context, fractal.Frame) (fractal.Frame, error)
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
	Path string // the PNG ("" when there is none; a shard's file for a shard)
	// AlreadyComplete: the shard's file was already complete for these parameters, and is
	// kept as it was (nothing was rendered).
	AlreadyComplete bool
	RawPath         string           // the raw file ("" when there is none)
	RawBytes        int64            // its size
	Location        fractal.Location // what was drawn: Options.Location, an automatic density resolved
	Width, Height   int
	Supersample     int
	Renderer        string
	Bytes           int64 // file size
	Elapsed         time.Duration
	Rate            float64 // output megapixels per second
	Resumed         int     // strips skipped because a checkpoint had them
	Strips          int
	Tiles           int
	LongestDraw     time.Duration // the longest single Render call
	Render          time.Duration // time in Render calls (draw and read-back)
	Draw            time.Duration // of which drawing, when the renderer tells (DrawTimer)
	ReadBack        time.Duration // of which read-back, when the renderer tells
	Compress        time.Duration // filter + deflate, summed over workers
	Write           time.Duration // disk writes and fsyncs
	Wait            time.Duration // the renderer waiting for a free strip buffer
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

// identity returns r's identity for frame f (see Identifier).
func identity(r TileRenderer, f fractal.Frame) string {
	if id, ok := r.(Identifier); ok {
		return id.Identity(f)
	}
	s := r.Name()
	if m, ok := r.(interface{ Mode(fractal.Frame) string }); ok {
		s += ", " + m.Mode(f)
	}
	return s
}

func (o *Options) normalize(r TileRenderer) (stripPlan, error) {
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
		return stripPlan{}, err
	}
	if err := checkSize(o.Width, o.Height); err != nil {
		return stripPlan{}, err
	}
	tile := o.Tile
	if tile == 0 {
		tile = r.MaxTile()
	} else if m := r.MaxTile(); m > 0 && tile > m {
		tile = m
	}
	return newStripPlan(o.Width, o.Height, o.Supersample, tile, o.StripBytes)
}

// params is the text that determines every byte of the output; its hash is in the checkpoint.
// A shard's adds which shard it is to baseParams.
func (o *Options) params(p stripPlan, png bool) (hash, desc string) {
	if o.Shards == 0 {
		return o.baseParams(p, png)
	}
	_, desc = o.baseParams(p, png)
	desc += fmt.Sprintf(" shard=%d/%d", o.Shard, o.Shards)
	h := sha256.Sum256([]byte(desc))
	return hex.EncodeToString(h[:]), desc
}

// baseParams is params without the shard: the same for every shard of an image and for its
// one-machine export.
func (o *Options) baseParams(p stripPlan, png bool) (hash, desc string) {
	desc = fmt.Sprintf("%s size=%dx%d supersample=%d strip=%d block=%d level=%d version=%s",
		o.Location, o.Width, o.Height, o.Supersample, p.StripRows, p.BlockRows, o.Level, o.Version) + o.rawParams(png)
	h := sha256.Sum256([]byte(desc))
	return hex.EncodeToString(h[:]), desc
}

// header is what the .part starts with: signature, IHDR, text chunks and the zlib header.
func (o *Options) header(p stripPlan) ([]byte, error) {
	var buf bytes.Buffer
	_, err := newPNGWriter(&buf, p.W, p.H, MetadataText(o.Location, p.W, p.H, p.N, o.Version))
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
// (errors matching ErrCannotResume); all but the renderer's identity, which may depend on the
// view's reference orbit, are checked before that orbit (minutes of work at depth) is
// started. The finished file is renamed into place (never
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
	sum := Summary{Path: path, RawPath: opt.Raw, Width: opt.Width, Height: opt.Height, Supersample: opt.Supersample,
		Renderer: r.Name(), Strips: plan.Strips}
	e := &exporter{opt: &opt, plan: plan, r: r, sum: &sum, png: path != ""}
	if err := e.checkOptions(path); err != nil {
		return sum, err
	}
	if err := e.checkShader(); err != nil {
		return sum, err
	}
	release, done, err := e.lockOutputs(ctx)
	defer release()
	if err != nil || done {
		sum.AlreadyComplete = done
		return sum, err
	}
	if err := e.setParams(); err != nil {
		return sum, err
	}
	refs, err := opt.givenReference()
	if err != nil {
		return sum, err
	}
	// A resume is checked against its checkpoint and .part first: a refusal comes before the
	// reference orbit, which at depth takes minutes.
	var res resumed
	if opt.Resume {
		if res.part, res.raw, res.ck, err = e.checkResume(); err != nil {
			return sum, err
		}
		e.autoDensity = e.autoDensity || res.ck.AutoDensity
	}
	if err := e.setFrame(ctx, refs); err != nil {
		res.close()
		return sum, err
	}
	if err := e.open(ctx, res); err != nil {
		return sum, err
	}
	if err := e.runAndClose(ctx); err != nil {
		return sum, e.fail(err)
	}
	if err := e.publish(); err != nil {
		return sum, err
	}
	e.finishSummary()
	return sum, nil
}

// outputs are the export's files: the PNG and the raw file, those that are given.
func outputs(png, raw string) []string {
	var out []string
	for _, p := range []string{png, raw} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// sameTarget reports whether a and b name the same file (or would).
func sameTarget(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// ComputesRaw reports whether r computes samples (tile.Computer), which a raw export needs.
func ComputesRaw(r TileRenderer) bool {
	_, ok := r.(tile.Computer)
	return ok
}

// lockPoll is how often an export waiting for a lock (Options.WaitLock) tries it again.
var lockPoll = time.Second

// lock takes the lock of the output p (lockTarget), waiting for it with WaitLock.
func (o *Options) lock(ctx context.Context, p string) (*targetLock, error) {
	told := false
	for {
		lock, err := lockTarget(p)
		if err == nil || !o.WaitLock || !isKind(err, ErrBusy) {
			return lock, err
		}
		if !told && o.Waiting != nil {
			o.Waiting(LockPath(p))
		}
		told = true
		select {
		case <-ctx.Done():
			return nil, &Error{Kind: ErrInterrupted, Path: p, Msg: "interrupted while waiting for another run of " + p + "; nothing was written", Err: ctx.Err()}
		case <-time.After(lockPoll):
		}
	}
}
