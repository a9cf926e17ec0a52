package video

import (
	"bytes"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mandelscope/fractal"
	"mandelscope/internal/videotest"
)

// testLoc is the end view of the tests' videos: the seahorse centre at zoom, an explicit
// density (videotest.Seahorse).
func testLoc(zoom string, iter int) fractal.Location { return videotest.Seahorse(zoom, iter) }

// direct renders loc at zoom as a supersampled export does (videotest.Direct).
func direct(t testing.TB, loc fractal.Location, zoom fractal.Exp, w, h, q int) *image.RGBA {
	t.Helper()
	img, err := videotest.Direct(loc, zoom, w, h, q)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// frame reads frame k of a frames folder.
func frame(t testing.TB, dir string, k int) *image.RGBA {
	t.Helper()
	img, err := videotest.Frame(dir, k)
	if err != nil {
		t.Fatal(err)
	}
	return img
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
