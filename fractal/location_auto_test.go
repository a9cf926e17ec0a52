package fractal

import (
	"strings"
	"testing"
)

// TestLocationAutoDensity checks the automatic density's text form: a fresh view is
// automatic and writes density=auto; a density written as a number (every bookmark and PNG
// from before there was an automatic one) stays that number, explicit.
func TestLocationAutoDensity(t *testing.T) {
	h := Home()
	if !h.Color.AutoDensity || h.Color.Density != 1 {
		t.Fatalf("Home's colouring %+v: want the automatic density, drawn at 1 until resolved", h.Color)
	}
	if s := h.String(); !strings.Contains(s, " density=auto ") {
		t.Errorf("Home's text %q", s)
	}
	back, err := ParseLocationText(h.String(), Home())
	if err != nil || back != h {
		t.Errorf("Home's round trip: %+v, %v", back, err)
	}

	old := "re=-0.75 im=0.1 zoom=1000 iterations=500 palette=classic density=1 offset=0"
	l, err := ParseLocationText(old, Home())
	if err != nil || l.Color.AutoDensity || l.Color.Density != 1 {
		t.Fatalf("old text: %+v, %v", l.Color, err)
	}
	if l.String() != old {
		t.Errorf("old text written back as %q", l.String())
	}
	// The last density key wins.
	if l, err := ParseLocationText("density=0.5 density=auto", Home()); err != nil || !l.Color.AutoDensity || l.Color.Density != 1 {
		t.Errorf("0.5 then auto: %+v, %v", l.Color, err)
	}
	if l, err := ParseLocationText("density=auto density=0.5", Home()); err != nil || l.Color.AutoDensity || l.Color.Density != 0.5 {
		t.Errorf("auto then 0.5: %+v, %v", l.Color, err)
	}
	// Over a view whose automatic density is resolved, density=auto (the window's own text,
	// pasted back) keeps the number it draws; over an explicit one it starts from 1.
	resolved := Home()
	resolved.Color.Density = 1.0 / 128
	if l, err := ParseLocationText(resolved.String(), resolved); err != nil || l != resolved {
		t.Errorf("auto over resolved auto: %+v, %v", l.Color, err)
	}
	explicit := Home()
	explicit.Color.AutoDensity, explicit.Color.Density = false, 3
	if l, err := ParseLocationText("density=Auto", explicit); err != nil || !l.Color.AutoDensity || l.Color.Density != 1 {
		t.Errorf("auto over explicit: %+v, %v", l.Color, err)
	}
	// A text without the key keeps the base's density, automatic or not.
	if l, err := ParseLocationText("zoom=5", explicit); err != nil || l.Color != explicit.Color {
		t.Errorf("no density key: %+v, %v", l.Color, err)
	}

	for _, bad := range []string{
		"density=", "density=autox", "density=auto=1", "density=au", "density=NaN", "density=+Inf",
		"density=-1", "density=0", "density=1e999", "density=1e-999", "density=" + strings.Repeat("7", 300),
		"density=0x1p-30", "density=2e6",
	} {
		got, err := ParseLocationText(bad, explicit)
		if err == nil {
			t.Errorf("%.40q accepted: %+v", bad, got.Color)
			continue
		}
		if got != explicit {
			t.Errorf("%.40q changed the location", bad)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || len(msg) > 160 || !strings.Contains(msg, "density") {
			t.Errorf("%.40q: error %q", bad, msg)
		}
	}
}
