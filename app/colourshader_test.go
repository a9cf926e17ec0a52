package app

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"mandelscope/colour"
)

// TestLoadColourShader: View > Load Colour Shader... compiles the file with the window's
// OpenGL renderer and colours the view with it: the frame shown is the shader's (a shader
// painting every pixel one grey); a file that does not compile is refused with the line it
// names and the view keeps its colouring; Ctrl+Z takes the shader back; the CPU renderer
// refuses a shader in a line saying OpenGL is needed.
func TestLoadColourShader(t *testing.T) {
	g := newGL(t)
	w := openTestWindow(t, Options{Size: fyne.NewSize(320, 240), NewGPU: func() (Renderer, error) { return g, nil }})
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.glsl")
	good := filepath.Join(dir, "grey.glsl")
	os.WriteFile(bad, []byte("vec3 colour()\n{\n  return vec3(oops);\n}\n"), 0o644)
	os.WriteFile(good, []byte("vec3 colour() { return vec3(0.5); }\n"), 0o644)

	if err := w.loadColourShader(good); !errors.Is(err, colour.ErrNoShaderPainter) {
		t.Errorf("on the CPU renderer: %v", err)
	}
	w.startGPU()
	testUI.drain()
	before := w.Location().Color
	if err := w.loadColourShader(bad); err == nil || !strings.Contains(err.Error(), "line 3") || w.Location().Color != before {
		t.Fatalf("a shader that does not compile: %v (colouring %+v)", err, w.Location().Color)
	}
	if err := w.loadColourShader(good); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.Location().Color.Shader, "vec3(0.5)") {
		t.Fatalf("the view's colouring has no shader: %+v", w.Location().Color)
	}
	waitFor(t, "a frame drawn with the shader", func() bool {
		img := w.shownImage()
		if img == nil {
			return false
		}
		for i := 0; i < len(img.Pix); i += 4 {
			if img.Pix[i] != 128 || img.Pix[i+1] != 128 || img.Pix[i+2] != 128 {
				return false
			}
		}
		return true
	})
	w.undo.undoLast()
	if w.Location().Color.Shader != "" {
		t.Error("Ctrl+Z left the shader")
	}
}
