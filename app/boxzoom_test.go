package app

import (
	"math/big"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"mandelscope/fractal"
)

// drawBox draws a box with Ctrl + left drag from a to b (view units), in the order Fyne
// sends the events: the press, drag steps, the release (MouseUp, then DragEnd).
func drawBox(v *fractalView, a, b fyne.Position) {
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: a}, Button: desktop.MouseButtonPrimary, Modifier: fyne.KeyModifierControl})
	mid := fyne.NewPos((a.X+b.X)/2, (a.Y+b.Y)/2)
	v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: mid}, Dragged: fyne.NewDelta(mid.X-a.X, mid.Y-a.Y)})
	v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: b}, Dragged: fyne.NewDelta(b.X-mid.X, b.Y-mid.Y)})
	v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: b}, Button: desktop.MouseButtonPrimary})
	v.DragEnd()
}

// centreOff is how far, in pixels of got at w x h, got's centre is from the point (re, im).
func centreOff(got fractal.Location, re, im *big.Float, w, h int) float64 {
	s := fractal.Spacing(got.ZoomFloat(), w, h)
	const prec = 1024
	dr, _ := new(big.Float).SetPrec(prec).Sub(got.Re.Big(prec), re).Float64()
	di, _ := new(big.Float).SetPrec(prec).Sub(got.Im.Big(prec), im).Float64()
	return max(abs(dr), abs(di)) / s
}

// A Ctrl + drag box goes to the box's centre at the zoom that fits it, exactly (the centre
// to a thousandth of a new pixel, computed here in math/big from the start view), at a
// shallow view and at zoom 1e100 (far past float64); the box keeps the view's aspect ratio
// whichever way it is drawn, and it is one step back in the history.
func TestBoxZoom(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(500, 420), historySettle: time.Hour, bookmarksWatch: -1})
	v := w.view
	pw, ph := w.ViewSize()
	if pw == ph {
		t.Fatalf("view is %dx%d; the test wants a non-square view", pw, ph)
	}
	sc := float64(v.scale())
	at := func(x, y float64) fyne.Position { return fyne.NewPos(float32(x/sc), float32(y/sc)) }
	px := func(p fyne.Position) (float64, float64) { return float64(p.X) * sc, float64(p.Y) * sc }
	aspect := float64(ph) / float64(pw)
	for _, tc := range []struct {
		name  string
		start fractal.Location
		// the press and the release, in image pixels
		ax, ay, bx, by float64
		wide           bool // the box's width is the drag's width (else its height is)
	}{
		// Down and right.
		{"shallow", testLoc("-0.75", "0.1", "2", 400), 100, 60, 100 + float64(pw)/4, 60 + float64(ph)/4, true},
		// Up and left, mostly sideways: the width rules, the height follows the aspect ratio.
		{"up-left", testLoc("-0.75", "0.1", "2", 400), 400, 300, 400 - float64(pw)/5, 300 - 10, true},
		// Mostly down: the height rules.
		{"tall", testLoc("-0.75", "0.1", "2", 400), 50, 20, 60, 20 + float64(ph)/2, false},
		{"deep", testLoc(testRe60, testIm60, "1e100", 3000), 37, 250, 37 + float64(pw)/8, 250 - float64(ph)/9, true},
	} {
		w.SetLocation(tc.start)
		w.nav.settle()
		start := w.Location()
		a, b := at(tc.ax, tc.ay), at(tc.bx, tc.by)
		drawBox(v, a, b)
		got := w.Location()
		// The box as the pointer drew it (positions are float32).
		ax, ay := px(a)
		bx, by := px(b)
		bw := abs(bx - ax)
		if !tc.wide {
			bw = abs(by-ay) / aspect
		}
		cx, cy := ax+bw/2, ay+bw*aspect/2
		if bx < ax {
			cx = ax - bw/2
		}
		if by < ay {
			cy = ay - bw*aspect/2
		}
		if z, want := got.ZoomFloat(), start.ZoomFloat()*float64(pw)/bw; abs(z/want-1) > 1e-12 {
			t.Errorf("%s: zoom %s after the box, want %g", tc.name, got.Zoom, want)
		}
		re, im := pointUnder(start, cx, cy, pw, ph)
		if d := centreOff(got, re, im, pw, ph); d > 1e-3 {
			t.Errorf("%s: the centre is %.3g pixels from the box's centre", tc.name, d)
		}
		w.nav.goBack()
		if w.Location().String() != start.String() {
			t.Errorf("%s: back went to %v, want %v", tc.name, w.Location(), start)
		}
		w.nav.goForward()
		if w.Location().String() != got.String() {
			t.Errorf("%s: forward went to %v, want the box's view %v", tc.name, w.Location(), got)
		}
		if v.boxOutline.Visible() {
			t.Errorf("%s: the box's outline stays shown", tc.name)
		}
	}
}

// Escape while drawing a box cancels it, and the rest of the drag does not pan; a box
// smaller than boxMinPixels cancels too; a Ctrl + click without a drag does nothing.
func TestBoxZoomCancels(t *testing.T) {
	w := newTestWindow(t)
	v := w.view
	start := testLoc("-0.75", "0.1", "2", 400)
	w.SetLocation(start)
	down := &desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 100)}, Button: desktop.MouseButtonPrimary, Modifier: fyne.KeyModifierControl}
	v.MouseDown(down)
	v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(200, 180)}, Dragged: fyne.NewDelta(100, 80)})
	if !v.boxOutline.Visible() {
		t.Fatal("no box outline while drawing")
	}
	w.typedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if v.boxOutline.Visible() {
		t.Error("the outline stays after Escape")
	}
	v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(250, 200)}, Dragged: fyne.NewDelta(50, 20)})
	v.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(250, 200)}, Button: desktop.MouseButtonPrimary})
	v.DragEnd()
	if got := w.Location(); got.String() != start.String() {
		t.Fatalf("a box cancelled with Escape moved the view to %v", got)
	}
	// A plain drag after it pans again.
	v.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(100, 100)}, Button: desktop.MouseButtonPrimary})
	v.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(110, 100)}, Dragged: fyne.NewDelta(10, 0)})
	v.DragEnd()
	if got := w.Location(); got.Re.String() == start.Re.String() || got.Zoom.String() != start.Zoom.String() {
		t.Fatalf("a plain drag after a cancelled box went to %v", got)
	}
	w.SetLocation(start)
	sc := float64(v.scale())
	drawBox(v, fyne.NewPos(100, 100), fyne.NewPos(100+float32((boxMinPixels-1)/sc), 101))
	if got := w.Location(); got.String() != start.String() {
		t.Fatalf("a box %d pixels wide zoomed to %v", boxMinPixels-1, got)
	}
	v.MouseDown(down)
	v.MouseUp(&desktop.MouseEvent{PointEvent: down.PointEvent, Button: desktop.MouseButtonPrimary})
	if v.box != nil || w.Location().String() != start.String() {
		t.Fatalf("a Ctrl + click left a box or moved the view (%v)", w.Location())
	}
}
