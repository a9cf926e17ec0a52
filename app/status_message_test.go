package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/colour"
)

// A status bar message longer than a frame time shows whole at 1280 px (the issue: "minibrot
// of period 58 · samp..."), and so does the renderer's name; a message longer than the field
// may grow is cut, whole in its tooltip; a short one gives the room back.
func TestStatusMessagesFit(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(1280, 800)})
	if s := w.win.Canvas().Size(); s.Width < 1200 {
		t.Fatalf("the window is %v wide", s)
	}
	whole := func(l interface{ Size() fyne.Size }, text string) bool {
		return l.Size().Width >= labelWidth(text)-0.5
	}
	for _, msg := range []string{
		"minibrot of period 58 · samples 3/16",
		"looking for the nearest minibrot: the reference (Esc or a move cancels)",
		"at the edge: |re|, |im| <= 4 · frame 25 ms",
	} {
		w.setMessage(msg)
		if !whole(w.statusTime, msg) {
			t.Errorf("%q is cut: the field is %.0f wide, the text %.0f", msg, w.statusTime.Size().Width, labelWidth(msg))
		}
		if !whole(w.statusRend, w.statusRend.Text) {
			t.Errorf("with %q the renderer's %q is cut (%.0f for %.0f)", msg, w.statusRend.Text, w.statusRend.Size().Width, labelWidth(w.statusRend.Text))
		}
		if w.statusPoint.Size().Width < 200 {
			t.Errorf("with %q the point under the cursor has %.0f px", msg, w.statusPoint.Size().Width)
		}
	}
	long := "the last session's view was not opened: " + strings.Repeat("centre real part -24.5 is out of range ", 4)
	w.setMessage(long)
	if tip := w.statusTip(w.statusTime); tip == "" || !strings.HasPrefix(long, strings.TrimSuffix(tip, "…")) {
		t.Errorf("a cut message's tooltip is %q", tip)
	}
	w.setMessage("frame 12 ms")
	if got, want := w.statusTime.Size().Width, labelWidth(timeTemplate); got != want {
		t.Errorf("a frame time's field is %.0f wide, want %.0f", got, want)
	}
}

// TestRefusalMessagesWiden: a refusal said in the message field (F to a formula the colouring
// is not available for) widens the field as other messages do, not cut after a frame time's
// width, and stays while the view's frames come.
func TestRefusalMessagesWiden(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(1280, 800)})
	w.shade.method.SetSelected(colour.MethodAngle)
	w.win.Canvas().OnTypedRune()('f')
	msg := w.statusTime.Text
	if !w.Location().Formula.IsMandelbrot() || !strings.HasPrefix(msg, "not burning-ship: the angle colouring is not yet available") {
		t.Fatalf("F with angle: formula %v, message %q", w.Location().Formula, msg)
	}
	if got, want := w.statusTime.Size().Width, min(labelWidth(msg), messageCap)-0.5; got < want {
		t.Errorf("%q shows in %.0f px; want %.0f", msg, got, want)
	}
	// The frames still coming for the view keep it in sight.
	w.renderStatus("samples 7/16")
	if want := msg + " · samples 7/16"; w.statusTime.Text != want {
		t.Errorf("after a frame: %q, want %q", w.statusTime.Text, want)
	}
}
