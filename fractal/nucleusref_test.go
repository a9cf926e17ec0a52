package fractal

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"
)

// The view edge1e39 (testdata/deep/locations.txt) is a minibrot's edge seen from inside: a
// period-57 minibrot of size 2.2e-34, found by find from a boundary view at 1e16, and a
// centre just inside its cardioid (u = r e^(i t)/2 - r^2 e^(2i t)/4 with r = 1 - 1e-6, t = 2,
// in the minibrot's own coordinates), where its cycle's multiplier is 1 - 1e-6 in size: the
// centre's orbit is still spiralling onto the cycle after MaxReferenceLength (2^21)
// iterations. Before references at nuclei (nucleusref.go) every pixel still going at the
// orbit's end rebased with its whole z and "escaped" at 2,097,222.

// edgePixel is a pixel of the edge view at 64x36 and the count asked there.
type edgePixel struct{ x, y, iter int }

// edgePixels are the pixels checked against math/big, each at a count past 2^21, 2^22 or
// 2^23 (plus 2^16): the centre and the corners (inside the minibrot), and pixels outside it
// whose orbits escape between those counts (found with probe over the 64x36 grid).
func edgePixels() []edgePixel {
	n1, n2, n3 := 1<<21+1<<16, 1<<22+1<<16, 1<<23+1<<16
	return []edgePixel{
		{32, 18, n1}, {0, 0, n1}, {63, 35, n1}, {1, 12, n1},
		{32, 18, n2}, {1, 12, n2}, {34, 28, n2}, {4, 14, n2},
		{32, 18, n3}, {44, 33, n3}, {39, 32, n3},
	}
}

// edgeFrame is edge1e39 at 64x36 asking iter iterations, with its reference.
func edgeFrame(t *testing.T, iter int, cache *ReferenceCache) Frame {
	t.Helper()
	l := deepLocationNamed(t, "edge1e39")
	l.Iterations = iter
	f, err := NewFrame(l, 64, 36).WithReference(context.Background(), cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestNucleusReferenceAtMinibrotEdge checks the reference a view past MaxReferenceLength
// gets at a minibrot's edge: the minibrot's nucleus, periodic, its orbit computed for a few
// periods only, reused by views within reach of the view's centre (not of the nucleus, far
// outside it), and kept whole by a reference file.
func TestNucleusReferenceAtMinibrotEdge(t *testing.T) {
	cache := &ReferenceCache{}
	f := edgeFrame(t, 1<<21+1<<16, cache)
	ref := f.Ref
	if ref.Period() != 57 || ref.Escaped() {
		t.Fatalf("reference period %d, escaped %v: want the period-57 nucleus's periodic orbit", ref.Period(), ref.Escaped())
	}
	if ref.computed > 20*57 {
		t.Errorf("the nucleus's orbit was computed to %d: want a few periods", ref.computed)
	}
	if ar, ai := ref.anchor(); ar.Cmp(f.Loc.Re.Big(ref.prec)) != 0 || ai.Cmp(f.Loc.Im.Big(ref.prec)) != 0 {
		t.Error("the reference's anchor is not the view's centre")
	}
	// The nucleus is hundreds of thousands of view widths away, and within nucleusReach.
	off := math.Hypot(f.DRe, f.DIm) / (float64(f.W) * f.Spacing)
	if off < 1e3 || off*float64(f.W) > math.Ldexp(1, nucleusReach) {
		t.Errorf("the nucleus is %.3g view widths from the centre", off)
	}
	// Z repeats with the period from its end back, and returns near 0 every period.
	last := len(ref.Z) - 1
	for j := range 57 {
		if ref.Z[last-j] != ref.Z[last-j-57] {
			t.Fatalf("Z[%d] != Z[%d]", last-j, last-j-57)
		}
	}
	if a := ref.zcx(57).log2Abs(); a > -100 {
		t.Errorf("|Z_57| = 2^%.0f: want the nucleus's return to 0", a)
	}
	// A view panned by a view width reuses it: reach is measured from the anchor.
	l := f.Loc
	re := f.Loc.Re.Big(ref.prec + 64)
	re.Add(re, NewExp(f.Spacing*float64(f.W)).Big(ref.prec+64))
	var err error
	if l.Re, err = ParseDecimal(re.Text('g', 90)); err != nil {
		t.Fatal(err)
	}
	g2, err := NewFrame(l, 64, 36).WithReference(context.Background(), cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g2.Ref != ref {
		t.Error("a view one width away computed a reference of its own")
	}
	// The file keeps the anchor, and the view accepts the orbit read back.
	data, digest, err := EncodeReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	back, digest2, err := DecodeReference(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if digest2 != digest || back.Period() != 57 || back.anchorRe == nil || back.anchorRe.Cmp(ref.anchorRe) != 0 {
		t.Errorf("read back: period %d, anchor %v: want the file's", back.Period(), back.anchorRe)
	}
	if err := back.CheckFor(f); err != nil {
		t.Errorf("CheckFor: %v", err)
	}
	if err := back.CheckFor(g2); err == nil {
		t.Error("CheckFor accepted the orbit for another view's centre")
	}
}

// TestMinibrotEdgePastLengthCap checks pixels of the edge view at counts past 2^21, 2^22 and
// 2^23 against math/big: inside pixels must stay inside, escaping ones escape within max(1,
// N/1000) of math/big, on the scalar loop with and without BLA, the derivative loop, and the
// extended-exponent loop on the same reference. Past 2^22 math/big runs at one precision (128
// bits finer than the first), which the counts below it show to be enough. The outside pixels
// here lie in the dust at the minibrot's edge, where inside and outside interleave finer than a
// thousandth of a pixel (moved by 2^-10 px, math/big gives another count for most of them); the
// pixels of the random views in bench/edge-verify are counted the same way. About 40 s of
// math/big: not under the race detector.
func TestMinibrotEdgePastLengthCap(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("millions of math/big iterations a pixel: too slow under the race detector")
	}
	pxs := edgePixels()
	type result struct {
		bla, plain, de, exp, big1, big2 int
		two                             bool // big1 computed (at the coarser precision)
	}
	res := make([]result, len(pxs))
	frames := map[int]Frame{}
	cache := &ReferenceCache{}
	for _, p := range pxs {
		if _, ok := frames[p.iter]; !ok {
			frames[p.iter] = edgeFrame(t, p.iter, cache)
		}
	}
	parallel(2*len(pxs), func(i int) {
		p, r := pxs[i/2], &res[i/2]
		f := frames[p.iter]
		bits := f.ReferenceBits() + 32
		if i%2 == 1 {
			cr, ci := f.PointBig(p.x, p.y, bits+128)
			r.big2 = EscapeBig(cr, ci, p.iter, bits+128)
			return
		}
		dr, di := f.Delta(p.x, p.y)
		r.bla, _ = PerturbEscape(f.Ref, f.BLA(), dr, di, p.iter, nil)
		r.plain, _ = PerturbEscape(f.Ref, nil, dr, di, p.iter, nil)
		r.de = PerturbEscapeDE(f.Ref, f.BLA(), dr, di, p.iter, f.Spacing, nil).N
		r.exp, _ = PerturbEscapeExp(f.Ref, f.BLAExp(), NewExp(dr), NewExp(di), p.iter, nil)
		if r.two = p.iter < 1<<22; r.two {
			cr, ci := f.PointBig(p.x, p.y, bits)
			r.big1 = EscapeBig(cr, ci, p.iter, bits)
		}
	})
	good, agree := 0, 0
	for i, p := range pxs {
		r := res[i]
		want := r.big2
		if r.two && r.big1 != want {
			t.Logf("pixel %d,%d at %d: ill-conditioned (math/big %d and %d 128 bits finer); BLA %d", p.x, p.y, p.iter, r.big1, want, r.bla)
			continue
		}
		good++
		tol := max(1, p.iter/1000)
		near := func(n int) bool { return n == want || n >= 0 && want >= 0 && abs(n-want) <= tol }
		t.Logf("pixel %d,%d at %d: math/big %d; BLA %d, plain %d, derivative %d, extended %d", p.x, p.y, p.iter, want, r.bla, r.plain, r.de, r.exp)
		ok := true
		for _, c := range []struct {
			loop string
			n    int
		}{{"BLA", r.bla}, {"plain", r.plain}, {"derivative", r.de}, {"extended-exponent", r.exp}} {
			if !near(c.n) {
				ok = false
				t.Errorf("pixel %d,%d at %d iterations: the %s loop gives %d, math/big %d", p.x, p.y, p.iter, c.loop, c.n, want)
			}
		}
		if ok {
			agree++
		}
	}
	t.Logf("%d of %d pixels well-conditioned, %d of them agree", good, len(pxs), agree)
	if good < len(pxs)-1 {
		t.Errorf("only %d of %d pixels are well-conditioned: the view no longer tests what it should", good, len(pxs))
	}
}

// TestPerturbBatchMinibrotEdge checks the vector loops (PerturbEscapeBatch on every width this
// build has) bit for bit against PerturbEscape at the edge view's pixels past 2^21, whose
// reference is a nucleus's (TestMinibrotEdgePastLengthCap checks PerturbEscape there against
// math/big).
func TestPerturbBatchMinibrotEdge(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("millions of iterations a pixel: too slow under the race detector")
	}
	f := edgeFrame(t, 1<<22+1<<16, &ReferenceCache{})
	bla := f.BLA()
	var dcr, dci []float64
	for y := 0; y < f.H; y += 3 {
		for x := 0; x < f.W; x += 3 {
			dr, di := f.Delta(x, y)
			dcr, dci = append(dcr, dr), append(dci, di)
		}
	}
	// The outside pixels of edgePixels too.
	for _, p := range edgePixels()[5:] {
		dr, di := f.Delta(p.x, p.y)
		dcr, dci = append(dcr, dr), append(dci, di)
	}
	wantN, wantNu := make([]int, len(dcr)), make([]float64, len(dcr))
	parallel(len(dcr), func(i int) {
		wantN[i], wantNu[i] = PerturbEscape(f.Ref, bla, dcr[i], dci[i], f.Loc.Iterations, nil)
	})
	for _, w := range vectorWidths() {
		t.Run(fmt.Sprintf("width=%d", w), func(t *testing.T) {
			restore, ok := ForceVectorPath(w)
			if !ok {
				t.Fatalf("no loop of width %d", w)
			}
			defer restore()
			n, nu := make([]int, len(dcr)), make([]float64, len(dcr))
			if !PerturbEscapeBatch(f.Ref, bla, dcr, dci, f.Loc.Iterations, nil, n, nu) {
				t.Fatal("the batch stopped without a stop channel")
			}
			for i := range n {
				if n[i] != wantN[i] || math.Float64bits(nu[i]) != math.Float64bits(wantNu[i]) {
					t.Errorf("pixel %d: %d, %v; PerturbEscape %d, %v", i, n[i], nu[i], wantN[i], wantNu[i])
				}
			}
		})
	}
}

// TestNucleusReferenceBesideMinibrot checks a view whose centre lies just outside a minibrot
// (edgeout1e37: the period-57 minibrot of edge1e39, its centre at r = 1 + 1e-4, 3000 times
// deeper than the minibrot, its edge in view): the centre's orbit escapes at 671,223 of the
// 1,000,000 iterations asked, so pixels inside the minibrot would reach its end, where they
// could only rebase with their whole z (pixel 48,24 "escaped" at 992,711). The minibrot's
// nucleus serves instead, and pixels inside and outside agree with math/big.
func TestNucleusReferenceBesideMinibrot(t *testing.T) {
	l := deepLocationNamed(t, "edgeout1e37")
	f, err := NewFrame(l, 64, 36).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Ref.Period() != 57 || f.Ref.anchorRe == nil {
		t.Fatalf("reference period %d, anchored %v: want the period-57 nucleus's", f.Ref.Period(), f.Ref.anchorRe != nil)
	}
	if raceEnabled || testing.Short() {
		return // a million math/big iterations a pixel
	}
	pxs := [][2]int{{48, 24}, {20, 30}, {36, 21}}
	got, b1, b2 := make([]int, len(pxs)), make([]int, len(pxs)), make([]int, len(pxs))
	parallel(2*len(pxs), func(i int) {
		p := pxs[i/2]
		bits := f.ReferenceBits() + 32 + uint(128*(i%2))
		cr, ci := f.PointBig(p[0], p[1], bits)
		n := EscapeBig(cr, ci, l.Iterations, bits)
		if i%2 == 0 {
			b1[i/2] = n
			got[i/2], _ = f.Escape(p[0], p[1])
		} else {
			b2[i/2] = n
		}
	})
	for i, p := range pxs {
		if b1[i] != b2[i] {
			t.Errorf("pixel %v: math/big %d and %d: the view no longer tests what it should", p, b1[i], b2[i])
			continue
		}
		if got[i] != b1[i] && (got[i] < 0 || b1[i] < 0 || abs(got[i]-b1[i]) > l.Iterations/1000) {
			t.Errorf("pixel %v: %d, math/big %d", p, got[i], b1[i])
		}
	}
}
