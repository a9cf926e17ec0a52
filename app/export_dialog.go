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
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/export"
	"mandelscope/fractal"
	"mandelscope/internal/version"
)

// The export dialog: File > Export... (Ctrl+E) opens a form (size preset or custom WxH,
// supersampling, folder and file name, the estimated file size); the export then runs in the
// background with its own small progress window (percent, Mpx/s, time left, Cancel) while the
// explorer window stays usable.

// installExport adds File > Export..., its toolbar button and Ctrl+E to w.
func installExport(w *Window) *exportUI {
	ui := &exportUI{w: w}
	w.AddMenuShortcut("File", "Export...", &desktop.CustomShortcut{KeyName: fyne.KeyE, Modifier: fyne.KeyModifierShortcutDefault}, ui.show)
	w.AddToolbarAction(widget.NewToolbarAction(theme.DocumentSaveIcon(), ui.show), "Export image (Ctrl+E)")
	return ui
}

// version is written into exported images' metadata: internal/version's, the one source of
// it. (Fyne's app metadata is no source: a binary built with go build, not fyne package,
// says 0.0.1 there.)
func (ui *exportUI) version() string { return version.Version }

// exportPresets are the dialog's size choices: the command line's (one definition, in export).
var exportPresets = export.Presets

const customSize = "Custom (WxH)"

// exportSupersampling are the supersampling choices, index+1 being N.
var exportSupersampling = []string{"1x (none)", "2x2", "3x3", "4x4"}

// exportMaxSide is the largest side the dialog accepts (the command line's: export.MaxSide).
const exportMaxSide = export.MaxSide

// exportUI is the export form and the exports it started.
type exportUI struct {
	w *Window

	dlg      *dialog.CustomDialog
	sizeSel  *widget.Select
	custom   *widget.Entry
	ssSel    *widget.Select
	folder   *widget.Entry
	name     *widget.Entry
	estimate *widget.Label
	problem  *widget.Label
	exportBt *widget.Button

	mu      sync.Mutex
	running *exportRun // the export in progress, nil when none

	sample   exportSample // the last sample measured (UI goroutine)
	sampling string       // the sample being measured (sampleKey), "" when none
}

// exportRun is one export running in the background.
type exportRun struct {
	cancel  context.CancelFunc
	done    chan struct{}
	row     *progressRow
	t0      time.Time
	last    *export.Progress // the last progress reported (UI goroutine), nil before the first
	bar     *widget.ProgressBar
	status  *widget.Label
	cancel2 *widget.Button
	err     error
	sum     export.Summary
}

// progressText says how far the export is after elapsed: the share done, the speed of this
// run (its output pixels by its time) and the time left; before the first strip, how long
// the strip has taken so far.
func (run *exportRun) progressText(elapsed time.Duration) string {
	p := run.last
	if p == nil || p.Done == 0 {
		return fmt.Sprintf("computing the first strip: %s so far", elapsed.Round(time.Second))
	}
	thisRun := int64(p.Rate * 1e6 * p.Elapsed.Seconds()) // Rate is this run's pixels by its time
	return fmt.Sprintf("%s  %s  %s left", percentText(p.Fraction()), speedText(thisRun, p.Elapsed), roughDuration(p.ETA))
}

func (ui *exportUI) show() {
	if ui.dlg == nil {
		ui.build()
	}
	ui.name.SetText(freshName(ui.folder.Text, ui.name.Text))
	ui.refresh()
	ui.w.showDialog(ui.dlg)
}

func (ui *exportUI) build() {
	labels := make([]string, 0, len(exportPresets)+1)
	for _, p := range exportPresets {
		labels = append(labels, p.Label)
	}
	labels = append(labels, customSize)
	ui.custom = widget.NewEntry()
	ui.custom.SetPlaceHolder("e.g. 5000x3000")
	ui.custom.OnChanged = func(string) { ui.refresh() }
	ui.sizeSel = widget.NewSelect(labels, func(string) { ui.refresh() })
	ui.sizeSel.SetSelectedIndex(1)
	ui.ssSel = widget.NewSelect(exportSupersampling, func(string) { ui.refresh() })
	ui.ssSel.SetSelectedIndex(0)
	ui.folder = widget.NewEntry()
	ui.folder.SetText(defaultExportFolder())
	ui.folder.OnChanged = func(string) { ui.refresh() }
	ui.name = widget.NewEntry()
	ui.name.SetText("mandelscope.png") // show makes it one not yet used (freshName)
	ui.name.OnChanged = func(string) { ui.refresh() }
	choose := widget.NewButtonWithIcon("", theme.FolderOpenIcon(), ui.chooseFolder)
	ui.estimate = widget.NewLabel("")
	ui.problem = widget.NewLabel("")
	ui.problem.Importance = widget.DangerImportance
	ui.problem.Wrapping = fyne.TextWrapWord
	form := widget.NewForm(
		widget.NewFormItem("Size", ui.sizeSel),
		widget.NewFormItem("Custom size", ui.custom),
		widget.NewFormItem("Supersampling", ui.ssSel),
		widget.NewFormItem("Folder", container.NewBorder(nil, nil, nil, choose, ui.folder)),
		widget.NewFormItem("File name", ui.name),
		widget.NewFormItem("Estimate", ui.estimate),
	)
	content := container.NewVBox(form, ui.problem)
	ui.dlg = dialog.NewCustom("Export image", "Cancel", content, ui.w.win)
	ui.exportBt = widget.NewButtonWithIcon("Export", theme.DocumentSaveIcon(), ui.confirm)
	ui.exportBt.Importance = widget.HighImportance
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() { ui.dlg.Hide() })
	ui.dlg.SetButtons([]fyne.CanvasObject{cancel, ui.exportBt})
	ui.dlg.SetOnClosed(func() {
		ui.mu.Lock()
		busy := ui.running != nil
		ui.mu.Unlock()
		if !busy {
			ui.w.SetExportFrame(0, 0)
		}
	})
	ui.dlg.Resize(fyne.NewSize(520, 0))
}

func defaultExportFolder() string {
	if home, err := os.UserHomeDir(); err == nil {
		if st, err := os.Stat(filepath.Join(home, "Pictures")); err == nil && st.IsDir() {
			return filepath.Join(home, "Pictures")
		}
		return home
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "."
}

func (ui *exportUI) chooseFolder() {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err != nil {
			ui.w.ShowError(err)
			return
		}
		if u != nil {
			ui.folder.SetText(u.Path())
		}
	}, ui.w.win)
	if l, err := storage.ListerForURI(storage.NewFileURI(ui.folder.Text)); err == nil {
		d.SetLocation(l)
	}
	d.Show()
}

// settings reads the form: size, supersampling, output path, or what is wrong.
func (ui *exportUI) settings() (w, h, ss int, path string, err error) {
	if ui.sizeSel.SelectedIndex() < len(exportPresets) && ui.sizeSel.SelectedIndex() >= 0 {
		p := exportPresets[ui.sizeSel.SelectedIndex()]
		w, h = p.W, p.H
	} else {
		w, h, err = parseWxH(ui.custom.Text)
		if err != nil {
			return 0, 0, 0, "", err
		}
	}
	ss = max(1, ui.ssSel.SelectedIndex()+1)
	path, err = outputPath(ui.folder.Text, ui.name.Text, ".png")
	return w, h, ss, path, err
}

// freshName is the file name the export and video dialogs offer as they open: name itself
// when folder holds no such file (an interrupted export or video of that name is left to be
// offered, for its resume), else the first of name-2, name-3, ... (a "-N" it ends with
// of up to five digits replaced, before the extension) that it does not hold, so that exporting the view again is
// never a "Replace file?" question. A folder that cannot be read leaves name as it is.
func freshName(folder, name string) string {
	dir, name := strings.TrimSpace(folder), strings.TrimSpace(name)
	taken := func(n string) bool {
		_, err := os.Lstat(filepath.Join(dir, n))
		return err == nil
	}
	if name == "" || !dirExists(dir) || !taken(name) {
		return name
	}
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	if i := strings.LastIndexByte(stem, '-'); i > 0 && len(stem)-i-1 <= 5 && stem[i+1] != '0' && strings.Trim(stem[i+1:], "0123456789") == "" {
		stem = stem[:i]
	}
	for n := 2; n < 100000; n++ {
		if c := fmt.Sprintf("%s-%d%s", stem, n, ext); !taken(c) {
			return c
		}
	}
	return name
}

// outputPath is the file a dialog's folder and file name fields name, or what is wrong with
// them: an empty name, one with another extension than ext (when ext is given), one with a
// path separator, or a folder that does not exist.
func outputPath(folder, file, ext string) (string, error) {
	name := strings.TrimSpace(file)
	if name == "" {
		return "", errors.New("file name is empty")
	}
	if ext != "" && !strings.EqualFold(filepath.Ext(name), ext) {
		return "", fmt.Errorf("file name %q must end in %s", name, ext)
	}
	if strings.ContainsRune(name, filepath.Separator) {
		return "", fmt.Errorf("file name %q must not contain %c (choose the folder above)", name, filepath.Separator)
	}
	dir := strings.TrimSpace(folder)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("folder %q does not exist", dir)
	}
	return filepath.Join(dir, name), nil
}

// parseWxH reads a custom size "WxH".
func parseWxH(s string) (int, int, error) {
	ws, hs, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	w, err1 := strconv.Atoi(strings.TrimSpace(ws))
	h, err2 := strconv.Atoi(strings.TrimSpace(hs))
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("custom size %q must be WIDTHxHEIGHT, e.g. 5000x3000", s)
	}
	if w < 1 || h < 1 || w > exportMaxSide || h > exportMaxSide {
		return 0, 0, fmt.Errorf("custom size %dx%d is out of range (each side 1 to %d)", w, h, exportMaxSide)
	}
	return w, h, nil
}

// refresh updates the estimate, the problem line, the Export button and the export frame.
func (ui *exportUI) refresh() {
	if ui.exportBt == nil {
		return
	}
	if ui.sizeSel.Selected == customSize {
		ui.custom.Enable()
	} else {
		ui.custom.Disable()
	}
	w, h, ss, path, err := ui.settings()
	if w > 0 && h > 0 {
		mpx := float64(w) * float64(h) / 1e6
		lo, hi := export.EstimateRange(w, h)
		text := fmt.Sprintf("%.1f Mpx (%.0f M samples), file %s to %s", mpx, mpx*float64(ss*ss), export.HumanBytes(lo), export.HumanBytes(hi))
		if key := sampleKey(ui.w.Location(), w*ss, h*ss); ui.sample.view == key && ui.sample.err == nil {
			t, size := ui.sample.estimate(w, h, ss)
			text = fmt.Sprintf("%.1f Mpx (%.0f M samples), file up to about %s, time %s", mpx, mpx*float64(ss*ss), export.HumanBytes(size), roughDuration(t))
		} else {
			ui.measure(w*ss, h*ss)
		}
		ui.estimate.SetText(text)
		vw, vh := ui.w.ViewSize()
		if vw > 0 && vh > 0 && int64(w)*int64(vh) != int64(h)*int64(vw) {
			ui.w.SetExportFrame(w, h)
		} else {
			ui.w.SetExportFrame(0, 0)
		}
	} else {
		ui.estimate.SetText("")
	}
	ui.mu.Lock()
	busy := ui.running != nil
	ui.mu.Unlock()
	switch {
	case err != nil:
		ui.problem.SetText(err.Error())
		ui.exportBt.Disable()
	case busy:
		ui.problem.SetText("An export is running; wait for it or cancel it.")
		ui.exportBt.Disable()
	default:
		// Low space warns, as the command line does, and does not stop the export: it keeps
		// its progress if the disk fills, to be resumed.
		if low := lowSpace(filepath.Dir(path), w, h); low != "" {
			ui.problem.SetText("Warning: " + low + ".")
		} else {
			ui.problem.SetText("")
		}
		ui.exportBt.Enable()
	}
}

// lowSpace is export.LowSpace; tests replace it.
var lowSpace = export.LowSpace

// measure starts measuring a sample of the current view in an export's frame of w x h
// rendered pixels in the background, unless one is measured or being measured; the estimate
// is refreshed when it is done.
func (ui *exportUI) measure(w, h int) {
	l := ui.w.Location()
	key := sampleKey(l, w, h)
	if ui.sampling == key || ui.sample.view == key {
		return
	}
	ui.sampling = key
	r := ui.exportRenderer()
	go func() {
		s := sampleFrame(r, l, w, h)
		ui.w.uiDo(func() {
			if ui.sampling == key {
				ui.sampling = ""
			}
			ui.sample = s
			ui.refresh()
		})
	}()
}

// confirm checks the output path and starts the export, asking first before replacing a file
// or when an interrupted export of the same file can be resumed.
func (ui *exportUI) confirm() {
	w, h, ss, path, err := ui.settings()
	if err != nil {
		ui.problem.SetText(err.Error())
		return
	}
	// The picture shown: an automatic density as the window draws it (colour.Coloring.Density,
	// the number it last resolved), made explicit so that the file records that number, and
	// that it was chosen automatically (so that Open Image makes it automatic again).
	loc := ui.w.Location()
	chosen := loc.Color.AutoDensity
	loc.Color.AutoDensity = false
	opt := export.Options{Location: loc, Width: w, Height: h, Supersample: ss, Version: ui.version(), DensityChosen: chosen}
	start := func(o export.Options) {
		ui.dlg.Hide()
		ui.start(path, o)
	}
	startOver := func(ok bool) {
		if ok {
			o := opt
			o.Overwrite = true
			start(o)
		}
	}
	if _, err := os.Stat(export.CheckpointPath(path)); err == nil {
		saved, why := ui.resumable(path)
		if why != "" {
			ui.w.showConfirm("Interrupted export", fmt.Sprintf("%s has an interrupted export that cannot be resumed: %s. Start over with the current view and settings?", filepath.Base(path), why),
				"Start over", "Cancel", startOver)
			return
		}
		ui.w.showConfirm("Interrupted export", fmt.Sprintf("%s has an interrupted export of %s. Resume it with its own view and settings, or start over with the current ones?", filepath.Base(path), describeExport(saved, opt)),
			"Resume", "Start over", func(resume bool) {
				if !resume {
					startOver(true)
					return
				}
				o := opt
				o.Location, o.Width, o.Height, o.Supersample = saved.Location, saved.Width, saved.Height, saved.Supersample
				o.DensityChosen = false // its own: its checkpoint says whether it was automatic
				o.Resume = true
				start(o)
			})
		return
	}
	if _, err := os.Lstat(export.PartPath(path)); err == nil {
		// A .part without a checkpoint saved no progress: starting over is the only way on.
		ui.w.showConfirm("Unfinished export", filepath.Base(export.PartPath(path))+" is left from an export that saved no progress. Start over?", "Start over", "Cancel", startOver)
		return
	}
	if _, err := os.Lstat(path); err == nil {
		ui.w.showConfirm("Replace file?", filepath.Base(path)+" already exists. Replace it?", "Replace", "Cancel", startOver)
		return
	}
	start(opt)
}

// resumable reads the view and settings an interrupted export of path was started with (from
// its .part's text chunks, which the export writes first), or says why it cannot be resumed
// from this window. Export checks everything again when it resumes.
func (ui *exportUI) resumable(path string) (export.Metadata, string) {
	md, err := export.ReadMetadata(export.PartPath(path))
	switch {
	case err != nil:
		return md, "its view cannot be read (" + err.Error() + ")"
	case md.Version != ui.version():
		return md, fmt.Sprintf("it was made by version %s of Mandelscope, this is %s", md.Version, ui.version())
	}
	return md, ""
}

// describeExport says what an interrupted export holds, and whether it is the current view
// and settings.
func describeExport(md export.Metadata, now export.Options) string {
	ss := ""
	if md.Supersample > 1 {
		ss = fmt.Sprintf(", %dx%d supersampling", md.Supersample, md.Supersample)
	}
	same := "the current view and settings"
	if md.Location.String() != now.Location.String() || md.Width != now.Width || md.Height != now.Height || md.Supersample != now.Supersample {
		same = "not the current view or settings"
	}
	return fmt.Sprintf("%dx%d at zoom %s%s (%s)", md.Width, md.Height, fractal.FormatZoom(md.Location.ZoomExp()), ss, same)
}

// exportRenderer is the renderer exports use: the window's (the GPU one once it runs) when
// it can say its tile limit, else the CPU renderer.
func (ui *exportUI) exportRenderer() export.TileRenderer {
	if r, ok := ui.w.rend.get().(export.TileRenderer); ok {
		return r
	}
	return ui.w.cpu
}

// discardExport removes what the interrupted export of path kept to resume from (its .part
// and checkpoint: export.Discard), and says what it removed.
func discardExport(path string) (string, error) {
	removed, err := export.Discard(path, "")
	if err != nil {
		return "", err
	}
	if len(removed) == 0 {
		return "Nothing to discard: the partial files are gone already.", nil
	}
	names := make([]string, len(removed))
	for i, f := range removed {
		names[i] = filepath.Base(f)
	}
	return "Discarded: removed " + strings.Join(names, " and ") + ".", nil
}

// stop interrupts the export in progress, if any, and waits for it to end (its .part stays,
// for a resume); the window calls it as it closes.
func (ui *exportUI) stop() {
	ui.mu.Lock()
	run := ui.running
	ui.mu.Unlock()
	if run != nil {
		run.cancel()
		<-run.done
	}
}

// start runs an export in the background with its progress in the window (progress.go):
// the share done, the speed (output pixels this run by the time taken) and the time left,
// and before the first strip is written how long it has taken so far.
func (ui *exportUI) start(path string, opt export.Options) {
	ctx, cancel := context.WithCancel(context.Background())
	run := &exportRun{cancel: cancel, done: make(chan struct{}), t0: time.Now()}
	run.row = ui.w.addProgress("Exporting "+filepath.Base(path), func() {
		cancel()
		run.status.SetText("Cancelling...")
	})
	run.bar, run.status, run.cancel2 = run.row.bar, run.row.status, run.row.button
	run.status.SetText(fmt.Sprintf("%dx%d, starting...", opt.Width, opt.Height))
	if opt.Resume {
		run.status.SetText(fmt.Sprintf("%dx%d, resuming...", opt.Width, opt.Height))
	}
	ui.mu.Lock()
	ui.running = run
	ui.mu.Unlock()

	opt.Tile = 2048 // short turns on a shared GPU, so the preview keeps drawing
	opt.Progress = func(p export.Progress) {
		ui.w.uiDo(func() {
			run.last = &p
			run.bar.SetValue(p.Fraction())
			run.status.SetText(run.progressText(time.Since(run.t0)))
		})
	}
	// Until the first strip is written, the time it has taken so far, each second.
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-run.done:
				return
			case <-tick.C:
				ui.w.uiDo(func() {
					if run.last == nil && !isClosed(run.done) && ctx.Err() == nil {
						run.status.SetText(run.progressText(time.Since(run.t0)))
					}
				})
			}
		}
	}()
	r := ui.exportRenderer()
	go func() {
		defer close(run.done)
		run.sum, run.err = export.Export(ctx, r, path, opt)
		cancel()
		ui.w.uiDo(func() {
			ui.mu.Lock()
			ui.running = nil
			ui.mu.Unlock()
			ui.w.SetExportFrame(0, 0)
			run.row.finish()
			if run.err != nil {
				msg := wrapText(capitalise(exportErrorText(run.err)), dialogTextWidth)
				run.status.SetText(msg)
				if !errors.Is(run.err, export.ErrInterrupted) {
					ui.w.showDialog(dialog.NewCustom("Export failed", "OK", widget.NewLabel(msg), ui.w.win))
				} else if x := (*export.Error)(nil); errors.As(run.err, &x) && x.Kept {
					run.row.offerDiscard(func() (string, error) { return discardExport(path) })
				}
				return
			}
			run.bar.SetValue(1)
			ui.w.addRecentImage(path)
			s := run.sum
			run.status.SetText(wrapText(fmt.Sprintf("Done: %dx%d in %s, %s, %s", s.Width, s.Height, s.Elapsed.Round(100*time.Millisecond), speedText(int64(s.Rate*1e6*s.Elapsed.Seconds()), s.Elapsed), export.HumanBytes(s.Bytes)), dialogTextWidth))
		})
	}()
}
