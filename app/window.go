// Package app is Mandelscope's explorer window, the only package besides main that imports
// Fyne: the fractal view widget (drag to pan, wheel to zoom about the cursor, double-click
// and right-click to zoom, keys), the controls (iterations, palette, density, offset), the
// status bar, and the parts New adds to them in a fixed order (bookmarks panel, export dialog,
// navigation), each through the window's hooks (AddMenuItem, AddToolbarItem, AddShortcut,
// SetSidePanel).
//
// Rendering goes through preview/: reduced-resolution frames while the user interacts,
// full resolution when input stops (shown band by band as it progresses), on a worker
// goroutine. Background work (the worker, the cursor prober, timers, file watches, exports)
// reaches the widgets only through the window's UI dispatcher (fyne.Do), and closing the
// window stops all of it. While panning and zooming, the
// last full-resolution frame, shifted or resampled, fills whatever of the view it covers
// (compose.go), so only newly exposed areas look coarse.
package app

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/signal"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/preview"
	"mandelscope/render/cpu"
)

// Options configure a new window.
type Options struct {
	// Renderer is "auto" (GPU when NewGPU succeeds, else CPU; the default), "gpu" or "cpu".
	Renderer string
	// NewGPU creates the GPU renderer. It is called once the Fyne app has started (New sets
	// the app's Lifecycle OnStarted hook for it), on a goroutine of its own. Nil means no GPU
	// renderer is available. What it must run on the main thread it should run through the
	// window's MainThread, which closing the window serves too: closing waits for it.
	NewGPU func() (Renderer, error)
	// Start is the first view; the zero Location means fractal.Home().
	Start fractal.Location
	// Size is the window's initial content size (1280x800 when zero), at least the content's
	// minimum size.
	Size fyne.Size
	// Restore brings back the last session's state from the app's preferences (state.go):
	// its view when Start is zero, its window size when Size is zero, and the bookmarks panel
	// if it was open; the window saves that state when it closes.
	Restore bool
	// Idle is how long input must stop before refining to full resolution (150 ms when 0).
	Idle time.Duration
	// OnFrame, when set, is called on the UI goroutine with every frame shown (for tracing),
	// the partial pictures of a full frame in progress included (Result.Partial).
	OnFrame func(preview.Result)
	// Accumulate is the samples per side the picture at rest accumulates (n x n, shown as
	// they come, in the pattern of an export's --supersample=n; preview.AccumulateN in the
	// explorer); 0 or 1: none.
	Accumulate int
	// Screen, when set, says the screen's usable size in pixels (ok false when unknown); New
	// calls it on the UI goroutine after making the Fyne window. A restored or default window
	// size is made to fit it (limits.go); a given Size is not.
	Screen func() (width, height int, ok bool)
	// Signals, when set, ends the session as the close button does when a value arrives (a
	// second one calls ForceQuit). With CatchSignals, New relays QuitSignals to it
	// (signal.Notify) and, once the app runs, takes SIGINT and SIGTERM over from Fyne's driver
	// (quit.go).
	Signals      chan os.Signal
	CatchSignals bool
	// SignalsTaken, when set, is called once the takeover from Fyne's driver is done (or
	// given up): from then on a SIGINT or SIGTERM goes to Signals alone. Swapping the
	// handlers leaves a few instructions in which such a signal has none (signal.Reset, then
	// Notify: quit.go), so a caller that sends them at start-up, as the tests do, waits for it.
	SignalsTaken func()
	// ForceQuit, when set, is called on a second signal (a quit that does not end).
	ForceQuit func()
	// Stopped, when set, is called once, when the session has ended: the state saved and
	// written, the background work stopped (or shutdownWait passed). Nothing of the session is
	// left to do after it, so the program may end then if the toolkit does not (cmd_window.go).
	Stopped func()

	// do runs a function on the UI goroutine: fyne.Do when nil. Tests queue the calls and
	// run them on the test goroutine (Fyne's test driver runs fyne.Do inline, on the caller's
	// goroutine, which would race with the test's own use of the widgets).
	do func(func())
	// historySettle is how long a view must stay to enter the history (defaultHistorySettle
	// when 0).
	historySettle time.Duration
	// wheelGap is how long the wheel must rest to end a burst of notches, one step of the
	// history (defaultWheelGap when 0).
	wheelGap time.Duration
	// bookmarksWatch is how often the open bookmarks panel looks at the file
	// (defaultBookmarksWatch when 0, never when negative).
	bookmarksWatch time.Duration
}

// Window is the explorer window.
type Window struct {
	app  fyne.App
	win  fyne.Window
	opts Options

	mu        sync.Mutex
	loc       fractal.Location
	listeners []func(old, new fractal.Location, origin Origin)

	rend     *swapRenderer
	sched    *preview.Scheduler
	worker   *preview.Worker
	cpu      *cpu.Renderer
	gpuNote  string // why the GPU renderer is not in use ("" when it is)
	shownSeq uint64
	placeSeq uint64      // the request of the last new place: results of older ones are dropped
	shown    *image.RGBA // the frame on screen

	lastFull    *image.RGBA // the last full-resolution frame, and its view
	lastFullLoc fractal.Location

	view        *fractalView
	frame       *exportFrame
	toolbar     *widget.Toolbar
	side        *fyne.Container // the side panel (SetSidePanel)
	sideBox     *fyne.Container // lays the side panel out over the picture's right edge
	progress    *fyne.Container // the rows of the jobs in progress (progress.go)
	progressBox *fyne.Container // lays them out over the picture's bottom edge
	menus       []*fyne.Menu
	autoIter    bool
	autoBoost   int // automatic iterations are fractal.AutoIterations times this (preview.AutoBoost)
	// findCancel cancels the search for the nearest minibrot in progress (find.go; nil: none).
	findCancel context.CancelFunc
	found      foundNote // what the last search found, for the status bar (find.go)
	// note is a note on the view shown, kept in the status bar until the view moves on: a move
	// stopped at the edge of the centre's range (moveTo), the saved view was refused (state.go).
	note      foundNote
	lastIters int

	// controls
	iterEntry    *commitEntry
	iterNote     *widget.Label // why typed iterations were refused (hidden when they were not)
	autoCheck    *keyCheck
	paletteBtn   *widget.Button  // the palette's name and colours; opens paletteMenu
	controlsLeft *fyne.Container // the controls row's iterations and colouring group
	paletteWidth float32         // the palette chooser's fixed width (paletteLabel)
	densitySl    *keySlider
	densityVal   *widget.Label
	offsetSl     *keySlider
	offsetVal    *widget.Label
	shade        *shadingControls // the colouring method's controls (colouring.go)
	statusCentr  *widget.Label
	statusZoom   *widget.Label
	statusIter   *widget.Label
	statusMode   *widget.Label
	statusTime   *widget.Label
	statusPoint  *widget.Label
	statusRend   *widget.Label
	bar          statusBar // what the status bar's fields abbreviate (status.go)

	probe *prober
	tips  *tipBox
	inset *juliaInset  // the Julia set of the point under the pointer (julia.go)
	cycle *colourCycle // colour cycling: the palette offset turned with time (cycle.go)

	dialogs      []shownDialog        // the open dialogs, the top one last
	dialogHooked map[shownDialog]bool // dialogs whose closing showDialog watches
	errorsShown  map[string]bool      // the texts of the error dialogs open (ShowError)

	// the parts New adds
	nav   *navigator
	undo  *colourUndo
	marks *bookmarksPanel
	exp   *exportUI
	vid   *videoUI

	closing   chan struct{} // closed when the window closes
	closeOnce sync.Once
	stopOnce  sync.Once     // Options.Stopped
	saved     atomic.Bool   // the state was saved (saveState)
	mainPump  chan func()   // MainThread's calls, taken by shutdown while it waits
	gpuDone   chan struct{} // closed when startGPU, started by OnStarted, has returned

	shutdownWaiting func() // tests: called while shutdown waits for the background work
}

// New builds the explorer window in a (the window is not shown yet: call ShowAndRun or
// FyneWindow().Show()).
func New(a fyne.App, opts Options) *Window {
	if opts.Renderer == "" {
		opts.Renderer = "auto"
	}
	start := opts.Start
	var refused error // the last session's view, refused
	if start.Zoom.String() == "0" && opts.Restore {
		l, ok, err := restoredView(a.Preferences())
		if ok {
			start = l
		}
		refused = err
	}
	if start.Zoom.String() == "0" || start.Validate() != nil {
		start = fractal.Home()
	}
	w := &Window{app: a, opts: opts, loc: start, cpu: &cpu.Renderer{}, closing: make(chan struct{}), mainPump: make(chan func())}
	w.autoIter, w.autoBoost = autoOf(start)
	w.lastIters = start.Iterations
	w.rend = &swapRenderer{r: w.cpu, cpu: w.cpu, onFail: w.gpuFailed}
	w.sched = preview.New(w.rend)
	w.worker = preview.NewWorker(w.sched, opts.Idle, w.deliver)
	w.setSampling()
	w.worker.SetAccumulate(opts.Accumulate)
	w.probe = newProber(w)

	w.win = a.NewWindow("Mandelscope")
	w.build()
	w.win.Resize(w.initialSize().Max(w.win.Content().MinSize())) // the desktop driver keeps to it too
	w.win.SetOnClosed(w.shutdown)
	// A quit that does not close the window (Fyne's own signal handler, before the window
	// takes it over) still saves the state.
	a.Lifecycle().SetOnStopped(func() {
		if !w.saved.Load() {
			w.saveState()
		}
	})

	startGPU := false
	switch {
	case opts.Renderer == "cpu":
		w.gpuNote = "CPU renderer (chosen)"
	case opts.NewGPU == nil:
		w.gpuNote = "CPU renderer (no OpenGL renderer built in)"
	default:
		w.gpuNote = "CPU renderer (starting OpenGL...)"
		startGPU = true
	}
	if opts.Signals != nil && opts.CatchSignals {
		signal.Notify(opts.Signals, QuitSignals...)
	}
	a.Lifecycle().SetOnStarted(func() {
		if startGPU {
			w.gpuDone = make(chan struct{}) // shutdown, on this goroutine too, waits for it
			go w.startGPU()
		}
		if opts.Signals != nil && opts.CatchSignals {
			go func() {
				takeSignalsFromFyne(opts.Signals, w.closing)
				if opts.SignalsTaken != nil {
					opts.SignalsTaken()
				}
			}()
		}
	})
	if opts.Signals != nil {
		w.listenForQuit(opts.Signals)
	}
	w.updateStatus()
	w.marks = installBookmarksPanel(w)
	w.exp = installExport(w)
	w.vid = installVideo(w)
	w.nav = installNavigation(w)
	w.undo = installColourUndo(w)
	installGradients(w)
	installColourShader(w)
	installKeysHelp(w)
	installAbout(w)
	quit := fyne.NewMenuItem("Quit", w.Quit) // stays last in the menu (AddMenuItem)
	quit.IsQuit, quit.Shortcut = true, quitShortcut
	w.AddMenuItem("File", quit)
	w.AddShortcut(quitShortcut, w.Quit)
	w.rebuildMenu()
	if opts.Restore && a.Preferences().Bool(prefBookmarks) {
		w.marks.toggle()
	}
	if refused != nil {
		w.reportRefusedView(a.Preferences().String(prefView), refused)
	}
	return w
}

// initialSize is the window's first size (screen units): Options.Size as given (main checks
// it against the limits), else the last session's, else 1280x800, made to fit the screen
// (Options.Screen) and the memory budget (limits.go) at the app's scale.
func (w *Window) initialSize() fyne.Size {
	scale := w.app.Settings().Scale() // the user's scale: 0 (unset) or less reads as 1
	if scale <= 0 {
		scale = 1
	}
	if s := w.opts.Size; !s.IsZero() {
		return clampWindowSize(s, fyne.Size{}, scale)
	}
	size := fyne.NewSize(1280, 800)
	if s, ok := restoredSize(w.app.Preferences()); w.opts.Restore && ok {
		size = s
	}
	var screen fyne.Size
	if w.opts.Screen != nil {
		if sw, sh, ok := w.opts.Screen(); ok && sw > 0 && sh > 0 {
			screen = fyne.NewSize(float32(sw)/scale, float32(sh)/scale)
		}
	}
	return clampWindowSize(size, screen, scale)
}

// gpuFailed is swapRenderer's onFail: the GPU renderer failed a render (any goroutine), the
// CPU one draws from now on; the status bar says why.
func (w *Window) gpuFailed(err error) {
	w.uiDo(func() {
		w.gpuNote = "CPU renderer (OpenGL failed: " + firstLine(err.Error()) + ")"
		w.worker.ForgetViews() // the GPU renderer's pictures
		w.updateStatus()
	})
}

// uiDo runs fn on the UI goroutine (Options.do, else fyne.Do) unless the window has closed
// by then; it may be called from any goroutine and does not wait.
func (w *Window) uiDo(fn func()) {
	do := fyne.Do
	if w.opts.do != nil {
		do = w.opts.do
	}
	do(func() {
		// Once the window is closed nothing is left to update: Fyne, once it has stopped,
		// runs such calls on the caller's goroutine.
		if !isClosed(w.closing) {
			fn()
		}
	})
}

// stop ends the window's background work: on the UI goroutine it stops the history timer and
// the bookmarks file watch, then it closes the render worker and the cursor prober, waiting
// for their goroutines.
func (w *Window) stop() {
	w.stopUI()
	w.stopWorkers()
}

// stopUI stops the background work whose state lives on the UI goroutine; it must run there.
func (w *Window) stopUI() {
	w.view.stopHold()
	if w.nav != nil {
		w.nav.stop()
	}
	if w.marks != nil {
		w.marks.stopWatch()
	}
}

// stopWorkers closes the render worker and the prober and waits for their goroutines.
func (w *Window) stopWorkers() {
	w.worker.Close()
	w.probe.close()
	if w.inset != nil {
		w.inset.close()
	}
}

// startGPU creates the GPU renderer (on a goroutine: the renderer's own calls go to the
// main thread) and switches to it, or says in the status bar why the CPU stays.
func (w *Window) startGPU() {
	if w.gpuDone != nil {
		defer close(w.gpuDone)
	}
	r, err := w.opts.NewGPU()
	if c, ok := r.(interface{ Close() error }); ok && err == nil && isClosed(w.closing) {
		_ = c.Close() // too late: the window closed meanwhile
		return
	}
	w.uiDo(func() {
		if err != nil {
			w.gpuNote = "CPU renderer (no OpenGL: " + firstLine(err.Error()) + ")"
			if w.opts.Renderer == "gpu" {
				w.ShowError(fmt.Errorf("the GPU renderer is not available: %w", err))
			}
			w.updateStatus()
			return
		}
		w.rend.set(r)
		w.sched.Reset()
		w.worker.ForgetViews() // the CPU renderer's pictures
		w.gpuNote = ""
		w.updateStatus()
		w.requestRender(false)
	})
}

// ShowAndRun shows the window and runs the application until it is closed.
func (w *Window) ShowAndRun() { w.win.ShowAndRun() }

// FyneWindow returns the underlying Fyne window.
func (w *Window) FyneWindow() fyne.Window { return w.win }

// Location returns the current view.
func (w *Window) Location() fractal.Location {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.loc
}

// SetLocation navigates to l (validated first: an invalid location is shown as an error and
// ignored): it re-renders at full resolution and notifies the listeners. The iterations are
// kept exactly; the Auto checkbox follows whether they equal the automatic count.
func (w *Window) SetLocation(l fractal.Location) { w.setLocationFrom(l, FromUser) }

// setFileLocation navigates to l as a file records it (File > Open Image): with its own
// iteration count, Auto off, whether or not the count is one Auto would choose, so that the
// window draws the file's picture and not the count Auto settles on for its view (an export
// of 613 iterations at zoom 23000, the zoom's automatic count, was drawn with Auto's 2452).
func (w *Window) setFileLocation(l fractal.Location) {
	if err := l.Validate(); err != nil {
		w.ShowError(err)
		return
	}
	w.autoIter, w.autoBoost = false, 1
	w.lastIters = l.Iterations
	w.moveTo(l, false, FromUser, true)
}

// setLocationFrom is SetLocation for a change that comes from origin: the listeners are told,
// so that the history does not record the steps it makes itself.
func (w *Window) setLocationFrom(l fractal.Location, origin Origin) {
	if err := l.Validate(); err != nil {
		w.ShowError(err)
		return
	}
	w.autoIter, w.autoBoost = autoOf(l)
	w.lastIters = l.Iterations
	w.moveTo(l, false, origin, true)
}

// autoOf says whether l's iterations are an automatic count (fractal.AutoIterations times a
// boost preview.AutoBoost may give) and with which boost.
func autoOf(l fractal.Location) (auto bool, boost int) {
	base := fractal.AutoIterations(l.ZoomFloat())
	// Up to MaxAutoBoost, and past it to a framed minibrot's count (preview.AutoBoost).
	for b := 1; b <= preview.MaxAutoBoost || base*b/2 < fractal.MaxIterations; b *= 2 {
		if l.Iterations == min(base*b, fractal.MaxIterations) {
			return true, b
		}
	}
	return false, 1
}

// setSampling has the worker sample escape counts for Auto (preview.SampleAhead times the
// iterations in use, up to what the boost may reach) while Auto is on.
func (w *Window) setSampling() {
	if !w.autoIter {
		w.worker.SetSampling(nil)
		return
	}
	w.worker.SetSampling(func(l fractal.Location) int {
		return min(l.Iterations*preview.SampleAhead, fractal.AutoIterations(l.ZoomFloat())*preview.MaxAutoBoost)
	})
}

// autoIterations is the automatic iteration count at zoom z with the current boost.
func (w *Window) autoIterations(z float64) int {
	return min(fractal.AutoIterations(z)*max(w.autoBoost, 1), fractal.MaxIterations)
}

// Origin says where a change of view comes from.
type Origin int

const (
	// FromUser is every change but the two below: input, dialogs, bookmarks, SetLocation.
	FromUser Origin = iota
	// FromHistory is a step back or forward through the visited views.
	FromHistory
)

// OnLocationChanged adds a listener called (on the UI goroutine) after every change of view,
// including each step of a drag, with where the change came from.
func (w *Window) OnLocationChanged(fn func(old, new fractal.Location, origin Origin)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.listeners = append(w.listeners, fn)
}

// ViewSize returns the fractal view's size in physical pixels (what a render covers).
func (w *Window) ViewSize() (width, height int) { return w.view.pixelSize() }

// RenderThumbnail renders l at width x height with the window's renderer (the GPU one once it
// is running), synchronously; it may be called from any goroutine, the UI's included. An
// invalid location gives a black image; a failed render is redrawn by the CPU renderer, and if
// that fails too the image is left as drawn. No error is shown or returned.
func (w *Window) RenderThumbnail(l fractal.Location, width, height int) *image.RGBA {
	width, height = max(width, 1), max(height, 1)
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	if err := l.Validate(); err != nil {
		return img
	}
	if err := w.rend.Render(context.Background(), fractal.NewFrame(l, width, height), img.Rect, img); err != nil {
		_ = w.cpu.Render(context.Background(), fractal.NewFrame(l, width, height), img.Rect, img)
	}
	return img
}

// AddToolbarItem appends an item to the toolbar at the top.
func (w *Window) AddToolbarItem(item widget.ToolbarItem) {
	w.toolbar.Append(item)
	w.toolbar.Refresh()
}

// AddMenuItem appends item to the main menu called menu ("File", "View", "Go", ...),
// creating that menu if needed.
func (w *Window) AddMenuItem(menu string, item *fyne.MenuItem) {
	for _, m := range w.menus {
		if m.Label == menu {
			if n := len(m.Items); n >= 2 && m.Items[n-1].IsQuit {
				// Quit stays last, after its separator (Fyne adds a Quit of its own, which ends
				// the app without closing the window, to a first menu that does not end with one).
				m.Items = append(m.Items[:n-2:n-2], item, m.Items[n-2], m.Items[n-1])
			} else {
				if item.IsQuit {
					m.Items = append(m.Items, fyne.NewMenuItemSeparator())
				}
				m.Items = append(m.Items, item)
			}
			w.rebuildMenu()
			return
		}
	}
	// A new menu goes before Help, which stays last, as desktop menus have it.
	at := len(w.menus)
	if n := len(w.menus); n > 0 && w.menus[n-1].Label == "Help" && menu != "Help" {
		at = n - 1
	}
	w.menus = slices.Insert(w.menus, at, fyne.NewMenu(menu, item))
	w.rebuildMenu()
}

func (w *Window) rebuildMenu() {
	w.win.SetMainMenu(fyne.NewMainMenu(w.menus...))
}

// AddMenuShortcut appends a menu item labelled label to menu that runs fn and shows its
// keyboard shortcut sc, and registers sc on the window.
func (w *Window) AddMenuShortcut(menu, label string, sc fyne.Shortcut, fn func()) {
	item := fyne.NewMenuItem(label, fn)
	item.Shortcut = sc
	w.AddMenuItem(menu, item)
	w.AddShortcut(sc, fn)
}

// AddShortcut registers a keyboard shortcut on the window.
func (w *Window) AddShortcut(sc fyne.Shortcut, fn func()) {
	w.win.Canvas().AddShortcut(sc, func(fyne.Shortcut) { fn() })
}

// SetSidePanel shows obj in the side panel, over the picture's right edge on the theme's
// background (nil hides the panel). The picture keeps its size: nothing is rendered again.
func (w *Window) SetSidePanel(obj fyne.CanvasObject) {
	if obj == nil {
		w.side.Objects = nil
		w.side.Hide()
	} else {
		bg := canvas.NewRectangle(theme.Color(theme.ColorNameBackground))
		w.side.Objects = []fyne.CanvasObject{bg, obj}
		w.side.Show()
	}
	// Showing or hiding an object lays out nothing: its container places it (or the rest)
	// only when it is laid out again, which a refresh does now (not at the next resize).
	w.sideBox.Refresh()
	if w.inset != nil {
		w.inset.box.Refresh() // it keeps left of the panel
	}
}

// SetExportFrame outlines, over the preview, the part of the view an export of width x height
// covers (the largest centred rectangle of that aspect ratio); 0, 0 hides it.
func (w *Window) SetExportFrame(width, height int) {
	w.frame.set(width, height)
}

// navigate moves to l, updates controls and status, asks for a render and notifies listeners:
// a change of view by the user.
func (w *Window) navigate(l fractal.Location, interactive bool) {
	w.navigateFrom(l, interactive, FromUser)
}

// navigateFrom is navigate for a change that comes from origin.
func (w *Window) navigateFrom(l fractal.Location, interactive bool, origin Origin) {
	w.moveTo(l, interactive, origin, false)
}

// moveTo is navigateFrom, for a new place when place is set (Go to Location, a bookmark,
// Open Image, the history, Home): one that is another view (not a change of colouring) puts
// the old view's state away at once (newPlace). A view within rounding of one the worker
// holds (preview.Worker.Snap: a burst of wheel notches in and back out) becomes that view,
// whose picture then shows at once.
//
// Every change of view comes here, and here its centre is kept within the range Validate
// accepts (fractal.Location.ClampCentre): a pan, drag or zoom out past it stops at the
// edge, and the status bar says so, so that no view the window reaches is one that the
// history, a bookmark, a file or the next start would refuse.
func (w *Window) moveTo(l fractal.Location, interactive bool, origin Origin, place bool) {
	l, atEdge := l.ClampCentre()
	if !samePlace(l, w.Location()) {
		w.cancelFind() // a search from the view left goes nowhere
	}
	if w.autoIter {
		l.Iterations = w.autoIterations(l.ZoomFloat())
	}
	pw, ph := w.view.pixelSize()
	if pw > 0 && ph > 0 {
		if s, ok := w.worker.Snap(l, pw, ph, w.snapIterations(l)); ok {
			l = s
			if w.autoIter {
				_, w.autoBoost = autoOf(s)
			}
		}
	}
	w.setSampling()
	w.mu.Lock()
	old := w.loc
	w.loc = l
	ls := append([]func(old, new fractal.Location, origin Origin){}, w.listeners...)
	w.mu.Unlock()
	w.syncControls()
	w.updateStatus()
	if atEdge {
		w.note = foundNote{at: l, msg: edgeNote}
		w.setMessage(edgeNote)
	}
	if w.inset != nil {
		w.inset.follow()
	}
	if place && viewOnly(old) != viewOnly(l) {
		w.newPlace(l)
	} else {
		w.requestRender(interactive)
	}
	if pw > 0 && ph > 0 {
		w.probe.viewChanged(l, pw, ph)
	}
	for _, fn := range ls {
		fn(old, l, origin)
	}
}

// edgeNote is what the status bar says while a move has stopped the view at the edge of the
// centre's range.
var edgeNote = fmt.Sprintf("at the edge: |re|, |im| <= %g", fractal.MaxCentre)

// snapIterations is what iterations a view l snaps to may have: l's, or on automatic
// iterations another automatic count (another boost) at that zoom.
func (w *Window) snapIterations(l fractal.Location) func(int) bool {
	return func(it int) bool {
		if it == l.Iterations {
			return true
		}
		c := l
		c.Iterations = it
		auto, _ := autoOf(c)
		return w.autoIter && auto
	}
}

// viewOnly is l without its colouring: what a change of colouring alone leaves as it is
// (Location.View).
func viewOnly(l fractal.Location) string { return l.View() }

// newPlace asks for the new place l, cancelling the old view's work (reference orbit, bands,
// samples), and unless l's picture shows at once (the worker holds it) dims the old picture
// and clears the old view's progress from the status bar; the old view's results that still
// come are dropped (placeSeq).
func (w *Window) newPlace(l fractal.Location) {
	pw, ph := w.view.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	cached := w.worker.Cached(l, pw, ph)
	w.placeSeq = w.worker.RequestPlace(l, pw, ph)
	if cached {
		return
	}
	if old, ok := w.view.img.Image.(*image.RGBA); ok && old.Rect.Dx() > 1 {
		w.view.setImage(dimmed(old))
	}
	w.renderStatus("rendering the new view")
}

// dimmed is src in grey at 40% of its brightness: the old view's picture while a new place
// renders.
func dimmed(src *image.RGBA) *image.RGBA {
	dst := image.NewRGBA(src.Rect)
	w, h := src.Rect.Dx(), src.Rect.Dy()
	for y := range h {
		s := src.Pix[y*src.Stride : y*src.Stride+4*w]
		d := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		for x := 0; x < 4*w; x += 4 {
			g := byte((uint32(s[x])*77 + uint32(s[x+1])*150 + uint32(s[x+2])*29) * 2 / (5 * 256))
			d[x], d[x+1], d[x+2], d[x+3] = g, g, g, 255
		}
	}
	return dst
}

// requestRender asks the worker for the current view at the view's size.
func (w *Window) requestRender(interactive bool) {
	pw, ph := w.view.pixelSize()
	if pw < 1 || ph < 1 {
		return
	}
	w.worker.Request(w.Location(), pw, ph, interactive)
}

// followDensity takes the number an automatic density was drawn with (the worker chooses it
// from the view: preview.Worker.followDensity) into the window's location, which stays
// automatic, when the frame is of the location's colouring otherwise (w.mu held): exports
// and the copied text then draw what the window shows. It asks for no render.
func (w *Window) followDensity(drawn colour.Coloring) {
	cur := w.loc.Color
	if !cur.AutoDensity || !drawn.AutoDensity {
		return
	}
	cur.Density = drawn.Density
	if cur == drawn {
		w.loc.Color = drawn
	}
}

// deliver runs on the worker goroutine with a finished frame.
func (w *Window) deliver(res preview.Result) {
	if res.Err == nil && res.Image != nil {
		w.mu.Lock()
		full, fullLoc := w.lastFull, w.lastFullLoc
		w.mu.Unlock()
		res.Image = composeWithLastFull(res, full, fullLoc)
		if !res.Partial && res.Stats.Scale <= 1 && !res.Stats.Reused {
			w.mu.Lock()
			w.lastFull, w.lastFullLoc = res.Image, res.Req.Loc
			w.mu.Unlock()
		}
	}
	w.uiDo(func() {
		if res.Err != nil {
			if res.Req.Seq >= w.placeSeq {
				w.setMessage("render failed: " + firstLine(res.Err.Error()))
			}
			return
		}
		if res.Req.Seq < w.shownSeq || res.Req.Seq < w.placeSeq {
			return // an older frame, or the view before a new place
		}
		if res.Reference {
			w.renderStatus("reference " + percentText(res.Done))
			return
		}
		if res.Escapes != nil {
			w.adaptIterations(res.Req.Loc, *res.Escapes)
			return
		}
		if res.Samples > 0 && res.Image == nil {
			w.renderStatus(fmt.Sprintf("samples %d/%d", res.Samples, res.SamplesOf))
			return
		}
		if res.Partial {
			w.shownSeq = res.Req.Seq
			w.view.setImage(res.Image)
			w.renderStatus("refining " + percentText(res.Done))
			if w.opts.OnFrame != nil {
				w.opts.OnFrame(res)
			}
			return
		}
		w.shownSeq = res.Req.Seq
		w.mu.Lock()
		w.shown = res.Image
		w.followDensity(res.Req.Loc.Color)
		w.mu.Unlock()
		w.view.setImage(res.Image)
		if res.Stats.Cached {
			t := "cached"
			if res.SamplesOf > 0 {
				t += fmt.Sprintf(", samples %d/%d", res.Samples, res.SamplesOf)
			}
			w.renderStatus(t)
			if w.opts.OnFrame != nil {
				w.opts.OnFrame(res)
			}
			return
		}
		if res.Stats.Recoloured {
			t := fmt.Sprintf("recolour %.0f ms", float64(res.Stats.Total.Microseconds())/1000)
			if res.Samples > 0 {
				t += fmt.Sprintf(", samples %d/%d", res.Samples, res.SamplesOf)
			}
			w.renderStatus(t)
			if w.opts.OnFrame != nil {
				w.opts.OnFrame(res)
			}
			return
		}
		if res.Samples > 0 {
			w.renderStatus(fmt.Sprintf("samples %d/%d", res.Samples, res.SamplesOf))
			if w.opts.OnFrame != nil {
				w.opts.OnFrame(res)
			}
			return
		}
		t := fmt.Sprintf("%.0f ms", float64(res.Stats.Total.Microseconds())/1000)
		if res.Stats.Reused {
			t += fmt.Sprintf(" (blocks %.3g px)", res.Stats.Block)
		} else if res.Stats.Scale > 1 {
			t += fmt.Sprintf(" (1/%d)", res.Stats.Scale)
		}
		w.renderStatus("frame " + t)
		if w.opts.OnFrame != nil {
			w.opts.OnFrame(res)
		}
	})
}

// adaptIterations raises the automatic iterations when the escape counts sampled for the
// full frame of loc (still the view) say that they are too low (preview.AdaptBoost); the new
// request cancels that frame.
func (w *Window) adaptIterations(loc fractal.Location, es preview.EscapeSample) {
	cur := w.Location()
	if !w.autoIter || cur.String() != loc.String() {
		return
	}
	nb := preview.AdaptBoost(fractal.AutoIterations(cur.ZoomFloat()), w.autoBoost, es)
	if nb == w.autoBoost {
		return
	}
	w.autoBoost = nb
	w.navigate(cur, false)
}

// shownImage is the frame the view shows now (nil before the first).
func (w *Window) shownImage() *image.RGBA {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.shown
}

// minViewW, minViewH is the least size of the picture.
const minViewW, minViewH = 480, 240

// build lays out the window: toolbar and controls at the top, the view in the centre with
// the export frame over it, the side panel on the right, the status bar at the bottom.
func (w *Window) build() {
	w.view = newFractalView(w)
	w.inset = newJuliaInset(w)
	w.cycle = newColourCycle(w)
	w.frame = newExportFrame()
	w.tips = newTipBox()
	tipped := func(icon fyne.Resource, tip string, fn func()) widget.ToolbarItem {
		return &tippedAction{ToolbarAction: widget.NewToolbarAction(icon, fn), w: w, tip: tip}
	}
	w.toolbar = widget.NewToolbar(
		tipped(homeIcon(), "Home: the whole set (Home)", func() { w.goHome() }),
		tipped(zoomInIcon(), "Zoom in (+ or PageUp)", func() { w.zoomCentre(2) }),
		tipped(zoomOutIcon(), "Zoom out (- or PageDown)", func() { w.zoomCentre(0.5) }),
		widget.NewToolbarSeparator(),
		tipped(copyIcon(), "Copy location (Ctrl+Shift+C)", func() { w.copyLocation() }),
	)
	controls := w.buildControls()
	status := w.buildStatus()
	w.side = container.NewStack()
	w.side.Hide()
	top := container.NewVBox(w.toolbar, controls)
	// The picture's least size sets, with the controls' and the status bar's, the window's
	// minimum size (Fyne gives the window its content's minimum).
	least := canvas.NewRectangle(color.Transparent)
	least.SetMinSize(fyne.NewSize(minViewW, minViewH))
	// The side panel lies over the picture's right edge: showing or hiding it leaves the
	// picture's size, and so its finished frame, as they are.
	w.sideBox = container.NewBorder(nil, nil, nil, w.side)
	w.progress, w.progressBox = newProgressArea() // the exports' and videos' progress
	centre := container.NewStack(least, w.view, w.inset.box, w.frame.obj, w.progressBox, w.sideBox)
	w.win.SetContent(container.NewStack(container.NewBorder(top, status, nil, nil, centre), w.tips.layer))
	// The View menu's keys have no modifier: the items show them, the window's key handler
	// (typedKey, typedRune) acts on them.
	keyItem := func(label string, key fyne.KeyName, fn func()) *fyne.MenuItem {
		item := fyne.NewMenuItem(label, fn)
		item.Shortcut = &desktop.CustomShortcut{KeyName: key}
		return item
	}
	shiftItem := func(label string, key fyne.KeyName, fn func()) *fyne.MenuItem {
		item := fyne.NewMenuItem(label, fn)
		item.Shortcut = &desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierShift}
		return item
	}
	w.menus = []*fyne.Menu{
		fyne.NewMenu("File"),
		fyne.NewMenu("View",
			keyItem("Zoom In", fyne.KeyPlus, func() { w.zoomCentre(2) }),
			keyItem("Zoom Out", fyne.KeyMinus, func() { w.zoomCentre(0.5) }),
			keyItem("Home", fyne.KeyHome, w.goHome),
			fyne.NewMenuItemSeparator(),
			keyItem("Julia Set at the Pointer", fyne.KeyJ, w.showJulia),
			shiftItem("Back to the Mandelbrot Set", fyne.KeyJ, w.showMandelbrot),
			w.inset.item,
			fyne.NewMenuItemSeparator(),
			w.cycle.item,
			fyne.NewMenuItemSeparator(),
			keyItem("Next Formula: Mandelbrot, Burning Ship, Mandelbar", fyne.KeyF, func() { w.nextFormula(false) }),
			shiftItem("Next Power: 2 to 8", fyne.KeyF, func() { w.nextFormula(true) })),
		fyne.NewMenu("Go",
			fyne.NewMenuItem("Nearest Minibrot (M)", func() { w.findAtPointer(false) }),
			fyne.NewMenuItem("Nearest Misiurewicz Point (Shift+M)", func() { w.findAtPointer(true) }),
			fyne.NewMenuItem("Halfway to the Nearest Minibrot (D)", func() { w.findAtPointerDepth(findDepth) })),
	}
	w.AddMenuShortcut("File", "Copy Location", &desktop.CustomShortcut{KeyName: fyne.KeyC, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}, w.copyLocation)
	c := w.win.Canvas()
	c.SetOnTypedKey(w.typedKey)
	c.SetOnTypedRune(w.typedRune)
}
