// Package exr writes and reads a subset of OpenEXR: single-part scanline images whose channels
// are 32-bit unsigned integers (UINT) or 32-bit floats (FLOAT), ZIP-compressed, in bounded
// memory, one band of scanlines at a time.
//
// # The subset
//
// A file is the magic number 76 2f 31 01, the version field 2 (no flag bits: no tiles, no long
// names, no deep data, one part), a header of attributes (name, type name, size, value; all
// integers little-endian) ending with an empty name, an offset table of one uint64 per chunk
// (the absolute file offset of the chunk), and the chunks: int32 y of the chunk's first line,
// int32 packed size, packed data. Unpacked, a chunk holds its lines one after the other, and
// each line holds, for each channel in the byte order of the channel names, that channel's
// values for the whole line (UINT and FLOAT 4 bytes, HALF 2 bytes). ZIP_COMPRESSION packs 16
// lines per chunk: the bytes are split (those at even positions first, then the odd ones),
// each byte but the first is replaced by its difference to the one before plus 128 (mod 256),
// and the result is zlib-compressed; when that is not smaller than the raw bytes, the raw
// bytes are stored instead, with a packed size equal to the raw size.
//
// The [Writer] writes ZIP (16 lines a chunk), UINT and FLOAT channels, the required
// attributes (channels, compression, dataWindow and displayWindow from (0,0), lineOrder
// INCREASING_Y, pixelAspectRatio 1, screenWindowCenter (0,0), screenWindowWidth 1) and user
// attributes of the types string and int. It streams: the header and a zeroed offset table
// first, then the chunks in order as lines come, compressed in parallel, and Close fills the
// table in. [ResumeWriter] continues a file that an interrupted Writer left behind.
//
// The [Reader] reads NO_COMPRESSION, ZIPS_COMPRESSION (1 line a chunk) and ZIP_COMPRESSION
// files with UINT, HALF and FLOAT channels, which is what the OpenEXR library writes for such
// images with those compressions. It is hardened against hostile files: every size, offset and
// count is checked against the file and fixed limits before anything is allocated, zlib
// streams are decompressed to exactly the chunk's raw size, and every error is one line that
// starts with "exr: ". A data window that does not start at (0,0) is accepted; rows are then
// counted from its yMin (ReadLines(0, n) reads the window's first n rows). Tiled, deep and
// multi-part files, subsampled channels, line orders other than INCREASING_Y and the other
// compressions (RLE, PIZ, PXR24, B44, B44A, DWAA, DWAB) are refused by name.
//
// # Why hand-written
//
// No maintained Go library writes multi-channel OpenEXR with UINT and FLOAT channels and ZIP
// compression (the Go readers found handle RGBA HALF/FLOAT images only), and binding the C++
// library would bring cgo and a shared library into the export path. The subset above is
// small; the tests check it against Debian's OpenEXR tools (exrheader, exrinfo, and
// exrmaketiled, which decodes our pixels and re-encodes them).
package exr

import (
	"cmp"
	"fmt"
	"slices"
)

// PixelType is the type of a channel's values.
type PixelType int32

// The pixel types of OpenEXR.
const (
	Uint  PixelType = 0 // uint32
	Half  PixelType = 1 // 16-bit float; read only, returned as float32
	Float PixelType = 2 // float32
)

func (t PixelType) String() string {
	switch t {
	case Uint:
		return "UINT"
	case Half:
		return "HALF"
	case Float:
		return "FLOAT"
	}
	return fmt.Sprintf("pixel type %d", int32(t))
}

// size is the size of one value in bytes.
func (t PixelType) size() int {
	if t == Half {
		return 2
	}
	return 4
}

// Channel is one channel of an image.
type Channel struct {
	Name string
	Type PixelType
}

// Header describes an image.
type Header struct {
	Width, Height int
	// Channels may be in any order on input; the file, and Reader.Header, have them sorted by
	// name (byte order).
	Channels []Channel
	Strings  map[string]string // user attributes of type string
	Ints     map[string]int32  // user attributes of type int
}

// LinesPerChunk is the number of lines in a ZIP_COMPRESSION chunk, the one the Writer writes.
const LinesPerChunk = 16

// Limits of what the Writer writes and the Reader accepts.
const (
	MaxSide       = 1 << 20 // width and height
	MaxChannels   = 64
	MaxAttributes = 1024    // in a header, the standard ones included
	MaxNameLen    = 31      // attribute and channel names, in bytes
	MaxStringLen  = 1 << 16 // a string attribute's value, in bytes
)

// Compression methods, by their number in the file.
const (
	compNone = 0
	compZIPS = 2
	compZIP  = 3
)

var compressionNames = []string{"NONE", "RLE", "ZIPS", "ZIP", "PIZ", "PXR24", "B44", "B44A", "DWAA", "DWAB"}

func compressionName(c byte) string {
	if int(c) < len(compressionNames) {
		return compressionNames[c]
	}
	return fmt.Sprintf("%d", c)
}

// linesPerChunk is the number of lines in a chunk for a supported compression.
func linesPerChunk(c byte) int {
	if c == compZIP {
		return LinesPerChunk
	}
	return 1
}

// reserved are the attribute names the format defines; they cannot be user attributes.
var reserved = map[string]bool{
	"channels": true, "compression": true, "dataWindow": true, "displayWindow": true,
	"lineOrder": true, "pixelAspectRatio": true, "screenWindowCenter": true,
	"screenWindowWidth": true, "tiles": true, "type": true, "chunkCount": true,
}

// sortedChannels returns the channels sorted by name.
func sortedChannels(chs []Channel) []Channel {
	s := slices.Clone(chs)
	slices.SortFunc(s, func(a, b Channel) int { return cmp.Compare(a.Name, b.Name) })
	return s
}

// bytesPerPixel is the size of one pixel of all channels.
func bytesPerPixel(chs []Channel) int {
	n := 0
	for _, c := range chs {
		n += c.Type.size()
	}
	return n
}

// checkName checks an attribute or channel name for writing: 1..31 printable ASCII bytes.
func checkName(what, name string) error {
	if len(name) == 0 {
		return fmt.Errorf("exr: %s name is empty", what)
	}
	if len(name) > MaxNameLen {
		return fmt.Errorf("exr: %s name %.40q is longer than %d bytes", what, name, MaxNameLen)
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] > 0x7e {
			return fmt.Errorf("exr: %s name %q has a byte that is not printable ASCII", what, name)
		}
	}
	return nil
}

// validate checks a header for writing.
func (h *Header) validate() error {
	if h.Width < 1 || h.Width > MaxSide || h.Height < 1 || h.Height > MaxSide {
		return fmt.Errorf("exr: image size %dx%d is outside 1..%d per side", h.Width, h.Height, MaxSide)
	}
	if len(h.Channels) == 0 {
		return fmt.Errorf("exr: no channels")
	}
	if len(h.Channels) > MaxChannels {
		return fmt.Errorf("exr: %d channels, more than %d", len(h.Channels), MaxChannels)
	}
	seen := map[string]bool{}
	for _, c := range h.Channels {
		if err := checkName("channel", c.Name); err != nil {
			return err
		}
		if seen[c.Name] {
			return fmt.Errorf("exr: channel %q is listed twice", c.Name)
		}
		seen[c.Name] = true
		switch c.Type {
		case Uint, Float:
		case Half:
			return fmt.Errorf("exr: channel %q: writing HALF channels is not supported", c.Name)
		default:
			return fmt.Errorf("exr: channel %q: unknown pixel type %d", c.Name, int32(c.Type))
		}
	}
	if n := len(h.Strings) + len(h.Ints) + 8; n > MaxAttributes {
		return fmt.Errorf("exr: %d attributes, more than %d", n, MaxAttributes)
	}
	for k, v := range h.Strings {
		if err := checkName("attribute", k); err != nil {
			return err
		}
		if reserved[k] {
			return fmt.Errorf("exr: attribute name %q is reserved by the format", k)
		}
		if len(v) > MaxStringLen {
			return fmt.Errorf("exr: attribute %q: value of %d bytes, more than %d", k, len(v), MaxStringLen)
		}
	}
	for k := range h.Ints {
		if err := checkName("attribute", k); err != nil {
			return err
		}
		if reserved[k] {
			return fmt.Errorf("exr: attribute name %q is reserved by the format", k)
		}
		if _, ok := h.Strings[k]; ok {
			return fmt.Errorf("exr: attribute %q is both a string and an int", k)
		}
	}
	return nil
}
