package cli

import (
	"bytes"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/fractal"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string][2]int{"32k": {30720, 17280}, "1080p": {1920, 1080}, "4K": {3840, 2160}, "640x480": {640, 480}, "1x65536": {1, 65536}} {
		w, h, err := parseSize(in)
		if err != nil || w != want[0] || h != want[1] {
			t.Errorf("parseSize(%q) = %d, %d, %v; want %v", in, w, h, err, want)
		}
	}
	for _, in := range []string{"", "0x10", "10x0", "-5x10", "10", "axb", "65537x10", "10x10x10", "1e3x10"} {
		if _, _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted bad input", in)
		}
	}
}

func TestLocationFlagErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct{ arg, flag string }{
		{"--center=1", "--center"},
		{"--center=a,b", "--center"},
		{"--center=NaN,0", "--center"},
		{"--center=5,0", "--center"},
		{"--zoom=0", "--zoom"},
		{"--zoom=-3", "--zoom"},
		{"--zoom=NaN", "--zoom"},
		{"--zoom=Inf", "--zoom"},
		{"--zoom=abc", "--zoom"},
		{"--iterations=0", "--iterations"},
		{"--iterations=2.5", "--iterations"},
		{"--iterations=1000000000", "--iterations"},
		{"--palette=nope", "--palette"},
		{"--density=0", "--density"},
		{"--colouring=plasma", "--colouring"},
		{"--transfer=cube", "--transfer"},
		{"--interior=pink", "--interior"},
		{"--line-width=0", "--line-width"},
		{"--line-width=NaN", "--line-width"},
		{"--light=1e9", "--light"},
		{"--light-strength=2", "--light-strength"},
	} {
		fs := NewFlagSet("test", &bytes.Buffer{})
		lf := AddLocationFlags(fs)
		if _, err := ParseFlags(fs, []string{tc.arg}); err != nil {
			t.Fatal(err)
		}
		_, err := lf.Apply(fractal.Home(), true)
		if err == nil || !strings.Contains(err.Error(), tc.flag) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming %s", tc.arg, err, tc.flag)
		}
	}
}

func TestLocationFlagsKeepDigits(t *testing.T) {
	const re = "-0.743643887037158704752191506114774000000000000000000000000001"
	fs := NewFlagSet("test", &bytes.Buffer{})
	lf := AddLocationFlags(fs)
	if _, err := ParseFlags(fs, []string{"--center=" + re + ",0.5", "--zoom=1e40"}); err != nil {
		t.Fatal(err)
	}
	l, err := lf.Apply(fractal.Home(), true)
	if err != nil {
		t.Fatal(err)
	}
	if l.Re.String() != re || l.Im.String() != "0.5" || l.Zoom.String() != "1e40" {
		t.Errorf("got %v", l)
	}
	if l.Iterations != fractal.AutoIterations(1e40) {
		t.Errorf("iterations %d, want the automatic %d", l.Iterations, fractal.AutoIterations(1e40))
	}
}

func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run([]string{"frobnicate"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown command") {
		t.Errorf("exit %d, %q", code, errb.String())
	}
}

func FuzzParseCenter(f *testing.F) {
	for _, s := range []string{"-0.5,0", "1,2,3", "a,b", ",", "NaN,0", "-0.743643887037158704752191506114774,0.1318259042053119704931320563851390"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		re, im, err := parseCenter(s)
		if err != nil {
			return
		}
		for _, d := range []fractal.Decimal{re, im} {
			if v := d.Float64(); !(v >= -fractal.MaxCentre && v <= fractal.MaxCentre) {
				t.Fatalf("accepted %q with a part out of range", s)
			}
		}
		parts := strings.Split(s, ",")
		if re.String() != strings.TrimSpace(parts[0]) || im.String() != strings.TrimSpace(parts[1]) {
			t.Fatalf("digits changed: %q -> %s,%s", s, re, im)
		}
	})
}

func FuzzParseZoom(f *testing.F) {
	for _, s := range []string{"1", "1.7777777777777777", "1e300", "1e301", "0", "-1", "NaN", "Inf", "1e-4", "1e1086", "4.00000000000E533", "1e10001"} {
		f.Add(s)
	}
	lo, hi := fractal.NewExp(fractal.MinZoom), fractal.MustDecimal(fractal.MaxZoom).Exp()
	f.Fuzz(func(t *testing.T, s string) {
		z, err := parseZoom(s)
		if err != nil {
			return
		}
		if v := z.Exp(); v.Cmp(lo) < 0 || v.Cmp(hi) > 0 {
			t.Fatalf("accepted zoom %q = %v", s, v)
		}
	})
}

// TestParseFlagsNegativeNumbers checks that an argument starting with a minus sign and a digit
// or a point is a positional argument (a negative pixel coordinate), wherever it stands, while
// a flag that takes a value still takes a negative one.
func TestParseFlagsNegativeNumbers(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  string
		off  string
	}{
		{[]string{"-1,5"}, "-1,5", ""},
		{[]string{"--offset=0.5", "-1,5", "-.5,-2"}, "-1,5|-.5,-2", "0.5"},
		{[]string{"-1,5", "--offset", "-0.25", "3,4"}, "-1,5|3,4", "-0.25"},
		{[]string{"-offset", "-3", "-7,-7", "--force"}, "-7,-7", "-3"},
		{[]string{"--force", "-2,0"}, "-2,0", ""},
		{[]string{"--", "--offset=1", "-x"}, "--offset=1|-x", ""},
		{[]string{"-", "1,2"}, "-|1,2", ""},
	} {
		fs := NewFlagSet("test", &bytes.Buffer{})
		off := fs.String("offset", "", "")
		fs.Bool("force", false, "")
		pos, err := ParseFlags(fs, c.args)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if got := strings.Join(pos, "|"); got != c.pos || *off != c.off {
			t.Errorf("%q: positional %q offset %q, want %q and %q", c.args, got, *off, c.pos, c.off)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-x1"}, "flag provided but not defined: -x1"},
		{[]string{"1,2", "--offset"}, "flag needs an argument: -offset"},
		{[]string{"--force=maybe"}, "invalid boolean value"},
	} {
		fs := NewFlagSet("test", &bytes.Buffer{})
		fs.String("offset", "", "")
		fs.Bool("force", false, "")
		if _, err := ParseFlags(fs, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}
}

// TestIterationsOutOfRange checks that a number too large for an int is called out of range,
// not a non-number.
func TestIterationsOutOfRange(t *testing.T) {
	if _, err := fractal.ParseIterations("99999999999999999999"); err == nil || err.Error() != "99999999999999999999 is out of range (1 to 100000000)" {
		t.Errorf("fractal.ParseIterations: %v", err)
	}
}

// TestZoomUnderflow checks that --zoom=1e-999 (positive, but 0 as a float64) is called out of
// range, not "must be positive".
func TestZoomUnderflow(t *testing.T) {
	if _, err := parseZoom("1e-999"); err == nil || !strings.Contains(err.Error(), "1e-999 is out of range") {
		t.Errorf("parseZoom(1e-999): %v", err)
	}
	if _, err := parseZoom("-0"); err == nil || !strings.Contains(err.Error(), "must be positive") {
		t.Errorf("parseZoom(-0): %v", err)
	}
	// Exactly, not in 53 bits: a hair below 1e-3 is below it.
	if _, err := parseZoom("0.00099999999999999999999"); err == nil || err.Error() != "0.00099999999999999999999 is out of range (0.001 to 1e10000)" {
		t.Errorf("parseZoom(0.00099999999999999999999): %v", err)
	}
	if z, err := parseZoom("0.001"); err != nil || z.String() != "0.001" {
		t.Errorf("parseZoom(0.001): %v %v", z, err)
	}
}

// TestZoomBeyondFloat64 checks that --zoom takes zooms past float64's range in either form
// (1e1086, KF's 4.00000000000E533) exactly as written, gives them Auto iterations, and refuses
// one past fractal.MaxZoom in one line.
func TestZoomBeyondFloat64(t *testing.T) {
	for _, s := range []string{"1e1086", "4.00000000000E533", "1e10000"} {
		z, err := parseZoom(s)
		if err != nil || z.String() != s {
			t.Errorf("parseZoom(%s) = %v, %v", s, z, err)
		}
		if n := (fractal.Location{Zoom: z}).AutoIterations(); n != 1_000_000 {
			t.Errorf("Auto iterations at %s: %d", s, n)
		}
	}
	if _, err := parseZoom("1e10001"); err == nil || err.Error() != "1e10001 is out of range (0.001 to 1e10000)" {
		t.Errorf("parseZoom(1e10001): %v", err)
	}
}

// TestColouringFlags: the colouring flags set the location's colouring (smooth and linear as
// the defaults' one form), and --help lists them with their values.
func TestColouringFlags(t *testing.T) {
	var help bytes.Buffer
	fs := NewFlagSet("test", &help)
	lf := AddLocationFlags(fs)
	if _, err := ParseFlags(fs, []string{"--colouring=distance", "--transfer=log", "--interior=period", "--line-width=2.5", "--light=30", "--light-strength=0.5"}); err != nil {
		t.Fatal(err)
	}
	l, err := lf.Apply(fractal.Home(), true)
	if err != nil {
		t.Fatal(err)
	}
	c := l.Color
	if c.Method != colour.MethodDistance || c.Transfer != colour.TransferLog || c.Interior != colour.InteriorPeriod || c.Width != 2.5 || c.Light != 30 || c.Strength != 0.5 {
		t.Errorf("colouring %+v", c)
	}
	fs = NewFlagSet("test", &help)
	lf = AddLocationFlags(fs)
	if _, err := ParseFlags(fs, []string{"--colouring=smooth", "--transfer=linear", "--interior=black"}); err != nil {
		t.Fatal(err)
	}
	if l, err := lf.Apply(fractal.Home(), true); err != nil || l != fractal.Home() {
		t.Errorf("smooth, linear: %+v %v, want the home location", l.Color, err)
	}
	fs.SetOutput(&help)
	fs.PrintDefaults()
	for _, want := range []string{"-colouring", "smooth", "distance", "slopes", "-transfer", "sqrt", "log", "-interior", "period", "multiplier", "-line-width", "-light", "-light-strength"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, help.String())
		}
	}
}
