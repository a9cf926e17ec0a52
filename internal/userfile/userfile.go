// Package userfile reads and writes the files a person names or keeps in Mandelscope's
// folders (gradient files, .kfr and .kfp files, bookmarks files, exported PNGs read back)
// as hostile input: a path may name a named pipe, a device, a socket or a folder, and none
// of them may hang or confuse the program.
//
// Open is the one way such a file is opened for reading: where the system has O_NONBLOCK
// the open itself cannot wait (opening a named pipe with no writer blocks forever without
// it), the file is then checked with fstat, and anything but a regular file is refused with
// one line naming it ("x.txt is not a regular file (a named pipe)") before a byte is read.
// A regular file reads as usual: O_NONBLOCK has no effect on regular files. ReadFile and
// ReadDir are built on it; WriteAtomic writes a file beside the same checks.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// ErrNotRegular and ErrTooLarge are what an *Error wraps.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("too large")
)

// Error is the error for a file that Open, ReadFile or ReadDir refuse. It names the file:
// "PATH is not a regular file (a named pipe)", "PATH is larger than 1 MiB".
type Error struct {
	Path   string
	Reason string // what is wrong, as the rest of a sentence whose subject is the file
	Err    error  // ErrNotRegular or ErrTooLarge
}

func (e *Error) Error() string { return e.Path + " " + e.Reason }

func (e *Error) Unwrap() error { return e.Err }

// Reason is err's text without the file's name, for messages that name the file
// themselves ("cannot read bookmarks file X: " + Reason(err)): "it is not a regular file (a
// named pipe)" for an *Error, "no such file or directory" for an *fs.PathError, else
// err's text.
func Reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return "it " + e.Reason
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Kind names a file's type in words: "a named pipe", "a folder", "a device", "a socket",
// else "a special file".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

func notRegular(path string, m fs.FileMode) *Error {
	return &Error{Path: path, Reason: "is not a regular file (" + Kind(m) + ")", Err: ErrNotRegular}
}

// Open opens the regular file at path for reading without blocking (see the package
// comment). A missing file gives os.Open's *fs.PathError (errors.Is fs.ErrNotExist); a path
// that is not a regular file gives an *Error wrapping ErrNotRegular.
func Open(path string) (*os.File, error) {
	f, err := openNonblock(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, st.Mode())
	}
	return f, nil
}

// ReadFile reads the regular file at path (see Open), at most limit bytes: a larger file
// gives an *Error wrapping ErrTooLarge, without reading more than limit+1 bytes of it.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &Error{Path: path, Reason: "is larger than " + sizeText(limit), Err: ErrTooLarge}
	}
	return data, nil
}

// sizeText is a byte count as a person reads it: "1 MiB", "64 MiB", "300 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadDir reads the folder at path, sorted by name, as os.ReadDir does, but without
// blocking on a path that is not a folder (a named pipe given as the folder): that is an
// *Error wrapping ErrNotRegular ("PATH is not a folder (a named pipe)").
func ReadDir(path string) ([]fs.DirEntry, error) {
	f, err := openNonblock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, &Error{Path: path, Reason: "is not a folder (" + Kind(st.Mode()) + ")", Err: ErrNotRegular}
	}
	des, err := f.ReadDir(-1)
	slices.SortFunc(des, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return des, err
}
