package export

import (
	"context"
	"errors"
	"image"
	"image/color"
	"slices"
	"testing"
)

// The pipeline's planning steps on their own: a strip's compression blocks, where a tile
// lands in a strip's buffer, and what a run returns.

func TestBlockSpans(t *testing.T) {
	for _, c := range []struct {
		rows, blockRows int
		want            []rowSpan
	}{
		{10, 4, []rowSpan{{0, 4}, {4, 8}, {8, 10}}}, // the last block what is left
		{8, 4, []rowSpan{{0, 4}, {4, 8}}},           // whole blocks: no empty one after
		{9, 4, []rowSpan{{0, 4}, {4, 8}, {8, 9}}},   // one row left over
		{3, 4, []rowSpan{{0, 3}}},                   // a strip shorter than a block
		{1, 1, []rowSpan{{0, 1}}},
		{5, 1, []rowSpan{{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}}},
	} {
		if got := blockSpans(c.rows, c.blockRows); !slices.Equal(got, c.want) {
			t.Errorf("blockSpans(%d, %d) = %v, want %v", c.rows, c.blockRows, got, c.want)
		}
	}
	// Every plan's strips are covered by their blocks, row for row.
	for _, size := range [][2]int{{1, 1}, {97, 61}, {1000, 1}, {3, 4097}, {30720, 17280}} {
		p, err := newStripPlan(size[0], size[1], 2, 4096, 0)
		if err != nil {
			t.Fatal(err)
		}
		for k := range p.Strips {
			y0, y1 := p.Strip(k)
			next := 0
			for _, b := range blockSpans(y1-y0, p.BlockRows) {
				if b.r0 != next || b.r1 <= b.r0 || b.r1-b.r0 > p.BlockRows {
					t.Fatalf("%v strip %d: block %v after row %d", size, k, b, next)
				}
				next = b.r1
			}
			if next != y1-y0 {
				t.Fatalf("%v strip %d: blocks end at %d of %d rows", size, k, next, y1-y0)
			}
		}
	}
}

func TestTileDst(t *testing.T) {
	// A strip buffer of 10 x 6 rendered pixels, from frame row 12 down.
	buf := image.NewRGBA(image.Rect(0, 0, 10, 6))
	tile := image.Rect(3, 14, 7, 17)
	dst := tileDst(buf, tile, 12)
	if dst.Bounds() != image.Rect(0, 0, 4, 3) {
		t.Fatalf("bounds %v", dst.Bounds())
	}
	c := color.RGBA{1, 2, 3, 255}
	dst.SetRGBA(0, 0, c)
	dst.SetRGBA(3, 2, c)
	for y := range 6 {
		for x := range 10 {
			want := color.RGBA{}
			if (x == 3 && y == 2) || (x == 6 && y == 4) { // the tile's corners, in the buffer
				want = c
			}
			if got := buf.RGBAAt(x, y); got != want {
				t.Errorf("buffer pixel %d,%d = %v, want %v", x, y, got, want)
			}
		}
	}
	// A tile on the strip's last row and column reaches the buffer's last byte.
	last := tileDst(buf, image.Rect(9, 17, 10, 18), 12)
	last.SetRGBA(0, 0, c)
	if buf.RGBAAt(9, 5) != c {
		t.Error("the last tile's pixel is not the buffer's last")
	}
}

func TestOutcome(t *testing.T) {
	render, write, cause := errors.New("render"), errors.New("write"), context.Canceled
	for _, c := range []struct {
		name                    string
		renderErr, writeErr, ca error
		done, strips            int
		want                    error
	}{
		{"all written", nil, nil, nil, 5, 5, nil},
		{"one strip short", nil, nil, nil, 4, 5, ErrInterrupted},
		{"none written", nil, nil, nil, 0, 5, ErrInterrupted},
		{"cancelled", nil, nil, cause, 2, 5, cause},
		{"cancelled after the last strip", nil, nil, cause, 5, 5, cause},
		{"the writer's error first", nil, write, cause, 2, 5, write},
		{"the render's error before all", render, write, cause, 2, 5, render},
	} {
		if got := outcome(c.renderErr, c.writeErr, c.ca, c.done, c.strips); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
