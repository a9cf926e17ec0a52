package app

import (
	"context"
	"errors"
	"fmt"
	"math"
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

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/video"
)

// The video dialog: File > Export Video... opens a form (start zoom, frame size, frames a
// second, duration, folder and file name, what it will compute); the video of a zoom from the
// start zoom to the current view is then made in the background (video.Make) with its
// progress in the window (progress.go: keyframes and frames done, time left, Cancel). The
// form's defaults (480x270, 25 frames a second, 8 s) make a video in minutes on a CPU; the
// form says about how long a video takes before it starts (from a sample of the view). An
// interrupted video is offered for resuming the next time the same file is chosen. A
// timeline of waypoints (one "TIME ZOOM" a line, the current view the last row, at the
// duration) replaces the start zoom, a sound file goes into the video, and colour cycling turns
// the palette offset a number of times a second (video.Options).

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
	waypts   *widget.Entry // the timeline's rows but the last (the view), one "TIME ZOOM" a line
	lastRow  *widget.Label // the last row: this view at the duration
	plot     *zoomPlot     // zoom against time, as the frames will follow it
	scroll   *container.Scroll
	audio    *widget.Entry
	cycle    *widget.Entry // colour cycling: turns of the palette a second, 0 none
	folder   *widget.Entry
	name     *widget.Entry
	estimate *widget.Label
	problem  *widget.Label
	makeBt   *widget.Button

	mu      sync.Mutex
	running *videoRun

	sample   exportSample // the last sample of a view measured (UI goroutine)
	sampling string       // the view a sample is being measured for, "" when none
}

// videoRun is one video being made.
type videoRun struct {
	cancel context.CancelFunc
	done   chan struct{}
	row    *progressRow
	bar    *widget.ProgressBar
	status *widget.Label
	button *widget.Button

	t0       time.Time     // when it started
	framesT0 time.Time     // when its first frame was done (zero before)
	frameEst time.Duration // the frames' time as the form estimated it
	keys     video.Progress
	frames   video.Progress
}

func (ui *videoUI) show() {
	if ui.dlg == nil {
		ui.build()
	}
	ui.name.SetText(freshName(ui.folder.Text, ui.name.Text))
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
	// Defaults that finish in minutes on a CPU even deep (a keyframe per doubling of the
	// zoom: 84 to a view at 1e25).
	ui.size = entry("480x270")
	ui.fps = entry("25")
	ui.duration = entry("8")
	ui.waypts = widget.NewMultiLineEntry()
	ui.waypts.SetPlaceHolder("optional: TIME ZOOM a line, e.g.\n0 1\n3 1e3\n5 1e3")
	ui.waypts.SetMinRowsVisible(3)
	ui.waypts.OnChanged = func(string) { ui.refresh() }
	ui.lastRow = widget.NewLabel("")
	ui.plot = newZoomPlot()
	ui.audio = entry("")
	ui.audio.SetPlaceHolder("optional: a sound file to put in the video")
	ui.cycle = entry("0")
	ui.folder = entry(defaultExportFolder())
	ui.name = entry("mandelscope-zoom.mp4") // show makes it one not yet used (freshName)
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
		widget.NewFormItem("Waypoints", container.NewVBox(ui.waypts, ui.lastRow, ui.plot.obj)),
		widget.NewFormItem("Sound", ui.audio),
		widget.NewFormItem("Colour cycling", container.NewBorder(nil, nil, nil, widget.NewLabel("turns a second (0: none)"), ui.cycle)),
		widget.NewFormItem("Folder", ui.folder),
		widget.NewFormItem("File name", ui.name),
		widget.NewFormItem("Work", ui.estimate),
	)
	// In a scroll area no taller than the window allows, so that the dialog and its buttons
	// fit a small window (TestVideoDialogFitsASmallWindow).
	ui.scroll = container.NewVScroll(container.NewVBox(form, ui.problem))
	ui.dlg = dialog.NewCustom("Export video: a zoom to this view", "Cancel", ui.scroll, ui.w.win)
	ui.makeBt = widget.NewButtonWithIcon("Make Video", theme.MediaVideoIcon(), ui.confirm)
	ui.makeBt.Importance = widget.HighImportance
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() { ui.dlg.Hide() })
	ui.dlg.SetButtons([]fyne.CanvasObject{cancel, ui.makeBt})
	ui.dlg.Resize(fyne.NewSize(520, 0))
}

// fitScroll sizes the form's scroll area: the whole form where the window has room for it,
// else what fits the window beside the dialog's title and buttons.
func (ui *videoUI) fitScroll() {
	want := ui.scroll.Content.MinSize()
	room := ui.w.win.Canvas().Size().Height - videoDialogChrome
	ui.scroll.SetMinSize(fyne.NewSize(want.Width, max(min(want.Height, room), 120)))
}

// videoDialogChrome is the height a dialog takes besides its content (title, buttons,
// padding), with a margin.
const videoDialogChrome = 150

// options reads the form into the video's options (the current view as the end, its
// automatic density made the number the window drew with), or says what is wrong.
func (ui *videoUI) options() (video.Options, error) {
	var o video.Options
	o.Location = ui.w.Location()
	o.Location.Color.AutoDensity = false
	var err error
	if strings.TrimSpace(ui.waypts.Text) == "" {
		z, err := fractal.ParseDecimal(strings.TrimSpace(ui.start.Text))
		if err != nil || fractal.CheckZoom(z) != nil || z.Exp().Sign() <= 0 {
			return o, fmt.Errorf("start zoom %q must be a number from %g to the view's zoom", ui.start.Text, fractal.MinZoom)
		}
		o.StartZoom = z
	}
	if o.Width, o.Height, err = parseWxH(ui.size.Text); err != nil {
		return o, err
	}
	if o.FPS, err = strconv.Atoi(strings.TrimSpace(ui.fps.Text)); err != nil {
		return o, fmt.Errorf("frames a second %q must be a whole number", ui.fps.Text)
	}
	if o.Duration, err = strconv.ParseFloat(strings.TrimSpace(ui.duration.Text), 64); err != nil {
		return o, fmt.Errorf("duration %q must be a number of seconds", ui.duration.Text)
	}
	if o.Waypoints, err = timeline(ui.waypts.Text, strings.TrimSpace(ui.duration.Text), o.Location.Zoom); err != nil {
		return o, err
	}
	o.Audio = strings.TrimSpace(ui.audio.Text)
	if o.PaletteCycle, err = strconv.ParseFloat(strings.TrimSpace(ui.cycle.Text), 64); err != nil || !(math.Abs(o.PaletteCycle) <= video.MaxPaletteCycle) {
		return o, fmt.Errorf("colour cycling %q must be a number of turns a second from -%d to %d (0: none)", ui.cycle.Text, video.MaxPaletteCycle, video.MaxPaletteCycle)
	}
	// The container (the extension) is the video package's to check.
	o.Output, err = outputPath(ui.folder.Text, ui.name.Text, "")
	return o, err
}

// timeline reads the waypoints box, one "TIME ZOOM" (or TIME:ZOOM, and "palette=NAME" after
// it for a palette change) a line, and adds the view
// (zoom end) at the duration as the last waypoint; nil for an empty box.
func timeline(rows, duration string, end fractal.Decimal) ([]video.Waypoint, error) {
	var parts []string
	for i, line := range strings.Split(rows, "\n") {
		f := strings.Fields(strings.ReplaceAll(line, ":", " "))
		switch len(f) {
		case 0:
			continue
		case 2:
			parts = append(parts, f[0]+":"+f[1])
		case 3: // a palette change there: "TIME ZOOM palette=NAME", as --waypoints takes it
			parts = append(parts, f[0]+":"+f[1]+":"+f[2])
		default:
			return nil, fmt.Errorf("waypoint line %d %q: give a time in seconds and a zoom (and palette=NAME to change the palette there)", i+1, strings.TrimSpace(line))
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	ws, err := video.ParseWaypoints(strings.Join(append(parts, duration+":end"), ","), end)
	if err == nil {
		err = video.CheckWaypoints(ws, end)
	}
	if err != nil {
		return nil, fmt.Errorf("waypoints: %v", err)
	}
	return ws, nil
}

// refresh updates the work estimate, the problem line and the button.
func (ui *videoUI) refresh() {
	if ui.makeBt == nil {
		return
	}
	if strings.TrimSpace(ui.waypts.Text) == "" {
		ui.start.Enable()
		ui.lastRow.SetText("")
	} else {
		ui.start.Disable() // the first waypoint is the start
		ui.lastRow.SetText(fmt.Sprintf("then %s s (the duration): this view, zoom %s", strings.TrimSpace(ui.duration.Text), fractal.FormatZoom(ui.w.Location().ZoomExp())))
	}
	o, err := ui.options()
	if err == nil {
		// Existing files are asked about on Make Video; everything else is checked now.
		check := o
		check.Force, check.Resume = true, dirExists(video.WorkDir(o))
		err = video.Check(check)
	}
	ui.plot.set(video.Plan{}, 0, nil, false)
	if err == nil {
		p, _ := video.PlanFor(o)
		ui.plot.set(p, o.Duration, o.Waypoints, true)
		n := p.Frames
		t := "measuring the time it takes..."
		if ui.sample.view == sampleKey(o.Location, sampleW, sampleH) && ui.sample.err == nil {
			keys, frames := ui.videoTime(o, p.Keyframes(), n)
			t = roughDuration(keys+frames) + " here"
		} else {
			ui.measure(o.Location)
		}
		cols, rows, cw, ch := video.RingsKeyframe(o.Width, o.Height, video.DefaultKeyScale)
		ui.estimate.SetText(fmt.Sprintf("%d frames from %d keyframes (rings of %dx%d, one per doubling of the zoom, and the end view's %dx%d), each computed once: %s",
			n, p.Keyframes()+1, cols, rows, cw, ch, t))
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
	ui.fitScroll()
}

// videoKeyOverhead and videoFrameCost are what a video spends besides rendering its
// keyframes' samples: per keyframe sample (the escape data kept and written), and per
// subsample of a frame (composing it from two keyframes, colouring, encoding).
const (
	videoKeyOverhead = 60 * time.Nanosecond
	videoFrameCost   = 25 * time.Nanosecond
)

// videoTime estimates the time of video o's keyframes and frames from the sample of its view
// (the deepest keyframe, the slowest: an upper bound for the keyframes).
func (ui *videoUI) videoTime(o video.Options, keyframes, frames int) (keys, rest time.Duration) {
	// keyframes rings keyframes and the centre (video's default layout).
	cols, rows, cw, ch := video.RingsKeyframe(o.Width, o.Height, video.DefaultKeyScale)
	samples := float64(keyframes)*float64(cols)*float64(rows) + float64(cw)*float64(ch)
	keys = time.Duration(samples * float64(ui.sample.perSample+videoKeyOverhead))
	ss := float64(video.DefaultSupersample * video.DefaultSupersample)
	rest = time.Duration(float64(frames) * float64(o.Width) * float64(o.Height) * ss * float64(videoFrameCost))
	return keys, rest
}

// measure starts measuring a sample of l in the background, unless one is being measured
// for it; the form is refreshed when it is done.
func (ui *videoUI) measure(l fractal.Location) {
	view := l.String()
	if ui.sampling == view {
		return
	}
	ui.sampling = view
	r := ui.w.exp.exportRenderer()
	go func() {
		s := sampleView(r, l)
		ui.w.uiDo(func() {
			if ui.sampling == view {
				ui.sampling = ""
			}
			ui.sample = s
			ui.refresh()
		})
	}()
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

// discardVideo removes what the interrupted video o kept to resume from (its work folder's
// own files: video.Discard), and says what it did.
func discardVideo(o video.Options) (string, error) {
	work := video.WorkDir(o)
	kept, err := video.Discard(o)
	if err != nil {
		return "", err
	}
	if kept {
		return fmt.Sprintf("Discarded the keyframes; %s holds files of yours, so it stays.", filepath.Base(work)), nil
	}
	return "Discarded: removed " + filepath.Base(work) + ".", nil
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

// run makes the video in the background with its progress in the window: the keyframes and
// the frames done, and the time left (from the pace so far, and the form's estimate of the
// frames while the keyframes are computed).
func (ui *videoUI) run(o video.Options) {
	ctx, cancel := context.WithCancel(context.Background())
	r := &videoRun{cancel: cancel, done: make(chan struct{}), t0: time.Now()}
	if n, err := video.Frames(o.FPS, o.Duration); err == nil {
		r.frames.Total = n // the frames come after the keyframes: counted from the start
		if ui.sample.view == sampleKey(o.Location, sampleW, sampleH) && ui.sample.err == nil {
			_, r.frameEst = ui.videoTime(o, 0, n)
		}
	}
	r.row = ui.w.addProgress("Making "+filepath.Base(o.Output), func() {
		cancel()
		r.status.SetText("Cancelling (the keyframes done are kept)...")
	})
	r.bar, r.status, r.button = r.row.bar, r.row.status, r.row.button
	r.status.SetText("Starting...")
	ui.mu.Lock()
	ui.running = r
	ui.mu.Unlock()
	o.Progress = func(p video.Progress) {
		ui.w.uiDo(func() {
			r.update(p, time.Now())
		})
	}
	c := ui.computer()
	if p, ok := ui.w.rend.get().(colour.ShaderPainter); ok {
		o.ShaderPainter = p // a colouring shader runs on the window's OpenGL renderer
	}
	go func() {
		defer close(r.done)
		sum, err := video.Make(ctx, c, o)
		cancel()
		ui.w.uiDo(func() {
			ui.mu.Lock()
			ui.running = nil
			ui.mu.Unlock()
			r.row.finish()
			if err != nil {
				msg := capitalise(err.Error())
				if errors.Is(err, video.ErrInterrupted) {
					msg += "; choose the same file again to resume."
				}
				r.status.SetText(wrapText(msg, dialogTextWidth))
				if errors.Is(err, video.ErrInterrupted) && dirExists(video.WorkDir(o)) {
					r.row.offerDiscard(func() (string, error) { return discardVideo(o) })
				}
				return
			}
			r.bar.SetValue(1)
			r.status.SetText(wrapText(fmt.Sprintf("Done: %d frames of %dx%d in %s (%d keyframes)", sum.Frames, o.Width, o.Height, sum.Total.Round(100*time.Millisecond), sum.Keyframes), dialogTextWidth))
		})
	}()
}

// update takes progress p, reported at now, into the bar and the status line: keyframes are
// most of the work (90% of the bar), frames the rest.
func (r *videoRun) update(p video.Progress, now time.Time) {
	// The whole run's share done, keyframes and frames weighed by their work.
	r.bar.SetValue(p.Fraction)
	if p.Phase == "keyframes" {
		r.keys = p
	} else {
		if r.framesT0.IsZero() {
			r.framesT0 = now
		}
		r.frames = p
	}
	r.status.SetText(r.statusText(now))
}

// statusText says what is done and about how long is left at now.
func (r *videoRun) statusText(now time.Time) string {
	s := fmt.Sprintf("Keyframes %d of %d, frames %d of %d", r.keys.Done, r.keys.Total, r.frames.Done, r.frames.Total)
	var left time.Duration
	switch {
	case r.frames.Done > 0:
		el := now.Sub(r.framesT0)
		left = time.Duration(float64(el) * float64(r.frames.Total-r.frames.Done) / float64(r.frames.Done))
	case r.keys.Done > 0 && r.keys.Done < r.keys.Total:
		el := now.Sub(r.t0)
		left = time.Duration(float64(el)*float64(r.keys.Total-r.keys.Done)/float64(r.keys.Done)) + r.frameEst
	default:
		return s
	}
	return s + "; " + roughDuration(left) + " left"
}
