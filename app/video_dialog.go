package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/fractal"
	"mandelscope/video"
)

// The video dialog: File > Export Video... opens a form (start zoom, frame size, frames a
// second, duration, folder and file name, what it will compute); the video of a zoom from the
// start zoom to the current view is then made in the background (video.Make) with a small
// progress window (keyframes, then frames, Cancel). An interrupted video is offered for
// resuming the next time the same file is chosen.

// installVideo adds File > Export Video... to w.
func installVideo(w *Window) *videoUI {
	ui := &videoUI{w: w}
	w.AddMenuItem("File", fyne.NewMenuItem("Export Video...", ui.show))
	return ui
}

// videoUI is the video form and the video it started.
type videoUI struct {
	w *Window

	dlg      *dialog.CustomDialog
	start    *widget.Entry
	size     *widget.Entry
	fps      *widget.Entry
	duration *widget.Entry
	folder   *widget.Entry
	name     *widget.Entry
	estimate *widget.Label
	problem  *widget.Label
	makeBt   *widget.Button

	mu      sync.Mutex
	running *videoRun
}

// videoRun is one video being made.
type videoRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	win    fyne.Window
	bar    *widget.ProgressBar
	status *widget.Label
	button *widget.Button
}

func (ui *videoUI) show() {
	if ui.dlg == nil {
		ui.build()
	}
	ui.refresh()
	ui.w.showDialog(ui.dlg)
}

func (ui *videoUI) build() {
	entry := func(text string) *widget.Entry {
		e := widget.NewEntry()
		e.SetText(text)
		e.OnChanged = func(string) { ui.refresh() }
		return e
	}
	ui.start = entry("1")
	ui.size = entry("1280x720")
	ui.fps = entry("30")
	ui.duration = entry("10")
	ui.folder = entry(defaultExportFolder())
	ui.name = entry("mandelscope-zoom-" + time.Now().Format("20060102-150405") + ".mp4")
	ui.estimate = widget.NewLabel("")
	ui.estimate.Wrapping = fyne.TextWrapWord
	ui.problem = widget.NewLabel("")
	ui.problem.Importance = widget.DangerImportance
	ui.problem.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem("Start zoom", ui.start),
		widget.NewFormItem("Frame size", ui.size),
		widget.NewFormItem("Frames a second", ui.fps),
		widget.NewFormItem("Duration (s)", ui.duration),
		widget.NewFormItem("Folder", ui.folder),
		widget.NewFormItem("File name", ui.name),
		widget.NewFormItem("Work", ui.estimate),
	)
	ui.dlg = dialog.NewCustom("Export video: a zoom to this view", "Cancel", container.NewVBox(form, ui.problem), ui.w.win)
	ui.makeBt = widget.NewButtonWithIcon("Make Video", theme.MediaVideoIcon(), ui.confirm)
	ui.makeBt.Importance = widget.HighImportance
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() { ui.dlg.Hide() })
	ui.dlg.SetButtons([]fyne.CanvasObject{cancel, ui.makeBt})
	ui.dlg.Resize(fyne.NewSize(520, 0))
}

// options reads the form into the video's options (the current view as the end, its
// automatic density made the number the window drew with), or says what is wrong.
func (ui *videoUI) options() (video.Options, error) {
	var o video.Options
	o.Location = ui.w.Location()
	o.Location.Color.AutoDensity = false
	z, err := fractal.ParseDecimal(strings.TrimSpace(ui.start.Text))
	if err != nil || fractal.CheckZoom(z) != nil || z.Exp().Sign() <= 0 {
		return o, fmt.Errorf("start zoom %q must be a number from %g to the view's zoom", ui.start.Text, fractal.MinZoom)
	}
	o.StartZoom = z
	if o.Width, o.Height, err = parseWxH(ui.size.Text); err != nil {
		return o, err
	}
	if o.FPS, err = strconv.Atoi(strings.TrimSpace(ui.fps.Text)); err != nil {
		return o, fmt.Errorf("frames a second %q must be a whole number", ui.fps.Text)
	}
	if o.Duration, err = strconv.ParseFloat(strings.TrimSpace(ui.duration.Text), 64); err != nil {
		return o, fmt.Errorf("duration %q must be a number of seconds", ui.duration.Text)
	}
	// The container (the extension) is the video package's to check.
	o.Output, err = outputPath(ui.folder.Text, ui.name.Text, "")
	return o, err
}

// refresh updates the work estimate, the problem line and the button.
func (ui *videoUI) refresh() {
	if ui.makeBt == nil {
		return
	}
	o, err := ui.options()
	if err == nil {
		// Existing files are asked about on Make Video; everything else is checked now.
		check := o
		check.Force, check.Resume = true, dirExists(video.WorkDir(o))
		err = video.Check(check)
	}
	if err == nil {
		n, _ := video.Frames(o.FPS, o.Duration)
		p, _ := video.NewPlan(o.StartZoom, o.Location.Zoom, n)
		ui.estimate.SetText(fmt.Sprintf("%d frames from %d keyframes of %dx%d (one per doubling of the zoom), each computed once",
			n, p.Keyframes(), video.DefaultKeyScale*o.Width, video.DefaultKeyScale*o.Height))
	} else {
		ui.estimate.SetText("")
	}
	ui.mu.Lock()
	busy := ui.running != nil
	ui.mu.Unlock()
	switch {
	case err != nil:
		ui.problem.SetText(capitalise(err.Error()))
		ui.makeBt.Disable()
	case busy:
		ui.problem.SetText("A video is being made; wait for it or cancel it.")
		ui.makeBt.Disable()
	default:
		ui.problem.SetText("")
		ui.makeBt.Enable()
	}
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// confirm starts the video, asking first whether to resume an interrupted one of the same
// file or to replace an existing file.
func (ui *videoUI) confirm() {
	o, err := ui.options()
	if err != nil {
		ui.problem.SetText(capitalise(err.Error()))
		return
	}
	run := func(o video.Options) {
		ui.dlg.Hide()
		ui.run(o)
	}
	_, statErr := os.Lstat(o.Output)
	exists := statErr == nil
	if dirExists(video.WorkDir(o)) {
		ui.w.showConfirm("Interrupted video", filepath.Base(o.Output)+" has the keyframes of an interrupted video. Resume it (the same view, start zoom and size), or start over?",
			"Resume", "Start over", func(resume bool) {
				o.Resume, o.Force = resume, !resume || exists
				run(o)
			})
		return
	}
	if exists {
		ui.w.showConfirm("Replace file?", filepath.Base(o.Output)+" already exists. Replace it?", "Replace", "Cancel", func(ok bool) {
			if ok {
				o.Force = true
				run(o)
			}
		})
		return
	}
	run(o)
}

// computer is what computes the keyframes: the window's renderer when it computes samples,
// else the CPU renderer.
func (ui *videoUI) computer() computer {
	if c, ok := ui.w.rend.get().(computer); ok {
		return c
	}
	return ui.w.cpu
}

// stop cancels the video being made, if any, and waits for it (its keyframes stay, for a
// resume); the window calls it as it closes.
func (ui *videoUI) stop() {
	ui.mu.Lock()
	run := ui.running
	ui.mu.Unlock()
	if run != nil {
		run.cancel()
		<-run.done
	}
}

// run makes the video in the background with a progress window.
func (ui *videoUI) run(o video.Options) {
	ctx, cancel := context.WithCancel(context.Background())
	r := &videoRun{cancel: cancel, done: make(chan struct{})}
	r.win = ui.w.app.NewWindow("Making " + filepath.Base(o.Output))
	r.bar = widget.NewProgressBar()
	r.status = widget.NewLabel("Starting...")
	r.button = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		cancel()
		r.status.SetText("Cancelling (the keyframes done are kept)...")
	})
	r.win.SetContent(container.NewVBox(widget.NewLabel(wrapText(o.Output, dialogTextWidth)), r.bar, r.status, r.button))
	r.win.Resize(fyne.NewSize(460, 0))
	r.win.SetOnClosed(cancel)
	ui.mu.Lock()
	ui.running = r
	ui.mu.Unlock()
	r.win.Show()
	o.Progress = func(p video.Progress) {
		ui.w.uiDo(func() {
			// The whole run's share done, keyframes and frames weighed by their work.
			r.bar.SetValue(p.Fraction)
			if p.Phase == "keyframes" {
				r.status.SetText(fmt.Sprintf("Keyframes: %d of %d computed", p.Done, p.Total))
			} else {
				r.status.SetText(fmt.Sprintf("Frames: %d of %d", p.Done, p.Total))
			}
		})
	}
	c := ui.computer()
	go func() {
		defer close(r.done)
		sum, err := video.Make(ctx, c, o)
		cancel()
		ui.w.uiDo(func() {
			ui.mu.Lock()
			ui.running = nil
			ui.mu.Unlock()
			r.button.SetText("Close")
			r.button.SetIcon(theme.ConfirmIcon())
			r.button.OnTapped = r.win.Close
			if err != nil {
				msg := capitalise(err.Error())
				if errors.Is(err, video.ErrInterrupted) {
					msg += "; choose the same file again to resume."
				}
				r.status.SetText(wrapText(msg, dialogTextWidth))
				return
			}
			r.bar.SetValue(1)
			r.status.SetText(wrapText(fmt.Sprintf("Done: %d frames of %dx%d in %s (%d keyframes)", sum.Frames, o.Width, o.Height, sum.Total.Round(100*time.Millisecond), sum.Keyframes), dialogTextWidth))
		})
	}()
}
