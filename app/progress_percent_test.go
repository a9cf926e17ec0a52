package app

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"mandelscope/export"
)

// barText is the percentage a progress row's bar draws.
func barText(t *testing.T, r *progressRow) string {
	t.Helper()
	r.bar.Refresh()
	for _, o := range test.WidgetRenderer(r.bar).Objects() {
		if tx, ok := o.(*canvas.Text); ok {
			return tx.Text
		}
	}
	t.Fatal("the bar draws no text")
	return ""
}

// An export's bar and its line say the same percentage, by one rule (rounded down: 100% only
// when done), at every share, the 99.6% that showed 99% and 100% among them.
func TestProgressBarAndLineAgree(t *testing.T) {
	w := newTestWindow(t)
	r := w.addProgress("Exporting test.png", func() {})
	run := &exportRun{row: r, bar: r.bar, status: r.status}
	const total = 8294400 // a 4K export's pixels
	for _, done := range []int64{0, 1, 2405376, 4147200, 8261222, 8294399, total} {
		p := export.Progress{Done: done, Total: total, Elapsed: time.Second, Rate: 1}
		run.last = &p
		run.bar.SetValue(p.Fraction())
		line := run.progressText(time.Second)
		bar := barText(t, r)
		if done > 0 && !strings.HasPrefix(line, bar+" ") {
			t.Errorf("%d of %d pixels: the bar says %s, the line %q", done, total, bar, line)
		}
		if want := percentText(p.Fraction()); bar != want {
			t.Errorf("%d of %d pixels: the bar says %s, want %s", done, total, bar, want)
		}
		if done < total && bar == "100%" {
			t.Errorf("%d of %d pixels: 100%% before the end", done, total)
		}
	}
	for _, c := range []struct {
		f    float64
		want string
	}{{0, "0%"}, {0.29, "29%"}, {0.57, "57%"}, {0.996, "99%"}, {0.99999, "99%"}, {1, "100%"}, {1.5, "100%"}, {-1, "0%"}} {
		if got := percentText(c.f); got != c.want {
			t.Errorf("percentText(%g) = %s, want %s", c.f, got, c.want)
		}
	}
}
