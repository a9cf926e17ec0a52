package export

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
)

// writeMetadataPNG writes the header of a w x h PNG with text chunks and returns its path.
func writeMetadataPNG(t *testing.T, dir, name string, w, h int, text []Text) string {
	t.Helper()
	var buf bytes.Buffer
	pw, err := newPNGWriter(&buf, w, h, text)
	if err != nil {
		t.Fatal(err)
	}
	pw.Close()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestMetadataColouring: a colouring beyond the default travels through the text chunks
// exactly; the default writes none of its keys (old readers and old files agree); bad values
// are refused naming the value, as the flags' are.
func TestMetadataColouring(t *testing.T) {
	dir := t.TempDir()
	for _, tx := range MetadataText(testLoc(), 10, 10, 1, "t") {
		if strings.HasPrefix(tx.Key, "mandelscope.") && (tx.Key == KeyColouring || tx.Key == KeyTransfer ||
			tx.Key == KeyWidth || tx.Key == KeyLight || tx.Key == KeyStrength) {
			t.Errorf("the default colouring writes %s", tx.Key)
		}
	}
	loc := testLoc()
	loc.Color.Method, loc.Color.Transfer = colour.MethodDistance, colour.TransferSqrt
	loc.Color.Width, loc.Color.Light, loc.Color.Strength = 1.5, 30, 0.25
	md, err := ReadMetadata(writeMetadataPNG(t, dir, "good.png", 10, 10, MetadataText(loc, 10, 10, 1, "t")))
	if err != nil {
		t.Fatal(err)
	}
	if md.Location != loc {
		t.Errorf("read back %+v, wrote %+v", md.Location.Color, loc.Color)
	}
	for _, tc := range []struct{ key, value, want string }{
		{KeyColouring, "plasma", `unknown colouring "plasma"`},
		{KeyTransfer, "cube", `unknown transfer function "cube"`},
		{KeyWidth, "NaN", "finite"},
		{KeyWidth, "0.001", "line width 0.001 is out of range"},
		{KeyLight, "1e300", "light angle 1e+300 is out of range"},
		{KeyStrength, "7", "light strength 7 is out of range"},
	} {
		var text []Text
		for _, tx := range MetadataText(loc, 10, 10, 1, "t") {
			if tx.Key == tc.key {
				tx.Value = tc.value
			}
			text = append(text, tx)
		}
		_, err := ReadMetadata(writeMetadataPNG(t, dir, "bad.png", 10, 10, text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%s: %v, want an error containing %q", tc.key, tc.value, err, tc.want)
		}
	}
}

// TestSupersampledLinesKeepWidth: the distance colouring's lines have their width in the
// image's pixels at any supersampling: a 3x3 supersampled export is about as dark as the
// plain one, where lines of the same width in samples (a third as wide in pixels) would be
// far lighter.
func TestSupersampledLinesKeepWidth(t *testing.T) {
	loc := testLoc()
	loc.Color = colour.Coloring{Palette: "grey", Density: 0.25, Offset: 0.4, Method: colour.MethodDistance, Width: 4}
	mean := func(ss int, l fractal.Location) float64 {
		path, _ := export(t, t.TempDir(), Options{Location: l, Width: 120, Height: 80, Supersample: ss})
		img := imagetest.Decode(t, path)
		sum := 0
		for i := 0; i < len(img.Pix); i += 4 {
			sum += int(img.Pix[i]) + int(img.Pix[i+1]) + int(img.Pix[i+2])
		}
		return float64(sum) / float64(3*120*80)
	}
	plain, ss3 := mean(1, loc), mean(3, loc)
	thin := loc
	thin.Color.Width = loc.Color.Width / 3
	unscaled := mean(3, thin)
	t.Logf("mean level: 1x1 %.1f, 3x3 %.1f, 3x3 with lines a third as wide %.1f", plain, ss3, unscaled)
	if unscaled-plain < 3 {
		t.Fatalf("lines a third as wide change the mean level by only %.1f: the test cannot tell", unscaled-plain)
	}
	if d := max(ss3-plain, plain-ss3); d > (unscaled-plain)/4 {
		t.Errorf("3x3 supersampling changes the mean level by %.1f (of 255), lines a third as wide by %.1f: the lines changed width", d, unscaled-plain)
	}
}
