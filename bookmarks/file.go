package bookmarks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"mandelscope/internal/userfile"
)

// EnvPath is the environment variable that overrides the bookmarks file's path.
const EnvPath = "MANDELSCOPE_BOOKMARKS"

// MaxFileBytes bounds the size of a bookmarks or .kfr file this package reads.
const MaxFileBytes = 64 << 20

// DefaultPath returns the bookmarks file's path: $MANDELSCOPE_BOOKMARKS when set, else
// os.UserConfigDir()/mandelscope/bookmarks.json.
func DefaultPath() (string, error) {
	if p := os.Getenv(EnvPath); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("cannot find the folder for the bookmarks file (%v); set %s to a file path", err, EnvPath)
	}
	return filepath.Join(dir, "mandelscope", "bookmarks.json"), nil
}

// DamagedError reports a bookmarks file that exists but cannot be read as one. The file is
// left untouched.
type DamagedError struct {
	Path string
	Err  error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("bookmarks file %s is damaged: %v; it was left untouched", e.Path, e.Err)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// readFile reads a regular file of at most MaxFileBytes without blocking on anything else (a
// named pipe: userfile.ReadFile); a missing file gives fs.ErrNotExist. userfile.Reason is
// what is wrong, for messages that name the file.
func readFile(path string) ([]byte, error) {
	return userfile.ReadFile(path, MaxFileBytes)
}

// plainErr drops the "open /path:" prefix of a *fs.PathError, for messages that name the
// file themselves.
func plainErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Load reads the bookmarks file at path. A missing file is an empty store; a file that cannot
// be read or parsed is an error naming it (a *DamagedError when its text is wrong).
func Load(path string) (*Store, error) {
	s, _, err := load(path)
	return s, err
}

// load also returns the file's text (nil when it does not exist).
func load(path string) (*Store, []byte, error) {
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Store{}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read bookmarks file %s: %s", path, userfile.Reason(err))
	}
	s, err := Parse(data)
	if err != nil {
		return nil, nil, &DamagedError{Path: path, Err: err}
	}
	return s, data, nil
}

// Update changes the bookmarks file at path safely: it takes an exclusive lock on the file's
// real path (after symbolic links, see resolveLinks) + ".lock", reads the file afresh, calls
// fn, and when fn succeeded and changed something writes the result atomically, keeping the
// previous text as path + ".bak". An error from fn writes nothing. A damaged file is never
// overwritten, and neither is a file (or a folder) that its owner made read-only
// (*ReadOnlyError). Temporary files that a killed writer of this file left are removed.
func Update(path string, fn func(*Store) error) error {
	named := path
	if err := os.MkdirAll(filepath.Dir(named), 0o755); err != nil {
		return fmt.Errorf("cannot create the folder for bookmarks file %s: %v", named, plainErr(err))
	}
	path, unlock, err := lockTarget(named)
	if err != nil {
		return err
	}
	defer unlock()
	removeStaleTemps(path)
	if err := checkWritable(path); err != nil {
		return err
	}
	s, old, err := load(path)
	if err != nil {
		return err
	}
	if err := fn(s); err != nil {
		return err
	}
	data, err := s.Marshal()
	if err != nil {
		return err
	}
	if old != nil && bytes.Equal(data, old) {
		return nil
	}
	// A new file is 0644 less the umask (userfile.WriteAtomic's perm 0); one that exists keeps
	// its mode, and its backup gets that mode too.
	var mode fs.FileMode
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if old != nil {
		if err := userfile.WriteAtomic(path+".bak", old, mode, true); err != nil {
			return fmt.Errorf("cannot keep a backup of bookmarks file %s: %v", path, err)
		}
	}
	if err := userfile.WriteAtomic(path, data, mode, true); err != nil {
		return fmt.Errorf("cannot write bookmarks file %s: %v", path, err)
	}
	return nil
}

// ReadOnlyError reports a bookmarks file, or the folder it is in, whose owner may not write
// it (no owner write permission; the read-only attribute on Windows). It is refused rather
// than replaced: renaming a new file over a read-only one would succeed, and as root even a
// plain write would, so the permission bits are checked rather than left to the system.
type ReadOnlyError struct {
	Path   string // the file or folder
	Folder bool   // Path is the folder that holds the bookmarks file
}

func (e *ReadOnlyError) Error() string {
	if e.Folder {
		return fmt.Sprintf("bookmarks folder %s is read-only; nothing was changed", e.Path)
	}
	return fmt.Sprintf("bookmarks file %s is read-only; nothing was changed", e.Path)
}

// checkWritable refuses a bookmarks file or folder without its owner's write permission. On
// Windows a folder's read-only attribute does not stop files being made in it (Explorer sets
// it on folders it customises), so only the file is checked there.
func checkWritable(path string) error {
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o200 == 0 {
		return &ReadOnlyError{Path: path}
	}
	dir := filepath.Dir(path)
	if runtime.GOOS == "windows" {
		return nil
	}
	if st, err := os.Stat(dir); err == nil && st.Mode().Perm()&0o200 == 0 {
		return &ReadOnlyError{Path: dir, Folder: true}
	}
	return nil
}

// Add adds b to the bookmarks file at path (see Store.Add and Update).
func Add(path string, b Bookmark) error {
	return Update(path, func(s *Store) error { return s.Add(b) })
}

// Remove removes the named bookmark from the file at path and returns it.
func Remove(path, name string) (Bookmark, error) {
	var out Bookmark
	err := Update(path, func(s *Store) (err error) {
		out, err = s.Remove(name)
		return err
	})
	return out, err
}

// Rename renames a bookmark in the file at path.
func Rename(path, oldName, newName string) error {
	return Update(path, func(s *Store) error { return s.Rename(oldName, newName) })
}

// ImportResult says what an import did.
type ImportResult struct {
	// Added are the names of the new bookmarks, as they are in the store (with " (2)"
	// suffixes where a name was taken).
	Added []string
	// Skipped counts bookmarks already present with the same name and location.
	Skipped int
}

// ReadImport reads a file to import: a Mandelscope bookmarks file, or a Kalles Fraktaler
// .kfr parameter file, which becomes one bookmark named after the file. A .kfr file is read
// as KF parameters and a .json file as bookmarks; another name is read by its text (a JSON
// object or KF parameters). Errors name the file.
func ReadImport(src string) (*Store, error) {
	data, err := readFile(src)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %s", src, userfile.Reason(err))
	}
	trimmed := bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	ext := strings.ToLower(filepath.Ext(src))
	if ext == ".kfr" || (ext != ".json" && len(trimmed) > 0 && trimmed[0] != '{') {
		name := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
		b, err := ParseKFR(data, name)
		if err != nil {
			return nil, fmt.Errorf("cannot import %s: %v", src, err)
		}
		return &Store{list: []Bookmark{b}}, nil
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("cannot import %s: %v", src, err)
	}
	return s, nil
}

// Import merges the bookmarks of src (see ReadImport) into the file at path: clashing names
// get " (2)" suffixes, nothing is overwritten (see Store.Merge).
func Import(path, src string) (ImportResult, error) {
	in, err := ReadImport(src)
	if err != nil {
		return ImportResult{}, err
	}
	var r ImportResult
	err = Update(path, func(s *Store) error {
		r.Added, r.Skipped = s.Merge(in)
		return nil
	})
	return r, err
}

// Export writes the named bookmarks (all of them when names is empty) of the file at path
// to a new bookmarks file dst. An existing dst is an error unless force is true.
func Export(path, dst string, names []string, force bool) (int, error) {
	s, err := Load(path)
	if err != nil {
		return 0, err
	}
	sub, err := s.Subset(names)
	if err != nil {
		return 0, err
	}
	if err := WriteFile(dst, sub, force); err != nil {
		return 0, err
	}
	return sub.Len(), nil
}

// WriteFile writes s as a bookmarks file at dst, atomically. An existing dst is an error
// ("... already exists; it was not overwritten") unless force is true; a dst its owner made
// read-only is not replaced even then.
func WriteFile(dst string, s *Store, force bool) error {
	data, err := s.Marshal()
	if err != nil {
		return err
	}
	if !force {
		if _, err := os.Lstat(dst); err == nil {
			return fmt.Errorf("%s already exists; it was not overwritten", dst)
		}
	}
	if st, err := os.Stat(dst); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%s is read-only; it was not replaced", dst)
	}
	if err := userfile.WriteAtomic(dst, data, 0, force); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s already exists; it was not overwritten", dst)
		}
		return fmt.Errorf("cannot write %s: %v", dst, err)
	}
	return nil
}
