package app

import (
	"context"
	"image"
	"math/big"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/fractal"
	"mandelscope/preview"
)

// bigPixelDiff is (a - b) / spacing for two big values, as a float64.
func bigPixelDiff(a, b *big.Float, spacing float64) float64 {
	d, _ := new(big.Float).SetPrec(a.Prec()+64).Sub(a, b).Float64()
	return d / spacing
}

// At zoom 1e40 the view moves by exact pixels: a drag, a wheel zoom about the cursor and a
// click zoom keep the point under the pointer where it is, to a hundredth of a pixel, in
// math/big (float64 centres would differ by nothing at all).
func TestDeepNavigationIsExact(t *testing.T) {
	w := newTestWindow(t)
	pw, ph := w.ViewSize()
	w.SetLocation(testLoc(testRe60, testIm60, "1e40", 3000))
	const prec = 400
	// point is the point at position (x, y) of the view (a pixel's corner, where the pointer
	// is), in math/big.
	point := func(x, y int) (*big.Float, *big.Float, float64) {
		f := fractal.NewFrame(w.Location(), pw, ph)
		re, im := f.PointBig(x, y, prec) // the pixel's centre, half a pixel right and down
		half := new(big.Float).SetPrec(prec).SetFloat64(f.Spacing / 2)
		return re.Sub(re, half), im.Add(im, half), f.Spacing
	}
	// Drag right 100 and up 40 pixels: the point under pixel (150, 120) is now under (250, 80).
	re0, im0, _ := point(150, 120)
	test := func(what string, x, y int) {
		t.Helper()
		re1, im1, s := point(x, y)
		if dx, dy := bigPixelDiff(re1, re0, s), bigPixelDiff(im1, im0, s); dx*dx+dy*dy > 0.02*0.02 {
			t.Errorf("%s: the point under the pointer moved by (%.3g, %.3g) pixels", what, dx, dy)
		}
	}
	w.view.Dragged(&fyne.DragEvent{Dragged: fyne.Delta{DX: 100, DY: -40}})
	w.view.DragEnd()
	test("drag", 250, 80)
	// Two wheel notches about (70, 210), then a double-click about (300, 50): the point that
	// stays is the one the pixel under the pointer shows, at its centre.
	point = func(x, y int) (*big.Float, *big.Float, float64) {
		f := fractal.NewFrame(w.Location(), pw, ph)
		re, im := f.PointBig(x, y, prec)
		return re, im, f.Spacing
	}
	re0, im0, _ = point(70, 210)
	w.view.Scrolled(&fyne.ScrollEvent{PointEvent: fyne.PointEvent{Position: fyne.NewPos(70, 210)}, Scrolled: fyne.Delta{DY: 2 * wheelNotch}})
	test("wheel zoom", 70, 210)
	re0, im0, _ = point(300, 50)
	w.view.DoubleTapped(&fyne.PointEvent{Position: fyne.NewPos(300, 50)})
	test("double-click zoom", 300, 50)
	if z := w.Location().ZoomFloat(); z < 1e40*WheelZoom*WheelZoom*ClickZoom*0.999 {
		t.Errorf("zoom %g after zooming in from 1e40", z)
	}
}

// The last full frame is shifted by exact pixels at depth.
func TestCentreShiftDeep(t *testing.T) {
	from := testLoc(testRe60, testIm60, "1e45", 3000)
	for _, d := range [][2]float64{{3, 0}, {-17, 5}, {0.5, -250}} {
		l := from.Offset(d[0], d[1], 640, 360)
		dx, dy := centreShift(l, from, fractal.Spacing(from.ZoomFloat(), 640, 360))
		if !near(dx, d[0], 0.01) || !near(dy, d[1], 0.01) {
			t.Errorf("offset by %v pixels: shift (%g, %g)", d, dx, dy)
		}
	}
}

// The cursor readout at depth gives each pixel its own point, with every digit it needs, and
// the escape count the frame is drawn with.
func TestDeepCursorReadout(t *testing.T) {
	l := testLoc("-0.743643887037151", "0.131825904205330", "1e20", 1200)
	f, err := preview.New(nil).Reference(context.Background(), fractal.NewFrame(l, 320, 200), nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := probeText(f, 100, 50), probeText(f, 101, 50)
	if a == b {
		t.Fatalf("neighbouring pixels read the same: %q", a)
	}
	re, _, ok := strings.Cut(strings.TrimPrefix(a, "pixel 100,50: "), " ")
	if !ok || len(re) < 22 {
		t.Errorf("readout %q: the real part %q has too few digits for zoom 1e20", a, re)
	}
	wantRe, _ := f.PointBig(100, 50, 300)
	if got, _, err := big.ParseFloat(re, 10, 300, big.ToNearestEven); err != nil || bigPixelDiff(got, wantRe, f.Spacing) > 0.1 || bigPixelDiff(got, wantRe, f.Spacing) < -0.1 {
		t.Errorf("readout real part %s is not the pixel's %s (%v)", re, wantRe.Text('g', 30), err)
	}
	// Near 0 at zoom 1e100 the real part is written with an exponent, to the same precision.
	z := testLoc("0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030", "1.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000450", "1e100", 3000)
	fz, err := preview.New(nil).Reference(context.Background(), fractal.NewFrame(z, 320, 200), nil)
	if err != nil {
		t.Fatal(err)
	}
	tz := probeText(fz, 10, 150)
	rez, _, _ := strings.Cut(strings.TrimPrefix(tz, "pixel 10,150: "), " ")
	wantZ, _ := fz.PointBig(10, 150, 600)
	if got, _, err := big.ParseFloat(rez, 10, 600, big.ToNearestEven); !strings.Contains(rez, "e-") || err != nil || bigPixelDiff(got, wantZ, fz.Spacing) > 0.1 || bigPixelDiff(got, wantZ, fz.Spacing) < -0.1 {
		t.Errorf("readout %q at 1e100: real part %q, want %s with an exponent (%v)", tz, rez, wantZ.Text('g', 10), err)
	}
	// Past float64's exponent (zoom 1e1000, float64 spacing 0) neighbouring pixels still read
	// apart, to a tenth of the spacing, with an exponent.
	k := 1000
	zk := testLoc("0.3e-1000", "1."+strings.Repeat("0", k)+"45", "1e1000", 3000)
	fk, err := preview.New(nil).Reference(context.Background(), fractal.NewFrame(zk, 320, 200), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, px := range []int{10, 11} {
		tk := probeText(fk, px, 150)
		rek, _, _ := strings.Cut(strings.TrimPrefix(tk, "pixel "+itoa(px)+",150: "), " ")
		wantK, _ := fk.PointBig(px, 150, 4000)
		got, _, err := big.ParseFloat(rek, 10, 4000, big.ToNearestEven)
		if err != nil || !strings.Contains(rek, "e-") {
			t.Fatalf("readout %q at 1e1000: real part %q, want an exponent form (%v)", tk, rek, err)
		}
		d := new(big.Float).SetPrec(4000).Sub(got, wantK)
		d.Quo(d, fk.SpacingX.Big(4000))
		if dd, _ := d.Float64(); dd > 0.1 || dd < -0.1 {
			t.Errorf("readout %q at 1e1000 is %.3g pixels from the pixel's point", tk, dd)
		}
	}
	n, _ := f.Escape(100, 50)
	want := "inside"
	if n >= 0 {
		want = "escape " + itoa(n)
	}
	if !strings.Contains(a, want) {
		t.Errorf("readout %q, want %q", a, want)
	}
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }

// glLike is a renderer that names its modes, as the GL renderer does, and records whether
// the Perturbation frames it is given carry their reference orbit.
type glLike struct {
	mu      sync.Mutex
	deep    int // Perturbation frames rendered
	withRef int // of them, with their reference
}

func (g *glLike) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if f.Precision() == fractal.Perturbation {
		g.deep++
		if f.Ref != nil {
			g.withRef++
		}
	}
	return nil
}
func (g *glLike) Name() string { return "OpenGL (test)" }
func (g *glLike) Mode(f fractal.Frame) string {
	if f.Precision() == fractal.Perturbation {
		return "perturbation (fp64)"
	}
	return "float32"
}

// Past float64's reach the status bar names perturbation, never "limit reached"; the
// renderer in use gets the deep frames with the reference orbit the window computed.
func TestDeepViewMode(t *testing.T) {
	w := newTestWindow(t)
	deep := testLoc("-0.743643887037151", "0.131825904205330", "1e30", 800)
	w.SetLocation(deep)
	if got := w.statusMode.Text; got != "perturbation (CPU)" {
		t.Errorf("mode at zoom 1e30 on the CPU shows %q", got)
	}
	g := &glLike{}
	w.rend.set(g)
	w.sched.Reset()
	w.updateStatus()
	if got, full := w.statusMode.Text, w.fullText(w.statusMode); got != "perturbation (GPU fp64)" || full != "perturbation (fp64)" {
		t.Errorf("mode at zoom 1e30 on a renderer that names its mode shows %q (in full %q)", got, full)
	}
	w.SetLocation(deep.Offset(10, 0, 300, 200))
	waitFor(t, "deep frames on the renderer", func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.deep > 0
	})
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.withRef != g.deep {
		t.Errorf("%d of %d deep frames came without their reference", g.deep-g.withRef, g.deep)
	}
}

// Auto iterations rise when the full frame's escape counts say so, the status bar shows it,
// and Home goes back to the plain automatic count.
func TestAutoIterationsAdapt(t *testing.T) {
	w := newTestWindow(t)
	l := testLoc("-0.743643887037151", "0.131825904205330", "1e14", fractal.AutoIterations(1e14))
	w.SetLocation(l)
	if !w.autoCheck.Checked {
		t.Fatal("a view at the automatic count is not on Auto")
	}
	allInside := preview.EscapeSample{Iterations: l.Iterations, Pixels: 640, Inside: 640}
	w.adaptIterations(w.Location(), allInside)
	if got, want := w.Location().Iterations, 2*fractal.AutoIterations(1e14); got != want {
		t.Fatalf("after an all-black sample: iterations %d, want %d", got, want)
	}
	if !strings.Contains(w.statusIter.Text, "auto x2") || !w.autoCheck.Checked {
		t.Errorf("status %q, Auto %v", w.statusIter.Text, w.autoCheck.Checked)
	}
	// A sample of another view (the user moved on) changes nothing.
	w.adaptIterations(l, allInside)
	if got := w.Location().Iterations; got != 2*fractal.AutoIterations(1e14) {
		t.Errorf("a stale sample changed the iterations to %d", got)
	}
	// The boost follows the zoom; a location at a boosted automatic count is on Auto.
	w.zoomCentre(2)
	if got, want := w.Location().Iterations, 2*fractal.AutoIterations(w.Location().ZoomFloat()); got != want {
		t.Errorf("zoomed in: iterations %d, want %d", got, want)
	}
	w.SetLocation(w.Location())
	if !w.autoCheck.Checked {
		t.Error("a location at twice the automatic count is not on Auto")
	}
	w.goHome()
	if got := w.Location().Iterations; got != fractal.AutoIterations(fractal.Home().ZoomFloat()) {
		t.Errorf("home: iterations %d", got)
	}
	// With Auto off nothing adapts.
	submitIterations(w, "700")
	w.adaptIterations(w.Location(), preview.EscapeSample{Iterations: 700, Pixels: 640, Inside: 640})
	if got := w.Location().Iterations; got != 700 {
		t.Errorf("Auto off: iterations %d", got)
	}
}

// End to end: at the example (zoom 1e14, where the automatic count leaves the picture
// black), the window raises the iterations by itself from the sampled escape counts.
func TestAutoIterationsAdaptInTheWindow(t *testing.T) {
	w := openTestWindow(t, Options{Renderer: "cpu", Size: fyne.NewSize(400, 300)})
	l := testLoc("-0.743643887037151", "0.131825904205330", "1e14", fractal.AutoIterations(1e14))
	w.SetLocation(l)
	waitFor(t, "the iterations to rise", func() bool { return w.Location().Iterations > l.Iterations })
	if !w.autoCheck.Checked || !strings.Contains(w.statusIter.Text, "auto x") {
		t.Errorf("Auto %v, status %q", w.autoCheck.Checked, w.statusIter.Text)
	}
}
