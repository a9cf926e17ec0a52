package render

import (
	"context"
	"fmt"
	"image"
	"testing"

	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
)

// TestRotatedAgainstCPU: a view turned by 37 degrees, in the smooth and the slopes colourings,
// draws on the GPU as on the CPU in every precision (float, double, emulated double and
// perturbation at zoom 1e100), non-square, and otherwise than the unrotated view: the shaders
// turn each pixel's offset and the normal as fractal does (common.glsl's pixelOffset,
// pixelOffsetD, screenNormal).
func TestRotatedAgainstCPU(t *testing.T) {
	for _, c := range []struct {
		name, prec string
		loc        func(testing.TB) fractal.Location
		w, h       int
	}{
		{"f32_seahorse", "f32", seahorseLoc, 90, 60},
		{"f64_deep_2e6", "f64", deepLoc, 60, 90},
		{"emulated_deep_2e6", "emulated", deepLoc, 60, 90},
		{"perturb_misiurewicz_1e100", "", func(t testing.TB) fractal.Location { return loc(t, misRe, misIm, "1e100", 12000) }, 44, 30},
	} {
		for _, col := range []string{"smooth", "slopes"} {
			t.Run(c.name+"_"+col, func(t *testing.T) {
				g := testGL(t, Options{Precision: c.prec, Perturb: "gpu"})
				l := withColouring(t, c.loc(t), col)
				plainFrame := fractal.NewFrame(l, c.w, c.h)
				l.Rotation = 37
				f := fractal.NewFrame(l, c.w, c.h)
				var want *image.RGBA
				if f.Precision().Perturbs() {
					if !g.fp64 {
						t.Skipf("%s has no fp64: perturbation frames go to the CPU", g.renderer)
					}
					var err error
					if f, err = f.WithReference(context.Background(), &fractal.ReferenceCache{}, nil); err != nil {
						t.Fatal(err)
					}
					if plainFrame, err = plainFrame.WithReference(context.Background(), &fractal.ReferenceCache{}, nil); err != nil {
						t.Fatal(err)
					}
					want, _ = perturbCPU(t, f)
				} else {
					want = reference(t, f, g.variant(f))
				}
				got := renderGL(t, g, f)
				frac := matchesCPU(t, fmt.Sprintf("rotated_%s_%s", c.name, col), got, want)
				plain := renderGL(t, g, plainFrame)
				same, _ := imagetest.Agreement(got, plain, 6)
				t.Logf("%s (%s): %.2f%% within 6/255 of the CPU; %.1f%% as the unrotated view", c.name, g.Mode(f), 100*frac, 100*same)
				if same > 0.8 {
					t.Errorf("the rotated view is %.1f%% the unrotated one's picture", 100*same)
				}
			})
		}
	}
}
