// Package assets holds the files Mandelscope ships inside its binary: the colour palettes
// (one text file per palette under palettes/) and the application icon.
package assets

import "embed"

// Palettes holds palettes/NAME.txt: one #RRGGBB colour stop per line, '#'-comment lines
// (anything that is not exactly a 7-character colour) ignored. Palettes are cyclic.
//
//go:embed palettes/*.txt
var Palettes embed.FS

// Icon is the application icon (PNG).
//
//go:embed icon.png
var Icon []byte
