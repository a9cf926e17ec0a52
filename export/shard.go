package export

// Shards: one export cut into N contiguous shares of its strips, rendered by N processes
// (on N machines of a cluster) into files beside the PNG, and joined by Assemble into the
// PNG a one-machine export writes, byte for byte.
//
// Why that works: every compression block of an export is deflated on its own (its first
// row filtered with Sub, the compressor reset, ending on a sync flush) and written as IDAT
// chunks of its own, so the file is its header, then each strip's chunks in order, then the
// end of the zlib stream (an empty final block and the Adler-32 of all rows, which
// adlerCombine joins from the shards' own), the trailer's text chunk when the density was
// chosen automatically (TrailerText: every shard's trailer says so) and IEND. A shard holds
// exactly its strips' chunks, as the one-machine export would write them, so the assembly
// only copies them.
//
// A shard file (ShardPath) is:
//
//	shardSignature (8 bytes)
//	a "shHD" chunk: shardHeader as JSON (the parameters, the shard's strips, the PNG header)
//	the IDAT chunks of strips [First, End)
//	a "shEN" chunk: shardTrailer as JSON (renderer, reference digest, checksums)
//
// each chunk framed as in PNG (length, type, data, CRC-32). It is written as
// SHARD.part with a checkpoint after every strip, as an export is, and renamed into place
// when complete.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"strings"

	"mandelscope/internal/userfile"
)

// MaxShards bounds the shard count of an export.
const MaxShards = 100000

// shardSignature starts every shard file.
const shardSignature = "\x89MSHD\r\n\x1a"

// shardFormat is the version of the shard file's layout and JSON.
const shardFormat = 1

// maxShardChunk bounds the header and trailer chunks read (a 12,288-digit centre appears in
// the PNG header's text chunks and the description a few times: well under this).
const maxShardChunk = 4 << 20

// ShardPath names the file shard i (0-based) of n of the export to path writes:
// "path.shard-I-of-N".
func ShardPath(path string, i, n int) string {
	return fmt.Sprintf("%s.shard-%d-of-%d", path, i, n)
}

// ParseShard reads "I/N" (0 <= I < N <= MaxShards), the --shard flag's value.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return 0, 0, fmt.Errorf("%q must be I/N (shard I of N, I from 0 to N-1)", clipText(s))
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, fmt.Errorf("%q must be I/N with whole numbers", clipText(s))
	case n < 1 || n > MaxShards:
		return 0, 0, fmt.Errorf("the shard count %d is out of range (1 to %d)", n, MaxShards)
	case i < 0 || i >= n:
		return 0, 0, fmt.Errorf("shard %d of %d is out of range (0 to %d)", i, n, n-1)
	}
	return i, n, nil
}

func clipText(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// shardStrips is the share of strips of shard i of n, for an export of strips strips:
// [first, end), contiguous, the shares' sizes differing by at most one. With more shards
// than strips, some shards have none (they write an empty shard file, which the assembly
// accepts).
func shardStrips(i, n, strips int) (first, end int) {
	return i * strips / n, (i + 1) * strips / n
}

// shardHeader is the JSON of a shard file's "shHD" chunk: everything that must agree between
// the shards of one image, and this shard's place in it. It is known before anything is
// rendered, so that a resume checks it before the reference orbit.
type shardHeader struct {
	Format      int    `json:"format"`
	Shard       int    `json:"shard"`
	Shards      int    `json:"shards"`
	First       int    `json:"first_strip"`
	End         int    `json:"end_strip"`
	Strips      int    `json:"strips"`
	StripRows   int    `json:"strip_rows"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	Params      string `json:"params"` // the one-machine export's parameter hash (Options.params)
	Description string `json:"description"`
	PNGHeader   []byte `json:"png_header"` // what the PNG starts with, up to the zlib header
}

// shardTrailer is the JSON of a shard file's "shEN" chunk, written when the shard is
// complete.
type shardTrailer struct {
	Renderer     string `json:"renderer"`  // the renderer's identity (see Identifier)
	Reference    string `json:"reference"` // the reference orbit's digest ("" without one)
	Adler        uint32 `json:"adler32"`   // Adler-32 of the shard's filtered rows
	Uncompressed int64  `json:"uncompressed"`
	DataEnd      int64  `json:"data_end"` // where the trailer chunk starts
	CRC32        uint32 `json:"crc32"`    // CRC-32 of the file's bytes [0, DataEnd)
	// AutoDensity: the density asked for was automatic (the PNG's trailer says so when
	// every shard's was); absent otherwise, so that the trailer is what it was before it.
	AutoDensity bool `json:"auto_density,omitempty"`
}

// shardHeaderBytes is the start of the shard file: the signature and the "shHD" chunk.
func shardHeaderBytes(h shardHeader) ([]byte, error) {
	h.Format = shardFormat
	data, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.WriteString(shardSignature)
	writeChunk(&buf, "shHD", data)
	return buf.Bytes(), nil
}

// writeChunk writes one PNG-framed chunk to w.
func writeChunk(w io.Writer, typ string, data []byte) error {
	var hdr [8]byte
	binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
	copy(hdr[4:], typ)
	crc := crc32.Update(crc32.Update(0, crc32.IEEETable, hdr[4:]), crc32.IEEETable, data)
	var c [4]byte
	binary.BigEndian.PutUint32(c[:], crc)
	for _, b := range [][]byte{hdr[:], data, c[:]} {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// shardHeader is this export's shard header (it follows the options: an automatic density
// resolved, or taken from a checkpoint, changes it).
func (e *exporter) shardHeader() ([]byte, error) {
	o := e.opt
	hash, desc := o.baseParams(e.plan, true)
	png, err := o.header(e.plan)
	if err != nil {
		return nil, err
	}
	return shardHeaderBytes(shardHeader{
		Shard: o.Shard, Shards: o.Shards, First: e.first, End: e.end, Strips: e.plan.Strips, StripRows: e.plan.StripRows,
		Width: e.plan.W, Height: e.plan.H, Params: hash, Description: desc, PNGHeader: png,
	})
}

// writeShardTrailer ends a complete shard file: the "shEN" chunk.
func (e *exporter) writeShardTrailer() error {
	if err := e.pw.Err(); err != nil {
		return err
	}
	adler, raw := e.pw.Adler()
	t := shardTrailer{Renderer: e.ident, Reference: e.refDigest, Adler: adler, Uncompressed: raw,
		DataEnd: e.pw.Offset(), CRC32: e.out.crc, AutoDensity: e.autoDensity}
	data, err := json.Marshal(t)
	if err != nil {
		return err
	}
	e.pw.chunk("shEN", data)
	return e.pw.Err()
}

// shardReader reads a shard file's chunks, keeping the CRC-32 of everything read and the
// position; every problem is an error naming what is wrong, for the assembly's messages.
type shardReader struct {
	r   *bufio.Reader
	pos int64
	crc uint32
}

// chunk reads the next chunk's header: its type and length (at most limit).
func (s *shardReader) chunkHeader(limit int64) (typ string, n int64, err error) {
	var hdr [8]byte
	if _, err := io.ReadFull(s.r, hdr[:]); err != nil {
		if err == io.EOF {
			return "", 0, fmt.Errorf("it ends at byte %d without its trailer (unfinished or cut short)", s.pos)
		}
		return "", 0, fmt.Errorf("truncated chunk header at byte %d", s.pos)
	}
	n = int64(binary.BigEndian.Uint32(hdr[:4]))
	typ = string(hdr[4:])
	if n > limit {
		return "", 0, fmt.Errorf("a %q chunk at byte %d claims %d bytes (at most %d)", clipText(typ), s.pos, n, limit)
	}
	s.crc = crc32.Update(s.crc, crc32.IEEETable, hdr[:])
	s.pos += 8
	return typ, n, nil
}

// body reads n bytes of chunk typ (whose header chunkHeader read) and its CRC, copying the
// whole chunk (header included, as hdr) to w when w is not nil, and returns the data when
// keep is set.
func (s *shardReader) body(typ string, n int64, w io.Writer, keep bool) ([]byte, error) {
	start := s.pos - 8
	ccrc := crc32.Update(0, crc32.IEEETable, []byte(typ))
	var kept []byte
	if keep {
		kept = make([]byte, 0, n)
	}
	if w != nil {
		var hdr [8]byte
		binary.BigEndian.PutUint32(hdr[:4], uint32(n))
		copy(hdr[4:], typ)
		if _, err := w.Write(hdr[:]); err != nil {
			return nil, writeErr{err}
		}
	}
	var buf [32 << 10]byte
	for left := n; left > 0; {
		m := int(min(left, int64(len(buf))))
		if _, err := io.ReadFull(s.r, buf[:m]); err != nil {
			return nil, fmt.Errorf("truncated %q chunk at byte %d", typ, start)
		}
		ccrc = crc32.Update(ccrc, crc32.IEEETable, buf[:m])
		s.crc = crc32.Update(s.crc, crc32.IEEETable, buf[:m])
		if w != nil {
			if _, err := w.Write(buf[:m]); err != nil {
				return nil, writeErr{err}
			}
		}
		if keep {
			kept = append(kept, buf[:m]...)
		}
		left -= int64(m)
	}
	var c [4]byte
	if _, err := io.ReadFull(s.r, c[:]); err != nil {
		return nil, fmt.Errorf("truncated %q chunk at byte %d", typ, start)
	}
	if binary.BigEndian.Uint32(c[:]) != ccrc {
		return nil, fmt.Errorf("the %q chunk at byte %d has a bad CRC", typ, start)
	}
	if w != nil {
		if _, err := w.Write(c[:]); err != nil {
			return nil, writeErr{err}
		}
	}
	s.crc = crc32.Update(s.crc, crc32.IEEETable, c[:])
	s.pos += n + 4
	return kept, nil
}

// writeErr marks an error of the assembly's output (not of the shard being read).
type writeErr struct{ error }

func (w writeErr) Unwrap() error { return w.error }

// readShardHeader reads a shard file's signature and header chunk.
func readShardHeader(s *shardReader) (shardHeader, error) {
	var h shardHeader
	sig := make([]byte, len(shardSignature))
	if _, err := io.ReadFull(s.r, sig); err != nil || string(sig) != shardSignature {
		return h, errors.New("it is not a Mandelscope shard file (no shard signature)")
	}
	s.crc = crc32.Update(s.crc, crc32.IEEETable, sig)
	s.pos = int64(len(sig))
	typ, n, err := s.chunkHeader(maxShardChunk)
	if err != nil {
		return h, err
	}
	if typ != "shHD" {
		return h, fmt.Errorf("its first chunk is %q, not the shard header", clipText(typ))
	}
	data, err := s.body(typ, n, nil, true)
	if err != nil {
		return h, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil || h.Format != shardFormat {
		return h, errors.New("its header is not one this version understands")
	}
	switch {
	case h.Shards < 1 || h.Shards > MaxShards || h.Shard < 0 || h.Shard >= h.Shards:
		return h, fmt.Errorf("its header says shard %d of %d", h.Shard, h.Shards)
	case checkSize(h.Width, h.Height) != nil:
		return h, fmt.Errorf("its header gives the size %dx%d", h.Width, h.Height)
	case h.StripRows < 1 || h.StripRows > h.Height || h.Strips != (h.Height+h.StripRows-1)/h.StripRows:
		return h, fmt.Errorf("its header gives %d strips of %d rows for %d rows", h.Strips, h.StripRows, h.Height)
	}
	if f, e := shardStrips(h.Shard, h.Shards, h.Strips); f != h.First || e != h.End {
		return h, fmt.Errorf("its header gives strips %d to %d, where shard %d of %d has %d to %d", h.First, h.End, h.Shard, h.Shards, f, e)
	}
	return h, nil
}

// readShardTrailer reads the trailer chunk's data (its header already read) and checks that
// nothing follows it.
func readShardTrailer(s *shardReader, n int64) (shardTrailer, error) {
	var t shardTrailer
	dataEnd := s.pos - 8
	data, err := s.body("shEN", n, nil, true)
	if err != nil {
		return t, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return t, errors.New("its trailer is not one this version understands")
	}
	if t.DataEnd != dataEnd {
		return t, fmt.Errorf("its trailer says its data ends at byte %d, but it ends at %d", t.DataEnd, dataEnd)
	}
	if _, err := s.r.ReadByte(); err != io.EOF {
		return t, fmt.Errorf("it has bytes after its trailer (at byte %d)", s.pos)
	}
	return t, nil
}

// shardFile is a shard file read through: its header and trailer.
type shardFile struct {
	hdr     shardHeader
	trailer shardTrailer
}

// readShard reads and checks the whole shard file at path, copying its IDAT chunks to w
// (nil: only check). Besides every chunk's CRC it checks the CRC-32 of the whole file up
// to the trailer and that its rows are the shard's. The error (one line) says what is wrong,
// without the path; a writeErr is the output's.
func readShard(path string, w io.Writer) (shardFile, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return shardFile{}, err
	}
	defer f.Close()
	return readShardFrom(f, w)
}

// readShardFrom is readShard reading r.
func readShardFrom(r io.Reader, w io.Writer) (shardFile, error) {
	var sf shardFile
	var err error
	s := &shardReader{r: bufio.NewReaderSize(r, 1<<20)}
	if sf.hdr, err = readShardHeader(s); err != nil {
		return sf, err
	}
	for {
		crcBefore := s.crc
		typ, n, err := s.chunkHeader(maxShardChunk)
		if err != nil {
			return sf, err
		}
		switch typ {
		case "IDAT":
			if n > maxIDAT {
				return sf, fmt.Errorf("an image data chunk at byte %d is larger than an export writes", s.pos-8)
			}
			if _, err := s.body(typ, n, w, false); err != nil {
				return sf, err
			}
		case "shEN":
			if sf.trailer, err = readShardTrailer(s, n); err != nil {
				return sf, err
			}
			if sf.trailer.CRC32 != crcBefore {
				return sf, errors.New("its bytes do not match the CRC-32 its trailer records")
			}
			return sf, sf.checkRows()
		default:
			return sf, fmt.Errorf("a %q chunk at byte %d where image data should be", clipText(typ), s.pos-8)
		}
	}
}

// checkRows checks that the trailer's row bytes are the shard's strips' rows.
func (sf shardFile) checkRows() error {
	h := sf.hdr
	rows := int64(shardRows(h.First, h.End, h.StripRows, h.Height))
	if want := rows * int64(3*h.Width+1); sf.trailer.Uncompressed != want {
		return fmt.Errorf("its trailer records %d bytes of rows where its strips hold %d", sf.trailer.Uncompressed, want)
	}
	return nil
}

// shardRows is how many output rows strips [first, end) of stripRows rows (the last one
// perhaps fewer) of an image height rows high hold.
func shardRows(first, end, stripRows, height int) int {
	return min(height, end*stripRows) - min(height, first*stripRows)
}

// checkShardDone checks a finished shard file of the export o describes: complete,
// undamaged, made for these parameters (nil: the shard needs no work); otherwise the error
// says why not.
func checkShardDone(path string, o *Options, p stripPlan) error {
	sf, err := readShard(path, nil)
	if err != nil {
		return err
	}
	oo := *o
	if oo.Location.Color.AutoDensity {
		// The density the shard drew, as a resume takes its checkpoint's (resumeDensity).
		if d, ok := checkpointDensity(sf.hdr.Description); ok {
			oo.Location.Color.Density, oo.Location.Color.AutoDensity = d, false
		}
	}
	hash, desc := oo.baseParams(p, true)
	if sf.hdr.Params != hash {
		if d := paramsDiff(sf.hdr.Description, desc); d != "" {
			return fmt.Errorf("it was made for other parameters: %s", d)
		}
		return errors.New("it was made for other parameters")
	}
	if sf.hdr.Shard != o.Shard || sf.hdr.Shards != o.Shards {
		return fmt.Errorf("it holds shard %d of %d", sf.hdr.Shard, sf.hdr.Shards)
	}
	return nil
}

// checkShardOptions refuses what a shard cannot be: a shard of no PNG, or with a raw file.
func checkShardOptions(path string, o Options) error {
	switch {
	case path == "":
		return errors.New("a shard is a share of a PNG: give its path")
	case o.Raw != "":
		return errors.New("a shard writes no raw file")
	case o.Shards < 1 || o.Shards > MaxShards || o.Shard < 0 || o.Shard >= o.Shards:
		return fmt.Errorf("shard %d of %d is out of range", o.Shard, o.Shards)
	}
	return nil
}

// prepareShard decides, under the shard's lock, what a run of a shard does with what
// earlier runs left at target: a complete shard file of these parameters is kept (done);
// one of other parameters, or damaged, is refused (ErrExists) unless o.Overwrite; a
// checkpoint is continued (o.Resume is set); a .part that saved no checkpoint is started
// over. So the same command can be run again after a pre-emption, a failure or a success
// (o.Resume is ignored: it is implied).
func prepareShard(target string, o *Options, p stripPlan) (done bool, err error) {
	o.Resume = false // a shard resumes by itself, when it has a checkpoint (below)
	if o.Overwrite {
		return false, nil
	}
	if _, err := os.Lstat(target); err == nil {
		if err := checkShardDone(target, o, p); err != nil {
			return false, newError(ErrExists, target, "%s already exists and is not this shard (%v)", target, err)
		}
		return true, nil
	}
	part, ckpt := PartPath(target), CheckpointPath(target)
	if _, err := os.Lstat(ckpt); err == nil {
		o.Resume = true
		return false, nil
	}
	if st, err := os.Lstat(part); err == nil && st.Mode().IsRegular() {
		os.Remove(part) // it saved no progress: nothing in it can be resumed
	}
	return false, nil
}
