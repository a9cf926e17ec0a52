package bookmarks

import (
	"errors"
	"syscall"

	"github.com/gofrs/flock"
)

// lockFile takes an exclusive lock on path (created if needed), waiting for it, and returns
// the function that releases it: flock(2) on Unix, LockFileEx on Windows, so that the window
// and the command line never write the bookmarks file at the same time on any system.
func lockFile(path string) (func(), error) {
	l := flock.New(path, flock.SetPermissions(0o644))
	for {
		err := l.Lock()
		if err == nil {
			return func() { l.Unlock() }, nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return nil, err
		}
	}
}
