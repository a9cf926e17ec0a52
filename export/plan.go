package export

import (
	"fmt"
	"image"
	"strconv"
	"strings"

	"mandelscope/internal/text"
)

// Limits and defaults of an export.
const (
	// MaxSupersample is the largest supersampling factor (N x N samples per pixel).
	MaxSupersample = 4
	// MinTile is the smallest tile edge accepted.
	MinTile = 16
	// DefaultStripBytes is the default size of one strip's render buffer.
	DefaultStripBytes = 8 << 20
	// DefaultLevel is the default deflate level (klauspost/compress/flate): fast.
	DefaultLevel = 1
	// blockBytes is about how many filtered bytes one compression job takes.
	blockBytes = 2 << 20
)

// MaxSide is the largest width or height of an export, wherever the size comes from (a
// flag, the window's dialog, a PNG's IHDR read by --from).
const MaxSide = 65536

// Preset is a named export size.
type Preset struct {
	Name  string // as typed on the command line: "1080p", "4k", ...
	Label string // as shown in the window: "4K (3840x2160)"
	W, H  int
}

// Presets are the named export sizes, smallest first: the command line's --size names and
// the window's size choices.
var Presets = []Preset{
	{"1080p", "1080p (1920x1080)", 1920, 1080},
	{"4k", "4K (3840x2160)", 3840, 2160},
	{"8k", "8K (7680x4320)", 7680, 4320},
	{"16k", "16K (15360x8640)", 15360, 8640},
	{"32k", "32K (30720x17280)", 30720, 17280},
}

// checkSize says whether w x h is an export size: each side 1 to MaxSide.
func checkSize(w, h int) error {
	if w < 1 || h < 1 || w > MaxSide || h > MaxSide {
		return fmt.Errorf("%dx%d is out of range (each side 1 to %d)", w, h, MaxSide)
	}
	return nil
}

// ParseSize reads a size: "WxH" (whole numbers) or a preset name (case does not matter),
// checked with checkSize.
func ParseSize(s string) (w, h int, err error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for _, p := range Presets {
		if t == p.Name {
			return p.W, p.H, nil
		}
	}
	names := make([]string, len(Presets))
	for i, p := range Presets {
		names[i] = p.Name
	}
	ws, hs, ok := strings.Cut(t, "x")
	if !ok {
		return 0, 0, fmt.Errorf("%q must be WIDTHxHEIGHT or one of %s", text.Clip(s, 40), strings.Join(names, ", "))
	}
	w, err1 := strconv.Atoi(strings.TrimSpace(ws))
	h, err2 := strconv.Atoi(strings.TrimSpace(hs))
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%q must be WIDTHxHEIGHT with whole numbers", text.Clip(s, 40))
	}
	return w, h, checkSize(w, h)
}

// stripPlan cuts an export into strips (full-width bands of output rows) and each strip's
// render into tiles no larger than the tile edge cap.
type stripPlan struct {
	W, H      int // output size
	N         int // supersampling: the frame is rendered at W*N x H*N
	Tile      int // tile edge cap, in rendered pixels
	StripRows int // output rows per strip (the last strip may have fewer)
	Strips    int
	BlockRows int // output rows per compression job (a strip's last job may have fewer)
}

// newStripPlan plans a w x h export with n x n supersampling, tiles of at most tile pixels a
// side and strip render buffers of about stripBytes (DefaultStripBytes when 0).
func newStripPlan(w, h, n, tile, stripBytes int) (stripPlan, error) {
	if err := checkSize(w, h); err != nil {
		return stripPlan{}, fmt.Errorf("size %v", err)
	}
	if n < 1 || n > MaxSupersample {
		return stripPlan{}, fmt.Errorf("supersampling %d is out of range (1 to %d)", n, MaxSupersample)
	}
	if tile < MinTile {
		return stripPlan{}, fmt.Errorf("tile %d is below the minimum of %d", tile, MinTile)
	}
	if stripBytes <= 0 {
		stripBytes = DefaultStripBytes
	}
	rowBytes := 4 * w * n * n // render buffer bytes per output row
	rows := max(1, min(h, stripBytes/rowBytes))
	// Small images still get a dozen or so strips: resume points and progress steps.
	rows = min(rows, max(16, (h+15)/16))
	block := max(1, min(rows, blockBytes/(3*w+1)))
	// Keep a few jobs per strip so every core has work, and whole blocks per strip.
	if rows/block < 4 && rows >= 4 {
		block = max(1, rows/4)
	}
	return stripPlan{W: w, H: h, N: n, Tile: tile, StripRows: rows, Strips: (h + rows - 1) / rows, BlockRows: block}, nil
}

// Strip returns the output rows [y0, y1) of strip k.
func (p stripPlan) Strip(k int) (y0, y1 int) {
	y0 = k * p.StripRows
	return y0, min(p.H, y0+p.StripRows)
}

// Tiles returns the tiles of strip k in the rendered frame's global pixel coordinates, row by
// row, each at most Tile x Tile.
func (p stripPlan) Tiles(k int) []image.Rectangle {
	y0, y1 := p.Strip(k)
	r := image.Rect(0, y0*p.N, p.W*p.N, y1*p.N)
	var out []image.Rectangle
	for ty := r.Min.Y; ty < r.Max.Y; ty += p.Tile {
		for tx := r.Min.X; tx < r.Max.X; tx += p.Tile {
			out = append(out, image.Rect(tx, ty, min(tx+p.Tile, r.Max.X), min(ty+p.Tile, r.Max.Y)))
		}
	}
	return out
}

// EstimateRange is the range of file sizes an export of w x h pixels takes, in bytes:
// measured from about 0.15 bytes per pixel (smooth wide views, large black areas) to about
// 1.7 (deep views full of filaments) with the default filter and compression level.
func EstimateRange(w, h int) (lo, hi int64) {
	px := int64(w) * int64(h)
	return px*15/100 + 4096, px*17/10 + 4096
}

// EstimateSize is the size the low-disk check assumes: the top of EstimateRange, so that an
// export it lets start does not run out of space.
func EstimateSize(w, h int) int64 {
	_, hi := EstimateRange(w, h)
	return hi
}

// LowSpace is the warning for an export of w x h pixels into dir when dir's file system
// (FreeSpace) has less room than EstimateSize, "" when it has enough or its free space is not
// known: "DIR has 1.2 GB free; the image may need up to about 1.5 GB". Both the command line
// and the window give it before an export starts (the export itself keeps its progress when
// the disk fills: ErrNoSpace).
func LowSpace(dir string, w, h int) string {
	return lowSpace(FreeSpace, dir, w, h)
}

// lowSpace is LowSpace with the free space from free (tests give their own).
func lowSpace(free func(string) (int64, error), dir string, w, h int) string {
	n, err := free(dir)
	if err != nil {
		return ""
	}
	if need := EstimateSize(w, h); n < need {
		return fmt.Sprintf("%s has %s free; the image may need up to about %s", dir, HumanBytes(n), HumanBytes(need))
	}
	return ""
}
