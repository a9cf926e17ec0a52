package video

import (
	"errors"
	"io/fs"
	"os"
)

// Discard removes what an interrupted video of opt left to resume from: its work folder's own
// files (keyframes, manifest, job, reference, segments, the encoding folder), then the folder
// when nothing else is in it (anything else put there stays, and so does the folder). It
// holds the work folder's lock while it does, so that it never removes the keyframes of a
// video being made (an error of kind ErrBusy). kept reports whether the folder is still
// there.
func Discard(opt Options) (kept bool, err error) {
	work := WorkDir(opt)
	if _, err := os.Lstat(work); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	unlock, err := lockWork(work, false, videoName(opt))
	if err != nil {
		return true, err
	}
	defer unlock()
	if err := removeWork(work); err != nil {
		return true, err
	}
	_, err = os.Lstat(work)
	return err == nil, nil
}
