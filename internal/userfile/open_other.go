//go:build !unix

package userfile

import "os"

// openNonblock opens path for reading. Without O_NONBLOCK (Windows: opening a pipe there
// does not wait for a writer), Open's check of the file's type follows the open.
func openNonblock(path string) (*os.File, error) {
	return os.Open(path)
}

// oNoFollow is 0 where the system has no O_NOFOLLOW: O_EXCL alone then keeps a create
// from opening what a link points to.
const oNoFollow = 0
