//go:build windows

package export

import "golang.org/x/sys/windows"

// FreeSpace returns the bytes that the current user may still write on the volume that holds
// dir (it honours disk quotas).
func FreeSpace(dir string) (int64, error) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, err
	}
	var avail, total, free uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, &total, &free); err != nil {
		return 0, err
	}
	return int64(min(avail, 1<<62)), nil
}
