// Progress of background jobs (exports, videos) in the window: one row per job over the
// picture's bottom edge, with its bar, what it did, its speed and time left, and a button to
// cancel it (then to close the row). Unlike a window of its own, which the window manager
// may put over the main window's menus, the row leaves the menus usable and the picture's
// size as it is (nothing is rendered again).

package app

import (
	"fmt"
	"math"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// progressRow is one job's row.
type progressRow struct {
	w      *Window
	obj    fyne.CanvasObject
	title  *widget.Label
	bar    *widget.ProgressBar
	status *widget.Label
	button *widget.Button
	// buttons holds button, and the Discard button a cancelled job offers (offerDiscard)
	buttons *fyne.Container
	discard *widget.Button
	closed  bool
}

// addProgress adds a row titled title for a job; its button, labelled Cancel, calls cancel
// until finish turns it into Close.
func (w *Window) addProgress(title string, cancel func()) *progressRow {
	r := &progressRow{w: w}
	r.title = widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.bar = widget.NewProgressBar()
	r.bar.TextFormatter = func() string { return percentText(r.bar.Value) } // as the status line says it
	r.status = widget.NewLabel("")
	r.status.Wrapping = fyne.TextWrapWord
	r.button = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), cancel)
	bg := canvas.NewRectangle(theme.Color(theme.ColorNameOverlayBackground))
	bg.StrokeColor, bg.StrokeWidth = theme.Color(theme.ColorNameSeparator), 1
	r.buttons = container.NewVBox(r.button)
	body := container.NewBorder(r.title, nil, nil, r.buttons, container.NewVBox(r.bar, r.status))
	r.obj = container.NewStack(bg, container.NewPadded(body))
	w.progress.Add(r.obj)
	w.progressBox.Refresh()
	return r
}

// finish turns the row's button into Close, which removes the row.
func (r *progressRow) finish() {
	r.button.SetText("Close")
	r.button.SetIcon(theme.ConfirmIcon())
	r.button.OnTapped = r.close
}

// offerDiscard is for a finished row whose job was cancelled and kept its files to resume
// from: its buttons become Discard, which calls discard (it removes those files, and only
// those, and says what it did or why it could not) and then leaves Close, and Keep to
// Resume, which closes the row keeping them.
func (r *progressRow) offerDiscard(discard func() (string, error)) {
	r.button.SetText("Keep to Resume")
	r.discard = widget.NewButtonWithIcon("Discard", theme.DeleteIcon(), func() {
		msg, err := discard()
		if err != nil {
			msg = "Not discarded: " + err.Error()
		}
		r.status.SetText(wrapText(msg, dialogTextWidth))
		if err == nil {
			r.buttons.Remove(r.discard)
			r.button.SetText("Close")
		}
	})
	r.discard.Importance = widget.DangerImportance
	r.buttons.Objects = []fyne.CanvasObject{r.discard, r.button}
	r.buttons.Refresh()
	r.w.progressBox.Refresh()
}

// close removes the row from the window.
func (r *progressRow) close() {
	if r.closed {
		return
	}
	r.closed = true
	r.w.progress.Remove(r.obj)
	r.w.progressBox.Refresh()
}

// progressWidth is the rows' width: what the picture holds at its least width.
const progressWidth = minViewW - 40

// progressLayout puts the rows at the picture's bottom left, progressWidth wide (the panel may
// cover the right), each as tall as it asks.
type progressLayout struct{}

func (progressLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var h float32
	for _, o := range objs {
		if o.Visible() {
			h += o.MinSize().Height + theme.Padding()
		}
	}
	return fyne.NewSize(progressWidth, h)
}

func (progressLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	y := size.Height
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		if !o.Visible() {
			continue
		}
		h := o.MinSize().Height
		y -= h + theme.Padding()
		o.Move(fyne.NewPos(theme.Padding(), y))
		o.Resize(fyne.NewSize(min(progressWidth, size.Width-2*theme.Padding()), h))
	}
}

// newProgressArea is the container of the rows and what lays it over the picture.
func newProgressArea() (rows *fyne.Container, area *fyne.Container) {
	rows = container.New(progressLayout{})
	return rows, container.NewBorder(nil, rows, nil, nil)
}

// percentText writes a share done (0 to 1) as a whole percentage, the one rule of every
// progress figure in the window (a row's bar and its line, the status bar's "refining" and
// "reference"): rounded down, so that 100% means done, with a millionth of slack so that a share
// such as 0.29, 28.999... percent in binary, reads 29%.
func percentText(f float64) string {
	if !(f > 0) {
		return "0%"
	}
	return fmt.Sprintf("%d%%", int(math.Floor(min(f, 1)*100+1e-6)))
}

// speedText writes an output speed for people from the pixels done in elapsed: "3.2 Mpx/s",
// "41 kpx/s", "850 px/s"; "measuring" before anything is done.
func speedText(pixels int64, elapsed time.Duration) string {
	s := elapsed.Seconds()
	if pixels <= 0 || s <= 0 {
		return "measuring speed"
	}
	r := float64(pixels) / s
	switch {
	case r >= 10e6:
		return fmt.Sprintf("%.0f Mpx/s", r/1e6)
	case r >= 1e6:
		return fmt.Sprintf("%.1f Mpx/s", r/1e6)
	case r >= 10e3:
		return fmt.Sprintf("%.0f kpx/s", r/1e3)
	case r >= 1e3:
		return fmt.Sprintf("%.1f kpx/s", r/1e3)
	}
	return fmt.Sprintf("%.0f px/s", r)
}
