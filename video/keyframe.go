package video

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"

	"mandelscope/colour"
)

// A keyframe file holds one keyframe's samples: the header
//
//	magic "MSKEY\x00\x01\n" (8 bytes), width, height (uint32), CRC-32C of the samples (uint32),
//	4 zero bytes
//
// then the samples deflated, as three planes: every Nu (float64 bits), then every DEX, then
// every DEY (float32 bits), each little-endian, row by row. The checksum covers the inflated
// planes, so a file cut short or damaged is found and computed again, never composed.
var keyMagic = [8]byte{'M', 'S', 'K', 'E', 'Y', 0, 1, '\n'}

const keyHeaderSize = 24

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// keyName is keyframe j's file name in the work folder.
func keyName(j int) string { return fmt.Sprintf("key-%04d.msk", j) }

// writeKeyframe writes d to path atomically: a temporary file beside it, synced, renamed
// over path, and the folder synced; a failure (a full disk) leaves no file at path.
func writeKeyframe(path string, d *colour.Data) (err error) {
	w, h := d.Rect.Dx(), d.Rect.Dy()
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(make([]byte, keyHeaderSize)); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	zw, _ := flate.NewWriter(bw, flate.BestSpeed)
	crc := crc32.New(castagnoli)
	out := io.MultiWriter(zw, crc)
	buf := make([]byte, 0, 8*w)
	for plane := range 3 {
		for y := range h {
			buf = buf[:0]
			for _, s := range d.Row(d.Rect.Min.Y + y) {
				switch plane {
				case 0:
					buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(s.Nu))
				case 1:
					buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(s.DEX))
				default:
					buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(s.DEY))
				}
			}
			if _, err = out.Write(buf); err != nil {
				return err
			}
		}
	}
	if err = zw.Close(); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	var hdr [keyHeaderSize]byte
	copy(hdr[:], keyMagic[:])
	binary.LittleEndian.PutUint32(hdr[8:], uint32(w))
	binary.LittleEndian.PutUint32(hdr[12:], uint32(h))
	binary.LittleEndian.PutUint32(hdr[16:], crc.Sum32())
	if _, err = f.WriteAt(hdr[:], 0); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// syncDir flushes a folder's entries (a rename) to disk, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// errDamaged marks a keyframe file that does not read back as a keyframe of the size asked.
var errDamaged = errors.New("damaged keyframe")

// readKeyframe reads the keyframe at path into d (reused when it has the size w x h, else
// allocated) and returns it; a file of another size, cut short or whose checksum differs
// fails with an error wrapping errDamaged.
func readKeyframe(path string, w, h int, d *colour.Data) (*colour.Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return d, err
	}
	defer f.Close()
	var hdr [keyHeaderSize]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return d, fmt.Errorf("%s: %w: header cut short", filepath.Base(path), errDamaged)
	}
	if !bytes.Equal(hdr[:8], keyMagic[:]) {
		return d, fmt.Errorf("%s: %w: not a keyframe file", filepath.Base(path), errDamaged)
	}
	fw, fh := int(binary.LittleEndian.Uint32(hdr[8:])), int(binary.LittleEndian.Uint32(hdr[12:]))
	if fw != w || fh != h {
		return d, fmt.Errorf("%s: %w: %dx%d samples, not %dx%d", filepath.Base(path), errDamaged, fw, fh, w, h)
	}
	want := binary.LittleEndian.Uint32(hdr[16:])
	if d == nil || d.Rect != image.Rect(0, 0, w, h) || d.Stride != w {
		d = colour.NewData(image.Rect(0, 0, w, h))
	}
	zr := flate.NewReader(bufio.NewReaderSize(f, 1<<16))
	defer zr.Close()
	crc := crc32.New(castagnoli)
	in := io.TeeReader(zr, crc)
	buf := make([]byte, 8*w)
	for plane := range 3 {
		n := 4 * w
		if plane == 0 {
			n = 8 * w
		}
		for y := range h {
			if _, err := io.ReadFull(in, buf[:n]); err != nil {
				return d, fmt.Errorf("%s: %w: samples cut short", filepath.Base(path), errDamaged)
			}
			row := d.Row(y)
			for x := range row {
				switch plane {
				case 0:
					row[x].Nu = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*x:]))
				case 1:
					row[x].DEX = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*x:]))
				default:
					row[x].DEY = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*x:]))
				}
			}
		}
	}
	if n, err := in.Read(buf[:1]); n != 0 || err != io.EOF {
		return d, fmt.Errorf("%s: %w: samples do not end where they should", filepath.Base(path), errDamaged)
	}
	if crc.Sum32() != want {
		return d, fmt.Errorf("%s: %w: checksum differs", filepath.Base(path), errDamaged)
	}
	return d, nil
}
