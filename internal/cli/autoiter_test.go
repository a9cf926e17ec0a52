package cli

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/preview"
)

// TestExportAutoIterationsAsTheWindow: an export or probe with --zoom and no --iterations
// counts its iterations as the window does (preview.AutoCount: the picture's escape counts),
// not from the zoom alone. Beside the period-58 minibrot at zoom 23000 the zoom's count, 613,
// drew the minibrot's edge as blobs and holes where the window drew it whole with 2452.
func TestExportAutoIterationsAsTheWindow(t *testing.T) {
	out := filepath.Join(t.TempDir(), "a.png")
	view := []string{"--renderer=cpu", "--center=0.3513073802,0.0953035978", "--zoom=23000", "--size=160x90"}
	mustExport(t, append(view, "-o", out)...)
	md, err := export.ReadMetadata(out)
	if err != nil {
		t.Fatal(err)
	}
	l := md.Location
	want, err := preview.AutoCount(context.Background(), l, 160, 90, nil)
	if err != nil {
		t.Fatal(err)
	}
	zoomOnly := l.AutoIterations()
	if l.Iterations != want || want <= zoomOnly {
		t.Errorf("the export drew %d iterations; the window's rule gives %d, the zoom alone %d", l.Iterations, want, zoomOnly)
	}
	// probe counts the same way: the pixel that escapes after the zoom's count does so here.
	var stdout, stderr strings.Builder
	if code := Run([]string{"probe", "--center=0.3513073802,0.0953035978", "--zoom=23000", "--size=160x90", "80,45"}, &stdout, &stderr); code != 0 {
		t.Fatalf("probe exited %d: %s", code, stderr.String())
	}
	l.Iterations = want
	n, _ := fractal.NewFrame(l, 160, 90).Escape(80, 45)
	if got := strings.Fields(stdout.String()); len(got) != 3 || got[2] != strconv.Itoa(n) {
		t.Errorf("probe printed %q; at %d iterations the pixel's count is %d", stdout.String(), want, n)
	}
}
