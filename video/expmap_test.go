package video

import (
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/colour"
)

// The rings layout colours keyframes as it reads them, which neither the histogram colouring
// nor a colouring shader does yet: such a video takes flat keyframes when no layout is asked
// for, and a rings layout asked for is refused in a sentence. (Before, the rings composer
// was handed no colourer for a shader, and did not equalise the histogram.)
func TestRingsPerKeyframeColourings(t *testing.T) {
	for _, c := range []colour.Coloring{{Palette: "classic", Density: 1, Method: colour.MethodHistogram}, {Palette: "classic", Density: 1, Shader: "vec3 colour() { return KF_Colour(); }"}} {
		loc := testLoc("16", 300)
		loc.Color = c
		opt := Options{Location: loc, Width: 64, Height: 36, FPS: 10, Duration: 1, FramesDir: filepath.Join(t.TempDir(), "f")}
		if _, err := opt.normalize(); err != nil || opt.Layout != LayoutFlat {
			t.Errorf("%+v: layout %q (%v), want flat", c, opt.Layout, err)
		}
		opt.Layout = LayoutRings
		if _, err := opt.normalize(); err == nil || !strings.Contains(err.Error(), "use --keyframe-layout=flat") {
			t.Errorf("%+v with rings: %v, want a refusal", c, err)
		}
	}
	opt := Options{Location: testLoc("16", 300), Width: 64, Height: 36, FPS: 10, Duration: 1, FramesDir: filepath.Join(t.TempDir(), "g")}
	if _, err := opt.normalize(); err != nil || opt.Layout != LayoutRings {
		t.Errorf("the smooth colouring: layout %q (%v), want rings", opt.Layout, err)
	}
}
