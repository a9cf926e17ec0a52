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
// It uses the "Re:", "Im:", "Zoom:" and "Iterations:" lines and ignores the others. The
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
		case "Re", "Im", "Zoom", "Iterations":
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
