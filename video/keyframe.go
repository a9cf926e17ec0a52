package video

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"

	"mandelscope/colour"
	"mandelscope/internal/userfile"
)

// A keyframe file holds one keyframe's samples: the header
//
//	magic "MSKEY\x00\x03\n" (8 bytes), width, height (uint32), CRC-32C of the samples (uint32),
//	the keyframe's index in its video (uint32), the SHA-256 of its video's manifest (32 bytes:
//	everything that decides the samples, see manifest.digest)
//
// then the samples deflated, row by row from the top, each row as three runs: its Nu (float64
// bits), then its DEX, then its DEY (float32 bits), each little-endian. Rows, not whole planes,
// so that a keyframe is written as its strips are computed and read back strip by strip: neither
// needs the whole keyframe in memory. The checksum covers the inflated rows, so a file cut short
// or damaged is found and computed again, never composed; so is a sound keyframe of another
// video, or another keyframe of this one, copied or moved to its name (the index and digest
// differ).
var keyMagic = [8]byte{'M', 'S', 'K', 'E', 'Y', 0, 3, '\n'}

const keyHeaderSize = 56

// keyID is what a keyframe file records of where it belongs: the digest of its video's
// manifest and its index among the video's keyframes.
type keyID struct {
	video [32]byte
	index int
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// keyName is keyframe j's file name in the work folder.
func keyName(j int) string { return fmt.Sprintf("key-%04d.msk", j) }

// keyRowBytes is the size of one row of w samples in a keyframe file, inflated.
func keyRowBytes(w int) int { return 16 * w }

// keyWriter writes a keyframe file strip by strip: createKeyframe, WriteRows for every row in
// order, then Close, which puts the file in place atomically (or Abort, which leaves nothing).
type keyWriter struct {
	path, tmp string
	f         *os.File
	bw        *bufio.Writer
	zw        *flate.Writer
	crc       hash.Hash32
	w, h, y   int
	id        keyID
	buf       []byte
}

// createKeyframe starts the keyframe file of w x h samples at path, in a temporary file
// beside it (created new: what an earlier run left there, a link too, is removed, never
// written through; the rename into place replaces a link at path, not what it points to).
func createKeyframe(path string, id keyID, w, h int) (*keyWriter, error) {
	k := &keyWriter{path: path, tmp: path + ".tmp", w: w, h: h, id: id, crc: crc32.New(castagnoli),
		buf: make([]byte, 0, keyRowBytes(w))}
	f, err := userfile.CreateFresh(k.tmp, userfile.DefaultPerm)
	if err != nil {
		return nil, err
	}
	k.f = f
	if _, err := f.Write(make([]byte, keyHeaderSize)); err != nil {
		k.Abort()
		return nil, err
	}
	k.bw = bufio.NewWriterSize(f, 1<<16)
	k.zw, _ = flate.NewWriter(k.bw, flate.BestSpeed)
	return k, nil
}

// WriteRows appends the rows of d (w samples wide: the keyframe's next rows).
func (k *keyWriter) WriteRows(d *colour.Data) error {
	if d.Rect.Dx() != k.w || k.y+d.Rect.Dy() > k.h {
		return fmt.Errorf("keyframe: %dx%d samples after %d rows of %dx%d", d.Rect.Dx(), d.Rect.Dy(), k.y, k.w, k.h)
	}
	for y := d.Rect.Min.Y; y < d.Rect.Max.Y; y++ {
		row := d.Row(y)
		b := k.buf[:0]
		for _, s := range row {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s.Nu))
		}
		for _, s := range row {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s.DEX))
		}
		for _, s := range row {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s.DEY))
		}
		k.crc.Write(b)
		if _, err := k.zw.Write(b); err != nil {
			return err
		}
		k.y++
	}
	return nil
}

// Close finishes the file and renames it into place, syncing it and its folder; a failure
// (a full disk) leaves no file at the path.
func (k *keyWriter) Close() (err error) {
	defer func() {
		if err != nil {
			k.Abort()
		}
	}()
	if k.y != k.h {
		return fmt.Errorf("keyframe: %d rows of %d written", k.y, k.h)
	}
	if err = k.zw.Close(); err != nil {
		return err
	}
	if err = k.bw.Flush(); err != nil {
		return err
	}
	var hdr [keyHeaderSize]byte
	copy(hdr[:], keyMagic[:])
	binary.LittleEndian.PutUint32(hdr[8:], uint32(k.w))
	binary.LittleEndian.PutUint32(hdr[12:], uint32(k.h))
	binary.LittleEndian.PutUint32(hdr[16:], k.crc.Sum32())
	binary.LittleEndian.PutUint32(hdr[20:], uint32(k.id.index))
	copy(hdr[24:], k.id.video[:])
	if _, err = k.f.WriteAt(hdr[:], 0); err != nil {
		return err
	}
	if err = k.f.Sync(); err != nil {
		return err
	}
	if err = k.f.Close(); err != nil {
		return err
	}
	k.f = nil
	if err = os.Rename(k.tmp, k.path); err != nil {
		return err
	}
	userfile.SyncDir(filepath.Dir(k.path))
	return nil
}

// Abort removes the unfinished file.
func (k *keyWriter) Abort() {
	if k.f != nil {
		k.f.Close()
		k.f = nil
	}
	os.Remove(k.tmp)
}

// writeKeyframe writes d (from its top-left sample) as the keyframe file at path, atomically.
func writeKeyframe(path string, id keyID, d *colour.Data) error {
	k, err := createKeyframe(path, id, d.Rect.Dx(), d.Rect.Dy())
	if err != nil {
		return err
	}
	if err := k.WriteRows(d); err != nil {
		k.Abort()
		return err
	}
	return k.Close()
}

// errDamaged marks a keyframe file that does not read back as a keyframe of the size asked;
// errForeign one that is sound but another keyframe's (of another video, or another index).
var (
	errDamaged = errors.New("damaged keyframe")
	errForeign = errors.New("keyframe of another video")
)

// keyReader reads a keyframe file strip by strip: openKeyframe, ReadRows for every row in
// order, then Close, which checks that the samples end where they should and that their
// checksum holds. Rows read before Close are not yet known to be sound.
type keyReader struct {
	name string
	f    *os.File
	zr   io.ReadCloser
	in   io.Reader
	crc  hash.Hash32
	want uint32
	w, h int
	y    int
	buf  []byte
}

// openKeyframe opens the keyframe at path, which must hold w x h samples and be keyframe id;
// a file of another size, or that is no keyframe file, fails with an error wrapping
// errDamaged, one of another video or index with one wrapping errForeign.
func openKeyframe(path string, id keyID, w, h int) (*keyReader, error) {
	name := filepath.Base(path)
	f, err := userfile.Open(path)
	if err != nil {
		return nil, err
	}
	var hdr [keyHeaderSize]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w: header cut short", name, errDamaged)
	}
	if !bytes.Equal(hdr[:8], keyMagic[:]) {
		f.Close()
		return nil, fmt.Errorf("%s: %w: not a keyframe file of this version", name, errDamaged)
	}
	fw, fh := int(binary.LittleEndian.Uint32(hdr[8:])), int(binary.LittleEndian.Uint32(hdr[12:]))
	if fw != w || fh != h {
		f.Close()
		return nil, fmt.Errorf("%s: %w: %dx%d samples, not %dx%d", name, errDamaged, fw, fh, w, h)
	}
	if !bytes.Equal(hdr[24:], id.video[:]) {
		f.Close()
		return nil, fmt.Errorf("%s: %w (its parameters' digest differs)", name, errForeign)
	}
	if fi := binary.LittleEndian.Uint32(hdr[20:]); int64(fi) != int64(id.index) {
		f.Close()
		return nil, fmt.Errorf("%s: %w: it is keyframe %d of this video, not %d", name, errForeign, fi, id.index)
	}
	r := &keyReader{name: name, f: f, w: w, h: h, want: binary.LittleEndian.Uint32(hdr[16:]),
		crc: crc32.New(castagnoli), buf: make([]byte, keyRowBytes(w))}
	r.zr = flate.NewReader(bufio.NewReaderSize(f, 1<<16))
	r.in = io.TeeReader(r.zr, r.crc)
	return r, nil
}

// ReadRows fills d (w samples wide) with the keyframe's next d.Rect.Dy() rows.
func (r *keyReader) ReadRows(d *colour.Data) error {
	if d.Rect.Dx() != r.w || r.y+d.Rect.Dy() > r.h {
		return fmt.Errorf("%s: %dx%d samples asked after %d rows of %dx%d", r.name, d.Rect.Dx(), d.Rect.Dy(), r.y, r.w, r.h)
	}
	w := r.w
	for y := d.Rect.Min.Y; y < d.Rect.Max.Y; y++ {
		if _, err := io.ReadFull(r.in, r.buf); err != nil {
			return fmt.Errorf("%s: %w: samples cut short", r.name, errDamaged)
		}
		row := d.Row(y)
		nu, dex, dey := r.buf[:8*w], r.buf[8*w:12*w], r.buf[12*w:]
		for x := range row {
			row[x] = colour.Sample{
				Nu:  math.Float64frombits(binary.LittleEndian.Uint64(nu[8*x:])),
				DEX: math.Float32frombits(binary.LittleEndian.Uint32(dex[4*x:])),
				DEY: math.Float32frombits(binary.LittleEndian.Uint32(dey[4*x:])),
			}
		}
		r.y++
	}
	return nil
}

// Close checks the end of the samples and their checksum (when every row was read) and
// closes the file.
func (r *keyReader) Close() error {
	defer r.f.Close()
	defer r.zr.Close()
	if r.y != r.h {
		return nil
	}
	if n, err := r.in.Read(r.buf[:1]); n != 0 || err != io.EOF {
		return fmt.Errorf("%s: %w: samples do not end where they should", r.name, errDamaged)
	}
	if r.crc.Sum32() != r.want {
		return fmt.Errorf("%s: %w: checksum differs", r.name, errDamaged)
	}
	return nil
}

// keyStripRows is how many rows of a keyframe w samples wide are read or computed at a
// time: about 4 MiB of samples, whatever the width.
func keyStripRows(w int) int { return max(1, (4<<20)/(16*w)) }

// readKeyframe reads the keyframe at path (w x h samples) into d (reused when it has that
// size, else allocated) and returns it; a file of another size, cut short or whose checksum
// differs fails with an error wrapping errDamaged.
func readKeyframe(path string, id keyID, w, h int, d *colour.Data) (*colour.Data, error) {
	r, err := openKeyframe(path, id, w, h)
	if err != nil {
		return d, err
	}
	if d == nil || d.Rect != image.Rect(0, 0, w, h) || d.Stride != w {
		d = colour.NewData(image.Rect(0, 0, w, h))
	}
	if err := r.ReadRows(d); err != nil {
		r.Close()
		return d, err
	}
	return d, r.Close()
}

// checkKeyframe reads the whole keyframe at path (w x h samples) strip by strip, checking it,
// holding one strip.
func checkKeyframe(path string, id keyID, w, h int) error {
	return eachKeyStrip(path, id, w, h, nil)
}

// eachKeyStrip reads the keyframe at path strip by strip, handing each strip to f (nil: only
// check), and then checks the checksum.
func eachKeyStrip(path string, id keyID, w, h int, f func(strip *colour.Data) error) error {
	r, err := openKeyframe(path, id, w, h)
	if err != nil {
		return err
	}
	n := keyStripRows(w)
	buf := colour.NewData(image.Rect(0, 0, w, min(n, h)))
	for y := 0; y < h; y += n {
		s := buf.SubData(image.Rect(0, 0, w, min(n, h-y)))
		if err := r.ReadRows(s); err != nil {
			r.Close()
			return err
		}
		if f != nil {
			if err := f(s); err != nil {
				r.Close()
				return err
			}
		}
	}
	return r.Close()
}
