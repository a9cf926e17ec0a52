//go:build linux

package export

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames from to to unless to exists, atomically (renameat2 with
// RENAME_NOREPLACE). ok is false where the filesystem or kernel does not support it; the
// caller then falls back.
func renameNoReplace(from, to string) (ok bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		return false, nil
	}
	if err != nil {
		return true, &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return true, nil
}
