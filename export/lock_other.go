//go:build !unix

package export

import "github.com/gofrs/flock"

// lockOptions are gofrs/flock's defaults here; the lock file is checked before it is opened
// (checkLockFile) and after it is locked.
func lockOptions() []flock.Option { return nil }
