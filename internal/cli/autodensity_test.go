package cli

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/export"
	"mandelscope/fractal"
)

// TestDensityFlag: without --density (or with --density=auto) the density is automatic; an
// explicit number stays explicit, 1 included; anything else is refused in one line.
func TestDensityFlag(t *testing.T) {
	parse := func(args ...string) (fractal.Location, error) {
		fs := NewFlagSet("t", &bytes.Buffer{})
		lf := AddLocationFlags(fs)
		if _, err := ParseFlags(fs, args); err != nil {
			return fractal.Location{}, err
		}
		return lf.Apply(fractal.Home(), true)
	}
	for _, c := range []struct {
		args []string
		auto bool
		d    float64
	}{{nil, true, 1}, {[]string{"--density=auto"}, true, 1}, {[]string{"--density=AUTO"}, true, 1},
		{[]string{"--density=1"}, false, 1}, {[]string{"--density", "0.003"}, false, 0.003}} {
		l, err := parse(c.args...)
		if err != nil || l.Color.AutoDensity != c.auto || l.Color.Density != c.d {
			t.Errorf("%v: %+v, %v", c.args, l.Color, err)
		}
	}
	for _, bad := range []string{"--density=", "--density=autox", "--density=0", "--density=NaN", "--density=1e999", "--density=" + strings.Repeat("x", 200)} {
		_, err := parse(bad)
		if err == nil || !strings.Contains(err.Error(), "--density") || strings.Contains(err.Error(), "\n") || len(err.Error()) > 160 {
			t.Errorf("%.30s: %v", bad, err)
		}
	}
}

// TestExportAutoDensity: an export without --density records the density it drew, and that
// it was chosen automatically (a tEXt chunk after the image data), and says it; --from
// opens it automatic and draws the same bytes; --density=1 is kept, and draws the same file
// but for that chunk.
func TestExportAutoDensity(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.png"), filepath.Join(dir, "b.png"), filepath.Join(dir, "c.png")
	view := []string{"--renderer=cpu", "--center=-0.7453,0.1127", "--zoom=180", "--size=90x60"}
	errs := mustExport(t, append(view, "-o", a)...)
	if !strings.Contains(errs, "density: automatic, 1 for this view") {
		t.Errorf("the export does not say the density it chose: %s", errs)
	}
	md, err := export.ReadMetadata(a)
	if err != nil || !md.Location.Color.AutoDensity || md.Location.Color.Density != 1 {
		t.Fatalf("metadata %+v, %v; want automatic, drawn at 1", md.Location.Color, err)
	}
	mustExport(t, "--renderer=cpu", "--from="+a, "-o", b)
	if !bytes.Equal(readFile(t, a), readFile(t, b)) {
		t.Error("--from drew other bytes")
	}
	if errs := mustExport(t, append(view, "--density=1", "-o", c)...); strings.Contains(errs, "automatic") {
		t.Errorf("--density=1 reported as automatic: %s", errs)
	}
	if md, err := export.ReadMetadata(c); err != nil || md.Location.Color.AutoDensity || md.Location.Color.Density != 1 {
		t.Errorf("--density=1's metadata %+v, %v", md.Location.Color, err)
	}
	if !bytes.Equal(readFile(t, a), withAutoChunk(t, readFile(t, c))) {
		t.Error("--density=1 drew other bytes than the automatic density at a shallow view, beyond the chunk saying it was automatic")
	}
}

// withAutoChunk is the PNG png (of an explicit density) with the tEXt chunk that says the
// density was chosen automatically before its IEND (its last 12 bytes): what an export of
// the automatic density that resolved to png's density writes.
func withAutoChunk(t *testing.T, png []byte) []byte {
	t.Helper()
	if len(png) < 12 || string(png[len(png)-8:len(png)-4]) != "IEND" {
		t.Fatal("not a PNG ending in IEND")
	}
	var chunk bytes.Buffer
	data := export.KeyDensityChosen + "\x00auto"
	binary.Write(&chunk, binary.BigEndian, uint32(len(data)))
	chunk.WriteString("tEXt" + data)
	binary.Write(&chunk, binary.BigEndian, crc32.ChecksumIEEE(chunk.Bytes()[4:]))
	return append(append(bytes.Clone(png[:len(png)-12]), chunk.Bytes()...), png[len(png)-12:]...)
}
