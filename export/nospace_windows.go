//go:build windows

package export

import (
	"errors"

	"golang.org/x/sys/windows"
)

// isDiskFull reports whether err says the disk is full: ERROR_DISK_FULL or
// ERROR_HANDLE_DISK_FULL (syscall.ENOSPC is an invented number here that no call returns).
func isDiskFull(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL)
}
