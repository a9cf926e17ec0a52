//go:build !unix && !windows

package main

import "errors"

// freeSpace is not known on this system; the low-space warning is skipped.
func freeSpace(dir string) (int64, error) {
	return 0, errors.New("free space unknown on this system")
}
