//go:build unix

package userfile

import (
	"os"

	"golang.org/x/sys/unix"
)

// openNonblock opens path for reading with O_NONBLOCK, so that opening a named pipe that no
// one writes returns at once instead of waiting for a writer, and O_NOCTTY, so that a
// terminal device never becomes the process's controlling terminal. Open then refuses
// anything but a regular file, whose reads O_NONBLOCK does not change.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
}

// oNoFollow makes an open of a symbolic link fail rather than open what it points to.
const oNoFollow = unix.O_NOFOLLOW
