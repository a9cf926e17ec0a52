package export

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

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

// Item 5: a resume whose parameters differ from its checkpoint is refused before the
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
