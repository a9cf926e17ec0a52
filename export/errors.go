package export

import (
	"errors"
	"fmt"
)

// The kinds of error Export returns about an export's files. Each error Export returns for
// one of these cases is an *Error whose Kind is the sentinel (errors.Is(err, ErrExists) works),
// and its text says what happened without advice: a front end adds the advice that fits its
// own controls (the command line names --force and --resume; the window offers buttons).
var (
	// ErrInterrupted: ctx was cancelled (or the export was stopped); see Error.Kept.
	ErrInterrupted = errors.New("interrupted")
	// ErrNoSpace: the disk is full; see Error.Kept.
	ErrNoSpace = errors.New("no space left")
	// ErrExists: the output file exists and Options.Overwrite is not set.
	ErrExists = errors.New("the file exists")
	// ErrAppeared: the output file appeared while the export ran; the finished image is kept
	// as the .part (with its checkpoint, so that a resume publishes it at once).
	ErrAppeared = errors.New("the file appeared during the export")
	// ErrUnfinished: a .part is left from an earlier export and neither Resume nor Overwrite
	// is set. Error.Kept says whether it has a checkpoint (whether Resume can continue it).
	ErrUnfinished = errors.New("an unfinished export of the file is left")
	// ErrBusy: another export of the same file holds its lock.
	ErrBusy = errors.New("another export of the same file is running")
	// ErrBadLock: the output's lock file (LockPath) is not a plain file (a symbolic link, a
	// folder, a named pipe): no export made it, and none takes a lock through it.
	ErrBadLock = errors.New("the lock file is not a plain file")
	// ErrNotFolder: the output's folder is missing or not a folder.
	ErrNotFolder = errors.New("not a folder")
	// ErrIsFolder: the output (or its .part or checkpoint) is a folder, or a link to one. When
	// a folder appeared at the output during the export, Error.Kept says that the finished
	// image is kept as the .part, with its checkpoint, for a resume to publish.
	ErrIsFolder = errors.New("the output is a folder")

	// ErrShards: the shards Assemble joins are missing, unfinished, damaged or disagree;
	// the message names each one.
	ErrShards = errors.New("shards missing or damaged")

	// ErrCannotResume is matched (errors.Is) by every reason a resume is refused, below; the
	// .part and checkpoint are always left as they were.
	ErrCannotResume = errors.New("cannot resume")
	// ErrNothingToResume: there is no checkpoint (Error.Kept says whether a .part without
	// one exists).
	ErrNothingToResume = errors.New("nothing to resume")
	// ErrParamsDiffer: the checkpoint was made for another view, size or settings.
	ErrParamsDiffer = errors.New("different parameters")
	// ErrRendererDiffers: the checkpoint was made by a renderer (or precision mode) that
	// draws other pixels than this one; Error.Was and Error.Now name them.
	ErrRendererDiffers = errors.New("different renderer")
	// ErrDamaged: the checkpoint or the .part does not verify (changed, truncated, or from
	// another program version).
	ErrDamaged = errors.New("damaged")
)

// Error is an error about an export's files.
type Error struct {
	Kind error  // one of the Err* sentinels above
	Path string // the file concerned (the output, its .part or its checkpoint)
	Msg  string // what happened, for people; no advice

	Done, Strips int  // ErrInterrupted, ErrNoSpace: strips durable, of how many
	Kept         bool // the .part and its checkpoint are on disk (for ErrUnfinished and ErrNothingToResume: a .part is, with or without a checkpoint)
	Was, Now     string
	// RawDiffers (ErrParamsDiffer): what differs is the raw file alone; Was names the one
	// the checkpoint's export wrote and Now this export's ("" for none, or for Was a
	// checkpoint that does not record it).
	RawDiffers bool
	Err        error // the underlying error, if any
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the kind and the underlying error.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

// Is makes every resume refusal match ErrCannotResume.
func (e *Error) Is(target error) bool {
	if target == ErrCannotResume {
		switch e.Kind {
		case ErrCannotResume, ErrNothingToResume, ErrParamsDiffer, ErrRendererDiffers, ErrDamaged:
			return true
		}
	}
	return false
}

func newError(kind error, path string, format string, a ...any) *Error {
	return &Error{Kind: kind, Path: path, Msg: fmt.Sprintf(format, a...)}
}

// resumeError is a refusal to resume: "cannot resume: " and the reason.
func resumeError(kind error, path string, format string, a ...any) *Error {
	return &Error{Kind: kind, Path: path, Msg: "cannot resume: " + fmt.Sprintf(format, a...), Kept: true}
}

func isKind(err, kind error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind
}
