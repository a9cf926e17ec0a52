package render

import (
	"mandelscope/export"
	"mandelscope/render/cpu"
)

// The GL renderer satisfies the interfaces its users define, and offers what cpu.Renderer does.
var (
	_ export.TileRenderer = (*GL)(nil)
	_ export.DrawTimer    = (*GL)(nil)
	_ interface {
		export.TileRenderer
		Close() error
	} = (*cpu.Renderer)(nil)
)
