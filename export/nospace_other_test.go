//go:build !windows

package export

import "syscall"

// diskFullErrs are the errors a write to a full disk returns here.
var diskFullErrs = []syscall.Errno{syscall.ENOSPC}
