package bookmarks

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"mandelscope/fractal"
)

// TestFormulaFields: a bookmark of another formula keeps it ("formula" and "power", format
// version 6, written only when a bookmark has one, each only where it is not the default); a
// file without one stays at its version and reads as the Mandelbrot set; a bad value is
// damage, named.
func TestFormulaFields(t *testing.T) {
	path := tempPath(t)
	deep := deepLocation(t)
	if err := Add(path, Bookmark{Name: "deep", Location: deep}); err != nil {
		t.Fatal(err)
	}
	cubic, _ := fractal.MakeFormula(fractal.Mandelbar, 3)
	for _, fm := range []fractal.Formula{{Kind: fractal.BurningShip}, cubic} {
		loc := fractal.Home()
		loc.Formula = fm
		name := fm.String()
		if err := Add(path, Bookmark{Name: name, Location: loc}); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := s.Get(name); b.Location != loc {
			t.Errorf("read back %v, wrote %v", b.Location, loc)
		}
	}
	text, _ := os.ReadFile(path)
	if !bytes.Contains(text, []byte(`"version": 6,`)) || bytes.Count(text, []byte(`"formula"`)) != 2 ||
		!bytes.Contains(text, []byte(`"formula": "burning-ship",`)) || bytes.Count(text, []byte(`"power"`)) != 1 ||
		!bytes.Contains(text, []byte(`"power": 3,`)) {
		t.Errorf("file with formula bookmarks:\n%s", text)
	}
	for _, name := range []string{"burning-ship", "mandelbar power 3"} {
		if _, err := Remove(path, name); err != nil {
			t.Fatal(err)
		}
	}
	if text, _ := os.ReadFile(path); !bytes.Contains(text, []byte(`"version": 1,`)) || bytes.Contains(text, []byte("formula")) {
		t.Errorf("after removing the formula bookmarks:\n%s", text)
	}

	bad := `{"format": "mandelscope-bookmarks", "version": 6, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, %s}]}`
	for field, want := range map[string]string{
		`"formula": "ship"`:                    `formula: unknown formula "ship" (mandelbrot, burning-ship, mandelbar)`,
		`"power": 9`:                           "power 9 is out of range (2 to 8)",
		`"power": 1`:                           "power 1 is out of range (2 to 8)",
		`"power": -2`:                          "power -2 is out of range (2 to 8)",
		`"power": 2.5`:                         "power",
		`"power": "3"`:                         "holds a JSON string where a whole number belongs",
		`"formula": "mandelbar", "zoom2": "1"`: `unknown field "zoom2"`,
	} {
		_, err := Parse([]byte(fmt.Sprintf(bad, field)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", field, err, want)
		}
	}
}
