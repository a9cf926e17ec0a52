package export

// The output's files: the checks before an export touches anything, a fresh .part, and what
// is left on disk after a failure.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// checkFolder checks that dir, the folder of an output file, exists and is a folder; the
// error (of kind ErrNotFolder) names the first part of the path that is not a folder, as in
// "/etc/passwd is a file, not a folder".
func checkFolder(dir string) error {
	st, err := os.Stat(dir)
	if err == nil {
		if st.IsDir() {
			return nil
		}
		return newError(ErrNotFolder, dir, "%s is a file, not a folder", dir)
	}
	// Find the longest existing prefix: a file there, or the first missing folder.
	for d := dir; ; {
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		if st, perr := os.Stat(parent); perr == nil {
			if !st.IsDir() {
				return newError(ErrNotFolder, dir, "%s is a file, not a folder", parent)
			}
			if errors.Is(err, os.ErrNotExist) {
				return newError(ErrNotFolder, dir, "folder %s does not exist", dir)
			}
			break
		}
		d = parent
	}
	if errors.Is(err, os.ErrNotExist) {
		return newError(ErrNotFolder, dir, "folder %s does not exist", dir)
	}
	return &Error{Kind: ErrNotFolder, Path: dir, Msg: fmt.Sprintf("folder %s: %v", dir, err), Err: err}
}

// checkTarget refuses an output path that is a folder, or a link to one, and a .part or
// checkpoint that is: no overwrite or resume could use it (a rename onto a folder fails, and
// so does removing one), so it is said at once, as "out.png is a folder, not a file".
func checkTarget(path string) error {
	for _, p := range []string{path, PartPath(path), CheckpointPath(path)} {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return isFolderError(p)
		}
	}
	return nil
}

func isFolderError(path string) *Error {
	return newError(ErrIsFolder, path, "%s is a folder, not a file", path)
}

// Precheck says, without changing anything, whether an export to path with these resume and
// overwrite settings would be refused for the state of its files, with the error Export would
// return: a missing folder, an output that is a folder (ErrIsFolder), another export running
// (ErrBusy), a lock file that is not a plain file (ErrBadLock), an existing file, a .part left
// (or none to resume). A front end calls it to refuse early; Export checks again under its
// lock.
func Precheck(path string, resume, overwrite bool) error {
	if err := checkFolder(filepath.Dir(path)); err != nil {
		return err
	}
	if err := checkTarget(path); err != nil {
		return err
	}
	if err := checkLock(path); err != nil {
		return err
	}
	return checkFiles(path, resume, overwrite)
}

// checkFiles refuses an existing output without overwrite, a .part or checkpoint left from
// an earlier export without resume or overwrite, and a resume without a checkpoint.
func checkFiles(path string, resume, overwrite bool) error {
	if err := checkTarget(path); err != nil {
		return err
	}
	if _, err := os.Lstat(path); err == nil {
		if !overwrite {
			return newError(ErrExists, path, "%s already exists", path)
		}
	}
	part, ckpt := PartPath(path), CheckpointPath(path)
	_, partErr := os.Lstat(part)
	_, ckErr := os.Lstat(ckpt)
	hasPart, hasCkpt := partErr == nil, ckErr == nil
	switch {
	case resume && !hasCkpt && hasPart:
		return &Error{Kind: ErrNothingToResume, Path: part, Kept: true,
			Msg: fmt.Sprintf("nothing to resume: %s has no checkpoint (it saved no progress)", part)}
	case resume && !hasCkpt:
		return &Error{Kind: ErrNothingToResume, Path: ckpt,
			Msg: fmt.Sprintf("nothing to resume: no interrupted export of %s (no %s)", path, ckpt)}
	case !resume && !overwrite && (hasPart || hasCkpt):
		return &Error{Kind: ErrUnfinished, Path: part, Kept: hasPart && hasCkpt, Msg: unfinishedText(part, hasPart, hasCkpt)}
	}
	return nil
}

func unfinishedText(part string, hasPart, hasCkpt bool) string {
	switch {
	case hasPart && hasCkpt:
		return part + " is left from an interrupted export"
	case hasPart:
		return part + " is left from an export that saved no checkpoint (nothing in it can be resumed)"
	default:
		return "a checkpoint without its " + part + " is left from an interrupted export"
	}
}

// openFresh starts a new .part. An old .part is removed first, never truncated or written
// through: it may share its data with another file (a hard link, or a link-then-remove
// publish of an older version interrupted halfway), which must not change.
func (e *exporter) openFresh() error {
	os.Remove(e.ckpt)
	if err := os.Remove(e.part); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(e.part, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	e.out = &crcSink{sink: e.wrap(f)}
	return nil
}

func (e *exporter) wrap(f sink) sink {
	if e.opt.wrapPart != nil {
		return e.opt.wrapPart(f)
	}
	return f
}

// fail turns an error into what the caller is told, and tidies up: a full disk removes a
// fresh export's .part (freeing the space) but keeps a resumed one's, cut back to its last
// checkpoint; an interrupt or another error keeps the .part with its checkpoint.
func (e *exporter) fail(err error) error {
	real := e.opt.openPart == nil
	if isDiskFull(err) || errors.Is(err, ErrNoSpace) {
		dir := filepath.Dir(e.part)
		x := &Error{Kind: ErrNoSpace, Path: e.part, Done: e.lastCk.NextStrip, Strips: e.plan.Strips, Err: err}
		need := humanBytes(EstimateSize(e.opt.Width, e.opt.Height))
		if e.resumed && real {
			// Keep what the resume continued from, and what it added: the checkpoint on disk
			// describes the .part's first lastCk.Offset bytes; the rest is dropped.
			os.Truncate(e.part, e.lastCk.Offset)
			x.Kept = true
			x.Msg = fmt.Sprintf("no space left on %s: the export may need up to about %s; kept %s and its checkpoint (%d of %d strips done)",
				dir, need, filepath.Base(e.part), e.lastCk.NextStrip, e.plan.Strips)
			return x
		}
		if real {
			os.Remove(e.part)
			os.Remove(e.ckpt)
		}
		x.Msg = fmt.Sprintf("no space left on %s: the export may need up to about %s; the partial file %s was removed", dir, need, filepath.Base(e.part))
		return x
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrInterrupted) {
		x := &Error{Kind: ErrInterrupted, Path: e.part, Done: int(e.done.Load()), Strips: e.plan.Strips}
		if _, statErr := os.Stat(e.ckpt); statErr == nil || !real {
			x.Kept = true
			x.Msg = fmt.Sprintf("interrupted after %d of %d strips: kept %s and its checkpoint", x.Done, x.Strips, e.part)
			return x
		}
		os.Remove(e.part)
		x.Msg = "interrupted before anything was written"
		return x
	}
	if _, statErr := os.Stat(e.ckpt); statErr == nil && real {
		return &Error{Kind: ErrInterrupted, Path: e.part, Done: int(e.done.Load()), Strips: e.plan.Strips, Kept: true, Err: err,
			Msg: fmt.Sprintf("%v (kept %s and its checkpoint)", err, filepath.Base(e.part))}
	}
	if real {
		os.Remove(e.part)
	}
	return err
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// HumanBytes formats a byte count for people (kB, MB, GB in powers of 1024).
func HumanBytes(n int64) string { return humanBytes(n) }
