package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportDirections holds the architecture: only app (and main) import Fyne, only render
// imports go-gl, and the model, the CPU renderer, the export, the bookmarks, the preview
// scheduler and the small internal packages depend on neither, not even indirectly.
func TestImportDirections(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports ","}}|{{join .Deps ","}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	mayImport := map[string]map[string]bool{
		"fyne.io/":          {"mandelscope": true, "mandelscope/app": true},
		"github.com/go-gl/": {"mandelscope/render": true},
	}
	pure := []string{"mandelscope/fractal", "mandelscope/render/cpu", "mandelscope/export", "mandelscope/bookmarks", "mandelscope/gradients", "mandelscope/app/preview", "mandelscope/shaders", "mandelscope/assets",
		"mandelscope/internal/tile", "mandelscope/internal/nav", "mandelscope/internal/version", "mandelscope/internal/pngverify", "mandelscope/internal/cputime"}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "|", 3)
		pkg, imports, deps := parts[0], strings.Split(parts[1], ","), strings.Split(parts[2], ",")
		seen[pkg] = true
		for _, imp := range imports {
			for prefix, allowed := range mayImport {
				if strings.HasPrefix(imp, prefix) && !allowed[pkg] {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
		}
		for _, p := range pure {
			if pkg != p {
				continue
			}
			for _, d := range deps {
				if strings.HasPrefix(d, "fyne.io/") || strings.HasPrefix(d, "github.com/go-gl/") {
					t.Errorf("%s depends on %s", pkg, d)
					break
				}
			}
		}
	}
	for _, p := range append(pure, "mandelscope/app", "mandelscope/render") {
		if !seen[p] {
			t.Errorf("package %s not found by go list", p)
		}
	}
}
