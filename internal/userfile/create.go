package userfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// CreateNew creates a new file at path for reading and writing, with perm less the umask. It
// never opens what is already there: a file, a folder, a named pipe or a symbolic link at
// path (a dangling one too) makes it fail with an error wrapping fs.ErrExist (O_EXCL, with
// O_NOFOLLOW where the system has it), so that a link planted where a program writes its
// own files cannot send the bytes to the file it points to.
func CreateNew(path string, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL|oNoFollow, perm)
}

// CreateFresh creates a new, empty file at path as CreateNew does, after removing what a
// program's own file left there by an earlier run may be: a regular file, a named pipe or
// a symbolic link, which is removed itself, never what it points to. A folder at path is
// refused (an *Error wrapping ErrNotRegular), and so is anything that appears at path
// between the removal and the creation.
func CreateFresh(path string, perm fs.FileMode) (*os.File, error) {
	if st, err := os.Lstat(path); err == nil {
		if st.IsDir() {
			return nil, &Error{Path: path, Reason: "is not a regular file (" + Kind(st.Mode()) + ")", Err: ErrNotRegular}
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	f, err := CreateNew(path, perm)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%s appeared while it was being replaced: %w", path, err)
	}
	return f, err
}

// CreateTemp creates a new file in dir named prefix + a random number + ".tmp" as
// CreateNew does, with DefaultPerm less the umask; its error names dir, not the file.
func CreateTemp(dir, prefix string) (*os.File, error) {
	return createTemp(dir, prefix)
}
