package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// allowedImports lists, for every package of the module, what it may import besides the
// standard library: the module's own packages (by path below mandelscope/) and other
// modules (by a path prefix). Data flows one way: a location (fractal) to a renderer (render,
// render/cpu) to samples, coloured (colour) to pixels, then the screen (app, through the preview
// scheduler, preview) or a file (export); only app and main import
// Fyne, only render imports go-gl, and the command line (internal/cli) does not depend on Fyne.
// A new import is a decision: add it here.
var allowedImports = map[string][]string{
	"":                        {"app", "preview", "assets", "export", "fractal", "internal/cli", "internal/clocale", "internal/text", "render", "fyne.io/fyne/v2"},
	"app":                     {"colour", "preview", "bookmarks", "docs", "export", "fractal", "gradients", "internal/nav", "internal/tile", "internal/userfile", "internal/version", "render/cpu", "video", "fyne.io/fyne/v2", "internal/text"},
	"assets":                  {},
	"bench/edge-verify":       {"fractal"},
	"bench/random-verify":     {"fractal"},
	"bench/find-measure":      {"fractal"},
	"bench/verify-png":        {"export", "internal/pngverify"},
	"bench/video-cost":        {"export", "fractal", "internal/cputime", "internal/videotest", "render/cpu", "video"},
	"bench/video-quality":     {"export", "fractal", "internal/videotest", "render/cpu", "video"},
	"bookmarks":               {"colour", "fractal", "internal/userfile", "github.com/gofrs/flock", "internal/text"},
	"colour":                  {"assets", "internal/par", "internal/text"},
	"docs":                    {},
	"exr":                     {"github.com/klauspost/compress"},
	"export":                  {"colour", "exr", "fractal", "internal/tile", "internal/userfile", "github.com/gofrs/flock", "github.com/klauspost/compress", "golang.org/x/sys", "internal/text"},
	"fractal":                 {"colour", "internal/text"},
	"fractal/internal/vecgen": {},
	"gradients":               {"colour", "fractal", "internal/userfile", "internal/text"},
	"internal/cli":            {"colour", "preview", "exr", "bookmarks", "export", "fractal", "gradients", "internal/text", "internal/tile", "internal/userfile", "internal/version", "render", "render/cpu", "video"},
	"internal/clocale":        {},
	"internal/cputime":        {},
	"internal/deeptest":       {"fractal"},
	"internal/fifotest":       {"golang.org/x/sys"},
	"internal/imagetest":      {},
	"internal/nav":            {"fractal"},
	"internal/par":            {},
	"internal/pngverify":      {},
	"internal/text":           {},
	"internal/tile":           {"colour", "fractal"},
	"internal/userfile":       {"golang.org/x/sys"},
	"internal/version":        {},
	"internal/videotest":      {"colour", "fractal", "render/cpu"},
	"preview":                 {"colour", "fractal", "internal/tile"},
	"render":                  {"colour", "fractal", "render/cpu", "shaders", "github.com/go-gl/gl", "github.com/go-gl/glfw"},
	"render/cpu":              {"colour", "fractal"},
	"shaders":                 {},
	"video":                   {"colour", "export", "exr", "fractal", "internal/par", "internal/text", "internal/tile", "internal/userfile", "github.com/gofrs/flock"},
}

// TestImportGraph holds the architecture: every package imports only what allowedImports
// lists for it (the standard library aside), and every package is listed. A package that may
// not import Fyne does not depend on it indirectly either, nor on go-gl unless it may import
// go-gl or render.
func TestImportGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports ","}}|{{join .Deps ","}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		pkg := strings.TrimPrefix(strings.TrimPrefix(parts[0], "mandelscope"), "/")
		seen[pkg] = true
		allowed, ok := allowedImports[pkg]
		if !ok {
			t.Errorf("package %q is not in allowedImports: list what it may import", parts[0])
			continue
		}
		for _, imp := range strings.Split(parts[1], ",") {
			if imp == "" || isStd(imp) {
				continue
			}
			own, isOwn := strings.CutPrefix(imp, "mandelscope/")
			if !slices.ContainsFunc(allowed, func(a string) bool {
				if isOwn {
					return own == a
				}
				return imp == a || strings.HasPrefix(imp, a+"/")
			}) {
				t.Errorf("%s imports %s, which allowedImports does not list for it", parts[0], imp)
			}
		}
		// Fyne brings go-gl along; render (go-gl) does not bring Fyne.
		mayFyne := slices.Contains(allowed, "fyne.io/fyne/v2")
		mayGL := mayFyne || slices.Contains(allowed, "github.com/go-gl/gl") || slices.Contains(allowed, "render")
		for _, d := range strings.Split(parts[2], ",") {
			if !mayFyne && strings.HasPrefix(d, "fyne.io/") || !mayGL && strings.HasPrefix(d, "github.com/go-gl/") {
				t.Errorf("%s depends on %s through its imports", parts[0], d)
				break
			}
		}
	}
	for pkg := range allowedImports {
		if !seen[pkg] {
			t.Errorf("allowedImports lists %q, which go list does not find", pkg)
		}
	}
}

// isStd reports whether an import path is the standard library's: no dot in its first
// element, and not this module's.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".") && first != "mandelscope"
}
