package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// DefaultPerm is the mode a new file is created with, before the umask takes its bits away:
// rw-r--r--, so that with the usual umask (022) a gradient or bookmarks file is made as a
// shell's redirection or an editor would make it, and a stricter umask is respected.
const DefaultPerm fs.FileMode = 0o644

// WriteAtomic writes data to path through a temporary file in the same folder (created with
// DefaultPerm through the umask, written, synced, then moved into place and the folder
// synced), so that path either keeps what it held or holds all of data. With perm 0 a new
// file keeps the mode it was created with and a file that replaces another takes that one's
// mode; else the file gets exactly perm.
//
// Without replace an existing path (anything, a dangling link too) is left alone and the
// error wraps fs.ErrExist, also when path appears while the data is written: the file is
// linked into place, which fails rather than replace. With replace the file is renamed over
// path, unless path is not a regular file (a named pipe, a folder, a device: the error wraps
// ErrNotRegular and nothing is written).
//
// Unlike the readers' errors, WriteAtomic's do not name path, so that the caller's message
// does it once ("cannot write X: " + err): "it already exists", "it is not a regular file (a
// named pipe)", "folder D does not exist", "no space left on device". The temporary file is
// never named.
func WriteAtomic(path string, data []byte, perm fs.FileMode, replace bool) (err error) {
	if replace {
		if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("it is %w (%s)", ErrNotRegular, Kind(st.Mode()))
		} else if err == nil && perm == 0 {
			perm = st.Mode().Perm()
		}
	} else if _, err := os.Lstat(path); err == nil {
		return errExists
	}
	dir := filepath.Dir(path)
	tmp, err := createTemp(dir, "."+filepath.Base(path)+".")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return plain(err)
	}
	if perm != 0 {
		if err = tmp.Chmod(perm); err != nil {
			return plain(err)
		}
	}
	if err = tmp.Sync(); err != nil {
		return plain(err)
	}
	if err = tmp.Close(); err != nil {
		return plain(err)
	}
	if replace {
		if err = os.Rename(name, path); err != nil {
			return plain(err)
		}
	} else {
		if err = os.Link(name, path); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return errExists
			}
			// A file system without hard links: check, then rename (a small race).
			if _, serr := os.Lstat(path); serr == nil {
				return errExists
			}
			if err = os.Rename(name, path); err != nil {
				return plain(err)
			}
		} else {
			os.Remove(name)
		}
	}
	SyncDir(dir)
	return nil
}

var errExists = fmt.Errorf("it %w", existsErr{})

// existsErr is fs.ErrExist with the words of a sentence: "it already exists".
type existsErr struct{}

func (existsErr) Error() string        { return "already exists" }
func (existsErr) Is(target error) bool { return target == fs.ErrExist }

// createTemp creates a new file in dir named prefix + a random number + ".tmp", with
// DefaultPerm through the umask (os.CreateTemp's files are 0600 whatever the umask). Its
// error names the folder, not the file it tried.
func createTemp(dir, prefix string) (*os.File, error) {
	for range 1000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL|oNoFollow, DefaultPerm)
		if err == nil {
			return f, nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if st, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
			return nil, fmt.Errorf("folder %s does not exist", dir)
		} else if serr == nil && !st.IsDir() {
			return nil, fmt.Errorf("%s is not a folder", dir)
		}
		return nil, plain(err)
	}
	return nil, fmt.Errorf("cannot make a temporary file in %s", dir)
}

// plain drops the "op /path:" prefix of a *fs.PathError or *os.LinkError, which would name
// the temporary file.
func plain(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// SyncDir makes a rename or link in dir durable; file systems that cannot sync a folder are
// ignored.
func SyncDir(dir string) {
	if d, err := openNonblock(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
