package fractal

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Exp is a real number with a float64 mantissa and a separate int exponent ("floatexp"):
// m * 2^e. Its range is unbounded for every purpose here (zooms past 1e308, pixel spacings
// below 1e-308), and its precision is float64's 53 bits. The zero value is 0. Values are kept
// normalized (0.5 <= |m| < 1, or m = 0 with e = 0), so equal numbers have equal fields.
type Exp struct {
	m float64
	e int
}

// NewExp returns f as an Exp (NaN and ±Inf give NaN and ±Inf mantissas; callers check with
// Finite).
func NewExp(f float64) Exp {
	m, e := math.Frexp(f)
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return Exp{m: m}
	}
	return Exp{m: m, e: e}
}

// MakeExp returns m * 2^e.
func MakeExp(m float64, e int) Exp {
	x := NewExp(m)
	if x.m == 0 || !x.Finite() {
		return x
	}
	x.e += e
	return x
}

// ExpFromBig returns f rounded to 53 bits.
func ExpFromBig(f *big.Float) Exp {
	if f.IsInf() {
		return NewExp(math.Inf(f.Sign()))
	}
	if f.Sign() == 0 {
		return Exp{}
	}
	mant := new(big.Float)
	e := f.MantExp(mant) // f = mant * 2^e, 0.5 <= |mant| < 1
	m, _ := mant.Float64()
	return MakeExp(m, e)
}

// Finite reports whether x is neither infinite nor NaN.
func (x Exp) Finite() bool { return !math.IsInf(x.m, 0) && !math.IsNaN(x.m) }

// Mant and Exponent return m and e with x = m * 2^e (0.5 <= |m| < 1, or m = e = 0).
func (x Exp) Mant() float64 { return x.m }

// Exponent is x's binary exponent (see Mant).
func (x Exp) Exponent() int { return x.e }

// Sign is -1, 0 or +1.
func (x Exp) Sign() int {
	switch {
	case x.m > 0:
		return 1
	case x.m < 0:
		return -1
	}
	return 0
}

// Neg is -x.
func (x Exp) Neg() Exp { return Exp{m: -x.m, e: x.e} }

// Abs is |x|.
func (x Exp) Abs() Exp { return Exp{m: math.Abs(x.m), e: x.e} }

// Mul is x * y.
func (x Exp) Mul(y Exp) Exp { return MakeExp(x.m*y.m, x.e+y.e) }

// MulFloat is x * f.
func (x Exp) MulFloat(f float64) Exp { return x.Mul(NewExp(f)) }

// Quo is x / y (y = 0 gives ±Inf or NaN, as float64 division does).
func (x Exp) Quo(y Exp) Exp { return MakeExp(x.m/y.m, x.e-y.e) }

// Ldexp is x * 2^k.
func (x Exp) Ldexp(k int) Exp {
	if x.m == 0 || !x.Finite() {
		return x
	}
	return Exp{m: x.m, e: x.e + k}
}

// Add is x + y.
func (x Exp) Add(y Exp) Exp {
	if x.m == 0 {
		return y
	}
	if y.m == 0 {
		return x
	}
	if x.e < y.e {
		x, y = y, x
	}
	d := x.e - y.e
	if d > 110 {
		return x // y is below half an ulp of x
	}
	return MakeExp(x.m+math.Ldexp(y.m, -d), x.e)
}

// Sub is x - y.
func (x Exp) Sub(y Exp) Exp { return x.Add(y.Neg()) }

// Cmp compares x and y: -1 if x < y, 0 if equal, +1 if x > y.
func (x Exp) Cmp(y Exp) int {
	sx, sy := x.Sign(), y.Sign()
	if sx != sy {
		if sx < sy {
			return -1
		}
		return 1
	}
	if sx == 0 {
		return 0
	}
	// Same sign, both non-zero: compare magnitudes, then flip for negatives.
	c := 0
	switch {
	case x.e < y.e:
		c = -1
	case x.e > y.e:
		c = 1
	case math.Abs(x.m) < math.Abs(y.m):
		c = -1
	case math.Abs(x.m) > math.Abs(y.m):
		c = 1
	}
	return c * sx
}

// Float64 is x rounded to a float64: ±Inf beyond its range, 0 (or a subnormal) below it.
func (x Exp) Float64() float64 {
	if x.e > 1100 {
		return math.Copysign(math.Inf(1), x.m)
	}
	if x.e < -1100 {
		return math.Copysign(0, x.m)
	}
	return math.Ldexp(x.m, x.e)
}

// Log2 is log2|x| (-Inf for 0).
func (x Exp) Log2() float64 {
	if x.m == 0 {
		return math.Inf(-1)
	}
	return math.Log2(math.Abs(x.m)) + float64(x.e)
}

// Log10 is log10|x| (-Inf for 0).
func (x Exp) Log10() float64 { return x.Log2() * math.Log10(2) }

// Big returns x exactly as a big.Float of precision max(prec, 53).
func (x Exp) Big(prec uint) *big.Float {
	f := new(big.Float).SetPrec(max(prec, 53))
	if !x.Finite() {
		if math.IsInf(x.m, 0) {
			return f.SetInf(x.m < 0)
		}
		return f
	}
	f.SetFloat64(x.m)
	return f.SetMantExp(f, x.e)
}

// Text formats x in decimal with the given number of significant digits (digits < 0: the
// fewest that read back as x), as "1.5e533", "-2.25e-4000" or, within 1e-4 to 1e6, plainly
// ("300", "0.0125"). It is exact: the decimal is computed in math/big.
func (x Exp) Text(digits int) string {
	switch {
	case math.IsNaN(x.m):
		return "NaN"
	case math.IsInf(x.m, 1):
		return "+Inf"
	case math.IsInf(x.m, -1):
		return "-Inf"
	case x.m == 0:
		return "0"
	}
	if x.e >= -14 && x.e <= 21 {
		v := math.Ldexp(x.m, x.e)
		if digits >= 0 {
			v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', digits, 64), 64)
		}
		if a := math.Abs(v); a >= 1e-4 && a < 1e6 {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	if digits > 0 {
		digits-- // 'e' counts the digits after the point
	}
	s := x.Big(53).Text('e', digits) // "1.500e+533"
	mant, exp, _ := strings.Cut(s, "e")
	if strings.Contains(mant, ".") {
		mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
	}
	exp = strings.TrimPrefix(exp, "+")
	if strings.HasPrefix(exp, "-") {
		exp = "-" + strings.TrimLeft(exp[1:], "0")
	} else {
		exp = strings.TrimLeft(exp, "0")
	}
	if exp == "" || exp == "-" {
		return mant
	}
	return mant + "e" + exp
}

// String is Text(-1): the shortest decimal that reads back as x, such as "1.5e533".
func (x Exp) String() string { return x.Text(-1) }

// DecimalFromExp returns the shortest decimal text that reads back as x (a finite x; the
// text of a float64-range value is DecimalFromFloat's).
func DecimalFromExp(x Exp) Decimal {
	if f := x.Float64(); x.e > -1000 && x.e < 1000 {
		return DecimalFromFloat(f)
	}
	s := x.Big(53).Text('e', -1)
	return Decimal{text: strings.Replace(s, "e+", "e", 1)}
}

// Exp returns d rounded to 53 bits as an Exp: exact in range for any exponent ParseDecimal
// accepts.
func (d Decimal) Exp() Exp {
	f, _, err := big.ParseFloat(d.String(), 10, 64, big.ToNearestEven)
	if err != nil {
		return NewExp(math.NaN())
	}
	return ExpFromBig(f)
}

// FormatZoom is the one form in which a zoom is shown to a person (status bar, dialogs,
// default bookmark names, command output): four significant digits, plainly within 1e-4 to
// 1e6 ("300", "1.5", "123500"), else with an exponent ("2.5e7", "1.5e533", "4e1086"). It never shows
// "+Inf", "0" or a float64 artefact, at any depth.
func FormatZoom(zoom Exp) string { return zoom.Text(4) }
