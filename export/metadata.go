package export

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"strconv"
	"strings"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/text"
	"mandelscope/internal/userfile"
)

// Text chunk keys written into every export.
const (
	KeyRe          = "mandelscope.re"
	KeyIm          = "mandelscope.im"
	KeyZoom        = "mandelscope.zoom"
	KeyIterations  = "mandelscope.iterations"
	KeyPalette     = "mandelscope.palette"
	KeyDensity     = "mandelscope.density"
	KeyOffset      = "mandelscope.offset"
	KeySupersample = "mandelscope.supersample"
	// The colouring beyond the palette, each written only when it is not the default (so an
	// export in the default colouring is byte for byte what it was before they existed) and
	// optional on reading (absent: the default).
	KeyColouring = "mandelscope.colouring"
	KeyTransfer  = "mandelscope.transfer"
	KeyInterior  = "mandelscope.interior"
	KeyWidth     = "mandelscope.width"
	KeyLight     = "mandelscope.light"
	KeyStrength  = "mandelscope.strength"
	// KeyGradient holds the stops of a palette that is not built in, by value
	// (colour.Coloring.Gradient), so that the image reproduces anywhere; absent for a
	// built-in palette.
	KeyGradient = "mandelscope.gradient"
	// KeyShader holds a colouring shader's text, as its file holds it (colour.Coloring.Shader:
	// ASCII GLSL, which a tEXt chunk keeps exactly), so that --from draws the picture again
	// with it; absent without one.
	KeyShader = "mandelscope.shader"
	// KeyJulia holds a Julia set's parameter c as "RE,IM", every digit
	// (fractal.JuliaParam.String, read back by fractal.ParseJulia); absent for the Mandelbrot
	// set, so that a Mandelbrot export is byte for byte what it was before Julia sets.
	KeyJulia = "mandelscope.julia"
	// KeyFormula and KeyPower hold a formula other than the Mandelbrot set's: its kind's name
	// (fractal.FormulaKind.String) and its power D, each only where it is not the default
	// (mandelbrot, 2), so that a Mandelbrot export is byte for byte what it was before formulas.
	KeyFormula = "mandelscope.formula"
	KeyPower   = "mandelscope.power"
	// KeyBailout, KeyStripeDensity and KeyStripeLast hold the orbit parameters
	// (fractal.Location.Bailout, StripeDensity, StripeLast), each only where it is not the
	// default (2, 5, 16), so that an export at the defaults is byte for byte what it was.
	KeyBailout       = "mandelscope.bailout"
	KeyStripeDensity = "mandelscope.stripe.density"
	KeyStripeLast    = "mandelscope.stripe.last"
	// KeyRotation holds a rotated view's angle in degrees (fractal.Location.Rotation), only
	// where it is not 0, so that an unrotated export is byte for byte what it was.
	KeyRotation = "mandelscope.rotation"
	KeyVersion  = "mandelscope.version"
	// KeyDensityChosen, with the value "auto", says that the density the export drew (the
	// number in KeyDensity) was chosen automatically from the view, so that opening the
	// file makes the density automatic again. It is written after the image data
	// (TrailerText), so that the file's header, which a resume and the shards compare, is the
	// one an explicit density of that number writes; absent for an explicit density.
	KeyDensityChosen = "mandelscope.density.chosen"
)

// TrailerText returns the text chunks an export writes after its image data, before IEND:
// KeyDensityChosen for a density chosen automatically (auto), none otherwise.
func TrailerText(auto bool) []Text {
	if !auto {
		return nil
	}
	return []Text{{KeyDensityChosen, "auto"}}
}

// Metadata is the view stored in a Mandelscope PNG's text chunks.
type Metadata struct {
	Location      fractal.Location
	Width, Height int // the image's size (from IHDR)
	Supersample   int
	Version       string            // the program version that wrote it
	Text          map[string]string // the text chunks read (see ReadMetadata), by key
}

// MetadataText returns the text chunks that describe an export: the location (centre digits
// exactly as given), supersampling, program version and a human Description.
func MetadataText(loc fractal.Location, width, height, supersample int, version string) []Text {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	set := "Mandelbrot set"
	if !loc.Formula.IsMandelbrot() {
		set = strings.TrimPrefix(loc.Formula.Title(), "the ")
	}
	if loc.IsJulia() {
		set = "Julia set of c = " + complexText(loc.Julia.Re, loc.Julia.Im) + ","
		if !loc.Formula.IsMandelbrot() {
			set = "Julia set of " + loc.Formula.String() + " with c = " + complexText(loc.Julia.Re, loc.Julia.Im) + ","
		}
	}
	desc := fmt.Sprintf("%s centred on %s, zoom %s, %d iterations, palette %s, %dx%d pixels",
		set, complexText(loc.Re, loc.Im), loc.Zoom, loc.Iterations, loc.Color.Palette, width, height)
	if m := loc.Color.Method; m != "" && m != colour.MethodSmooth {
		desc += ", " + m + " colouring"
	}
	if loc.Color.NeedsInterior() {
		desc += ", inside coloured by " + loc.Color.Interior
	}
	if loc.Rotation != 0 {
		desc += ", rotated " + f(loc.Rotation) + " degrees"
	}
	if supersample > 1 {
		desc += fmt.Sprintf(", %dx%d supersampled", supersample, supersample)
	}
	out := []Text{
		{"Software", "Mandelscope " + version},
		{"Description", desc},
		{KeyRe, loc.Re.String()},
		{KeyIm, loc.Im.String()},
		{KeyZoom, loc.Zoom.String()},
	}
	if loc.IsJulia() {
		out = append(out, Text{KeyJulia, loc.Julia.String()})
	}
	if loc.Formula.Kind != fractal.Mandelbrot {
		out = append(out, Text{KeyFormula, loc.Formula.Kind.String()})
	}
	if d := loc.Formula.Power(); d != 2 {
		out = append(out, Text{KeyPower, strconv.Itoa(d)})
	}
	if loc.Bailout != 0 {
		out = append(out, Text{KeyBailout, f(loc.Bailout)})
	}
	if loc.StripeDensity != 0 {
		out = append(out, Text{KeyStripeDensity, strconv.Itoa(loc.StripeDensity)})
	}
	if loc.StripeLast != 0 {
		out = append(out, Text{KeyStripeLast, strconv.Itoa(loc.StripeLast)})
	}
	if loc.Rotation != 0 {
		out = append(out, Text{KeyRotation, f(loc.Rotation)})
	}
	out = append(out, []Text{
		{KeyIterations, strconv.Itoa(loc.Iterations)},
		{KeyPalette, loc.Color.Palette},
		{KeyDensity, loc.Color.DensityText()}, // an export's is resolved: a number
		{KeyOffset, f(loc.Color.Offset)},
		{KeySupersample, strconv.Itoa(supersample)},
		{KeyVersion, version},
	}...)
	c := loc.Color
	for _, t := range []Text{{KeyColouring, c.Method}, {KeyTransfer, c.Transfer}, {KeyInterior, c.Interior}, {KeyGradient, c.Gradient}, {KeyShader, c.Shader}} {
		if t.Value != "" {
			out = append(out, t)
		}
	}
	for _, t := range []struct {
		k string
		v float64
	}{{KeyWidth, c.Width}, {KeyLight, c.Light}, {KeyStrength, c.Strength}} {
		if t.v != 0 {
			out = append(out, Text{t.k, f(t.v)})
		}
	}
	return out
}

// complexText is re + im i for a description: each part clipped to 30 characters, the sign of
// the imaginary part spaced ("-0.8 + 0.156i").
func complexText(re, im fractal.Decimal) string {
	s := text.Clip(im.String(), 30)
	switch {
	case strings.HasPrefix(s, "-"):
		s = "- " + s[1:]
	case strings.HasPrefix(s, "+"):
		s = "+ " + s[1:]
	default:
		s = "+ " + s
	}
	return text.Clip(re.String(), 30) + " " + s + "i"
}

// ErrNotPNG and ErrNotMandelscope are the errors ReadMetadata wraps for files that are not
// PNGs and PNGs without Mandelscope's text chunks.
var (
	ErrNotPNG         = errors.New("not a PNG file")
	ErrNotMandelscope = errors.New("not a Mandelscope PNG (it has no mandelscope.* text chunks)")
)

// Limits of what ReadMetadata reads from a file: it keeps only the text chunks it needs (the
// mandelscope.* keys, Software and Description), each at most maxTextChunk bytes and each key
// once, seeks past every other chunk without reading it, and gives up after maxChunks
// chunks before the image data.
const (
	maxTextChunk = 64 << 10
	maxChunks    = 1000
)

// metadataKeys are the text chunks ReadMetadata keeps.
var metadataKeys = map[string]bool{
	KeyRe: true, KeyIm: true, KeyZoom: true, KeyIterations: true, KeyPalette: true, KeyDensity: true,
	KeyOffset: true, KeySupersample: true, KeyVersion: true, "Software": true, "Description": true,
	KeyColouring: true, KeyTransfer: true, KeyInterior: true, KeyWidth: true, KeyLight: true, KeyStrength: true,
	KeyGradient: true, KeyShader: true, KeyDensityChosen: true, KeyJulia: true, KeyFormula: true, KeyPower: true,
	KeyBailout: true, KeyStripeDensity: true, KeyStripeLast: true, KeyRotation: true,
}

// ReadMetadata reads the text chunks of a PNG written by Export back into a location, size
// and supersampling (the chunks before the image data, and the one after it that says the
// density was chosen automatically, read from the file's end: see readTrailer) (or, from a
// raw file (OpenEXR, see Options.Raw), its header's
// attributes, validated as OpenRaw validates them), all validated as the command line's flags are (fractal.Location.Validate,
// each side 1 to MaxSide, whole numbers where whole numbers belong). Errors wrap ErrNotPNG or
// ErrNotMandelscope where they apply. The file is opened without blocking and must be a
// regular file (userfile.Open: a named pipe is refused, not waited on).
func ReadMetadata(path string) (Metadata, error) {
	f, err := userfile.Open(path)
	if err != nil {
		return Metadata{}, err
	}
	defer f.Close()
	var magic [4]byte
	if n, _ := f.ReadAt(magic[:], 0); n == 4 && string(magic[:]) == exrMagic {
		st, err := f.Stat()
		if err != nil {
			return Metadata{}, err
		}
		r, err := readRaw(f, st.Size())
		if err != nil {
			return Metadata{}, fmt.Errorf("%s: %w", path, err)
		}
		return r.Metadata, nil
	}
	md, err := readMetadata(f)
	if err != nil {
		return md, fmt.Errorf("%s: %w", path, err)
	}
	return md, nil
}

func readMetadata(r io.ReadSeeker) (Metadata, error) {
	var md Metadata
	var sig [8]byte
	if _, err := io.ReadFull(r, sig[:]); err != nil || string(sig[:]) != pngSignature {
		return md, ErrNotPNG
	}
	md.Text = map[string]string{}
	var hdr [8]byte
	var stop int64 // where the chunks read end: the image data (or IEND)
	var err error
	for i := 0; ; i++ {
		if i == maxChunks {
			return md, fmt.Errorf("more than %d chunks before the image data", maxChunks)
		}
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return md, fmt.Errorf("%w: truncated chunk header", ErrNotPNG)
		}
		n := int64(binary.BigEndian.Uint32(hdr[:4]))
		typ := string(hdr[4:8])
		if i == 0 && (typ != "IHDR" || n != 13) {
			return md, fmt.Errorf("%w: it does not start with IHDR", ErrNotPNG)
		}
		if typ == "IDAT" || typ == "IEND" {
			if stop, err = r.Seek(-8, io.SeekCurrent); err != nil {
				return md, fmt.Errorf("%w: %v", ErrNotPNG, err)
			}
			break
		}
		if n > 1<<31-1 {
			return md, fmt.Errorf("%w: chunk length out of range", ErrNotPNG)
		}
		need := typ == "IHDR"
		if typ == "tEXt" || typ == "iTXt" {
			// The key comes first; read just enough of it to decide.
			key, err := peekKey(r, n)
			if err != nil {
				return md, fmt.Errorf("%w: truncated %s chunk", ErrNotPNG, typ)
			}
			need = metadataKeys[key]
			if !need && isOurKey(key) {
				return md, unknownKeyError(key)
			}
			if need && n > maxTextChunk {
				return md, fmt.Errorf("%s chunk %q of %d bytes is too large", typ, key, n)
			}
			if need {
				if _, dup := md.Text[key]; dup {
					return md, fmt.Errorf("the %s text chunk appears twice", key)
				}
			}
		}
		if !need {
			if _, err := r.Seek(n+4, io.SeekCurrent); err != nil {
				return md, fmt.Errorf("%w: truncated %s chunk", ErrNotPNG, typ)
			}
			continue
		}
		data := make([]byte, n+4)
		if _, err := io.ReadFull(r, data); err != nil {
			return md, fmt.Errorf("%w: truncated %s chunk", ErrNotPNG, typ)
		}
		crc := crc32.NewIEEE()
		crc.Write(hdr[4:8])
		crc.Write(data[:n])
		if crc.Sum32() != binary.BigEndian.Uint32(data[n:]) {
			return md, fmt.Errorf("%s chunk has a bad CRC (the file is damaged)", typ)
		}
		data = data[:n]
		switch typ {
		case "IHDR":
			md.Width = int(binary.BigEndian.Uint32(data[0:]))
			md.Height = int(binary.BigEndian.Uint32(data[4:]))
		case "tEXt":
			if k, v, ok := bytes.Cut(data, []byte{0}); ok {
				md.Text[string(k)] = string(v)
			}
		case "iTXt":
			// key \0 compression-flag method lang \0 translated-key \0 text; uncompressed only.
			if k, rest, ok := bytes.Cut(data, []byte{0}); ok && len(rest) >= 2 && rest[0] == 0 {
				if _, rest, ok := bytes.Cut(rest[2:], []byte{0}); ok {
					if _, text, ok := bytes.Cut(rest, []byte{0}); ok {
						md.Text[string(k)] = string(text)
					}
				}
			}
		}
	}
	if err := readTrailer(r, stop, &md); err != nil {
		return md, err
	}
	return md, md.parse()
}

// readTrailer reads the chunks after the image data, from stop (where the first IDAT
// chunk's header starts), seeking past the image data: the only text chunk of ours there is
// the one that says the density was chosen automatically (written when the image was
// done). Any other mandelscope.* text chunk after the image data, or a second one of any,
// is refused: a reader that kept only the chunks before the image data would show another
// view than one that read them all. A file cut short there (no IEND) is read as far as it
// goes.
func readTrailer(r io.ReadSeeker, stop int64, md *Metadata) error {
	if _, err := r.Seek(stop, io.SeekStart); err != nil {
		return fmt.Errorf("%w: %v", ErrNotPNG, err)
	}
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return nil
		}
		n := int64(binary.BigEndian.Uint32(hdr[:4]))
		typ := string(hdr[4:8])
		if typ == "IEND" || n > 1<<31-1 {
			return nil
		}
		if typ == "tEXt" || typ == "iTXt" || typ == "zTXt" {
			key, err := peekKey(r, n)
			if err != nil {
				return nil
			}
			if isOurKey(key) {
				if key != KeyDensityChosen {
					if metadataKeys[key] {
						return fmt.Errorf("the %s text chunk comes after the image data, where Mandelscope writes none (the file was changed)", text.Clip(key, 40))
					}
					return unknownKeyError(key)
				}
				if _, dup := md.Text[key]; dup {
					return fmt.Errorf("the %s text chunk appears twice", key)
				}
				if typ != "tEXt" || n > 256 {
					return fmt.Errorf("the %s chunk is not the short tEXt chunk Mandelscope writes", key)
				}
				data := make([]byte, n+4)
				if _, err := io.ReadFull(r, data); err != nil {
					return nil
				}
				crc := crc32.NewIEEE()
				crc.Write(hdr[4:8])
				crc.Write(data[:n])
				if crc.Sum32() != binary.BigEndian.Uint32(data[n:]) {
					return errors.New("tEXt chunk has a bad CRC (the file is damaged)")
				}
				md.Text[key] = string(data[len(key)+1 : n])
				continue
			}
		}
		if _, err := r.Seek(n+4, io.SeekCurrent); err != nil {
			return nil
		}
	}
}

// isOurKey reports whether a text chunk's or attribute's key is in Mandelscope's namespace
// (mandelscope., in any case).
func isOurKey(key string) bool {
	const prefix = "mandelscope."
	return len(key) >= len(prefix) && strings.EqualFold(key[:len(prefix)], prefix)
}

// unknownKeyError refuses a key of ours that this version does not read: ignoring it would
// draw another view than the file describes (a Julia set's parameter misspelt, read as the
// Mandelbrot set), so the file is refused with a sentence naming it.
func unknownKeyError(key string) error {
	return fmt.Errorf("%q is not a key this version reads (keys are spelt exactly, in lower case: mandelscope.julia, ...); the file was changed or is a newer version's", text.Clip(key, 40))
}

// peekKey reads the key of a text chunk of n bytes (up to its NUL, at most 79 bytes) and
// seeks back to the chunk's start.
func peekKey(r io.ReadSeeker, n int64) (string, error) {
	var buf [80]byte
	m := min(n, int64(len(buf)))
	if _, err := io.ReadFull(r, buf[:m]); err != nil {
		return "", err
	}
	if _, err := r.Seek(-m, io.SeekCurrent); err != nil {
		return "", err
	}
	k, _, _ := bytes.Cut(buf[:m], []byte{0})
	return string(k), nil
}

// parse reads the view, its supersampling and version from md.Text into md, validated; the
// first value missing or malformed is the error.
func (md *Metadata) parse() error {
	if _, ok := md.Text[KeyRe]; !ok {
		return ErrNotMandelscope
	}
	loc := fractal.Home()
	r := &textReader{text: md.Text}
	r.dec(KeyRe, &loc.Re)
	r.dec(KeyIm, &loc.Im)
	r.dec(KeyZoom, &loc.Zoom)
	r.whole(KeyIterations, &loc.Iterations)
	if v, ok := md.Text[KeyJulia]; ok { // absent: the Mandelbrot set
		j, err := fractal.ParseJulia(v)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s: %v", KeyJulia, err))
		}
		loc.Julia = j
	}
	if v, ok := md.Text[KeyFormula]; ok { // absent: mandelbrot
		k, err := fractal.ParseFormulaKind(v)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s: %v", KeyFormula, err))
		}
		loc.Formula.Kind = k
	}
	if v, ok := md.Text[KeyPower]; ok { // absent: 2
		d, err := fractal.ParsePower(v)
		if err == nil {
			loc.Formula, err = loc.Formula.WithPower(d)
		}
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s: %v", KeyPower, err))
		}
	}
	for _, o := range []struct {
		key   string
		parse func(string) error
	}{
		{KeyBailout, func(v string) (err error) { loc.Bailout, err = fractal.ParseBailout(v); return err }},
		{KeyStripeDensity, func(v string) (err error) { loc.StripeDensity, err = fractal.ParseStripeDensity(v); return err }},
		{KeyStripeLast, func(v string) (err error) { loc.StripeLast, err = fractal.ParseStripeLast(v); return err }},
		{KeyRotation, func(v string) (err error) { loc.Rotation, err = fractal.ParseRotation(v); return err }},
	} {
		if v, ok := md.Text[o.key]; ok { // absent: the default
			if err := o.parse(v); err != nil {
				r.errs = append(r.errs, fmt.Errorf("%s: %v", o.key, err))
			}
		}
	}
	// A number (every export records the density it drew), or auto (a location whose
	// density was never resolved: its text form).
	// A number with KeyDensityChosen "auto" (written after the image data) is a density
	// chosen automatically: automatic again, starting from the number drawn.
	if v, ok := md.Text[KeyDensity]; ok && strings.EqualFold(v, "auto") {
		loc.Color.Density, loc.Color.AutoDensity = 1, true
	} else {
		r.num(KeyDensity, &loc.Color.Density)
		loc.Color.AutoDensity = false
	}
	if v, ok := md.Text[KeyDensityChosen]; ok {
		if strings.EqualFold(v, "auto") {
			loc.Color.AutoDensity = true
		} else {
			r.errs = append(r.errs, fmt.Errorf("%s: %q is not auto", KeyDensityChosen, text.Clip(v, 40)))
		}
	}
	r.num(KeyOffset, &loc.Color.Offset)
	md.Supersample = 1
	if _, ok := md.Text[KeySupersample]; ok {
		r.whole(KeySupersample, &md.Supersample)
	}
	if p, err := r.get(KeyPalette); err == nil {
		loc.Color.Palette = p
	} else {
		r.errs = append(r.errs, err)
	}
	r.colouring(&loc)
	loc.Color = loc.Color.Canonical()
	if len(r.errs) > 0 {
		return r.errs[0]
	}
	md.Version = md.Text[KeyVersion]
	if err := loc.Validate(); err != nil {
		return fmt.Errorf("stored location: %v", err)
	}
	if md.Supersample < 1 || md.Supersample > MaxSupersample {
		return fmt.Errorf("stored supersampling %d is out of range (1 to %d)", md.Supersample, MaxSupersample)
	}
	if err := checkSize(md.Width, md.Height); err != nil {
		return fmt.Errorf("image size: %v", err)
	}
	md.Location = loc
	return nil
}

// colouring reads the colouring's optional keys into loc: absent is the default (files
// written before them).
func (r *textReader) colouring(loc *fractal.Location) {
	if v, ok := r.text[KeyColouring]; ok {
		loc.Color.Method = v
	}
	if v, ok := r.text[KeyTransfer]; ok {
		loc.Color.Transfer = v
	}
	if v, ok := r.text[KeyInterior]; ok {
		loc.Color.Interior = v
	}
	if v, ok := r.text[KeyGradient]; ok {
		loc.Color.Gradient = v
	}
	if v, ok := r.text[KeyShader]; ok {
		loc.Color.Shader = v // checked with the location (colour.ValidateShader)
	}
	for _, o := range []struct {
		k string
		x *float64
	}{{KeyWidth, &loc.Color.Width}, {KeyLight, &loc.Color.Light}, {KeyStrength, &loc.Color.Strength}} {
		if _, ok := r.text[o.k]; ok {
			r.num(o.k, o.x)
		}
	}
}

// textReader reads values from a file's text chunks; an error, naming the key, is added to
// errs and the reading goes on (the first is the one reported).
type textReader struct {
	text map[string]string
	errs []error
}

// get is key k's text; its absence is an error.
func (r *textReader) get(k string) (string, error) {
	v, ok := r.text[k]
	if !ok {
		return "", fmt.Errorf("the Mandelscope PNG is missing the %s text chunk", k)
	}
	return v, nil
}

// dec reads key k as a decimal into d.
func (r *textReader) dec(k string, d *fractal.Decimal) {
	v, err := r.get(k)
	if err == nil {
		*d, err = fractal.ParseDecimal(v)
	}
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %v", k, err))
	}
}

// num reads key k as a finite number into x.
func (r *textReader) num(k string, x *float64) {
	v, err := r.get(k)
	if err == nil {
		*x, err = strconv.ParseFloat(v, 64)
		if err == nil && (math.IsNaN(*x) || math.IsInf(*x, 0)) {
			err = fmt.Errorf("%q is not a finite number", text.Clip(v, 40))
		} else if err != nil {
			err = fmt.Errorf("%q is not a number", text.Clip(v, 40))
		}
	}
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %v", k, err))
	}
}

// whole reads key k as a whole number into x.
func (r *textReader) whole(k string, x *int) {
	v, err := r.get(k)
	if err == nil {
		*x, err = strconv.Atoi(v)
		if err != nil {
			err = fmt.Errorf("%q is not a whole number", text.Clip(v, 40))
		}
	}
	if err != nil {
		r.errs = append(r.errs, fmt.Errorf("%s: %v", k, err))
	}
}
