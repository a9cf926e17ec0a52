package cli

import (
	"bytes"
	"strings"
	"testing"

	"mandelscope/fractal"
)

// TestFindCommand runs find near a period-8007 nucleus (testdata/deep's p8007 centre, to 33
// digits, at zoom 1e20): one line whose location part ParseLocationText reads back, period 8007.
func TestFindCommand(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"find", "--center=-0.743643887037158704752191506114774,0.131825904205311970493132056385139", "--zoom=1e20"}
	if code := Run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	line := strings.TrimSpace(out.String())
	loc, ok := strings.CutSuffix(line, " period=8007")
	if !ok || strings.Contains(line, "\n") {
		t.Fatalf("got %q, want one line ending period=8007", line)
	}
	l, err := fractal.ParseLocationText(loc, fractal.Home())
	if err != nil {
		t.Fatalf("%q does not read back: %v", loc, err)
	}
	if !strings.HasPrefix(l.Re.String(), "-0.7436438870371587047521915061147797782") || l.Iterations != 800700 {
		t.Errorf("got %s", loc)
	}
}

// TestFindErrors checks find's one-line errors and exit codes.
func TestFindErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "--center=RE,IM and --zoom=Z"},
		{[]string{"--zoom=1e20"}, 2, "--center=RE,IM and --zoom=Z"},
		{[]string{"--center=0,1", "--zoom=1e20000"}, 2, "out of range"},
		{[]string{"--center=0,1", "--zoom=1e20", "1280,3"}, 2, "outside the 1280x720 image"},
		{[]string{"--center=0,1", "--zoom=1e20", "1,2", "3,4"}, 2, "at most one pixel"},
		{[]string{"--center=0,1", "--zoom=1e20", "a,b"}, 2, "X,Y"},
		{[]string{"--center=0,1", "--zoom=1e20", "--iterations=20"}, 1, "no minibrot found within 20 iterations (raise --iterations)"},
	} {
		var out, errb bytes.Buffer
		code := Run(append([]string{"find"}, c.args...), &out, &errb)
		msg := errb.String()
		if code != c.code || !strings.Contains(msg, c.want) || strings.Count(msg, "\n") != 1 || out.Len() != 0 {
			t.Errorf("find %v: exit %d, %q; want exit %d and one line with %q", c.args, code, msg, c.code, c.want)
		}
	}
}
