//go:build windows

package export

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// diskFullErrs are the errors a write to a full disk returns here.
var diskFullErrs = []syscall.Errno{windows.ERROR_DISK_FULL, windows.ERROR_HANDLE_DISK_FULL}
