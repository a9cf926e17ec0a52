package fractal

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// powerDeltaRecurrence is the power's step as it was before powerDelta took Horner's form
// in Z = W + u: A_1 = u, A_(j+1) = (W + u) A_j + u W^j, A_j = (W + u)^j - W^j.
func powerDeltaRecurrence(d int, wr, wi, ur, ui float64) (float64, float64) {
	zr, zi := wr+ur, wi+ui
	ar, ai := ur, ui
	pr, pi := wr, wi
	for j := 1; j < d; j++ {
		ar, ai = zr*ar-zi*ai+ur*pr-ui*pi, zr*ai+zi*ar+ur*pi+ui*pr
		if j+1 < d {
			pr, pi = pr*wr-pi*wi, pr*wi+pi*wr
		}
	}
	return ar, ai
}

// powerDeltaHornerU is the binomial sum by Horner in u, u (c_1 + u (c_2 + ... + u c_D)) with
// c_k = C(D, k) W^(D-k): as cheap as powerDelta, and TestPowerDeltaAccuracy's reason for not
// taking it.
func powerDeltaHornerU(d int, wr, wi, ur, ui float64) (float64, float64) {
	c := 1.0 // C(d, k), k from d - 1 down
	pr, pi := 1.0, 0.0
	sr, si := 1.0, 0.0
	for k := d - 1; k >= 1; k-- {
		c = c * float64(k+1) / float64(d-k)
		pr, pi = pr*wr-pi*wi, pr*wi+pi*wr // W^(d-k)
		sr, si = sr*ur-si*ui+c*pr, sr*ui+si*ur+c*pi
	}
	return sr*ur - si*ui, sr*ui + si*ur
}

// powerDeltaBig is (W + u)^D - W^D exactly (math/big at 2,000 bits holds every product of
// these inputs), rounded to float64.
func powerDeltaBig(d int, wr, wi, ur, ui float64) (float64, float64) {
	nf := func(x float64) *big.Float { return new(big.Float).SetPrec(2000).SetFloat64(x) }
	pow := func(xr, xi *big.Float) (*big.Float, *big.Float) {
		pr, pi := nf(1), nf(0)
		for range d {
			t1, t2, t3, t4 := nf(0).Mul(pr, xr), nf(0).Mul(pi, xi), nf(0).Mul(pr, xi), nf(0).Mul(pi, xr)
			pr, pi = t1.Sub(t1, t2), t3.Add(t3, t4)
		}
		return pr, pi
	}
	ar, ai := pow(nf(0).Add(nf(wr), nf(ur)), nf(0).Add(nf(wi), nf(ui)))
	br, bi := pow(nf(wr), nf(wi))
	r, _ := ar.Sub(ar, br).Float64()
	i, _ := ai.Sub(ai, bi).Float64()
	return r, i
}

// TestPowerDeltaAccuracy checks powerDelta against (W + u)^D - W^D in math/big over random W
// and u (magnitudes from 2^-10 to 2^10, any angle) for every D from 2 to MaxPower, at |u|
// from 1e-12 |W| (a pixel near the reference) through |u| ~ |W| (near a rebase, where the
// terms may cancel) to 1e12 |W|: the error relative to the exact value's size, in ulps
// (2^-53), at most a few on average and no worse than the recurrence it replaced
// (powerDeltaRecurrence) by more than half again, at worst and on average. The binomial sum
// by Horner in u (powerDeltaHornerU) fails this at |u| ~ |W| for D >= 4 (in one run, worst
// 232 ulps at D = 4 and 8,048 at D = 8, mean 3.0 and 71, against the recurrence's 26 and 43,
// mean 1.6 and 3.2): checked too, so that the test shows it can fail.
func TestPowerDeltaAccuracy(t *testing.T) {

	type stats struct{ worst, mean float64 }
	const n = 1000
	measure := func(d int, ratio float64, f func(d int, wr, wi, ur, ui float64) (float64, float64)) (got, rec stats) {
		r := rand.New(rand.NewPCG(uint64(d), math.Float64bits(ratio)))
		for range n {
			a, b := r.Float64()*2*math.Pi, r.Float64()*2*math.Pi
			mw := math.Exp2(r.Float64()*20 - 10)
			mu := mw * ratio * math.Exp2(r.Float64()*2-1)
			wr, wi := mw*math.Cos(a), mw*math.Sin(a)
			ur, ui := mu*math.Cos(b), mu*math.Sin(b)
			er, ei := powerDeltaBig(d, wr, wi, ur, ui)
			e := math.Hypot(er, ei) * 0x1p-53
			gr, gi := f(d, wr, wi, ur, ui)
			rr, ri := powerDeltaRecurrence(d, wr, wi, ur, ui)
			eg, erc := math.Hypot(gr-er, gi-ei)/e, math.Hypot(rr-er, ri-ei)/e
			got.worst, rec.worst = max(got.worst, eg), max(rec.worst, erc)
			got.mean, rec.mean = got.mean+eg/n, rec.mean+erc/n
		}
		return got, rec
	}
	ok := func(got, rec stats) bool {
		return got.mean <= 4 && got.mean <= 1.25*rec.mean+0.5 && got.worst <= 4*rec.worst+8
	}
	failedHornerU := false
	for d := 2; d <= MaxPower; d++ {
		for _, ratio := range []float64{1e-12, 1e-3, 0.5, 1, 2, 1e3, 1e12} {
			got, rec := measure(d, ratio, func(d int, wr, wi, ur, ui float64) (float64, float64) {
				return powerDelta(d, wr, wi, ur, ui, 0, 0)
			})
			if !ok(got, rec) {
				t.Errorf("D = %d, |u|/|W| ~ %g: powerDelta's error worst %.1f, mean %.2f ulps; the recurrence's %.1f, %.2f", d, ratio, got.worst, got.mean, rec.worst, rec.mean)
			}
			if hu, rec := measure(d, ratio, powerDeltaHornerU); !ok(hu, rec) {
				failedHornerU = true
			}
		}
	}
	if !failedHornerU {
		t.Error("Horner in u passed as well: the test does not tell the two apart")
	}
}

// TestPowerDeltaExact checks powerDelta on values whose result float64 holds exactly (small
// integers): the sum's terms, its order and the square's special case.
func TestPowerDeltaExact(t *testing.T) {
	for d := 2; d <= MaxPower; d++ {
		for _, c := range [][4]float64{{1, 0, 1, 0}, {1, 1, -1, 2}, {0, 0, 2, -1}, {3, -2, 0, 0}, {-2, 1, 2, -1}} {
			er, ei := powerDeltaBig(d, c[0], c[1], c[2], c[3])
			gr, gi := powerDelta(d, c[0], c[1], c[2], c[3], 0.5, -0.25)
			if gr != er+0.5 || gi != ei-0.25 {
				t.Errorf("D = %d, W = %v%+vi, u = %v%+vi: %v%+vi, want %v%+vi", d, c[0], c[1], c[2], c[3], gr, gi, er+0.5, ei-0.25)
			}
		}
	}
}

// TestPowerDeltaCxMatchesFloat64 checks the extended-exponent step's power, powerDeltaCx,
// against powerDelta (the float64 step it must agree with where both apply) for every D,
// including D = 8's factored form, over random W and u as TestPowerDeltaAccuracy's: the same
// value within 64 ulps of its size (cx rounds its mantissas apart from float64's operations).
func TestPowerDeltaCxMatchesFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 40))
	for d := 2; d <= MaxPower; d++ {
		for _, ratio := range []float64{1e-12, 1, 1e12} {
			for range 200 {
				a, b := r.Float64()*2*math.Pi, r.Float64()*2*math.Pi
				mw := math.Exp2(r.Float64()*20 - 10)
				mu := mw * ratio * math.Exp2(r.Float64()*2-1)
				wr, wi := mw*math.Cos(a), mw*math.Sin(a)
				ur, ui := mu*math.Cos(b), mu*math.Sin(b)
				fr, fi := powerDelta(d, wr, wi, ur, ui, 0, 0)
				zero := cx{e: cxZeroExp}
				g := powerDeltaCx(d, cxFromExp(NewExp(wr), NewExp(wi)), cxFromExp(NewExp(ur), NewExp(ui)), zero)
				gr, gi := g.float64s()
				if e := math.Hypot(gr-fr, gi-fi) / math.Hypot(fr, fi); e > 64*0x1p-53 {
					t.Errorf("D = %d, W = %g%+gi, u = %g%+gi: cx %g%+gi, float64 %g%+gi (%.0f ulps apart)", d, wr, wi, ur, ui, gr, gi, fr, fi, e/0x1p-53)
				}
			}
		}
	}
}
