package fractal

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"mandelscope/internal/text"
)

// Formulas. A Location's Formula says which map its pixels iterate: z <- f(z)^D + c, z0 = 0,
// with f one of
//
//	mandelbrot     f(z) = z                (D = 2: the Mandelbrot set)
//	burning-ship   f(z) = |Re z| + i|Im z| (the Burning Ship)
//	mandelbar      f(z) = conj(z)          (the Mandelbar, or Tricorn)
//
// and the power D from 2 to MaxPower. The pixel mapping is the Mandelbrot set's (no flip: the
// ship lies where its formula puts it). A Julia view iterates the same map from z1 = the pixel.
//
// This file is the one place a formula is defined: its name, its step in float32 and float64
// (formulaStep) and in math/big (formulaBig.step); its perturbation step is perturbStep in
// perturb_formula.go (the fold applied to the delta exactly, foldDelta, then the power's
// difference (W + u)^D - W^D without cancellation, powerDelta), and its BLA step (the linear
// part of the perturbation step and its validity radius) formulaStepBLA in blaformula.go. A new
// formula is a new FormulaKind and a case in formulaStep, formulaBig.step, foldDelta and
// formulaStepBLA (TestFormulaStepsAgree holds the first three to each other,
// TestFormulaBLAStep the last to foldDelta's step, TestFormulaKindsDistinct that each kind has
// its own). The zero
// Formula is the Mandelbrot set of power 2, which every renderer draws by its own fast loops
// (escape.go, perturb.go, the BLA, the vector loops, the shaders); every other formula goes
// through the loops here, on the CPU only: shallow in float32 and float64, deep by
// perturbation with rebasing and the formula's BLA table (FormulaBLA), on the vector loops
// where the build has them (PerturbEscapeFormulaBatch: the template's fold in vectors, a
// case in its fmplain and fmspread too), past
// ExpSpacing with extended exponents and no table (perturb_formula_exp.go; a new fold is a
// case in foldDeltaCx and jacStepX too), with the derivative as a 2x2 Jacobian where the
// colouring reads it (formula_de.go; a case in jacStep).

// FormulaKind is the fold f a formula applies before the power.
type FormulaKind uint8

// The formula kinds.
const (
	// Mandelbrot is f(z) = z.
	Mandelbrot FormulaKind = iota
	// BurningShip is f(z) = |Re z| + i|Im z|.
	BurningShip
	// Mandelbar is f(z) = conj(z).
	Mandelbar
	numFormulaKinds
)

// MaxPower is the highest power D a formula may have (the lowest is 2).
const MaxPower = 8

var formulaNames = [numFormulaKinds]string{"mandelbrot", "burning-ship", "mandelbar"}

// FormulaNames lists the formula kinds' names, as --formula and formula= take them.
func FormulaNames() []string { return formulaNames[:] }

// String is the kind's name: mandelbrot, burning-ship or mandelbar.
func (k FormulaKind) String() string {
	if k < numFormulaKinds {
		return formulaNames[k]
	}
	return "formula#" + strconv.Itoa(int(k))
}

// ParseFormulaKind reads a formula's name (any case, spaces around it allowed); the error
// names the value and lists the names.
func ParseFormulaKind(s string) (FormulaKind, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for k, name := range formulaNames {
		if t == name {
			return FormulaKind(k), nil
		}
	}
	return 0, fmt.Errorf("unknown formula %q (%s)", text.Clip(s, 40), strings.Join(formulaNames[:], ", "))
}

// Formula is the map a view iterates: a kind (the fold f) and a power D (see the top of
// formula.go). Its zero value is the Mandelbrot set, z <- z^2 + c. Formulas compare with ==.
type Formula struct {
	Kind FormulaKind
	// above2 is D - 2, so that the zero value has D = 2 and one power has one form.
	above2 uint8
}

// MakeFormula is the formula of kind k and power d, or an error naming what is out of range.
func MakeFormula(k FormulaKind, d int) (Formula, error) {
	if k >= numFormulaKinds {
		return Formula{}, fmt.Errorf("unknown formula kind %d", k)
	}
	if d < 2 || d > MaxPower {
		return Formula{}, fmt.Errorf("power %d is out of range (2 to %d)", d, MaxPower)
	}
	return Formula{Kind: k, above2: uint8(d - 2)}, nil
}

// ParsePower reads a formula's power, a whole number from 2 to MaxPower (spaces around it
// allowed); the error names what is wrong.
func ParsePower(s string) (int, error) {
	d, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || d < 2 || d > MaxPower {
		return 0, fmt.Errorf("power %q must be a whole number from 2 to %d", text.Clip(s, 40), MaxPower)
	}
	return d, nil
}

// Power is the formula's power D (2 to MaxPower).
func (f Formula) Power() int { return int(f.above2) + 2 }

// WithPower is f with power d (2 to MaxPower; out of range, f unchanged and an error).
func (f Formula) WithPower(d int) (Formula, error) { return MakeFormula(f.Kind, d) }

// IsMandelbrot reports whether f is the zero formula, z <- z^2 + c, which the fast loops draw.
func (f Formula) IsMandelbrot() bool { return f == Formula{} }

// String names the formula for messages: "burning-ship", "mandelbar power 3".
func (f Formula) String() string {
	if f.Power() == 2 {
		return f.Kind.String()
	}
	return f.Kind.String() + " power " + strconv.Itoa(f.Power())
}

// Title is the formula's name for pictures and the status bar: "the Mandelbrot set", "the
// Burning Ship (power 3)".
func (f Formula) Title() string {
	s := [numFormulaKinds]string{"the Mandelbrot set", "the Burning Ship", "the Mandelbar"}[min(f.Kind, numFormulaKinds-1)]
	if f.Power() != 2 {
		s += " (power " + strconv.Itoa(f.Power()) + ")"
	}
	return s
}

func (f Formula) validate() error {
	if f.Kind >= numFormulaKinds {
		return fmt.Errorf("unknown formula kind %d", f.Kind)
	}
	if f.Power() > MaxPower {
		return fmt.Errorf("power %d is out of range (2 to %d)", f.Power(), MaxPower)
	}
	return nil
}

// formulaStep is one step z <- f(z)^D + c in T's arithmetic.
func formulaStep[T float](fm Formula, zr, zi, cr, ci T) (T, T) {
	switch fm.Kind {
	case BurningShip:
		zr, zi = absT(zr), absT(zi)
	case Mandelbar:
		zi = -zi
	}
	if fm.above2 == 0 {
		return zr*zr - zi*zi + cr, 2*zr*zi + ci
	}
	pr, pi := zr, zi
	for range fm.Power() - 1 {
		pr, pi = pr*zr-pi*zi, pr*zi+pi*zr
	}
	return pr + cr, pi + ci
}

func absT[T float](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

// formulaBig holds the temporaries of stepBig.
type formulaBig struct {
	fm             Formula
	wr, wi, pr, pi *big.Float
	t1, t2         *big.Float
}

func newFormulaBig(fm Formula, prec uint) *formulaBig {
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	return &formulaBig{fm: fm, wr: nf(), wi: nf(), pr: nf(), pi: nf(), t1: nf(), t2: nf()}
}

// step sets (zr, zi) to f(z)^D + c at the temporaries' precision.
func (b *formulaBig) step(zr, zi, cr, ci *big.Float) {
	b.wr.Set(zr)
	b.wi.Set(zi)
	switch b.fm.Kind {
	case BurningShip:
		b.wr.Abs(b.wr)
		b.wi.Abs(b.wi)
	case Mandelbar:
		b.wi.Neg(b.wi)
	}
	b.pr.Set(b.wr)
	b.pi.Set(b.wi)
	for range b.fm.Power() - 1 {
		// p <- p * w
		b.t1.Mul(b.pr, b.wr)
		b.t2.Mul(b.pi, b.wi)
		b.t1.Sub(b.t1, b.t2)
		b.t2.Mul(b.pr, b.wi)
		b.pi.Mul(b.pi, b.wr)
		b.pi.Add(b.pi, b.t2)
		b.pr.Set(b.t1)
	}
	zr.Add(b.pr, cr)
	zi.Add(b.pi, ci)
}

// EscapeFormulaBig is EscapeJuliaBig for any formula: the escape count of the orbit z1 =
// (zr, zi), z <- f(z)^D + c, in math/big at prec bits, with no shortcuts (the least n >= 1
// with |z(n)| > 2, -1 when none within maxIter). With z1 = c it is the count of the pixel c of
// the formula's Mandelbrot-like set (every f has f(0) = 0, so z1 = c).
func EscapeFormulaBig(fm Formula, zr, zi, cr, ci *big.Float, maxIter int, prec uint) int {
	if fm.IsMandelbrot() {
		return EscapeJuliaBig(zr, zi, cr, ci, maxIter, prec)
	}
	nf := func() *big.Float { return new(big.Float).SetPrec(prec) }
	xr, xi, t, u := nf().Set(zr), nf().Set(zi), nf(), nf()
	st := newFormulaBig(fm, prec)
	four := big.NewFloat(4)
	for n := 1; n <= maxIter; n++ {
		if n > 1 {
			st.step(xr, xi, cr, ci)
		}
		t.Mul(xr, xr)
		u.Mul(xi, xi)
		t.Add(t, u)
		if t.Cmp(four) > 0 {
			return n
		}
	}
	return -1
}

// EscapeFormula64 is the escape count and smooth value of the orbit z1 = (zr, zi) under the
// formula with parameter (cr, ci) in float64 (z1 = c for the formula's own set, z1 the pixel
// for a Julia set), -1 inside; orbits that return exactly to a saved value count as inside.
func EscapeFormula64(fm Formula, zr, zi, cr, ci float64, maxIter int) (int, float64) {
	return escapeFormula(fm, zr, zi, cr, ci, maxIter)
}

// EscapeFormula32 is EscapeFormula64 in float32 arithmetic.
func EscapeFormula32(fm Formula, zr, zi, cr, ci float32, maxIter int) (int, float64) {
	return escapeFormula(fm, zr, zi, cr, ci, maxIter)
}

func escapeFormula[T float](fm Formula, zr, zi, cr, ci T, maxIter int) (int, float64) {
	sr, si := T(math.NaN()), T(math.NaN()) // no value saved yet
	check, period := 8, 0
	for n := 1; n <= maxIter; n++ {
		if n > 1 {
			zr, zi = formulaStep(fm, zr, zi, cr, ci)
		}
		r2 := zr*zr + zi*zi
		if r2 > 4 {
			return n, smoothFormula(fm, float64(zr), float64(zi), float64(cr), float64(ci), n)
		}
		if zr == sr && zi == si {
			return -1, 0
		}
		period++
		if period == check {
			period = 0
			check *= 2
			sr, si = zr, zi
		}
	}
	return -1, 0
}

// smoothFormula is smooth for any formula, in float64: the orbit continued to SmoothBailout
// (at most 8 more steps), then m + 1 - log_D(log2|z(m)|), which for D = 2 is smooth's value.
func smoothFormula(fm Formula, zr, zi, cr, ci float64, n int) float64 {
	m := n
	r2 := zr*zr + zi*zi
	for r2 <= SmoothBailout && m < n+8 {
		zr, zi = formulaStep(fm, zr, zi, cr, ci)
		r2 = zr*zr + zi*zi
		m++
	}
	v := log2(0.5 * log2(r2))
	if d := fm.Power(); d != 2 {
		v /= math.Log2(float64(d))
	}
	return float64(m) + 1 - v
}

// Fields is f as the files that store it in two fields write it (bookmarks, video manifests
// and job files): the kind's name, "" for mandelbrot, and the power, 0 for 2, so that a
// default left out is the default read back (FormulaFromFields).
func (f Formula) Fields() (kind string, power int) {
	if f.Kind != Mandelbrot {
		kind = f.Kind.String()
	}
	if d := f.Power(); d != 2 {
		power = d
	}
	return kind, power
}

// FormulaFromFields reads a formula from its fields (Fields): a kind's name ("" for
// mandelbrot) and a power (0 for 2), validated; the error names the value that is wrong.
func FormulaFromFields(kind string, power int) (Formula, error) {
	var f Formula
	if kind != "" {
		k, err := ParseFormulaKind(kind)
		if err != nil {
			return Formula{}, err
		}
		f.Kind = k
	}
	if power != 0 {
		return f.WithPower(power)
	}
	return f, nil
}
