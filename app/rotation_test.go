package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"mandelscope/fractal"
)

// TestRotatedDragAndWheel: in a view turned by 90 and by 30 degrees, a drag moves the picture
// with the pointer (the point under the pointer where the drag starts is under it where the
// drag ends) and the wheel keeps the point under the cursor there, to a hundredth of a pixel.
func TestRotatedDragAndWheel(t *testing.T) {
	for _, rot := range []float64{90, 30} {
		w := newTestWindow(t)
		start := testLoc("-0.75", "0.1", "2", 400)
		start.Rotation = rot
		w.SetLocation(start)
		pw, ph := w.ViewSize()
		from := fyne.NewPos(150, 120)
		x0, y0 := w.view.pointerPixel(from)
		test.Drag(w.FyneWindow().Canvas(), viewPos(w, from), 100, -40)
		moved := w.Location()
		x1, y1 := w.view.pointerPixel(from.Add(fyne.NewDelta(100, -40)))
		ar, ai := pointUnder(start, x0, y0, pw, ph)
		br, bi := pointUnder(moved, x1, y1, pw, ph)
		dr, _ := br.Sub(br, ar).Float64()
		di, _ := bi.Sub(bi, ai).Float64()
		if s := fractal.Spacing(start.ZoomFloat(), pw, ph); max(abs(dr), abs(di)) > 0.02*s || moved.Rotation != rot {
			t.Errorf("rotation %v: the point under the pointer moved (%.3f, %.3f) pixels in the drag; rotation %v", rot, dr/s, di/s, moved.Rotation)
		}
		pos := fyne.NewPos(float32(pw)*0.8+0.25, float32(ph)*0.2+0.5)
		x, y := w.view.pointerPixel(pos)
		before := w.Location()
		for range 10 {
			w.view.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: pos}, Scrolled: fyne.NewDelta(0, wheelNotch)})
		}
		if d := drift(before, w.Location(), x, y, pw, ph); d > 0.01 {
			t.Errorf("rotation %v: the point under the cursor moved %.4f pixels in 10 wheel notches", rot, d)
		}
	}
}

// TestRotationKeys: [ and ] turn the picture by 15 degrees (counter-clockwise, clockwise), {
// and } (Shift) by 1, \ back to upright, each a step of the history; the status bar names the
// angle; Home goes back to the whole set upright.
func TestRotationKeys(t *testing.T) {
	w := newTestWindow(t)
	start := testLoc("-0.75", "0.1", "20", 400)
	w.SetLocation(start)
	for _, c := range []struct {
		r    rune
		want float64
	}{{'[', 15}, {'[', 30}, {']', 15}, {'{', 16}, {'}', 15}, {']', 0}, {']', -15}, {'\\', 0}, {'[', 15}} {
		w.typedRune(c.r)
		got := w.Location()
		if got.Rotation != c.want || !got.Re.Equal(start.Re) || !got.Zoom.Equal(start.Zoom) {
			t.Fatalf("after %q: rotation %v at %s, want %v about the same centre", c.r, got.Rotation, got, c.want)
		}
	}
	w.updateStatus()
	if got := w.bar.what.Text; !strings.Contains(got, "turned 15°") {
		t.Errorf("status bar %q does not name the angle", got)
	}
	if s := w.Location().String(); !strings.Contains(s, " rotation=15 ") {
		t.Errorf("location text %q", s)
	}
	for range 13 {
		w.typedRune(']')
	}
	if got := w.Location().Rotation; got != 180 {
		t.Errorf("thirteen turns of -15 from 15: %v, want 180 (-180 normalised)", got)
	}
	w.typedKey(&fyne.KeyEvent{Name: fyne.KeyHome})
	if got := w.Location(); got.Rotation != 0 {
		t.Errorf("Home: rotation %v", got.Rotation)
	}
	w.updateStatus()
	if got := w.bar.what.Text; strings.Contains(got, "turned") {
		t.Errorf("status bar %q after Home", got)
	}
}
