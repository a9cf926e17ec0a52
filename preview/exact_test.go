package preview

import (
	"bytes"
	"context"
	"image"
	"math"
	"math/big"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// pixelCounter is the CPU renderer counting the pixels it computes or renders.
type pixelCounter struct {
	cpu.Renderer
	px atomic.Int64
}

func (c *pixelCounter) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	c.px.Add(int64(rect.Dx() * rect.Dy()))
	return c.Renderer.Render(ctx, f, rect, dst)
}

func (c *pixelCounter) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	c.px.Add(int64(rect.Dx() * rect.Dy()))
	return c.Renderer.Compute(ctx, f, rect, dst)
}

// inexact is the CPU renderer that does not say it computes exactly.
type inexact struct{ r cpu.Renderer }

func (r *inexact) Render(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *image.RGBA) error {
	return r.r.Render(ctx, f, rect, dst)
}

func (r *inexact) Compute(ctx context.Context, f fractal.Frame, rect image.Rectangle, dst *colour.Data) error {
	return r.r.Compute(ctx, f, rect, dst)
}

// dyadic is a view at w x h whose pixel spacing is exactly 2^-e and whose centre lies on the
// grid of half that spacing, near (re, im): every pixel's point (and, at depth, its delta
// from a reference at the centre) is exact, so a pan by whole pixels moves the pixels'
// coordinates exactly and every pixel the old view shows matches. pan returns it moved by
// (dx, dy) pixels (right, down), multiples of a half pixel, exactly.
type dyadic struct {
	re, im *big.Rat // the centre
	zoom   string
	e      int
	iter   int
}

func newDyadic(t testing.TB, re, im float64, w, h, e, iter int) dyadic {
	t.Helper()
	grid := func(v float64) *big.Rat {
		m := new(big.Float).SetPrec(200).SetFloat64(v)
		m.SetMantExp(m, e+1)
		i, _ := m.Int(nil)
		return new(big.Rat).SetFrac(i, new(big.Int).Lsh(big.NewInt(1), uint(e+1)))
	}
	want := math.Ldexp(1, -e)
	z0 := 4 / float64(min(w, h)) / want
	for _, z := range []float64{z0, math.Nextafter(z0, 0), math.Nextafter(z0, math.Inf(1))} {
		d := dyadic{re: grid(re), im: grid(im), zoom: strconv.FormatFloat(z, 'g', -1, 64), e: e, iter: iter}
		if fractal.NewFrame(d.loc(), w, h).Spacing == want {
			return d
		}
	}
	t.Fatalf("no zoom gives a spacing of 2^-%d at %dx%d", e, w, h)
	return dyadic{}
}

func (d dyadic) loc() fractal.Location {
	l := boundaryLoc()
	l.Re = fractal.MustDecimal(d.re.FloatString(d.e + 2))
	l.Im = fractal.MustDecimal(d.im.FloatString(d.e + 2))
	l.Zoom = fractal.MustDecimal(d.zoom)
	l.Iterations = d.iter
	return l
}

func (d dyadic) pan(dx, dy float64) dyadic {
	step := func(v float64) *big.Rat {
		r := new(big.Rat).SetFloat64(v)
		return r.Mul(r, new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(d.e))))
	}
	d.re = new(big.Rat).Add(d.re, step(dx))
	d.im = new(big.Rat).Sub(d.im, step(dy))
	return d
}

// sameData reports whether a and b hold the same samples, bit for bit.
func sameData(a, b *colour.Data) bool {
	if a.Rect != b.Rect {
		return false
	}
	for i := range a.Pix {
		p, q := a.Pix[i], b.Pix[i]
		if math.Float64bits(p.Nu) != math.Float64bits(q.Nu) || math.Float32bits(p.DEX) != math.Float32bits(q.DEX) ||
			math.Float32bits(p.DEY) != math.Float32bits(q.DEY) {
			return false
		}
	}
	return true
}

// coincident counts, by brute force, the pixels of nw whose coordinates (as its precision
// computes them) some pixel of old has, bit for bit: what nw may take from old.
func coincident(old, nw fractal.Frame) int {
	coord := func(f fractal.Frame, x, y int) (uint64, uint64) {
		switch f.Precision() {
		case fractal.Float32:
			re, im := f.Point32(x, y)
			return uint64(math.Float32bits(re)), uint64(math.Float32bits(im))
		case fractal.Double:
			re, im := f.Point64(x, y)
			return math.Float64bits(re), math.Float64bits(im)
		}
		re, im := f.Delta(x, y)
		return math.Float64bits(re), math.Float64bits(im)
	}
	cols, rows := 0, 0
	for x := range nw.W {
		a, _ := coord(nw, x, 0)
		for x2 := range old.W {
			if b, _ := coord(old, x2, 0); a == b {
				cols++
				break
			}
		}
	}
	for y := range nw.H {
		_, a := coord(nw, 0, y)
		for y2 := range old.H {
			if _, b := coord(old, 0, y2); a == b {
				rows++
				break
			}
		}
	}
	return cols * rows
}

// A full frame after a pan takes every sample the view before holds exactly and computes the
// rest: its data and picture are byte for byte a fresh computation's, and the pixels computed
// are exactly the others. At float32, double and perturbation: pans by whole pixels on exact
// grids (everything the old view shows is reused), by half and quarter pixels (nothing is),
// and by Location.Offset (whatever its rounding leaves: sometimes some, often none); a deep
// pan whose frame's BLA table is another (its DeltaMax crosses a power of two) takes nothing.
func TestExactReuseAfterPan(t *testing.T) {
	const w, h = 160, 96
	type pan struct {
		dx, dy float64
		reused int // -1: what coincident says
	}
	all := func(dx, dy int) pan { return pan{float64(dx), float64(dy), (w - abs(dx)) * (h - abs(dy))} }
	seahorse := func(zoom string, iter int) fractal.Location {
		l := boundaryLoc()
		l.Re, l.Im = fractal.MustDecimal("-0.743643887037151"), fractal.MustDecimal("0.131825904205330")
		l.Zoom, l.Iterations = fractal.MustDecimal(zoom), iter
		return l
	}
	cases := []struct {
		name string
		d    dyadic
		prec fractal.Precision
		pans []pan
		loc  *fractal.Location // a view not on an exact grid: pans by Location.Offset only
	}{
		{"float32", newDyadic(t, -0.7436, 0.1318, w, h, 9, 300), fractal.Float32,
			[]pan{all(16, 0), all(-7, 5), all(0, -40), {0.5, 0, 0}, {0.25, 3, 0}}, nil},
		{"double", newDyadic(t, -0.743643887, 0.131825904, w, h, 22, 1000), fractal.Double,
			[]pan{all(16, 0), all(-7, 5), all(150, 90), {0.5, 0, 0}, {3, 0.25, 0}}, nil},
		{"perturbation", newDyadic(t, -0.743643887037151, 0.131825904205330, w, h, 56, 3000), fractal.Perturbation,
			[]pan{all(16, 0), all(-7, 5), {0.5, 0, 0}, {60, 0, 0}}, nil},
		// A view whose pans by Location.Offset leave some columns (and rows) exact by chance. A
		// double view keeps thousands of float64 steps to a pixel (ChoosePrecision), where
		// Offset's rounding does not land on the old grid: "double" above covers its partial
		// reuse with the pan by (3, 0.25).
		{"float32 by chance", dyadic{}, fractal.Float32, nil, new(seahorse("60", 300))},
	}
	for _, c := range cases {
		var old fractal.Location
		if c.loc != nil {
			old = *c.loc
		} else {
			old = c.d.loc()
		}
		ctx := context.Background()
		pc := &pixelCounter{}
		s := New(pc)
		s.Bands = 3
		_, c0, _, err := s.fullData(ctx, old, w, h, FullOptions{}, nil)
		if err != nil || !c0.exact || c0.f.Precision() != c.prec {
			t.Fatalf("%s: the view before: %v, exact %v, %v", c.name, err, c0.exact, c0.f.Precision())
		}
		pans := c.pans
		for _, d := range [][2]float64{{10, 0}, {-3, 7}, {1, 0}, {0.5, 0}, {-24, -13}} {
			pans = append(pans, pan{d[0], d[1], -1}) // by Location.Offset
		}
		total := 0
		for i, p := range pans {
			var nw fractal.Location
			if i < len(c.pans) {
				nw = c.d.pan(p.dx, p.dy).loc()
			} else {
				nw = old.Offset(p.dx, p.dy, w, h)
			}
			pc.px.Store(0)
			img, c1, st, err := s.fullData(ctx, nw, w, h, FullOptions{}, []computed{c0})
			if err != nil || c1.data == nil {
				t.Fatalf("%s pan %v: %v", c.name, p, err)
			}
			fresh, cf, _, err := New(&inexact{}).fullData(ctx, nw, w, h, FullOptions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !sameData(c1.data, cf.data) || !bytes.Equal(img.Pix, fresh.Pix) {
				t.Errorf("%s pan %v: the frame that reused %d pixels differs from a fresh one", c.name, p, st.PixelsReused)
			}
			want := p.reused
			if want < 0 {
				want = coincident(c0.f, c1.f)
			}
			if p.dx == 60 && c.prec == fractal.Perturbation {
				if c0.f.BLABound() == c1.f.BLABound() {
					t.Errorf("%s pan %v: the BLA bound stays %g: the case tests nothing", c.name, p, c0.f.BLABound())
				}
				want = 0
			}
			if st.PixelsReused != want || st.PixelsRendered != w*h-want || pc.px.Load() != int64(w*h-want) {
				t.Errorf("%s pan %v: reused %d (want %d), rendered %d, computed %d of %d", c.name, p,
					st.PixelsReused, want, st.PixelsRendered, pc.px.Load(), w*h)
			}
			t.Logf("%s pan %v: %d of %d pixels reused", c.name, p, st.PixelsReused, w*h)
			total += st.PixelsReused
		}
		if total == 0 {
			t.Errorf("%s: no pan reused anything: the case tests no reuse", c.name)
		}
	}
}

func abs(x int) int { return max(x, -x) }

// Nothing is reused from a renderer that does not say it computes exactly, nor into a frame
// of other iterations, and data without its frame's exactness is not offered; a wider view
// of the same centre and zoom takes every old pixel.
func TestExactReuseNeedsSameInputs(t *testing.T) {
	const w, h = 96, 64
	ctx := context.Background()
	d := newDyadic(t, -0.743643887, 0.131825904, w, h, 22, 500)
	s := New(&pixelCounter{})
	_, c0, _, err := s.fullData(ctx, d.loc(), w, h, FullOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	nw := d.pan(5, 0).loc()
	if _, c, st, _ := New(&inexact{}).fullData(ctx, nw, w, h, FullOptions{}, []computed{c0}); st.PixelsReused != 0 || c.exact {
		t.Errorf("a renderer that is not exact reused %d pixels (exact %v)", st.PixelsReused, c.exact)
	}
	more := nw
	more.Iterations++
	if _, _, st, _ := s.fullData(ctx, more, w, h, FullOptions{}, []computed{c0}); st.PixelsReused != 0 {
		t.Errorf("a frame of other iterations reused %d pixels", st.PixelsReused)
	}
	// The same view of another formula (or another Julia set) computes every pixel afresh.
	ship := d.loc()
	ship.Formula = fractal.Formula{Kind: fractal.BurningShip}
	julia := d.loc()
	julia.Julia = fractal.JuliaParam{On: true, Re: fractal.MustDecimal("-0.8"), Im: fractal.MustDecimal("0.156")}
	for _, other := range []fractal.Location{ship, julia} {
		if _, _, st, _ := s.fullData(ctx, other, w, h, FullOptions{}, []computed{c0}); st.PixelsReused != 0 {
			t.Errorf("%s reused %d pixels of %s", other, st.PixelsReused, d.loc())
		}
	}
	// A window widened by 4 pixels keeps its spacing (the shorter side sets it) and every
	// column: the old frame's pixels, shifted by 2.
	wide, cw, st, err := s.fullData(ctx, d.loc(), w+4, h, FullOptions{}, []computed{c0})
	if err != nil || st.PixelsReused != w*h {
		t.Errorf("the widened view reused %d pixels, want %d (%v)", st.PixelsReused, w*h, err)
	}
	fresh, cf, _, _ := New(&inexact{}).fullData(ctx, d.loc(), w+4, h, FullOptions{}, nil)
	if !sameData(cw.data, cf.data) || !bytes.Equal(wide.Pix, fresh.Pix) {
		t.Errorf("the widened view differs from a fresh one")
	}
	c0.exact = false
	if _, _, st, _ := s.fullData(ctx, nw, w, h, FullOptions{}, []computed{c0}); st.PixelsReused != 0 {
		t.Errorf("data not computed exactly gave %d pixels", st.PixelsReused)
	}
}

// The worker's full frame after a pan, and every accumulated sample, take what the view
// before (now in the cache) holds: the picture at rest is the fresh one, byte for byte, and
// far fewer pixels are computed than the view has samples.
func TestWorkerReusesAfterPan(t *testing.T) {
	const w, h, n = 128, 80, 2
	d := newDyadic(t, -0.743643887, 0.131825904, w, h, 21, 800)
	pc := &pixelCounter{}
	rs := newResults(t)
	wk := NewWorker(New(pc), time.Millisecond, rs.deliver)
	defer wk.Close()
	wk.SetAccumulate(n)
	_, from := finish(rs, wk, d.loc(), w, h, n, 0)
	pc.px.Store(0)
	nw := d.pan(-12, 6).loc()
	got, from := finish(rs, wk, nw, w, h, n, from)
	var full *Result
	for _, r := range rs.since(0) {
		if r.Req.Seq == got.Req.Seq && r.Image != nil && r.Samples == 0 && !r.Partial {
			full = &r
		}
	}
	if full == nil || full.Stats.PixelsReused != (w-12)*(h-6) {
		t.Fatalf("the full frame after the pan: %+v", full)
	}
	if c, want := pc.px.Load(), int64((1+n*n)*(w*h-(w-12)*(h-6))); c != want {
		t.Errorf("%d pixels computed after the pan, want %d (the uncovered part of the frame and its samples)", c, want)
	}
	if fresh := freshMean(t, nw, w, h, n); !bytes.Equal(got.Image.Pix, fresh.Pix) {
		t.Errorf("the picture at rest after the pan differs from a fresh one")
	}
	_ = from
}

// BenchmarkFullAfterPan1280x720 is a full frame of 1280x720 at double precision after a pan
// by 10% of its width (128 pixels): "reused" takes the 1152 columns the view before holds
// (on exact grids), "fresh" computes every pixel, "offset" is the same pan by
// Location.Offset, whose rounding leaves no column exact at this depth.
func BenchmarkFullAfterPan1280x720(b *testing.B) {
	const w, h = 1280, 720
	d := newDyadic(b, -0.743643887, 0.131825904, w, h, 22, 1000)
	ctx := context.Background()
	s := New(&cpu.Renderer{})
	_, c0, _, err := s.fullData(ctx, d.loc(), w, h, FullOptions{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []struct {
		name string
		loc  fractal.Location
		from []computed
	}{
		{"fresh", d.pan(128, 0).loc(), nil},
		{"reused", d.pan(128, 0).loc(), []computed{c0}},
		{"offset", d.loc().Offset(128, 0, w, h), []computed{c0}},
	} {
		b.Run(m.name, func(b *testing.B) {
			var st FrameStats
			for b.Loop() {
				_, _, st, err = s.fullData(ctx, m.loc, w, h, FullOptions{}, m.from)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.PixelsReused)/float64(w*h), "reused/px")
		})
	}
}
