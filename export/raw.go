package export

// The raw file: an export's computed samples (colour.Sample) as OpenEXR, in the channels
// Kalles Fraktaler and Fraktaler-3 write, streamed strip by strip beside (or instead of) the
// PNG, checkpointed with it and resumed with it.

import (
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"mandelscope/colour"
	"mandelscope/exr"
	"mandelscope/fractal"
)

// The raw file's channels: N (UINT) is the integer escape count, floor(nu) clamped at 0, and
// 0xFFFFFFFF (RawInside) for a point inside the set; NF (FLOAT) is the fraction nu - N (0
// inside), so that the smooth escape count is N + NF; DEX and DEY (FLOAT) are the distance
// estimate in pixels times the unit normal, as colour.Sample holds them (NaN in DEY: an
// estimate without a normal, in DEX). A view that computes the orbit channels
// (fractal.Location.OrbitPath: a bailout other than 2, or the angle or stripe colouring) adds
// T (FLOAT, arg(z_N) / 2pi in [0, 1): Kalles Fraktaler's T) and STRIPE (FLOAT, the stripe
// average in [0, 1]); both are 0 inside.
const (
	ChanN      = "N"
	ChanNF     = "NF"
	ChanDEX    = "DEX"
	ChanDEY    = "DEY"
	ChanT      = "T"
	ChanStripe = "STRIPE"
	// RawInside is N for a point inside the set.
	RawInside = math.MaxUint32
)

// rawChannels are the channels in the order the exporter hands them to the exr.Writer: the
// first four always, T and STRIPE for a view with the orbit channels (rawChannelsOf).
var rawChannels = []exr.Channel{{Name: ChanN, Type: exr.Uint}, {Name: ChanNF, Type: exr.Float},
	{Name: ChanDEX, Type: exr.Float}, {Name: ChanDEY, Type: exr.Float},
	{Name: ChanT, Type: exr.Float}, {Name: ChanStripe, Type: exr.Float}}

// rawChannelsOf is the raw file's channels for loc: T and STRIPE only where its frames compute
// them, so that every other raw file is what it was.
func rawChannelsOf(loc fractal.Location) []exr.Channel {
	if loc.OrbitPath() {
		return rawChannels
	}
	return rawChannels[:4]
}

// RawChannels are the raw file's first four channels, in the order RawSplit and a sample's
// DEX and DEY fill them (N, NF, DEX, DEY), for another writer of the same channels (a video's
// keyframes as OpenEXR files).
func RawChannels() []exr.Channel { return slices.Clone(rawChannels[:4]) }

// RawSplit is a sample's smooth escape count nu as the raw file's N and NF (see ChanN).
func RawSplit(nu float64) (n uint32, nf float32) { return rawSplit(nu) }

// Header attributes of a raw file. The location is its compact text (fractal.Location.String,
// read back by fractal.ParseLocationText); width and height are the export's output size,
// and the data window is that times the supersampling: every sample is kept.
const (
	RawKeyFormat      = "mandelscope.format" // int: RawFormat
	RawKeyLocation    = "mandelscope.location"
	RawKeyWidth       = "mandelscope.width"
	RawKeyHeight      = "mandelscope.height"
	RawKeySupersample = "mandelscope.supersample"
	RawKeyIterations  = "mandelscope.iterations"
	RawKeyVersion     = "mandelscope.version"
	// RawKeyDensityChosen, string "auto", says that the location's density was chosen
	// automatically (the PNG's KeyDensityChosen), so that a recolour that keeps the density
	// records it as automatic too.
	RawKeyDensityChosen = KeyDensityChosen
	// RawKeyComments is OpenEXR's standard comments attribute: the PNG's Description.
	RawKeyComments = "comments"
)

// RawFormat is the version of the raw file's conventions (channels, attributes, interior).
const RawFormat = 1

// rawHeader is e's raw file's header (rawHeader of loc), marked when its density
// was chosen automatically.
func (e *exporter) rawHeader(loc fractal.Location) (exr.Header, error) {
	h, err := rawHeader(loc, e.plan.W, e.plan.H, e.plan.N, e.opt.Version)
	if err == nil && e.autoDensity {
		h.Strings[RawKeyDensityChosen] = "auto"
	}
	return h, err
}

// rawHeader is the OpenEXR header of a raw export.
func rawHeader(loc fractal.Location, w, h, n int, version string) (exr.Header, error) {
	text := loc.String()
	if len(text) > exr.MaxStringLen {
		return exr.Header{}, fmt.Errorf("the location's text (%d bytes) is too long for the raw file's header", len(text))
	}
	desc := ""
	for _, t := range MetadataText(loc, w, h, n, version) {
		if t.Key == "Description" {
			desc = t.Value
		}
	}
	return exr.Header{
		Width: w * n, Height: h * n, Channels: rawChannelsOf(loc),
		Strings: map[string]string{
			RawKeyLocation: text, RawKeyVersion: version,
			RawKeyComments: "Mandelscope " + version + ": " + desc,
		},
		Ints: map[string]int32{
			RawKeyFormat: RawFormat, RawKeyWidth: int32(w), RawKeyHeight: int32(h),
			RawKeySupersample: int32(n), RawKeyIterations: int32(loc.Iterations),
		},
	}, nil
}

// rawSplit is a sample's N and NF (see ChanN).
func rawSplit(nu float64) (uint32, float32) {
	switch {
	case math.IsInf(nu, 1):
		return RawInside, 0
	case !(nu >= 1): // below 1, and NaN
		return 0, float32(nu)
	case nu >= RawInside-1:
		return RawInside - 1, float32(nu - (RawInside - 1))
	}
	n := math.Floor(nu)
	return uint32(n), float32(nu - n)
}

// rawJoin is the smooth escape count of N and NF.
func rawJoin(n uint32, nf float32) float64 {
	if n == RawInside {
		return colour.Inside
	}
	return float64(n) + float64(nf)
}

// rawFile is a raw .part open for writing: writes pass through, and the CRC-32 of the bytes
// written in order from the start (the file's [0, n)) is kept for the checkpoint. The offset
// table, written last over the zeros first written there, is not counted again (see
// rawCRC). Its first write error is kept: the exr package reports it as text.
type rawFile struct {
	*os.File
	crc    uint32
	n, pos int64
	err    error
}

func (f *rawFile) Write(p []byte) (int, error) {
	m, err := f.File.Write(p)
	if f.pos == f.n {
		f.crc = crc32.Update(f.crc, crc32.IEEETable, p[:m])
		f.n += int64(m)
	}
	f.pos += int64(m)
	if err != nil && f.err == nil {
		f.err = err
	}
	return m, err
}

func (f *rawFile) Seek(off int64, whence int) (int64, error) {
	p, err := f.File.Seek(off, whence)
	if err == nil {
		f.pos = p
	}
	return p, err
}

// rawSink streams a raw export's samples to its exr.Writer: rows come a strip at a time,
// and are written in whole chunks (exr.LinesPerChunk lines), the rest held until the next
// strip (or the end), so that strips of any height give the same file.
type rawSink struct {
	f                    *rawFile
	w                    *exr.Writer
	width, height        int   // in samples
	tableStart, tableEnd int64 // the offset table's bytes in the file
	n                    []uint32
	nf, dex, dey         []float32
	t, stripe            []float32 // nil where the file has no T and STRIPE
	pending              int       // lines held, at the start of the columns
}

// newRawSink sets up the columns of a sink for strips of at most stripLines lines.
func newRawSink(f *rawFile, w *exr.Writer, h exr.Header, stripLines int) (*rawSink, error) {
	ts, te, err := exr.Layout(h)
	if err != nil {
		return nil, err
	}
	n := (stripLines + exr.LinesPerChunk) * h.Width
	s := &rawSink{f: f, w: w, width: h.Width, height: h.Height, tableStart: ts, tableEnd: te,
		n: make([]uint32, n), nf: make([]float32, n), dex: make([]float32, n), dey: make([]float32, n)}
	if len(h.Channels) == len(rawChannels) {
		s.t, s.stripe = make([]float32, n), make([]float32, n)
	}
	return s, nil
}

// add appends d's rows (each the sink's width) to the lines held.
func (s *rawSink) add(d *colour.Data) {
	for y := d.Rect.Min.Y; y < d.Rect.Max.Y; y++ {
		o := s.pending * s.width
		n, nf := s.n[o:o+s.width], s.nf[o:o+s.width]
		dex, dey := s.dex[o:o+s.width], s.dey[o:o+s.width]
		for x, smp := range d.Row(y) {
			n[x], nf[x] = rawSplit(smp.Nu)
			dex[x], dey[x] = smp.DEX, smp.DEY
		}
		if s.t != nil {
			t, st := s.t[o:o+s.width], s.stripe[o:o+s.width]
			for x, smp := range d.Row(y) {
				t[x], st[x] = smp.T, smp.Stripe
			}
		}
		s.pending++
	}
}

// flush writes the whole chunks held, or every line held when final, and keeps the rest.
func (s *rawSink) flush(final bool) error {
	k := s.pending
	if !final {
		k -= k % exr.LinesPerChunk
	}
	if k == 0 {
		return nil
	}
	m := k * s.width
	cols := []any{s.n[:m], s.nf[:m], s.dex[:m], s.dey[:m]}
	if s.t != nil {
		cols = append(cols, s.t[:m], s.stripe[:m])
	}
	if err := s.w.WriteLines(cols...); err != nil {
		if s.f.err != nil {
			return fmt.Errorf("%s: %w", s.f.Name(), s.f.err)
		}
		return err
	}
	rest := (s.pending - k) * s.width
	copy(s.n, s.n[m:m+rest])
	copy(s.nf, s.nf[m:m+rest])
	copy(s.dex, s.dex[m:m+rest])
	copy(s.dey, s.dey[m:m+rest])
	if s.t != nil {
		copy(s.t, s.t[m:m+rest])
		copy(s.stripe, s.stripe[m:m+rest])
	}
	s.pending -= k
	return nil
}

// rawCRC is the CRC-32 of r's first n bytes with the offset table [ts, te) read as zeros (as
// the writer first wrote it, and as rawFile counts it): a file whose table a finished run
// already filled in still matches its last checkpoint.
func rawCRC(r io.ReaderAt, n, ts, te int64) (uint32, error) {
	buf := make([]byte, 1<<20)
	var crc uint32
	for off := int64(0); off < n; {
		m := int(min(int64(len(buf)), n-off))
		got, err := r.ReadAt(buf[:m], off)
		if got < m {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		for i := max(ts, off); i < min(te, off+int64(m)); i++ {
			buf[i-off] = 0
		}
		crc = crc32.Update(crc, crc32.IEEETable, buf[:m])
		off += int64(m)
	}
	return crc, nil
}

// rawParams is what the parameter description (Options.params) says about the outputs
// beyond the PNG: the raw file, and when there is no PNG, that.
func (o *Options) rawParams(png bool) string {
	s := ""
	if o.Raw != "" {
		s += " raw=exr" + strconv.Itoa(RawFormat)
	}
	if !png {
		s += " png=none"
	}
	return s
}
