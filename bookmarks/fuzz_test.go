package bookmarks

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzParse checks that the bookmarks reader never panics, and that whatever it accepts
// writes back to text that reads back to the same bookmarks.
func FuzzParse(f *testing.F) {
	s := &Store{}
	if err := s.Add(Bookmark{Name: "deep", Location: deepLocation(f), Thumbnail: testPNG(f, 9, 5)}); err != nil {
		f.Fatal(err)
	}
	good, _ := s.Marshal()
	f.Add(good)
	julia := deepLocation(f)
	julia.Julia = juliaParam
	if err := s.Add(Bookmark{Name: "rabbit", Location: julia}); err != nil {
		f.Fatal(err)
	}
	withJulia, _ := s.Marshal()
	f.Add(withJulia)
	f.Add([]byte(`{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": []}`))
	f.Add([]byte(`{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a\ud83d\udc34\\ud800\"", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, "Density": 2}]}`))
	for _, d := range damaged {
		f.Add([]byte(d.text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		out, err := s.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		s2, err := Parse(out)
		if err != nil {
			t.Fatalf("cannot read back what was written: %v\n%s", err, out)
		}
		out2, _ := s2.Marshal()
		if !bytes.Equal(out, out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
		for i, b := range s.List() {
			if b2 := s2.List()[i]; b2.Name != b.Name || b2.Location != b.Location || !bytes.Equal(b.Thumbnail, b2.Thumbnail) {
				t.Fatalf("bookmark %d changed: %v -> %v", i, b, b2)
			}
		}
	})
}

// FuzzParseKFR checks that the .kfr reader never panics and keeps the centre's digits.
func FuzzParseKFR(f *testing.F) {
	f.Add([]byte(sampleKFR))
	f.Add([]byte("Re: -0.5\nIm: 0\nZoom: 1\n"))
	f.Add([]byte("Re: 0\nRe: 1\nIm: 0\nZoom: 1\n"))
	f.Add([]byte("Re: 1e5\nIm: x\nZoom: -1\nIterations: -3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ParseKFR(data, "fuzz")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error of more than one line: %q", err)
			}
			return
		}
		if err := b.Location.Validate(); err != nil {
			t.Fatalf("accepted an invalid location: %v", err)
		}
		if !bytes.Contains(data, []byte(b.Location.Re.String())) || !bytes.Contains(data, []byte(b.Location.Im.String())) {
			t.Fatalf("centre %s %s is not the file's text", b.Location.Re, b.Location.Im)
		}
		if b.Location.IsJulia() {
			t.Fatalf("a .kfr file read as a Julia set's view: %v", b.Location)
		}
	})
}
