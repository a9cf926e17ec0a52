package export

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
)

// TestIsDiskFull: this system's full-disk errors are recognised, bare, in an *os.PathError and
// wrapped further; other errors are not.
func TestIsDiskFull(t *testing.T) {
	for _, e := range diskFullErrs {
		for _, err := range []error{e, &os.PathError{Op: "write", Path: "x.png.part", Err: e}, fmt.Errorf("strip 3: %w", &os.PathError{Op: "write", Path: "x", Err: e})} {
			if !isDiskFull(err) {
				t.Errorf("isDiskFull(%v) = false", err)
			}
		}
	}
	for _, err := range []error{nil, io.ErrShortWrite, os.ErrPermission, &os.PathError{Op: "write", Path: "x", Err: syscall.EINVAL}, errors.New("no space left on device")} {
		if isDiskFull(err) {
			t.Errorf("isDiskFull(%v) = true", err)
		}
	}
}
