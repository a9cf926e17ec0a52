package export

import (
	"errors"
	"io/fs"
	"os"
)

// Discard removes what an interrupted export of path (and of raw, the raw file, when it
// wrote one: "" for none) left to resume from, and nothing else: path's .part, raw's .part
// and the checkpoint, each only while it is a plain file (a link or a folder at such a name
// is not the export's, and stays). The finished files, if any, are not touched. It holds the
// outputs' locks while it removes, so that it never removes the files of an export that is
// running (an error of kind ErrBusy). It returns the files it removed (none: nothing was
// left).
func Discard(path, raw string) (removed []string, err error) {
	outs := outputs(path, raw)
	if len(outs) == 0 {
		return nil, errors.New("no output file: give a PNG, a raw file or both")
	}
	for _, p := range outs {
		lock, err := lockTarget(p)
		if err != nil {
			return nil, err
		}
		defer lock.release()
	}
	files := []string{CheckpointPath(outs[0])}
	for _, p := range outs {
		files = append(files, PartPath(p))
	}
	for _, f := range files {
		st, err := os.Lstat(f)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return removed, err
		}
		if !st.Mode().IsRegular() {
			continue
		}
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, err
		}
		removed = append(removed, f)
	}
	return removed, nil
}
