//go:build !unix

package export

import "github.com/gofrs/flock"

// lockOptions are gofrs/flock's defaults here; the lock file is checked before it is opened
// (checkLockFile) and after it is locked.
func lockOptions() []flock.Option { return nil }

// removeWhileHeld: an open file cannot be removed here (Windows opens files without
// FILE_SHARE_DELETE), so a lock file is removed after it is closed (targetLock.release).
const removeWhileHeld = false
