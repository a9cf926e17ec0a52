package bookmarks

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// re60 and im60 are centres with 60 significant digits, more than any float holds.
const (
	re60 = "-1.74006238257933990522084416706582563829664172043617186687986"
	im60 = "0.00000000000000000000000000000000000000000000000000000000000000028"
)

// home is fractal.Home with an explicit density, as files of the versions before 4 hold.
func home() fractal.Location {
	l := fractal.Home()
	l.Color.AutoDensity = false
	return l
}

func deepLocation(t testing.TB) fractal.Location {
	t.Helper()
	l := home()
	l.Re = fractal.MustDecimal(re60)
	l.Im = fractal.MustDecimal(im60)
	l.Zoom = fractal.MustDecimal("2.5e45")
	l.Iterations = 12345
	l.Color = colour.Coloring{Palette: "fire", Density: 0.3, Offset: 0.125}
	return l
}

func tempPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "cfg", "mandelscope", "bookmarks.json")
}

func TestDefaultPath(t *testing.T) {
	t.Setenv(EnvPath, "/x/y.json")
	if p, err := DefaultPath(); err != nil || p != "/x/y.json" {
		t.Fatalf("DefaultPath with %s = %q, %v", EnvPath, p, err)
	}
	t.Setenv(EnvPath, "")
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	t.Setenv("HOME", "/home/u")
	p, err := DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("/cfg", "mandelscope", "bookmarks.json"); p != want {
		t.Fatalf("DefaultPath = %q, want %q", p, want)
	}
}

func TestMissingFileIsEmpty(t *testing.T) {
	s, err := Load(tempPath(t))
	if err != nil || s.Len() != 0 {
		t.Fatalf("Load(missing) = %v, %v", s, err)
	}
}

func TestRoundTripExact(t *testing.T) {
	path := tempPath(t)
	loc := deepLocation(t)
	thumb := testPNG(t, 12, 7)
	if err := Add(path, Bookmark{Name: "  deep spiral  ", Location: loc, Thumbnail: thumb}); err != nil {
		t.Fatal(err)
	}
	if err := Add(path, Bookmark{Name: "home", Location: home()}); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := s.Get("deep spiral")
	if !ok {
		t.Fatalf("bookmark not found; have %q", s.Names())
	}
	if b.Location != loc {
		t.Fatalf("location changed:\n got %v\nwant %v", b.Location, loc)
	}
	if b.Location.Re.String() != re60 || b.Location.Im.String() != im60 {
		t.Fatalf("centre digits changed: %s %s", b.Location.Re, b.Location.Im)
	}
	if !bytes.Equal(b.Thumbnail, thumb) {
		t.Fatalf("thumbnail changed")
	}
	if b.Created.IsZero() || !b.Updated.Equal(b.Created) || time.Since(b.Created) > time.Hour {
		t.Fatalf("times: created %v updated %v", b.Created, b.Updated)
	}
	if got := s.Names(); len(got) != 2 || got[0] != "deep spiral" || got[1] != "home" {
		t.Fatalf("names %q", got)
	}
	text, _ := os.ReadFile(path)
	for _, want := range []string{`"re": "` + re60 + `"`, `"im": "` + im60 + `"`, `"zoom": "2.5e45"`, `"version": 1`, "\n  "} {
		if !bytes.Contains(text, []byte(want)) {
			t.Errorf("file lacks %s:\n%s", want, text)
		}
	}
	// Marshal -> Parse -> Marshal is stable.
	again, err := s.Marshal()
	if err != nil || !bytes.Equal(again, text) {
		t.Fatalf("re-marshal differs (%v)", err)
	}
}

func TestNames(t *testing.T) {
	path := tempPath(t)
	if err := Add(path, Bookmark{Name: "x", Location: home()}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, want string }{
		{"x", `bookmark "x" already exists`},
		{" x ", `bookmark "x" already exists`},
		{"", "bookmark name is empty"},
		{"   ", "bookmark name is empty"},
		{"a\x07b", "control character"},
		{"a\nb", "control character"},
		{strings.Repeat("é", 201), "more than the 200 allowed"},
		{"bad\xffutf8", "not valid UTF-8"},
	} {
		err := Add(path, Bookmark{Name: c.name, Location: home()})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Add(%q) = %v, want error containing %q", c.name, err, c.want)
		}
	}
	if err := Add(path, Bookmark{Name: strings.Repeat("é", 200), Location: home()}); err != nil {
		t.Errorf("200 characters: %v", err)
	}
	bad := home()
	bad.Iterations = 0
	if err := Add(path, Bookmark{Name: "bad", Location: bad}); err == nil || !strings.Contains(err.Error(), "iterations") {
		t.Errorf("invalid location: %v", err)
	}
}

func TestRemoveRenameSetBackup(t *testing.T) {
	path := tempPath(t)
	for _, n := range []string{"a", "b", "c"} {
		if err := Add(path, Bookmark{Name: n, Location: home()}); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(path)
	if err := Rename(path, "b", "  beta "); err != nil {
		t.Fatal(err)
	}
	bak, err := os.ReadFile(path + ".bak")
	if err != nil || !bytes.Equal(bak, before) {
		t.Fatalf("backup is not the previous version (%v)", err)
	}
	if err := Rename(path, "a", "c"); err == nil || err.Error() != `bookmark "c" already exists` {
		t.Fatalf("rename onto existing: %v", err)
	}
	if err := Rename(path, "zz", "q"); err == nil || !strings.Contains(err.Error(), `no bookmark named "zz"`) {
		t.Fatalf("rename unknown: %v", err)
	}
	b, err := Remove(path, "a")
	if err != nil || b.Name != "a" {
		t.Fatalf("Remove = %v, %v", b, err)
	}
	if _, err := Remove(path, "a"); err == nil {
		t.Fatal("removing twice succeeded")
	}
	s, _ := Load(path)
	if got := strings.Join(s.Names(), ","); got != "beta,c" {
		t.Fatalf("names %s", got)
	}
	// Undo a removal in place, and Set.
	err = Update(path, func(s *Store) error {
		if err := s.Insert(0, b); err != nil {
			return err
		}
		l := deepLocation(t)
		return s.Set(Bookmark{Name: "c", Location: l})
	})
	if err != nil {
		t.Fatal(err)
	}
	s, _ = Load(path)
	if got := strings.Join(s.Names(), ","); got != "a,beta,c" {
		t.Fatalf("names after undo %s", got)
	}
	if c, _ := s.Get("c"); c.Location != deepLocation(t) || c.Created.IsZero() {
		t.Fatalf("Set: %+v", c)
	}
	// A failing change writes nothing.
	cur, _ := os.ReadFile(path)
	err = Update(path, func(s *Store) error {
		s.Remove("a")
		return errors.New("stop")
	})
	if err == nil || err.Error() != "stop" {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, cur) {
		t.Fatal("a failed update changed the file")
	}
}

// damaged are bookmarks files that must be refused and kept byte for byte.
var damaged = []struct{ name, text, want string }{
	{"truncated", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "-0.5"`, "unexpected end of JSON"},
	{"garbage", "\x00\x01garbage\xff", "invalid character"},
	{"empty", "", "the file is empty"},
	{"not ours", `{"hello": 1}`, "not a Mandelscope bookmarks file"},
	{"no version", `{"format": "mandelscope-bookmarks", "bookmarks": []}`, "no format \"version\""},
	{"future", fmt.Sprintf(`{"format": "mandelscope-bookmarks", "version": %d, "bookmarks": []}`, FormatVersion+1), fmt.Sprintf("format version %d, written by a newer Mandelscope", FormatVersion+1)},
	{"wrong type", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": -0.5, "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1}]}`, `field "bookmarks.re" holds a JSON number where a string belongs`},
	{"wrong list", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": {}}`, "holds a JSON object where a list belongs"},
	{"not a number", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "-1.7400623825793399052208441670658256382966417204361718x8", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1}]}`, `bookmark 1: "a": re: "-1.7400623825793399052208441670658256..." is not a decimal number`},
	{"out of range", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "9", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1}]}`, "out of range"},
	{"unknown field", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, "colour": "red"}]}`, `unknown field "colour"`},
	{"duplicate", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1}, {"name": "a ", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1}]}`, `bookmark 2: the name "a" appears twice`},
	{"trailing", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": []} {}`, "invalid character"},
	{"bad thumbnail", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, "thumbnail": "%%%"}]}`, "base64"},
	{"bad thumbnail data", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, "thumbnail": "AQID"}]}`, `bookmark 1: "a": thumbnail is not a PNG image`},
	{"huge thumbnail", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, "thumbnail": "` + base64.StdEncoding.EncodeToString(pngHeader(16000, 16000)) + `"}]}`, "thumbnail of 16000x16000 pixels is larger than the 256x256 allowed"},
	{"huge density", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1e308}]}`, `bookmark 1: "a": palette density 1e+308 is out of range`},
	{"tiny density", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 5e-324}]}`, "palette density 5e-324 is out of range"},
	{"huge offset", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, "offset": -1e300}]}`, "palette offset -1e+300 is out of range"},
	{"overflowing density", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1e999}]}`, `field "bookmarks.density" holds the number 1e999, which is out of range`},
	{"overflowing iterations", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 1e30, "palette": "classic", "density": 1}]}`, `field "bookmarks.iterations" holds the number 1e30, which is out of range`},
	{"iterations past int64", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 99999999999999999999, "palette": "classic", "density": 1}]}`, "holds the number 99999999999999999999, which is out of range"},
	{"invalid UTF-8 name", "{\"format\": \"mandelscope-bookmarks\", \"version\": 1, \"bookmarks\": [{\"name\": \"caf\xe9\", \"re\": \"0\", \"im\": \"0\", \"zoom\": \"1\", \"iterations\": 10, \"palette\": \"classic\", \"density\": 1}]}", "the text is not valid UTF-8 at byte 77"},
	{"lone surrogate", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a\ud800b", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1}]}`, `the \ud800 escape at byte 75 is half of a UTF-16 surrogate pair`},
	{"lone low surrogate", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "\uDC00", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1}]}`, `the \uDC00 escape`},
	{"surrogate at the end", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "x\ud83d"}]}`, `the \ud83d escape`},
	{"duplicate field", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, "density": 2}]}`, `the key "density" appears twice in one object (byte 167)`},
	{"duplicate field in another case", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, "NAME": "b"}]}`, `the key "NAME" appears twice`},
	{"duplicate escaped field", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "n\u0061me": "b", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1}]}`, `the key "name" appears twice`},
	{"duplicate top-level field", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [], "bookmarks": []}`, `the key "bookmarks" appears twice`},
	{"bad time", `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, "created": "yesterday"}]}`, "yesterday"},
}

func TestDamagedFileKept(t *testing.T) {
	good := filepath.Join(t.TempDir(), "good.json")
	if err := WriteFile(good, &Store{list: []Bookmark{{Name: "g", Location: home()}}}, false); err != nil {
		t.Fatal(err)
	}
	for _, c := range damaged {
		t.Run(c.name, func(t *testing.T) {
			path := tempPath(t)
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			ops := map[string]func() error{
				"load":   func() error { _, err := Load(path); return err },
				"add":    func() error { return Add(path, Bookmark{Name: "n", Location: home()}) },
				"remove": func() error { _, err := Remove(path, "a"); return err },
				"rename": func() error { return Rename(path, "a", "b") },
				"import": func() error { _, err := Import(path, good); return err },
				"export": func() error {
					_, err := Export(path, filepath.Join(t.TempDir(), "out.json"), nil, false)
					return err
				},
			}
			for op, fn := range ops {
				err := fn()
				var de *DamagedError
				if !errors.As(err, &de) {
					t.Fatalf("%s: error %v is not a DamagedError", op, err)
				}
				msg := err.Error()
				if !strings.HasPrefix(msg, "bookmarks file "+path+" is damaged: ") || !strings.HasSuffix(msg, "; it was left untouched") || !strings.Contains(msg, c.want) {
					t.Fatalf("%s: message %q, want the path and %q", op, msg, c.want)
				}
				if strings.Contains(msg, "\n") {
					t.Fatalf("%s: message is more than one line: %q", op, msg)
				}
				if got, _ := os.ReadFile(path); string(got) != c.text {
					t.Fatalf("%s changed the damaged file", op)
				}
				if _, err := os.Stat(path + ".bak"); err == nil {
					t.Fatalf("%s wrote a backup", op)
				}
			}
		})
	}
}

func TestTruncatedMessage(t *testing.T) {
	_, err := Parse([]byte(`{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [`))
	if err == nil || err.Error() != "unexpected end of JSON (the file is cut short) at byte 64" {
		t.Fatalf("got %v", err)
	}
}

func TestUnreadableFile(t *testing.T) {
	path := tempPath(t)
	os.MkdirAll(path, 0o755) // a folder where the file should be
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "cannot read bookmarks file "+path) {
		t.Fatalf("Load(folder) = %v", err)
	}
	if err := Add(path, Bookmark{Name: "a", Location: home()}); err == nil {
		t.Fatal("Add over a folder succeeded")
	}
}

func TestImportJSONMerge(t *testing.T) {
	path := tempPath(t)
	deep := deepLocation(t)
	other := home()
	other.Zoom = fractal.MustDecimal("3")
	if err := Add(path, Bookmark{Name: "spiral", Location: deep}); err != nil {
		t.Fatal(err)
	}
	if err := Add(path, Bookmark{Name: "view", Location: home()}); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(t.TempDir(), "in.json")
	in := &Store{}
	in.Add(Bookmark{Name: "spiral", Location: deep})   // same: skipped
	in.Add(Bookmark{Name: "view", Location: other})    // clash: "view (2)"
	in.Add(Bookmark{Name: "view (2)", Location: deep}) // clash with the one above: "view (2) (2)"
	in.Add(Bookmark{Name: "new", Location: deep})
	if err := WriteFile(src, in, false); err != nil {
		t.Fatal(err)
	}
	r, err := Import(path, src)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Added, "|"); got != "view (2)|view (2) (2)|new" || r.Skipped != 1 {
		t.Fatalf("added %q skipped %d", got, r.Skipped)
	}
	s, _ := Load(path)
	if b, _ := s.Get("view"); b.Location != home() {
		t.Fatal("import overwrote a bookmark")
	}
	if b, _ := s.Get("view (2)"); b.Location != other {
		t.Fatal("renamed import lost its location")
	}
	if b, _ := s.Get("new"); b.Location.Re.String() != re60 {
		t.Fatal("digits changed on import")
	}
	// Importing again adds nothing.
	r, err = Import(path, src)
	if err != nil || len(r.Added) != 0 {
		t.Fatalf("second import: %+v %v", r, err)
	}
	// A damaged import source is named and the store unchanged.
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [`), 0o644)
	before, _ := os.ReadFile(path)
	if _, err := Import(path, bad); err == nil || !strings.Contains(err.Error(), "cannot import "+bad+": unexpected end of JSON") {
		t.Fatalf("bad import: %v", err)
	}
	if _, err := Import(path, filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("missing import: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("failed import changed the store")
	}
}

// sampleKFR is a parameter file as Kalles Fraktaler writes it (CRLF line ends, other keys).
const sampleKFR = "Re: " + re60 + "\r\nIm: " + im60 + "\r\nZoom: 1.5E40\r\nIterations: 40000\r\nIterDiv: 0.010000\r\nSmoothMethod: 0\r\nColorMethod: 7\r\nColorOffset: 0\r\nRotate: 0.000000\r\nRatio: 360.000000\r\nColors: 255,255,255,128,0,64,\r\nInteriorColor: 0,0,0,\r\nSmooth: 1\r\nMultiColor: 0\r\nPower: 2\r\nFractalType: 0\r\n"

func TestImportKFR(t *testing.T) {
	path := tempPath(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "Seahorse deep.kfr")
	os.WriteFile(src, []byte(sampleKFR), 0o644)
	r, err := Import(path, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Added) != 1 || r.Added[0] != "Seahorse deep" {
		t.Fatalf("added %q", r.Added)
	}
	s, _ := Load(path)
	b, _ := s.Get("Seahorse deep")
	l := b.Location
	if l.Re.String() != re60 || l.Im.String() != im60 || l.Zoom.String() != "1.5E40" || l.Iterations != 40000 {
		t.Fatalf("kfr location %v", l)
	}
	if l.Color != colour.DefaultColoring {
		t.Fatalf("colouring %v", l.Color)
	}
	if b.Created.IsZero() || b.Updated.IsZero() {
		t.Fatalf("imported bookmark has no times: %v %v", b.Created, b.Updated)
	}
	// A damaged .json is reported as bookmarks, not read as KF parameters; a file of
	// another name is read by its text.
	badJSON := filepath.Join(dir, "broken.json")
	os.WriteFile(badJSON, []byte("garbage"), 0o644)
	if _, err := Import(path, badJSON); err == nil || !strings.Contains(err.Error(), "invalid character") {
		t.Fatalf("damaged .json import: %v", err)
	}
	txt := filepath.Join(dir, "params.txt")
	os.WriteFile(txt, []byte("Re: 0.25\nIm: 0\nZoom: 8\n"), 0o644)
	if r, err := Import(path, txt); err != nil || len(r.Added) != 1 || r.Added[0] != "params" {
		t.Fatalf("kfr text under another name: %+v %v", r, err)
	}
	// Zoom 1 maps to our zoom 1; without Iterations the count follows the zoom.
	b, err = ParseKFR([]byte("Re: -0.5\nIm: 0\nZoom: 1\n"), "whole")
	if err != nil || b.Location.Zoom.String() != "1" || b.Location.Iterations != fractal.AutoIterations(1) {
		t.Fatalf("%v %v", b, err)
	}
	for _, c := range []struct{ text, want string }{
		{"Im: 0\nZoom: 1\n", `no "Re:" line`},
		{"Re: 0x1p3\nIm: 0\nZoom: 1\n", `the "Re:" line: "0x1p3" is not a decimal number`},
		{"Re: 0\nIm: 0\nZoom: 1\nIterations: many\n", `the "Iterations:" line`},
		{"Re: 0\nIm: 0\nZoom: 1E5000000\n", `exponent out of range`},
		{"Re: 0\nIm: 0\nZoom: 1E10001\n", "zoom 1E10001 is out of range"},
		{"Re: 0\nRe: 1\nIm: 0\nZoom: 1\n", `line 2: "Re:" appears twice`},
		{"\xff\xfe binary", "not a text file"},
	} {
		if _, err := ParseKFR([]byte(c.text), "x"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseKFR(%q) = %v, want %q", c.text, err, c.want)
		}
	}
	bad := filepath.Join(dir, "bad.kfr")
	os.WriteFile(bad, []byte("Re: nope\nIm: 0\nZoom: 1\n"), 0o644)
	if _, err := Import(path, bad); err == nil || !strings.HasPrefix(err.Error(), "cannot import "+bad+": ") {
		t.Fatalf("bad kfr: %v", err)
	}
}

func TestExport(t *testing.T) {
	path := tempPath(t)
	Add(path, Bookmark{Name: "deep", Location: deepLocation(t)})
	Add(path, Bookmark{Name: "home", Location: home()})
	dst := filepath.Join(t.TempDir(), "out.json")
	n, err := Export(path, dst, []string{"deep"}, false)
	if err != nil || n != 1 {
		t.Fatalf("Export = %d, %v", n, err)
	}
	first, _ := os.ReadFile(dst)
	if _, err := Export(path, dst, nil, false); err == nil || !strings.Contains(err.Error(), dst+" already exists") {
		t.Fatalf("export over a file: %v", err)
	}
	if again, _ := os.ReadFile(dst); !bytes.Equal(again, first) {
		t.Fatal("export overwrote without force")
	}
	if n, err := Export(path, dst, nil, true); err != nil || n != 2 {
		t.Fatalf("forced export = %d, %v", n, err)
	}
	if _, err := Export(path, dst, []string{"nope"}, true); err == nil || !strings.Contains(err.Error(), `no bookmark named "nope"`) {
		t.Fatalf("unknown name: %v", err)
	}
	// Round trip through an export and an import into a fresh store.
	fresh := tempPath(t)
	if _, err := Import(fresh, dst); err != nil {
		t.Fatal(err)
	}
	s, _ := Load(fresh)
	if b, _ := s.Get("deep"); b.Location != deepLocation(t) {
		t.Fatalf("export/import changed the location: %v", b.Location)
	}
	entries, _ := os.ReadDir(filepath.Dir(dst))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// TestHelperAdder is not a test: run by TestConcurrentProcesses in child processes, it adds
// bookmarks to the file named by the environment.
func TestHelperAdder(t *testing.T) {
	path := os.Getenv("BOOKMARKS_HELPER_PATH")
	if path == "" {
		t.Skip("helper process only")
	}
	prefix := os.Getenv("BOOKMARKS_HELPER_PREFIX")
	n, _ := strconv.Atoi(os.Getenv("BOOKMARKS_HELPER_COUNT"))
	for i := range n {
		l := deepLocation(t)
		l.Iterations = 100 + i
		if err := Add(path, Bookmark{Name: fmt.Sprintf("%s %d", prefix, i), Location: l}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
}

func TestConcurrentProcesses(t *testing.T) {
	path := tempPath(t)
	const procs, each = 2, 20
	var cmds []*exec.Cmd
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAdder$")
		cmd.Env = append(os.Environ(), "BOOKMARKS_HELPER_PATH="+path,
			fmt.Sprintf("BOOKMARKS_HELPER_PREFIX=proc%d", p), fmt.Sprintf("BOOKMARKS_HELPER_COUNT=%d", each))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(out.String())
			}
		})
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("helper: %v", err)
		}
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != procs*each {
		t.Fatalf("%d bookmarks, want %d: %q", s.Len(), procs*each, s.Names())
	}
	for p := range procs {
		for i := range each {
			b, ok := s.Get(fmt.Sprintf("proc%d %d", p, i))
			if !ok || b.Location.Iterations != 100+i || b.Location.Re.String() != re60 {
				t.Fatalf("proc%d %d missing or wrong: %v", p, i, b)
			}
		}
	}
}

func TestTypeErrorMessages(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{`[]`, "the top level holds a JSON array where an object belongs"},
		{`{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "iterations": 1.5}]}`, `field "bookmarks.iterations" holds a JSON number 1.5 where a whole number belongs`},
		{`{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": true}]}`, `field "bookmarks.name" holds a JSON bool where a string belongs`},
	} {
		if _, err := Parse([]byte(c.text)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want %q", c.text, err, c.want)
		}
	}
}

func TestSymlinkedFileStaysALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles", "bookmarks.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	if err := Add(target, Bookmark{Name: "a", Location: home()}); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config", "bookmarks.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := Add(link, Bookmark{Name: "b", Location: home()}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	s, err := Load(target)
	if err != nil || strings.Join(s.Names(), ",") != "a,b" {
		t.Fatalf("target has %v (%v)", s.Names(), err)
	}
}

// TestColouringFields: a bookmark's colouring beyond the palette round-trips through the file
// (format version 2); a file whose bookmarks all use the default colouring stays version 1,
// readable by older versions; bad values are damage, named.
func TestColouringFields(t *testing.T) {
	path := tempPath(t)
	if err := Add(path, Bookmark{Name: "plain", Location: home()}); err != nil {
		t.Fatal(err)
	}
	if text, _ := os.ReadFile(path); !bytes.Contains(text, []byte(`"version": 1,`)) || bytes.Contains(text, []byte("colouring")) {
		t.Errorf("a file of default colourings:\n%s", text)
	}
	loc := deepLocation(t)
	loc.Color.Method, loc.Color.Transfer, loc.Color.Width, loc.Color.Light, loc.Color.Strength = colour.MethodSlopes, colour.TransferLog, 3, -45, 0.5
	loc.Color.Interior = colour.InteriorMultiplier
	if err := Add(path, Bookmark{Name: "lit", Location: loc}); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !bytes.Contains(text, []byte(`"version": 2,`)) || !bytes.Contains(text, []byte(`"colouring": "slopes"`)) {
		t.Errorf("file with a slopes bookmark:\n%s", text)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Get("lit"); b.Location != loc {
		t.Errorf("read back %+v, wrote %+v", b.Location.Color, loc.Color)
	}
	bad := `{"format": "mandelscope-bookmarks", "version": 2, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, %s}]}`
	for field, want := range map[string]string{
		`"colouring": "plasma"`: `unknown colouring "plasma"`,
		`"transfer": "x"`:       "unknown transfer function",
		`"interior": "x"`:       "unknown interior colouring",
		`"width": 1e9`:          "line width 1e+09 is out of range",
		`"strength": -1`:        "light strength -1 is out of range",
		`"light": 400`:          "light angle 400 is out of range",
		`"width": "1"`:          "holds a JSON string where a number belongs",
	} {
		if _, err := Parse([]byte(fmt.Sprintf(bad, field))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", field, err, want)
		}
	}
}

// TestGradientField: a bookmark's gradient travels by value (format version 3, only when a
// bookmark has one), reads back equal, and a bad one is damage, named.
func TestGradientField(t *testing.T) {
	path := tempPath(t)
	loc := home()
	loc.Color.Method = colour.MethodDistance
	if err := Add(path, Bookmark{Name: "lines", Location: loc}); err != nil {
		t.Fatal(err)
	}
	if text, _ := os.ReadFile(path); !bytes.Contains(text, []byte(`"version": 2,`)) || bytes.Contains(text, []byte("gradient")) {
		t.Errorf("a file without gradients:\n%s", text)
	}
	g, err := colour.ParseGradientText("0:#1A0A3C,0.4:#E0503C,0.4:#FFD070,1:#1A0A3C")
	if err != nil {
		t.Fatal(err)
	}
	loc.Color = loc.Color.WithGradient("sunset", g)
	if err := Add(path, Bookmark{Name: "sunset", Location: loc}); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !bytes.Contains(text, []byte(`"version": 3,`)) || !bytes.Contains(text, []byte(`"gradient": "0:#1A0A3C,0.4:#E0503C,0.4:#FFD070,1:#1A0A3C"`)) {
		t.Errorf("file with a gradient:\n%s", text)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Get("sunset"); b.Location != loc {
		t.Errorf("read back %+v, wrote %+v", b.Location.Color, loc.Color)
	}
	bad := `{"format": "mandelscope-bookmarks", "version": 3, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": %q, "density": 1, "gradient": %q}]}`
	for _, c := range []struct{ palette, gradient, want string }{
		{"x", "#000000", "at least two colour stops"},
		{"x", "#000000,#GGGGGG", `"#GGGGGG" is not a colour`},
		{"x", "0.5:#000000,0.2:#FFFFFF", "position 0.2 comes before"},
		{"a b", "#000000,#FFFFFF", "may hold only letters"},
		{"", "#000000,#FFFFFF", "must be 1 to 64 characters"},
	} {
		if _, err := Parse([]byte(fmt.Sprintf(bad, c.palette, c.gradient))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want an error containing %q", c.palette, c.gradient, err, c.want)
		}
	}
	if _, err := Parse([]byte(strings.Replace(fmt.Sprintf(bad, "x", "#000000,#FFFFFF"), `"version": 3`, fmt.Sprintf(`"version": %d`, FormatVersion+1), 1))); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("version %d: %v", FormatVersion+1, err)
	}
}

func deepKFRCentre(t *testing.T) (re, im string) {
	t.Helper()
	data, err := os.ReadFile("../fractal/testdata/deep/locations.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 5 && f[0] == "misi1e1086" {
			return f[1], f[2]
		}
	}
	t.Fatal("no misi1e1086 in the deep locations")
	return "", ""
}

func TestDeepKFRRoundTrip(t *testing.T) {
	re, im := deepKFRCentre(t)
	if len(re) < 1000 || len(im) < 1000 {
		t.Fatalf("centre of %d and %d characters: want 1000+", len(re), len(im))
	}
	kfr := "Re: " + re + "\r\nIm: " + im + "\r\nZoom: 1.00000000000E1086\r\nIterations: 600000\r\n" +
		"IterDiv: 1.000000\r\nSmoothMethod: 0\r\nColorMethod: 7\r\nDifferences: 3\r\nColorOffset: 0\r\n" +
		"Rotate: 0.000000\r\nRatio: 360.000000\r\nColors: 255,255,255,128,0,64,\r\nInteriorColor: 0,0,0,\r\nSmooth: 1\r\n"
	dir := t.TempDir()
	src := filepath.Join(dir, "deep 1e1086.kfr")
	src2 := filepath.Join(dir, "deep 4e533.kfr")
	os.WriteFile(src, []byte(kfr), 0o644)
	os.WriteFile(src2, []byte("Re: "+re+"\nIm: "+im+"\nZoom: 4.00000000000E533\n"), 0o644)
	path := tempPath(t)
	for _, s := range []string{src, src2} {
		if _, err := Import(path, s); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, zoom string
		iterations int
	}{{"deep 1e1086", "1.00000000000E1086", 600000}, {"deep 4e533", "4.00000000000E533", 1_000_000}} {
		b, ok := s.Get(c.name)
		if !ok {
			t.Fatalf("no bookmark %q; have %q", c.name, s.Names())
		}
		l := b.Location
		if l.Re.String() != re || l.Im.String() != im || l.Zoom.String() != c.zoom || l.Iterations != c.iterations {
			t.Errorf("%s: zoom %s, %d iterations, centre of %d and %d characters (digits kept: %v)", c.name,
				l.Zoom, l.Iterations, len(l.Re.String()), len(l.Im.String()), l.Re.String() == re && l.Im.String() == im)
		}
		if err := l.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	data, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := again.List(), s.List(); len(a) != len(b) || a[0].Location != b[0].Location || a[1].Location != b[1].Location {
		t.Errorf("a write and a read changed the deep bookmarks")
	}
}

// TestParseKFRLatin1: KF writes the Windows code page; a Latin-1 byte in a line the import
// ignores no longer makes the file "not a text file", and a binary file still is one.
func TestParseKFRLatin1(t *testing.T) {
	b, err := ParseKFR([]byte("Re: -0.75\r\nIm: 0.1\r\nZoom: 1E5\r\nTitle: caf\xe9 cr\xe8me\r\nIterations: 500\r\n"), "place")
	if err != nil || b.Location.Re.String() != "-0.75" || b.Location.Iterations != 500 {
		t.Errorf("Latin-1 .kfr: %+v %v", b.Location, err)
	}
	for _, bin := range []string{"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "\xff\xfeR\x00e\x00:\x00"} {
		if _, err := ParseKFR([]byte(bin), "x"); err == nil || err.Error() != "it is not a text file" {
			t.Errorf("%q: %v", bin, err)
		}
	}
}

// TestAutoDensityField: an automatic density (a fresh view's) round-trips through the file
// with the number it was drawn with, as format version 4 (only when a bookmark has one).
func TestAutoDensityField(t *testing.T) {
	path := tempPath(t)
	loc := fractal.Home()
	loc.Color.Density = 0.0078125
	if !loc.Color.AutoDensity {
		t.Fatal("a fresh view's density is not automatic")
	}
	if err := Add(path, Bookmark{Name: "fresh", Location: loc}); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !bytes.Contains(text, []byte(`"version": 4,`)) || !bytes.Contains(text, []byte(`"densityAuto": true`)) {
		t.Errorf("a file with an automatic density:\n%s", text)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Get("fresh"); b.Location != loc {
		t.Errorf("read back %+v, wrote %+v", b.Location.Color, loc.Color)
	}
}

// TestOrbitFields: a bookmark's bailout and stripe parameters travel (format version 7, only
// when a bookmark has one), read back equal (the defaults written by hand read as the
// defaults), and bad ones are damage, named.
func TestOrbitFields(t *testing.T) {
	path := tempPath(t)
	if err := Add(path, Bookmark{Name: "plain", Location: home()}); err != nil {
		t.Fatal(err)
	}
	if text, _ := os.ReadFile(path); bytes.Contains(text, []byte("bailout")) || bytes.Contains(text, []byte(`"version": 7`)) {
		t.Errorf("a file at the defaults:\n%s", text)
	}
	loc := deepLocation(t)
	loc.Bailout, loc.StripeDensity, loc.StripeLast = 1000, 7, 20
	if err := Add(path, Bookmark{Name: "far", Location: loc}); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !bytes.Contains(text, []byte(`"version": 7,`)) || !bytes.Contains(text, []byte(`"bailout": 1000`)) || !bytes.Contains(text, []byte(`"stripeLast": 20`)) {
		t.Errorf("file with a bailout:\n%s", text)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Get("far"); b.Location != loc {
		t.Errorf("read back %+v, wrote %+v", b.Location, loc)
	}
	file := `{"format": "mandelscope-bookmarks", "version": 7, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1, %s}]}`
	s, err = Parse([]byte(fmt.Sprintf(file, `"bailout": 2, "stripeDensity": 5, "stripeLast": 16`)))
	if b, _ := s.Get("a"); err != nil || b.Location.Bailout != 0 || b.Location.StripeDensity != 0 || b.Location.StripeLast != 0 {
		t.Errorf("the defaults written out read as %+v, %v", b.Location, err)
	}
	for field, want := range map[string]string{
		`"bailout": 1e20`:      "bailout 1e+20 is out of range (2 to 1e10)",
		`"bailout": 1`:         "bailout 1 is out of range (2 to 1e10)",
		`"stripeDensity": 100`: "stripe density 100 is out of range (1 to 64)",
		`"stripeLast": -2`:     "stripe last -2 is out of range (1 to 64)",
		`"stripeLast": 1.5`:    "stripeLast",
		`"bailout": "1000"`:    "holds a JSON string where a number belongs",
	} {
		if _, err := Parse([]byte(fmt.Sprintf(file, field))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", field, err, want)
		}
	}
}

// TestRotationField: a rotated view's bookmark keeps its angle (format version 8, only when a
// bookmark is rotated: a file without one is written as before), reads back equal, version 7
// files still read (unrotated), and angles out of range or not numbers are damage, named.
func TestRotationField(t *testing.T) {
	path := tempPath(t)
	if err := Add(path, Bookmark{Name: "plain", Location: home()}); err != nil {
		t.Fatal(err)
	}
	if text, _ := os.ReadFile(path); bytes.Contains(text, []byte("rotation")) || bytes.Contains(text, []byte(`"version": 8`)) {
		t.Errorf("a file without a rotation:\n%s", text)
	}
	loc := deepLocation(t)
	loc.Rotation = -37.5
	if err := Add(path, Bookmark{Name: "turned", Location: loc}); err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile(path)
	if !bytes.Contains(text, []byte(`"version": 8,`)) || !bytes.Contains(text, []byte(`"rotation": -37.5`)) {
		t.Errorf("file with a rotation:\n%s", text)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Get("turned"); b.Location != loc {
		t.Errorf("read back %+v, wrote %+v", b.Location, loc)
	}
	file := `{"format": "mandelscope-bookmarks", "version": %d, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 10, "palette": "classic", "density": 1%s}]}`
	s, err = Parse([]byte(fmt.Sprintf(file, 7, "")))
	if b, _ := s.Get("a"); err != nil || b.Location.Rotation != 0 {
		t.Errorf("a version 7 file reads as %+v, %v", b.Location, err)
	}
	s, err = Parse([]byte(fmt.Sprintf(file, 8, `, "rotation": -180`)))
	if b, _ := s.Get("a"); err != nil || b.Location.Rotation != 180 {
		t.Errorf("rotation -180 reads as %+v, %v", b.Location, err)
	}
	for field, want := range map[string]string{
		`, "rotation": 181`:    "rotation 181 is out of range (-180 to 180 degrees)",
		`, "rotation": -1e300`: "rotation -1e+300 is out of range",
		`, "rotation": "90"`:   "holds a JSON string where a number belongs",
	} {
		if _, err := Parse([]byte(fmt.Sprintf(file, 8, field))); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", field, err, want)
		}
	}
}

// TestParseKFRFormula: a .kfr file's fractal type and power choose the formula (KF's type 0
// the Mandelbrot set of its power, 1 the Burning Ship, 4 the Mandelbar); a type, power, turn
// or stretch that Mandelscope would draw as another picture is refused in one sentence
// naming the line.
func TestParseKFRFormula(t *testing.T) {
	for _, c := range []struct {
		lines string
		kind  fractal.FormulaKind
		power int
	}{
		{"", fractal.Mandelbrot, 2},
		{"FractalType: 0\nPower: 3\n", fractal.Mandelbrot, 3},
		{"FractalType: 1\nPower: 2\n", fractal.BurningShip, 2},
		{"FractalType: 1\nPower: 4\n", fractal.BurningShip, 4},
		{"FractalType: 4\n", fractal.Mandelbar, 2},
		{"RotateAngle: 0\nStretchAmount: 0\n", fractal.Mandelbrot, 2},
	} {
		b, err := ParseKFR([]byte("Re: -1.75\nIm: 0.03\nZoom: 20\n"+c.lines), "k")
		if err != nil || b.Location.Formula.Kind != c.kind || b.Location.Formula.Power() != c.power {
			t.Errorf("%q: %v %v, want kind %v power %d", c.lines, b.Location.Formula, err, c.kind, c.power)
		}
	}
	for _, c := range []struct{ lines, want string }{
		{"FractalType: 2\n", `fractal type 2 is not one of Mandelscope's formulas`},
		{"FractalType: x\n", `the "FractalType:" line: "x" is not a whole number`},
		{"FractalType: 4\nPower: 3\n", `power 3 of Kalles Fraktaler's fractal type 4`},
		{"Power: 9\n", `power 9 of Kalles Fraktaler's fractal type 0`},
		{"RotateAngle: 30\n", `the "RotateAngle:" line: the view is turned or stretched (30)`},
		{"StretchAmount: 0.5\n", `the "StretchAmount:" line`},
	} {
		_, err := ParseKFR([]byte("Re: -1.75\nIm: 0.03\nZoom: 20\n"+c.lines), "k")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.lines, err, c.want)
		}
	}
}
