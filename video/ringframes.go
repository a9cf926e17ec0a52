package video

import (
	"fmt"
	"image"
	"path/filepath"
	"time"

	"mandelscope/colour"
)

// ringFrames composes a video's frames from its rings keyframes (expmap.go): it keeps the
// keyframes the frames read unpacked into scratch files in the work folder and held in memory
// at the level of detail each frame needs, reading one again, finer, when a frame needs it
// so (or in other colours, after a palette change at a waypoint), and dropping those no frame
// reads any more.
type ringFrames struct {
	work   string
	vid    [32]byte
	g      ringLayout
	comp   *ringComposer
	raw    map[int]*unpacked
	held   map[int]*heldRing
	img    *image.RGBA
	levels []float64
}

func newRingFrames(work string, vid [32]byte, plan Plan, g ringLayout, q int, col *colour.Colourer, needsDE, changing bool) *ringFrames {
	return &ringFrames{work: work, vid: vid, g: g, comp: newRingComposer(g, q, col, plan.Levels, needsDE, changing),
		raw: map[int]*unpacked{}, held: map[int]*heldRing{}, img: image.NewRGBA(image.Rect(0, 0, g.w, g.h)), levels: plan.Levels}
}

// close removes the scratch files.
func (r *ringFrames) close() {
	for _, u := range r.raw {
		u.close()
	}
	r.raw = nil
}

// keyframes makes r hold what the frame at level lv reads.
func (r *ringFrames) keyframes(lv float64) error {
	need := r.comp.needs(lv)
	for j, u := range r.raw {
		if _, ok := need[j]; !ok {
			u.close()
			delete(r.raw, j)
			delete(r.held, j)
		}
	}
	for j, lod := range need {
		if hr, ok := r.held[j]; ok && hr.lod <= lod && (r.comp.keep || hr.tinted[0] == r.comp.colourKey) {
			continue // held fine enough, and coloured as the frame is (or colourAll will)
		}
		u, ok := r.raw[j]
		if !ok {
			w, h, level := r.g.cols, r.g.rows, r.levels[len(r.levels)-1]
			if j == len(r.levels) {
				w, h = r.g.cw, r.g.ch
			} else {
				level = r.levels[j]
			}
			var err error
			if u, err = unpack(r.work, keyID{r.vid, j}, level, w, h, false); err != nil {
				return err
			}
			r.raw[j] = u
		}
		var col *colour.Colourer
		if !r.comp.keep {
			col = r.comp.col // the colours cannot change: coloured as read
		}
		hr, err := loadRing(u, lod, j == len(r.levels), col, r.comp.colourKey)
		if err != nil {
			return fmt.Errorf("keyframe %d: %v", j, err)
		}
		r.held[j] = hr
	}
	return nil
}

// frame composes frame k and hands it to the segment's encoder
// (when encode) and the frames folder (when there is one).
func (r *ringFrames) frame(plan Plan, opt Options, k int, encode bool, seg *segmenter, sum *Summary, enc0 *time.Duration) error {
	t := time.Now()
	lv := plan.Level(k)
	if err := r.keyframes(lv); err != nil {
		return err
	}
	r.comp.compose(r.img, lv, r.held)
	sum.Compose += time.Since(t)
	t = time.Now()
	defer func() { *enc0 += time.Since(t) }()
	var fr *frameFile
	var err error
	if opt.FramesDir != "" {
		if fr, err = createFrameFile(filepath.Join(opt.FramesDir, fmt.Sprintf("frame-%06d.png", k)), opt.Width, opt.Height); err != nil {
			return err
		}
	}
	// The frame is whole in memory: it goes on in one strip.
	if encode {
		if err := seg.WriteRows(r.img); err != nil {
			fr.abort()
			return err
		}
	}
	if fr != nil {
		if err := fr.png.WriteRows(r.img); err != nil {
			fr.abort()
			return err
		}
	}
	if fr != nil {
		return fr.close()
	}
	return nil
}
