// Package bookmarks keeps Mandelscope's named places: a human-readable JSON file of
// bookmarks (exact decimal centre, zoom, iterations, colouring, a Julia set's parameter, times and a small PNG
// thumbnail), read and written safely by the window and the command line at the same time,
// the import of bookmarks files and Kalles Fraktaler .kfr parameter files, and export. It
// imports neither Fyne nor OpenGL.
//
// Every change to the file is "lock, re-read, change, write atomically" (see Update): an
// exclusive lock on bookmarks.json.lock (flock on Unix, LockFileEx on Windows), the file read
// afresh, the change applied, the new text written to a temporary file in the same folder,
// synced and renamed over the old one, whose previous text is kept as bookmarks.json.bak. A
// file that cannot be read is never overwritten: every operation that reads it fails with a
// *DamagedError naming the file; nor is a file its owner made read-only (*ReadOnlyError).
// Everything read from a file is checked before use: locations by fractal.Location.Validate,
// thumbnails' sizes before they are decoded (DecodeThumbnail).
package bookmarks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/internal/text"
)

// FormatName is the value of the "format" field that marks a Mandelscope bookmarks file.
const FormatName = "mandelscope-bookmarks"

// FormatVersion is the newest version of the file format this package writes; files with a
// higher version are refused rather than misread. Version 2 added the colouring fields
// (colouring, transfer, width, light, strength, each absent when it is the default); a file
// whose bookmarks use none of them is written as version 1, which older Mandelscopes read.
// Version 3 added "gradient", a gradient's stops by value (colour.Coloring.Gradient, absent
// for a built-in palette); a file is written as version 3 only when a bookmark has one.
// Version 4 added "densityAuto" (true: the density is automatic, colour.Coloring.AutoDensity,
// chosen from the view when it is drawn; "density" is then the number it was drawn with
// last); a file is written as version 4 only when a bookmark has it.
// Version 5 added "julia", the parameter of a Julia set's view as {"re": RE, "im": IM}, exact
// decimal text (fractal.Location.Julia; absent for the Mandelbrot set); a file is written as
// version 5 only when a bookmark has it.
// Version 6 added "formula" (a formula kind's name other than mandelbrot,
// fractal.FormulaKind.String) and "power" (a power other than 2), absent for the defaults
// (fractal.Location.Formula); a file is written as version 6 only when a bookmark has one.
// Version 7 added "shader", a colouring shader's text (colour.Coloring.Shader, absent without
// one), and "bailout", "stripeDensity" and "stripeLast" (fractal.Location.Bailout,
// StripeDensity, StripeLast), absent for the defaults (2, 5, 16); a file is written as version 7
// only when a bookmark has one of them.
// Version 8 added "rotation", a rotated view's angle in degrees, -180 to 180
// (fractal.Location.Rotation, counter-clockwise; absent at 0); a file is written as version 8 only when a
// bookmark has one.
const FormatVersion = 8

// MaxNameLength is the longest bookmark name, in characters.
const MaxNameLength = 200

// MaxThumbnailBytes bounds a thumbnail's PNG data.
const MaxThumbnailBytes = 1 << 20

// MaxThumbnailSide bounds a thumbnail's width and height in pixels (thumbnails made here are
// 96x54), so that decoding one takes at most 256 KiB whatever its PNG data says.
const MaxThumbnailSide = 256

// Bookmark is a named location.
type Bookmark struct {
	Name     string
	Location fractal.Location
	// Created and Updated are when the bookmark was made and last changed.
	Created, Updated time.Time
	// Thumbnail is a small PNG picture of the view; it may be empty.
	Thumbnail []byte
}

// Store is the set of bookmarks of one file, in the file's order. Its zero value is an empty
// store. Its methods change it in memory only; Update and the functions built on it write
// the changes to disk. Looking a name up takes constant time, so that reading, adding to and
// importing into a file of any size takes time in proportion to its size. Methods that only
// read it (Len, List, Names, Get, Index, UniqueName, Subset, Marshal) may run at the same time.
type Store struct {
	list []Bookmark
	// byName maps each name to its position in list; nil in a store made by a literal, where
	// index falls back to a scan until the first change builds it.
	byName map[string]int
}

// push appends b, whose name must be free, keeping byName current.
func (s *Store) push(b Bookmark) {
	s.list = append(s.list, b)
	if s.byName == nil {
		s.reindex()
		return
	}
	s.byName[b.Name] = len(s.list) - 1
}

// reindex rebuilds byName from list, after a change that moves positions.
func (s *Store) reindex() {
	s.byName = make(map[string]int, len(s.list))
	for i, b := range s.list {
		s.byName[b.Name] = i
	}
}

// Len returns the number of bookmarks.
func (s *Store) Len() int { return len(s.list) }

// List returns a copy of the bookmarks in the file's order.
func (s *Store) List() []Bookmark {
	out := make([]Bookmark, len(s.list))
	copy(out, s.list)
	return out
}

// Names returns the bookmarks' names in the file's order.
func (s *Store) Names() []string {
	out := make([]string, len(s.list))
	for i, b := range s.list {
		out[i] = b.Name
	}
	return out
}

func (s *Store) index(name string) int {
	if s.byName != nil {
		if i, ok := s.byName[name]; ok {
			return i
		}
		return -1
	}
	for i, b := range s.list {
		if b.Name == name {
			return i
		}
	}
	return -1
}

// Get returns the bookmark with this name (compared after trimming spaces).
func (s *Store) Get(name string) (Bookmark, bool) {
	i := s.index(strings.TrimSpace(name))
	if i < 0 {
		return Bookmark{}, false
	}
	return s.list[i], true
}

// CleanName trims a name and checks it: not empty, at most MaxNameLength characters,
// valid UTF-8 and no control characters. It returns the trimmed name.
func CleanName(name string) (string, error) {
	n := strings.TrimSpace(name)
	if n == "" {
		return "", errors.New("bookmark name is empty")
	}
	if !utf8.ValidString(n) {
		return "", fmt.Errorf("bookmark name %q is not valid UTF-8", text.Clip(n, 40))
	}
	if c := utf8.RuneCountInString(n); c > MaxNameLength {
		return "", fmt.Errorf("bookmark name has %d characters, more than the %d allowed", c, MaxNameLength)
	}
	for _, r := range n {
		if unicode.IsControl(r) {
			return "", fmt.Errorf("bookmark name %q contains a control character", text.Clip(n, 40))
		}
	}
	return n, nil
}

// check cleans b's name and validates the rest of it; errors name the bookmark.
func (b *Bookmark) check() error {
	n, err := CleanName(b.Name)
	if err != nil {
		return err
	}
	b.Name = n
	if err := b.checkValues(); err != nil {
		return fmt.Errorf("bookmark %q: %v", text.Clip(n, 40), err)
	}
	return nil
}

// checkValues validates b's location and thumbnail.
func (b *Bookmark) checkValues() error {
	if err := b.Location.Validate(); err != nil {
		return err
	}
	if len(b.Thumbnail) > 0 {
		return checkThumbnail(b.Thumbnail)
	}
	return nil
}

// checkThumbnail checks a thumbnail's size in bytes and, from its PNG header alone, in pixels.
func checkThumbnail(data []byte) error {
	if len(data) > MaxThumbnailBytes {
		return fmt.Errorf("thumbnail of %d bytes is larger than the %d allowed", len(data), MaxThumbnailBytes)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("thumbnail is not a PNG image (%v)", strings.TrimPrefix(err.Error(), "png: "))
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > MaxThumbnailSide || cfg.Height > MaxThumbnailSide {
		return fmt.Errorf("thumbnail of %dx%d pixels is larger than the %dx%d allowed", cfg.Width, cfg.Height, MaxThumbnailSide, MaxThumbnailSide)
	}
	return nil
}

// DecodeThumbnail decodes a bookmark's PNG thumbnail after checking its size in bytes and,
// from its header, in pixels (at most MaxThumbnailSide on each side), so that no thumbnail
// read from a file can make the decoder allocate more than a small picture needs.
func DecodeThumbnail(data []byte) (image.Image, error) {
	if err := checkThumbnail(data); err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("thumbnail: %v", strings.TrimPrefix(err.Error(), "png: "))
	}
	return img, nil
}

func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// Add adds b. Its name is trimmed and checked, its location validated; a name that exists
// already is an error, never an overwrite. Zero Created and Updated times are set to now.
func (s *Store) Add(b Bookmark) error {
	if err := b.check(); err != nil {
		return err
	}
	if s.index(b.Name) >= 0 {
		return fmt.Errorf("bookmark %q already exists", b.Name)
	}
	if b.Created.IsZero() {
		b.Created = now()
	}
	if b.Updated.IsZero() {
		b.Updated = b.Created
	}
	s.push(b)
	return nil
}

// Set replaces the bookmark that has b's name with b (keeping its creation time when b's is
// zero) and sets its Updated time to now; the bookmark must exist.
func (s *Store) Set(b Bookmark) error {
	if err := b.check(); err != nil {
		return err
	}
	i := s.index(b.Name)
	if i < 0 {
		return fmt.Errorf("no bookmark named %q", b.Name)
	}
	if b.Created.IsZero() {
		b.Created = s.list[i].Created
	}
	b.Updated = now()
	s.list[i] = b
	return nil
}

// Remove removes the named bookmark and returns it.
func (s *Store) Remove(name string) (Bookmark, error) {
	i := s.index(strings.TrimSpace(name))
	if i < 0 {
		return Bookmark{}, fmt.Errorf("no bookmark named %q", text.Clip(strings.TrimSpace(name), 40))
	}
	b := s.list[i]
	s.list = append(s.list[:i], s.list[i+1:]...)
	s.reindex()
	return b, nil
}

// Insert puts b back at position i (clamped to the list), as undoing a Remove does; the
// name must be free.
func (s *Store) Insert(i int, b Bookmark) error {
	if err := b.check(); err != nil {
		return err
	}
	if s.index(b.Name) >= 0 {
		return fmt.Errorf("bookmark %q already exists", b.Name)
	}
	i = max(0, min(i, len(s.list)))
	s.list = append(s.list[:i], append([]Bookmark{b}, s.list[i:]...)...)
	s.reindex()
	return nil
}

// Index returns the position of the named bookmark, or -1.
func (s *Store) Index(name string) int { return s.index(strings.TrimSpace(name)) }

// Rename gives a bookmark a new name, which must be free.
func (s *Store) Rename(oldName, newName string) error {
	i := s.index(strings.TrimSpace(oldName))
	if i < 0 {
		return fmt.Errorf("no bookmark named %q", text.Clip(strings.TrimSpace(oldName), 40))
	}
	n, err := CleanName(newName)
	if err != nil {
		return err
	}
	if n == s.list[i].Name {
		return nil
	}
	if s.index(n) >= 0 {
		return fmt.Errorf("bookmark %q already exists", n)
	}
	if s.byName == nil {
		s.reindex()
	}
	delete(s.byName, s.list[i].Name)
	s.list[i].Name = n
	s.byName[n] = i
	s.list[i].Updated = now()
	return nil
}

// UniqueName returns name if it is free, else the first free "name (2)", "name (3)", ...
func (s *Store) UniqueName(name string) string {
	n, _ := s.uniqueName(name, 2)
	return n
}

// uniqueName is UniqueName trying suffixes from " (from)" on; it also returns the suffix
// number used (0 for none), so that Merge can resume there for the next copy of a name.
func (s *Store) uniqueName(name string, from int) (string, int) {
	if s.index(name) < 0 {
		return name, 0
	}
	base := name
	for k := max(from, 2); ; k++ {
		suffix := fmt.Sprintf(" (%d)", k)
		r := []rune(base)
		if len(r)+len([]rune(suffix)) > MaxNameLength {
			r = r[:MaxNameLength-len([]rune(suffix))]
		}
		n := strings.TrimSpace(string(r)) + suffix
		if s.index(n) < 0 {
			return n, k
		}
	}
}

// Merge adds every bookmark of other to s. A bookmark whose location is already there under
// its name (or under a name an earlier merge gave it: "name (2)", "name (3)", ...) is
// skipped, so that importing a file twice adds nothing; a name that is taken by a different
// location gets a " (2)" (" (3)", ...) suffix. It returns the names added, as they are now in
// s, and how many bookmarks were skipped as already present. It takes time in proportion to
// the sizes of both stores.
func (s *Store) Merge(other *Store) (added []string, skipped int) {
	// copies holds (location, name) for every bookmark of s under its name and under its
	// name without a " (k)" suffix.
	type copyKey struct {
		loc  fractal.Location
		name string
	}
	copies := make(map[copyKey]struct{}, 2*(len(s.list)+len(other.list)))
	note := func(b Bookmark) {
		copies[copyKey{b.Location, b.Name}] = struct{}{}
		if base, ok := cutSuffix(b.Name); ok {
			copies[copyKey{b.Location, base}] = struct{}{}
		}
	}
	for _, b := range s.list {
		note(b)
	}
	next := map[string]int{} // the next suffix to try for a name, so that k copies take O(k)
	for _, b := range other.list {
		if _, ok := copies[copyKey{b.Location, b.Name}]; ok {
			skipped++
			continue
		}
		var k int
		orig := b.Name
		b.Name, k = s.uniqueName(orig, next[orig])
		if k > 0 {
			next[orig] = k + 1
		}
		if b.Created.IsZero() {
			b.Created = now()
		}
		if b.Updated.IsZero() {
			b.Updated = b.Created
		}
		s.push(b)
		note(b)
		added = append(added, b.Name)
	}
	return added, skipped
}

// cutSuffix returns name without a final " (k)" suffix (k a whole number), as UniqueName adds.
func cutSuffix(name string) (string, bool) {
	if !strings.HasSuffix(name, ")") {
		return "", false
	}
	i := strings.LastIndex(name, " (")
	if i < 0 {
		return "", false
	}
	digits := name[i+2 : len(name)-1]
	if digits == "" {
		return "", false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return name[:i], true
}

// Subset returns a store with the named bookmarks, in the order given; an unknown name is an
// error. No names means all of them.
func (s *Store) Subset(names []string) (*Store, error) {
	if len(names) == 0 {
		out := &Store{list: s.List()}
		out.reindex()
		return out, nil
	}
	out := &Store{}
	for _, n := range names {
		b, ok := s.Get(n)
		if !ok {
			return nil, fmt.Errorf("no bookmark named %q", text.Clip(strings.TrimSpace(n), 40))
		}
		if out.index(b.Name) < 0 {
			out.push(b)
		}
	}
	return out, nil
}

// fileJSON is the file's layout.
type fileJSON struct {
	Format    string      `json:"format"`
	Version   int         `json:"version"`
	Bookmarks []entryJSON `json:"bookmarks"`
}

// entryJSON is one bookmark in the file. Decimals are kept as their exact text.
type entryJSON struct {
	Name        string     `json:"name"`
	Re          string     `json:"re"`
	Im          string     `json:"im"`
	Zoom        string     `json:"zoom"`
	Iterations  int        `json:"iterations"`
	Palette     string     `json:"palette"`
	Density     float64    `json:"density"`
	AutoDensity bool       `json:"densityAuto,omitempty"`
	Offset      float64    `json:"offset"`
	Colouring   string     `json:"colouring,omitempty"`
	Transfer    string     `json:"transfer,omitempty"`
	Interior    string     `json:"interior,omitempty"`
	Width       float64    `json:"width,omitempty"`
	Light       float64    `json:"light,omitempty"`
	Strength    float64    `json:"strength,omitempty"`
	Gradient    string     `json:"gradient,omitempty"`
	Shader      string     `json:"shader,omitempty"`
	Julia       *juliaJSON `json:"julia,omitempty"`
	Formula     string     `json:"formula,omitempty"`
	Power       int        `json:"power,omitempty"`
	Bailout     float64    `json:"bailout,omitempty"`
	StripeS     int        `json:"stripeDensity,omitempty"`
	StripeK     int        `json:"stripeLast,omitempty"`
	Rotation    float64    `json:"rotation,omitempty"`
	Created     time.Time  `json:"created"`
	Updated     time.Time  `json:"updated"`
	Thumbnail   []byte     `json:"thumbnail,omitempty"`
}

// juliaJSON is a Julia set's parameter c in the file, its parts exact decimal text.
type juliaJSON struct {
	Re string `json:"re"`
	Im string `json:"im"`
}

// Marshal returns the store as indented JSON text.
func (s *Store) Marshal() ([]byte, error) {
	f := fileJSON{Format: FormatName, Version: 1, Bookmarks: make([]entryJSON, 0, len(s.list))}
	for _, b := range s.list {
		l := b.Location
		c := l.Color
		e := entryJSON{
			Name: b.Name, Re: l.Re.String(), Im: l.Im.String(), Zoom: l.Zoom.String(),
			Iterations: l.Iterations, Palette: c.Palette, Density: c.Density, AutoDensity: c.AutoDensity, Offset: c.Offset,
			Colouring: c.Method, Transfer: c.Transfer, Interior: c.Interior, Width: c.Width, Light: c.Light, Strength: c.Strength,
			Gradient: c.Gradient, Shader: c.Shader, Created: b.Created.UTC(), Updated: b.Updated.UTC(), Thumbnail: b.Thumbnail,
		}
		if e.Colouring != "" || e.Transfer != "" || e.Interior != "" || e.Width != 0 || e.Light != 0 || e.Strength != 0 {
			f.Version = max(f.Version, 2)
		}
		if e.Gradient != "" {
			f.Version = max(f.Version, 3)
		}
		if e.AutoDensity {
			f.Version = max(f.Version, 4)
		}
		if l.IsJulia() {
			e.Julia = &juliaJSON{Re: l.Julia.Re.String(), Im: l.Julia.Im.String()}
			f.Version = max(f.Version, 5)
		}
		if e.Formula, e.Power = l.Formula.Fields(); !l.Formula.IsMandelbrot() {
			f.Version = max(f.Version, 6)
		}
		e.Bailout, e.StripeS, e.StripeK = l.Bailout, l.StripeDensity, l.StripeLast
		if e.Shader != "" || e.Bailout != 0 || e.StripeS != 0 || e.StripeK != 0 {
			f.Version = max(f.Version, 7)
		}
		if e.Rotation = l.Rotation; e.Rotation != 0 {
			f.Version = max(f.Version, 8)
		}
		f.Bookmarks = append(f.Bookmarks, e)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Parse reads a bookmarks file's text. Every field is checked: the format and version, the
// JSON syntax and types, UTF-8, keys that appear twice in an object and unknown fields (so
// that nothing a user wrote is silently changed or dropped on the next write), names, exact
// decimals, the locations' ranges (fractal.Location.Validate) and the thumbnails' sizes. The
// error says what is wrong and where. It takes time in proportion to the text's length.
func Parse(data []byte) (*Store, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the file is empty")
	}
	// This checks the syntax of the whole text first, then decodes the head.
	var head struct {
		Format  *string `json:"format"`
		Version *int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, jsonError(err)
	}
	// encoding/json reads invalid UTF-8 and lone surrogate escapes as U+FFFD and lets the last
	// of two equal keys win: both would change the file silently on the next write.
	if err := checkJSONText(data); err != nil {
		return nil, err
	}
	if head.Format == nil || *head.Format != FormatName {
		return nil, fmt.Errorf("it is not a Mandelscope bookmarks file (no \"format\": %q field)", FormatName)
	}
	if head.Version == nil {
		return nil, errors.New("it has no format \"version\" field")
	}
	if *head.Version > FormatVersion {
		return nil, fmt.Errorf("it has format version %d, written by a newer Mandelscope (this one reads up to version %d)", *head.Version, FormatVersion)
	}
	if *head.Version < 1 {
		return nil, fmt.Errorf("format version %d is not valid", *head.Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f fileJSON
	if err := dec.Decode(&f); err != nil {
		return nil, jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("there is more text after the bookmarks")
	}
	s := &Store{list: make([]Bookmark, 0, len(f.Bookmarks)), byName: make(map[string]int, len(f.Bookmarks))}
	for i, e := range f.Bookmarks {
		b, err := e.bookmark()
		if err != nil {
			return nil, fmt.Errorf("bookmark %d: %v", i+1, err)
		}
		if s.index(b.Name) >= 0 {
			return nil, fmt.Errorf("bookmark %d: the name %q appears twice", i+1, b.Name)
		}
		s.push(b)
	}
	return s, nil
}

func (e entryJSON) bookmark() (Bookmark, error) {
	name, err := CleanName(e.Name)
	if err != nil {
		return Bookmark{}, err
	}
	var l fractal.Location
	for _, d := range []struct {
		field string
		text  string
		dst   *fractal.Decimal
	}{{"re", e.Re, &l.Re}, {"im", e.Im, &l.Im}, {"zoom", e.Zoom, &l.Zoom}} {
		if *d.dst, err = fractal.ParseDecimal(d.text); err != nil {
			return Bookmark{}, fmt.Errorf("%q: %s: %v", text.Clip(name, 40), d.field, err)
		}
	}
	if e.Julia != nil {
		l.Julia.On = true
		for _, d := range []struct {
			field string
			text  string
			dst   *fractal.Decimal
		}{{"julia.re", e.Julia.Re, &l.Julia.Re}, {"julia.im", e.Julia.Im, &l.Julia.Im}} {
			if *d.dst, err = fractal.ParseDecimal(d.text); err != nil {
				return Bookmark{}, fmt.Errorf("%q: %s: %v", text.Clip(name, 40), d.field, err)
			}
		}
	}
	if l.Formula, err = fractal.FormulaFromFields(e.Formula, e.Power); err != nil {
		return Bookmark{}, fmt.Errorf("%q: formula: %v", text.Clip(name, 40), err)
	}
	l.Iterations = e.Iterations
	l.Bailout, l.StripeDensity, l.StripeLast = e.Bailout, e.StripeS, e.StripeK
	// The defaults' one form is 0, so that equal locations compare equal.
	if l.Bailout == fractal.DefaultBailout {
		l.Bailout = 0
	}
	if l.StripeDensity == fractal.DefaultStripeDensity {
		l.StripeDensity = 0
	}
	if l.StripeLast == fractal.DefaultStripeLast {
		l.StripeLast = 0
	}
	l.Rotation = e.Rotation // beyond -180 to 180, Validate refuses it
	if l.Rotation >= -180 && l.Rotation <= 180 {
		l.Rotation = fractal.NormaliseRotation(l.Rotation) // -180 and -0 in their one form
	}
	l.Color = colour.Coloring{Palette: e.Palette, Density: e.Density, AutoDensity: e.AutoDensity, Offset: e.Offset,
		Method: e.Colouring, Transfer: e.Transfer, Interior: e.Interior, Width: e.Width, Light: e.Light, Strength: e.Strength,
		Gradient: e.Gradient, Shader: e.Shader}
	b := Bookmark{Name: name, Location: l, Created: e.Created, Updated: e.Updated, Thumbnail: e.Thumbnail}
	if err := b.checkValues(); err != nil {
		return Bookmark{}, fmt.Errorf("%q: %v", text.Clip(name, 40), err)
	}
	return b, nil
}

// jsonError turns encoding/json's errors into plain words with a byte position.
func jsonError(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		msg := strings.TrimPrefix(se.Error(), "json: ")
		if msg == "unexpected end of JSON input" {
			msg = "unexpected end of JSON (the file is cut short)"
		}
		return fmt.Errorf("%s at byte %d", msg, se.Offset)
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the top level"
		} else {
			field = "field \"" + field + "\""
		}
		kind := te.Type.Kind().String()
		if num, ok := strings.CutPrefix(te.Value, "number "); ok && kind != "string" && kind != "bool" {
			// A number of the right kind that does not fit (1e999, 1e30 iterations): say so
			// rather than what it converts to.
			if f, err := strconv.ParseFloat(num, 64); kind == "float64" || (err == nil && f == math.Trunc(f)) || errors.Is(err, strconv.ErrRange) {
				return fmt.Errorf("%s holds the number %s, which is out of range (byte %d)", field, text.Clip(num, 40), te.Offset)
			}
		}
		return fmt.Errorf("%s holds a JSON %s where %s belongs (byte %d)", field, te.Value, jsonKind(kind), te.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("unexpected end of JSON (the file is cut short)")
	}
	msg := strings.TrimPrefix(err.Error(), "json: ")
	return errors.New(msg)
}

func jsonKind(k string) string {
	switch k {
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "a list"
	case "int", "int64":
		return "a whole number"
	case "float64":
		return "a number"
	case "string":
		return "a string"
	}
	return "a " + k
}
