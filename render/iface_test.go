package render

import (
	"mandelscope/export"
	"mandelscope/internal/tile"
	"mandelscope/render/cpu"
)

// The GL renderer satisfies the interfaces its users define, and offers what cpu.Renderer does.
var (
	_ export.TileRenderer = (*GL)(nil)
	_ export.DrawTimer    = (*GL)(nil)
	_ tile.Computer       = (*GL)(nil) // the compute stage alone (compute.go)
	_ tile.Computer       = (*cpu.Renderer)(nil)
	_ interface {
		export.TileRenderer
		Close() error
	} = (*cpu.Renderer)(nil)
)
