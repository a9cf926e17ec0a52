package fractal

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"mandelscope/internal/text"
)

// MaxDecimalDigits bounds the length of a decimal text, so that a pasted or fuzzed input
// cannot make the program allocate without limit. A centre at MaxZoom (1e10000) needs about
// 10,010 characters ("-0." and a digit a factor of ten, plus three for a thousandth of a
// pixel at 65536 pixels).
const MaxDecimalDigits = 12288

// Decimal is an exact decimal number kept as the text it was given (for example a centre
// coordinate with 60 digits). Its zero value is the number 0.
type Decimal struct {
	text string
}

// ParseDecimal parses a plain decimal number: an optional sign, digits with an optional
// point, and an optional exponent ("-0.75", "1e-12", ".5"). NaN, Inf, hexadecimal and
// empty text are rejected. The text is kept exactly as given (surrounding spaces removed).
func ParseDecimal(s string) (Decimal, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Decimal{}, errors.New("empty number")
	}
	if len(s) > MaxDecimalDigits {
		return Decimal{}, fmt.Errorf("number of %d characters is too long (at most %d)", len(s), MaxDecimalDigits)
	}
	i := 0
	if s[i] == '+' || s[i] == '-' {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return Decimal{}, fmt.Errorf("%q is not a decimal number", text.Clip(s, 40))
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == start {
			return Decimal{}, fmt.Errorf("%q has an exponent without digits", text.Clip(s, 40))
		}
		if i-start > 6 {
			return Decimal{}, fmt.Errorf("%q has an exponent out of range", text.Clip(s, 40))
		}
	}
	if i != len(s) {
		return Decimal{}, fmt.Errorf("%q is not a decimal number", text.Clip(s, 40))
	}
	return Decimal{text: s}, nil
}

// MustDecimal is ParseDecimal for constants known to be valid; it panics otherwise.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// DecimalFromFloat returns the shortest decimal text that reads back as f.
func DecimalFromFloat(f float64) Decimal {
	return Decimal{text: strconv.FormatFloat(f, 'g', -1, 64)}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// String returns the decimal text exactly as it was given.
func (d Decimal) String() string {
	if d.text == "" {
		return "0"
	}
	return d.text
}

// Log2 is log2 of d at any size (a float64 holds the logarithm of every decimal up to
// MaxZoom); -Inf for d <= 0.
func (d Decimal) Log2() float64 {
	b := d.Big(64)
	if b.Sign() <= 0 {
		return math.Inf(-1)
	}
	m := new(big.Float)
	e := b.MantExp(m)
	f, _ := m.Float64()
	return float64(e) + math.Log2(f)
}

// Float64 returns the nearest float64 (±Inf for texts beyond its range).
func (d Decimal) Float64() float64 {
	f, err := strconv.ParseFloat(d.String(), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return f
}

// AbsWithin reports whether |d| <= limit exactly, on the decimal text: a float64 rounds
// 4.0000000000000000001 to 4. A text that is not a number is not within any limit.
func (d Decimal) AbsWithin(limit float64) bool {
	if math.IsNaN(d.Float64()) {
		return false
	}
	return compareDecimal(d, DecimalFromFloat(limit)) <= 0 && compareDecimal(d, DecimalFromFloat(-limit)) >= 0
}

// Big returns the number as a big.Float of the given precision in bits.
func (d Decimal) Big(prec uint) *big.Float {
	f, _, err := big.ParseFloat(d.String(), 10, prec, big.ToNearestEven)
	if err != nil {
		return new(big.Float).SetPrec(prec)
	}
	return f
}

// Equal reports whether d and e have the same text (exactness is textual: "0.50" != "0.5").
func (d Decimal) Equal(e Decimal) bool { return d.String() == e.String() }

// SameNumber reports whether d and e are the same number however written ("0.50", "0.5",
// "5e-1"): both are read at a precision that keeps every digit of the longer, where two
// different numbers of that many digits cannot round alike.
func (d Decimal) SameNumber(e Decimal) bool {
	if d.String() == e.String() {
		return true
	}
	prec := max(d.SignificantBits(), e.SignificantBits()) + 64
	a, _, err1 := big.ParseFloat(d.String(), 10, prec, big.ToNearestEven)
	b, _, err2 := big.ParseFloat(e.String(), 10, prec, big.ToNearestEven)
	return err1 == nil && err2 == nil && !a.IsInf() && !b.IsInf() && a.Cmp(b) == 0
}

// SignificantBits estimates how many bits of mantissa the text carries, so arithmetic on it
// can keep every digit: about 3.33 bits per digit.
func (d Decimal) SignificantBits() uint {
	n := 0
	for _, c := range d.String() {
		if c == 'e' || c == 'E' {
			break
		}
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return uint(float64(n)*3.33) + 8
}
