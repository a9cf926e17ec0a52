//go:build unix

package export

import (
	"os"
	"runtime"

	"github.com/gofrs/flock"
	"golang.org/x/sys/unix"
)

// lockOptions open the lock file as gofrs/flock does (created if missing; read-only, or
// read-write where the system locks only files open for writing), never through a symbolic
// link and without waiting on a named pipe, so that one put in its place between the check
// and the open is refused too (checkLockFile) rather than followed or waited on.
func lockOptions() []flock.Option {
	flag := os.O_CREATE | unix.O_NOFOLLOW | unix.O_NONBLOCK
	switch runtime.GOOS {
	case "aix", "solaris", "illumos":
		flag |= os.O_RDWR
	default:
		flag |= os.O_RDONLY
	}
	return []flock.Option{flock.SetFlag(flag)}
}

// removeWhileHeld: an open file can be removed here, so a lock file is removed while it is
// still held (targetLock.release).
const removeWhileHeld = true
