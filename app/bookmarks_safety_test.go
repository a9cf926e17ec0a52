package app

import (
	"encoding/binary"
	"hash/crc32"
	"image"
	"runtime"
	"testing"

	"mandelscope/bookmarks"
	"mandelscope/fractal"
)

// TestThumbnailSizeCheckedBeforeDecoding checks that the panel does not decode a thumbnail
// whose header says it is huge (eight 16000x16000 thumbnails took the window from 187 MB to
// 7.6 GB): it shows the dark tile, having allocated next to nothing.
func TestThumbnailSizeCheckedBeforeDecoding(t *testing.T) {
	ihdr := make([]byte, 4+13)
	copy(ihdr, "IHDR")
	binary.BigEndian.PutUint32(ihdr[4:], 16000)
	binary.BigEndian.PutUint32(ihdr[8:], 16000)
	ihdr[12], ihdr[13] = 8, 6
	data := []byte("\x89PNG\r\n\x1a\n")
	data = binary.BigEndian.AppendUint32(data, 13)
	data = append(data, ihdr...)
	data = binary.BigEndian.AppendUint32(data, crc32.ChecksumIEEE(ihdr))
	// The start of the pixel data: a decoder that trusts the header allocates 1 GB here.
	idat := []byte("IDAT\x78\x9c\x00\x00\x00\xff\xff")
	data = binary.BigEndian.AppendUint32(data, uint32(len(idat)-4))
	data = append(data, idat...)
	data = binary.BigEndian.AppendUint32(data, crc32.ChecksumIEEE(idat))

	p := &bookmarksPanel{thumbs: map[string]image.Image{}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	img := p.thumbnail(bookmarks.Bookmark{Name: "huge", Location: fractal.Home(), Thumbnail: data})
	runtime.ReadMemStats(&after)
	if img.Bounds() != image.Rect(0, 0, 16, 9) {
		t.Errorf("thumbnail is %v, want the 16x9 dark tile", img.Bounds())
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("showing it allocated %d bytes", grew)
	}
}

// TestBookmarkClickValidates checks that opening a bookmark whose colouring is out of range
// (a density of 1e308 once crashed the window when clicked) is refused: the view stays where
// it was.
func TestBookmarkClickValidates(t *testing.T) {
	w, p, _ := newBookmarksTestWindow(t)
	before := w.Location()
	bad := fractal.Home()
	bad.Zoom = fractal.MustDecimal("3")
	bad.Color.Density = 1e308
	p.shown = []bookmarks.Bookmark{{Name: "bad", Location: bad}}
	p.open(0)
	if got := w.Location(); got != before {
		t.Fatalf("the window went to an invalid location: %v", got)
	}
	good := bad
	good.Color.Density = 2
	p.shown = []bookmarks.Bookmark{{Name: "good", Location: good}}
	p.open(0)
	if got := w.Location(); got.Zoom != good.Zoom || got.Color != good.Color {
		t.Fatalf("a valid bookmark was not opened: %v", got)
	}
}
