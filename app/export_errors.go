package app

import (
	"errors"

	"mandelscope/export"
)

// exportErrorText phrases an export error for the window: the export library says what
// happened, and this adds what to do here (the command line adds its flags instead).
func exportErrorText(err error) string {
	var ee *export.Error
	if !errors.As(err, &ee) {
		return err.Error()
	}
	advice := ""
	switch ee.Kind {
	case export.ErrInterrupted:
		if ee.Kept {
			advice = "Export the same file again to resume it."
		}
	case export.ErrNoSpace:
		if ee.Kept {
			advice = "Free some space, then export the same file again to resume it."
		}
	case export.ErrParamsDiffer:
		advice = "Go back to the same view and settings to resume, or choose Start over."
	case export.ErrRendererDiffers:
		advice = "Resume where that renderer is available, or choose Start over."
	case export.ErrDamaged:
		advice = "Export the same file again and choose Start over."
	case export.ErrBusy:
		advice = "Wait for it to finish, or choose another name."
	case export.ErrAppeared:
		advice = "Move that file away and export the same file again to resume (it publishes at once)."
	case export.ErrIsFolder:
		if ee.Kept {
			advice = "Move that folder away and export the same file again to resume (it publishes at once)."
		} else {
			advice = "Choose another file name."
		}
	case export.ErrBadLock:
		advice = "No export made it: move it away, then export again."
	}
	if advice == "" {
		return err.Error()
	}
	return err.Error() + ". " + advice
}
