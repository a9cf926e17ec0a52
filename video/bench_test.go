package video

import (
	"context"
	"image"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// benchKeyframes computes two keyframes of a 480x270 video (at 2x: 960x540) a doubling
// apart in the seahorse valley.
func benchKeyframes(b *testing.B, scale int) (outer, inner *Keyframe, loc fractal.Location) {
	b.Helper()
	loc = testLoc("1000", 2000)
	w, h := 480*scale, 270*scale
	var ks [2]*Keyframe
	for j, z := range []string{"1000", "2000"} {
		l := loc
		l.Zoom = fractal.MustDecimal(z)
		d := colour.NewData(image.Rect(0, 0, w, h))
		if err := (&cpu.Renderer{}).Compute(context.Background(), fractal.NewFrame(l, w, h), d.Rect, d); err != nil {
			b.Fatal(err)
		}
		ks[j] = &Keyframe{Level: float64(j), Data: d}
	}
	return ks[0], ks[1], loc
}

// BenchmarkCompose composes 480x270 frames from two keyframes, halfway between them (the
// inner keyframe covering the middle, a band blended): b.SetBytes counts the frame's RGB.
func BenchmarkCompose(b *testing.B) {
	for _, c := range []struct {
		name      string
		q, s      int
		colouring string
	}{{"2x2-smooth", 2, 2, ""}, {"4x4-smooth", 4, 2, ""}, {"2x2-distance", 2, 2, "distance"}} {
		b.Run(c.name, func(b *testing.B) {
			outer, inner, loc := benchKeyframes(b, c.s)
			loc.Color.Method = c.colouring
			col, err := colour.NewColourer(loc.Color.Sampled(c.q))
			if err != nil {
				b.Fatal(err)
			}
			comp := NewComposer(480, 270, c.q, c.s, col)
			img := image.NewRGBA(image.Rect(0, 0, 480, 270))
			b.SetBytes(480 * 270 * 3)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				comp.Compose(img, 0.5, outer, inner)
			}
		})
	}
}

// BenchmarkKeyframeFile writes and reads back a 960x540 keyframe.
func BenchmarkKeyframeFile(b *testing.B) {
	outer, _, _ := benchKeyframes(b, 2)
	path := b.TempDir() + "/" + keyName(0)
	b.SetBytes(int64(len(outer.Data.Pix) * 16))
	b.ResetTimer()
	var d *colour.Data
	for range b.N {
		if err := writeKeyframe(path, keyID{}, outer.Data); err != nil {
			b.Fatal(err)
		}
		var err error
		if d, err = readKeyframe(path, keyID{}, 960, 540, d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkComposeRings composes 480x270 frames (2x2 subsamples, the default smooth
// colouring) from rings keyframes of a zoom from 1000 to 8000, at a level between two
// keyframes, the keyframes held as a video holds them: BenchmarkCompose's work for the
// rings layout.
func BenchmarkComposeRings(b *testing.B) {
	loc := testLoc("8000", 2000)
	g := newRingLayout(480, 270, 2)
	plan, err := NewPlan(fractal.MustDecimal("1000"), loc.Zoom, 8)
	if err != nil {
		b.Fatal(err)
	}
	col, err := colour.NewColourer(loc.Color.Sampled(2))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var vid [32]byte
	for j := range plan.Keyframes() + 1 {
		l := loc
		var f fractal.Frame
		if j < plan.Keyframes() {
			l.Zoom = plan.Zoom(j)
			f = g.ringFrame(l)
		} else {
			f = g.centreFrame(l)
		}
		if err := computeKeyframe(context.Background(), &cpu.Renderer{}, f, dir+"/"+keyName(j), keyID{vid, j}); err != nil {
			b.Fatal(err)
		}
	}
	rf := newRingFrames(dir, vid, plan, g, 2, col, false, false)
	defer rf.close()
	if err := rf.keyframes(0.5); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(480 * 270 * 3)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rf.comp.compose(rf.img, 0.5, rf.held)
	}
}
