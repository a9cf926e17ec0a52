package export

import (
	"bufio"
	"bytes"
	"compress/flate"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"mandelscope/colour"
	"mandelscope/exr"
	"mandelscope/internal/userfile"
)

// checkpoint is the JSON beside the .part, written atomically after each durable strip. A
// resume trusts none of it: Sum covers every field, and the .part's bytes up to Offset are
// re-read and checked against CRC32, the PNG structure, the row count and the Adler-32 (see
// verifyPart).
type checkpoint struct {
	Format       int    `json:"format"`
	Params       string `json:"params"` // hash of everything that determines the bytes
	Description  string `json:"description"`
	Renderer     string `json:"renderer"` // what draws the pixels (renderer, precision mode)
	Strips       int    `json:"strips"`
	NextStrip    int    `json:"next_strip"`
	Offset       int64  `json:"offset"`       // bytes of the .part that are durable
	CRC32        uint32 `json:"crc32"`        // CRC-32 (IEEE) of the .part's bytes [0, Offset)
	Adler        uint32 `json:"adler32"`      // zlib checksum state: Adler-32 of the rows so far
	Uncompressed int64  `json:"uncompressed"` // filtered row bytes so far
	// The raw file's state (Options.Raw), absent without one: its lines written (a whole
	// number of chunks, or all), its bytes that are durable, and their CRC-32 with the
	// offset table read as zeros (rawCRC).
	RawLines  int    `json:"raw_lines,omitempty"`
	RawOffset int64  `json:"raw_offset,omitempty"`
	RawCRC32  uint32 `json:"raw_crc32,omitempty"`
	// RawFile is the raw file as the export was given it (Options.Raw), so that a resume
	// refused for another raw file, or none, can say which one the export wrote.
	RawFile string `json:"raw_file,omitempty"`
	// AutoDensity: the export's density was chosen automatically, which the PNG records
	// after its image data (TrailerText); a resume keeps recording it. Absent otherwise.
	AutoDensity bool   `json:"auto_density,omitempty"`
	Sum         string `json:"sum"` // SHA-256 of the fields above (see sum)
}

const checkpointFormat = 2

// sum is the SHA-256 of every field but Sum, in a fixed text form.
func (c checkpoint) sum() string {
	s := fmt.Sprintf("%d\n%s\n%s\n%s\n%d\n%d\n%d\n%08x\n%08x\n%d\n", c.Format, c.Params, c.Description,
		c.Renderer, c.Strips, c.NextStrip, c.Offset, c.CRC32, c.Adler, c.Uncompressed)
	if c.RawOffset != 0 || c.RawLines != 0 || c.RawCRC32 != 0 {
		s += fmt.Sprintf("raw %d %d %08x\n", c.RawLines, c.RawOffset, c.RawCRC32)
	}
	if c.RawFile != "" {
		s += "raw file " + strconv.Quote(c.RawFile) + "\n"
	}
	if c.AutoDensity {
		s += "auto density\n"
	}
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// maxCheckpoint bounds the checkpoint file read into memory.
const maxCheckpoint = 1 << 16

// readCheckpoint reads and checks a checkpoint's own consistency (format, sum); the caller
// checks it against the export and the .part.
func readCheckpoint(path string) (checkpoint, error) {
	var ck checkpoint
	f, err := userfile.Open(path) // a named pipe there must not hang the resume
	if err != nil {
		return ck, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCheckpoint+1))
	if err != nil {
		return ck, resumeError(ErrDamaged, path, "%v", err)
	}
	if len(data) > maxCheckpoint {
		return ck, resumeError(ErrDamaged, path, "%s is too large to be a checkpoint", path)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ck); err != nil || ck.Format != checkpointFormat {
		return ck, resumeError(ErrDamaged, path, "%s is not a checkpoint this version understands", path)
	}
	if ck.Sum != ck.sum() {
		return ck, resumeError(ErrDamaged, path, "%s has been changed or damaged (its checksum does not match its contents)", path)
	}
	return ck, nil
}

func writeCheckpoint(path string, ck checkpoint) error {
	ck.Format = checkpointFormat
	ck.Sum = ck.sum()
	data, err := json.MarshalIndent(ck, "", "  ")
	if err != nil {
		return err
	}
	// Atomically, as the bookmarks and gradients are written: a crash leaves the old
	// checkpoint or the new one, never part of one.
	return userfile.WriteAtomic(path, append(data, '\n'), 0, true)
}

// verifyPart checks that f (a .part) begins with exactly what the export would write up to
// the checkpoint. First the CRC-32 of its ck.Offset bytes must be ck.CRC32 (any change to the
// file since it was written); then, so that a checkpoint that is consistent but wrong is
// caught too, the bytes must be: the header (signature, IHDR, text chunks and the zlib
// header, byte for byte), then IDAT chunks with good CRCs ending exactly at ck.Offset, whose
// deflate data (ending on a sync flush) holds exactly rows filtered rows of rowLen bytes with
// Adler-32 ck.Adler. It returns a description of the first mismatch, or nil.
func verifyPart(f io.ReadSeeker, ck checkpoint, header []byte, rows int, rowLen int64) error {
	crc := crc32.NewIEEE()
	n, err := io.Copy(crc, io.LimitReader(f, ck.Offset))
	if err != nil {
		return err
	}
	if n != ck.Offset {
		return fmt.Errorf("it is shorter (%d bytes) than its checkpoint says (%d)", n, ck.Offset)
	}
	if crc.Sum32() != ck.CRC32 {
		return errors.New("its bytes do not match the checkpoint's CRC-32 (it was changed after it was written)")
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return verifyStream(bufio.NewReaderSize(io.LimitReader(f, ck.Offset), 1<<16), ck, header, rows, rowLen)
}

func verifyStream(br *bufio.Reader, ck checkpoint, header []byte, rows int, rowLen int64) error {
	if ck.Offset < int64(len(header)) {
		return fmt.Errorf("the checkpoint's offset %d is inside the file's header (%d bytes)", ck.Offset, len(header))
	}
	got := make([]byte, len(header))
	if _, err := io.ReadFull(br, got); err != nil {
		return fmt.Errorf("header: %v", err)
	}
	if !bytes.Equal(got, header) {
		return errors.New("its header (size, view and text chunks) is not this export's")
	}
	ir := &idatReader{r: br, left: 0, pos: int64(len(header)), end: ck.Offset}
	fr := flate.NewReader(ir)
	row := make([]byte, rowLen)
	adler := adler32.New()
	for y := 0; y < rows; y++ {
		if _, err := io.ReadFull(fr, row); err != nil {
			if ir.err != nil {
				return ir.err
			}
			return fmt.Errorf("it holds %d rows where the checkpoint says %d", y, rows)
		}
		if row[0] > 4 {
			return fmt.Errorf("row %d has filter type %d", y, row[0])
		}
		adler.Write(row)
	}
	var one [1]byte
	n, err := fr.Read(one[:])
	if ir.err != nil {
		return ir.err
	}
	if n > 0 || err == nil {
		return fmt.Errorf("it holds more than the %d rows the checkpoint says", rows)
	}
	if err != io.ErrUnexpectedEOF {
		return fmt.Errorf("its image data does not end where a strip ends (%v)", err)
	}
	if ir.pos != ir.end || ir.left != 0 {
		return errors.New("its image data does not end at the checkpoint's offset")
	}
	if int64(rows)*rowLen != ck.Uncompressed || adler.Sum32() != ck.Adler {
		return errors.New("its image data does not match the checkpoint's checksum state")
	}
	return nil
}

// idatReader serves the data of consecutive IDAT chunks from pos up to end, checking each
// chunk's CRC; a structural problem is kept in err (and ends the stream).
type idatReader struct {
	r        *bufio.Reader
	left     int64 // data bytes left in the current chunk
	pos, end int64 // position in the file, and where the durable bytes end
	crc      uint32
	err      error
}

func (v *idatReader) fail(format string, a ...any) (int, error) {
	v.err = fmt.Errorf(format, a...)
	return 0, v.err
}

func (v *idatReader) Read(p []byte) (int, error) {
	if v.err != nil {
		return 0, v.err
	}
	for v.left == 0 {
		if v.pos == v.end {
			return 0, io.EOF
		}
		var hdr [8]byte
		if v.end-v.pos < 12 {
			return v.fail("a chunk is cut at the checkpoint's offset")
		}
		if _, err := io.ReadFull(v.r, hdr[:]); err != nil {
			return v.fail("truncated chunk header at byte %d", v.pos)
		}
		n := int64(binary.BigEndian.Uint32(hdr[:4]))
		if string(hdr[4:]) != "IDAT" {
			return v.fail("a %q chunk at byte %d where image data should be", hdr[4:], v.pos)
		}
		if n > maxIDAT || v.pos+12+n > v.end {
			return v.fail("an image data chunk at byte %d runs past the checkpoint's offset", v.pos)
		}
		v.pos += 8
		v.left = n
		v.crc = crc32.Update(0, crc32.IEEETable, hdr[4:])
		if n == 0 {
			if err := v.endChunk(); err != nil {
				return 0, err
			}
		}
	}
	if int64(len(p)) > v.left {
		p = p[:v.left]
	}
	n, err := io.ReadFull(v.r, p)
	v.crc = crc32.Update(v.crc, crc32.IEEETable, p[:n])
	v.left -= int64(n)
	v.pos += int64(n)
	if err != nil {
		return v.fail("truncated image data at byte %d", v.pos)
	}
	if v.left == 0 {
		if err := v.endChunk(); err != nil {
			return n, err
		}
	}
	return n, nil
}

func (v *idatReader) endChunk() error {
	var c [4]byte
	if _, err := io.ReadFull(v.r, c[:]); err != nil {
		v.err = fmt.Errorf("truncated chunk CRC at byte %d", v.pos)
		return v.err
	}
	if binary.BigEndian.Uint32(c[:]) != v.crc {
		v.err = fmt.Errorf("the image data chunk ending at byte %d has a bad CRC", v.pos+4)
		return v.err
	}
	v.pos += 4
	return nil
}

// checkResume verifies the checkpoint and the .part files it describes against this export,
// before anything costly (the reference orbit, any rendering) is done: the parameters, every
// checkpoint field, the .parts' checksums and structure. It returns the .parts (the PNG's,
// the raw file's: those the export has), open and verified, and the checkpoint, for
// continueResume. Every refusal leaves the files as they were.
func (e *exporter) checkResume() (*os.File, *os.File, checkpoint, error) {
	ck, err := readCheckpoint(e.ckpt)
	if err != nil {
		var ee *Error
		if errors.As(err, &ee) {
			return nil, nil, ck, err
		}
		return nil, nil, ck, resumeError(ErrDamaged, e.ckpt, "%v", err)
	}
	p := e.plan
	switch {
	case ck.Params != e.hash:
		// Named, with old and new values abbreviated: never the whole description, which
		// with a long centre is tens of kilobytes.
		if err := e.rawDiffers(ck); err != nil {
			return nil, nil, ck, err
		}
		if diff := paramsDiff(ck.Description, e.desc); diff != "" {
			return nil, nil, ck, resumeError(ErrParamsDiffer, e.ckpt, "%s was made for different parameters: %s", e.ckpt, diff)
		}
		return nil, nil, ck, resumeError(ErrParamsDiffer, e.ckpt, "%s was made for different parameters (its description of them does not say which)", e.ckpt)
	case ck.Strips != p.Strips || ck.NextStrip < e.first || ck.NextStrip > e.end:
		return nil, nil, ck, resumeError(ErrDamaged, e.ckpt, "%s says strip %d of %d is next, but this export has strips %d to %d of %d", e.ckpt, ck.NextStrip, ck.Strips, e.first, e.end, p.Strips)
	}
	rows := shardRows(e.first, ck.NextStrip, p.StripRows, p.H)
	var f, rf *os.File
	if e.png {
		if f, err = e.checkPNGPart(ck, rows); err != nil {
			return nil, nil, ck, err
		}
	} else if ck.Offset != 0 || ck.Uncompressed != 0 {
		return nil, nil, ck, resumeError(ErrDamaged, e.ckpt, "%s describes a PNG, and this export writes none", e.ckpt)
	}
	if e.rawPart != "" {
		if rf, err = e.checkRawPart(ck, rows); err != nil {
			if f != nil {
				f.Close()
			}
			return nil, nil, ck, err
		}
	}
	return f, rf, ck, nil
}

// checkPart checks that part is there, a plain file of its own at least size bytes long, and
// opens it for reading and writing.
func checkPart(part string, size int64) (*os.File, error) {
	st, err := os.Lstat(part)
	if err != nil {
		return nil, resumeError(ErrDamaged, part, "%s is missing (%v)", part, err)
	}
	if !st.Mode().IsRegular() {
		return nil, resumeError(ErrDamaged, part, "%s is not a plain file", part)
	}
	if linkCount(st) > 1 {
		return nil, resumeError(ErrDamaged, part, "%s shares its data with another file (a hard link): resuming would change that file too", part)
	}
	if st.Size() < size {
		return nil, resumeError(ErrDamaged, part, "%s is shorter (%d bytes) than its checkpoint says (%d)", part, st.Size(), size)
	}
	f, err := os.OpenFile(part, os.O_RDWR, 0)
	if err != nil {
		return nil, resumeError(ErrDamaged, part, "%v", err)
	}
	return f, nil
}

// checkPNGPart verifies the PNG's .part against ck, rows output rows being done.
func (e *exporter) checkPNGPart(ck checkpoint, rows int) (*os.File, error) {
	p := e.plan
	rowLen := int64(3*p.W + 1)
	if ck.Uncompressed != int64(rows)*rowLen {
		return nil, resumeError(ErrDamaged, e.ckpt, "%s says %d bytes of rows are written, but %d strips hold %d", e.ckpt, ck.Uncompressed, ck.NextStrip-e.first, int64(rows)*rowLen)
	}
	header, err := e.opt.header(p)
	if e.opt.Shards > 0 {
		header, err = e.shardHeader()
	}
	if err != nil {
		return nil, err
	}
	f, err := checkPart(e.part, ck.Offset)
	if err != nil {
		return nil, err
	}
	if err := verifyPart(f, ck, header, rows, rowLen); err != nil {
		f.Close()
		return nil, resumeError(ErrDamaged, e.part, "%s does not match its checkpoint: %v", e.part, err)
	}
	return f, nil
}

// checkRawPart verifies the raw file's .part against ck, rows output rows being done: the
// lines written are those rows' samples but for fewer than a chunk's (recomputed on resume),
// and the CRC-32 of its durable bytes is the checkpoint's. exr.ResumeWriter checks its
// structure later (continueResume).
func (e *exporter) checkRawPart(ck checkpoint, rows int) (*os.File, error) {
	lines := rows * e.plan.N
	ts, te, err := exr.Layout(e.rawHdr)
	if err != nil {
		return nil, err
	}
	switch {
	case ck.RawLines < 0 || ck.RawLines > lines || lines-ck.RawLines >= exr.LinesPerChunk ||
		ck.RawLines%exr.LinesPerChunk != 0 && ck.RawLines != e.rawHdr.Height:
		return nil, resumeError(ErrDamaged, e.ckpt, "%s says %d lines of the raw file are written, which %d strips cannot give", e.ckpt, ck.RawLines, ck.NextStrip)
	case ck.NextStrip == e.plan.Strips && ck.RawLines != e.rawHdr.Height:
		return nil, resumeError(ErrDamaged, e.ckpt, "%s says every strip is done but %d of the raw file's %d lines are written", e.ckpt, ck.RawLines, e.rawHdr.Height)
	case ck.RawOffset < te:
		return nil, resumeError(ErrDamaged, e.ckpt, "%s says the raw file ends at byte %d, inside its header", e.ckpt, ck.RawOffset)
	}
	f, err := checkPart(e.rawPart, ck.RawOffset)
	if err != nil {
		if _, statErr := os.Lstat(e.rawPart); errors.Is(statErr, fs.ErrNotExist) && ck.RawFile != "" && filepath.Clean(ck.RawFile) != filepath.Clean(e.opt.Raw) {
			// Another name for the raw file: say which one the export wrote.
			x := resumeError(ErrParamsDiffer, e.ckpt, "%s was made by an export that wrote the raw file %s, not %s", e.ckpt, ck.RawFile, e.opt.Raw)
			x.RawDiffers, x.Was, x.Now = true, ck.RawFile, e.opt.Raw
			return nil, x
		}
		return nil, err
	}
	crc, err := rawCRC(f, ck.RawOffset, ts, te)
	if err == nil && crc != ck.RawCRC32 {
		err = errors.New("its bytes do not match the checkpoint's CRC-32 (it was changed after it was written)")
	}
	if err != nil {
		f.Close()
		return nil, resumeError(ErrDamaged, e.rawPart, "%s does not match its checkpoint: %v", e.rawPart, err)
	}
	return f, nil
}

// continueResume checks the renderer's identity against the checkpoint (it may depend on the
// frame's reference orbit, so it comes after it) and continues f and rf, the .parts
// checkResume verified (nil where the export has none), after the last durable strip: the
// raw file's lines of that strip that were held back (less than a chunk) are computed again.
// It takes the files: a refusal closes them and leaves them as they were.
func (e *exporter) continueResume(ctx context.Context, f, rf *os.File, ck checkpoint) error {
	closeAll := func() {
		for _, x := range []*os.File{f, rf} {
			if x != nil {
				x.Close()
			}
		}
	}
	if ck.Renderer != e.ident {
		closeAll()
		x := resumeError(ErrRendererDiffers, e.ckpt, "%s was drawn by %s, and this export would draw with %s: the file would mix two renderers' pixels", e.mainPart(), ck.Renderer, e.ident)
		x.Was, x.Now = ck.Renderer, e.ident
		return x
	}
	if rf != nil {
		if err := e.resumeRaw(ctx, rf, ck); err != nil {
			closeAll()
			return err
		}
	}
	if f != nil {
		// Bytes past the checkpoint are a strip that was being written when the export stopped.
		err := f.Truncate(ck.Offset)
		if err == nil {
			_, err = f.Seek(ck.Offset, io.SeekStart)
		}
		if err != nil {
			closeAll()
			return fmt.Errorf("cannot resume: %v", err)
		}
		e.out = &crcSink{sink: e.wrap(f), crc: ck.CRC32}
		e.pw = resumePNGWriter(e.out, ck.Offset, ck.Adler, ck.Uncompressed)
	}
	e.start = ck.NextStrip
	e.resumed = true
	e.lastCk = ck
	return nil
}

// resumeRaw continues the raw .part rf after ck.RawLines lines, and computes again the lines
// of the strips done that it holds back.
func (e *exporter) resumeRaw(ctx context.Context, rf *os.File, ck checkpoint) error {
	file := &rawFile{File: rf, crc: ck.RawCRC32, n: ck.RawOffset}
	w, err := exr.ResumeWriter(file, e.rawHdr, ck.RawLines, ck.RawOffset)
	if err != nil {
		return resumeError(ErrDamaged, e.rawPart, "%s: %v", e.rawPart, err)
	}
	s, err := newRawSink(file, w, e.rawHdr, e.plan.StripRows*e.plan.N)
	if err != nil {
		return err
	}
	lines := min(e.plan.H, ck.NextStrip*e.plan.StripRows) * e.plan.N
	if lines > ck.RawLines {
		r := image.Rect(0, ck.RawLines, e.rawHdr.Width, lines)
		d := colour.NewData(r)
		for x := 0; x < r.Max.X; x += e.plan.Tile {
			t := image.Rect(x, r.Min.Y, min(x+e.plan.Tile, r.Max.X), r.Max.Y)
			if err := e.comp.Compute(ctx, e.frame, t, d.SubData(t)); err != nil {
				return err
			}
		}
		s.add(d)
	}
	e.raw = s
	return nil
}

// rawDiffers is the refusal of a resume whose parameters differ from ck's in the raw file
// alone (the interrupted export wrote one and this one writes none, or the other way round),
// saying which raw file the interrupted export wrote; nil when other parameters differ too.
func (e *exporter) rawDiffers(ck checkpoint) *Error {
	old, _ := parseParams(ck.Description)
	cur, _ := parseParams(e.desc)
	_, wasRaw := old["raw"]
	_, nowRaw := cur["raw"]
	if wasRaw == nowRaw {
		return nil
	}
	for k, v := range cur {
		if w, ok := old[k]; k != "raw" && (!ok || w != v) {
			return nil
		}
	}
	for k := range old {
		if _, ok := cur[k]; k != "raw" && !ok {
			return nil
		}
	}
	var x *Error
	if wasRaw {
		name := ck.RawFile
		if name == "" {
			name = "(its name is not recorded)"
		}
		x = resumeError(ErrParamsDiffer, e.ckpt, "%s was made by an export that also wrote the raw file %s, and this one writes none", e.ckpt, name)
	} else {
		x = resumeError(ErrParamsDiffer, e.ckpt, "%s was made by an export that wrote no raw file, and this one writes %s", e.ckpt, e.opt.Raw)
	}
	x.RawDiffers, x.Was, x.Now = true, ck.RawFile, e.opt.Raw
	return x
}
