package imagetest_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
)

// TestMetadataPNG: the export's metadata reader reads back the size and the view from
// MetadataPNG's file, and refuses one whose IHDR CRC is damaged (so the helper writes real
// CRCs).
func TestMetadataPNG(t *testing.T) {
	loc := fractal.Home()
	loc.Iterations = 1234
	loc.Color.Palette = "ocean"
	data := imagetest.MetadataPNG(4000, 3000, export.MetadataText(loc, 4000, 3000, 2, "v9"))
	path := filepath.Join(t.TempDir(), "m.png")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	md, err := export.ReadMetadata(path)
	if err != nil {
		t.Fatal(err)
	}
	if md.Width != 4000 || md.Height != 3000 || md.Supersample != 2 || md.Version != "v9" || md.Location != loc {
		t.Errorf("read back %dx%d x%d %q %v, want 4000x3000 x2 v9 %v", md.Width, md.Height, md.Supersample, md.Version, md.Location, loc)
	}
	data[8+8+13] ^= 1 // IHDR's CRC
	os.WriteFile(path, data, 0o644)
	if _, err := export.ReadMetadata(path); err == nil || errors.Is(err, os.ErrNotExist) {
		t.Errorf("a damaged IHDR CRC: %v", err)
	}
}
