package video

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/colour"
)

// The rings layout colours keyframes as it reads them, which neither the histogram colouring
// nor a colouring shader does yet: such a video takes flat keyframes when no layout is asked
// for, and a rings layout asked for is refused in a sentence. (Before, the rings composer
// was handed no colourer for a shader, and did not equalise the histogram.)
func TestRingsPerKeyframeColourings(t *testing.T) {
	for _, c := range []colour.Coloring{{Palette: "classic", Density: 1, Method: colour.MethodHistogram}, {Palette: "classic", Density: 1, Shader: "vec3 colour() { return KF_Colour(); }"}} {
		loc := testLoc("16", 300)
		loc.Color = c
		opt := Options{Location: loc, Width: 64, Height: 36, FPS: 10, Duration: 1, FramesDir: filepath.Join(t.TempDir(), "f")}
		if _, err := opt.normalize(); err != nil || opt.Layout != LayoutFlat {
			t.Errorf("%+v: layout %q (%v), want flat", c, opt.Layout, err)
		}
		opt.Layout = LayoutRings
		if _, err := opt.normalize(); err == nil || !strings.Contains(err.Error(), "use --keyframe-layout=flat") {
			t.Errorf("%+v with rings: %v, want a refusal", c, err)
		}
	}
	opt := Options{Location: testLoc("16", 300), Width: 64, Height: 36, FPS: 10, Duration: 1, FramesDir: filepath.Join(t.TempDir(), "g")}
	if _, err := opt.normalize(); err != nil || opt.Layout != LayoutRings {
		t.Errorf("the smooth colouring: layout %q (%v), want rings", opt.Layout, err)
	}
}

// TestLoadRingBlockMeans: a keyframe read at a level of detail above 0 with its colours fixed
// holds each block's mean colour (every sample computed counts, as in a supersampled export),
// partial blocks at the edges included, and a frame reads the mean at the block's centre. (It
// held the colour of each block's middle sample: three in four samples at level 1 were never
// seen.) Without a colourer the samples are kept as they were, the middle one of each block.
func TestLoadRingBlockMeans(t *testing.T) {
	const w, h = 64, 7 // a rings keyframe's width is a multiple of 64; 7 rows leave a partial block
	samples := make([]colour.Sample, w*h)
	for i := range samples {
		samples[i].Nu = float64(i*7%23) + 0.25*float64(i%5) // colours that differ within a block
	}
	path := filepath.Join(t.TempDir(), "key.raw")
	if err := os.WriteFile(path, sampleBytes(samples), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	u := &unpacked{level: 3, w: w, h: h, path: path, f: f}
	defer f.Close()
	col, err := colour.NewColourer(colour.Coloring{Palette: "classic", Density: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, lod := range []int{1, 2} {
		hr, err := loadRing(u, lod, false, col, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := 1 << lod
		if bw, bh := w/b, (h+b-1)/b; hr.w != bw || hr.h != bh {
			t.Fatalf("lod %d: %dx%d held, want %dx%d", lod, hr.w, hr.h, bw, bh)
		}
		for y := range hr.h {
			for x := range hr.w {
				var s [3]int
				n := 0
				for r := y * b; r < min((y+1)*b, h); r++ {
					for c := x * b; c < (x+1)*b; c++ {
						cc := col.Colour(samples[r*w+c])
						s[0], s[1], s[2] = s[0]+int(cc.R), s[1]+int(cc.G), s[2]+int(cc.B)
						n++
					}
				}
				got := hr.tint[y*hr.w+x]
				for i, v := range []uint8{got.R, got.G, got.B} {
					if want := (s[i] + n/2) / n; int(v) != want {
						t.Fatalf("lod %d, block (%d, %d), channel %d: %d, want the block's mean %d", lod, x, y, i, v, want)
					}
				}
			}
		}
		// A frame reading at the centre of block (1, 1) gets its mean alone.
		var a [3]uint32
		c := float64(b) + float64(b-1)/2
		hr.add(a[:], c, c)
		if want := hr.tint[hr.w+1]; a != [3]uint32{256 * uint32(want.R), 256 * uint32(want.G), 256 * uint32(want.B)} {
			t.Errorf("lod %d: read at block (1, 1)'s centre %v, want 256 times its mean %v", lod, a, want)
		}
	}
	hr, err := loadRing(u, 1, false, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if hr.samples[0] != samples[w+1] {
		t.Errorf("without a colourer: %+v held first, want the middle sample of the first block %+v", hr.samples[0], samples[w+1])
	}
}
