package bookmarks

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"mandelscope/fractal"
	"mandelscope/internal/text"
)

// ParseKFR reads a Kalles Fraktaler .kfr parameter file into a bookmark with the given name.
// It uses the "Re:", "Im:", "Zoom:" and "Iterations:" lines, and "FractalType:" and "Power:"
// for the formula (kfrFormula), and ignores the others; a file whose view Mandelscope
// cannot draw as KF does (another fractal type, a turned or stretched view) is refused in a
// sentence rather than drawn as another picture. The
// centre keeps the file's digits exactly. KF's zoom means what ours does (zoom 1 shows the
// whole set with the shorter side spanning 4), so it is taken as it is; without an
// Iterations line the count follows the zoom (fractal.AutoIterations). The colouring is the
// default one: KF's colour settings do not carry over. KF writes the Windows code page, so the
// lines it ignores may hold any bytes (a title in Latin-1); the ones it reads are checked as
// decimals. A file with NUL bytes or a UTF-16 byte order mark is not a text file.
func ParseKFR(data []byte, name string) (Bookmark, error) {
	if bytes.IndexByte(data, 0) >= 0 || bytes.HasPrefix(data, []byte("\xff\xfe")) || bytes.HasPrefix(data, []byte("\xfe\xff")) {
		return Bookmark{}, errors.New("it is not a text file")
	}
	vals := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	sc.Buffer(make([]byte, 0, 64<<10), MaxFileBytes)
	line := 0
	for sc.Scan() {
		line++
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		switch k {
		case "Re", "Im", "Zoom", "Iterations", "FractalType", "Power", "RotateAngle", "StretchAmount":
			if _, dup := vals[k]; dup {
				return Bookmark{}, fmt.Errorf("line %d: %q appears twice", line, k+":")
			}
			vals[k] = strings.TrimSpace(v)
		}
	}
	if err := sc.Err(); err != nil {
		return Bookmark{}, fmt.Errorf("reading it: %v", err)
	}
	for _, k := range []string{"Re", "Im", "Zoom"} {
		if _, ok := vals[k]; !ok {
			return Bookmark{}, fmt.Errorf("it is not a Kalles Fraktaler parameter file: no %q line", k+":")
		}
	}
	l := fractal.Home()
	var err error
	if l.Re, err = fractal.ParseDecimal(vals["Re"]); err != nil {
		return Bookmark{}, fmt.Errorf("the \"Re:\" line: %v", err)
	}
	if l.Im, err = fractal.ParseDecimal(vals["Im"]); err != nil {
		return Bookmark{}, fmt.Errorf("the \"Im:\" line: %v", err)
	}
	if l.Zoom, err = fractal.ParseDecimal(vals["Zoom"]); err != nil {
		return Bookmark{}, fmt.Errorf("the \"Zoom:\" line: %v", err)
	}
	l.Iterations = l.AutoIterations() // any depth: 1E1086 too
	if it, ok := vals["Iterations"]; ok {
		n, err := strconv.Atoi(it)
		if errors.Is(err, strconv.ErrRange) {
			return Bookmark{}, fmt.Errorf("the \"Iterations:\" line: %s is out of range (1 to %d)", text.Clip(it, 40), fractal.MaxIterations)
		}
		if err != nil {
			return Bookmark{}, fmt.Errorf("the \"Iterations:\" line: %q is not a whole number", text.Clip(it, 40))
		}
		l.Iterations = n
	}
	if l.Formula, err = kfrFormula(vals); err != nil {
		return Bookmark{}, err
	}
	for _, k := range []string{"RotateAngle", "StretchAmount"} {
		if v, ok := vals[k]; ok {
			if x, err := strconv.ParseFloat(v, 64); err != nil || x != 0 {
				return Bookmark{}, fmt.Errorf("the %q line: the view is turned or stretched (%s), which Mandelscope does not read from Kalles Fraktaler's files; set it to 0 in KF and save again", k+":", text.Clip(v, 40))
			}
		}
	}
	if err := l.Validate(); err != nil {
		return Bookmark{}, err
	}
	n, err := CleanName(name)
	if err != nil {
		n = "Imported"
	}
	b := Bookmark{Name: n, Location: l}
	if err := b.check(); err != nil {
		return Bookmark{}, err
	}
	return b, nil
}

// kfrKinds are Kalles Fraktaler's fractal types that are Mandelscope's formulas (KF's
// formula definitions: type 0 z^D + c, type 1 the Burning Ship (|Re z| + i|Im z|)^D + c,
// type 4 the Mandelbar conj(z)^2 + c), with the powers each is read at.
var kfrKinds = map[int]struct {
	kind     fractal.FormulaKind
	min, max int
}{
	0: {fractal.Mandelbrot, 2, fractal.MaxPower},
	1: {fractal.BurningShip, 2, fractal.MaxPower},
	4: {fractal.Mandelbar, 2, 2},
}

// kfrFormula is the formula of a .kfr file's "FractalType:" and "Power:" lines (each 0 and
// 2 when absent), or an error naming a type or power Mandelscope does not draw.
func kfrFormula(vals map[string]string) (fractal.Formula, error) {
	typ, pow := 0, 2
	for _, f := range []struct {
		key string
		to  *int
	}{{"FractalType", &typ}, {"Power", &pow}} {
		v, ok := vals[f.key]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fractal.Formula{}, fmt.Errorf("the %q line: %q is not a whole number", f.key+":", text.Clip(v, 40))
		}
		*f.to = n
	}
	k, ok := kfrKinds[typ]
	if !ok {
		return fractal.Formula{}, fmt.Errorf("the \"FractalType:\" line: Kalles Fraktaler's fractal type %d is not one of Mandelscope's formulas (type 0, the Mandelbrot set; 1, the Burning Ship; 4, the Mandelbar)", typ)
	}
	if pow < k.min || pow > k.max {
		return fractal.Formula{}, fmt.Errorf("the \"Power:\" line: power %d of Kalles Fraktaler's fractal type %d is not one Mandelscope draws (%d to %d)", pow, typ, k.min, k.max)
	}
	return fractal.MakeFormula(k.kind, pow)
}
