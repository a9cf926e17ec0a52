package export

import (
	"strings"
	"testing"

	"mandelscope/fractal"
)

// TestFormulaMetadata: a formula's export writes mandelscope.formula and mandelscope.power
// (each only where not the default) and reads them back; a bad value read from a file is one
// line naming its key; the Mandelbrot set's chunks are what they were.
func TestFormulaMetadata(t *testing.T) {
	dir := t.TempDir()
	loc := fractal.Home()
	for _, tx := range MetadataText(loc, 10, 10, 1, "t") {
		if tx.Key == KeyFormula || tx.Key == KeyPower {
			t.Errorf("a Mandelbrot export writes %s", tx.Key)
		}
	}
	loc.Formula, _ = fractal.MakeFormula(fractal.Mandelbar, 5)
	text := MetadataText(loc, 10, 10, 1, "t")
	md, err := ReadMetadata(writeMetadataPNG(t, dir, "ok.png", 10, 10, text))
	if err != nil || md.Location != loc {
		t.Fatalf("read back %v, %v; wrote %v", md.Location, err, loc)
	}
	for _, tc := range []struct{ key, value, want string }{
		{KeyFormula, "ship", `unknown formula "ship"`},
		{KeyFormula, "", "unknown formula"},
		{KeyPower, "9", `power "9" must be a whole number from 2 to 8`},
		{KeyPower, "1e1", "must be a whole number"},
		{KeyPower, "-3", "must be a whole number"},
	} {
		var bad []Text
		for _, tx := range text {
			if tx.Key == tc.key {
				tx.Value = tc.value
			}
			bad = append(bad, tx)
		}
		_, err := ReadMetadata(writeMetadataPNG(t, dir, "bad.png", 10, 10, bad))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.key) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%q: %v, want one line naming the key, with %q", tc.key, tc.value, err, tc.want)
		}
	}
}
