// Package gradients keeps the user's own gradients: one gradient file (colour.ParseGradient's
// format) per gradient, NAME.txt, in a folder beside the bookmarks file:
// os.UserConfigDir()/mandelscope/gradients ($XDG_CONFIG_HOME/mandelscope/gradients on Linux),
// or $MANDELSCOPE_GRADIENTS when set. A location refers to a user gradient by value
// (colour.Coloring.Gradient), so the folder is only where gradients are found by name and
// kept for editing: a bookmark or an image made with one draws the same after it is changed
// or deleted. Files are read as hostile input (regular files opened without blocking, at most
// colour.MaxGradientBytes, parsed and checked, never quoted in an error) and never replaced
// without being asked to. ReadImport and SaveAll (import.go) bring in the palettes of other
// programs: Kalles Fraktaler's, Fractint's .map and every gradient of an Ultra Fractal .ugr.
package gradients

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"mandelscope/colour"
	"mandelscope/internal/text"
	"mandelscope/internal/userfile"
)

// EnvDir is the environment variable that overrides the gradients folder.
const EnvDir = "MANDELSCOPE_GRADIENTS"

// Ext is the file name extension of a gradient in the folder.
const Ext = ".txt"

// Dir returns the gradients folder: $MANDELSCOPE_GRADIENTS when set, else
// os.UserConfigDir()/mandelscope/gradients. It need not exist.
func Dir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	c, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the folder for gradients (%v); set %s to a folder", err, EnvDir)
	}
	return filepath.Join(c, "mandelscope", "gradients"), nil
}

// ReadFile reads and parses a gradient file (or a Kalles Fraktaler .kfr/.kfp): a regular file
// of at most colour.MaxGradientBytes, opened without blocking (userfile.Open: a named pipe
// is refused at once). The error names the file and, for its text, the line; it never quotes
// the file's text (see colour.ParseGradient).
func ReadFile(path string) (colour.Gradient, error) {
	data, err := userfile.ReadFile(path, colour.MaxGradientBytes)
	var ue *userfile.Error
	if errors.As(err, &ue) {
		return colour.Gradient{}, fmt.Errorf("gradient file %w", err)
	}
	if err != nil {
		return colour.Gradient{}, err
	}
	g, err := colour.ParseGradient(data)
	if err != nil {
		return colour.Gradient{}, fmt.Errorf("gradient file %s: %v", path, err)
	}
	return g, nil
}

// Path is the file of the gradient name in dir, after checking the name
// (colour.ValidGradientName).
func Path(dir, name string) (string, error) {
	if err := colour.ValidGradientName(name); err != nil {
		return "", err
	}
	return filepath.Join(dir, name+Ext), nil
}

// CheckName is colour.ValidGradientName for the name of a new gradient file: it also refuses,
// on every system, the names Windows keeps for devices (CON, PRN, AUX, NUL, COM0 to COM9, LPT0
// to LPT9, in any case, alone or before a '.': "nul.x.txt" is the device NUL there too), so
// that a folder of gradients made anywhere can be copied to Windows. Only new files are
// refused: a file of such a name that is already in the folder is read as before.
func CheckName(name string) error {
	if err := colour.ValidGradientName(name); err != nil {
		return err
	}
	if reservedOnWindows(name) {
		return fmt.Errorf("gradient name %q is reserved for a device on Windows (CON, PRN, AUX, NUL, COM0-COM9, LPT0-LPT9); choose another name", name)
	}
	return nil
}

// reservedOnWindows reports whether a file name (of a gradient: no spaces) names a device
// on Windows: its part before the first '.' is one of the device names, in any case.
func reservedOnWindows(name string) bool {
	stem, _, _ := strings.Cut(name, ".")
	switch strings.ToUpper(stem) {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	if len(stem) == 4 && stem[3] >= '0' && stem[3] <= '9' {
		p := strings.ToUpper(stem[:3])
		return p == "COM" || p == "LPT"
	}
	return false
}

// ErrNotFound is wrapped by Load's error for a name the folder does not hold.
var ErrNotFound = errors.New("no such gradient")

// Load reads the user gradient name from dir.
func Load(dir, name string) (colour.Gradient, error) {
	p, err := Path(dir, name)
	if err != nil {
		return colour.Gradient{}, err
	}
	g, err := ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return g, fmt.Errorf("%w %q in %s", ErrNotFound, name, dir)
	}
	return g, err
}

// Entry is one gradient of the folder: its name and stops, or why its file cannot be read.
type Entry struct {
	Name     string
	Gradient colour.Gradient
	Err      error
}

// List returns the folder's gradients sorted by name (a missing folder holds none). Files
// whose names are not gradient names are skipped; a damaged file is listed with its error.
func List(dir string) ([]Entry, error) {
	des, err := userfile.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var ue *userfile.Error
		if errors.As(err, &ue) {
			return nil, fmt.Errorf("gradients folder %w", err)
		}
		return nil, err
	}
	var out []Entry
	for _, de := range des {
		name, ok := strings.CutSuffix(de.Name(), Ext)
		if !ok || colour.ValidGradientName(name) != nil {
			continue
		}
		g, err := Load(dir, name)
		out = append(out, Entry{Name: name, Gradient: g, Err: err})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ErrExists is wrapped by Save's and WriteFile's errors for a file that is there already.
var ErrExists = errors.New("already exists")

// Save writes g as the user gradient name in dir (creating the folder). A built-in palette's
// name, in any case, is refused (it would never be found: built-ins come first), and so are a name Windows
// reserves (CheckName) and an existing gradient unless replace is true.
func Save(dir, name string, g colour.Gradient, replace bool) error {
	if err := checkNew(name); err != nil {
		return err
	}
	p, err := Path(dir, name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return WriteFile(p, g.File(name), replace)
}

// checkNew reports what is wrong with name as the name of a new gradient: CheckName's
// refusals, and a built-in palette's name in any case ("Classic" beside "classic" would be
// two palettes a person tells apart by a capital only, one file on a file system that
// ignores case).
func checkNew(name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if b, ok := colour.BuiltinNameFold(name); ok {
		if b == name {
			return fmt.Errorf("%q is the name of a built-in palette; choose another name", name)
		}
		return fmt.Errorf("%q is the name of a built-in palette (%s) in other capitals; choose another name", name, b)
	}
	return nil
}

// WriteFile writes data to path (userfile.WriteAtomic): through a temporary file in the same
// folder, synced and then linked into place, so that path either is absent or holds all of
// data, and an existing file is never replaced unless replace is true (then it is renamed
// over, unless it is not a regular file: a named pipe is never written to or replaced). A new
// file is 0644 less the umask, as the bookmarks file is; a replaced one keeps its mode. Errors
// name path, never the temporary file.
func WriteFile(path string, data []byte, replace bool) error {
	err := userfile.WriteAtomic(path, data, 0, replace)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s %w", path, ErrExists) // each front end says how to replace it
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, err)
	}
	return nil
}

// Resolve returns the coloring c with the palette name applied: a built-in palette by name
// (and no Gradient), else the user gradient name from dir by value. Its error names the
// built-in palettes and the folder.
func Resolve(c colour.Coloring, dir, name string) (colour.Coloring, error) {
	if _, err := colour.PaletteByName(name); err == nil {
		c.Palette, c.Gradient = name, ""
		return c, nil
	}
	g, err := Load(dir, name)
	if errors.Is(err, ErrNotFound) || (err != nil && colour.ValidGradientName(name) != nil) {
		return c, fmt.Errorf("unknown palette %q (built in: %s; no gradient of that name in %s)",
			text.Clip(name, 40), strings.Join(colour.PaletteNames(), ", "), dir)
	}
	if err != nil {
		return c, err
	}
	return c.WithGradient(name, g), nil
}

// NameFor is a gradient name made from a file's name: its base without the extension, made
// a name by MakeName.
func NameFor(path string) string {
	return MakeName(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
}

// MakeName is a gradient name made from any text s (a file's name, a name another program
// gives a gradient): every byte a name may not hold replaced by '-', leading dots dropped,
// cut to colour.MaxGradientName, "gradient" for nothing left, and with a '_' after a name
// Windows reserves ("nul" gives "nul_"), so that it passes CheckName.
func MakeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '-'
		}
	}
	s = strings.TrimLeft(string(b), ".")
	if len(s) > colour.MaxGradientName {
		s = s[:colour.MaxGradientName]
	}
	if s == "" {
		s = "gradient"
	}
	if reservedOnWindows(s) {
		stem, rest, dot := strings.Cut(s, ".")
		s = stem + "_"
		if dot {
			s += "." + rest
		}
		s = s[:min(len(s), colour.MaxGradientName)]
	}
	return s
}
