package video

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"unsafe"

	"mandelscope/colour"
	"mandelscope/internal/userfile"
)

// unpacked is a keyframe in use by the frames being composed, inflated from its file into a
// scratch file of raw samples beside it (key-NNNN.raw in the work folder), from which each
// strip of a frame reads the band of rows it needs: the process holds bands, never a whole
// keyframe, so its memory does not grow with the frame size (the system's file cache keeps
// the scratch file's pages, and gives them back when it needs them).
type unpacked struct {
	level float64
	w, h  int
	path  string
	f     *os.File
	// eq is the keyframe's own equalisation (its escape counts), for the histogram
	// colouring; nil for the others.
	eq *colour.Equalisation
}

// rawName is keyframe j's scratch file name in the work folder.
func rawName(j int) string { return fmt.Sprintf("key-%04d.raw", j) }

// sampleBytes is p's memory as bytes. The scratch file holds samples in this process's own
// layout: it is read back only by the process that wrote it, and removed after.
func sampleBytes(p []colour.Sample) []byte {
	if len(p) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(p))), len(p)*int(unsafe.Sizeof(p[0])))
}

// unpack inflates keyframe id.index (w x h samples, at level) of the work folder into its
// scratch file, checking its checksum and id; a damaged keyframe fails with an error wrapping
// errDamaged, another's with one wrapping errForeign. With count, it counts the keyframe's
// escape counts as it goes (colour.Histogram), for the histogram colouring: each keyframe is
// equalised over its own samples, which change little from one keyframe to the next, so the
// colours do not flicker from frame to frame.
func unpack(work string, id keyID, level float64, w, h int, count bool) (*unpacked, error) {
	j := id.index
	u := &unpacked{level: level, w: w, h: h, path: filepath.Join(work, rawName(j))}
	// A new file, whatever was left at the name (a link is removed, never written through).
	f, err := userfile.CreateFresh(u.path, 0o600)
	if err != nil {
		return nil, err
	}
	u.f = f
	var off int64
	var hist colour.Histogram
	err = eachKeyStrip(filepath.Join(work, keyName(j)), id, w, h, func(s *colour.Data) error {
		if count {
			hist.Add(s)
		}
		b := sampleBytes(s.Pix[:s.Rect.Dy()*s.Stride])
		if _, err := f.WriteAt(b, off); err != nil {
			return err
		}
		off += int64(len(b))
		return nil
	})
	if err != nil {
		u.close()
		return nil, fmt.Errorf("keyframe %d: %w", j, err)
	}
	if count {
		u.eq = hist.Equalisation()
	}
	return u, nil
}

// band reads rows [r0, r1) into d (reused when its samples have room, else allocated) and
// returns them as a Keyframe whose Data is that band.
func (u *unpacked) band(r0, r1 int, d *colour.Data) (*Keyframe, *colour.Data, error) {
	n := (r1 - r0) * u.w
	if d == nil || cap(d.Pix) < n {
		d = &colour.Data{Pix: make([]colour.Sample, n)}
	}
	d.Pix, d.Stride, d.Rect = d.Pix[:n], u.w, image.Rect(0, r0, u.w, r1)
	size := int64(unsafe.Sizeof(colour.Sample{}))
	if _, err := u.f.ReadAt(sampleBytes(d.Pix), int64(r0)*int64(u.w)*size); err != nil {
		return nil, d, fmt.Errorf("reading %s: %v", filepath.Base(u.path), err)
	}
	return &Keyframe{Level: u.level, W: u.w, H: u.h, Data: d, Equal: u.eq}, d, nil
}

// close closes and removes the scratch file.
func (u *unpacked) close() {
	u.f.Close()
	os.Remove(u.path)
}
