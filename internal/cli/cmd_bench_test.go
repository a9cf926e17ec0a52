package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"mandelscope/fractal"
)

// The bench's last line is one JSON object with the figures; the path reaches zoom 1e10.
func TestBenchCPU(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run([]string{"bench", "--renderer=cpu", "--size=48x30"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 5 {
		t.Fatalf("output too short:\n%s", out.String())
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("last line is not JSON: %v\n%s", err, lines[len(lines)-1])
	}
	for _, k := range []string{"interactive_p95_ms", "full_frame_median_ms", "mpix_per_s", "renderer", "interactive_frames", "full_frames", "size"} {
		if _, ok := res[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, lines[len(lines)-1])
		}
	}
	if res["renderer"] != "cpu" || res["size"] != "48x30" {
		t.Errorf("renderer %v size %v", res["renderer"], res["size"])
	}
	if n, _ := res["full_frames"].(float64); n != 11 {
		t.Errorf("full frames %v, want one per decade from 1 to 1e10 (11)", res["full_frames"])
	}
	if n, _ := res["interactive_frames"].(float64); n < 100 {
		t.Errorf("interactive frames %v, want a long path", res["interactive_frames"])
	}
	// Every interactive frame after the first starts from the last one; its block side is at
	// least a pixel, and the p95 at least the median.
	b50, ok50 := res["interactive_block_p50_px"].(float64)
	b95, ok95 := res["interactive_block_p95_px"].(float64)
	if !ok50 || !ok95 || b50 < 1 || b95 < b50 || b95 > 64 {
		t.Errorf("block side p50 %v, p95 %v", res["interactive_block_p50_px"], res["interactive_block_p95_px"])
	}
	if n, _ := res["interactive_reused_frames"].(float64); n != res["interactive_frames"].(float64)-1 {
		t.Errorf("%v of %v interactive frames reused the last one, want all but the first", n, res["interactive_frames"])
	}
	if z, _ := res["final_zoom"].(float64); math.Abs(z/1e10-1) > 1e-6 {
		t.Errorf("final zoom %v, want 1e10", res["final_zoom"])
	}
}

// The scripted path is valid locations that never zoom out, ending with a full frame at 1e10
// with the target in view.
func TestBenchScript(t *testing.T) {
	const w, h = 1280, 720
	steps := benchScript(w, h)
	last := steps[len(steps)-1]
	if !last.full || math.Abs(last.loc.ZoomFloat()/1e10-1) > 1e-9 {
		t.Fatalf("last step %v full=%v, want a full frame at 1e10", last.loc, last.full)
	}
	s := fractal.Spacing(last.loc.ZoomFloat(), w, h)
	dx := (benchTarget[0] - last.loc.Re.Float64()) / s
	dy := (benchTarget[1] - last.loc.Im.Float64()) / s
	if math.Abs(dx) > w/2 || math.Abs(dy) > h/2 {
		t.Errorf("target is %.0f,%.0f pixels from the centre at the end: out of view", dx, dy)
	}
	prev := 0.0
	for i, st := range steps {
		if err := st.loc.Validate(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if z := st.loc.ZoomFloat(); z < prev*0.999 {
			t.Fatalf("step %d zooms out (%g after %g)", i, z, prev)
		}
		prev = st.loc.ZoomFloat()
	}
}

func TestBenchBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "--size=0x10"},
		{"bench", "--size=abc"},
		{"bench", "--renderer=vulkan"},
		{"bench", "extra"},
		{"bench", "--size=65536x65536"},
		{"bench", "--julia=1"},
		{"bench", "--julia=1,2,3"},
		{"bench", "--julia=5,0"},
		{"bench", "--julia=x,0"},
	} {
		var out, errb bytes.Buffer
		if code := Run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if msg := strings.TrimSpace(errb.String()); strings.Count(msg, "\n") > 0 || !strings.HasPrefix(msg, "mandelscope bench: ") {
			t.Errorf("%v: error %q, want one line", args, msg)
		}
	}
}

// With --julia the path runs through the Julia set of c: every step is that Julia set, from
// it whole (centre 0, zoom 1) to zoom 1e10 with the target, a point of the set (its orbit
// stays bounded as far as float64 follows it), in view; the JSON names c.
func TestBenchJulia(t *testing.T) {
	const w, h = 1280, 720
	for _, c := range []string{"-0.123,0.745", "0,1", "-0.8,0.156"} {
		j, err := fractal.ParseJulia(c)
		if err != nil {
			t.Fatal(err)
		}
		cc := complex(j.Re.Float64(), j.Im.Float64())
		target := juliaTarget(cc)
		z := complex(target[0], target[1])
		for n := 1; n <= 30; n++ {
			if real(z)*real(z)+imag(z)*imag(z) > 4 {
				t.Errorf("c = %s: the target %v escapes at iteration %d: not on the Julia set", c, target, n)
				break
			}
			z = z*z + cc
		}
		steps := benchScriptFrom(fractal.Home().JuliaAt(j.Re, j.Im), target, w, h)
		if first := steps[0].loc; first.ZoomFloat() != 1 {
			t.Errorf("c = %s: first step %v, want zoom 1", c, first)
		}
		for i, st := range steps {
			if !st.loc.IsJulia() || st.loc.Julia.String() != j.String() {
				t.Fatalf("c = %s: step %d is %v, not the Julia set of c", c, i, st.loc)
			}
		}
		last := steps[len(steps)-1]
		if !last.full || math.Abs(last.loc.ZoomFloat()/1e10-1) > 1e-9 {
			t.Fatalf("c = %s: last step %v full=%v, want a full frame at 1e10", c, last.loc, last.full)
		}
		s := fractal.Spacing(last.loc.ZoomFloat(), w, h)
		dx := (target[0] - last.loc.Re.Float64()) / s
		dy := (target[1] - last.loc.Im.Float64()) / s
		if math.Abs(dx) > w/2 || math.Abs(dy) > h/2 {
			t.Errorf("c = %s: target is %.0f,%.0f pixels from the centre at the end: out of view", c, dx, dy)
		}
	}
	var out, errb bytes.Buffer
	if code := Run([]string{"bench", "--renderer=cpu", "--size=32x20", "--julia=-0.123,0.745"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var res map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("last line is not JSON: %v", err)
	}
	if res["julia"] != "-0.123,0.745" || !strings.Contains(lines[0], "Julia set of c = -0.123,0.745") {
		t.Errorf("JSON julia %v, header %q", res["julia"], lines[0])
	}
	out.Reset()
	if code := Run([]string{"bench", "--renderer=cpu", "--size=32x20", "--julia=off"}, &out, &errb); code != 0 {
		t.Fatalf("--julia=off: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "through the Mandelbrot set") || strings.Contains(out.String(), `"julia"`) {
		t.Errorf("--julia=off does not bench the Mandelbrot set:\n%s", out.String())
	}
}
