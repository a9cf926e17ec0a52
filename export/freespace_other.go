//go:build !unix && !windows

package export

import "errors"

// FreeSpace is not known on this system; the low-space warning is skipped.
func FreeSpace(dir string) (int64, error) {
	return 0, errors.New("free space unknown on this system")
}
