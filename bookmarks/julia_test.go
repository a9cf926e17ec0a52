package bookmarks

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"mandelscope/fractal"
)

// juliaParam is a Julia set's parameter of 300-odd digits a part.
var juliaParam = fractal.JuliaParam{On: true,
	Re: fractal.MustDecimal("-0.12256116687665361237" + strings.Repeat("1357924680", 28)),
	Im: fractal.MustDecimal("0.74486176661974423659" + strings.Repeat("8642097531", 28) + "3")}

// TestJuliaField: a Julia bookmark keeps its parameter, every digit (format version 5, written
// only when a bookmark is a Julia set's); a file of Mandelbrot bookmarks stays at the version
// it was, and files of the versions before 5 still read; a newer version is refused; a bad
// parameter is damage, named.
func TestJuliaField(t *testing.T) {
	path := tempPath(t)
	deep := deepLocation(t)
	if err := Add(path, Bookmark{Name: "deep", Location: deep}); err != nil {
		t.Fatal(err)
	}
	if text, _ := os.ReadFile(path); !bytes.Contains(text, []byte(`"version": 1,`)) || bytes.Contains(text, []byte("julia")) {
		t.Errorf("a file of Mandelbrot bookmarks:\n%s", text)
	}
	loc := deep
	loc.Julia = juliaParam
	if err := Add(path, Bookmark{Name: "rabbit", Location: loc}); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	want := fmt.Sprintf(`"julia": {
        "re": "%s",
        "im": "%s"
      }`, juliaParam.Re, juliaParam.Im)
	if !bytes.Contains(text, []byte(`"version": 5,`)) || !bytes.Contains(text, []byte(want)) || bytes.Count(text, []byte(`"julia"`)) != 1 {
		t.Errorf("file with a Julia bookmark:\n%s", text)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Get("rabbit"); b.Location != loc {
		t.Errorf("read back %v, wrote %v", b.Location, loc)
	}
	if b, _ := s.Get("deep"); b.Location != deep {
		t.Errorf("the Mandelbrot bookmark read back as %v", b.Location)
	}
	// Removing the Julia bookmark writes the older version again.
	if _, err := Remove(path, "rabbit"); err != nil {
		t.Fatal(err)
	}
	if text, _ := os.ReadFile(path); !bytes.Contains(text, []byte(`"version": 1,`)) {
		t.Errorf("after removing the Julia bookmark:\n%s", text)
	}

	// A file of version 4 (the one before): read as it was, Mandelbrot views.
	v4 := `{"format": "mandelscope-bookmarks", "version": 4, "bookmarks": [{"name": "a", "re": "-0.75", "im": "0.1", "zoom": "10", "iterations": 300, "palette": "classic", "density": 1, "densityAuto": true, "offset": 0, "gradient": "#000000,#FFFFFF"}]}`
	s, err = Parse([]byte(v4))
	if err != nil {
		t.Fatalf("a version 4 file: %v", err)
	}
	if b, _ := s.Get("a"); b.Location.IsJulia() || b.Location.Re.String() != "-0.75" || !b.Location.Color.AutoDensity {
		t.Errorf("a version 4 file read as %v", b.Location)
	}
	// The version after this one's: refused, naming both (relative to FormatVersion, so that
	// a format bump keeps the case).
	next := FormatVersion + 1
	if _, err := Parse(fmt.Appendf(nil, `{"format": "mandelscope-bookmarks", "version": %d, "bookmarks": []}`, next)); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("format version %d, written by a newer Mandelscope (this one reads up to version %d)", next, FormatVersion)) {
		t.Errorf("version %d: %v", next, err)
	}

	bad := `{"format": "mandelscope-bookmarks", "version": 5, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, "julia": %s}]}`
	for field, want := range map[string]string{
		`{"re": "0.3"}`:                       `julia.im: empty number`,
		`{"re": "x", "im": "0"}`:              `julia.re: "x" is not a decimal number`,
		`{"re": "0", "im": "9"}`:              "julia parameter's imaginary part 9 is out of range",
		`{"re": "0", "im": "0", "c": "1"}`:    `unknown field "c"`,
		`{"re": "0", "im": "0", "re": "1"}`:   `the key "re" appears twice`,
		`"0.3,0.5"`:                           "holds a JSON string where an object belongs",
		`{"re": 0.3, "im": "0"}`:              "holds a JSON number where a string belongs",
		`{"re": "1e999999999", "im": "0"}`:    "exponent out of range",
		`{"re": "NaN", "im": "0"}`:            "not a decimal number",
		`{"re": "-4.5", "im": "0"}`:           "real part -4.5 is out of range",
		`{"re": "0.1", "im": "0.2", "on": 1}`: `unknown field "on"`,
	} {
		_, err := Parse([]byte(fmt.Sprintf(bad, field)))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("julia %s: %v, want one line containing %q", field, err, want)
		}
	}
}

// TestJuliaMerge: importing a Julia bookmark next to a Mandelbrot one of the same name and
// centre adds it (they are different views), and importing it again adds nothing.
func TestJuliaMerge(t *testing.T) {
	m := home()
	j := m
	j.Julia = juliaParam
	s := &Store{}
	if err := s.Add(Bookmark{Name: "x", Location: m}); err != nil {
		t.Fatal(err)
	}
	in := &Store{}
	if err := in.Add(Bookmark{Name: "x", Location: j}); err != nil {
		t.Fatal(err)
	}
	if added, skipped := s.Merge(in); len(added) != 1 || skipped != 0 {
		t.Errorf("first import: added %v, skipped %d", added, skipped)
	}
	if added, skipped := s.Merge(in); len(added) != 0 || skipped != 1 {
		t.Errorf("second import: added %v, skipped %d", added, skipped)
	}
}
