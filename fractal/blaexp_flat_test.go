package fractal

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestBLAExpFlat checks the flat layout of the extended-exponent table against the grouped
// entries PerturbEscapeExp reads: every entry starting at m = k+1 of level l lies at
// Offset(l) + k>>l with the same mantissas and exponents, the levels have Count(l) entries
// and the totals agree; and a lookup made on the flat table by BLA's documented rule (top
// level down, first valid) finds the block the CPU's bottom-up climb finds, for deltas in
// both forms.
func TestBLAExpFlat(t *testing.T) {
	l := misiurewicz(1000, 6000)
	f, err := NewFrame(l, 40, 30).WithReference(context.Background(), &ReferenceCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := f.BLAExp()
	mant, exp := b.Flat()
	total := b.Offset(b.Levels())
	if total != len(b.ent) || len(mant) != BLAExpStride*total || len(exp) != BLAExpExpStride*total {
		t.Fatalf("flat table: %d entries, %d mantissas, %d exponents; grouped table %d entries", total, len(mant), len(exp), len(b.ent))
	}
	if b.Levels() < 8 || b.Steps() != len(f.Ref.Z)-2 {
		t.Fatalf("%d levels over %d steps (orbit of %d): the table tests little", b.Levels(), b.Steps(), len(f.Ref.Z))
	}
	for lv := range b.Levels() {
		if b.Offset(lv+1)-b.Offset(lv) != b.Count(lv) || b.Count(lv) != b.Steps()>>lv {
			t.Fatalf("level %d: offsets %d..%d, count %d", lv, b.Offset(lv), b.Offset(lv+1), b.Count(lv))
		}
	}
	valid := 0
	for k := range b.steps {
		at := b.ent[b.base[k]:b.base[k+1]]
		for lv, e := range at {
			i := b.Offset(lv) + k>>uint(lv)
			m, x := mant[BLAExpStride*i:][:BLAExpStride], exp[BLAExpExpStride*i:][:BLAExpExpStride]
			want := [6]float64{e.ar, e.ai, e.br, e.bi, e.rm, e.r64}
			if [6]float64(m) != want || x[0] != e.ae || x[1] != e.be || x[2] != e.re {
				t.Fatalf("entry k=%d level %d: flat %v %v, grouped %+v", k, lv, m, x, e)
			}
			if e.rm > 0 {
				valid++
			}
		}
	}
	if valid < total/4 {
		t.Errorf("only %d of %d entries valid: the table tests little", valid, total)
	}

	// Lookups on the flat table by the documented rule.
	flatLookup := func(m, n, maxIter int, ex bool, am float64, ae int, ad float64) int {
		k := m - 1
		top := b.Levels() - 1
		if k != 0 {
			for tz := 0; tz < top; tz++ {
				if k>>uint(tz)&1 != 0 {
					top = tz
					break
				}
			}
		}
		for lv := top; lv >= 0; lv-- {
			idx := k >> uint(lv)
			if idx >= b.Count(lv) || n+1<<uint(lv) > maxIter {
				continue
			}
			i := b.Offset(lv) + idx
			e := blaExpEntry{rm: mant[BLAExpStride*i+4], r64: mant[BLAExpStride*i+5], re: exp[BLAExpExpStride*i+2]}
			if blaValid(&e, ex, am, ae, ad) {
				return lv
			}
		}
		return -1
	}
	cpuLookup := func(m, n, maxIter int, ex bool, am float64, ae int, ad float64) int {
		at := b.ent[b.base[m-1]:b.base[m]]
		if !blaValid(&at[0], ex, am, ae, ad) {
			return -1
		}
		lv, span := 0, 1
		for j := 1; j < len(at) && n+span*2 <= maxIter && blaValid(&at[j], ex, am, ae, ad); j++ {
			lv, span = j, span*2
		}
		return lv
	}
	found := map[int]bool{}
	for m := 1; m <= b.steps; m += 7 {
		for _, s := range []int{-3400, -3330, -3322, -3300, -1200, -960, -300, -40, -4} {
			for _, n := range []int{0, 5000} {
				ex := s < -950
				am, ae, ad := 0.75, s, 0.0
				if !ex {
					ad = math.Ldexp(0.75, s)
				}
				got, want := flatLookup(m, n, 6000, ex, am, ae, ad), cpuLookup(m, n, 6000, ex, am, ae, ad)
				if got != want {
					t.Fatalf("m %d, n %d, |d| 2^%d: flat lookup level %d, CPU level %d", m, n, s, got, want)
				}
				found[got] = true
			}
		}
	}
	if len(found) < 5 {
		t.Errorf("lookups found only levels %v: the test reaches little of the table", found)
	}
}

// TestReferenceTiny checks that Tiny lists the values kept exactly, sorted, normalized, and
// that they are the ones the CPU path reads (zcx).
func TestReferenceTiny(t *testing.T) {
	re := MustDecimal("-0." + strings.Repeat("9", 400))
	ref, err := ComputeReference(context.Background(), re, MustDecimal("0"), 1500, 40, nil)
	if err != nil {
		t.Fatal(err)
	}
	tiny := ref.Tiny()
	if len(tiny) == 0 {
		t.Fatal("no tiny values next to c = -1 + 1e-400")
	}
	for i, z := range tiny {
		if i > 0 && tiny[i-1].M >= z.M {
			t.Errorf("not sorted: %d before %d", tiny[i-1].M, z.M)
		}
		if a := max(math.Abs(z.Re), math.Abs(z.Im)); a < 0.5 || a >= 1 {
			t.Errorf("Z[%d] = (%g, %g) 2^%d: not normalized", z.M, z.Re, z.Im, z.E)
		}
		if w := ref.zcx(z.M); w != (cx{z.Re, z.Im, z.E}) {
			t.Errorf("Z[%d]: Tiny gives (%g, %g) 2^%d, zcx %v", z.M, z.Re, z.Im, z.E, w)
		}
		if zm := ref.Z[z.M]; math.Abs(real(zm))+math.Abs(imag(zm)) >= TinyZThreshold {
			t.Errorf("Z[%d] = %v is no tiny value", z.M, zm)
		}
	}
	if tiny[0].M != 2 || tiny[0].E > -1300 {
		t.Errorf("first tiny value Z[%d] 2^%d, want Z[2] about 1e-400", tiny[0].M, tiny[0].E)
	}
}
