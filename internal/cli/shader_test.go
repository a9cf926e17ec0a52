package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestColourShaderNeedsOpenGL: without a display, export and recolour with --colour-shader
// refuse in one line that says a colour shader needs OpenGL, before writing anything (with
// --renderer=cpu too: the shader runs on OpenGL whichever renderer computes); a file that
// is not GLSL text is refused naming it and the line.
func TestColourShaderNeedsOpenGL(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	dir := t.TempDir()
	sh := filepath.Join(dir, "rings.glsl")
	if err := os.WriteFile(sh, []byte("vec3 colour() { return vec3(fract(getNF())); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(dir, "v.exr")
	mustExport(t, "--renderer=cpu", "--size=32x20", "--iterations=100", "--raw="+raw)
	for _, args := range [][]string{
		{"export", "--size=32x20", "--colour-shader=" + sh, "-o", filepath.Join(dir, "a.png")},
		{"export", "--renderer=cpu", "--size=32x20", "--colour-shader=" + sh, "-o", filepath.Join(dir, "a.png")},
		{"recolour", raw, "--colour-shader=" + sh, "-o", filepath.Join(dir, "b.png")},
	} {
		var out, errb bytes.Buffer
		code := Run(args, &out, &errb)
		msg := strings.TrimSpace(errb.String())
		if code == 0 || !strings.Contains(msg, "a colour shader needs OpenGL") || strings.Contains(msg, "\n") {
			t.Errorf("%s: exit %d, %q", args[0], code, msg)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the folder, want the shader and the raw file", len(entries))
	}
	bad := filepath.Join(dir, "bad.glsl")
	if err := os.WriteFile(bad, []byte("// ok\n// caf\xc3\xa9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Run([]string{"export", "--size=32x20", "--colour-shader=" + bad, "-o", filepath.Join(dir, "c.png")}, &out, &errb); code == 0 ||
		!strings.Contains(errb.String(), "bad.glsl: colour shader line 2") {
		t.Errorf("a shader that is not GLSL text: %d %q", code, errb.String())
	}
}
