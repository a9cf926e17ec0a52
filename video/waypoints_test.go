package video

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"mandelscope/fractal"
	"mandelscope/internal/videotest"
	"mandelscope/render/cpu"
)

// TestTimeline holds the interpolation of log zoom to its promises, on unevenly spaced
// waypoints that make an unconstrained cubic overshoot (a short steep rise next to long
// flat ones, a turn, a hold): exact at every waypoint, monotone between two, never beyond
// either, and exactly constant on a hold.
func TestTimeline(t *testing.T) {
	for _, c := range []struct{ t, y []float64 }{
		{[]float64{0, 0.3, 2, 2.5, 6, 7}, []float64{0, 5, 6, 6, 20, 21}},
		{[]float64{0, 0.7, 2.9, 4}, []float64{0, math.Log2(12), math.Log2(12), 17.3}},
		{[]float64{0, 1, 1.1, 4, 9}, []float64{0, 0, 8, 8.5, 9}},
		{[]float64{0, 0.5, 3, 3.2, 8}, []float64{3, 10, 4, 12, 12.5}}, // out, then in again
		{[]float64{0, 2}, []float64{0, 7}},
	} {
		tl := newTimeline(c.t, c.y)
		for i := range c.t {
			if v := tl.at(c.t[i]); v != c.y[i] {
				t.Errorf("%v: at waypoint %d (%g s) the level is %g, want %g exactly", c.y, i, c.t[i], v, c.y[i])
			}
		}
		for i := 0; i+1 < len(c.t); i++ {
			y0, y1 := c.y[i], c.y[i+1]
			prev := y0
			for s := 1; s <= 400; s++ {
				x := c.t[i] + (c.t[i+1]-c.t[i])*float64(s)/400
				v := tl.at(x)
				switch {
				case y0 == y1 && v != y0:
					t.Fatalf("%v: at %g s, on the hold at %g, the level is %g", c.y, x, y0, v)
				case v < min(y0, y1) || v > max(y0, y1):
					t.Fatalf("%v: at %g s the level %g overshoots %g..%g", c.y, x, v, y0, y1)
				case (y1 > y0 && v < prev) || (y1 < y0 && v > prev):
					t.Fatalf("%v: at %g s the level %g turns back from %g between %g and %g", c.y, x, v, prev, y0, y1)
				}
				prev = v
			}
		}
	}
	// Two waypoints: a straight line (constant speed in log zoom).
	tl := newTimeline([]float64{0, 2}, []float64{0, 7})
	if v := tl.at(0.5); math.Abs(v-1.75) > 1e-12 {
		t.Errorf("two waypoints: at 0.5 s the level is %g, want 1.75", v)
	}
}

// TestWaypointPlan: two waypoints make the plain video's plan, level for level, as the
// frames have always been placed (frame k at k*L/(frames-1)); more make a plan whose
// keyframes span the least zoom to the end, whose first and last frames are the first and
// last waypoints exactly, and whose frames on a hold keep its zoom.
func TestWaypointPlan(t *testing.T) {
	for _, c := range []struct {
		start, end string
		fps        int
		dur        float64
	}{{"1", "16", 33, 1}, {"1", "1e12", 30, 20}, {"3.5", "7e40", 24, 13.7}, {"1e300", "1e1000", 60, 9}} {
		plain := Options{Location: testLoc(c.end, 100), StartZoom: fractal.MustDecimal(c.start), Width: 64, Height: 36, FPS: c.fps, Duration: c.dur, FramesDir: "f"}
		two := plain
		two.StartZoom, two.Duration = fractal.Decimal{}, 0
		two.Waypoints = []Waypoint{{T: 0, Zoom: fractal.MustDecimal(c.start)}, {T: c.dur, Zoom: fractal.MustDecimal(c.end)}}
		pp, err := plain.normalize()
		if err != nil {
			t.Fatal(err)
		}
		pw, err := two.normalize()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(pp.Levels, pw.Levels) || pp.Frames != pw.Frames || two.Waypoints != nil || two.StartZoom != plain.StartZoom || two.Duration != plain.Duration {
			t.Fatalf("%s to %s: two waypoints plan %d frames, keyframes %v; the plain video %d, %v", c.start, c.end, pw.Frames, pw.Levels, pp.Frames, pp.Levels)
		}
		for k := range pp.Frames {
			old := float64(k) * pp.L / float64(pp.Frames-1) // the schedule before waypoints
			if k == pp.Frames-1 {
				old = pp.L
			}
			if pp.Level(k) != old || pw.Level(k) != old || pp.FrameZoom(k) != pw.FrameZoom(k) {
				t.Fatalf("%s to %s, frame %d: levels %v (plain) and %v (two waypoints), want %v", c.start, c.end, k, pp.Level(k), pw.Level(k), old)
			}
		}
	}

	// Out, then in again past the start: the keyframes start at the least zoom.
	ws := []Waypoint{{T: 0, Zoom: fractal.MustDecimal("100")}, {T: 1, Zoom: fractal.MustDecimal("2")}, {T: 2, Zoom: fractal.MustDecimal("2")}, {T: 3.5, Zoom: fractal.MustDecimal("1e6")}}
	p, err := NewWaypointPlan(ws, 36)
	if err != nil {
		t.Fatal(err)
	}
	if p.Start.String() != "2" || p.Keyframes() != 20 { // 2 to 1e6: 18.9 doublings
		t.Errorf("keyframes from %s, %d of them; want from 2 (the least zoom), 20", p.Start, p.Keyframes())
	}
	if z := p.FrameZoom(0); math.Abs(z.Log2()-math.Log2(100)) > 1e-12 {
		t.Errorf("frame 0's zoom %s, want the first waypoint's, 100", z)
	}
	if p.Level(35) != p.L {
		t.Errorf("the last frame's level %g, want the end's %g", p.Level(35), p.L)
	}
	held := 0
	for k := range p.Frames {
		lv := p.Level(k)
		if !(lv >= 0 && lv <= p.L) {
			t.Fatalf("frame %d's level %g lies outside the keyframes' 0..%g", k, lv, p.L)
		}
		if o, i := p.Pair(k); o < 0 || o >= p.Keyframes() || i >= p.Keyframes() || (i >= 0 && !(p.Levels[o] <= lv && lv <= p.Levels[i])) {
			t.Fatalf("frame %d (level %g) composed from keyframes %d and %d", k, lv, o, i)
		}
		if tk := float64(k) * 3.5 / 35; tk >= 1 && tk <= 2 {
			held++
			if lv != 0 {
				t.Errorf("frame %d at %g s, on the hold at zoom 2, has level %g", k, tk, lv)
			}
		}
	}
	if held != 11 {
		t.Errorf("%d frames on the hold, want 11", held)
	}
}

// TestWaypointErrors: each bad timeline is one error naming what is wrong.
func TestWaypointErrors(t *testing.T) {
	end := fractal.MustDecimal("1e6")
	for _, c := range []struct{ in, want string }{
		{"0:1,5", `waypoint 2 "5" has no colon`},
		{"0:1,x:5,9:1e6", `waypoint 2: time "x" is not a number`},
		{"0:1,NaN:5,9:1e6", `waypoint 2: time "NaN" is not a number`},
		{"0:1,3:abc,9:1e6", `waypoint 2: zoom "abc" is not a decimal number`},
		{"0:1,3:1e-9,9:1e6", "waypoint 2: zoom 1e-9 is out of range"},
		{"", "no waypoints"},
	} {
		if _, err := ParseWaypoints(c.in, end); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"1:1,9:1e6", "the first waypoint is at 1 s; it must be at 0"},
		{"0:1,5:10,5:100,9:1e6", "waypoint 3 at 5 s is not after waypoint 2 at 5 s"},
		{"0:1,5:10,4:100,9:1e6", "waypoint 3 at 4 s is not after waypoint 2 at 5 s"},
		{"0:1,5:1e7,9:1e6", "waypoint 2's zoom 1e7 is deeper than the end view's 1e6"},
		{"0:1,9:1e5", "the last waypoint's zoom 1e5 is not the end view's 1e6"},
		{"0:1e6,9:1e6", "there is no zoom to make"},
		{"0:1e6", "1 waypoint: give at least two"},
	} {
		ws, err := ParseWaypoints(c.in, end)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if err := CheckWaypoints(ws, end); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.in, err, c.want)
		}
	}
	ws, err := ParseWaypoints(" 0:1, 2.5:1000 ,4:end", end)
	if err != nil || CheckWaypoints(ws, end) != nil || FormatWaypoints(ws) != "0:1,2.5:1000,4:1e6" {
		t.Errorf("a good timeline: %v, %q", err, FormatWaypoints(ws))
	}
}

// TestWaypointVideo makes a small 2.1 s video through four waypoints with a hold, with a
// tone from ffmpeg as its sound, in MP4 (AAC) and WebM (Opus): the sound is there in the
// container's codec and lasts as long as the video (within a frame); the frames at the first
// and last waypoints are the direct renders of their views exactly, those on the hold the
// direct render of its zoom (composed from two keyframes: PSNR >= 30 dB after a 3x3 blur,
// as TestFrames holds every frame between keyframes), and the decoded video keeps to its
// PNG frames.
func TestWaypointVideo(t *testing.T) {
	needFFmpeg(t)
	dir := t.TempDir()
	tone := filepath.Join(dir, "tone.wav")
	// 1.5 s of 440 Hz: shorter than the video, so padded.
	if out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1.5", tone).CombinedOutput(); err != nil {
		t.Fatalf("making the tone: %v: %s", err, out)
	}
	// 21 frames at 10 fps over 2.1 s: frame k at k*0.105 s; the hold from 1.05 s (frame 10)
	// to 1.575 s (frame 15).
	loc := testLoc("64", 1000)
	ws, err := ParseWaypoints("0:1,0.6:5,1.05:12,1.575:12,2.1:end", loc.Zoom)
	if err != nil {
		t.Fatal(err)
	}
	ws[len(ws)-1].Zoom = loc.Zoom
	plan, err := NewWaypointPlan(ws, 21)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ ext, codec, audio string }{{".mp4", "h264", "aac"}, {".webm", "vp9", "opus"}} {
		if _, err := FindEncoder(Codecs[slices.IndexFunc(Codecs, func(x Codec) bool { return x.Name == c.codec })], 64, 36); err != nil {
			t.Logf("%s: %v", c.codec, err)
			continue
		}
		// Flat keyframes: a frame at a keyframe's zoom is exactly its direct render.
		opt := Options{Location: loc, Waypoints: ws, Width: 64, Height: 36, FPS: 10, Codec: c.codec, Audio: tone,
			Output: filepath.Join(dir, "out"+c.ext), FramesDir: filepath.Join(dir, "frames"+c.ext), Layout: LayoutFlat}
		sum, err := Make(context.Background(), &cpu.Renderer{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Frames != 21 || sum.Keyframes != plan.Keyframes() {
			t.Errorf("%s: %d frames, %d keyframes; want 21 and %d", c.ext, sum.Frames, sum.Keyframes, plan.Keyframes())
		}
		out, err := exec.Command("ffprobe", "-v", "error", "-show_entries", "stream=codec_type,codec_name:format=duration", "-of", "csv=p=0", opt.Output).Output()
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Fields(strings.TrimSpace(string(out)))
		if !slices.Contains(lines, c.audio+",audio") {
			t.Errorf("%s: streams %q, want %s sound", c.ext, lines, c.audio)
		}
		vdur, adur := streamDuration(t, opt.Output, "v:0"), streamDuration(t, opt.Output, "a:0")
		t.Logf("%s: video %.4f s, sound %.4f s", c.ext, vdur, adur)
		if math.Abs(vdur-2.1) > 0.1+1e-9 || math.Abs(adur-vdur) > 0.1+1e-9 {
			t.Errorf("%s: video %.4f s and sound %.4f s, want 2.1 s both, within a frame (0.1 s)", c.ext, vdur, adur)
		}
		if n, w, h := probe(t, opt.Output); n != 21 || w != 64 || h != 36 {
			t.Errorf("%s: %d frames of %dx%d, want 21 of 64x36", c.ext, n, w, h)
		}
		if c.ext != ".mp4" {
			continue // the frames are the same
		}
		for _, k := range []int{0, 20} {
			want := direct(t, loc, ws[min(k, 4)].Zoom.Exp(), 64, 36, 2)
			if p := videotest.PSNR(want, frame(t, opt.FramesDir, k)); !math.IsInf(p, 1) {
				t.Errorf("frame %d, the waypoint at %g s, differs from the direct render at zoom %s: PSNR %.1f dB", k, ws[min(k, 4)].T, ws[min(k, 4)].Zoom, p)
			}
		}
		want := direct(t, loc, ws[2].Zoom.Exp(), 64, 36, 2)
		for k := 10; k <= 15; k++ {
			if plan.Level(k) != plan.Level(11) {
				t.Errorf("frame %d on the hold: level %g, frame 11's %g", k, plan.Level(k), plan.Level(11))
			}
			got := frame(t, opt.FramesDir, k)
			if d := videotest.MeanAbsDiff(got, frame(t, opt.FramesDir, 10)); d != 0 {
				t.Errorf("frame %d on the hold differs from frame 10 by %.3f on average: the zoom moved", k, d)
			}
			p, pb := videotest.PSNR(want, got), videotest.PSNR(videotest.Blur3(want), videotest.Blur3(got))
			t.Logf("frame %d (hold at zoom 12): PSNR %.1f dB, %.1f dB after a 3x3 blur", k, p, pb)
			if pb < 30 {
				t.Errorf("frame %d on the hold: PSNR %.1f dB after a 3x3 blur against the direct render at zoom 12, want at least 30", k, pb)
			}
		}
		// The waypoint at 0.6 s falls between frames 5 and 6: each is its own view's render.
		for _, k := range []int{5, 6} {
			w := direct(t, loc, plan.FrameZoom(k), 64, 36, 2)
			if pb := videotest.PSNR(videotest.Blur3(w), videotest.Blur3(frame(t, opt.FramesDir, k))); pb < 30 {
				t.Errorf("frame %d (zoom %s): PSNR %.1f dB after a 3x3 blur, want at least 30", k, fractal.FormatZoom(plan.FrameZoom(k)), pb)
			}
		}
		worst := math.Inf(1)
		for k, img := range decode(t, opt.Output, 64, 36) {
			worst = min(worst, videotest.PSNR(frame(t, opt.FramesDir, k), img))
		}
		if worst < 25 {
			t.Errorf("decoded frames vs PNG frames: worst PSNR %.1f dB, want at least 25", worst)
		}
	}
}

// streamDuration is a stream's duration in seconds (ffprobe; decoded to the end when the
// container does not say).
func streamDuration(t *testing.T, path, stream string) float64 {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	end := 0.0
	for _, line := range strings.Fields(string(out)) {
		f := strings.Split(line, ",")
		if len(f) < 2 {
			continue
		}
		pts, err1 := strconv.ParseFloat(f[0], 64)
		d, err2 := strconv.ParseFloat(f[1], 64)
		if err1 == nil && err2 == nil {
			end = max(end, pts+d)
		}
	}
	return end
}

// TestWaypointResume: a video with waypoints interrupted in its keyframes resumes to the
// frames of an uninterrupted run; a resume whose waypoints span other zooms is refused
// (other keyframes), and one with other times but the same zooms composes the new timeline
// from the kept keyframes, computing none, and the segments encoded with the old one are not
// reused (the frames differ).
func TestWaypointResume(t *testing.T) {
	dir := t.TempDir()
	loc := testLoc("16", 1000)
	wps := func(s string) []Waypoint {
		ws, err := ParseWaypoints(s, loc.Zoom)
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
	mk := func(name, timeline string) Options {
		return Options{Location: loc, Waypoints: wps(timeline), Width: 64, Height: 36, FPS: 10, FramesDir: filepath.Join(dir, name)}
	}
	whole := mk("whole", "0:1,0.5:3,0.8:3,1.2:end")
	if _, err := Make(context.Background(), &cpu.Renderer{}, whole); err != nil {
		t.Fatal(err)
	}
	cut := mk("cut", "0:1,0.5:3,0.8:3,1.2:end")
	cut.afterKeyframe = func(j int) error {
		if j == 1 {
			return context.Canceled
		}
		return nil
	}
	if _, err := Make(context.Background(), &cpu.Renderer{}, cut); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("interrupted run: %v, want ErrInterrupted", err)
	}
	cut.afterKeyframe, cut.Resume = nil, true
	other := cut
	other.Waypoints = wps("0:2,0.5:3,0.8:3,1.2:end")
	if _, err := Make(context.Background(), &cpu.Renderer{}, other); !errors.Is(err, ErrParamsDiffer) || !strings.Contains(err.Error(), "start zoom was 1, now 2") {
		t.Errorf("a resume of a timeline from zoom 2: %v, want ErrParamsDiffer naming the start zoom", err)
	}
	sum, err := Make(context.Background(), &cpu.Renderer{}, cut)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reused != 2 || sum.Computed != 4 { // of five rings keyframes and the centre
		t.Errorf("resume reused %d and computed %d keyframes, want 2 and 4", sum.Reused, sum.Computed)
	}
	sameFiles(t, whole.FramesDir, cut.FramesDir, 12)

	// Kept keyframes, composed again along other times.
	needFFmpeg(t)
	kept := mk("kept", "0:1,0.5:3,0.8:3,1.2:end")
	kept.Output, kept.KeepWork = filepath.Join(dir, "kept.mp4"), true
	if _, err := Make(context.Background(), &cpu.Renderer{}, kept); err != nil {
		t.Fatal(err)
	}
	retimed := mk("retimed", "0:1,0.3:3,1:3,1.2:end")
	retimed.Output, retimed.Resume, retimed.Force = kept.Output, true, true
	sum, err = Make(context.Background(), &cpu.Renderer{}, retimed)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Computed != 0 || sum.SegmentsReused != 0 {
		t.Errorf("retimed: %d keyframes computed, %d segments reused; want none of either", sum.Computed, sum.SegmentsReused)
	}
	fresh := mk("fresh", "0:1,0.3:3,1:3,1.2:end")
	if _, err := Make(context.Background(), &cpu.Renderer{}, fresh); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, fresh.FramesDir, retimed.FramesDir, 12)
	decoded := decode(t, kept.Output, 64, 36)
	if len(decoded) != 12 {
		t.Fatalf("%d frames decoded, want 12", len(decoded))
	}
	if p := videotest.PSNR(frame(t, fresh.FramesDir, 4), decoded[4]); p < 25 {
		t.Errorf("the retimed video's frame 4 is not the new timeline's: PSNR %.1f dB against it", p)
	}
}

// TestWaypointPalette: a waypoint "T:ZOOM:palette=NAME" changes the palette from its time
// on, composed from the same keyframes (a resume of kept keyframes computes none): the frames
// before it are the video's without the change, byte for byte, and the frames from it those of
// the video made in that palette. Its text goes through FormatWaypoints and back; a bad
// palette or key is refused naming the waypoint.
func TestWaypointPalette(t *testing.T) {
	dir := t.TempDir()
	base := qualityOptions(dir)
	base.FPS, base.Duration, base.KeepWork = 9, 0, true
	plain, err := ParseWaypoints("0:1,0.5:4,1:16", base.Location.Zoom)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := ParseWaypoints("0:1,0.5:4:palette=fire,1:16", base.Location.Zoom)
	if err != nil {
		t.Fatal(err)
	}
	if got := FormatWaypoints(changed); got != "0:1,0.5:4:palette=fire,1:16" {
		t.Errorf("FormatWaypoints: %q", got)
	}
	run := func(name string, ws []Waypoint, palette string, resume bool) Summary {
		t.Helper()
		o := base // one frames folder, whose work folder keeps the keyframes
		o.Waypoints, o.FramesDir = ws, filepath.Join(dir, "frames")
		o.Location.Color.Palette = palette
		o.Resume, o.Force = resume, resume
		sum, err := Make(context.Background(), &cpu.Renderer{}, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(o.FramesDir, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		return sum
	}
	run("classic", plain, "classic", false)
	if s := run("changed", changed, "classic", true); s.Computed != 0 {
		t.Errorf("the palette change computed %d keyframes, want 0", s.Computed)
	}
	run("fire", plain, "fire", true)
	// Frames 0 to 3 are before 0.5 s (frame k at k/8 s), 4 to 8 from it.
	for k := range 9 {
		want := "classic"
		if k >= 4 {
			want = "fire"
		}
		a, err := os.ReadFile(filepath.Join(dir, want, fmt.Sprintf("frame-%06d.png", k)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "changed", fmt.Sprintf("frame-%06d.png", k)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("frame %d differs from the %s video's", k, want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"0:1,0.5:4:palette=nope,1:16", `waypoint 2: unknown palette "nope"`},
		{"0:1,0.5:4:colour=fire,1:16", `waypoint 2: "colour=fire": after the zoom, write palette=NAME`},
	} {
		if _, err := ParseWaypoints(c.in, base.Location.Zoom); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
}
