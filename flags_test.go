package main

import (
	"bytes"
	"strings"
	"testing"

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
	} {
		fs := newFlagSet("test", &bytes.Buffer{})
		lf := addLocationFlags(fs)
		if _, err := parseFlags(fs, []string{tc.arg}); err != nil {
			t.Fatal(err)
		}
		_, err := lf.apply(fractal.Home(), true)
		if err == nil || !strings.Contains(err.Error(), tc.flag) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming %s", tc.arg, err, tc.flag)
		}
	}
}

func TestLocationFlagsKeepDigits(t *testing.T) {
	const re = "-0.743643887037158704752191506114774000000000000000000000000001"
	fs := newFlagSet("test", &bytes.Buffer{})
	lf := addLocationFlags(fs)
	if _, err := parseFlags(fs, []string{"--center=" + re + ",0.5", "--zoom=1e40"}); err != nil {
		t.Fatal(err)
	}
	l, err := lf.apply(fractal.Home(), true)
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
	if code := run([]string{"frobnicate"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "unknown command") {
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
	for _, s := range []string{"1", "1.7777777777777777", "1e300", "1e301", "0", "-1", "NaN", "Inf", "1e-4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		z, err := parseZoom(s)
		if err != nil {
			return
		}
		if v := z.Float64(); !(v >= fractal.MinZoom && v <= fractal.MaxZoom) {
			t.Fatalf("accepted zoom %q = %g", s, v)
		}
	})
}
