package fractal

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkReference measures the reference orbit per iteration (ns/iter) at 350 and 1100
// bits, in big.Int fixed point (the one used) and big.Float, on a point whose orbit stays
// bounded (the nucleus of period 136119, testdata/deep).
func BenchmarkReference(b *testing.B) {
	l := deepLocationNamed(b, "p136119")
	for _, bits := range []uint{350, 1100} {
		for _, float := range []bool{false, true} {
			name := fmt.Sprintf("bits=%d/fixed", bits)
			if float {
				name = fmt.Sprintf("bits=%d/float", bits)
			}
			b.Run(name, func(b *testing.B) {
				defer func(v bool) { useBigFloat = v }(useBigFloat)
				useBigFloat = float
				n := max(b.N, 1000)
				b.ReportAllocs()
				ref, err := ComputeReference(context.Background(), l.Re, l.Im, bits, n, nil)
				if err != nil || len(ref.Z) != n+1 {
					b.Fatalf("reference: %v (%d values)", err, len(ref.Z))
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/iter")
			})
		}
	}
}
