package export

// The output's files: the checks before an export touches anything, a fresh .part, and what
// is left on disk after a failure.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"mandelscope/exr"
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

// PrecheckShard is Precheck for shard i of n of the export to path: its folder, its file
// (not a folder), its lock file (ErrBadLock). What earlier runs left is the shard's to
// continue or keep, and another run holding its lock is waited for or refused (see
// Options.Shards, Options.WaitLock).
func PrecheckShard(path string, i, n int) error {
	sp := ShardPath(path, i, n)
	if err := checkFolder(filepath.Dir(sp)); err != nil {
		return err
	}
	if err := checkTarget(sp); err != nil {
		return err
	}
	return checkLockFile(LockPath(sp))
}

// PrecheckOutputs is Precheck for an export to a PNG (png, "" for none) and a raw file (raw,
// "" for none): the checkpoint of such an export is the PNG's when there is one, else the
// raw file's.
func PrecheckOutputs(png, raw string, resume, overwrite bool) error {
	for _, p := range outputs(png, raw) {
		if err := checkFolder(filepath.Dir(p)); err != nil {
			return err
		}
		if err := checkTarget(p); err != nil {
			return err
		}
		if err := checkLock(p); err != nil {
			return err
		}
	}
	return checkOutputs(png, raw, resume, overwrite)
}

// checkOutputs is checkFiles for the export's files: the first of them (the PNG when there
// is one) holds the checkpoint; the raw file beside a PNG has its .part and no checkpoint of
// its own.
func checkOutputs(png, raw string, resume, overwrite bool) error {
	outs := outputs(png, raw)
	if err := checkFiles(outs[0], resume, overwrite); err != nil || len(outs) == 1 {
		return err
	}
	if err := checkTarget(raw); err != nil {
		return err
	}
	if _, err := os.Lstat(raw); err == nil && !overwrite {
		return newError(ErrExists, raw, "%s already exists", raw)
	}
	part := PartPath(raw)
	_, partErr := os.Lstat(part)
	if partErr == nil && !resume && !overwrite {
		return &Error{Kind: ErrUnfinished, Path: part, Kept: true, Msg: part + " is left from an interrupted export"}
	}
	return nil
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
	if e.png {
		f, err := createPart(e.part)
		if err != nil {
			return err
		}
		e.out = &crcSink{sink: e.wrap(f)}
	}
	if e.opt.Raw != "" {
		f, err := createPart(e.rawPart)
		if err == nil {
			err = e.startRaw(f)
		}
		if err != nil {
			if e.out != nil {
				e.out.Close()
				os.Remove(e.part)
			}
			return err
		}
	}
	return nil
}

// createPart makes a new, empty .part, removing an old one first (see openFresh).
func createPart(part string) (*os.File, error) {
	if err := os.Remove(part); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return os.OpenFile(part, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
}

// startRaw writes the raw file's header to the fresh .part f and sets up its sink.
func (e *exporter) startRaw(f *os.File) error {
	rf := &rawFile{File: f}
	w, err := exr.NewWriter(rf, e.rawHdr)
	if err == nil {
		e.raw, err = newRawSink(rf, w, e.rawHdr, e.plan.StripRows*e.plan.N)
	}
	if err != nil {
		f.Close()
		os.Remove(e.rawPart)
		if rf.err != nil {
			err = rf.err
		}
	}
	return err
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
	mp, kept, keptBase := e.part, e.part, filepath.Base(e.part) // the .part named first; what is kept
	switch {
	case !e.png:
		mp, kept, keptBase = e.rawPart, e.rawPart, filepath.Base(e.rawPart)
	case e.rawPart != "":
		kept += " and " + e.rawPart
		keptBase += " and " + filepath.Base(e.rawPart)
	}
	if e.raw != nil && e.raw.f.err != nil && isDiskFull(e.raw.f.err) {
		err = e.raw.f.err
	}
	// removeParts removes the .part files (and with ckpt the checkpoint).
	removeParts := func(ckpt bool) {
		if e.png {
			os.Remove(e.part)
		}
		if e.rawPart != "" {
			os.Remove(e.rawPart)
		}
		if ckpt {
			os.Remove(e.ckpt)
		}
	}
	if isDiskFull(err) || errors.Is(err, ErrNoSpace) {
		dir := filepath.Dir(mp)
		x := &Error{Kind: ErrNoSpace, Path: mp, Done: e.lastCk.NextStrip, Strips: e.plan.Strips, Err: err}
		need := humanBytes(e.estimate())
		if e.resumed {
			// Keep what the resume continued from, and what it added: the checkpoint on disk
			// describes the .part's first lastCk.Offset bytes; the rest is dropped.
			if e.png {
				os.Truncate(e.part, e.lastCk.Offset)
			}
			if e.rawPart != "" {
				os.Truncate(e.rawPart, e.lastCk.RawOffset)
			}
			x.Kept = true
			x.Msg = fmt.Sprintf("no space left on %s: the export may need up to about %s; kept %s and its checkpoint (%d of %d strips done)",
				dir, need, keptBase, e.lastCk.NextStrip, e.plan.Strips)
			return x
		}
		removeParts(true)
		x.Msg = fmt.Sprintf("no space left on %s: the export may need up to about %s; the partial file %s was removed", dir, need, filepath.Base(mp))
		return x
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrInterrupted) {
		x := &Error{Kind: ErrInterrupted, Path: mp, Done: int(e.done.Load()), Strips: e.plan.Strips}
		if _, statErr := os.Stat(e.ckpt); statErr == nil {
			x.Kept = true
			x.Msg = fmt.Sprintf("interrupted after %d of %d strips: kept %s and its checkpoint", x.Done, x.Strips, kept)
			return x
		}
		removeParts(false)
		x.Msg = "interrupted before anything was written"
		return x
	}
	if _, statErr := os.Stat(e.ckpt); statErr == nil {
		return &Error{Kind: ErrInterrupted, Path: mp, Done: int(e.done.Load()), Strips: e.plan.Strips, Kept: true, Err: err,
			Msg: fmt.Sprintf("%v (kept %s and its checkpoint)", err, keptBase)}
	}
	removeParts(false)
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

// estimate is the most space the export's files may need: EstimateSize for the PNG, and for
// the raw file 16 bytes a sample, 24 with the orbit channels T and STRIPE (its chunks are
// stored uncompressed when deflate does not make them smaller).
func (e *exporter) estimate() int64 {
	n := int64(0)
	if e.png {
		n += EstimateSize(e.opt.Width, e.opt.Height)
	}
	if e.rawPart != "" {
		n += EstimateRawSize(e.plan.W, e.plan.H, e.plan.N)
		if e.opt.Location.OrbitPath() {
			n += int64(e.plan.W) * int64(e.plan.N) * int64(e.plan.H) * int64(e.plan.N) * 8
		}
	}
	return n
}

// EstimateRawSize is the most a raw file of a w x h export with n x n supersampling takes:
// 16 bytes a sample, its header and offset table.
func EstimateRawSize(w, h, n int) int64 {
	lines := int64(h) * int64(n)
	return lines*int64(w)*int64(n)*16 + (lines/exr.LinesPerChunk+1)*16 + 1<<17
}
