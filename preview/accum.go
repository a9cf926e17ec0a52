package preview

import (
	"context"
	"fmt"
	"image"
	"math"
	"strings"

	"mandelscope/colour"
	"mandelscope/fractal"
)

// AccumulateN is the samples per side the window's picture at rest accumulates: the 4 x 4
// grid of a `--supersample=4` export.
const AccumulateN = 4

// ShowAfter is the number of samples accumulated before the running mean is shown: the
// first group of SampleOrder, whose mean is centred on the pixels (a single sample of the
// grid sits off the pixel's centre and would shift the picture by a fraction of a pixel).
const ShowAfter = 4

// SampleOrder returns the n x n grid's points (i, j), 0 <= i, j < n, in the order the
// window accumulates them: in groups of four, each group the orbit of one point under a
// quarter turn about the pixel's centre, so that the mean of every complete group sits on
// the pixel's centre (n odd adds the centre last); groups from the outside in. Every point
// appears once.
func SampleOrder(n int) []image.Point {
	out := make([]image.Point, 0, n*n)
	seen := make(map[image.Point]bool, n*n)
	add := func(p image.Point) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	// Rings from the outside in; on each ring, one point per orbit, then its quarter turns
	// (i, j) -> (n-1-j, i).
	for r := 0; r < (n+1)/2; r++ {
		for i := r; i < n-1-r; i++ {
			p := image.Pt(i, r)
			for range 4 {
				add(p)
				p = image.Pt(n-1-p.Y, p.X)
			}
		}
	}
	if n%2 == 1 {
		add(image.Pt(n/2, n/2))
	}
	return out
}

// SampleShift is the shift in pixels of grid point (i, j) of an n x n grid from the pixel's
// centre: ((i + 0.5)/n - 0.5, (j + 0.5)/n - 0.5), x right and y down. Sample (i, j) of an
// export's pixel (x, y) at --supersample=n is the centre of its sub-pixel (n x + i, n y + j),
// which is exactly there.
func SampleShift(i, j, n int) (dx, dy float64) {
	return (float64(i)+0.5)/float64(n) - 0.5, (float64(j)+0.5)/float64(n) - 0.5
}

// SampleLocation is the location whose w x h frame is sample (i, j) of loc's n x n grid: the
// centre moved by SampleShift in math/big and written to a millionth of a pixel (the
// spacing is not a finite decimal; Location.Offset's thousandth of a pixel would move
// filaments visibly). The colouring is loc's: the sample's pixels are output pixels, so
// the distance colouring's line width is already in output pixels (the export's frame has
// n times finer pixels, hence its Coloring.Sampled(n)).
func SampleLocation(loc fractal.Location, w, h, i, j, n int) fractal.Location {
	dx, dy := SampleShift(i, j, n)
	l := loc
	sp := fractal.SpacingExp(loc.ZoomExp(), w, h)
	if sp.Sign() > 0 && sp.Finite() {
		digits := max(9, int(math.Ceil(-sp.Log10()))+6)
		prec := uint(float64(digits)*math.Log2(10)) + 64
		move := func(d fractal.Decimal, delta fractal.Exp) fractal.Decimal {
			v := d.Big(max(prec, d.SignificantBits()+64))
			v.Add(v, delta.Big(v.Prec()))
			m, err := fractal.ParseDecimal(trimDecimal(v.Text('f', digits)))
			if err != nil {
				return d
			}
			return m
		}
		re, im := loc.PlaneOffset(dx, -dy)
		l.Re = move(loc.Re, sp.MulFloat(re))
		l.Im = move(loc.Im, sp.MulFloat(im))
	}
	return l
}

// SampleFrame is the w x h frame of sample (i, j) of loc's n x n grid: SampleLocation's
// location (which a deep frame's pixel deltas come from), with the float64 centre that
// float32 and double renderers compute with derived from the view's own frame, as the
// export's n times larger frame derives its pixels from the same float64 centre (a centre
// rounded from the moved decimal would differ from it by an ulp, which moves chaotic
// boundary pixels), and at least the precision of that n times larger frame (its finer
// spacing may cross from float32 to double, or from double to perturbation, where the
// sample's would not).
func SampleFrame(loc fractal.Location, w, h, i, j, n int) fractal.Frame {
	full := fractal.NewFrame(loc, w, h)
	f := fractal.NewFrame(SampleLocation(loc, w, h, i, j, n), w, h)
	dx, dy := SampleShift(i, j, n)
	pr, pi := loc.PlaneOffset(dx, -dy)
	f.Re = full.Re + pr*full.Spacing
	f.Im = full.Im + pi*full.Spacing
	f.Spacing, f.SpacingX = full.Spacing, full.SpacingX
	f.MinPrecision = fractal.NewFrame(loc, n*w, n*h).Precision()
	return f
}

// trimDecimal drops the trailing zeros of a fixed-point number's fraction (and the point
// when nothing is left after it).
func trimDecimal(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// Accumulator sums the samples of a w x h picture, channel by channel, and gives their mean
// as the export's box filter does (each channel the sum divided by the count, rounding half
// up; alpha opaque).
type Accumulator struct {
	W, H int
	n    int
	sum  []uint32
}

// NewAccumulator returns an empty accumulator of w x h.
func NewAccumulator(w, h int) *Accumulator {
	return &Accumulator{W: w, H: h, sum: make([]uint32, 3*w*h)}
}

// Count is the number of samples added.
func (a *Accumulator) Count() int { return a.n }

// Add adds one sample, a w x h picture.
func (a *Accumulator) Add(img *image.RGBA) error {
	if img.Rect.Dx() != a.W || img.Rect.Dy() != a.H {
		return fmt.Errorf("preview: sample of %dx%d added to a %dx%d accumulation", img.Rect.Dx(), img.Rect.Dy(), a.W, a.H)
	}
	for y := range a.H {
		row := img.Pix[y*img.Stride : y*img.Stride+4*a.W]
		s := a.sum[3*a.W*y : 3*a.W*(y+1)]
		for x := range a.W {
			s[3*x] += uint32(row[4*x])
			s[3*x+1] += uint32(row[4*x+1])
			s[3*x+2] += uint32(row[4*x+2])
		}
	}
	a.n++
	return nil
}

// Mean returns the mean of the samples so far (nil before the first).
func (a *Accumulator) Mean() *image.RGBA {
	if a.n == 0 {
		return nil
	}
	out := image.NewRGBA(image.Rect(0, 0, a.W, a.H))
	nn := uint32(a.n)
	for i := range a.W * a.H {
		p := out.Pix[4*i : 4*i+4 : 4*i+4]
		s := a.sum[3*i : 3*i+3 : 3*i+3]
		p[0] = byte((s[0] + nn/2) / nn)
		p[1] = byte((s[1] + nn/2) / nn)
		p[2] = byte((s[2] + nn/2) / nn)
		p[3] = 255
	}
	return out
}

// Sample renders sample (i, j) of loc's n x n grid at w x h (SampleLocation) in bands,
// polling stale between them (true abandons it: a nil image and no error, as does
// cancelling ctx). A deep view's sample reuses the cached reference orbit (the centre moves
// by less than a pixel). It neither changes the frame the next interactive one starts from
// nor the cost estimates.
func (s *Scheduler) Sample(ctx context.Context, loc fractal.Location, w, h, i, j, n int, stale func() bool) (*image.RGBA, error) {
	if w < 1 || h < 1 {
		return nil, fmt.Errorf("preview: view size %dx%d is empty", w, h)
	}
	if n < 1 || i < 0 || j < 0 || i >= n || j >= n {
		return nil, fmt.Errorf("preview: sample (%d, %d) is not in a %dx%d grid", i, j, n, n)
	}
	f, err := s.Reference(ctx, SampleFrame(loc, w, h, i, j, n), nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, err
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	bands := s.Bands
	if bands <= 0 {
		bands = s.autoBands(loc.Iterations, w, h)
	}
	bands = max(1, min(bands, h))
	for b := range bands {
		if stale != nil && stale() {
			return nil, nil
		}
		rect := image.Rect(0, h*b/bands, w, h*(b+1)/bands)
		if err := s.r.Render(ctx, f, rect, img.SubImage(rect).(*image.RGBA)); err != nil {
			if ctx.Err() != nil {
				return nil, nil
			}
			return nil, err
		}
	}
	return img, nil
}

// SampleData computes sample (i, j) of loc's n x n grid at w x h, as Sample renders it, into
// data that keeps it (the derivative included) for colouring, in bands polling stale between
// them (true abandons it: nil data and no error, as does cancelling ctx). A renderer that is
// no tile.Computer, or whose Compute returns ErrNoData, gives ErrNoData: Sample renders it.
func (s *Scheduler) SampleData(ctx context.Context, loc fractal.Location, w, h, i, j, n int, stale func() bool) (*colour.Data, error) {
	c, err := s.sampleData(ctx, loc, w, h, i, j, n, stale, nil)
	return c.data, err
}

// sampleData is SampleData taking, when the renderer computes exactly, every sample it can
// from the data computed before (from: exact.go); the data comes back with its frame.
func (s *Scheduler) sampleData(ctx context.Context, loc fractal.Location, w, h, i, j, n int, stale func() bool, from []computed) (computed, error) {
	if w < 1 || h < 1 {
		return computed{}, fmt.Errorf("preview: view size %dx%d is empty", w, h)
	}
	if n < 1 || i < 0 || j < 0 || i >= n || j >= n {
		return computed{}, fmt.Errorf("preview: sample (%d, %d) is not in a %dx%d grid", i, j, n, n)
	}
	if s.computer() == nil {
		return computed{}, ErrNoData
	}
	f, err := s.Reference(ctx, SampleFrame(loc, w, h, i, j, n), nil)
	if err != nil {
		if ctx.Err() != nil {
			return computed{}, nil
		}
		return computed{}, err
	}
	bd := s.newBandData(f, from)
	if bd.data == nil {
		return computed{}, ErrNoData
	}
	bands := s.Bands
	if bands <= 0 {
		bands = s.autoBands(loc.Iterations, w, h)
	}
	bands = max(1, min(bands, h))
	for b := range bands {
		if stale != nil && stale() {
			return computed{}, nil
		}
		rect := image.Rect(0, h*b/bands, w, h*(b+1)/bands)
		if err := bd.band(ctx, s.r, rect, nil); err != nil {
			if ctx.Err() != nil {
				return computed{}, nil
			}
			return computed{}, err
		}
	}
	return bd.result(s), nil
}
