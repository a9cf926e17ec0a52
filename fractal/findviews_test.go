package fractal

import (
	"context"
	"testing"
	"time"
)

// TestFindFromBoundaryViews searches from 12 views on the set's boundary at zooms 1e2 to 1e8
// (fixed seed): every search must find a minibrot inside the view, deeper (FindMinibrotWith
// verifies both before it answers; the distance is checked again here). bench/find-measure
// measures the same search from deeper views.
func TestFindFromBoundaryViews(t *testing.T) {
	const w, h = 1280, 720
	views, err := BoundaryViews(7, 12, 3, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range views {
		f, err := FindMinibrotWith(context.Background(), l, w, h, w/2, h/2, FindOptions{Limit: 1_000_000, MaxTime: 60 * time.Second})
		if err != nil {
			t.Errorf("view %d (%s): %v", i, l, err)
			continue
		}
		if d, ratio := f.Offset(l, w, h); d > 0.5*w/h || ratio.Cmp(NewExp(1)) <= 0 {
			t.Errorf("view %d (%s): the minibrot is %.2f view heights away, zoom ratio %s", i, l, d, ratio.Text(3))
		}
	}
}

// BoundaryViews gives the same views for the same seed, and says so in one line when asked
// for none.
func TestBoundaryViewsRepeat(t *testing.T) {
	a, err := BoundaryViews(3, 4, 2, 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := BoundaryViews(3, 4, 2, 2, 4)
	if len(a) != 4 || len(b) != 4 {
		t.Fatalf("%d and %d views, want 4", len(a), len(b))
	}
	for i := range a {
		if a[i].String() != b[i].String() {
			t.Errorf("view %d: %s, then %s", i, a[i], b[i])
		}
		if z := a[i].ZoomExp().Log10(); z < 2-0.01 || z > 4+0.01 {
			t.Errorf("view %d: zoom %s, want 1e2 to 1e4", i, a[i].Zoom)
		}
	}
	if _, err := BoundaryViews(1, 0, 1, 2, 4); err == nil {
		t.Error("no error for 0 views")
	}
}
