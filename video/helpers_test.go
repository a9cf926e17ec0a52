package video

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// seahorse is a centre in the seahorse valley with detail at every depth to 1e32.
const (
	seaRe = "-0.743643887037158704752191506114779778215256207948181289816883901818560735783796478634787822762144461879186420389368802996"
	seaIm = "0.131825904205311970493132056385140678972952279328918966209127677465513481738298337234738964180367638081912623954274282987"
)

// testLoc is the end view of the tests' videos: the seahorse centre at zoom, an explicit
// density (an automatic one is resolved from the end view alike, but the direct renders
// here colour with the number).
func testLoc(zoom string, iter int) fractal.Location {
	l := fractal.Home()
	l.Re, l.Im = fractal.MustDecimal(seaRe), fractal.MustDecimal(seaIm)
	l.Zoom = fractal.MustDecimal(zoom)
	l.Iterations = iter
	l.Color.AutoDensity = false
	l.Color.Density = 1
	return l
}

// direct renders loc at zoom as a supersampled export does: a q-times larger frame computed
// by the CPU renderer, coloured, each q x q block averaged (rounding half up).
func direct(t testing.TB, loc fractal.Location, zoom fractal.Exp, w, h, q int) *image.RGBA {
	t.Helper()
	loc.Zoom = fractal.DecimalFromExp(zoom)
	f := fractal.NewFrame(loc, q*w, q*h)
	d := colour.NewData(image.Rect(0, 0, q*w, q*h))
	if err := (&cpu.Renderer{}).Compute(context.Background(), f, d.Rect, d); err != nil {
		t.Fatal(err)
	}
	col, err := colour.NewColourer(loc.Color.Sampled(q))
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	n := uint32(q * q)
	for y := range h {
		for x := range w {
			var s [3]uint32
			for b := range q {
				for a := range q {
					c := col.Colour(d.At(q*x+a, q*y+b))
					s[0] += uint32(c.R)
					s[1] += uint32(c.G)
					s[2] += uint32(c.B)
				}
			}
			p := img.Pix[img.PixOffset(x, y):]
			p[0], p[1], p[2], p[3] = byte((s[0]+n/2)/n), byte((s[1]+n/2)/n), byte((s[2]+n/2)/n), 255
		}
	}
	return img
}

// psnr is the peak signal-to-noise ratio of b against a over R, G and B, in dB (+Inf for
// equal images).
func psnr(a, b *image.RGBA) float64 {
	var se float64
	n := 0
	for y := a.Rect.Min.Y; y < a.Rect.Max.Y; y++ {
		for x := a.Rect.Min.X; x < a.Rect.Max.X; x++ {
			pa, pb := a.Pix[a.PixOffset(x, y):], b.Pix[b.PixOffset(x, y):]
			for c := range 3 {
				d := float64(pa[c]) - float64(pb[c])
				se += d * d
				n++
			}
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(n)))
}

// blur3 is img averaged over 3x3 neighbourhoods (clamped at the edges).
func blur3(img *image.RGBA) *image.RGBA {
	r := img.Rect
	out := image.NewRGBA(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			var s [3]int
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := min(max(x+dx, r.Min.X), r.Max.X-1), min(max(y+dy, r.Min.Y), r.Max.Y-1)
					p := img.Pix[img.PixOffset(xx, yy):]
					for c := range 3 {
						s[c] += int(p[c])
					}
				}
			}
			p := out.Pix[out.PixOffset(x, y):]
			p[0], p[1], p[2], p[3] = byte((s[0]+4)/9), byte((s[1]+4)/9), byte((s[2]+4)/9), 255
		}
	}
	return out
}

// meanAbsDiff is the mean absolute difference of a and b per channel value.
func meanAbsDiff(a, b *image.RGBA) float64 {
	var s float64
	for i := range a.Pix {
		if i%4 == 3 {
			continue
		}
		s += math.Abs(float64(a.Pix[i]) - float64(b.Pix[i]))
	}
	return s / float64(len(a.Pix)*3/4)
}

// readPNG reads a PNG as RGBA.
func readPNG(t testing.TB, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if rgba, ok := img.(*image.RGBA); ok {
		return rgba
	}
	r := image.NewRGBA(img.Bounds())
	for y := r.Rect.Min.Y; y < r.Rect.Max.Y; y++ {
		for x := r.Rect.Min.X; x < r.Rect.Max.X; x++ {
			r.Set(x, y, img.At(x, y))
		}
	}
	return r
}

// frame reads frame k of a frames folder.
func frame(t testing.TB, dir string, k int) *image.RGBA {
	return readPNG(t, filepath.Join(dir, fmt.Sprintf("frame-%06d.png", k)))
}

// needFFmpeg skips the test without ffmpeg and ffprobe (scripts/deps.sh test installs them).
func needFFmpeg(t testing.TB) {
	t.Helper()
	for _, p := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed (scripts/deps.sh test installs Debian's package ffmpeg)", p)
		}
	}
}

// probe returns a video's frame count (decoded) and size, by ffprobe.
func probe(t testing.TB, path string) (frames, w, h int) {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
		"-show_entries", "stream=nb_read_frames,width,height", "-of", "csv=p=0", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v", path, err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), ",")
	if len(f) != 3 {
		t.Fatalf("ffprobe %s: %q", path, out)
	}
	w, _ = strconv.Atoi(f[0])
	h, _ = strconv.Atoi(f[1])
	frames, _ = strconv.Atoi(f[2])
	return frames, w, h
}

// decode returns a video's frames decoded to RGB by ffmpeg.
func decode(t testing.TB, path string, w, h int) []*image.RGBA {
	t.Helper()
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatalf("ffmpeg decode %s: %v", path, err)
	}
	var frames []*image.RGBA
	for len(out) >= 3*w*h {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range w * h {
			copy(img.Pix[4*i:4*i+3], out[3*i:3*i+3])
			img.Pix[4*i+3] = 255
		}
		frames = append(frames, img)
		out = out[3*w*h:]
	}
	if len(out) != 0 {
		t.Fatalf("decoded %s: %d bytes left over", path, len(out))
	}
	return frames
}

// sameFiles reports the first difference between the PNG frames of two folders.
func sameFiles(t testing.TB, a, b string, n int) {
	t.Helper()
	for k := range n {
		name := fmt.Sprintf("frame-%06d.png", k)
		ba, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		bb, err := os.ReadFile(filepath.Join(b, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ba, bb) {
			t.Fatalf("%s differs between %s and %s", name, a, b)
		}
	}
}
