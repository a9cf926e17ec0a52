package export

import (
	"bytes"
	"image"
	"testing"

	"mandelscope/fractal"
)

// smallExport is a 3x2 Mandelscope PNG with a 60-digit centre, the fuzzer's main seed.
func smallExport(t testing.TB) []byte {
	loc := fractal.Home()
	loc.Re = fractal.MustDecimal("-0.743643887037158704752191506114774000000000000000000000000001")
	loc.Zoom = fractal.MustDecimal("1e20")
	var buf bytes.Buffer
	if err := encode(&buf, image.NewRGBA(image.Rect(0, 0, 3, 2)), MetadataText(loc, 3, 2, 2, "test")); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzReadMetadata feeds arbitrary bytes to the PNG metadata reader: it must never panic,
// and whatever it accepts must be a valid location that writes back to the same metadata.
func FuzzReadMetadata(f *testing.F) {
	good := smallExport(f)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(pngSignature))
	f.Add([]byte("not a png at all"))
	var julia bytes.Buffer // a Julia view's: the parameter's chunk too
	if err := encode(&julia, image.NewRGBA(image.Rect(0, 0, 3, 2)), MetadataText(juliaLoc(), 3, 2, 1, "test")); err != nil {
		f.Fatal(err)
	}
	f.Add(julia.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		md, err := readMetadata(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := md.Location.Validate(); err != nil {
			t.Fatalf("accepted an invalid location %v: %v", md.Location, err)
		}
		if md.Supersample < 1 || md.Supersample > MaxSupersample {
			t.Fatalf("accepted supersampling %d", md.Supersample)
		}
		var buf bytes.Buffer
		w, h := max(md.Width, 1), max(md.Height, 1)
		if w*h > 1<<16 {
			w, h = 1, 1
		}
		// The version text is written back as Latin-1 ('?' for what is not), so only the
		// view is compared.
		if err := encode(&buf, image.NewRGBA(image.Rect(0, 0, w, h)), MetadataText(md.Location, w, h, md.Supersample, md.Version)); err != nil {
			t.Fatalf("accepted metadata cannot be written back: %v", err)
		}
		back, err := readMetadata(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("metadata written back does not read: %v", err)
		}
		want := md.Location
		if want.Color.AutoDensity {
			want.Color.Density = 1 // MetadataText writes an automatic density as "auto", no number
		}
		if back.Location != want || back.Supersample != md.Supersample {
			t.Fatalf("round trip changed the view: %v -> %v", md.Location, back.Location)
		}
	})
}
