package cli

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"mandelscope/bookmarks"
	"mandelscope/fractal"
)

const (
	bmRe60 = "-1.74006238257933990522084416706582563829664172043617186687986"
	bmIm60 = "0.00000000000000000000000000000000000000000000000000000000000000028"
)

// bm runs `mandelscope bookmarks ARGS` in-process and returns its exit code and output.
func bm(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(append([]string{"bookmarks"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

// bmOK is bm that must succeed.
func bmOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := bm(t, args...)
	if code != 0 {
		t.Fatalf("bookmarks %q: exit %d: %s", args, code, errs)
	}
	return out
}

// bmFile points the bookmarks commands at a fresh file.
func bmFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "conf", "bookmarks.json")
	t.Setenv(bookmarks.EnvPath, path)
	return path
}

func TestBookmarksCLIRoundTrip(t *testing.T) {
	path := bmFile(t)
	if out := bmOK(t, "list"); out != "" {
		t.Fatalf("empty list printed %q", out)
	}
	// NAME after the flags, before them, and between them.
	bmOK(t, "add", "--center="+bmRe60+","+bmIm60, "--zoom=2.5e40", "--iterations=5000", "--palette=fire", "--thumbnail=false", "deep spiral")
	bmOK(t, "add", "seahorse", "--center=-0.75,0.1", "--zoom=20")
	bmOK(t, "add", "--center=-0.5,0", "mixed", "--zoom=1", "--palette=grey")
	out := bmOK(t, "list")
	want := "deep spiral\t--center=" + bmRe60 + "," + bmIm60 + " --zoom=2.5e40 --iterations=5000 --palette=fire --density=auto --offset=0 --colouring=smooth --transfer=linear\n" +
		fmt.Sprintf("seahorse\t--center=-0.75,0.1 --zoom=20 --iterations=%d --palette=classic --density=auto --offset=0 --colouring=smooth --transfer=linear\n", fractal.AutoIterations(20)) +
		"mixed\t--center=-0.5,0 --zoom=1 --iterations=200 --palette=grey --density=auto --offset=0 --colouring=smooth --transfer=linear\n"
	if out != want {
		t.Fatalf("list:\n%s\nwant:\n%s", out, want)
	}
	s, err := bookmarks.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s.Get("deep spiral")
	if b.Location.Re.String() != bmRe60 || b.Location.Im.String() != bmIm60 || b.Location.Zoom.String() != "2.5e40" || len(b.Thumbnail) != 0 {
		t.Fatalf("stored %v (thumbnail %d bytes)", b.Location, len(b.Thumbnail))
	}
	// The default thumbnail is a 96x54 PNG.
	sh, _ := s.Get("seahorse")
	img, err := png.Decode(bytes.NewReader(sh.Thumbnail))
	if err != nil || img.Bounds().Dx() != 96 || img.Bounds().Dy() != 54 {
		t.Fatalf("thumbnail: %v %v", err, img)
	}

	bmOK(t, "rename", "mixed", "whole set")
	bmOK(t, "rm", "seahorse")
	if _, err := os.Stat(path + ".bak"); err != nil {
		t.Fatalf("no backup: %v", err)
	}
	if out := bmOK(t, "list"); !strings.Contains(out, "whole set\t") || strings.Contains(out, "seahorse") || strings.Contains(out, "mixed") {
		t.Fatalf("after rename and rm:\n%s", out)
	}

	// Export, then import into a fresh file: the 60 digits survive.
	exp := filepath.Join(t.TempDir(), "export.json")
	bmOK(t, "export", exp)
	if code, _, errs := bm(t, "export", exp); code != 1 || !strings.Contains(errs, exp+" already exists") || !strings.Contains(errs, "--force") {
		t.Fatalf("export over a file: %d %s", code, errs)
	}
	bmOK(t, "export", "--force", "--name=deep spiral", exp)
	bmFile(t)
	if out := bmOK(t, "import", exp); !strings.Contains(out, `imported 1 bookmark(s)`) {
		t.Fatalf("import: %s", out)
	}
	if out := bmOK(t, "list"); out != "deep spiral\t--center="+bmRe60+","+bmIm60+" --zoom=2.5e40 --iterations=5000 --palette=fire --density=auto --offset=0 --colouring=smooth --transfer=linear\n" {
		t.Fatalf("after import:\n%s", out)
	}

	// A .kfr parameter file keeps its digits; its name clashes and gets a suffix.
	kfr := filepath.Join(t.TempDir(), "deep spiral.kfr")
	os.WriteFile(kfr, []byte("Re: "+bmRe60+"\r\nIm: -"+bmIm60+"\r\nZoom: 3E20\r\nIterations: 7000\r\nColorMethod: 7\r\n"), 0o644)
	if out := bmOK(t, "import", kfr); !strings.Contains(out, `"deep spiral (2)"`) {
		t.Fatalf("kfr import: %s", out)
	}
	if out := bmOK(t, "list"); !strings.Contains(out, "deep spiral (2)\t--center="+bmRe60+",-"+bmIm60+" --zoom=3E20 --iterations=7000 --palette=classic --density=auto --offset=0 --colouring=smooth --transfer=linear\n") {
		t.Fatalf("after kfr import:\n%s", out)
	}
}

func TestBookmarksCLIErrors(t *testing.T) {
	bmFile(t)
	bmOK(t, "add", "--center=0,0", "--zoom=1", "x")
	if code, out, errs := bm(t, "add", "-h"); code != 0 || strings.Count(out, "usage: mandelscope bookmarks add ") != 1 || errs != "" {
		t.Errorf("add -h: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "missing subcommand"},
		{[]string{"frob"}, 2, `unknown subcommand "frob"`},
		{[]string{"add", "--center=0,0", "--zoom=1"}, 2, "missing bookmark NAME"},
		{[]string{"add", "--zoom=1", "y"}, 2, "missing --center"},
		{[]string{"add", "--center=0,0", "y"}, 2, "missing --zoom"},
		{[]string{"add", "--center=0,0", "--zoom=1", "a", "b"}, 2, `unexpected argument "b"`},
		{[]string{"add", "--center=0,0", "--zoom=1", "x"}, 1, `bookmark "x" already exists`},
		{[]string{"add", "--center=0,0", "--zoom=1", " "}, 2, "bookmark name is empty"},
		{[]string{"add", "--center=1.2.3,0", "--zoom=1", "y"}, 2, "--center: real part"},
		{[]string{"add", "--center=0,0", "--zoom=1", "--palette=mauve", "y"}, 2, `--palette: unknown palette "mauve"`},
		{[]string{"rm"}, 2, "missing bookmark NAME"},
		{[]string{"rm", "nope"}, 1, `no bookmark named "nope"`},
		{[]string{"rename", "x"}, 2, "missing NEW name"},
		{[]string{"rename", "nope", "z"}, 1, `no bookmark named "nope"`},
		{[]string{"rename", "x", "a\tb"}, 2, "control character"},
		{[]string{"import"}, 2, "missing FILE"},
		{[]string{"import", "/nonexistent/file.kfr"}, 1, "cannot read /nonexistent/file.kfr"},
		{[]string{"export"}, 2, "missing FILE"},
		{[]string{"export", "--name=nope", filepath.Join(t.TempDir(), "o.json")}, 1, `no bookmark named "nope"`},
		{[]string{"list", "--bogus"}, 2, "flag provided but not defined"},
	} {
		code, _, errs := bm(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("bookmarks %q: exit %d, stderr %q; want exit %d and %q on one line", c.args, code, errs, c.code, c.want)
		}
	}
}

// TestBookmarksCLIDamagedFile checks that every command refuses a damaged file, names it,
// and leaves it byte for byte.
func TestBookmarksCLIDamagedFile(t *testing.T) {
	good := filepath.Join(t.TempDir(), "good.json")
	bmFile(t)
	bmOK(t, "add", "--center=0,0", "--zoom=1", "--thumbnail=false", "g")
	bmOK(t, "export", good)
	for name, text := range map[string]string{
		"truncated":    `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "-0.5",`,
		"garbage":      "\x89PNG\r\n\x1a\n\x00\x00garbage",
		"wrong types":  `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": 5}]}`,
		"not a number": `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "-1.740062382579339905220844167065825638296641720436171866879x", "im": "0", "zoom": "1", "iterations": 9, "palette": "classic", "density": 1}]}`,
		"huge density": `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 9, "palette": "classic", "density": 1e308}]}`,
		"twice":        `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "name": "b", "re": "0", "im": "0", "zoom": "1", "iterations": 9, "palette": "classic", "density": 1}]}`,
		"not UTF-8":    "{\"format\": \"mandelscope-bookmarks\", \"version\": 1, \"bookmarks\": [{\"name\": \"\xff\", \"re\": \"0\", \"im\": \"0\", \"zoom\": \"1\", \"iterations\": 9, \"palette\": \"classic\", \"density\": 1}]}",
	} {
		path := bmFile(t)
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(text), 0o644)
		for _, args := range [][]string{
			{"list"},
			{"add", "--center=0,0", "--zoom=1", "n"},
			{"rm", "a"},
			{"rename", "a", "b"},
			{"import", good},
			{"export", filepath.Join(t.TempDir(), "out.json")},
		} {
			code, _, errs := bm(t, args...)
			want := "mandelscope bookmarks: bookmarks file " + path + " is damaged: "
			if code == 0 || !strings.HasPrefix(errs, want) || !strings.HasSuffix(errs, "; it was left untouched\n") {
				t.Errorf("%s: %q: exit %d, stderr %q", name, args, code, errs)
			}
			if got, _ := os.ReadFile(path); string(got) != text {
				t.Fatalf("%s: %q changed the damaged file", name, args)
			}
		}
	}
}

// TestBookmarksCLIHelper is not a test: TestBookmarksCLIConcurrent runs the test binary as
// the mandelscope command through it.
func TestBookmarksCLIHelper(t *testing.T) {
	if os.Getenv("MANDELSCOPE_CLI_HELPER") != "1" {
		t.Skip("helper process only")
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(Run(args, os.Stdout, os.Stderr))
}

// TestBookmarksCLIConcurrent runs two streams of 20 `bookmarks add` processes at once on one
// file: all 40 bookmarks must be there.
func TestBookmarksCLIConcurrent(t *testing.T) {
	path := bmFile(t)
	const streams, each = 2, 20
	var wg sync.WaitGroup
	errs := make(chan error, streams*each)
	for s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				cmd := exec.Command(os.Args[0], "-test.run=^TestBookmarksCLIHelper$", "--",
					"bookmarks", "add", fmt.Sprintf("--center=%s,%d", bmRe60, i%2), fmt.Sprintf("--zoom=%d", 1+i), "--thumbnail=false", fmt.Sprintf("stream %d #%d", s, i))
				cmd.Env = append(os.Environ(), "MANDELSCOPE_CLI_HELPER=1", bookmarks.EnvPath+"="+path)
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Errorf("stream %d #%d: %v: %s", s, i, err, out)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, err := bookmarks.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != streams*each {
		t.Fatalf("%d bookmarks, want %d", s.Len(), streams*each)
	}
	for st := range streams {
		for i := range each {
			b, ok := s.Get(fmt.Sprintf("stream %d #%d", st, i))
			if !ok || b.Location.Re.String() != bmRe60 || b.Location.Zoom.String() != fmt.Sprint(1+i) {
				t.Fatalf("stream %d #%d: %v %v", st, i, ok, b.Location)
			}
		}
	}
}

// TestBookmarksCLIFromFileValidated checks that `export --bookmark` refuses a bookmark whose
// colouring is out of range (a density of 1e308 panicked the palette) with one clear line,
// writing nothing.
func TestBookmarksCLIFromFileValidated(t *testing.T) {
	path := bmFile(t)
	os.MkdirAll(filepath.Dir(path), 0o755)
	text := `{"format": "mandelscope-bookmarks", "version": 1, "bookmarks": [{"name": "a", "re": "0", "im": "0", "zoom": "1", "iterations": 9, "palette": "classic", "density": 1e308}]}`
	os.WriteFile(path, []byte(text), 0o644)
	out := filepath.Join(t.TempDir(), "out.png")
	var stdout, stderr bytes.Buffer
	code := Run([]string{"export", "--renderer=cpu", "--bookmark=a", "--size=8x8", "-o", out}, &stdout, &stderr)
	msg := stderr.String()
	if code == 0 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "palette density 1e+308 is out of range") || strings.Contains(msg, "goroutine") {
		t.Fatalf("export --bookmark: exit %d, stderr %q", code, msg)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("an image was written")
	}
}

// TestBookmarksCLIReadOnly checks that a read-only bookmarks file is not replaced by a change
// from the command line: one line naming the file, the file unchanged.
func TestBookmarksCLIReadOnly(t *testing.T) {
	path := bmFile(t)
	bmOK(t, "add", "--center=0,0", "--zoom=1", "--thumbnail=false", "a")
	before, _ := os.ReadFile(path)
	os.Chmod(path, 0o444)
	for _, args := range [][]string{
		{"add", "--center=0,0", "--zoom=2", "--thumbnail=false", "b"},
		{"rm", "a"},
		{"rename", "a", "c"},
	} {
		code, _, errs := bm(t, args...)
		if code == 0 || errs != "mandelscope bookmarks: bookmarks file "+path+" is read-only; nothing was changed\n" {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Fatal("the read-only file was changed")
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o444 {
		t.Fatalf("mode is now %v", fi.Mode().Perm())
	}
}

// TestBookmarksCLIListEscapes checks that `bookmarks list` prints a name holding a character
// that would rearrange the terminal's line (U+202E, right-to-left override) escaped, and
// plain names as they are.
func TestBookmarksCLIListEscapes(t *testing.T) {
	bmFile(t)
	bmOK(t, "add", "--center=0,0", "--zoom=1", "--thumbnail=false", "gnp.\u202eexe")
	bmOK(t, "add", "--center=0,0", "--zoom=1", "--thumbnail=false", "café 🐴")
	bmOK(t, "add", "--center=0,0", "--zoom=1", "--thumbnail=false", `"quoted"`)
	out := bmOK(t, "list")
	for _, want := range []string{`"gnp.\u202eexe"` + "\t--center=0,0", "café 🐴\t--center=0,0", `"\"quoted\""` + "\t--center"} {
		if !strings.Contains(out, want+"") {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsRune(out, '\u202e') {
		t.Errorf("list printed U+202E raw:\n%q", out)
	}
}

// Issue 31, item 7: `bookmarks list` prints everything the picture needs (density, offset,
// colouring, transfer, line width, light): an export with the flags it prints is byte for
// byte the export of the bookmark.
func TestBookmarksListFlagsDrawTheBookmark(t *testing.T) {
	bmFile(t)
	dir := t.TempDir()
	view := []string{"--center=-0.7453,0.1127", "--zoom=180", "--iterations=400", "--thumbnail=false"}
	bmOK(t, append([]string{"add"}, append(view, "--density=0.37", "--offset=0.25", "--colouring=distance", "--transfer=sqrt", "--line-width=2.5", "--palette=fire", "lines")...)...)
	bmOK(t, append([]string{"add"}, append(view, "--density=2", "--offset=0.6", "--colouring=slopes", "--transfer=log", "--interior=period", "--light=30", "--light-strength=0.7", "relief")...)...)
	bmOK(t, append([]string{"add"}, append(view, "--offset=0.5", "auto")...)...)
	lines := strings.Split(strings.TrimSpace(bmOK(t, "list")), "\n")
	if len(lines) != 3 {
		t.Fatalf("list: %q", lines)
	}
	for _, line := range lines {
		name, flags, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("list line %q has no tab", line)
		}
		a, b := filepath.Join(dir, name+"-flags.png"), filepath.Join(dir, name+"-bookmark.png")
		mustExport(t, append(strings.Fields(flags), "--renderer=cpu", "--size=96x54", "-o", a)...)
		mustExport(t, "--bookmark="+name, "--renderer=cpu", "--size=96x54", "-o", b)
		if !bytes.Equal(readFile(t, a), readFile(t, b)) {
			t.Errorf("%s: export %s differs from export --bookmark=%s", name, flags, name)
		}
	}
}
