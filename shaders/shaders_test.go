package shaders

import (
	"strings"
	"testing"
)

// TestSources checks that the embedded files are there and mention every variant; compiling
// them needs a GL context and is tested in package render.
func TestSources(t *testing.T) {
	if !strings.Contains(FullscreenVert, "gl_VertexID") {
		t.Errorf("FullscreenVert does not look like the full-screen vertex shader")
	}
	for _, v := range Variants {
		if !strings.Contains(MandelFrag, string(v)) {
			t.Errorf("MandelFrag has no branch for %s", v)
		}
	}
	if !strings.Contains(PerturbFrag, "packDouble2x32") || !strings.Contains(Common, "escapeSmooth") ||
		!strings.Contains(PerturbExpFrag, "perturbExp") || !strings.Contains(PerturbFrag, Exponent) {
		t.Errorf("PerturbFrag or Common does not look like the file it should be")
	}
	if !strings.Contains(ColourFrag, "vec3 colour(void);") || !strings.Contains(ColourFrag, "getInterior") {
		t.Errorf("ColourFrag does not look like the colour shader prelude")
	}
	for _, src := range []string{FullscreenVert, MandelFrag, Common, PerturbFrag, PerturbExpFrag, ColourFrag} {
		if strings.Contains(src, "#version") {
			t.Errorf("a shader file carries its own #version line; render adds it")
		}
	}
}
