package exr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zlib"
)

// magic starts every OpenEXR file.
var magic = []byte{0x76, 0x2f, 0x31, 0x01}

// attribute is one header attribute, encoded.
type attribute struct {
	name, typ string
	value     []byte
}

// encodeHeader returns the magic number, the version field and the header of a ZIP scanline
// file for a validated h, its attributes in name order.
func encodeHeader(h *Header, sorted []Channel) []byte {
	le := binary.LittleEndian
	var attrs []attribute
	var cl []byte
	for _, c := range sorted {
		cl = append(cl, c.Name...)
		cl = append(cl, 0)
		cl = le.AppendUint32(cl, uint32(c.Type))
		cl = append(cl, 0, 0, 0, 0) // pLinear, reserved
		cl = le.AppendUint32(cl, 1) // xSampling
		cl = le.AppendUint32(cl, 1) // ySampling
	}
	cl = append(cl, 0)
	box := func() []byte {
		b := le.AppendUint32(nil, 0)
		b = le.AppendUint32(b, 0)
		b = le.AppendUint32(b, uint32(h.Width-1))
		return le.AppendUint32(b, uint32(h.Height-1))
	}
	one := le.AppendUint32(nil, math.Float32bits(1))
	attrs = append(attrs,
		attribute{"channels", "chlist", cl},
		attribute{"compression", "compression", []byte{compZIP}},
		attribute{"dataWindow", "box2i", box()},
		attribute{"displayWindow", "box2i", box()},
		attribute{"lineOrder", "lineOrder", []byte{0}},
		attribute{"pixelAspectRatio", "float", one},
		attribute{"screenWindowCenter", "v2f", make([]byte, 8)},
		attribute{"screenWindowWidth", "float", one},
	)
	for k, v := range h.Strings {
		attrs = append(attrs, attribute{k, "string", []byte(v)})
	}
	for k, v := range h.Ints {
		attrs = append(attrs, attribute{k, "int", le.AppendUint32(nil, uint32(v))})
	}
	slices.SortFunc(attrs, func(a, b attribute) int { return bytes.Compare([]byte(a.name), []byte(b.name)) })
	b := slices.Clone(magic)
	b = le.AppendUint32(b, 2)
	for _, a := range attrs {
		b = append(b, a.name...)
		b = append(b, 0)
		b = append(b, a.typ...)
		b = append(b, 0)
		b = le.AppendUint32(b, uint32(len(a.value)))
		b = append(b, a.value...)
	}
	return append(b, 0)
}

// Writer streams a ZIP-compressed scanline OpenEXR file: the header and a zeroed offset table
// first, then the chunks in order, then Close writes the table. The file starts at the
// position the io.WriteSeeker had when NewWriter was called (normally 0); its offsets are
// counted from there. A Writer is not safe for concurrent use.
type Writer struct {
	w        io.WriteSeeker
	base     int64 // where the file starts in w
	h        Header
	sorted   []Channel
	perm     []int // perm[i]: the index in h.Channels of sorted channel i
	bpl      int   // raw bytes per line
	tablePos int64 // where the offset table starts, from base
	offsets  []uint64
	lines    int
	end      int64 // the end of the last chunk, from base
	err      error // sticky
	closed   bool

	workers []*worker
	slots   []bytes.Buffer
}

// worker holds one goroutine's scratch space for packing chunks.
type worker struct {
	raw, tmp []byte
	zw       *zlib.Writer
}

// NewWriter validates h, writes the header and a zeroed offset table to w, and returns a
// Writer for the lines. Sides are 1..MaxSide, channels 1..MaxChannels of type Uint or Float,
// names 1..31 printable ASCII bytes without duplicates, string values up to MaxStringLen
// bytes; user attributes cannot take the names of the format's own.
func NewWriter(w io.WriteSeeker, h Header) (*Writer, error) {
	wr, hdr, err := newWriter(w, h)
	if err != nil {
		return nil, err
	}
	wr.base, err = w.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, fmt.Errorf("exr: %v", err)
	}
	table := make([]byte, 8*len(wr.offsets))
	if _, err := w.Write(append(hdr, table...)); err != nil {
		return nil, fmt.Errorf("exr: writing the header: %v", err)
	}
	return wr, nil
}

// Layout returns where a file with header h, written by a Writer from its start, keeps its
// offset table: bytes [tableStart, tableEnd). A caller that checks or resumes such a file
// knows from it which bytes the table fills in at Close.
func Layout(h Header) (tableStart, tableEnd int64, err error) {
	w, _, err := newWriter(nil, h)
	if err != nil {
		return 0, 0, err
	}
	return w.tablePos, w.end, nil
}

// newWriter validates h and sets a Writer up, returning it and the encoded header.
func newWriter(w io.WriteSeeker, h Header) (*Writer, []byte, error) {
	if err := h.validate(); err != nil {
		return nil, nil, err
	}
	h.Channels = slices.Clone(h.Channels)
	sorted := sortedChannels(h.Channels)
	perm := make([]int, len(sorted))
	for i, c := range sorted {
		perm[i] = slices.IndexFunc(h.Channels, func(d Channel) bool { return d.Name == c.Name })
	}
	hdr := encodeHeader(&h, sorted)
	nChunks := (h.Height + LinesPerChunk - 1) / LinesPerChunk
	wr := &Writer{
		w: w, h: h, sorted: sorted, perm: perm,
		bpl:      h.Width * bytesPerPixel(sorted),
		tablePos: int64(len(hdr)),
		offsets:  make([]uint64, nChunks),
	}
	wr.end = wr.tablePos + int64(8*nChunks)
	return wr, hdr, nil
}

// Lines returns the number of lines written so far.
func (w *Writer) Lines() int { return w.lines }

// Offset returns the number of bytes written so far: the end of the last chunk, counted from
// the start of the file.
func (w *Writer) Offset() int64 { return w.end }

// WriteLines writes the next n lines, given one slice per channel in the order of the
// channels given to NewWriter: []uint32 for Uint channels, []float32 for Float channels, each
// of length n*Width. n must be a multiple of LinesPerChunk unless these are the last lines.
// When the lines span several chunks, they are compressed in parallel (GOMAXPROCS goroutines);
// the output does not depend on that.
func (w *Writer) WriteLines(cols ...any) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("exr: WriteLines after Close")
	}
	if len(cols) != len(w.h.Channels) {
		return fmt.Errorf("exr: WriteLines got %d columns for %d channels", len(cols), len(w.h.Channels))
	}
	n := -1
	for i, c := range w.h.Channels {
		var l int
		switch c.Type {
		case Uint:
			v, ok := cols[i].([]uint32)
			if !ok {
				return fmt.Errorf("exr: WriteLines: channel %q is UINT and takes a []uint32, not %T", c.Name, cols[i])
			}
			l = len(v)
		case Float:
			v, ok := cols[i].([]float32)
			if !ok {
				return fmt.Errorf("exr: WriteLines: channel %q is FLOAT and takes a []float32, not %T", c.Name, cols[i])
			}
			l = len(v)
		}
		if l == 0 || l%w.h.Width != 0 {
			return fmt.Errorf("exr: WriteLines: channel %q has %d values, not a positive multiple of the width %d", c.Name, l, w.h.Width)
		}
		if n >= 0 && l/w.h.Width != n {
			return fmt.Errorf("exr: WriteLines: channel %q has %d lines, channel %q %d", c.Name, l/w.h.Width, w.h.Channels[0].Name, n)
		}
		n = l / w.h.Width
	}
	if w.lines+n > w.h.Height {
		return fmt.Errorf("exr: WriteLines: %d lines after %d would pass the height %d", n, w.lines, w.h.Height)
	}
	if n%LinesPerChunk != 0 && w.lines+n != w.h.Height {
		return fmt.Errorf("exr: WriteLines: %d lines is not a multiple of %d and not the last lines", n, LinesPerChunk)
	}
	if err := w.writeChunks(cols, n); err != nil {
		w.err = err
		return err
	}
	return nil
}

// writeChunks packs and writes n lines, in batches of chunks packed in parallel.
func (w *Writer) writeChunks(cols []any, n int) error {
	nChunks := (n + LinesPerChunk - 1) / LinesPerChunk
	par := min(runtime.GOMAXPROCS(0), nChunks)
	for len(w.workers) < par {
		// BestSpeed: at 8K a raw export took 4.2 s instead of 5.0 (4.2 CPU-s instead of
		// 6.1) for a file 7% larger (323 MB instead of 301) than zlib's default level.
		zw, _ := zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
		w.workers = append(w.workers, &worker{zw: zw})
	}
	batch := min(2*par, nChunks)
	if len(w.slots) < batch {
		w.slots = make([]bytes.Buffer, batch)
	}
	for first := 0; first < nChunks; first += batch {
		cnt := min(batch, nChunks-first)
		pack := func(wk *worker, j int) {
			l0 := (first + j) * LinesPerChunk
			w.pack(wk, &w.slots[j], cols, l0, min(LinesPerChunk, n-l0))
		}
		if par == 1 {
			for j := range cnt {
				pack(w.workers[0], j)
			}
		} else {
			var next atomic.Int64
			var wg sync.WaitGroup
			for _, wk := range w.workers[:min(par, cnt)] {
				wg.Go(func() {
					for j := int(next.Add(1) - 1); j < cnt; j = int(next.Add(1) - 1) {
						pack(wk, j)
					}
				})
			}
			wg.Wait()
		}
		for j := range cnt {
			lines := min(LinesPerChunk, n-(first+j)*LinesPerChunk)
			if err := w.writeChunk(w.slots[j].Bytes(), lines); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeChunk writes one packed chunk of the given number of lines at the end of the file.
func (w *Writer) writeChunk(data []byte, lines int) error {
	var hd [8]byte
	binary.LittleEndian.PutUint32(hd[:], uint32(w.lines))
	binary.LittleEndian.PutUint32(hd[4:], uint32(len(data)))
	if _, err := w.w.Write(hd[:]); err != nil {
		return fmt.Errorf("exr: writing the chunk at line %d: %v", w.lines, err)
	}
	if _, err := w.w.Write(data); err != nil {
		return fmt.Errorf("exr: writing the chunk at line %d: %v", w.lines, err)
	}
	w.offsets[w.lines/LinesPerChunk] = uint64(w.end)
	w.end += int64(8 + len(data))
	w.lines += lines
	return nil
}

// pack lays lines [l0, l0+lines) of cols out raw, then ZIP-packs them into out.
func (w *Writer) pack(wk *worker, out *bytes.Buffer, cols []any, l0, lines int) {
	width := w.h.Width
	size := lines * w.bpl
	if cap(wk.raw) < size {
		wk.raw = make([]byte, size)
		wk.tmp = make([]byte, size)
	}
	raw, tmp := wk.raw[:size], wk.tmp[:size]
	p := 0
	for l := l0; l < l0+lines; l++ {
		for _, ci := range w.perm {
			switch v := cols[ci].(type) {
			case []uint32:
				for _, x := range v[l*width : (l+1)*width] {
					binary.LittleEndian.PutUint32(raw[p:], x)
					p += 4
				}
			case []float32:
				for _, x := range v[l*width : (l+1)*width] {
					binary.LittleEndian.PutUint32(raw[p:], math.Float32bits(x))
					p += 4
				}
			}
		}
	}
	zipPredict(tmp, raw)
	out.Reset()
	wk.zw.Reset(out)
	_, _ = wk.zw.Write(tmp) // writes to a bytes.Buffer do not fail
	_ = wk.zw.Close()
	if out.Len() >= size {
		out.Reset()
		out.Write(raw)
	}
}

// zipPredict splits raw into dst (the bytes at even positions, then those at odd positions)
// and replaces each byte but the first by its difference to the one before, plus 128: the
// transform OpenEXR's ZIP compression applies before deflating.
func zipPredict(dst, raw []byte) {
	half := (len(raw) + 1) / 2
	for i := 0; i < len(raw)/2; i++ {
		dst[i] = raw[2*i]
		dst[half+i] = raw[2*i+1]
	}
	if len(raw)%2 == 1 {
		dst[half-1] = raw[len(raw)-1]
	}
	p := byte(0)
	for i := range dst {
		c := dst[i]
		if i > 0 {
			dst[i] = c - p + 128
		}
		p = c
	}
}

// zipUnpredict undoes zipPredict: it reverses the differences in place in t, then interleaves
// its halves into dst.
func zipUnpredict(dst, t []byte) {
	for i := 1; i < len(t); i++ {
		t[i] = t[i-1] + t[i] - 128
	}
	half := (len(t) + 1) / 2
	for i := 0; i < len(t)/2; i++ {
		dst[2*i] = t[i]
		dst[2*i+1] = t[half+i]
	}
	if len(t)%2 == 1 {
		dst[len(t)-1] = t[half-1]
	}
}

// Close writes the offset table; it fails if not all lines were written. It leaves the
// position of the underlying file at the end of the image, and does not close it.
func (w *Writer) Close() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return nil
	}
	if w.lines != w.h.Height {
		return fmt.Errorf("exr: Close after %d of %d lines", w.lines, w.h.Height)
	}
	table := make([]byte, 0, 8*len(w.offsets))
	for _, o := range w.offsets {
		table = binary.LittleEndian.AppendUint64(table, o)
	}
	err := func() error {
		if _, err := w.w.Seek(w.base+w.tablePos, io.SeekStart); err != nil {
			return err
		}
		if _, err := w.w.Write(table); err != nil {
			return err
		}
		_, err := w.w.Seek(w.base+w.end, io.SeekStart)
		return err
	}()
	if err != nil {
		w.err = fmt.Errorf("exr: writing the offset table: %v", err)
		return w.err
	}
	w.closed = true
	return nil
}
