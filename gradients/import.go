package gradients

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mandelscope/colour"
	"mandelscope/internal/userfile"
)

// ImportExts are the extensions of the files ReadImport reads: gradient files, Kalles
// Fraktaler's parameter and palette files, Fractint maps and Ultra Fractal gradient files.
var ImportExts = []string{".txt", ".kfr", ".kfp", ".map", ".ugr"}

// Imported is a gradient read from a file by ReadImport and the name it is to be kept under;
// Note says why that name is not the file's (its own name or the one a .ugr gives it), ""
// when it is.
type Imported struct {
	Name     string
	Gradient colour.Gradient
	Note     string
}

// ReadImport reads the palette file path as its extension says (colour.ParsePaletteFile: a
// Fractint .map, an Ultra Fractal .ugr, else a gradient file or a Kalles Fraktaler .kfr/.kfp),
// a regular file opened without blocking, of at most colour.MaxPaletteFileBytes for a .ugr
// and colour.MaxGradientBytes for the others. Each gradient is named: a .ugr's by the name
// it gives it, the others by the file's name (NameFor), made a name by MakeName; a built-in
// palette's name gets "-imported" and a name the file gives twice (in any case) a number, so
// that every name is new to the file and none is a built-in's. The error names the file and,
// for its text, the line; it never quotes the file's text.
func ReadImport(path string) ([]Imported, error) {
	ext := filepath.Ext(path)
	limit := int64(colour.MaxGradientBytes)
	if strings.EqualFold(ext, ".ugr") {
		limit = colour.MaxPaletteFileBytes
	}
	data, err := userfile.ReadFile(path, limit)
	var ue *userfile.Error
	if errors.As(err, &ue) {
		return nil, fmt.Errorf("gradient file %w", err)
	}
	if err != nil {
		return nil, err
	}
	list, err := colour.ParsePaletteFile(ext, data)
	if err != nil {
		return nil, fmt.Errorf("gradient file %s: %v", path, err)
	}
	out := make([]Imported, len(list))
	used := map[string]bool{}
	for i, n := range list {
		name := NameFor(path)
		if n.Name != "" {
			name = MakeName(n.Name)
		}
		out[i] = Imported{Name: name, Gradient: n.Gradient}
		if b, ok := colour.BuiltinNameFold(name); ok {
			out[i].Name = MakeName(name + "-imported")
			out[i].Note = fmt.Sprintf("%s is a built-in palette", b)
		}
		if used[strings.ToLower(out[i].Name)] {
			out[i].Name = numbered(out[i].Name, used)
			out[i].Note = fmt.Sprintf("the file has more than one gradient called %s", name)
		}
		used[strings.ToLower(out[i].Name)] = true
	}
	return out, nil
}

// numbered is name with "-2", "-3", ... after it (cut to fit colour.MaxGradientName): the
// first one used does not hold in any case.
func numbered(name string, used map[string]bool) string {
	for k := 2; ; k++ {
		suffix := "-" + strconv.Itoa(k)
		n := MakeName(name[:min(len(name), colour.MaxGradientName-len(suffix))] + suffix)
		if !used[strings.ToLower(n)] {
			return n
		}
	}
}

// ExistsError is SaveAll's error for gradients that are in the folder already: it wraps
// ErrExists.
type ExistsError struct {
	Dir   string
	Names []string
}

func (e *ExistsError) Error() string {
	if len(e.Names) == 1 {
		return fmt.Sprintf("%s %s", filepath.Join(e.Dir, e.Names[0]+Ext), ErrExists)
	}
	return fmt.Sprintf("%d gradients already exist in %s: %s", len(e.Names), e.Dir, strings.Join(e.Names, ", "))
}

// Is makes errors.Is(err, ErrExists) true for an *ExistsError.
func (e *ExistsError) Is(target error) bool { return target == ErrExists }

// SaveAll saves every gradient of list in dir under its name, as Save does, or none: every
// name is checked first (CheckName, not a built-in's), and unless replace is true a name
// already in the folder refuses the whole list (an *ExistsError naming them all) before
// anything is written. An error after some were written says which.
func SaveAll(dir string, list []Imported, replace bool) error {
	var exist []string
	for _, it := range list {
		if err := checkNew(it.Name); err != nil {
			return err
		}
		p, err := Path(dir, it.Name)
		if err != nil {
			return err
		}
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, it.Name)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cannot check %s: %v", p, err)
		}
	}
	if len(exist) > 0 && !replace {
		return &ExistsError{Dir: dir, Names: exist}
	}
	for i, it := range list {
		if err := Save(dir, it.Name, it.Gradient, replace); err != nil {
			if i > 0 {
				return fmt.Errorf("%v (the %d gradients before %s were saved)", err, i, it.Name)
			}
			return err
		}
	}
	return nil
}
