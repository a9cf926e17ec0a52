package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// exrView is a small keyframe sequence's flags: the seahorse valley to zoom 16.
var exrView = []string{"--keyframes-only", "--exr", "--renderer=cpu", "--center=-0.7436438870371587,0.1318259042053119", "--zoom=16",
	"--iterations=500", "--size=64x36"}

// TestVideoEXRKeyframes: `video --keyframes-only --exr -o DIR` writes the five files of a
// zoom from 1 to 16, refuses to write into them again without --resume or --force, and a
// resume computes nothing.
func TestVideoEXRKeyframes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	code, stderr := videoCmd(append(exrView, "-o", dir)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := []string{"00001_16.exr", "00002_8.exr", "00003_4.exr", "00004_2.exr", "00005_1.exr"}
	var got []string
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if !reflect.DeepEqual(got, want) || !strings.Contains(stderr, "wrote 5 keyframes to "+dir+" (5 computed, 0 already there)") {
		t.Fatalf("files %v, stderr %q; want %v", got, stderr, want)
	}
	code, stderr = videoCmd(append(exrView, "-o", dir)...)
	if code != 2 || !strings.Contains(stderr, "is not empty (5 entries)") || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("again without --resume: exit %d, %q; want one line refusing the folder", code, stderr)
	}
	code, stderr = videoCmd(append(exrView, "--resume", "-o", dir)...)
	if code != 0 || !strings.Contains(stderr, "(0 computed, 5 already there)") {
		t.Fatalf("--resume: exit %d, %q; want every file kept", code, stderr)
	}
}

// TestVideoEXRExpMap: --exp-map writes the same files' names as exponential maps, says so,
// and a resume of them without --exp-map (the flat layout) is refused, naming the layouts.
func TestVideoEXRExpMap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "keys")
	code, stderr := videoCmd(append(exrView, "--exp-map", "--size=72x8", "-o", dir)...)
	if code != 0 || !strings.Contains(stderr, "exponential maps, zoomasm's input") || !strings.Contains(stderr, "wrote 5 keyframes") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, stderr = videoCmd(append(exrView, "--size=72x8", "--resume", "-o", dir)...)
	if code == 0 || !strings.Contains(stderr, `its layout is "exponential map", not "flat"`) {
		t.Fatalf("a flat resume of exponential maps: exit %d, %q", code, stderr)
	}
}

// TestVideoEXRValidation: every bad --keyframes-only or --exr command line gives exit 2, one
// line naming what is wrong, and no file.
func TestVideoEXRValidation(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "keys")
	file := filepath.Join(dir, "file")
	os.WriteFile(file, []byte("user's file"), 0o644)
	view := exrView[2:]
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append([]string{"--exr", "-o", out}, view...), "--exr: give --keyframes-only too"},
		{append([]string{"--keyframes-only", "-o", out}, view...), "--keyframes-only: give --exr too"},
		{append(exrView, "--fps=30", "-o", out), "--fps: --keyframes-only --exr writes keyframes only"},
		{append(exrView, "--waypoints=0:1,5:16", "-o", out), "--waypoints: --keyframes-only --exr writes keyframes only"},
		{append(exrView, "--audio=a.wav", "-o", out), "--audio: --keyframes-only --exr writes keyframes only"},
		{append(exrView, "--frames=f", "-o", out), "--frames: --keyframes-only --exr writes keyframes only"},
		{append(exrView, "--shard=0/2", "-o", out), "--shard: --keyframes-only --exr writes keyframes only"},
		{append(exrView, "--keyframe-layout=flat", "-o", out), "--keyframe-layout: --keyframes-only --exr writes keyframes only"},
		{exrView, "-o: no output folder given"},
		{append(exrView, "-o", ""), "-o: empty folder name"},
		{append(exrView, "-o", file), "is not a folder"},
		{append(exrView, "--start-zoom=32", "-o", out), "--start-zoom: the start zoom 32 must be below the end zoom 16"},
		{append(exrView, "--size=0x36", "-o", out), "--size:"},
		{append(exrView, "-o", out, "extra"), "unexpected argument"},
		{append([]string{"--exp-map", "--exr", "-o", out}, view...), "--exp-map: give --keyframes-only --exr too"},
		{append(exrView, "--exp-map", "--size=8x9", "-o", out), "at least as wide as it is tall"},
	} {
		code, stderr := videoCmd(tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%v: %s was made", tc.args, out)
		}
	}
}
