package app

import (
	"image"
	"image/color"
	"math/big"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"mandelscope/fractal"
	"mandelscope/preview"
)

// halfTurnSymmetric says whether img is the same turned half a turn about its centre.
func halfTurnSymmetric(img *image.RGBA) bool {
	b := img.Rect
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if img.RGBAAt(x, y) != img.RGBAAt(b.Max.X-1-(x-b.Min.X), b.Max.Y-1-(y-b.Min.Y)) {
				return false
			}
		}
	}
	return true
}

// distinctColours counts the colours of img.
func distinctColours(img *image.RGBA) int {
	seen := map[color.RGBA]bool{}
	for y := img.Rect.Min.Y; y < img.Rect.Max.Y; y++ {
		for x := img.Rect.Min.X; x < img.Rect.Max.X; x++ {
			seen[img.RGBAAt(x, y)] = true
		}
	}
	return len(seen)
}

// hover moves the pointer to p (screen units in the picture), as the desktop driver reports it.
func hover(w *Window, p fyne.Position) {
	w.view.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: p}})
}

// exactPoint is the point under the centre of the pixel at p (screen units in the picture),
// computed in big arithmetic from the view's decimal centre.
func exactPoint(t *testing.T, w *Window, l fractal.Location, p fyne.Position) (re, im *big.Float) {
	t.Helper()
	pw, ph := w.ViewSize()
	x, y := w.view.pointerPixel(p)
	return fractal.NewFrame(l, pw, ph).PointBig(int(x), int(y), 512)
}

// checkC fails unless decimal d is within a thousandth of spacing s of the exact value.
func checkC(t *testing.T, what string, d fractal.Decimal, exact *big.Float, s *big.Float) {
	t.Helper()
	diff := new(big.Float).SetPrec(512).Sub(d.Big(512), exact)
	diff.Abs(diff)
	tol := new(big.Float).SetPrec(512).Quo(s, big.NewFloat(1000))
	if diff.Cmp(tol) > 0 {
		t.Errorf("%s = %s is %s from the point under the pointer %s (tolerance %s)", what, d, diff.Text('g', 5), exact.Text('g', 40), tol.Text('g', 5))
	}
}

// spacingBig is a view's pixel spacing in big arithmetic.
func spacingBig(w *Window, l fractal.Location) *big.Float {
	pw, ph := w.ViewSize()
	s := new(big.Float).SetPrec(512).Quo(big.NewFloat(4), l.Zoom.Big(512))
	return s.Quo(s, big.NewFloat(float64(min(pw, ph))))
}

// J at the pointer shows the Julia set of the point under it, with every digit its deep zoom
// needs (float64 would be off by many pixels at 1e30); the status bar and the copied text say
// so; Home there shows it whole after a pan and a zoom; Shift+J goes back to the Mandelbrot
// set centred at c; the history steps across J and Shift+J.
func TestJuliaKeys(t *testing.T) {
	w, _, _ := newBookmarksTestWindow(t)
	c := w.FyneWindow().Canvas()
	deep := testLoc(testRe60, testIm60, "1e30", 900)
	w.SetLocation(deep)
	at := fyne.NewPos(93, 61)
	hover(w, at)
	exRe, exIm := exactPoint(t, w, deep, at)

	c.OnTypedRune()('j')
	jl := w.Location()
	if !jl.IsJulia() {
		t.Fatalf("J: %v is no Julia view", jl)
	}
	checkC(t, "c's real part", jl.Julia.Re, exRe, spacingBig(w, deep))
	checkC(t, "c's imaginary part", jl.Julia.Im, exIm, spacingBig(w, deep))
	if !jl.Re.Equal(fractal.MustDecimal("0")) || !jl.Im.Equal(fractal.MustDecimal("0")) || !jl.Zoom.Equal(fractal.MustDecimal("1")) ||
		jl.Iterations != deep.Iterations || jl.Color != deep.Color {
		t.Errorf("J: %v; want the Julia set whole (centre 0, zoom 1) in the view's iterations and colouring", jl)
	}
	if w.bar.what.Text != "Julia set" || !strings.HasPrefix(w.statusCentr.Text, "c = ") {
		t.Errorf("status bar: %q %q", w.bar.what.Text, w.statusCentr.Text)
	}
	if full := w.fullText(w.statusCentr); !strings.Contains(full, jl.Julia.Re.String()) || !strings.Contains(full, strings.TrimPrefix(jl.Julia.Im.String(), "-")) {
		t.Errorf("the centre field's full text %q lacks c's digits (%s)", full, jl.Julia)
	}
	if e := w.showFullCentre(); !strings.Contains(e.Text, "julia="+jl.Julia.String()) {
		t.Errorf("the every-digit popup says %q", e.Text)
	}
	if n := defaultName(jl); !strings.HasPrefix(n, "Julia -1.74006 +9.39") || !strings.HasSuffix(n, "e-31i, 0 +0i zoom 1") {
		t.Errorf("a bookmark of the Julia view is offered the name %q", n)
	}
	w.copyLocation()
	if got := w.app.Clipboard().Content(); got != jl.String() || !strings.Contains(got, "julia="+jl.Julia.String()) {
		t.Errorf("copied %q", got)
	}
	c.OnTypedRune()('j') // in a Julia view J stays
	if w.Location() != jl {
		t.Errorf("J in a Julia view went to %v", w.Location())
	}

	// Home in a Julia view: that Julia set whole.
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyRight})
	c.OnTypedRune()('+')
	if w.Location() == jl {
		t.Fatal("the keys did not move the Julia view")
	}
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyHome})
	if got := w.Location(); got != jl {
		t.Errorf("Home in the Julia view went to %v, want %v", got, jl)
	}

	// Shift+J: the Mandelbrot set centred at c, at the Julia view's zoom.
	c.OnTypedRune()('J')
	ml := w.Location()
	if ml.IsJulia() || !ml.Re.Equal(jl.Julia.Re) || !ml.Im.Equal(jl.Julia.Im) || !ml.Zoom.Equal(jl.Zoom) {
		t.Errorf("Shift+J went to %v; want the Mandelbrot set at %s, zoom %s", ml, jl.Julia, jl.Zoom)
	}
	if w.bar.what.Text != "Centre" || strings.Contains(w.statusCentr.Text, "c = ") {
		t.Errorf("status bar after Shift+J: %q %q", w.bar.what.Text, w.statusCentr.Text)
	}
	c.OnTypedRune()('J') // nothing to go back to
	if w.Location() != ml {
		t.Errorf("Shift+J in the Mandelbrot set went to %v", w.Location())
	}

	// The history: deep -> Julia (J; the keys and Home come back to it) -> Mandelbrot at c.
	alt := func(k fyne.KeyName) {
		w.FyneWindow().Canvas().(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierAlt})
	}
	alt(fyne.KeyLeft)
	if got := w.Location(); got != jl {
		t.Errorf("back from Shift+J: %v, want the Julia view %v", got, jl)
	}
	for w.Location() != deep && w.nav.hist.CanBack() {
		alt(fyne.KeyLeft)
	}
	if got := w.Location(); got != deep {
		t.Fatalf("back from the Julia view: %v, want the view J was pressed on", got)
	}
	alt(fyne.KeyRight)
	if got := w.Location(); !got.IsJulia() || got.Julia != jl.Julia {
		t.Errorf("forward from the view J was pressed on: %v", got)
	}
}

// With no pointer over the picture, J takes the view's centre; the Go menu's item does too.
func TestJuliaKeyAtTheCentre(t *testing.T) {
	w := newTestWindow(t)
	l := testLoc("-0.123", "0.745", "3", 300)
	w.SetLocation(l)
	hover(w, fyne.NewPos(10, 10))
	w.view.MouseOut()
	w.FyneWindow().Canvas().OnTypedRune()('j')
	got := w.Location()
	if !got.IsJulia() || !got.Julia.Re.Equal(l.Re) || !got.Julia.Im.Equal(l.Im) {
		t.Errorf("J without the pointer: %v, want the Julia set of the centre %s%si", got, l.Re, l.Im)
	}
	// A location text with julia= goes there exactly (Ctrl+L); julia=off goes back.
	if err := w.nav.goTo("re=0.1 im=-0.2 julia=-0.8,0.156 zoom=4"); err != nil {
		t.Fatal(err)
	}
	if g := w.Location(); !g.IsJulia() || g.Julia.String() != "-0.8,0.156" || g.Re.String() != "0.1" {
		t.Errorf("Go to julia=: %v", g)
	}
	if err := w.nav.goTo("re=0.1 im=-0.2 julia=off zoom=4"); err != nil || w.Location().IsJulia() {
		t.Errorf("Go to julia=off: %v %v", w.Location(), err)
	}
	// A point out of range makes no Julia view.
	w.SetLocation(testLoc("0", "0", "0.001", 200))
	hover(w, fyne.NewPos(2, 2))
	before := w.Location()
	w.FyneWindow().Canvas().OnTypedRune()('j')
	if w.Location() != before || !strings.Contains(w.statusTime.Text, "no Julia set here") {
		t.Errorf("J out of range: %v, status %q", w.Location(), w.statusTime.Text)
	}
}

// The video dialog and the export take the view as it is: a Julia view's parameter too.
func TestJuliaExportAndVideoTakeTheView(t *testing.T) {
	w := newTestWindow(t)
	w.SetLocation(testLoc("-0.123", "0.745", "2", 300))
	w.view.MouseOut()
	w.FyneWindow().Canvas().OnTypedRune()('j')
	jl := w.Location()
	w.vid.show()
	w.vid.start.SetText("0.5")
	o, err := w.vid.options()
	if err != nil {
		t.Fatal(err)
	}
	if o.Location.Julia != jl.Julia || !o.Location.Zoom.Equal(jl.Zoom) {
		t.Errorf("the video's view %v, want %v", o.Location, jl)
	}
}

// The inset: off at first; I (and View > Julia Inset, checked) turn it on and off; it asks
// for the Julia set of the point under the pointer, a new one as the pointer moves, and its
// picture arrives; it hides in a Julia view and comes back with Shift+J.
func TestJuliaInset(t *testing.T) {
	w := newTestWindow(t)
	in := w.inset
	c := w.FyneWindow().Canvas()
	l := testLoc("-0.75", "0.1", "2", 300)
	w.SetLocation(l)
	hover(w, fyne.NewPos(40, 50))
	if in.on || in.box.Visible() || in.seq != 0 {
		t.Fatal("the inset shows before it is asked for")
	}
	c.OnTypedRune()('i')
	if !in.on || !in.box.Visible() || !in.item.Checked {
		t.Fatalf("I: on %v, visible %v, checked %v", in.on, in.box.Visible(), in.item.Checked)
	}
	// The inset lies in the top right corner of the picture.
	vs := w.view.Size()
	if pos, size := in.box.Objects[0].Position(), in.box.Objects[0].Size(); size.Width < 100 || size.Width > insetSide ||
		pos.X+size.Width < vs.Width-2*insetMargin || pos.Y > insetMargin {
		t.Errorf("the inset is at %v, %v in a picture of %v", pos, size, vs)
	}
	s := spacingBig(w, l)
	for _, p := range []fyne.Position{fyne.NewPos(40, 50), fyne.NewPos(120, 30), fyne.NewPos(60, 200)} {
		hover(w, p)
		req := in.req
		re, im := exactPoint(t, w, l, p)
		if !req.IsJulia() || !req.Zoom.Equal(fractal.MustDecimal("1")) {
			t.Fatalf("at %v the inset asks for %v", p, req)
		}
		checkC(t, "the inset's c (real)", req.Julia.Re, re, s)
		checkC(t, "the inset's c (imaginary)", req.Julia.Im, im, s)
		seq := in.seq
		waitFor(t, "the inset's picture", func() bool { return in.shownSeq == seq })
		pw, _ := in.pixelSize()
		if in.img.Image.Bounds().Dx() != pw {
			t.Errorf("the inset shows %v, want %d pixels a side", in.img.Image.Bounds(), pw)
		}
		if want := "c = " + shortC(req.Julia); !strings.HasSuffix(in.note.Text, want) {
			t.Errorf("the inset's caption %q, want it to end %q", in.note.Text, want)
		}
	}
	// A Julia set is symmetric under z -> -z: the picture, centred at 0, is the same turned
	// half a turn, as the Mandelbrot set's is not (it is symmetric about the real axis only).
	rabbit := fractal.Home().JuliaAt(fractal.MustDecimal("-0.123"), fractal.MustDecimal("0.745"))
	rseq := in.r.Request(rabbit, 96, 96)
	in.seq = rseq
	waitFor(t, "the rabbit's picture", func() bool { return in.shownSeq == rseq })
	if img, ok := in.img.Image.(*image.RGBA); !ok || !halfTurnSymmetric(img) || distinctColours(img) < 8 {
		t.Error("the inset's picture of the rabbit is not a Julia set's (not the same turned half a turn, or flat)")
	}
	if halfTurnSymmetric(w.RenderThumbnail(rabbit.Mandelbrot(), 96, 96)) {
		t.Error("the check cannot tell: the Mandelbrot set's picture is symmetric too")
	}
	// The view moving under a still pointer moves c.
	before := in.req
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyRight})
	if in.req.Julia == before.Julia {
		t.Error("the inset kept its c when the view moved under the pointer")
	}
	// A deep view's iterations are bounded in the inset.
	w.SetLocation(testLoc("-0.75", "0.1", "2", 50000))
	if in.req.Iterations != insetMaxIterations {
		t.Errorf("inset iterations %d, want %d", in.req.Iterations, insetMaxIterations)
	}
	// In a Julia view the inset hides; Shift+J brings it back.
	c.OnTypedRune()('j')
	if in.box.Visible() {
		t.Error("the inset shows in a Julia view")
	}
	c.OnTypedRune()('i')
	c.OnTypedRune()('i') // off and on again in the Julia view: it says where it shows
	if in.box.Visible() || !in.on || !strings.Contains(w.statusTime.Text, "Shift+J") {
		t.Errorf("the inset turned on in a Julia view: visible %v, status %q", in.box.Visible(), w.statusTime.Text)
	}
	c.OnTypedRune()('J')
	if !in.box.Visible() {
		t.Error("the inset did not come back with Shift+J")
	}
	// The menu item turns it off, and on.
	viewItem := func() *fyne.MenuItem {
		for _, m := range w.menus {
			for _, it := range m.Items {
				if m.Label == "View" && it.Label == "Julia Inset" {
					return it
				}
			}
		}
		t.Fatal("no View > Julia Inset")
		return nil
	}
	viewItem().Action()
	if in.on || in.box.Visible() || viewItem().Checked {
		t.Errorf("View > Julia Inset did not turn it off")
	}
	seq := in.seq
	hover(w, fyne.NewPos(70, 70))
	if in.seq != seq {
		t.Error("the inset asked for a picture while off")
	}
	viewItem().Action()
	if !in.on || !in.box.Visible() || !viewItem().Checked || in.seq == seq {
		t.Errorf("View > Julia Inset did not turn it on (or it asked for nothing)")
	}
}

// Closing the window stops the inset's renders: its goroutine has ended (Close waits for it)
// and it takes no more requests.
func TestJuliaInsetStopsWithTheWindow(t *testing.T) {
	w := newTestWindow(t)
	in := w.inset
	w.FyneWindow().Canvas().OnTypedRune()('i')
	hover(w, fyne.NewPos(30, 40))
	if in.seq == 0 {
		t.Fatal("the inset asked for nothing")
	}
	w.FyneWindow().Close()
	if seq := in.r.Request(w.Location().JuliaAt(fractal.MustDecimal("0"), fractal.MustDecimal("1")), 16, 16); seq != 0 {
		t.Errorf("the inset took request %d after the window closed", seq)
	}
}

// J's view reaches the picture: the full frame shown is the Julia set's (the same turned half
// a turn, centred at 0), and Shift+J's is the Mandelbrot set's again (not).
func TestJuliaViewIsDrawn(t *testing.T) {
	var shown []preview.Result
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 330), OnFrame: func(r preview.Result) { shown = append(shown, r) }})
	w.SetLocation(testLoc("-0.123", "0.745", "2", 300))
	w.view.MouseOut()
	full := func(l fractal.Location) *image.RGBA {
		t.Helper()
		var img *image.RGBA
		waitFor(t, "the full frame of "+l.String(), func() bool {
			for _, r := range shown {
				if r.Req.Loc.View() == l.View() && !r.Partial && r.Stats.Scale <= 1 && r.Image != nil {
					img = r.Image
				}
			}
			return img != nil
		})
		return img
	}
	w.FyneWindow().Canvas().OnTypedRune()('j')
	jl := w.Location()
	if img := full(jl); !halfTurnSymmetric(img) || distinctColours(img) < 8 {
		t.Error("the Julia view's picture is not a Julia set's")
	}
	w.FyneWindow().Canvas().OnTypedRune()('J')
	if img := full(w.Location()); halfTurnSymmetric(img) {
		t.Error("after Shift+J the picture is still symmetric")
	}
}
