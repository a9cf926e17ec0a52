package nav

import (
	"testing"

	"mandelscope/fractal"
)

func TestHistory(t *testing.T) {
	var h History
	if h.CanBack() || h.CanForward() {
		t.Fatal("empty history can move")
	}
	if _, ok := h.Back(); ok {
		t.Fatal("Back on empty")
	}
	at := func(i int) fractal.Location {
		l := fractal.Home()
		l.Iterations = 100 + i
		return l
	}
	for i := range 5 {
		h.Visit(at(i))
	}
	h.Visit(at(4)) // same as current: ignored
	if h.Len() != 5 {
		t.Fatalf("len %d", h.Len())
	}
	for i := 3; i >= 0; i-- {
		l, ok := h.Back()
		if !ok || l != at(i) {
			t.Fatalf("Back to %d: %v %v", i, l.Iterations, ok)
		}
	}
	if h.CanBack() || !h.CanForward() {
		t.Fatal("at start")
	}
	if l, ok := h.Forward(); !ok || l != at(1) {
		t.Fatal("Forward")
	}
	h.Visit(at(9)) // drops 2..4
	if h.CanForward() || h.Len() != 3 {
		t.Fatalf("after visit: len %d", h.Len())
	}
	if c, _ := h.Current(); c != at(9) {
		t.Fatal("current")
	}
	small := History{Limit: 3}
	for i := range 10 {
		small.Visit(at(i))
	}
	if small.Len() != 3 {
		t.Fatalf("bounded len %d", small.Len())
	}
	small.Back()
	if l, _ := small.Back(); l != at(7) || small.CanBack() {
		t.Fatalf("oldest kept %d", l.Iterations)
	}
	var big History
	for i := range 500 {
		big.Visit(at(i))
	}
	if big.Len() != DefaultLimit {
		t.Fatalf("default limit: %d", big.Len())
	}
}

func TestHistoryReplace(t *testing.T) {
	var h History
	a, b := fractal.Home(), fractal.Home()
	b.Color.Palette = "fire"
	h.Replace(a) // an empty history gets its first entry
	if l, ok := h.Current(); !ok || l != a || h.Len() != 1 {
		t.Fatalf("Replace on empty: %v %v len %d", l, ok, h.Len())
	}
	c := a
	c.Iterations = 999
	h.Visit(c)
	h.Replace(b)
	if h.Len() != 2 {
		t.Fatalf("Replace added an entry: len %d", h.Len())
	}
	if l, _ := h.Current(); l != b {
		t.Fatalf("current %v, want the replacement", l)
	}
	if l, ok := h.Back(); !ok || l != a {
		t.Fatalf("Back after Replace: %v %v", l, ok)
	}
}
