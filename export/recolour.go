package export

// Reading raw files back: their view (for --from) and their samples, coloured into a PNG
// without computing anything (Recolour).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"

	"mandelscope/colour"
	"mandelscope/exr"
	"mandelscope/fractal"
	"mandelscope/internal/text"
	"mandelscope/internal/userfile"
)

// exrMagic starts every OpenEXR file.
const exrMagic = "\x76\x2f\x31\x01"

// ErrNotRaw is what reading a raw file wraps for an OpenEXR file that is not one of
// Mandelscope's raw files.
var ErrNotRaw = errors.New("not a Mandelscope raw file")

// RawFile is a raw file open for reading: its view (Metadata: the location, the output size,
// the supersampling; the samples are Width*Supersample x Height*Supersample) and its samples.
type RawFile struct {
	Metadata
	Path string
	f    io.ReaderAt
	c    io.Closer
	rd   *exr.Reader
	id   string
	// Channels says that the file holds the orbit channels T and STRIPE.
	Channels bool
}

// OpenRaw opens a raw file written by Export (Options.Raw) and validates its header as
// ReadMetadata does. The file stays open until Close.
func OpenRaw(path string) (*RawFile, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	r, err := readRaw(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.Path, r.c = path, f
	return r, nil
}

// Close closes the file.
func (r *RawFile) Close() error {
	if r.c == nil {
		return nil
	}
	return r.c.Close()
}

// readRaw reads and validates a raw file's header from r, size bytes: exr.NewReader checks
// the file's structure (sizes, the offset table) against the file; then the channels must be
// ChanN (UINT), ChanNF, ChanDEX and ChanDEY (FLOAT) and nothing else, the attributes present
// with their types, the location must parse and validate, the iterations agree with it, the
// output size and the supersampling be within an export's limits, and the data window be
// exactly that size times the supersampling.
func readRaw(r io.ReaderAt, size int64) (*RawFile, error) {
	var magic [4]byte
	if n, _ := r.ReadAt(magic[:], 0); n < 4 || string(magic[:]) != exrMagic {
		return nil, fmt.Errorf("%w (not an OpenEXR file)", ErrNotRaw)
	}
	rd, err := exr.NewReader(r, size)
	if err != nil {
		return nil, damagedError{err}
	}
	h := rd.Header()
	format, ok := h.Ints[RawKeyFormat]
	if !ok {
		return nil, fmt.Errorf("%w (an OpenEXR file without the %s attribute)", ErrNotRaw, RawKeyFormat)
	}
	if format != RawFormat {
		return nil, fmt.Errorf("raw file format %d is not one this version reads (%d)", format, RawFormat)
	}
	if err := checkRawLayout(h); err != nil {
		return nil, err
	}
	num := func(k string) (int, error) {
		v, ok := h.Ints[k]
		if !ok {
			return 0, fmt.Errorf("the %s attribute (int) is missing", k)
		}
		return int(v), nil
	}
	md := Metadata{Text: map[string]string{}}
	var errs []error
	var iter int
	for _, a := range []struct {
		k string
		v *int
	}{{RawKeyWidth, &md.Width}, {RawKeyHeight, &md.Height}, {RawKeySupersample, &md.Supersample}, {RawKeyIterations, &iter}} {
		v, err := num(a.k)
		errs = append(errs, err)
		*a.v = v
	}
	locText, ok := h.Strings[RawKeyLocation]
	if !ok {
		errs = append(errs, fmt.Errorf("the %s attribute (string) is missing", RawKeyLocation))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, errs[slices.IndexFunc(errs, func(e error) bool { return e != nil })]
	}
	loc, err := fractal.ParseLocationText(locText, fractal.Home())
	if err != nil {
		return nil, fmt.Errorf("%s: %v", RawKeyLocation, err)
	}
	loc.Color = loc.Color.Canonical()
	if err := loc.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", RawKeyLocation, err)
	}
	switch {
	case iter != loc.Iterations:
		return nil, fmt.Errorf("%s %d disagrees with the location's %d iterations", RawKeyIterations, iter, loc.Iterations)
	case md.Supersample < 1 || md.Supersample > MaxSupersample:
		return nil, fmt.Errorf("stored supersampling %d is out of range (1 to %d)", md.Supersample, MaxSupersample)
	}
	if err := checkSize(md.Width, md.Height); err != nil {
		return nil, fmt.Errorf("image size: %v", err)
	}
	if int64(md.Width)*int64(md.Supersample) != int64(h.Width) || int64(md.Height)*int64(md.Supersample) != int64(h.Height) {
		return nil, fmt.Errorf("size %dx%d with %dx%d supersampling disagrees with the data window of %dx%d samples",
			md.Width, md.Height, md.Supersample, md.Supersample, h.Width, h.Height)
	}
	if v, ok := h.Strings[RawKeyDensityChosen]; ok && v != "auto" {
		return nil, fmt.Errorf("%s is %q, not auto", RawKeyDensityChosen, text.Clip(v, 40))
	}
	md.Location = loc
	md.Version = h.Strings[RawKeyVersion]
	for k, v := range h.Strings {
		if k == RawKeyLocation || k == RawKeyVersion || k == RawKeyComments || k == RawKeyDensityChosen {
			md.Text[k] = v
		}
	}
	return &RawFile{Metadata: md, f: r, rd: rd, id: rawID(h, size), Channels: len(h.Channels) == 6}, nil
}

// checkRawLayout checks a raw file's channels (ChanN UINT, ChanNF, ChanDEX and ChanDEY FLOAT,
// nothing else) and that every attribute of ours is one this version reads.
func checkRawLayout(h exr.Header) error {
	want := []exr.Channel{{Name: ChanDEX, Type: exr.Float}, {Name: ChanDEY, Type: exr.Float},
		{Name: ChanN, Type: exr.Uint}, {Name: ChanNF, Type: exr.Float}}
	withT := append(slices.Clone(want), exr.Channel{Name: ChanStripe, Type: exr.Float}, exr.Channel{Name: ChanT, Type: exr.Float})
	if !slices.Equal(h.Channels, want) && !slices.Equal(h.Channels, withT) {
		var got []string
		for _, c := range h.Channels {
			got = append(got, text.Clip(c.Name, 31)+" "+c.Type.String())
		}
		return fmt.Errorf("channels %s, want DEX FLOAT, DEY FLOAT, N UINT, NF FLOAT (and STRIPE FLOAT, T FLOAT)", text.Clip(fmt.Sprint(got), 120))
	}
	// Every attribute of ours must be one this version reads (a misspelt or newer one would
	// be ignored: another view than the file's).
	known := map[string]bool{RawKeyFormat: true, RawKeyLocation: true, RawKeyWidth: true, RawKeyHeight: true,
		RawKeySupersample: true, RawKeyIterations: true, RawKeyVersion: true, RawKeyDensityChosen: true}
	var names []string
	for k := range h.Strings {
		names = append(names, k)
	}
	for k := range h.Ints {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if isOurKey(k) && !known[k] {
			return unknownKeyError(k)
		}
	}
	return nil
}

// rawID is the identity of a raw file's data, for a resumed recolour: its header and size.
func rawID(h exr.Header, size int64) string {
	keys := make([]string, 0, len(h.Strings)+len(h.Ints))
	for k, v := range h.Strings {
		keys = append(keys, k+"="+v)
	}
	for k, v := range h.Ints {
		keys = append(keys, k+"="+strconv.Itoa(int(v)))
	}
	sort.Strings(keys)
	sum := sha256.New()
	fmt.Fprintf(sum, "%d %dx%d\n", size, h.Width, h.Height)
	for _, k := range keys {
		fmt.Fprintf(sum, "%q\n", k)
	}
	return hex.EncodeToString(sum.Sum(nil))[:16]
}

// Samples is the size of the data: every sample of the export.
func (r *RawFile) Samples() (w, h int) {
	return r.Width * r.Supersample, r.Height * r.Supersample
}

// SizeFor is the output size of a recolour with n x n supersampling: the samples divided by
// n, which must divide them.
func (r *RawFile) SizeFor(n int) (w, h int, err error) {
	sw, sh := r.Samples()
	if n < 1 || n > MaxSupersample {
		return 0, 0, fmt.Errorf("supersampling %d is out of range (1 to %d)", n, MaxSupersample)
	}
	if sw%n != 0 || sh%n != 0 {
		return 0, 0, fmt.Errorf("the raw file's %dx%d samples do not divide into %dx%d pixels", sw, sh, n, n)
	}
	if err := checkSize(sw/n, sh/n); err != nil {
		return 0, 0, fmt.Errorf("size: %v", err)
	}
	return sw / n, sh / n, nil
}

// ReadSamples reads the samples of lines [y0, y1) of the data, full width, into d (whose
// Rect must be those lines), on every core.
func (r *RawFile) ReadSamples(d *colour.Data, y0, y1 int) error {
	w, h := r.Samples()
	if y0 < 0 || y1 > h || y0 >= y1 || d.Rect.Dx() != w || d.Rect.Min.Y != y0 || d.Rect.Max.Y < y1 {
		return fmt.Errorf("raw file: lines %d to %d of %d do not fit %v", y0, y1, h, d.Rect)
	}
	// Pieces of whole chunks (but the ends), read and decoded in parallel.
	pieces := max(1, min(runtime.GOMAXPROCS(0), (y1-y0)/exr.LinesPerChunk))
	cut := make([]int, 0, pieces+1)
	cut = append(cut, y0)
	for i := 1; i < pieces; i++ {
		c := (y0 + (y1-y0)*i/pieces) / exr.LinesPerChunk * exr.LinesPerChunk
		if c > cut[len(cut)-1] {
			cut = append(cut, c)
		}
	}
	cut = append(cut, y1)
	errs := make([]error, len(cut)-1)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() { errs[i] = r.readPiece(d, cut[i], cut[i+1]) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err // the first damage, from the top
		}
	}
	return nil
}

// ErrRawDamaged is matched (errors.Is) by the errors reading a raw file's samples that its
// data gives (a truncated file, a chunk changed): no resume reads past them; the file must be
// made again.
var ErrRawDamaged = errors.New("the raw file is damaged")

// RawReadError is a raw file's samples failing to read: which file, which lines of its
// samples (those of the chunk at fault where the reader says, else those asked for) and why.
type RawReadError struct {
	Path         string
	First, Lines int // the lines of samples that cannot be read
	Height       int // of the file's lines
	Err          error
}

func (e *RawReadError) Error() string {
	if e.Lines == 1 {
		return fmt.Sprintf("%s is damaged: sample line %d of %d cannot be read: %v", e.Path, e.First, e.Height, e.Err)
	}
	return fmt.Sprintf("%s is damaged: sample lines %d to %d of %d cannot be read: %v", e.Path, e.First, e.First+e.Lines-1, e.Height, e.Err)
}

// Unwrap returns ErrRawDamaged and the reader's error.
func (e *RawReadError) Unwrap() []error { return []error{ErrRawDamaged, e.Err} }

// damagedError is an OpenEXR file's structure failing to read (ErrRawDamaged): its text
// is the reader's.
type damagedError struct{ error }

func (d damagedError) Unwrap() []error { return []error{ErrRawDamaged, d.error} }

func (r *RawFile) readPiece(d *colour.Data, y0, y1 int) error {
	cols, err := r.rd.ReadLines(y0, y1-y0)
	if err != nil {
		_, h := r.Samples()
		x := &RawReadError{Path: r.Path, First: y0, Lines: y1 - y0, Height: h, Err: err}
		if ce := (*exr.ChunkError)(nil); errors.As(err, &ce) {
			x.First, x.Lines = ce.First, ce.Lines
		}
		return x
	}
	// Channels in name order: DEX, DEY, N, NF, then STRIPE, T where the file has them
	// (checked by readRaw).
	dex, dey := cols[0].([]float32), cols[1].([]float32)
	n, nf := cols[2].([]uint32), cols[3].([]float32)
	var stripe, tt []float32
	if r.Channels {
		stripe, tt = cols[4].([]float32), cols[5].([]float32)
	}
	w := d.Rect.Dx()
	_, h := r.Samples()
	for y := y0; y < y1; y++ {
		o := (y - y0) * w
		row := d.Row(y)
		for x := range row {
			i := o + x
			why := impossibleInside(dex[i], dey[i])
			if n[i] != RawInside {
				why = r.impossible(n[i], nf[i], dex[i], dey[i])
				if why == "" && r.Channels {
					why = impossibleChannels(tt[i], stripe[i])
				}
			}
			if why != "" {
				where := fmt.Sprintf("sample (%d, %d)", x, y)
				if r.Supersample > 1 {
					where += fmt.Sprintf(" of pixel (%d, %d)", x/r.Supersample, y/r.Supersample)
				}
				return &RawReadError{Path: r.Path, First: y, Lines: 1, Height: h, Err: fmt.Errorf("%s: %s", where, why)}
			}
			row[x] = colour.Sample{Nu: rawJoin(n[i], nf[i]), DEX: dex[i], DEY: dey[i]}
			if r.Channels {
				row[x].T, row[x].Stripe = tt[i], stripe[i]
			}
			if n[i] == RawInside {
				row[x] = colour.InteriorSample(int(dex[i]), float64(dey[i]))
			}
		}
	}
	return nil
}

// impossible says why an escaped sample's channels cannot be an export's, "" when they can
// be: N above the iterations (the smooth count's rounding may carry it one above), NF, DEX
// or DEY infinite, NF or DEX not a number (DEY is NaN for an estimate without a normal), NF
// outside [0, 1] with N above 0 (below 1 the smooth count is all in NF), DEX negative
// without a normal (it is then the estimate itself, never negative).
func (r *RawFile) impossible(n uint32, nf, dex, dey float32) string {
	f := func(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
	switch {
	case int64(n) > int64(r.Location.Iterations)+1:
		return fmt.Sprintf("%s %d is above the file's %d iterations", ChanN, n, r.Location.Iterations)
	case nf != nf || math.IsInf(float64(nf), 0):
		return fmt.Sprintf("%s is %s, not a number", ChanNF, f(nf))
	case n > 0 && !(nf >= 0 && nf <= 1):
		return fmt.Sprintf("%s is %s with %s %d, outside 0 to 1", ChanNF, f(nf), ChanN, n)
	case dex != dex || math.IsInf(float64(dex), 0):
		return fmt.Sprintf("%s is %s, not a number", ChanDEX, f(dex))
	case math.IsInf(float64(dey), 0):
		return fmt.Sprintf("%s is %s, not a number", ChanDEY, f(dey))
	case dey != dey && dex < 0:
		return fmt.Sprintf("%s is %s without a normal (%s NaN): a distance is never negative", ChanDEX, f(dex), ChanDEY)
	}
	return ""
}

// impossibleChannels says why an escaped sample's T and STRIPE cannot be an export's: T
// outside [0, 1) or STRIPE outside [0, 1] (NaN included); "" when they can be.
func impossibleChannels(t, stripe float32) string {
	f := func(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
	switch {
	case !(t >= 0 && t < 1):
		return fmt.Sprintf("%s is %s, outside 0 to 1", ChanT, f(t))
	case !(stripe >= 0 && stripe <= 1):
		return fmt.Sprintf("%s is %s, outside 0 to 1", ChanStripe, f(stripe))
	}
	return ""
}

// rawSource is the TileRenderer of a recolour: it draws a frame's pixels from the raw file's
// samples, coloured with the frame's colouring, computing nothing. The rows of the last
// strip read are kept, so tiles across a strip read it once.
type rawSource struct {
	raw      *RawFile
	data     *colour.Data
	colourer *colour.Colourer
	col      colour.Coloring
	painter  colour.ShaderPainter // runs a colouring shader (Options.ShaderPainter)
}

func (s *rawSource) Name() string { return "raw data (" + text.Clip(s.raw.Path, 60) + ")" }

// MaxTile is large: a strip is one tile, read once.
func (s *rawSource) MaxTile() int { return exr.MaxSide }

// RawIdentityPrefix starts the identity (Identifier) of a recolour's source, its raw file's
// data, as a checkpoint records it (Error.Was of ErrRendererDiffers).
const RawIdentityPrefix = "raw data "

// Identity names the data: a resumed recolour continues only from the same raw file.
func (s *rawSource) Identity(fractal.Frame) string { return RawIdentityPrefix + s.raw.id }

func (s *rawSource) Render(_ context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if c := f.Loc.Color; c.HasShader() {
		return s.shade(f, rect, dst)
	}
	w, _ := s.raw.Samples()
	if s.data == nil || rect.Min.Y < s.data.Rect.Min.Y || rect.Max.Y > s.data.Rect.Max.Y {
		r := image.Rect(0, rect.Min.Y, w, rect.Max.Y)
		if s.data == nil || len(s.data.Pix) < w*r.Dy() {
			s.data = colour.NewData(r)
		}
		s.data = &colour.Data{Pix: s.data.Pix[:w*r.Dy()], Stride: w, Rect: r}
		if err := s.raw.ReadSamples(s.data, r.Min.Y, r.Max.Y); err != nil {
			s.data = nil
			return err
		}
	}
	if s.colourer == nil || s.col != f.Loc.Color {
		c, err := colour.NewColourer(f.Loc.Color)
		if err != nil {
			return err
		}
		s.colourer, s.col = c, f.Loc.Color
	}
	s.colourer.Paint(dst, s.data.SubData(rect))
	return nil
}

// recolourCountRows is the lines of samples read at a time when a histogram recolour counts a
// raw file's escape counts: a few MB of samples.
const recolourCountRows = 256

// shade colours the pixels rect with frame f's colouring shader: the raw file's samples of
// rect and colour.ShaderMargin rows above and below (so that a shader reading its neighbours
// colours the strip's edge rows as in the whole picture), run by the painter.
func (s *rawSource) shade(f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	if s.painter == nil {
		return colour.ErrNoShaderPainter
	}
	w, h := s.raw.Samples()
	wide := image.Rect(0, max(0, rect.Min.Y-colour.ShaderMargin), w, min(h, rect.Max.Y+colour.ShaderMargin))
	d := colour.NewData(wide)
	if err := s.raw.ReadSamples(d, wide.Min.Y, wide.Max.Y); err != nil {
		return err
	}
	return paintInner(context.Background(), s.painter, shaderPicture(f), d.SubData(image.Rect(rect.Min.X-colour.ShaderMargin, wide.Min.Y, rect.Max.X+colour.ShaderMargin, wide.Max.Y)), rect, dst)
}

// Recolour writes the PNG path from raw's samples, coloured with opt.Location's colouring:
// the picture an export of opt would give, without computing it. opt.Location's view (centre,
// zoom, iterations, formula, a Julia set's parameter) must be raw's, and opt's size times its
// supersampling raw's samples (RawFile.SizeFor). Everything else is as for Export (resume, overwrite, the .part, the
// metadata), with raw's data standing in for the renderer; opt.Raw must be empty.
func Recolour(ctx context.Context, raw *RawFile, path string, opt Options) (Summary, error) {
	l, m := opt.Location, raw.Location
	switch {
	case opt.Raw != "":
		return Summary{}, errors.New("a recolour writes no raw file")
	case l.Re != m.Re || l.Im != m.Im || l.Zoom != m.Zoom || l.Iterations != m.Iterations || l.Julia != m.Julia || l.Formula != m.Formula:
		return Summary{}, errors.New("a recolour keeps the raw file's view (centre, zoom, iterations, formula and a Julia set's parameter)")
	}
	n := max(opt.Supersample, 1)
	w, h, err := raw.SizeFor(n)
	if err != nil {
		return Summary{}, err
	}
	if opt.Width != w || opt.Height != h {
		return Summary{}, fmt.Errorf("%dx%d with %dx%d supersampling is not the raw file's %dx%d samples", opt.Width, opt.Height, n, n, w*n, h*n)
	}
	opt.Tile = 0
	opt.reference = func(_ context.Context, f fractal.Frame) (fractal.Frame, error) { return f, nil }
	if opt.Location.Color.IsHistogram() {
		// Two passes over the data: the counts, then the colours.
		eq, err := rawEqualisation(ctx, raw, recolourCountRows)
		if err != nil {
			return Summary{}, err
		}
		opt.Location.Color.Equal = eq
	}
	return Export(ctx, &rawSource{raw: raw, painter: opt.ShaderPainter}, path, opt)
}

// impossibleInside says what is wrong with an inside sample's DEX and DEY, which hold its
// cycle's period (a whole number from 1 to 2^24, or 0 for none) and its multiplier's size (0
// to 1; 0 without a period): "" when nothing is.
func impossibleInside(dex, dey float32) string {
	if dex == 0 && dey == 0 {
		return ""
	}
	if !(dex >= 1 && dex <= 1<<24) || dex != float32(int(dex)) {
		return fmt.Sprintf("inside the set with period %v (want a whole number from 1 to %d, or 0)", dex, 1<<24)
	}
	if !(dey >= 0 && dey <= 1) {
		return fmt.Sprintf("inside the set with multiplier %v (want 0 to 1)", dey)
	}
	return ""
}
