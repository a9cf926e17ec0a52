package fractal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// refFrame is a small deep frame (perturbation) and its reference orbit.
func refFrame(t testing.TB, zoom string, iters int) (Frame, *Reference) {
	t.Helper()
	loc := Home()
	loc.Re = MustDecimal("-0.743643887037158704752191506114774")
	loc.Im = MustDecimal("0.131825904205311970493132056385139")
	loc.Zoom = MustDecimal(zoom)
	loc.Iterations = iters
	f := NewFrame(loc, 96, 64)
	ref, err := ComputeFrameReference(context.Background(), f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f, ref
}

func sameReference(t *testing.T, got, want *Reference) {
	t.Helper()
	if got.prec != want.prec || got.maxIter != want.maxIter || got.period != want.period || got.computed != want.computed ||
		got.escaped != want.escaped || got.noPeriod != want.noPeriod || got.cre != want.cre || got.cim != want.cim ||
		got.re.Cmp(want.re) != 0 || got.im.Cmp(want.im) != 0 || len(got.Z) != len(want.Z) || len(got.tiny) != len(want.tiny) {
		t.Fatalf("decoded reference differs: prec %d/%d iters %d/%d period %d/%d len %d/%d", got.prec, want.prec, got.maxIter, want.maxIter, got.period, want.period, len(got.Z), len(want.Z))
	}
	for i := range got.Z {
		if math.Float64bits(real(got.Z[i])) != math.Float64bits(real(want.Z[i])) || math.Float64bits(imag(got.Z[i])) != math.Float64bits(imag(want.Z[i])) {
			t.Fatalf("Z[%d] = %v, want %v", i, got.Z[i], want.Z[i])
		}
	}
	for m, c := range want.tiny {
		if got.tiny[m] != c {
			t.Fatalf("tiny[%d] = %v, want %v", m, got.tiny[m], c)
		}
	}
}

// A reference file reads back as the orbit written, bit for bit, with the same digest; the
// frame it was computed for accepts it and other frames are told why not; its size is the
// one ReferenceFileSize gives.
func TestReferenceFileRoundTrip(t *testing.T) {
	for _, c := range []struct {
		zoom  string
		iters int
	}{{"1e20", 3000}, {"1e320", 2000}} {
		f, ref := refFrame(t, c.zoom, c.iters)
		data, digest, err := EncodeReference(ref)
		if err != nil {
			t.Fatal(err)
		}
		if want := ReferenceFileSize(len(ref.Z), ref.prec); int64(len(data)) != want+28*int64(len(ref.tiny)) {
			t.Errorf("%s: %d bytes, ReferenceFileSize says %d", c.zoom, len(data), want)
		}
		got, d2, err := DecodeReference(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if d2 != digest || len(digest) != 64 {
			t.Errorf("digest %s, written as %s", d2, digest)
		}
		sameReference(t, got, ref)
		if err := got.CheckFor(f); err != nil {
			t.Errorf("%s: its own frame refuses it: %v", c.zoom, err)
		}
		// A frame given the decoded orbit draws what one computing its own draws.
		cache := &ReferenceCache{}
		cache.Add(got)
		g, err := f.WithReference(context.Background(), cache, nil)
		if err != nil || g.Ref != got {
			t.Fatalf("the cache did not serve the decoded orbit: %v", err)
		}
		h, _ := f.WithReference(context.Background(), &ReferenceCache{}, nil)
		for y := 0; y < f.H; y += 7 {
			for x := 0; x < f.W; x += 5 {
				n1, nu1 := g.Escape(x, y)
				n2, nu2 := h.Escape(x, y)
				if n1 != n2 || math.Float64bits(nu1) != math.Float64bits(nu2) {
					t.Fatalf("%s: pixel (%d,%d) %d %v with the file's orbit, %d %v with its own", c.zoom, x, y, n1, nu1, n2, nu2)
				}
			}
		}
		other := f
		other.Loc.Iterations++
		if err := got.CheckFor(other); err == nil || !strings.Contains(err.Error(), "iterations") {
			t.Errorf("more iterations: %v", err)
		}
		other = f
		other.Loc.Re = MustDecimal("-0.743643887037158704752191506114775")
		if err := got.CheckFor(other); err == nil || !strings.Contains(err.Error(), "another point") {
			t.Errorf("another centre: %v", err)
		}
	}
}

// resum recomputes a body's digest, so that a changed field passes the digest and must be
// caught by its own check.
func resum(body []byte) []byte {
	s := sha256.Sum256(body)
	return append(bytes.Clone(body), s[:]...)
}

// Damaged and hostile files are refused with one line naming what is wrong, never a panic.
func TestReferenceFileRefusals(t *testing.T) {
	_, ref := refFrame(t, "1e20", 3000)
	data, _, err := EncodeReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	body := data[:len(data)-sha256.Size]
	le := binary.LittleEndian
	set32 := func(off int, v uint32) []byte {
		b := bytes.Clone(body)
		le.PutUint32(b[off:], v)
		return resum(b)
	}
	// The orbit's values start after the header, the point and the count.
	zOff := len(body) - 4 - 16*len(ref.Z) // the tiny count is the last field (0 here)
	setZ := func(i int, v float64) []byte {
		b := bytes.Clone(body)
		le.PutUint64(b[zOff+16*i:], math.Float64bits(v))
		return resum(b)
	}
	flip := bytes.Clone(data)
	flip[len(flip)/2] ^= 4
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a Mandelscope reference"},
		{"text", []byte("hello, world, this is not an orbit at all......"), "not a Mandelscope reference"},
		{"flipped byte", flip, "damaged"},
		{"cut short", data[:len(data)-100], "damaged"},
		{"version", set32(8, 9), "version 9"},
		{"precision", set32(12, 1<<30), "precision"},
		{"iterations", set32(16, 0), "iteration count"},
		{"period", set32(20, uint32(len(ref.Z))), "period"},
		{"flags", set32(28, 8), "flags"},
		{"NaN", setZ(5, math.NaN()), "not a finite number"},
		{"Inf", setZ(7, math.Inf(1)), "not a finite number"},
		{"beyond the radius", setZ(9, 3), "escape radius"},
		{"length", set32(zOff-4, 1<<30), "orbit length"},
		{"tiny count", set32(len(body)-4, 5), "exact values"},
		{"trailing bytes", resum(append(bytes.Clone(body), 1, 2, 3)), "exact values"},
	} {
		_, _, err := DecodeReference(bytes.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
	}
}

func FuzzDecodeReference(f *testing.F) {
	_, ref := refFrame(f, "1e20", 300)
	data, _, err := EncodeReference(ref)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add(data[:len(data)-sha256.Size])
	f.Fuzz(func(t *testing.T, b []byte) {
		// The digest would refuse almost every change: fuzz the fields behind a good one.
		for _, in := range [][]byte{b, resum(b)} {
			r, _, err := DecodeReference(bytes.NewReader(in))
			if err != nil {
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error of more than one line: %q", err)
				}
				continue
			}
			if _, _, err := EncodeReference(r); err != nil {
				t.Fatal(err)
			}
		}
	})
}
