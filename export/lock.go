package export

import (
	"fmt"
	"os"

	"github.com/gofrs/flock"
)

// LockPath names the lock file an export holds beside path while it runs.
func LockPath(path string) string { return path + ".lock" }

// targetLock is the lock on one output file: one export per target at a time, across
// processes (flock on Unix, LockFileEx on Windows).
type targetLock struct {
	fl   *flock.Flock
	path string
}

// lockTarget takes the lock on path's lock file without waiting; a lock held by another
// export (in this process or another) gives ErrBusy. The lock file is removed on release, so
// a lock taken on a file that was removed meanwhile is retried on the new one.
func lockTarget(path string) (*targetLock, error) {
	lp := LockPath(path)
	for range 10 {
		fl := flock.New(lp)
		ok, err := fl.TryLock()
		if err != nil {
			return nil, fmt.Errorf("cannot lock %s: %w", lp, err)
		}
		if !ok {
			return nil, newError(ErrBusy, path, "another export of %s is running (it holds %s)", path, lp)
		}
		// The holder before us may have removed the file after we opened it: then we hold a
		// lock on a file nobody else can see, and must lock the one at the path.
		held, err1 := fl.Stat()
		now, err2 := os.Lstat(lp)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &targetLock{fl: fl, path: lp}, nil
		}
		fl.Close()
	}
	return nil, newError(ErrBusy, path, "cannot lock %s: it keeps being replaced", lp)
}

// release removes the lock file (while still holding it) and unlocks. On Windows, where an
// open file cannot be removed, the file stays, which is harmless.
func (l *targetLock) release() {
	if l == nil {
		return
	}
	os.Remove(l.path)
	l.fl.Close()
}

// busy reports whether another export of path is running now (it holds the lock).
func busy(path string) bool {
	l, err := lockTarget(path)
	if err != nil {
		return isKind(err, ErrBusy)
	}
	l.release()
	return false
}
