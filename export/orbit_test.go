package export

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mandelscope/colour"
	"mandelscope/exr"
	"mandelscope/fractal"
)

// TestOrbitMetadata: an export writes mandelscope.bailout, .stripe.density and .stripe.last
// only where they are not the defaults and reads them back; a bad value read from a file is one
// line naming its key.
func TestOrbitMetadata(t *testing.T) {
	dir := t.TempDir()
	loc := fractal.Home()
	for _, tx := range MetadataText(loc, 10, 10, 1, "t") {
		if tx.Key == KeyBailout || tx.Key == KeyStripeDensity || tx.Key == KeyStripeLast {
			t.Errorf("an export at the defaults writes %s", tx.Key)
		}
	}
	loc.Bailout, loc.StripeDensity, loc.StripeLast = 1e6, 3, 40
	text := MetadataText(loc, 10, 10, 1, "t")
	md, err := ReadMetadata(writeMetadataPNG(t, dir, "ok.png", 10, 10, text))
	if err != nil || md.Location != loc {
		t.Fatalf("read back %v, %v; wrote %v", md.Location, err, loc)
	}
	for _, tc := range []struct{ key, value, want string }{
		{KeyBailout, "1.5", `bailout "1.5" must be a number from 2 to 1e10`},
		{KeyBailout, "Inf", `bailout "Inf" must be a number from 2 to 1e10`},
		{KeyBailout, "", `bailout "" must be a number`},
		{KeyStripeDensity, "65", `stripe density "65" must be a whole number from 1 to 64`},
		{KeyStripeLast, "-1", `stripe last "-1" must be a whole number from 1 to 64`},
	} {
		var bad []Text
		for _, tx := range text {
			if tx.Key == tc.key {
				tx.Value = tc.value
			}
			bad = append(bad, tx)
		}
		_, err := ReadMetadata(writeMetadataPNG(t, dir, "bad.png", 10, 10, bad))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.key) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%q: %v, want one line naming the key, with %q", tc.key, tc.value, err, tc.want)
		}
	}
}

// TestRawOrbitChannels: a raw file of a view with the orbit channels has T and STRIPE after the
// first four (one at the defaults has not), and reads them back into the samples; values no
// export writes (T outside [0, 1), STRIPE outside [0, 1], NaN) are refused in one line naming
// the sample and the channel.
func TestRawOrbitChannels(t *testing.T) {
	loc := testLoc()
	if h, _ := rawHeader(loc, 3, 2, 1, "t"); len(h.Channels) != 4 {
		t.Errorf("a raw file at the defaults has channels %v", h.Channels)
	}
	loc.Bailout = 1000
	hd, err := rawHeader(loc, 3, 2, 1, "t")
	if err != nil || len(hd.Channels) != 6 || hd.Channels[4].Name != "T" || hd.Channels[5].Name != "STRIPE" {
		t.Fatalf("channels %v, %v", hd.Channels, err)
	}
	nan := float32(math.NaN())
	write := func(tv, sv float32) *RawFile {
		const w, h = 3, 2
		n, nf := make([]uint32, w*h), make([]float32, w*h)
		dex, dey, tt, st := make([]float32, w*h), make([]float32, w*h), make([]float32, w*h), make([]float32, w*h)
		n[0] = RawInside
		i := w + 2 // sample (2, 1)
		n[i], nf[i], tt[i], st[i] = 12, 0.5, tv, sv
		path := filepath.Join(t.TempDir(), "s.exr")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		wr, err := exr.NewWriter(f, hd)
		if err == nil {
			err = wr.WriteLines(n, nf, dex, dey, tt, st)
		}
		if err == nil {
			err = wr.Close()
		}
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		r, err := OpenRaw(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	r := write(0.25, 0.75)
	if !r.Channels {
		t.Fatal("the raw file's T and STRIPE were not seen")
	}
	d := colour.NewData(image.Rect(0, 0, 3, 2))
	if err := r.ReadSamples(d, 0, 2); err != nil || d.At(2, 1).T != 0.25 || d.At(2, 1).Stripe != 0.75 {
		t.Fatalf("read %+v, %v", d.At(2, 1), err)
	}
	for _, c := range []struct {
		t, s float32
		want string
	}{{1, 0.5, "T is 1, outside 0 to 1"}, {-0.1, 0.5, "T is -0.1, outside 0 to 1"}, {nan, 0.5, "T is NaN"},
		{0.5, 1.5, "STRIPE is 1.5, outside 0 to 1"}, {0.5, nan, "STRIPE is NaN"}} {
		err := write(c.t, c.s).ReadSamples(colour.NewData(image.Rect(0, 0, 3, 2)), 0, 2)
		if err == nil || !strings.Contains(err.Error(), "sample (2, 1): "+c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("T %v STRIPE %v: %v, want one line with %q", c.t, c.s, err, c.want)
		}
	}
}
