package colour

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"sort"
	"strconv"
	"strings"
)

// Palettes of other programs, read as gradients (ParsePaletteFile): Fractint's .map, Ultra
// Fractal's .ugr (any number of gradients) and, through ParseGradient, Kalles Fraktaler's
// .kfr/.kfp. Like ParseGradient's, their data is hostile until checked, and an error is one
// line naming the line (and, in a .ugr, the gradient) and what is wrong, never quoting the
// file's text.

// Limits of the palette files of other programs.
const (
	// MaxPaletteFileBytes bounds a .ugr file: Ultra Fractal keeps a whole library of
	// gradients in one, each a few KiB. The other formats are bounded by MaxGradientBytes.
	MaxPaletteFileBytes = 4 << 20
	// MaxPaletteGradients bounds the gradients of one .ugr file.
	MaxPaletteGradients = 1000
	// UGRIndices is the length of Ultra Fractal's gradient: a stop's index runs over 0 to
	// UGRIndices-1, and an index outside is taken around the cycle.
	UGRIndices = 400
	// maxPaletteName bounds the name a .ugr gives a gradient as it is kept (it is made a
	// gradient name, of at most MaxGradientName bytes, by the caller).
	maxPaletteName = 256
	// maxWord bounds a word of a .ugr entry's body as it is kept (see entryBody).
	maxWord = 64
)

// NamedGradient is a gradient read from a palette file, with the name the file gives it
// ("" for a format that holds one gradient and names none: the file's name is its name) and
// the line where it starts.
type NamedGradient struct {
	Name     string
	Line     int
	Gradient Gradient
}

// ParsePaletteFile reads the palette file data by its extension ext (".map", ".ugr",
// anything else a gradient file or a Kalles Fraktaler file: ParseGradient; in any case): one
// gradient or, from a .ugr, every gradient it holds, in the file's order.
func ParsePaletteFile(ext string, data []byte) ([]NamedGradient, error) {
	switch strings.ToLower(ext) {
	case ".map":
		g, err := ParseFractintMap(data)
		if err != nil {
			return nil, err
		}
		return []NamedGradient{{Line: 1, Gradient: g}}, nil
	case ".ugr":
		return ParseUGR(data)
	}
	g, err := ParseGradient(data)
	if err != nil {
		return nil, err
	}
	return []NamedGradient{{Line: 1, Gradient: g}}, nil
}

// textLines checks that data is a text file of at most limit bytes (no NUL bytes; any
// encoding, since other programs write their code page) and splits it into lines (LF, CRLF
// or a lone CR).
func textLines(data []byte, limit int) ([]string, error) {
	if len(data) > limit {
		return nil, fmt.Errorf("the file is %d bytes, more than the %d a palette file may have", len(data), limit)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the file is empty")
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return nil, errors.New("it is not a text file (it holds NUL bytes)")
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.Split(strings.ReplaceAll(text, "\r", "\n"), "\n"), nil
}

// A Fractint map (.map) is text, one colour a line, "R G B" (whole numbers from 0 to 255)
// and anything after the third number a comment; at most 256 lines of colours (Fractint's
// palette), fewer allowed. Blank lines and lines starting with ';' or '#' are skipped. The
// colours are equally spaced stops, in the file's order.

// ParseFractintMap reads a Fractint .map file (see above), checked as ParseGradient checks
// a gradient file.
func ParseFractintMap(data []byte) (Gradient, error) {
	lines, err := textLines(data, MaxGradientBytes)
	if err != nil {
		return Gradient{}, err
	}
	var g Gradient
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 || f[0][0] == ';' || f[0][0] == '#' {
			continue
		}
		if len(g.Stops) == MaxStops {
			return Gradient{}, fmt.Errorf("line %d: more than %d colours (a Fractint map holds at most %d)", i+1, MaxStops, MaxStops)
		}
		if len(f) < 3 {
			return Gradient{}, fmt.Errorf("line %d: not a colour (three whole numbers R G B from 0 to 255)", i+1)
		}
		var rgb [3]uint8
		for j, name := range []string{"red", "green", "blue"} {
			v, err := byteValue(f[j])
			if err != nil {
				return Gradient{}, fmt.Errorf("line %d: the %s value %v", i+1, name, err)
			}
			rgb[j] = v
		}
		g.Stops = append(g.Stops, color.RGBA{rgb[0], rgb[1], rgb[2], 255})
	}
	if err := g.check(); err != nil {
		return Gradient{}, err
	}
	return g, nil
}

// byteValue reads a whole number from 0 to 255. Its error says what is wrong without
// quoting s unless s is a number (which says what is out of range).
func byteValue(s string) (uint8, error) {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return 0, errors.New("is not a whole number from 0 to 255")
	case n < 0 || n > 255:
		return 0, fmt.Errorf("%d is outside 0 to 255", n)
	}
	return uint8(n), nil
}

// An Ultra Fractal gradient file (.ugr) holds entries "NAME { ... }", each a gradient:
//
//	Sunset {
//	gradient:
//	  title="Sunset" smooth=no index=0 color=3947546 index=200 color=4214848
//	opacity:
//	  smooth=no index=0 opacity=255
//	}
//
// In its "gradient:" section each "index=N color=C" pair is a stop: C is the colour as a
// decimal number packed as blue, green, red (red = C & 255, green = C>>8 & 255, blue = C>>16
// & 255), N its place over 0 to 399 (UGRIndices; another index is taken around the cycle);
// the other settings (title, smooth, rotation, ...) and the other sections (opacity:) are
// skipped. Quoted values may hold braces. An entry named "comment" (as Ultra Fractal's
// comment blocks are) holds no gradient and is skipped. An entry with no colours, one left
// open or a brace without its pair is an error.

// ParseUGR reads every gradient of an Ultra Fractal .ugr file (see above), each with the
// name its entry gives it, in the file's order. A gradient of one stop is that colour
// throughout (two stops of it).
func ParseUGR(data []byte) ([]NamedGradient, error) {
	lines, err := textLines(data, MaxPaletteFileBytes)
	if err != nil {
		return nil, err
	}
	p := ugrParser{text: strings.Join(lines, "\n"), line: 1}
	var out []NamedGradient
	for {
		name, start, ok, err := p.entryName()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if len(out) == MaxPaletteGradients {
			return nil, fmt.Errorf("line %d: more than %d gradients in one file", start, MaxPaletteGradients)
		}
		body, err := p.entryBody(len(out)+1, start)
		if err != nil {
			return nil, err
		}
		if strings.EqualFold(name, "comment") {
			continue
		}
		g, err := ugrGradient(body, len(out)+1, start)
		if err != nil {
			return nil, err
		}
		out = append(out, NamedGradient{Name: name, Line: start, Gradient: g})
	}
	if len(out) == 0 {
		return nil, errors.New("it holds no gradient (NAME { gradient: index=N color=C ... })")
	}
	return out, nil
}

// ugrParser walks a .ugr file's text, counting lines.
type ugrParser struct {
	text string
	i    int
	line int
}

// ugrToken is a word of an entry's body and its line.
type ugrToken struct {
	s    string
	line int
}

// entryName reads up to and past the next entry's '{': its name (cut to maxPaletteName
// bytes) and line; ok is false at the end of the text.
func (p *ugrParser) entryName() (name string, line int, ok bool, err error) {
	var b strings.Builder // the name, from its first non-blank character
	for ; p.i < len(p.text); p.i++ {
		c := p.text[p.i]
		switch {
		case c == '{':
			p.i++
			name = strings.TrimSpace(b.String())
			if name == "" {
				return "", 0, false, fmt.Errorf("line %d: a '{' with no gradient's name before it", p.line)
			}
			return name, line, true, nil
		case c == '}':
			return "", 0, false, fmt.Errorf("line %d: a '}' with no '{' before it (the braces do not pair)", p.line)
		case c == '\n':
			if b.Len() > 0 {
				return "", 0, false, fmt.Errorf("line %d: text outside a gradient (NAME { ... })", p.line)
			}
			p.line++
		case b.Len() == 0 && (c == ' ' || c == '\t'):
		case b.Len() == 0 && c == ';':
			for p.i+1 < len(p.text) && p.text[p.i+1] != '\n' {
				p.i++ // a comment line between entries
			}
		default:
			if b.Len() == 0 {
				line = p.line
			}
			if b.Len() < maxPaletteName {
				b.WriteByte(c)
			}
		}
	}
	if b.Len() > 0 {
		return "", 0, false, fmt.Errorf("line %d: text outside a gradient (NAME { ... })", p.line)
	}
	return "", 0, false, nil
}

// entryBody reads the body of gradient number k (which starts at line start) up to and past
// its '}', as words: runs of non-blank characters, a quoted value ("...", which may hold
// blanks and braces) kept within its word.
func (p *ugrParser) entryBody(k, start int) ([]ugrToken, error) {
	var toks []ugrToken
	var cur []byte
	curLine, quoted := 0, false
	// add appends c to the word w, up to maxWord bytes: no setting this reads is longer, and
	// a longer word ends in a NUL (which no file holds: textLines refuses it), so that it is
	// not a number and cannot pass for a shorter one.
	add := func(w []byte, c byte) []byte {
		switch {
		case len(w) < maxWord:
			return append(w, c)
		case len(w) == maxWord:
			return append(w, 0)
		}
		return w
	}
	flush := func() {
		if len(cur) > 0 {
			toks = append(toks, ugrToken{string(cur), curLine})
			cur = cur[:0]
		}
	}
	for ; p.i < len(p.text); p.i++ {
		c := p.text[p.i]
		if c == '\n' {
			if quoted {
				return nil, fmt.Errorf("line %d: gradient %d: a quoted value is not closed on its line", p.line, k)
			}
			flush()
			p.line++
			continue
		}
		if quoted {
			quoted = c != '"'
			cur = add(cur, c)
			continue
		}
		switch c {
		case '"':
			quoted = true
		case '{':
			return nil, fmt.Errorf("line %d: gradient %d (line %d): a '{' inside it (the braces do not pair)", p.line, k, start)
		case '}':
			flush()
			p.i++
			return toks, nil
		case ' ', '\t', '\f', '\v':
			flush()
			continue
		}
		if len(cur) == 0 {
			curLine = p.line
		}
		cur = add(cur, c)
	}
	return nil, fmt.Errorf("gradient %d (line %d): no '}' closes it (the braces do not pair)", k, start)
}

// ugrStop is a stop of a .ugr gradient: its index (around the cycle, 0 to UGRIndices-1),
// its colour and its order in the file.
type ugrStop struct {
	index int
	c     color.RGBA
}

// ugrGradient makes gradient number k (starting at line start) from its body's words.
func ugrGradient(body []ugrToken, k, start int) (Gradient, error) {
	section := "gradient"
	var stops []ugrStop
	index, haveIndex, indexLine := 0, false, 0
	for _, t := range body {
		if strings.HasSuffix(t.s, ":") && !strings.Contains(t.s, "=") {
			if haveIndex && section == "gradient" {
				return Gradient{}, fmt.Errorf("line %d: gradient %d: an index with no color after it", indexLine, k)
			}
			section, haveIndex = strings.ToLower(strings.TrimSuffix(t.s, ":")), false
			continue
		}
		if section != "gradient" {
			continue
		}
		key, val, _ := strings.Cut(t.s, "=")
		switch strings.ToLower(key) {
		case "index":
			if haveIndex {
				return Gradient{}, fmt.Errorf("line %d: gradient %d: an index with no color after it", indexLine, k)
			}
			n, err := strconv.ParseInt(val, 10, 32)
			if err != nil {
				return Gradient{}, fmt.Errorf("line %d: gradient %d: an index that is not a whole number", t.line, k)
			}
			index, haveIndex, indexLine = int(n), true, t.line
		case "color", "colour":
			if !haveIndex {
				return Gradient{}, fmt.Errorf("line %d: gradient %d: a color with no index before it", t.line, k)
			}
			haveIndex = false
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n < 0 || n > 0xFFFFFF {
				return Gradient{}, fmt.Errorf("line %d: gradient %d: a color that is not a whole number from 0 to 16777215 (blue, green, red)", t.line, k)
			}
			if len(stops) == MaxStops {
				return Gradient{}, fmt.Errorf("line %d: gradient %d: more than %d colours", t.line, k, MaxStops)
			}
			i := index % UGRIndices
			if i < 0 {
				i += UGRIndices
			}
			stops = append(stops, ugrStop{i, color.RGBA{uint8(n), uint8(n >> 8), uint8(n >> 16), 255}})
		}
	}
	if haveIndex {
		return Gradient{}, fmt.Errorf("line %d: gradient %d: an index with no color after it", indexLine, k)
	}
	if len(stops) == 0 {
		return Gradient{}, fmt.Errorf("gradient %d (line %d): no colours (index=N color=C in its gradient: section)", k, start)
	}
	sort.SliceStable(stops, func(a, b int) bool { return stops[a].index < stops[b].index })
	if len(stops) == 1 {
		stops = append(stops, stops[0])
	}
	g := Gradient{Stops: make([]color.RGBA, len(stops)), Pos: make([]float64, len(stops))}
	for i, s := range stops {
		g.Stops[i], g.Pos[i] = s.c, float64(s.index)/UGRIndices
	}
	if err := g.check(); err != nil {
		return Gradient{}, fmt.Errorf("gradient %d (line %d): %v", k, start, err)
	}
	return g, nil
}
