package app

import (
	"image"
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"mandelscope/bookmarks"
	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/preview"
)

// TestShadingControls drives the Colouring dialog as a user would and checks that each
// control changes the view's colouring, that only the method's parameters are enabled, and
// that Escape closes the dialog.
func TestShadingControls(t *testing.T) {
	w := newTestWindow(t)
	s := w.shade
	if s.button.Text != "smooth" {
		t.Fatalf("the row's button says %q for the default colouring", s.button.Text)
	}
	test.Tap(s.button)
	if s.dlg == nil || len(w.dialogs) != 1 {
		t.Fatal("tapping the Colouring button opened no dialog")
	}
	if !s.width.Disabled() || !s.light.Disabled() || !s.strength.Disabled() {
		t.Error("smooth: the distance and slopes parameters should be disabled")
	}
	s.method.SetSelected(colour.MethodDistance)
	if c := w.Location().Color; c.Method != colour.MethodDistance {
		t.Fatalf("chose distance: method %q", c.Method)
	}
	if s.width.Disabled() || !s.light.Disabled() {
		t.Error("distance: the width should be enabled, the light disabled")
	}
	s.width.SetValue(0.5) // 10^0.5 px, kept to the three digits the label shows
	if c := w.Location().Color; c.Width != 3.16 || s.widthVal.Text != "3.16 px" {
		t.Errorf("width slider at 10^0.5 px: width %g, label %q", c.Width, s.widthVal.Text)
	}
	s.transfer.SetSelected(colour.TransferLog)
	s.method.SetSelected(colour.MethodSlopes)
	s.light.SetValue(-45)
	s.strength.SetValue(0.4)
	c := w.Location().Color
	if c.Method != colour.MethodSlopes || c.Transfer != colour.TransferLog || c.Light != -45 || c.Strength != 0.4 || c.Width != 3.16 {
		t.Errorf("after slopes, log, light -45, strength 0.4: %+v", c)
	}
	if s.button.Text != "slopes · log" || s.lightVal.Text != "-45°" || s.strVal.Text != "0.4" { // the transfer shows on the row
		t.Errorf("button %q, light label %q, strength label %q", s.button.Text, s.lightVal.Text, s.strVal.Text)
	}
	if err := w.Location().Validate(); err != nil {
		t.Error(err)
	}
	// Back to smooth and linear: the canonical empty names, so the colouring equals the default's.
	s.method.SetSelected(colour.MethodSmooth)
	s.transfer.SetSelected(colour.TransferLinear)
	if c := w.Location().Color; c.Method != "" || c.Transfer != "" || s.button.Text != "smooth" {
		t.Errorf("smooth, linear stored as %q, %q; button %q", c.Method, c.Transfer, s.button.Text)
	}
	// The inside: by period, by multiplier, and back to black (the canonical empty name).
	s.interior.SetSelected(colour.InteriorPeriod)
	if c := w.Location().Color; c.Interior != colour.InteriorPeriod || !w.Location().Color.NeedsInterior() {
		t.Errorf("chose period for the inside: %q", c.Interior)
	}
	s.interior.SetSelected(colour.InteriorMultiplier)
	if c := w.Location().Color; c.Interior != colour.InteriorMultiplier {
		t.Errorf("chose multiplier for the inside: %q", c.Interior)
	}
	s.interior.SetSelected(colour.InteriorBlack)
	if c := w.Location().Color; c.Interior != "" || s.interior.Selected != colour.InteriorBlack {
		t.Errorf("black inside stored as %q, shown %q", c.Interior, s.interior.Selected)
	}
	// Escape closes it, from a focused select or slider too.
	s.method.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if s.dlg != nil || len(w.dialogs) != 0 {
		t.Error("Escape in the colouring select did not close the pop-up")
	}
	test.Tap(s.button)
	s.strength.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if s.dlg != nil || len(w.dialogs) != 0 {
		t.Error("Escape on the strength slider did not close the pop-up")
	}
	test.Tap(s.button)
	w.typedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if s.dlg != nil || len(w.dialogs) != 0 {
		t.Error("Escape did not close the Colouring pop-up")
	}
}

// TestShadingFollowsTheViewOneWay: a location set from outside shows in the colouring
// widgets (values beyond a slider's range in its label) and notifies once; Home keeps it.
func TestShadingFollowsTheViewOneWay(t *testing.T) {
	w := newTestWindow(t)
	s := w.shade
	changes := 0
	w.OnLocationChanged(func(_, _ fractal.Location, _ Origin) { changes++ })
	l := testLoc("-0.75", "0.1", "3", 300)
	l.Color.Method, l.Color.Transfer = colour.MethodSlopes, colour.TransferSqrt
	l.Color.Light, l.Color.Strength, l.Color.Width = 300, 0.2, 50
	w.SetLocation(l)
	if changes != 1 {
		t.Errorf("one SetLocation notified %d changes", changes)
	}
	if got := w.Location().Color; got != l.Color {
		t.Errorf("colouring became %+v, want %+v", got, l.Color)
	}
	if s.method.Selected != "slopes" || s.transfer.Selected != "sqrt" || s.button.Text != "slopes · sqrt" {
		t.Errorf("method %q, transfer %q, button %q", s.method.Selected, s.transfer.Selected, s.button.Text)
	}
	if s.light.Value != lightMax || s.lightVal.Text != "300°" || s.strVal.Text != "0.2" || s.widthVal.Text != "50 px" {
		t.Errorf("light slider %g label %q, strength %q, width %q", s.light.Value, s.lightVal.Text, s.strVal.Text, s.widthVal.Text)
	}
	w.goHome()
	if got := w.Location().Color; got != l.Color {
		t.Errorf("Home changed the colouring to %+v, want %+v", got, l.Color)
	}
}

// TestShadingFitsTheMinimumWidth: the controls row with the Colouring button still fits the
// window's documented minimum width (563 px: the button is as wide as "distance · sqrt").
func TestShadingFitsTheMinimumWidth(t *testing.T) {
	w := newTestWindow(t)
	if mw := w.FyneWindow().Content().MinSize().Width; mw > 563 {
		t.Errorf("the window's minimum width is %g, more than 563", mw)
	}
	// ... with a gradient of the longest name, and the longest colouring label, too.
	l := w.Location()
	l.Color = l.Color.WithGradient(strings.Repeat("n", colour.MaxGradientName), mustGradient(t, "#000000,#FFFFFF"))
	l.Color.Method, l.Color.Transfer = colour.MethodDistance, colour.TransferSqrt
	w.SetLocation(l)
	if mw := w.FyneWindow().Content().MinSize().Width; mw > 563 {
		t.Errorf("with a %d-character gradient name the minimum width is %g, more than 563", colour.MaxGradientName, mw)
	}
	if w.paletteBtn.Text != strings.Repeat("n", maxPaletteLabel-1)+"…" {
		t.Errorf("the chooser says %q", w.paletteBtn.Text)
	}
}

// TestBookmarkKeepsColouring: a bookmark made in the window with a colouring chosen in the
// dialog brings that colouring back, and draws the same picture.
func TestBookmarkKeepsColouring(t *testing.T) {
	w, p, path := newBookmarksTestWindow(t)
	w.SetLocation(testLoc("-0.7453", "0.1127", "200", 400))
	test.Tap(w.shade.button)
	w.shade.method.SetSelected(colour.MethodDistance)
	w.shade.width.SetValue(math.Log10(2))
	w.shade.transfer.SetSelected(colour.TransferSqrt)
	w.closeTopDialog()
	want := w.Location()
	done := make(chan error, 1)
	_, entry := p.addDialog(func(err error) { done <- err })
	entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	var err error
	waitFor(t, "the bookmark", func() bool {
		select {
		case err = <-done:
			return true
		default:
			return false
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := bookmarks.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	all := s.List()
	if len(all) != 1 || all[0].Location.Color != want.Color {
		t.Fatalf("the file holds %+v, want colouring %+v", all, want.Color)
	}
	before := w.RenderThumbnail(want, 96, 64)
	w.goHome()
	w.shade.method.SetSelected(colour.MethodSmooth)
	p.open(0)
	if got := w.Location(); got != want {
		t.Fatalf("opening the bookmark gave %v, want %v", got, want)
	}
	if w.shade.button.Text != "distance · sqrt" { // the method, and the transfer when not linear
		t.Errorf("the Colouring button says %q", w.shade.button.Text)
	}
	if after := w.RenderThumbnail(w.Location(), 96, 64); !sameRGBA(before, after) {
		t.Error("the bookmark draws another picture than the view it was made from")
	}
}

func sameRGBA(a, b *image.RGBA) bool {
	return a != nil && b != nil && a.Rect == b.Rect && string(a.Pix) == string(b.Pix)
}

// TestShadingPopUpClosedByTapOutside: a tap outside hides the pop-up without telling it; the
// window then forgets it, so that the picture's keys work again.
func TestShadingPopUpClosedByTapOutside(t *testing.T) {
	w := newTestWindow(t)
	test.Tap(w.shade.button)
	d := w.shade.dlg
	if d == nil {
		t.Fatal("no pop-up")
	}
	d.p.Hide() // as the pop-up's own tap-outside handler does
	before := w.Location()
	w.typedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
	if w.shade.dlg != nil || len(w.dialogs) != 0 {
		t.Error("the hidden pop-up is still on the dialog stack")
	}
	if w.Location() == before {
		t.Error("the Right arrow did not pan after the pop-up was closed")
	}
	// Hidden by a tap outside, it opens again at the next tap on its button.
	test.Tap(w.shade.button)
	w.shade.dlg.p.Hide()
	test.Tap(w.shade.button)
	if w.shade.dlg == nil || !w.shade.dlg.Visible() || len(w.dialogs) != 1 {
		t.Error("the pop-up did not open again after a tap outside closed it")
	}
}

// TestShadingEscapeRadius: the Colouring pop-up's escape radius sets the view's
// Location.Bailout (2, the default, in its one form 0), computes the view again (the radius
// is the view's, not the colouring's), refuses a radius out of range in the status bar with
// the field back at the view's, and is disabled for a formula other than Mandelbrot, whose
// refusal (Location.Validate's words) shows in the status bar if the field is bypassed.
func TestShadingEscapeRadius(t *testing.T) {
	start := fractal.Home()
	start.Iterations = 100
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(500, 420), Start: start, Accumulate: preview.AccumulateN})
	done := "samples 16/16"
	waitFor(t, done, func() bool { return w.statusTime.Text == done })
	counting := &countingCPU{}
	w.rend.set(counting)
	s := w.shade
	test.Tap(s.button)
	if s.bailout.Disabled() || s.bailout.Text != "2" {
		t.Fatalf("Mandelbrot at the default: field disabled %v, text %q; want enabled, 2", s.bailout.Disabled(), s.bailout.Text)
	}
	s.bailout.SetText("1000")
	s.bailout.OnSubmitted(s.bailout.Text)
	if got := w.Location().Bailout; got != 1000 {
		t.Fatalf("entered 1000: bailout %g, status %q", got, w.statusTime.Text)
	}
	waitFor(t, "the view computed again", func() bool { return counting.calls.Load() > 0 })
	if !strings.Contains(w.Location().String(), "bailout=1000") {
		t.Errorf("location text %q has no bailout=1000", w.Location())
	}
	waitFor(t, done, func() bool { return strings.HasSuffix(w.statusTime.Text, done) })
	for _, bad := range []string{"1", "1e11", "ten", "NaN"} {
		s.bailout.SetText(bad)
		s.bailout.FocusLost() // leaving the field applies it, as Enter does
		want := `bailout "` + bad + `" must be a number from 2 to 1e10`
		if !strings.HasPrefix(w.statusTime.Text, want) || w.Location().Bailout != 1000 || s.bailout.Text != "1000" {
			t.Errorf("%q: status %q, bailout %g, field %q; want %q, 1000 kept", bad, w.statusTime.Text, w.Location().Bailout, s.bailout.Text, want)
		}
	}
	// A frame still coming for the view keeps the refusal in sight.
	w.renderStatus("samples 3/16")
	if want := `bailout "NaN" must be a number from 2 to 1e10 · samples 3/16`; w.statusTime.Text != want {
		t.Errorf("after a frame: status %q, want %q", w.statusTime.Text, want)
	}
	s.bailout.SetText(" 2 ")
	s.bailout.OnSubmitted(s.bailout.Text)
	if l := w.Location(); l.Bailout != 0 || s.bailout.Text != "2" {
		t.Errorf("entered 2: bailout %g (want the default's form 0), field %q", l.Bailout, s.bailout.Text)
	}
	// Another formula: the field is disabled, and a radius other than 2 is refused.
	w.closeTopDialog() // F is the picture's key
	w.FyneWindow().Canvas().OnTypedRune()('f')
	test.Tap(s.button)
	if w.Location().Formula.IsMandelbrot() {
		t.Fatal("F left the Mandelbrot set as it was")
	}
	if !s.bailout.Disabled() {
		t.Error("Burning Ship: the escape radius field is enabled")
	}
	w.applyBailout("10")
	want := "bailout 10 is not yet available for formula burning-ship: use 2"
	if !strings.HasPrefix(w.statusTime.Text, want) || w.Location().Bailout != 0 {
		t.Errorf("10 on the Burning Ship: status %q, bailout %g; want %q, 0", w.statusTime.Text, w.Location().Bailout, want)
	}
	w.closeTopDialog()
	w.FyneWindow().Canvas().OnTypedRune()('f')
	w.FyneWindow().Canvas().OnTypedRune()('f')
	if !w.Location().Formula.IsMandelbrot() || s.bailout.Disabled() {
		t.Errorf("back to Mandelbrot (%v): the field disabled %v", w.Location().Formula, s.bailout.Disabled())
	}
}

// TestPopUpsFitTheMinimumWidth: the colouring pop-up and the gradient editor fit a window of
// the minimum width (563 px), whole: wider, Fyne pushed the colouring pop-up to the window's
// left edge, off its button, and cut its right side (Close included).
func TestPopUpsFitTheMinimumWidth(t *testing.T) {
	w := newTestWindow(t)
	w.showShading()
	if w.shade.dlg == nil {
		t.Fatal("the colouring pop-up did not open")
	}
	if mw := w.shade.dlg.p.MinSize().Width; mw > 563 {
		t.Errorf("the colouring pop-up is %g wide, more than 563", mw)
	}
	w.closeTopDialog()
	e := w.openGradientEditor()
	if e == nil {
		t.Fatal("no gradient editor")
	}
	if mw := e.dlg.p.MinSize().Width; mw > 563 {
		t.Errorf("the gradient editor is %g wide, more than 563", mw)
	}
}

// TestShadingStripeParameters: the Colouring pop-up's stripe density and stripe last fields
// are greyed but for the stripe colouring, set the view's Location.StripeDensity and
// StripeLast (the defaults, 5 and 16, in their one form 0), compute the view again (STRIPE is
// the view's data), refuse a value that is not a whole number from 1 to 64 in one line in the
// status bar with the field back at the view's value, and stay with the place in the history.
func TestShadingStripeParameters(t *testing.T) {
	start := fractal.Home()
	start.Iterations = 100
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(500, 420), Start: start, Accumulate: preview.AccumulateN})
	done := "samples 16/16"
	waitFor(t, done, func() bool { return w.statusTime.Text == done })
	s := w.shade
	test.Tap(s.button)
	if !s.stripeS.Disabled() || !s.stripeK.Disabled() || s.stripeS.Text != "5" || s.stripeK.Text != "16" {
		t.Fatalf("smooth colouring: stripe fields disabled %v %v, texts %q %q; want disabled, 5 and 16",
			s.stripeS.Disabled(), s.stripeK.Disabled(), s.stripeS.Text, s.stripeK.Text)
	}
	s.method.SetSelected(colour.MethodStripe)
	if s.stripeS.Disabled() || s.stripeK.Disabled() {
		t.Fatal("stripe colouring: the stripe fields are disabled")
	}
	waitFor(t, done, func() bool { return strings.HasSuffix(w.statusTime.Text, done) })
	before := w.RenderThumbnail(w.Location(), 64, 48)
	counting := &countingCPU{}
	w.rend.set(counting)
	for _, c := range []struct {
		e    *commitEntry
		text string
		want string // in the location text
		get  func(fractal.Location) int
		val  int
	}{
		{s.stripeS, "9", "stripe-density=9", func(l fractal.Location) int { return l.StripeDensity }, 9},
		{s.stripeK, "3", "stripe-last=3", func(l fractal.Location) int { return l.StripeLast }, 3},
	} {
		calls := counting.calls.Load()
		c.e.SetText(c.text)
		c.e.OnSubmitted(c.e.Text)
		if got := c.get(w.Location()); got != c.val {
			t.Fatalf("entered %s: value %d, status %q", c.text, got, w.statusTime.Text)
		}
		waitFor(t, "the view computed again", func() bool { return counting.calls.Load() > calls })
		if !strings.Contains(w.Location().String(), c.want) {
			t.Errorf("location text %q has no %s", w.Location(), c.want)
		}
		waitFor(t, done, func() bool { return strings.HasSuffix(w.statusTime.Text, done) })
	}
	if after := w.RenderThumbnail(w.Location(), 64, 48); sameRGBA(before, after) {
		t.Error("density 9 and last 3 draw the same picture as 5 and 16")
	}
	for _, c := range []struct {
		e    *commitEntry
		name string
		keep string
	}{{s.stripeS, "stripe density", "9"}, {s.stripeK, "stripe last", "3"}} {
		for _, bad := range []string{"0", "65", "2.5", "ten"} {
			c.e.SetText(bad)
			c.e.FocusLost() // leaving the field applies it, as Enter does
			want := c.name + ` "` + bad + `" must be a whole number from 1 to 64`
			if w.statusTime.Text != want && !strings.HasPrefix(w.statusTime.Text, want+" · ") || c.e.Text != c.keep {
				t.Errorf("%s %q: status %q, field %q; want %q, %s kept", c.name, bad, w.statusTime.Text, c.e.Text, want, c.keep)
			}
		}
	}
	if l := w.Location(); l.StripeDensity != 9 || l.StripeLast != 3 {
		t.Fatalf("after the refusals: density %d, last %d; want 9 and 3", l.StripeDensity, l.StripeLast)
	}
	// The history keeps them with the place: away and back.
	w.closeTopDialog()
	w.nav.settle()
	away := w.Location()
	away.Re = fractal.MustDecimal("0.25")
	away.StripeDensity, away.StripeLast = 0, 0
	w.navigate(away, false)
	w.nav.settle()
	w.nav.goBack()
	if l := w.Location(); l.StripeDensity != 9 || l.StripeLast != 3 {
		t.Errorf("back in the history: density %d, last %d; want 9 and 3", l.StripeDensity, l.StripeLast)
	}
	test.Tap(s.button)
	if s.stripeS.Text != "9" || s.stripeK.Text != "3" {
		t.Errorf("back in the history the fields say %q and %q, want 9 and 3", s.stripeS.Text, s.stripeK.Text)
	}
	// The default's one form is 0.
	s.stripeS.SetText(" 5 ")
	s.stripeS.OnSubmitted(s.stripeS.Text)
	if l := w.Location(); l.StripeDensity != 0 || s.stripeS.Text != "5" {
		t.Errorf("entered 5: density %d (want the default's form 0), field %q", l.StripeDensity, s.stripeS.Text)
	}
	// Another colouring greys them again.
	s.method.SetSelected(colour.MethodSmooth)
	if !s.stripeS.Disabled() || !s.stripeK.Disabled() {
		t.Error("smooth colouring again: the stripe fields are enabled")
	}
}
