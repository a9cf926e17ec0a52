package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestVideoPaletteCycleFlag: --palette-cycle=TURNS reaches the video's options, and a value
// out of range or not a number is refused with exit 2 and one line naming the flag.
func TestVideoPaletteCycleFlag(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.mp4")
	job, err := parseVideo(append(append([]string{}, videoView...), "--palette-cycle=-0.25", "-o", out), &bytes.Buffer{})
	if err != nil || job.opt.PaletteCycle != -0.25 {
		t.Fatalf("--palette-cycle=-0.25: %v %v", job.opt.PaletteCycle, err)
	}
	for _, tc := range []struct{ arg, want string }{
		{"--palette-cycle=101", "--palette-cycle: palette cycle 101 is out of range (-100 to 100 turns a second)"},
		{"--palette-cycle=NaN", "--palette-cycle: palette cycle NaN is out of range"},
		{"--palette-cycle=-Inf", "--palette-cycle: palette cycle -Inf is out of range"},
		{"--palette-cycle=fast", `invalid value "fast" for flag -palette-cycle`},
	} {
		code, errs := videoCmd(append(append([]string{}, videoView...), tc.arg, "-o", out)...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d %q, want one line with %q", tc.arg, code, errs, tc.want)
		}
	}
}
