package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/export"
)

func recolourCmd(args ...string) (code int, stderr string) {
	var out, errb bytes.Buffer
	code = Run(append([]string{"recolour"}, args...), &out, &errb)
	return code, errb.String()
}

// TestRawAndRecolour: `export --raw` without -o writes the raw file alone; --from reads its
// view back; `recolour` with other colours gives the PNG of an export with those colours,
// byte for byte (CPU renderer), and that PNG's --from gives the view again. The raw file
// records the density drawn, explicit, and that it was chosen automatically: a recolour is
// the automatic export's PNG; export --from the raw file draws the same, without the chunk
// after its image data that says its density was automatic.
func TestRawAndRecolour(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "v.exr")
	view := []string{"--renderer=cpu", "--center=-0.7453,0.1127", "--zoom=180", "--iterations=400", "--size=160x90", "--supersample=2"}
	mustExport(t, append(view, "--raw="+raw)...)
	md, err := export.ReadMetadata(raw)
	if err != nil || md.Width != 160 || md.Height != 90 || md.Supersample != 2 || md.Location.Iterations != 400 {
		t.Fatalf("--raw file's view: %v %+v", err, md)
	}
	// --from on the raw file: the same export.
	a, b := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png")
	mustExport(t, append(view, "--palette=fire", "-o", a)...)
	mustExport(t, "--renderer=cpu", "--from="+raw, "--palette=fire", "-o", b)
	if !bytes.Equal(readFile(t, a), withAutoChunk(t, readFile(t, b))) {
		t.Fatal("export --from=FILE.exr differs from the export of the same view")
	}
	c := filepath.Join(dir, "c.png")
	if code, errs := recolourCmd(raw, "--palette=fire", "-o", c); code != 0 {
		t.Fatalf("recolour: exit %d: %s", code, errs)
	}
	// The raw file records that its density was chosen automatically, and a recolour that
	// keeps the density says so as the export did (issue 39: the mark was dropped): the
	// same PNG, byte for byte, its automatic-density chunk included.
	if !bytes.Equal(readFile(t, a), readFile(t, c)) {
		t.Fatal("recolour --palette=fire differs from export --palette=fire")
	}
	if md, err := export.ReadMetadata(c); err != nil || md.Text[export.KeyDensityChosen] != "auto" {
		t.Fatalf("the recoloured PNG does not say its density is automatic: %v %v", err, md.Text)
	}
	// With --density the density is the flag's: no mark.
	c2 := filepath.Join(dir, "c2.png")
	if code, errs := recolourCmd(raw, "--density=2", "-o", c2); code != 0 {
		t.Fatalf("recolour: exit %d: %s", code, errs)
	}
	if md, err := export.ReadMetadata(c2); err != nil || md.Text[export.KeyDensityChosen] != "" {
		t.Fatalf("recolour --density=2 says its density is automatic: %v %v", err, md.Text)
	}
	d := filepath.Join(dir, "d.png")
	mustExport(t, "--renderer=cpu", "--from="+c, "-o", d)
	// --from the recoloured PNG is the export's view, its automatic density included.
	if !bytes.Equal(readFile(t, a), readFile(t, d)) {
		t.Fatal("export --from the recoloured PNG differs")
	}
	// Bad command lines: one line, exit 2, nothing written.
	notRaw := filepath.Join(dir, "not.exr")
	os.WriteFile(notRaw, []byte("\x76\x2f\x31\x01garbage"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{raw, "-o", c}, "already exists"},
		{[]string{raw, "--zoom=5", "-o", filepath.Join(dir, "x.png")}, "--zoom"},
		{[]string{raw, "--supersample=3", "-o", filepath.Join(dir, "x.png")}, "--supersample"},
		{[]string{raw, "-o", filepath.Join(dir, "x.jpg")}, ".png"},
		{[]string{notRaw, "-o", filepath.Join(dir, "x.png")}, "not.exr"},
		{[]string{filepath.Join(dir, "missing.exr"), "-o", filepath.Join(dir, "x.png")}, "missing.exr"},
		{[]string{"-o", filepath.Join(dir, "x.png")}, "no raw file"},
		{[]string{raw, "--density=0", "-o", filepath.Join(dir, "x.png")}, "--density"},
	} {
		code, errs := recolourCmd(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("recolour %v: exit %d, %q; want exit 2 and one line with %q", tc.args, code, errs, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.png")); err == nil {
		t.Error("a refused recolour wrote its file")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(view, "--raw="+raw), "already exists"},
		{append(view, "--raw="+filepath.Join(dir, "x.tif")), ".exr"},
		{append(view, "--raw="+filepath.Join(dir, "y.exr"), "-o", filepath.Join(dir, "y.exr")), ".png"},
	} {
		code, _, errs := exportCmd(tc.args...)
		if code != 2 || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("export %v: exit %d, %q; want exit 2 and one line with %q", tc.args, code, errs, tc.want)
		}
	}
}
