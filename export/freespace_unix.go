//go:build unix

package export

import "golang.org/x/sys/unix"

// FreeSpace returns the bytes that an unprivileged user may still write in the file system
// that holds dir.
func FreeSpace(dir string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}
