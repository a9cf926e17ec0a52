package export

// Publishing a finished export: the .part renamed into place.

import (
	"errors"
	"os"
)

// publish renames the finished .part to path: one atomic rename, after which the image and
// any later .part are different files. Without overwrite it never replaces a file that
// appeared meanwhile: renameat2(RENAME_NOREPLACE) where the system has it, else a check
// under the target's lock (which keeps other exports out; only another program could
// create path between the check and the rename there).
func publish(part, path string, overwrite bool) error {
	// A folder that appeared meanwhile is never replaced, even with overwrite (the rename
	// would fail on it): the image waits as the .part.
	folder := func() error {
		x := newError(ErrIsFolder, path, "%s is a folder, not a file (it appeared during the export); the finished image is kept as %s", path, part)
		x.Kept = true
		return x
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return folder()
	}
	if overwrite {
		return os.Rename(part, path)
	}
	appeared := func() error {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return folder()
		}
		return newError(ErrAppeared, path, "%s appeared during the export; the finished image is kept as %s", path, part)
	}
	ok, err := renameNoReplace(part, path)
	if ok {
		if errors.Is(err, os.ErrExist) {
			return appeared()
		}
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		return appeared()
	}
	return os.Rename(part, path)
}

// publish publishes the export's files: the raw file, then the PNG. Without overwrite, a
// file that appeared at either place during the export is found before either is renamed,
// so that both wait as their .part files for a resume.
func (e *exporter) publish() error {
	type target struct{ part, path string }
	var ts []target
	if e.rawPart != "" {
		ts = append(ts, target{e.rawPart, e.opt.Raw})
	}
	if e.png {
		ts = append(ts, target{e.part, e.sum.Path})
	}
	for _, t := range ts {
		if st, err := os.Stat(t.path); err == nil && st.IsDir() {
			return publish(t.part, t.path, e.opt.Overwrite)
		}
		if _, err := os.Lstat(t.path); err == nil && !e.opt.Overwrite {
			return publish(t.part, t.path, false)
		}
	}
	for _, t := range ts {
		if err := publish(t.part, t.path, e.opt.Overwrite); err != nil {
			return err
		}
	}
	return nil
}
