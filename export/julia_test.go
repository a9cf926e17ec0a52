package export

import (
	"strings"
	"testing"

	"mandelscope/fractal"
)

// juliaLoc is testLoc as a view of the Julia set of a parameter of 300-odd digits a part.
func juliaLoc() fractal.Location {
	l := testLoc()
	l.Julia = fractal.JuliaParam{On: true,
		Re: fractal.MustDecimal("-0.8" + strings.Repeat("0123456789", 30)),
		Im: fractal.MustDecimal("0.156" + strings.Repeat("9876543210", 30) + "1")}
	return l
}

// TestMetadataJulia: a Julia view's parameter travels through the PNG's text chunks exactly,
// every digit; a Mandelbrot view writes no julia key (its metadata is what it was before
// Julia sets), and its description says which set it is; a bad parameter read from a file
// is refused in one line naming the key.
func TestMetadataJulia(t *testing.T) {
	dir := t.TempDir()
	for _, tx := range MetadataText(testLoc(), 10, 10, 1, "t") {
		if tx.Key == KeyJulia || strings.Contains(tx.Value, "Julia") {
			t.Errorf("a Mandelbrot view writes %s=%q", tx.Key, tx.Value)
		}
	}
	loc := juliaLoc()
	text := MetadataText(loc, 10, 10, 1, "t")
	found := false
	for _, tx := range text {
		switch tx.Key {
		case KeyJulia:
			found = tx.Value == loc.Julia.String()
		case "Description":
			if !strings.HasPrefix(tx.Value, "Julia set of c = -0.8") {
				t.Errorf("description %q", tx.Value)
			}
		}
	}
	if !found {
		t.Fatalf("no %s chunk with the parameter", KeyJulia)
	}
	md, err := ReadMetadata(writeMetadataPNG(t, dir, "julia.png", 10, 10, text))
	if err != nil {
		t.Fatal(err)
	}
	if md.Location != loc {
		t.Errorf("read back %v, wrote %v", md.Location, loc)
	}
	for _, tc := range []struct{ value, want string }{
		{"", "not RE,IM"},
		{"0.3", "not RE,IM"},
		{"0.3,0.5,0.7", "not RE,IM"},
		{"x,0", "real part"},
		{"0,NaN", "imaginary part"},
		{"9,0", "out of range"},
		{"0,-1e-400", ""}, // in range: a tiny number
		{"0,-1e400", "out of range"},
		{strings.Repeat("1", fractal.MaxDecimalDigits+1) + ",0", "too long"},
	} {
		var bad []Text
		for _, tx := range text {
			if tx.Key == KeyJulia {
				tx.Value = tc.value
			}
			bad = append(bad, tx)
		}
		md, err := ReadMetadata(writeMetadataPNG(t, dir, "bad.png", 10, 10, bad))
		if tc.want == "" {
			if err != nil || md.Location.Julia.String() != tc.value {
				t.Errorf("%s=%q: %v, %v", KeyJulia, tc.value, md.Location.Julia, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), KeyJulia) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%.40q: %v, want one line naming the key, with %q", KeyJulia, tc.value, err, tc.want)
		}
	}
}

// TestRawHeaderJulia: a raw file's header keeps the parameter in its location text, and
// reading it gives the view back.
func TestRawHeaderJulia(t *testing.T) {
	loc := juliaLoc()
	h, err := rawHeader(loc, 8, 6, 1, "t")
	if err != nil {
		t.Fatal(err)
	}
	got, err := fractal.ParseLocationText(h.Strings[RawKeyLocation], fractal.Home())
	if err != nil || got.Julia != loc.Julia {
		t.Errorf("raw location %v, %v; want the parameter %v", got, err, loc.Julia)
	}
	if !strings.Contains(h.Strings[RawKeyComments], "Julia set of c") {
		t.Errorf("comments %q", h.Strings[RawKeyComments])
	}
	if m, _ := rawHeader(testLoc(), 8, 6, 1, "t"); strings.Contains(m.Strings[RawKeyLocation], "julia") {
		t.Errorf("a Mandelbrot raw header says %q", m.Strings[RawKeyLocation])
	}
}
