package preview

import (
	"image"
	"image/color"
	"math"
	"slices"
	"testing"

	"mandelscope/fractal"
)

// The phases of an interactive frame that reuses the last one, each on its own: where a new
// pixel's centre falls in the old frame, which tiles are rendered at which scale, how they
// are merged into render calls, and how a rendered run is pasted in.

func TestSource(t *testing.T) {
	for _, c := range []struct {
		name   string
		o, k   float64
		n, i   int
		at     int
		d      float32
		reason string
	}{
		{"same view, first", 0, 1, 10, 0, 0, 0, ""},
		{"same view, last", 0, 1, 10, 9, 9, 0, ""},
		{"half a pixel left", -0.5, 1, 10, 0, 0, 0.5, "a centre on an old pixel's edge lies in the pixel right of it"},
		{"a pixel left", -1, 1, 10, 0, -1, 0, "left of the old frame is column -1, not 0 (floor, not truncation)"},
		{"a pixel right, last", 1, 1, 10, 9, 10, 0, "right of the old frame is column n"},
		{"zoom in x2, first", 0, 0.5, 4, 0, 1, 0.25, ""},
		{"zoom in x2, second", 0, 0.5, 4, 1, 1, 0.25, "two new pixels share an old one, as far from its centre"},
		{"zoom in x2, last", 0, 0.5, 4, 3, 2, 0.25, ""},
		{"zoom out x2, first", 0, 2, 4, 0, -1, 0.5, ""},
		{"zoom out x2, last", 0, 2, 4, 3, 5, 0.5, ""},
		{"odd size", 0, 1, 7, 3, 3, 0, "the middle pixel of an odd view maps onto itself"},
	} {
		at, d := source(c.o, c.k, c.n, c.i)
		if at != c.at || d != c.d {
			t.Errorf("%s: source(%g, %g, %d, %d) = %d, %g; want %d, %g %s", c.name, c.o, c.k, c.n, c.i, at, d, c.at, c.d, c.reason)
		}
	}
	cols, dcol := sourceCols(0, 0.5, 4)
	if !slices.Equal(cols, []int{1, 1, 2, 2}) || !slices.Equal(dcol, []float32{0.25, 0.25, 0.25, 0.25}) {
		t.Errorf("sourceCols(0, 0.5, 4) = %v, %v", cols, dcol)
	}
}

func TestDisjoint(t *testing.T) {
	const w, h = 100, 60
	for _, c := range []struct {
		ox, oy, k float64
		want      bool
	}{
		{0, 0, 1, false},
		{199.999, 0, 1, false}, // one column still overlaps
		{200, 0, 1, true},      // |ox| = w(1+k): nothing left
		{-200, 0, 1, true},
		{0, 119.5, 1, false},
		{0, -120, 1, true},
		{0, 0, 0, true},
		{0, 0, -1, true},
		{math.NaN(), 0, 1, true},
		{0, math.Inf(1), 1, true},
		{0, 0, math.Inf(1), true},
		{399, 0, 3, false}, // zoomed out x3: the old frame is a third of the view
		{400, 0, 3, true},
	} {
		if got := disjoint(c.ox, c.oy, c.k, w, h); got != c.want {
			t.Errorf("disjoint(%g, %g, %g, %d, %d) = %v, want %v", c.ox, c.oy, c.k, w, h, got, c.want)
		}
	}
}

func TestFoldWorst(t *testing.T) {
	row := make([]float32, 97) // three tiles: 48, 48 and 1 pixels
	for i := range row {
		row[i] = 1
	}
	row[47], row[48], row[96] = 5, 3, 7
	worst := []float32{2, 4, 1}
	foldWorst(worst, row)
	// Pixel 47 is the first tile's last, 48 the second's first (4 was there already), 96 the
	// narrow last tile's only one.
	if want := []float32{5, 4, 7}; !slices.Equal(worst, want) {
		t.Errorf("worst %v, want %v", worst, want)
	}
}

func TestTileGrid(t *testing.T) {
	worst := []float32{1, 2, 3, 4, 5, 6}
	tiles := tileGrid(worst, 97, 49) // 3 x 2 tiles: the last column 1 pixel wide, the last row 1 tall
	want := []tilePlan{
		{tx: 0, ty: 0, worst: 1, px: 48 * 48}, {tx: 1, ty: 0, worst: 2, px: 48 * 48}, {tx: 2, ty: 0, worst: 3, px: 1 * 48},
		{tx: 0, ty: 1, worst: 4, px: 48 * 1}, {tx: 1, ty: 1, worst: 5, px: 48 * 1}, {tx: 2, ty: 1, worst: 6, px: 1},
	}
	if !slices.Equal(tiles, want) {
		t.Errorf("tiles\n%v, want\n%v", tiles, want)
	}
	if got := tileGrid([]float32{9}, 48, 48); !slices.Equal(got, []tilePlan{{worst: 9, px: 48 * 48}}) {
		t.Errorf("one whole tile: %v", got)
	}
}

func TestAllowedScales(t *testing.T) {
	if got := allowedScales(2, 12); !slices.Equal(got, []int{2, 3, 4, 6, 8, 12}) {
		t.Errorf("2..12: %v", got)
	}
	if got := allowedScales(1, 16); !slices.Equal(got, Scales) {
		t.Errorf("1..16: %v", got)
	}
}

func TestRefreshScale(t *testing.T) {
	scales := allowedScales(1, 16)
	for _, c := range []struct {
		budget, lnGrow float64
		px, want       int
	}{
		{0, 0.5, 16, 16},        // no budget: the coarsest
		{-5, 0.5, 16, 16},       // less than none
		{1, 0.5, 16, 4},         // ideal exactly 4: 4, not the next one up
		{1, 0.5, 17, 6},         // ideal just over 4
		{1, 0.5, 9, 3},          // ideal 3
		{1, 0.5, 1000, 16},      // ideal past every scale: the coarsest
		{1e9, 0.01, 100, 1},     // plenty of budget: full resolution
		{1, 0.5, 16 * 16, 16},   // ideal exactly the coarsest
		{1, 0.5, 16*16 + 1, 16}, // just past it
	} {
		if got := refreshScale(scales, 16, c.budget, c.lnGrow, c.px); got != c.want {
			t.Errorf("refreshScale(budget %g, ln g %g, %d px) = %d, want %d", c.budget, c.lnGrow, c.px, got, c.want)
		}
	}
}

// tilesOf is one tile row of full tiles (48 x 48 pixels each) with these worst blocks.
func tilesOf(worst ...float32) []tilePlan {
	tiles := make([]tilePlan, len(worst))
	for i, w := range worst {
		tiles[i] = tilePlan{tx: i, worst: w, px: tileSide * tileSide}
	}
	return tiles
}

func TestAssignScales(t *testing.T) {
	inf := float32(math.Inf(1))
	const full = tileSide * tileSide // a tile's pixels at scale 1; 576 at 2, 256 at 3, 9 at 16
	for _, c := range []struct {
		name   string
		worst  []float32
		lo, hi int
		sr     int
		budget float64
		want   []int
	}{
		{"every tile fits at 1, exactly", []float32{1.5, 3, inf}, 1, 16, 4, 3 * full,
			[]int{1, 1, 1}},
		{"one pixel short of 1: at 2, then the rest refines at 1", []float32{1.5, 3, inf}, 1, 16, 4, 3*full - 1,
			[]int{1, 2, 2}},
		{"blocks within the slack of a scale count as at it", []float32{1 + slack, 2 + slack, inf}, 1, 16, 4, 2 * full,
			[]int{0, 1, 1}},
		{"uncovered first, then the coarsest at sr, exactly", []float32{inf, 20, 5, 3, 1}, 1, 16, 2, 2*576 + 576,
			[]int{2, 2, 2, 0, 0}},
		{"uncovered first, one pixel short for the coarsest at sr", []float32{inf, 20, 5, 3, 1}, 1, 16, 2, 2*576 + 575,
			[]int{2, 2, 0, 0, 0}},
		{"uncovered tiles at the finest scale that fits them, exactly", []float32{inf, inf, 1}, 1, 16, 1, 2 * 576,
			[]int{2, 2, 0}},
		{"uncovered tiles one pixel short of a scale", []float32{inf, inf, 1}, 1, 16, 1, 2*576 - 1,
			[]int{3, 3, 0}},
		{"no budget: uncovered tiles at the coarsest scale", []float32{inf, 1}, 1, 16, 16, 0,
			[]int{16, 0}},
		{"no budget, nothing uncovered: nothing rendered", []float32{3, 1}, 1, 16, 16, 0,
			[]int{0, 0}},
		{"what is left refines at the next finer scale, exactly", []float32{inf, 5, 3.5}, 1, 16, 12, 2*144 + 256,
			[]int{4, 4, 3}},
		{"what is left is one pixel short of refining", []float32{inf, 5, 3.5}, 1, 16, 12, 2*144 + 255,
			[]int{4, 4, 0}},
		{"the finest allowed scale bounds the refinement", []float32{inf, 2.5, 1.5}, 2, 12, 12, 2*576 + full,
			[]int{2, 2, 0}},
	} {
		tiles := tilesOf(c.worst...)
		assignScales(tiles, allowedScales(c.lo, c.hi), c.lo, c.hi, c.sr, c.budget)
		got := make([]int, len(tiles))
		for i, tl := range tiles {
			got[i] = tl.scale
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: scales %v, want %v", c.name, got, c.want)
		}
	}
}

func TestSpend(t *testing.T) {
	tiles := tilesOf(2, 9, 4, 9)
	idx := []int{0, 1, 2, 3}
	// Coarsest first (the two 9s in their order), each 576 pixels at 2; the third does not fit.
	left := spend(tiles, idx, 2, 3*576-1)
	if got := []int{tiles[0].scale, tiles[1].scale, tiles[2].scale, tiles[3].scale}; !slices.Equal(got, []int{0, 2, 0, 2}) || left != 575 {
		t.Errorf("scales %v, left %g; want [0 2 0 2], 575", got, left)
	}
	if !slices.Equal(idx, []int{1, 3, 2, 0}) {
		t.Errorf("order %v", idx)
	}
}

func TestMergeRuns(t *testing.T) {
	// 150 x 100: 4 x 3 tiles, the last column 6 pixels wide, the last row 4 tall.
	grid := func(scales ...int) []tilePlan {
		tiles := make([]tilePlan, len(scales))
		for i, sc := range scales {
			tiles[i] = tilePlan{tx: i % 4, ty: i / 4, scale: sc}
		}
		return tiles
	}
	for _, c := range []struct {
		name  string
		tiles []tilePlan
		want  []runRect
	}{
		{"runs merge down the rows where they line up, clipped to the view", grid(
			2, 2, 0, 4,
			2, 2, 4, 4,
			2, 2, 4, 4),
			[]runRect{
				{image.Rect(0, 0, 96, 100), 2},
				{image.Rect(144, 0, 150, 48), 4},
				{image.Rect(96, 48, 150, 100), 4},
			}},
		{"a row between breaks a run", grid(
			3, 0, 0, 0,
			0, 0, 0, 0,
			3, 0, 0, 0),
			[]runRect{{image.Rect(0, 0, 48, 48), 3}, {image.Rect(0, 96, 48, 100), 3}}},
		{"another scale breaks a run", grid(
			1, 1, 2, 2,
			1, 1, 1, 2,
			0, 0, 0, 0),
			[]runRect{
				{image.Rect(0, 0, 96, 48), 1},
				{image.Rect(96, 0, 150, 48), 2},
				{image.Rect(0, 48, 144, 96), 1},
				{image.Rect(144, 48, 150, 96), 2},
			}},
		{"nothing to render", grid(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), nil},
	} {
		if got := mergeRuns(c.tiles, 150, 100); !slices.Equal(got, c.want) {
			t.Errorf("%s:\n got %v\nwant %v", c.name, got, c.want)
		}
	}
}

func TestReducedRect(t *testing.T) {
	for _, c := range []struct {
		r    image.Rectangle
		sc   int
		want image.Rectangle
	}{
		{image.Rect(0, 0, 150, 100), 1, image.Rect(0, 0, 150, 100)},
		{image.Rect(0, 0, 150, 100), 4, image.Rect(0, 0, 38, 25)},   // 150/4 rounds up
		{image.Rect(96, 48, 150, 100), 12, image.Rect(8, 4, 13, 9)}, // 150/12 = 12.5: 13
		{image.Rect(144, 96, 192, 144), 16, image.Rect(9, 6, 12, 9)},
		{image.Rect(48, 0, 49, 1), 16, image.Rect(3, 0, 4, 1)},
	} {
		if got := reducedRect(c.r, c.sc); got != c.want {
			t.Errorf("reducedRect(%v, %d) = %v, want %v", c.r, c.sc, got, c.want)
		}
	}
}

func TestPaste(t *testing.T) {
	const w, h = 10, 8
	for _, run := range []runRect{
		{image.Rect(2, 2, 7, 5), 2}, // starts on a block row
		{image.Rect(2, 3, 7, 6), 2}, // starts half way through one: its first row is not a copy
		{image.Rect(0, 0, 10, 8), 3},
		{image.Rect(3, 6, 9, 8), 1},
	} {
		r := newResampled(w, h, nil)
		grey := color.RGBA{9, 9, 9, 255}
		for y := range h {
			r.dup[y] = true
			for x := range w {
				r.img.SetRGBA(x, y, grey)
				r.block[y*w+x] = 7
			}
		}
		rr := reducedRect(run.r, run.sc)
		small := image.NewRGBA(rr)
		for y := rr.Min.Y; y < rr.Max.Y; y++ {
			for x := rr.Min.X; x < rr.Max.X; x++ {
				small.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), 200, 255})
			}
		}
		r.paste(run, small)
		for y := range h {
			for x := range w {
				in := image.Pt(x, y).In(run.r)
				want, wantBlock := grey, float32(7)
				if in {
					want, wantBlock = small.RGBAAt(x/run.sc, y/run.sc), float32(run.sc)
				}
				if got := r.img.RGBAAt(x, y); got != want || r.block[y*w+x] != wantBlock {
					t.Fatalf("run %v: pixel %d,%d = %v block %g, want %v block %g", run, x, y, got, r.block[y*w+x], want, wantBlock)
				}
			}
			// The run's rows and the one below are no copies of the row above any more.
			if want := y < run.r.Min.Y || y > run.r.Max.Y; r.dup[y] != want {
				t.Errorf("run %v: dup[%d] = %v, want %v", run, y, r.dup[y], want)
			}
		}
	}
}

// A row repeated from the row above (a zoom by 2 about the centre makes every other row one)
// counts for its own tiles when it is a tile row's first: every tile's worst is the largest
// block in it.
func TestResampleWorstIsEveryTilesLargest(t *testing.T) {
	const w, h = 200, 118 // h/4 a half: rows 47 and 48 (the second tile row's first) repeat one
	loc := testLoc()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	block := make([]float32, w*h)
	for y := range h {
		for x := range w {
			block[y*w+x] = 1 + float32(h-y)/8 + float32(x%3) // larger in every row above
		}
	}
	b := &base{img: img, block: block, loc: loc, w: w, h: h}
	for i, next := range []fractal.Location{
		loc.ZoomAt(w/2, h/2, 2, w, h),
		loc.ZoomAt(80, 47, 2, w, h),
		loc.ZoomAt(13, 101, 1.3, w, h),
		loc.ZoomAt(150, 20, 0.7, w, h),
		loc.Offset(-20.5, 31, w, h),
	} {
		r, _ := resample(b, next, w, h, nil)
		if i == 0 && !r.dup[tileSide] {
			t.Errorf("zoom about the centre: row %d is no copy of the row above; the test misses its case", tileSide)
		}
		for ty := range ceilDiv(h, tileSide) {
			for tx := range r.tw {
				m := float32(0)
				for y := ty * tileSide; y < min(ty*tileSide+tileSide, h); y++ {
					for x := tx * tileSide; x < min(tx*tileSide+tileSide, w); x++ {
						m = max(m, r.block[y*w+x])
					}
				}
				if got := r.worst[ty*r.tw+tx]; got != m {
					t.Errorf("view %d: tile %d,%d worst %g, its largest block %g", i, tx, ty, got, m)
				}
			}
		}
	}
}

// Resampled onto a view it does not overlap, the picture is black and every block +Inf.
func TestResampleDisjoint(t *testing.T) {
	const w, h = 100, 60
	loc := testLoc()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	block := make([]float32, w*h)
	for i := range block {
		block[i] = 1
	}
	b := &base{img: img, block: block, loc: loc, w: w, h: h}
	spare := make([]float32, w*h)
	r, k := resample(b, loc.Offset(2*w, 0, w, h), w, h, spare)
	if k != 1 || &r.block[0] != &spare[0] {
		t.Errorf("k %g, blocks in spare %v", k, &r.block[0] == &spare[0])
	}
	for i, v := range r.block {
		if !math.IsInf(float64(v), 1) || r.img.Pix[4*i] != 0 {
			t.Fatalf("pixel %d: block %g, red %d", i, v, r.img.Pix[4*i])
		}
	}
	for _, v := range r.worst {
		if !math.IsInf(float64(v), 1) {
			t.Fatalf("worst %v", r.worst)
		}
	}
}
