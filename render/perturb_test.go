package render

import (
	"context"
	"fmt"
	"image"
	"testing"

	"mandelscope/fractal"
	"mandelscope/internal/imagetest"
)

// Deep test views (found by deep-core's fractal/testdata/finddeep): near a period-8007
// nucleus in seahorse valley, near a period-136119 one, and a Misiurewicz point at 1e100.
const (
	p8007Re   = "-0.743643887037158704752191506114779778215256207948181289816883901818560735783796478634787822762144461879186420389368802996"
	p8007Im   = "0.131825904205311970493132056385140678972952279328918966209127677465513481738298337234738964180367638081912623954274282987"
	p136119Re = "-0.74364388703715870475219150611476491044466678866952445054344772226076938734097049990107700002566806721938412552808498904"
	p136119Im = "0.131825904205311970493132056385130725120158741134066232432366348230023599871748424384574295717109105538252905139463817581"
	misRe     = "0.000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000030"
	misIm     = "1.0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000450"
)

// deepFrame is the w x h frame of a deep location, with its reference orbit.
func deepFrame(t testing.TB, re, im, zoom string, iter, w, h int) fractal.Frame {
	t.Helper()
	f := fractal.NewFrame(loc(t, re, im, zoom, iter), w, h)
	if f.Precision() != fractal.Perturbation {
		t.Fatalf("zoom %s is %v, want perturbation", zoom, f.Precision())
	}
	f, err := f.WithReference(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// perturbCPU is the CPU picture of a Perturbation frame: fractal.Frame.Escape for every
// pixel (perturbation with the frame's BLA table, the rule the shader follows), coloured.
func perturbCPU(t testing.TB, f fractal.Frame) (*image.RGBA, []int) {
	t.Helper()
	pal, err := fractal.PaletteByName(f.Loc.Color.Palette)
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, f.W, f.H))
	counts := make([]int, 0, f.W*f.H)
	for y := range f.H {
		for x := range f.W {
			n, nu := f.Escape(x, y)
			counts = append(counts, n)
			img.SetRGBA(x, y, pal.Color(n, nu, f.Loc.Color))
		}
	}
	return img, counts
}

// spread says how varied a view's escape counts are: the distinct counts, the least and the
// most, and how many pixels stay black.
func spread(counts []int) (distinct, lo, hi, black int) {
	seen := map[int]bool{}
	lo, hi = 1<<62, -1
	for _, n := range counts {
		if n < 0 {
			black++
			continue
		}
		seen[n] = true
		lo, hi = min(lo, n), max(hi, n)
	}
	return len(seen), lo, hi, black
}

// TestPerturbAgainstCPU renders deep views (1e20, 1e50 and 1e100, up to 300000 iterations)
// with the perturbation shader and compares them with the CPU's perturbation: >= 98% of
// pixels within 6/255 and the differing ones isolated.
func TestPerturbAgainstCPU(t *testing.T) {
	g := testGL(t, Options{})
	if !g.fp64 {
		t.Skipf("%s has no fp64: perturbation frames go to the CPU (TestPerturbWithoutFP64)", g.renderer)
	}
	for _, c := range []struct {
		name, re, im, zoom string
		iter, w, h         int
	}{
		{"p8007_1e20", p8007Re, p8007Im, "1e20", 20000, 48, 36},
		{"p136119_1e50", p136119Re, p136119Im, "1e50", 300000, 40, 30},
		{"misiurewicz_1e100", misRe, misIm, "1e100", 12000, 44, 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := deepFrame(t, c.re, c.im, c.zoom, c.iter, c.w, c.h)
			if m := g.Mode(f); m != "perturbation (fp64)" {
				t.Errorf("Mode = %q", m)
			}
			got := renderGL(t, g, f)
			want, counts := perturbCPU(t, f)
			distinct, lo, hi, black := spread(counts)
			frac, bad := imagetest.Agreement(got, want, 6)
			t.Logf("%.3f%% within 6/255; escape counts %d distinct, %d to %d, %d black", 100*frac, distinct, lo, hi, black)
			if distinct < 10 {
				t.Errorf("only %d distinct escape counts: the view tests little", distinct)
			}
			err := imagetest.Isolated(got, want, 6)
			if frac < 0.98 || err != nil {
				saveFailed(t, fmt.Sprintf("perturb_%s_gpu.png", c.name), got)
				saveFailed(t, fmt.Sprintf("perturb_%s_cpu.png", c.name), want)
			}
			if frac < 0.98 {
				t.Errorf("only %.2f%% of pixels within 6/255 of the CPU (want >= 98%%); first bad pixel %v", 100*frac, bad)
			}
			if err != nil {
				t.Errorf("GPU vs CPU: %v", err)
			}
		})
	}
}
