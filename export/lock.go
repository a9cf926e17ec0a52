package export

import (
	"fmt"
	"os"

	"github.com/gofrs/flock"

	"mandelscope/internal/userfile"
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
// a lock taken on a file that was removed meanwhile is retried on the new one. A lock file
// that is not a plain file (a symbolic link, a folder, a named pipe) gives ErrBadLock: it is
// never followed, waited on or taken for another export's lock.
func lockTarget(path string) (*targetLock, error) {
	lp := LockPath(path)
	for range 10 {
		if err := checkLockFile(lp); err != nil {
			return nil, err
		}
		fl := flock.New(lp, lockOptions()...)
		ok, err := fl.TryLock()
		if err != nil {
			if err := checkLockFile(lp); err != nil {
				return nil, err // replaced by a link or a pipe since it was checked
			}
			return nil, fmt.Errorf("cannot lock %s: %w", lp, err)
		}
		if !ok {
			return nil, newError(ErrBusy, path, "another export of %s is running (it holds %s)", path, lp)
		}
		// The holder before us may have removed the file after we opened it: then we hold a
		// lock on a file nobody else can see, and must lock the one at the path.
		held, err1 := fl.Stat()
		now, err2 := os.Lstat(lp)
		if err1 == nil && err2 == nil && os.SameFile(held, now) && held.Mode().IsRegular() {
			return &targetLock{fl: fl, path: lp}, nil
		}
		fl.Close()
	}
	return nil, newError(ErrBusy, path, "cannot lock %s: it keeps being replaced", lp)
}

// checkLockFile refuses a lock file that exists and is not a plain file.
func checkLockFile(lp string) error {
	st, err := os.Lstat(lp)
	if err != nil || st.Mode().IsRegular() {
		return nil // none yet (or unreadable: locking it says why)
	}
	return newError(ErrBadLock, lp, "%s is %s, not a lock file (an export's lock file is a plain file)", lp, userfile.Kind(st.Mode()))
}

// release removes the lock file and unlocks, leaving nothing beside the output. Where an
// open file can be removed (Unix) it is removed while still held, so that no other export
// ever locks a file that is about to go. Where it cannot (Windows opens files without
// FILE_SHARE_DELETE, so removing one that is open fails), it is closed first and then
// removed: the removal fails, harmlessly, while another export has it open, so a lock that
// another export took meanwhile is never removed from under it.
func (l *targetLock) release() {
	if l == nil {
		return
	}
	if removeWhileHeld {
		os.Remove(l.path)
		l.fl.Close()
		return
	}
	l.fl.Close()
	os.Remove(l.path)
}

// checkLock says, without keeping the lock, why an export of path could not take it now:
// another export holds it (ErrBusy), or the lock file is not a plain file (ErrBadLock).
// Another error (a folder that cannot be written) is left for the export to report.
func checkLock(path string) error {
	l, err := lockTarget(path)
	if err != nil {
		if isKind(err, ErrBusy) || isKind(err, ErrBadLock) {
			return err
		}
		return nil
	}
	l.release()
	return nil
}

// busy reports whether another export of path is running now (it holds the lock).
func busy(path string) bool { return isKind(checkLock(path), ErrBusy) }
