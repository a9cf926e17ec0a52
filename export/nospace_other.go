//go:build !windows

package export

import (
	"errors"
	"syscall"
)

// isDiskFull reports whether err says the disk is full (ENOSPC).
func isDiskFull(err error) bool { return errors.Is(err, syscall.ENOSPC) }
