package video

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/export"
	"mandelscope/exr"
	"mandelscope/fractal"
	"mandelscope/render/cpu"
)

// readEXR reads an OpenEXR file whole: its header and its columns.
func readEXR(t *testing.T, path string) (exr.Header, []any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	rd, err := exr.NewReader(f, st.Size())
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	h := rd.Header()
	cols, err := rd.ReadLines(0, h.Height)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return h, cols
}

// column is the column of channel name in cols (read with header h).
func column(t *testing.T, h exr.Header, cols []any, name string) any {
	t.Helper()
	for i, c := range h.Channels {
		if c.Name == name {
			return cols[i]
		}
	}
	t.Fatalf("no channel %s in %v", name, h.Channels)
	return nil
}

func exrOpt(dir string) EXROptions {
	return EXROptions{Location: testLoc("16", 300), StartZoom: fractal.MustDecimal("1"), Width: 64, Height: 36, Dir: dir, Version: "test"}
}

// TestEXRKeyframes writes the keyframes of a zoom from 1 to 16 (five files, 16 to 1 by
// halves), reads them back (names in order, channels and their types, Kalles Fraktaler's
// attributes) and compares each with a raw export of its view at its size: N is the raw N
// plus the bias, NF, DEX and DEY the same bits (DEY 0 where the raw export's is NaN).
func TestEXRKeyframes(t *testing.T) {
	checkEXRKeyframes(t, exrOpt(filepath.Join(t.TempDir(), "keys")), true)
}

// TestEXRKeyframesJuliaFormula: a Julia set's and the Burning Ship's keyframes are their raw
// exports' too.
func TestEXRKeyframesJuliaFormula(t *testing.T) {
	opt := exrOpt(filepath.Join(t.TempDir(), "julia"))
	opt.Location = juliaOf(opt.Location, "-0.8,0.156")
	opt.Location.Re, opt.Location.Im = fractal.MustDecimal("0.3"), fractal.MustDecimal("0.1")
	checkEXRKeyframes(t, opt, false)
	opt = exrOpt(filepath.Join(t.TempDir(), "ship"))
	opt.Location.Re, opt.Location.Im = fractal.MustDecimal("-1.76"), fractal.MustDecimal("-0.03")
	opt.Location.Formula, _ = fractal.MakeFormula(fractal.BurningShip, 2)
	checkEXRKeyframes(t, opt, false)
}

// checkEXRKeyframes writes opt's keyframes (a zoom from 1 to 16) and checks them as
// TestEXRKeyframes says; both asks that every file show points inside and outside the set.
func checkEXRKeyframes(t *testing.T, opt EXROptions, both bool) {
	t.Helper()
	dir := opt.Dir
	sum, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"00001_16.exr", "00002_8.exr", "00003_4.exr", "00004_2.exr", "00005_1.exr"}
	if !reflect.DeepEqual(sum.Names, want) || sum.Files != 5 || sum.Computed != 5 || sum.Reused != 0 {
		t.Fatalf("summary %+v, want the files %v computed", sum, want)
	}
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if !reflect.DeepEqual(got, want) { // ReadDir sorts by name: the order zoomasm reads
		t.Fatalf("folder holds %v, want %v", got, want)
	}
	wantCh := []exr.Channel{{Name: "DEX", Type: exr.Float}, {Name: "DEY", Type: exr.Float}, {Name: "N", Type: exr.Uint}, {Name: "NF", Type: exr.Float}}
	for i, name := range want {
		h, cols := readEXR(t, filepath.Join(dir, name))
		if !reflect.DeepEqual(h.Channels, wantCh) || h.Width != 64 || h.Height != 36 {
			t.Fatalf("%s: %dx%d %v, want 64x36 %v", name, h.Width, h.Height, h.Channels, wantCh)
		}
		if h.Ints["IterationsBias"] != 1024 || h.Ints["Iterations"] != 300 || h.Ints[EXRKeyIndex] != int32(i) || h.Ints[EXRKeyCount] != 5 {
			t.Fatalf("%s: attributes %v", name, h.Ints)
		}
		loc := opt.Location
		loc.Zoom = fractal.MustDecimal(strings.TrimSuffix(name[6:], ".exr"))
		if h.Strings[export.RawKeyLocation] != loc.String() {
			t.Fatalf("%s: location %q, want %q", name, h.Strings[export.RawKeyLocation], loc.String())
		}
		kfr, ok := h.Strings["KallesFraktaler2+"]
		if mb := !loc.IsJulia() && loc.Formula.IsMandelbrot(); ok != mb {
			t.Fatalf("%s: KallesFraktaler2+ attribute %v, want it for the Mandelbrot set alone", name, ok)
		}
		if want := "Re: " + loc.Re.String() + "\r\nIm: " + loc.Im.String() + "\r\nZoom: " + name[6:len(name)-4] + "\r\nIterations: " + strconv.Itoa(loc.Iterations) + "\r\n"; ok && kfr != want {
			t.Fatalf("%s: KallesFraktaler2+ %q, want %q", name, kfr, want)
		}
		raw := filepath.Join(t.TempDir(), "raw.exr")
		if _, err := export.Export(context.Background(), &cpu.Renderer{}, "", export.Options{Location: loc, Width: 64, Height: 36, Supersample: 1, Raw: raw}); err != nil {
			t.Fatal(err)
		}
		rh, rcols := readEXR(t, raw)
		n, rn := column(t, h, cols, "N").([]uint32), column(t, rh, rcols, "N").([]uint32)
		inside, escaped := 0, 0
		for k := range rn {
			w := rn[k] + 1024
			if rn[k] == export.RawInside {
				w = rn[k]
				inside++
			} else {
				escaped++
			}
			if n[k] != w {
				t.Fatalf("%s: sample %d: N %d, want the raw export's %d + 1024", name, k, n[k], rn[k])
			}
		}
		if escaped == 0 || both && inside == 0 {
			t.Fatalf("%s: %d inside, %d escaped: the view should show both", name, inside, escaped)
		}
		for _, ch := range []string{"NF", "DEX", "DEY"} {
			a, b := column(t, h, cols, ch).([]float32), column(t, rh, rcols, ch).([]float32)
			for k := range a {
				if ch == "DEY" && b[k] != b[k] {
					b[k] = 0 // an estimate without a normal: (DEX, 0)
				}
				if ch != "NF" && rn[k] == export.RawInside {
					// The raw export's inside samples carry their cycles' periods and
					// multipliers (for --interior); Kalles Fraktaler's DEX and DEY are 0 there.
					b[k] = 0
				}
				if math.Float32bits(a[k]) != math.Float32bits(b[k]) {
					t.Fatalf("%s: %s sample %d: %v, the raw export's %v", name, ch, k, a[k], b[k])
				}
			}
		}
	}
}

// TestEXRKeyframesResume interrupts a sequence after its second file, resumes it (the two
// files kept, the rest computed, a damaged one noticed and written again), and checks the
// files are those of a run in one go.
func TestEXRKeyframesResume(t *testing.T) {
	base := t.TempDir()
	whole := exrOpt(filepath.Join(base, "whole"))
	if _, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, whole); err != nil {
		t.Fatal(err)
	}
	opt := exrOpt(filepath.Join(base, "keys"))
	stop := errors.New("stop")
	opt.afterFile = func(i int) error {
		if i == 1 {
			return stop
		}
		return nil
	}
	if _, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt); !errors.Is(err, stop) {
		t.Fatalf("interrupted run: %v", err)
	}
	opt.afterFile = nil
	if _, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Fatalf("a run without --resume into the folder: %v, want it refused as not empty", err)
	}
	// A damaged file (cut short) is written again, and told.
	p := filepath.Join(opt.Dir, "00002_8.exr")
	b, _ := os.ReadFile(p)
	if err := os.WriteFile(p, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	var notes []string
	opt.Resume, opt.Notice = true, func(m string) { notes = append(notes, m) }
	sum, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Reused != 1 || sum.Computed != 4 || len(notes) != 1 || !strings.Contains(notes[0], "00002_8.exr") {
		t.Fatalf("resume: %+v, notices %q; want the first file kept, the damaged second told and the rest computed", sum, notes)
	}
	for _, n := range sum.Names {
		a, _ := os.ReadFile(filepath.Join(whole.Dir, n))
		b, _ := os.ReadFile(filepath.Join(opt.Dir, n))
		if string(a) != string(b) {
			t.Fatalf("%s differs from the one of a run in one go", n)
		}
	}
	// A resume with every file there computes nothing, whatever the colouring (the samples
	// do not depend on it).
	opt.Location.Color.Palette, opt.Location.Color.Density = "fire", 3
	if sum, err = WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt); err != nil || sum.Computed != 0 || sum.Reused != 5 {
		t.Fatalf("second resume, another colouring: %+v, %v; want every file kept", sum, err)
	}
}

// TestEXRKeyframesRefusals: a folder that is not empty, a stray .exr file, another view's
// file under a name of this sequence, a file at the folder's name, and bad numbers are each
// refused with one line, before anything is written; --force replaces another view's files.
func TestEXRKeyframesRefusals(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, files ...string) string {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	other := exrOpt(filepath.Join(base, "other"))
	other.Location.Iterations = 200 // another view: same names, other samples
	if _, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, other); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(base, "file")
	os.WriteFile(notDir, []byte("x"), 0o644)
	cases := []struct {
		name string
		opt  func(o *EXROptions)
		want string
	}{
		{"not empty", func(o *EXROptions) { o.Dir = mk("a", "notes.txt") }, "is not empty"},
		{"stray exr", func(o *EXROptions) { o.Dir = mk("b", "holiday.exr"); o.Resume = true }, "holiday.exr, which is not one of these keyframes"},
		{"stray exr forced", func(o *EXROptions) { o.Dir = mk("c", "holiday.exr"); o.Force = true }, "holiday.exr, which is not one of these keyframes"},
		{"another view", func(o *EXROptions) { o.Dir = other.Dir; o.Resume = true }, "holds another view"},
		{"a file", func(o *EXROptions) { o.Dir = notDir }, "is not a folder"},
		{"no parent", func(o *EXROptions) { o.Dir = filepath.Join(base, "none", "keys") }, "no folder"},
		{"start above end", func(o *EXROptions) { o.StartZoom = fractal.MustDecimal("32") }, "must be below the end zoom"},
		{"size", func(o *EXROptions) { o.Width = 0 }, "out of range"},
	}
	for _, c := range cases {
		opt := exrOpt(filepath.Join(base, "unused"))
		c.opt(&opt)
		before := listing(t, base)
		err := CheckEXR(opt)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: CheckEXR: %v, want one line with %q", c.name, err, c.want)
		}
		if _, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: WriteEXRKeyframes: %v, want %q", c.name, err, c.want)
		}
		if after := listing(t, base); !reflect.DeepEqual(before, after) {
			t.Errorf("%s: the files changed:\n%v\n%v", c.name, before, after)
		}
	}
	// --force with --resume replaces another view's files, keeping what else is there.
	mk("other", "notes.txt")
	opt := exrOpt(other.Dir)
	opt.Resume, opt.Force = true, true
	sum, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt)
	if err != nil || sum.Computed != 5 {
		t.Fatalf("--force --resume over another view: %+v, %v", sum, err)
	}
	if b, err := os.ReadFile(filepath.Join(other.Dir, "notes.txt")); err != nil || string(b) != "mine" {
		t.Fatalf("notes.txt: %q, %v; want it kept", b, err)
	}
	if h, _ := readEXR(t, filepath.Join(other.Dir, "00001_16.exr")); h.Ints["Iterations"] != 300 {
		t.Fatalf("00001_16.exr: iterations %d, want the new view's 300", h.Ints["Iterations"])
	}
}

// TestEXRKeyframesBusy: a second run writing the same folder is refused while the first holds
// its lock (DIR.lock), and runs once it has let go, leaving no lock file.
func TestEXRKeyframesBusy(t *testing.T) {
	opt := exrOpt(filepath.Join(t.TempDir(), "keys"))
	unlock, err := lockWork(opt.Dir, false, opt.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckEXR(opt); !errors.Is(err, ErrBusy) {
		t.Fatalf("CheckEXR beside a holder: %v, want ErrBusy", err)
	}
	_, err = WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "another mandelscope is writing keyframes in "+opt.Dir) {
		t.Fatalf("beside a holder: %v, want ErrBusy", err)
	}
	if _, err := os.Stat(opt.Dir); err == nil {
		t.Fatal("the refused run made the folder")
	}
	unlock()
	if _, err := WriteEXRKeyframes(context.Background(), &cpu.Renderer{}, opt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(opt.Dir + ".lock"); err == nil {
		t.Fatal("the lock file stays")
	}
}

// TestKFSample: a sample's values in a keyframe file.
func TestKFSample(t *testing.T) {
	nan := float32(math.NaN())
	for _, c := range []struct {
		in           colour.Sample
		n            uint32
		nf, dex, dey float32
	}{
		{colour.Sample{Nu: 12.25, DEX: 3, DEY: -4}, 12 + 1024, 0.25, 3, -4},
		{colour.Sample{Nu: 0.5, DEX: 2, DEY: nan}, 1024, 0.5, 2, 0}, // no normal: (DE, 0)
		{colour.Sample{Nu: colour.Inside}, export.RawInside, 0, 0, 0},
		// Past the largest biased N: the rest in NF, so that N - 1024 + NF is still nu.
		{colour.Sample{Nu: 1e12}, export.RawInside - 1, float32(1e12 - float64(export.RawInside-1-1024)), 0, 0},
	} {
		n, nf, dex, dey := kfSample(c.in)
		if n != c.n || nf != c.nf || dex != c.dex || dey != c.dey {
			t.Errorf("kfSample(%+v) = %d %v %v %v, want %d %v %v %v", c.in, n, nf, dex, dey, c.n, c.nf, c.dex, c.dey)
		}
	}
}

// TestEXRKeyframesCancel: a cancel between files (Ctrl-C) is an ErrInterrupted error that says
// what is kept, and leaves only whole files.
func TestEXRKeyframesCancel(t *testing.T) {
	opt := exrOpt(filepath.Join(t.TempDir(), "keys"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opt.Progress = func(p Progress) {
		if p.Done == 2 {
			cancel()
		}
	}
	_, err := WriteEXRKeyframes(ctx, &cpu.Renderer{}, opt)
	if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), "keeps 2 of 5 keyframes") {
		t.Fatalf("cancelled: %v, want ErrInterrupted keeping 2 of 5", err)
	}
	ents, _ := os.ReadDir(opt.Dir)
	if len(ents) != 2 || ents[0].Name() != "00001_16.exr" || ents[1].Name() != "00002_8.exr" {
		t.Fatalf("after a cancel the folder holds %v, want the first two files alone", ents)
	}
}

// TestKFRText: KF's location text, whose zoom spans the image's height where this program's
// spans the shorter side.
func TestKFRText(t *testing.T) {
	loc := testLoc("1000", 500)
	want := "Re: " + loc.Re.String() + "\r\nIm: " + loc.Im.String() + "\r\nZoom: %s\r\nIterations: 500\r\n"
	if got := kfrText(loc, 64, 36); got != fmt.Sprintf(want, "1000") {
		t.Errorf("landscape: %q", got)
	}
	if got := kfrText(loc, 36, 72); got != fmt.Sprintf(want, "500") {
		t.Errorf("portrait 36x72: %q, want the zoom halved", got)
	}
}

// listing is every file under dir with its size.
func listing(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	m := map[string]int64{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil {
			m[p] = info.Size()
		}
		return nil
	})
	return m
}

// TestEXRZooms: the files halve the end zoom down to the start zoom, a last halving within a
// hundredth of the start dropped, and none below the least zoom.
func TestEXRZooms(t *testing.T) {
	for _, c := range []struct {
		start, end string
		want       []string
	}{
		{"1", "16", []string{"16", "8", "4", "2", "1"}},
		{"1", "20", []string{"20", "10", "5", "2.5", "1.25", "0.625"}},
		{"1", "16.1", []string{"16.1", "8.05", "4.025", "2.0125", "1.00625"}},
		{"0.001", "0.004", []string{"0.004", "0.002", "0.001"}},
		{"0.001", "0.005", []string{"0.005", "0.0025", "0.00125"}}, // 0.000625 is below the least zoom
	} {
		zs, err := EXRZooms(fractal.MustDecimal(c.start), fractal.MustDecimal(c.end))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, z := range zs {
			got = append(got, z.Exp().Text(-1))
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s to %s: %v, want %v", c.start, c.end, got, c.want)
		}
	}
}
