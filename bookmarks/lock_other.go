//go:build !unix

package bookmarks

import "os"

// lockFile creates the lock file; systems without flock get no cross-process lock.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}
