package pngverify

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// noisePNG encodes an opaque w x h picture of noise with smooth bands (so that image/png's
// adaptive filtering picks every filter type) with the standard library's encoder, which
// writes opaque RGBA as 8-bit RGB.
func noisePNG(t *testing.T, w, h int) (*image.RGBA, []byte) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(1, 2))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := img.PixOffset(x, y)
			switch (y / 7) % 3 {
			case 0:
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32())
			case 1:
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = byte(x), byte(y), byte(x+y)
			default:
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = byte(x*x/7), byte(3*y), byte(x^y)
			}
			img.Pix[i+3] = 255
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return img, buf.Bytes()
}

// chunk returns a PNG chunk with its length and CRC.
func chunk(typ string, data []byte) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// insertAfterIHDR puts chunks between IHDR (which ends at byte 33) and the rest of file.
func insertAfterIHDR(file []byte, chunks ...[]byte) []byte {
	out := bytes.Clone(file[:33])
	for _, c := range chunks {
		out = append(out, c...)
	}
	return append(out, file[33:]...)
}

// TestVerifyStandardPNG: the rows Verify hands out are the pixels image/png encoded, for every
// filter type the standard encoder chooses, and the counts agree with the file.
func TestVerifyStandardPNG(t *testing.T) {
	const w, h = 97, 61
	img, file := noisePNG(t, w, h)
	file = insertAfterIHDR(file, chunk("tEXt", []byte("Comment\x00hello")))
	filters := rowFilters(t, file, w, h)
	rows := 0
	info, err := Verify(bytes.NewReader(file), func(y int, rgb []byte) {
		rows++
		for x := 0; x < w; x++ {
			c := img.RGBAAt(x, y)
			if rgb[3*x] != c.R || rgb[3*x+1] != c.G || rgb[3*x+2] != c.B {
				t.Fatalf("row %d pixel %d: got %v, want %v", y, x, rgb[3*x:3*x+3], c)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rows != h || info.Width != w || info.Height != h || info.Raw != int64(h*(3*w+1)) || info.Text["Comment"] != "hello" {
		t.Errorf("%d rows, info %+v", rows, info)
	}
	// The comparison above covered every filter type.
	for f := byte(0); f <= 4; f++ {
		if !filters[f] {
			t.Errorf("image/png used no filter %d here (used %v): the test does not cover it", f, filters)
		}
	}
}

// rowFilters returns the filter type of each row of a PNG with 3 bytes per pixel, read with
// the standard library's zlib from the concatenated IDAT data.
func rowFilters(t *testing.T, file []byte, w, h int) map[byte]bool {
	t.Helper()
	var idat []byte
	for p := 8; p+12 <= len(file); {
		n := int(binary.BigEndian.Uint32(file[p:]))
		if string(file[p+4:p+8]) == "IDAT" {
			idat = append(idat, file[p+8:p+8+n]...)
		}
		p += 12 + n
	}
	zr, err := zlib.NewReader(bytes.NewReader(idat))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil || len(raw) != h*(3*w+1) {
		t.Fatalf("inflated %d bytes (%v), want %d", len(raw), err, h*(3*w+1))
	}
	seen := map[byte]bool{}
	for y := 0; y < h; y++ {
		seen[raw[y*(3*w+1)]] = true
	}
	return seen
}

// TestVerifyLargeChunkCRC: a chunk longer than what Verify keeps (a 2 MiB private chunk before
// the image data, and one after it) still has its CRC checked.
func TestVerifyLargeChunkCRC(t *testing.T) {
	_, file := noisePNG(t, 40, 30)
	big := make([]byte, 2<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	good := insertAfterIHDR(file, chunk("prIv", big))
	if _, err := Verify(bytes.NewReader(good), nil); err != nil {
		t.Fatalf("a large chunk with a good CRC: %v", err)
	}
	for _, at := range []int{33 + 8 + 1<<20, 33 + 8 + 2<<20 + 1} { // in its data, in its CRC
		bad := bytes.Clone(good)
		bad[at] ^= 1
		if _, err := Verify(bytes.NewReader(bad), nil); err == nil || !strings.Contains(err.Error(), "prIv chunk has a bad CRC") {
			t.Errorf("byte %d flipped: %v", at, err)
		}
	}
	// The same after the image data: before IEND.
	iend := len(file) - 12
	after := append(append(bytes.Clone(file[:iend]), chunk("prIv", big)...), file[iend:]...)
	if _, err := Verify(bytes.NewReader(after), nil); err != nil {
		t.Fatalf("a large chunk after the image data: %v", err)
	}
	after[iend+8+5] ^= 1
	if _, err := Verify(bytes.NewReader(after), nil); err == nil || !strings.Contains(err.Error(), "bad CRC") {
		t.Errorf("a damaged large chunk after the image data: %v", err)
	}
}

// TestVerifyRefuses: damaged, truncated and unsupported files are refused with an error.
func TestVerifyRefuses(t *testing.T) {
	_, file := noisePNG(t, 40, 30)
	gray := image.NewGray(image.Rect(0, 0, 4, 4))
	var g bytes.Buffer
	png.Encode(&g, gray)
	for name, data := range map[string][]byte{
		"empty":           nil,
		"not a PNG":       []byte("hello, world, this is text"),
		"truncated":       file[:len(file)-30],
		"bytes after":     append(bytes.Clone(file), 0),
		"grey":            g.Bytes(),
		"IHDR bad CRC":    flip(file, 30),
		"image data flip": flip(file, len(file)/2),
	} {
		if _, err := Verify(bytes.NewReader(data), nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func flip(b []byte, at int) []byte {
	c := bytes.Clone(b)
	c[at] ^= 0x10
	return c
}

// TestParseIHDR: the size and format IHDR's data gives, at the edges of the ranges Verify
// reads.
func TestParseIHDR(t *testing.T) {
	ihdr := func(w, h uint32, format ...byte) []byte {
		d := binary.BigEndian.AppendUint32(nil, w)
		d = binary.BigEndian.AppendUint32(d, h)
		if format == nil {
			format = []byte{8, 2, 0, 0, 0}
		}
		return append(d, format...)
	}
	for _, c := range []struct {
		name string
		data []byte
		w, h int
		err  string // "" for none, else a part of the error
	}{
		{"1x1", ihdr(1, 1), 1, 1, ""},
		{"non-square", ihdr(97, 61), 97, 61, ""},
		{"widest", ihdr(MaxWidth, 1), MaxWidth, 1, ""},
		{"one wider", ihdr(MaxWidth+1, 1), MaxWidth + 1, 1, "out of range"},
		{"tallest", ihdr(1, 1<<31-1), 1, 1<<31 - 1, ""},
		{"one taller", ihdr(1, 1<<31), 1, 1 << 31, "out of range"},
		{"no width", ihdr(0, 5), 0, 5, "size 0x5 is out of range"},
		{"no height", ihdr(5, 0), 5, 0, "size 5x0 is out of range"},
		{"16-bit", ihdr(4, 4, 16, 2, 0, 0, 0), 4, 4, "not 8-bit RGB"},
		{"RGBA", ihdr(4, 4, 8, 6, 0, 0, 0), 4, 4, "not 8-bit RGB"},
		{"grey", ihdr(4, 4, 8, 0, 0, 0, 0), 4, 4, "not 8-bit RGB"},
		{"another compression", ihdr(4, 4, 8, 2, 1, 0, 0), 4, 4, "not 8-bit RGB"},
		{"another filter method", ihdr(4, 4, 8, 2, 0, 1, 0), 4, 4, "not 8-bit RGB"},
		{"interlaced", ihdr(4, 4, 8, 2, 0, 0, 1), 4, 4, "non-interlaced ([8 2 0 0 1])"},
		{"the format is checked before the size", ihdr(0, 0, 8, 2, 0, 0, 1), 0, 0, "not 8-bit RGB"},
	} {
		w, h, err := parseIHDR(c.data)
		if w != c.w || h != c.h || (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %dx%d, %v; want %dx%d, %q", c.name, w, h, err, c.w, c.h, c.err)
		}
	}
}

// TestVerifyIDATsSplitAnywhere: the zlib stream split between two IDATs at any byte (the
// first one empty included) reads as one: every row, the IDATs, the stream's bytes.
func TestVerifyIDATsSplitAnywhere(t *testing.T) {
	const w, h = 5, 3
	raw := make([]byte, h*(3*w+1))
	for i := range raw {
		raw[i] = byte(i * 5)
	}
	for y := 0; y < h; y++ {
		raw[y*(3*w+1)] = byte(y) // filters 0, 1, 2
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw)
	zw.Close()
	ihdr := []byte{0, 0, 0, w, 0, 0, 0, h, 8, 2, 0, 0, 0}
	for cut := 0; cut < z.Len(); cut++ { // the second IDAT holds at least the last byte
		file := []byte(signature)
		file = append(file, chunk("IHDR", ihdr)...)
		file = append(file, chunk("tEXt", []byte("k\x00v"))...)
		file = append(file, chunk("IDAT", z.Bytes()[:cut])...)
		file = append(file, chunk("IDAT", z.Bytes()[cut:])...)
		file = append(file, chunk("IEND", nil)...)
		rows := 0
		info, err := Verify(bytes.NewReader(file), func(y int, rgb []byte) {
			if y != rows || len(rgb) != 3*w {
				t.Fatalf("cut %d: row %d (%d bytes) after %d rows", cut, y, len(rgb), rows)
			}
			rows++
		})
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if rows != h || info.Width != w || info.Height != h || info.IDATChunks != 2 || info.Compressed != int64(z.Len()) ||
			info.Raw != int64(len(raw)) || len(info.Text) != 1 || info.Text["k"] != "v" {
			t.Fatalf("cut %d: %d rows, info %+v", cut, rows, info)
		}
	}
}

// TestVerifyTextChunks (issue 39: a second text chunk of a key, after the image data, was
// not seen): tEXt chunks after the image data are kept as those before it are, and a key
// given twice, on either side or both, is refused naming it.
func TestVerifyTextChunks(t *testing.T) {
	_, file := noisePNG(t, 40, 30)
	iend := len(file) - 12
	after := func(f []byte, c []byte) []byte {
		return append(append(bytes.Clone(f[:len(f)-12]), c...), f[len(f)-12:]...)
	}
	julia := chunk("tEXt", []byte("mandelscope.julia\x000,1"))
	if file[iend+4] != 'I' {
		t.Fatal("the file does not end with IEND")
	}
	info, err := Verify(bytes.NewReader(after(file, julia)), nil)
	if err != nil || info.Text["mandelscope.julia"] != "0,1" {
		t.Fatalf("a text chunk after the image data: %v %v", info.Text, err)
	}
	for name, data := range map[string][]byte{
		"twice before":     insertAfterIHDR(file, julia, julia),
		"before and after": after(insertAfterIHDR(file, julia), julia),
		"twice after":      after(after(file, julia), julia),
	} {
		if _, err := Verify(bytes.NewReader(data), nil); err == nil || !strings.Contains(err.Error(), `text chunk "mandelscope.julia" appears twice`) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
