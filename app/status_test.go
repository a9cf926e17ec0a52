package app

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// The palette swatch shows a palette's own stops, and a black strip for an unknown name.
func TestPaletteSwatch(t *testing.T) {
	for _, name := range colour.PaletteNames() {
		p, err := colour.PaletteByName(name)
		if err != nil {
			t.Fatal(err)
		}
		img := paletteSwatch(p)
		b := img.Bounds()
		seen := map[color.RGBA]bool{}
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, 0).RGBA()
			seen[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}] = true
		}
		if len(seen) < 3 {
			t.Errorf("%s: swatch has %d colours", name, len(seen))
		}
		// The first stop appears at the left end, within interpolation of half a pixel.
		r, g, bl, _ := img.At(0, 0).RGBA()
		s := p.Stops[0]
		if d := absDiff(uint8(r>>8), s.R) + absDiff(uint8(g>>8), s.G) + absDiff(uint8(bl>>8), s.B); d > 60 {
			t.Errorf("%s: swatch starts at %v, the first stop is %v", name, img.At(0, 0), s)
		}
	}
	if r, g, b, _ := paletteSwatch(colour.Palette{}).At(10, 0).RGBA(); r|g|b != 0 {
		t.Error("an unknown palette's swatch is not black")
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// A location with a gradient of the user's own shows that gradient's colours in the palette
// chooser, and choosing a built-in palette drops it.
func TestPaletteChooserShowsAGradient(t *testing.T) {
	w := newTestWindow(t)
	l := w.Location()
	l.Color.Palette, l.Color.Gradient = "mine", "#FF0000,#00FF00,#0000FF"
	w.SetLocation(l)
	if w.paletteBtn.Text != "mine" || w.paletteBtn.Icon == paletteIcon(colour.Coloring{Palette: "classic"}) {
		t.Fatalf("chooser shows %q", w.paletteBtn.Text)
	}
	p, err := l.Color.ColorPalette()
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := paletteSwatch(p).At(0, 0).RGBA(); r>>8 < 0xc0 || g>>8 > 0x40 || b>>8 > 0x40 {
		t.Errorf("the gradient's swatch starts at %x %x %x, want red", r>>8, g>>8, b>>8)
	}
	items := w.paletteMenu().Items
	for _, it := range items[:len(items)-1] {
		if it.Checked {
			t.Errorf("%q is checked while a gradient of the user's own is drawn", it.Label)
		}
	}
	// The gradient itself (not installed: the test's gradients folder is empty) is listed last
	// by its name, checked.
	if last := items[len(items)-1]; last.Label != "mine (this view's)" || !last.Checked {
		t.Errorf("the view's gradient is listed as %q (checked %v)", last.Label, last.Checked)
	}
	w.paletteMenu().Items[0].Action()
	if c := w.Location().Color; c.Gradient != "" || c.Palette != colour.PaletteNames()[0] {
		t.Errorf("after choosing a built-in: %+v", c)
	}
}

// longModer renders nothing and names itself and its modes as the GL renderer does on
// llvmpipe, at length.
type longModer struct{}

func (longModer) Render(context.Context, fractal.Frame, image.Rectangle, *image.RGBA) error {
	return nil
}
func (longModer) Name() string { return "OpenGL: llvmpipe (LLVM 15.0.7, 256 bits)" }
func (longModer) Mode(f fractal.Frame) string {
	if f.Precision().Perturbs() {
		return "perturbation (CPU: faster than llvmpipe (LLVM 15.0.7, 256 bits) here)"
	}
	return "float32"
}

// deepTestLoc is the location named name in fractal/testdata/deep/locations.txt.
func deepTestLoc(t *testing.T, name string) fractal.Location {
	t.Helper()
	b, err := os.ReadFile("../fractal/testdata/deep/locations.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[0] == name {
			n, err := strconv.Atoi(f[4])
			if err != nil {
				t.Fatal(err)
			}
			return testLoc(f[1], f[2], f[3], n)
		}
	}
	t.Fatalf("no location %s", name)
	return fractal.Location{}
}

// At zoom 1e1086 in a window 1280 px wide every field of the status bar shows whole in the
// width it has (no ellipsis), readable: the centre's leading digits with its exponent and
// count of digits, the zoom, a short mode, the point's leading digits, exponent and escape
// count; the full texts are a tooltip or a click away.
func TestStatusBarAtDepth(t *testing.T) {
	w := openTestWindow(t, Options{Size: fyne.NewSize(1280, 800), NewGPU: func() (Renderer, error) { return longModer{}, nil }})
	w.startGPU()
	testUI.drain()
	l := deepTestLoc(t, "misi1e1086")
	w.SetLocation(l)
	pw, ph := w.ViewSize()
	w.probe.at(w.Location(), pw, ph, pw-1, ph-1) // the widest pixel numbers
	waitFor(t, "the point report", func() bool { return w.statusPoint.Text != "" })
	w.FyneWindow().Content().Refresh()
	if s := w.FyneWindow().Canvas().Size(); s.Width != 1280 {
		t.Fatalf("the window is %v wide", s)
	}
	fields := map[string]*widget.Label{"centre": w.statusCentr, "zoom": w.statusZoom, "iterations": w.statusIter,
		"mode": w.statusMode, "time": w.statusTime, "point": w.statusPoint, "renderer": w.statusRend}
	for name, lb := range fields {
		if need, has := labelWidth(lb.Text), lb.Size().Width; need > has || strings.Contains(lb.Text, "...") {
			t.Errorf("%s: %q needs %.0f px, has %.0f", name, lb.Text, need, has)
		}
	}
	type shows struct {
		lb   *widget.Label
		want []string
	}
	want := map[string]shows{
		"centre": {w.statusCentr, []string{"-2.192384023324103…e-91 (1103 digits)", "i (", " digits)"}},
		"zoom":   {w.statusZoom, []string{"zoom 1e1086"}},
		"mode":   {w.statusMode, []string{"perturbation exp (CPU)"}},
		"point":  {w.statusPoint, []string{fmt.Sprintf("pixel %d,%d: -2.192384023324103", pw-1, ph-1), "e-91 + ", "i  escape "}},
	}
	for name, c := range want {
		for _, s := range c.want {
			if !strings.Contains(c.lb.Text, s) {
				t.Errorf("%s shows %q: no %q", name, c.lb.Text, s)
			}
		}
	}
	// The full texts: the mode as the renderer says it in the tooltip, the centre's every digit
	// behind its button, the point's kept.
	if got, want := w.statusTip(w.statusMode), (longModer{}).Mode(fractal.NewFrame(l, pw, ph)); got != want {
		t.Errorf("the mode's tooltip says %q, want %q", got, want)
	}
	if !w.bar.centreMore.Visible() {
		t.Error("no button for the centre's digits")
	}
	if e := w.showFullCentre(); e.Text != "re="+l.Re.String()+"\nim="+l.Im.String() {
		t.Errorf("the full centre shows %.80q...", e.Text)
	}
	if got := w.fullText(w.statusCentr); got != centreText(l) {
		t.Errorf("the centre in full is %.80q", got)
	}
	f, err := w.sched.Reference(context.Background(), fractal.NewFrame(w.Location(), pw, ph), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.fullText(w.statusPoint); got != probeText(f, pw-1, ph-1) {
		t.Errorf("the point in full is %.80q", got)
	}
	// Back at a shallow view every digit shows again, and the button goes.
	w.SetLocation(testLoc("-0.743643887037158704752191506114774", "0.131825904205311970493132056385139", "1e5", 1234))
	if w.bar.centreMore.Visible() || w.statusCentr.Text != "-0.743643887037158704752191506114774 + 0.131825904205311970493132056385139i" {
		t.Errorf("at 1e5 the centre shows %q (button %v)", w.statusCentr.Text, w.bar.centreMore.Visible())
	}
	if labelWidth(w.statusCentr.Text) > w.statusCentr.Size().Width {
		t.Errorf("at 1e5 the centre needs %.0f px, has %.0f", labelWidth(w.statusCentr.Text), w.statusCentr.Size().Width)
	}
}

func TestLeadingDigits(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"-1.74995768370609350123456789", "-1.749957683706093…"},
		{"0.1318259042053119704931320563", "0.1318259042053119…"},
		{"0.00012345678901234567890", "0.0001234567890123456…"},
		{"-0.0000000000000000000000000000021923840233241036946691516980", "-2.192384023324103…e-30"},
		{"123456789012345678901.5", "1.234567890123456…e20"},
		{"12345.678901234567890", "12345.67890123456…"},
		{"0.25", "0.25"},
		{"-0.00000000000000000000000000000000000000000025", "-2.5e-43"},
		{"3.0000000000000000000000000001e-5", "3.000000000000000…e-5"},
		{"0.000", "0"},
		{"+7", "7"},
	} {
		if got := leadingDigits(c.in, 16); got != c.want {
			t.Errorf("leadingDigits(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestShortMode(t *testing.T) {
	for _, c := range []struct {
		mode string
		p    fractal.Precision
		want string
	}{
		{"perturbation (CPU: faster than llvmpipe (LLVM 15.0.7, 256 bits) here)", fractal.Perturbation, "perturbation (CPU)"},
		{"perturbation (CPU: faster than llvmpipe (LLVM 15.0.7, 256 bits) here)", fractal.PerturbationExp, "perturbation exp (CPU)"},
		{"perturbation (extended exponent, fp64)", fractal.PerturbationExp, "perturbation exp (GPU fp64)"},
		{"perturbation (fp64)", fractal.Perturbation, "perturbation (GPU fp64)"},
		{"float64 (native fp64)", fractal.Double, "float64 (GPU fp64)"},
		{"double (emulated float-float)", fractal.Double, "double (GPU float-float)"},
		{"double (limit reached)", fractal.Perturbation, "double (GPU, limit)"},
		{"float32", fractal.Float32, "float32 (GPU)"},
		{"float32 (CPU)", fractal.Float32, "float32 (CPU)"},
		{"perturbation exp (CPU)", fractal.PerturbationExp, "perturbation exp (CPU)"},
		{"something new (whatever)", fractal.Double, "something new (whatever)"},
		// render.GL's texts for the frames it leaves to the CPU: a reference it cannot take,
		// and rings.
		{"perturbation (CPU: the reference is a minibrot's nucleus outside the view, whose long counts are rechecked on the CPU)", fractal.Perturbation, "perturbation (CPU)"},
		{"rings (CPU: the shaders draw grids)", fractal.Double, "rings (CPU)"},
	} {
		got := shortMode(c.mode, c.p)
		if got != c.want {
			t.Errorf("shortMode(%q) = %q, want %q", c.mode, got, c.want)
		}
		// The mode's field is as wide as modeTemplate: a short mode fits it whole.
		if c.want == got && c.mode != c.want && labelWidth(got) > labelWidth(modeTemplate) {
			t.Errorf("shortMode(%q) = %q is wider than the field (%q)", c.mode, got, modeTemplate)
		}
	}
}

func TestShortPoint(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"pixel 5,7: -0.743 + 0.131i  escape 12", "pixel 5,7: -0.743 + 0.131i  escape 12"},
		{"pixel 5,7: -0.7436438870371587047521915 - 0.1318259042053119704931320563851i  inside (no escape)",
			"pixel 5,7: -0.7436438870371587… - 0.1318259042053119…i  inside (no escape)"},
		{"pixel 1271,588: -2.1923840233241036946691516980597099e-91 + 0.99999999999999999999999999999999999i  escape 580585",
			"pixel 1271,588: -2.192384023324103…e-91 + 0.9999999999999999…i  escape 580585"},
		{"", ""},
	} {
		if got := shortPoint(c.in); got != c.want {
			t.Errorf("shortPoint(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestStatusRowNarrow: in a row too narrow for its fixed fields (a small window, a Julia
// view's long centre), the flexible field keeps a quarter of the row and no field overlaps
// another or leaves the row (a field given no width drew its whole text over the next).
func TestStatusRowNarrow(t *testing.T) {
	r := &statusRow{flex: 1, widths: []float32{-1, 0, -1, 150, 250, 220}}
	objs := make([]fyne.CanvasObject, 6)
	for i := range objs {
		rect := canvas.NewRectangle(color.Black)
		rect.SetMinSize(fyne.NewSize(60, 20))
		objs[i] = rect
	}
	for _, width := range []float32{300, 528, 800, 2000} {
		r.Layout(objs, fyne.NewSize(width, 20))
		end := float32(0)
		for i, o := range objs {
			if o.Position().X < end-0.01 || o.Position().X+o.Size().Width > width+0.01 {
				t.Errorf("width %v: field %d at %v, %v wide: overlaps the one before or leaves the row", width, i, o.Position().X, o.Size().Width)
			}
			end = o.Position().X + o.Size().Width
		}
		if fw := objs[1].Size().Width; fw < (width-5*theme.Padding())/4-0.01 {
			t.Errorf("width %v: the flexible field has %v", width, fw)
		}
	}
}

// TestTipBoxInLayerCoordinates: a tooltip is placed in its layer's coordinates, below and
// right of the pointer, or above it near the layer's bottom edge, wherever the layer lies in
// the canvas (a window's content, and the layer with it, starts below its main menu bar).
func TestTipBoxInLayerCoordinates(t *testing.T) {
	a := test.NewTempApp(t)
	win := a.NewWindow("tips")
	b := newTipBox()
	bar := canvas.NewRectangle(color.Black)
	bar.SetMinSize(fyne.NewSize(10, 30)) // stands for the menu bar
	win.SetContent(container.NewBorder(bar, nil, nil, nil, b.layer))
	win.Resize(fyne.NewSize(400, 300))
	origin := a.Driver().AbsolutePositionForObject(b.layer)
	if origin.Y < 30 {
		t.Fatalf("the layer is at %v, not below the bar", origin)
	}
	pointer := origin.Add(fyne.NewPos(100, 50)) // absolute, as a MouseEvent gives it
	b.show(win.Canvas(), nil, "a tip", pointer)
	if got, want := b.bg.Position(), fyne.NewPos(108, 70); got != want {
		t.Errorf("box at %v in the layer, want %v (below and right of the pointer)", got, want)
	}
	// At the layer's bottom edge the box goes above the pointer and stays inside the layer.
	h := b.layer.Size().Height
	b.show(win.Canvas(), nil, "a tip", origin.Add(fyne.NewPos(100, h-5)))
	if p, s := b.bg.Position(), b.bg.Size(); p.Y+s.Height > h || p.Y > h-5 {
		t.Errorf("near the bottom: box at %v size %v in a layer %v high", p, s, h)
	}
}
