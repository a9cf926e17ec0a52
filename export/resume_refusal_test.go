package export

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// Issue 16, items 5 and 6 (export part): a resume is compared with its checkpoint before any
// costly work, and its refusal says which parameter differs, in one short line.

// longCentreLoc is a view at zoom 1e10000 whose real part is written with the most characters
// a decimal may have (fractal.MaxDecimalDigits): -0.999...9, inside the period-2 bulb, so that
// its reference orbit runs for every iteration it is given.
func longCentreLoc(t *testing.T) fractal.Location {
	t.Helper()
	re := "-0." + strings.Repeat("9", fractal.MaxDecimalDigits-3)
	loc, err := fractal.ParseLocationText("re="+re+" im=0 zoom=1e10000 iterations=200", fractal.Home())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(loc.Re.String()); n != fractal.MaxDecimalDigits {
		t.Fatalf("centre real part of %d characters, want %d", n, fractal.MaxDecimalDigits)
	}
	return loc
}

// countingReference replaces the export's reference orbit with one that counts its calls and
// computes nothing: a resume that is refused must never get there.
func countingReference(calls *int) func(context.Context, fractal.Frame) (fractal.Frame, error) {
	return func(context.Context, fractal.Frame) (fractal.Frame, error) {
		*calls++
		return fractal.Frame{}, errors.New("the reference orbit was computed")
	}
}

// A resume whose parameters differ from its checkpoint is refused before the
// reference orbit (at 1e10000 with a million iterations, minutes of work) is started.
func TestResumeRefusedBeforeReference(t *testing.T) {
	loc := longCentreLoc(t)
	opt := Options{Location: loc, Width: 48, Height: 32, StripBytes: 4 * 48 * 8, Version: "t"}
	path := interrupted(t, t.TempDir(), opt, 1)

	res := opt
	res.Resume = true
	res.Location.Iterations = 1_000_000
	calls := 0
	res.reference = countingReference(&calls)
	_, err := Export(context.Background(), &cpu.Renderer{}, path, res)
	if !errors.Is(err, ErrParamsDiffer) {
		t.Errorf("resume with another iteration count: %v, want ErrParamsDiffer", err)
	}
	if calls != 0 {
		t.Errorf("the reference orbit was started %d times before the refusal", calls)
	}

	// A damaged checkpoint is refused as early.
	calls = 0
	res.Location.Iterations = opt.Location.Iterations
	_, err = Export(context.Background(), &cpu.Renderer{}, filepath.Join(t.TempDir(), "none.png"), res)
	if !errors.Is(err, ErrNothingToResume) || calls != 0 {
		t.Errorf("resume without a checkpoint: %v after %d reference orbits", err, calls)
	}

	// The same parameters do get their reference, once, and resume.
	res.reference = nil
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
		t.Fatalf("resume with the same parameters: %v", err)
	}
}

// The refusal names each differing parameter with its old and new value, long values
// abbreviated, in one line of under 300 bytes, even for a centre of 12,288 characters; it
// never prints the whole parameter set.
func TestResumeRefusalNamesTheParameter(t *testing.T) {
	loc := longCentreLoc(t)
	opt := Options{Location: loc, Width: 48, Height: 32, StripBytes: 4 * 48 * 8, Version: "t"}
	path := interrupted(t, t.TempDir(), opt, 1)
	re := loc.Re.String()
	nines := strings.Repeat("9", 40)
	withRe := func(s string) func(*Options) {
		return func(o *Options) { o.Location.Re = fractal.MustDecimal(s) }
	}
	for _, tc := range []struct {
		name      string
		change    func(*Options)
		want, not []string
	}{
		{"re, last digit", withRe(re[:len(re)-1] + "8"),
			[]string{"centre re was -0.99999999999999999…(12286 digits)…99999999, now -0.99999999999999999…(12286 digits)…99999998"}, nil},
		{"re, a digit in the middle", withRe(re[:6000] + "8" + re[6001:]),
			[]string{"centre re was …99999999999999999999…, now …99999999998999999999…", "(12286 digits; they differ from character 6001 on)"}, nil},
		{"re, shorter", withRe("-0.5"), []string{"centre re was -0.99999999999999999…(12286 digits)…99999999, now -0.5"}, nil},
		{"iterations", func(o *Options) { o.Location.Iterations = 1_000_000 }, []string{"iterations was 200, now 1000000"}, nil},
		{"size", func(o *Options) { o.Width = 64 }, []string{"size was 48x32, now 64x32"}, []string{"rows per"}}, // not the strip heights that follow from it
		{"strip height", func(o *Options) { o.StripBytes /= 2 }, []string{"rows per strip was 8, now 4"}, nil},
		{"version", func(o *Options) { o.Version = "0.2.0" }, []string{"program version was t, now 0.2.0"}, nil},
		{"many", func(o *Options) {
			o.Location.Re = fractal.MustDecimal(re[:len(re)-1] + "8")
			o.Location.Im = fractal.MustDecimal("0." + strings.Repeat("1", 5000))
			o.Location.Zoom = fractal.MustDecimal("5e9999")
			o.Location.Iterations++
			o.Location.Color.Palette = "fire"
			o.Location.Color.Density = 2
			o.Location.Color.Method = colour.MethodSlopes
			o.Supersample = 2
			o.Version = "0.2.0"
		}, []string{"centre re was", "also centre im, zoom, iterations and ", " more"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := opt
			res.Resume = true
			tc.change(&res)
			calls := 0
			res.reference = countingReference(&calls)
			_, err := Export(context.Background(), &cpu.Renderer{}, path, res)
			if !errors.Is(err, ErrParamsDiffer) || calls != 0 {
				t.Fatalf("resume: %v after %d reference orbits, want ErrParamsDiffer before any", err, calls)
			}
			// The message names the checkpoint by its path, whose length is the user's; what
			// the export adds fits in 240 bytes, so that the line is under 300 for a folder
			// path of up to 60.
			msg := err.Error()
			short := strings.Replace(msg, CheckpointPath(path), "r.png.part.ckpt", 1)
			t.Logf("%d bytes: %s", len(msg), msg)
			if len(short) >= 240 || strings.ContainsAny(msg, "\n\r") || strings.Contains(msg, nines) || !utf8.ValidString(msg) {
				t.Errorf("a message of %d bytes (%d with the checkpoint's name for its path), want one line under 240 without the whole centre: %s", len(msg), len(short), msg)
			}
			for _, w := range append(tc.want, "different parameters") {
				if !strings.Contains(msg, w) {
					t.Errorf("%s\ndoes not say %q", msg, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(msg, w) {
					t.Errorf("%s\nsays %q", msg, w)
				}
			}
			noAdvice(t, err)
		})
	}
}

// paramsDiff with values that are not ASCII or not printable: the abbreviation cuts between
// characters, never inside one, and a control character cannot break the line.
func TestParamsDiffText(t *testing.T) {
	long := strings.Repeat("é", 30) + strings.Repeat("日本", 20)
	for _, tc := range []struct{ was, now, want string }{
		{"re=1 im=2", "re=1 im=3", "centre im was 2, now 3"},
		{"re=1 im=2", "re=1 im=2 colouring=slopes", "colouring was (none), now slopes"},
		{"version=" + long + "a", "version=" + long + "b", "program version was " + strings.Repeat("é", 20) + "…(71 characters)…本日本日本日本a, now " + strings.Repeat("é", 20) + "…(71 characters)…本日本日本日本b"},
		{"version=a\x1b[2Jb", "version=ab", "program version was a\uFFFD[2Jb, now ab"},
		{"version=a\u2028b", "version=ab", "program version was a b, now ab"}, // a line separator is a space between words
		{"re=1 im=2", "re=1 im=2", ""},
		{"re=1", "re=1 " + strings.Repeat("k", 1000) + "\x07=1", "kkkkkkkkkkkkkkkkkkkk…(1001 characters)…kkkkkkk\uFFFD was (none), now 1"},
	} {
		got := paramsDiff(tc.was, tc.now)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("paramsDiff(%q, %q)\n = %q\nwant %q", tc.was, tc.now, got, tc.want)
		}
	}
}

// TestResumeComparesNumbers (issue 39: export --resume compared julia=0.0,1 with 0,1 as text
// and refused): a resume whose centre, zoom or Julia parameter is the same number written
// otherwise goes on, and the image is the one an uninterrupted export of the first spelling
// writes; a number that differs is still refused, named.
func TestResumeComparesNumbers(t *testing.T) {
	parse := func(s string) fractal.Location {
		t.Helper()
		l, err := fractal.ParseLocationText(s, fractal.Home())
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, c := range []struct{ first, again string }{
		{"re=0.0 im=0.00 julia=0.0,1 zoom=1.0 iterations=100", "re=0 im=0 julia=0,1 zoom=1 iterations=100"},
		{"re=-0.5 im=0 julia=-0.75,0.1 zoom=2 iterations=100", "re=-0.50 im=0e5 julia=-7.5e-1,0.10 zoom=2.000 iterations=100"},
		{"re=-0.75 im=0.1 zoom=5 iterations=100", "re=-0.750 im=1e-1 zoom=5e0 iterations=100"},
	} {
		dir := t.TempDir()
		opt := Options{Location: parse(c.first), Width: 48, Height: 32, StripBytes: 4 * 48 * 8, Version: "t"}
		want, _ := export(t, t.TempDir(), opt)
		path := interrupted(t, dir, opt, 1)
		res := opt
		res.Resume, res.Location = true, parse(c.again)
		if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); err != nil {
			t.Errorf("%s resumed as %s: %v", c.first, c.again, err)
			continue
		}
		if string(mustRead(t, path)) != string(mustRead(t, want)) {
			t.Errorf("%s resumed as %s: not the uninterrupted export's file", c.first, c.again)
		}
	}
	dir := t.TempDir()
	opt := Options{Location: parse("re=0 im=0 julia=0,1 zoom=1 iterations=100"), Width: 48, Height: 32, StripBytes: 4 * 48 * 8, Version: "t"}
	path := interrupted(t, dir, opt, 1)
	res := opt
	res.Resume, res.Location = true, parse("re=0 im=0 julia=0,1.0000000000000000001 zoom=1 iterations=100")
	if _, err := Export(context.Background(), &cpu.Renderer{}, path, res); !errors.Is(err, ErrParamsDiffer) || !strings.Contains(err.Error(), "julia parameter was 0,1, now 0,1.0000000000000000001") {
		t.Errorf("another Julia parameter: %v", err)
	}
}
