package app

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"mandelscope/bookmarks"
	"mandelscope/fractal"
	"mandelscope/internal/text"
)

// Thumbnails of bookmarks made in the window.
const (
	bookmarkThumbW, bookmarkThumbH = 96, 54
	// bookmarkThumbMaxIter caps the iterations a thumbnail is rendered with, so that adding a
	// bookmark stays quick at any depth.
	bookmarkThumbMaxIter = 20000
)

// bookmarksPanelWidth is the panel's width, whatever its text: long names are shortened with
// an ellipsis (whole in a tooltip), never widening the panel and shrinking the picture.
const bookmarksPanelWidth = 300

// fixedWidth lays its objects over each other at its full size and asks for exactly width
// (and the tallest object's minimum height), whatever their minimum widths.
type fixedWidth float32

func (f fixedWidth) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var h float32
	for _, o := range objs {
		h = max(h, o.MinSize().Height)
	}
	return fyne.NewSize(float32(f), h)
}

func (f fixedWidth) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.Position{})
		o.Resize(size)
	}
}

// defaultBookmarksWatch is how often the open panel looks whether the file changed (the
// command line may add bookmarks while the window is open).
const defaultBookmarksWatch = 2 * time.Second

// bookmarksPanel is the side panel listing the bookmarks file: thumbnails and a filter box;
// a click goes there; add (Ctrl+D), rename, delete with undo, import and export. All its
// state is touched on the UI goroutine only; each change goes to the file through
// bookmarks.Update on a goroutine of its own (change), so the command line may change the
// file at the same time and the window never waits for its lock or fsync.
type bookmarksPanel struct {
	w       *Window
	path    string
	pathErr error

	all    []bookmarks.Bookmark // the file's bookmarks, as last loaded
	shown  []bookmarks.Bookmark // those matching the filter
	thumbs map[string]image.Image
	loaded bool

	filter  *widget.Entry
	list    *widget.List
	status  *widget.Label
	undoBtn *widget.Button
	deleted *deletedBookmark
	root    fyne.CanvasObject
	visible bool
	watch   time.Duration // how often the shown panel looks at the file; <= 0: never
	stop    chan struct{} // closes the watch of the file while the panel is shown
}

// deletedBookmark is what Undo puts back.
type deletedBookmark struct {
	b     bookmarks.Bookmark
	index int
}

// installBookmarksPanel adds the bookmarks panel's toolbar buttons, menu items and shortcuts
// to w.
func installBookmarksPanel(w *Window) *bookmarksPanel {
	p := newBookmarksPanel(w)
	w.AddToolbarItem(widget.NewToolbarSeparator())
	w.AddToolbarAction(widget.NewToolbarAction(theme.ListIcon(), p.toggle), "Bookmarks panel (Ctrl+B)")
	w.AddToolbarAction(widget.NewToolbarAction(theme.ContentAddIcon(), p.showAddDialog), "Add bookmark (Ctrl+D)")
	w.AddMenuShortcut("Bookmarks", "Show Bookmarks", &desktop.CustomShortcut{KeyName: fyne.KeyB, Modifier: fyne.KeyModifierShortcutDefault}, p.toggle)
	w.AddMenuShortcut("Bookmarks", "Add Bookmark...", &desktop.CustomShortcut{KeyName: fyne.KeyD, Modifier: fyne.KeyModifierShortcutDefault}, p.showAddDialog)
	w.AddMenuItem("Bookmarks", fyne.NewMenuItem("Import Bookmarks...", p.showImportDialog))
	w.AddMenuItem("Bookmarks", fyne.NewMenuItem("Export Bookmarks...", p.showExportDialog))
	return p
}

func newBookmarksPanel(w *Window) *bookmarksPanel {
	p := &bookmarksPanel{w: w, thumbs: map[string]image.Image{}, watch: w.opts.bookmarksWatch}
	if p.watch == 0 {
		p.watch = defaultBookmarksWatch
	}
	p.path, p.pathErr = bookmarks.DefaultPath()
	p.filter = widget.NewEntry()
	p.filter.SetPlaceHolder("Filter bookmarks")
	p.filter.OnChanged = func(string) { p.applyFilter() }
	p.status = widget.NewLabel("")
	p.status.Wrapping = fyne.TextWrapWord
	p.list = widget.NewList(
		func() int { return len(p.shown) },
		p.newRow,
		p.updateRow,
	)
	p.list.OnSelected = func(id widget.ListItemID) {
		p.list.UnselectAll() // so that a second click on the same one goes there again
		p.open(id)
	}
	p.undoBtn = widget.NewButtonWithIcon("Undo delete", theme.ContentUndoIcon(), func() { p.undo(p.showErr) })
	p.undoBtn.Disable()
	buttons := container.NewGridWithColumns(2,
		widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), p.showAddDialog),
		p.undoBtn,
		widget.NewButtonWithIcon("Import", theme.FolderOpenIcon(), p.showImportDialog),
		widget.NewButtonWithIcon("Export", theme.DocumentSaveIcon(), p.showExportDialog),
	)
	top := container.NewVBox(widget.NewLabelWithStyle("Bookmarks", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), p.filter)
	bottom := container.NewVBox(p.status, buttons)
	p.root = container.New(fixedWidth(bookmarksPanelWidth), container.NewBorder(top, bottom, nil, nil, p.list))
	return p
}

// bookmarkRow is one line of the list: thumbnail, name and zoom, rename and delete buttons.
type bookmarkRow struct {
	widget.BaseWidget
	w      *Window
	img    *canvas.Image
	name   *widget.Label
	full   string // the whole name, for the tooltip
	detail *widget.Label
	rename *widget.Button
	del    *widget.Button
}

var _ fyne.Widget = (*bookmarkRow)(nil)

func newBookmarkRow(w *Window) *bookmarkRow {
	r := &bookmarkRow{
		w:      w,
		img:    canvas.NewImageFromImage(image.NewRGBA(image.Rect(0, 0, 1, 1))),
		name:   widget.NewLabel("name"),
		detail: widget.NewLabel("zoom"),
		rename: widget.NewButtonWithIcon("", theme.DocumentCreateIcon(), nil),
		del:    widget.NewButtonWithIcon("", theme.DeleteIcon(), nil),
	}
	r.img.FillMode = canvas.ImageFillContain
	r.img.SetMinSize(fyne.NewSize(bookmarkThumbW*0.75, bookmarkThumbH*0.75))
	r.name.Truncation = fyne.TextTruncateEllipsis
	r.detail.Truncation = fyne.TextTruncateEllipsis
	r.detail.SizeName = theme.SizeNameCaptionText
	r.ExtendBaseWidget(r)
	return r
}

// CreateRenderer lays the row out: thumbnail left, buttons right, name and detail between.
func (r *bookmarkRow) CreateRenderer() fyne.WidgetRenderer {
	name := container.NewStack(r.name, newTipArea(r.w, nil, func() string { return r.full }))
	text := container.NewVBox(name, r.detail)
	return widget.NewSimpleRenderer(container.NewBorder(nil, nil, r.img, container.NewHBox(r.rename, r.del), text))
}

func (p *bookmarksPanel) newRow() fyne.CanvasObject { return newBookmarkRow(p.w) }

func (p *bookmarksPanel) updateRow(id widget.ListItemID, obj fyne.CanvasObject) {
	r, ok := obj.(*bookmarkRow)
	if !ok || id < 0 || id >= len(p.shown) {
		return
	}
	b := p.shown[id]
	r.name.SetText(b.Name)
	r.full = b.Name
	r.detail.SetText(fmt.Sprintf("zoom %s, %d iterations", fractal.FormatZoom(b.Location.ZoomExp()), b.Location.Iterations))
	r.img.Image = p.thumbnail(b)
	r.img.Refresh()
	name := b.Name
	r.rename.OnTapped = func() { p.showRenameDialog(name) }
	r.del.OnTapped = func() { p.remove(name, p.showErr) }
}

// thumbnail decodes a bookmark's PNG thumbnail once; a missing or bad one, or one larger than
// bookmarks.MaxThumbnailSide (checked from its header before decoding), is a dark tile.
func (p *bookmarksPanel) thumbnail(b bookmarks.Bookmark) image.Image {
	key := b.Name + "\x00" + b.Updated.String() + "\x00" + fmt.Sprint(len(b.Thumbnail))
	if img, ok := p.thumbs[key]; ok {
		return img
	}
	var img image.Image = image.NewRGBA(image.Rect(0, 0, 16, 9))
	if len(b.Thumbnail) > 0 {
		if dec, err := bookmarks.DecodeThumbnail(b.Thumbnail); err == nil {
			img = dec
		}
	}
	p.thumbs[key] = img
	return img
}

// toggle shows or hides the panel; showing it reloads the file.
func (p *bookmarksPanel) toggle() {
	if p.visible {
		p.visible = false
		p.w.SetSidePanel(nil)
		p.stopWatch()
		return
	}
	p.visible = true
	p.w.SetSidePanel(p.root)
	err := p.reload()
	if p.watch > 0 && p.pathErr == nil {
		stop := make(chan struct{})
		p.stop = stop
		go watchFile(p.path, fileStamp(p.path), p.watch, stop, func() {
			p.w.uiDo(func() {
				if p.visible && p.stop == stop {
					p.reload()
				}
			})
		})
	}
	p.showErr(err)
}

// stopWatch ends the watch of the file, if one runs (the panel was hidden or the window
// closed).
func (p *bookmarksPanel) stopWatch() {
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
}

// fileStamp is what watchFile compares: the file's size and time, or why it cannot be read.
func fileStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
}

// watchFile calls changed (on its own goroutine) whenever the file's stamp differs from last,
// the stamp taken when the caller started watching, looking every so often, until stop is
// closed.
func watchFile(path, last string, every time.Duration, stop chan struct{}, changed func()) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if s := fileStamp(path); s != last {
				last = s
				changed()
			}
		}
	}
}

// reload reads the file again. A file that cannot be read empties the list and says why in
// the panel; the error (naming the file) is returned for a dialog.
func (p *bookmarksPanel) reload() error {
	p.loaded = true
	if p.pathErr != nil {
		p.setAll(nil, p.pathErr.Error())
		return p.pathErr
	}
	s, err := bookmarks.Load(p.path)
	if err != nil {
		p.setAll(nil, err.Error())
		return err
	}
	p.setAll(s.List(), "")
	return nil
}

func (p *bookmarksPanel) setAll(list []bookmarks.Bookmark, problem string) {
	p.all = list
	if problem != "" {
		p.status.SetText(problem)
	} else if len(list) == 0 {
		p.status.SetText("No bookmarks yet: Ctrl+D adds this view.")
	} else {
		p.status.SetText("")
	}
	p.applyFilter()
}

// applyFilter shows the bookmarks whose name contains the filter text (any case).
func (p *bookmarksPanel) applyFilter() {
	f := strings.ToLower(strings.TrimSpace(p.filter.Text))
	p.shown = p.shown[:0]
	for _, b := range p.all {
		if f == "" || strings.Contains(strings.ToLower(b.Name), f) {
			p.shown = append(p.shown, b)
		}
	}
	p.list.Refresh()
}

// open goes to the bookmark shown at row id.
func (p *bookmarksPanel) open(id widget.ListItemID) {
	if id < 0 || id >= len(p.shown) {
		return
	}
	p.w.SetLocation(p.shown[id].Location)
	p.w.focusView() // the list took the keys with the click: the picture's arrows pan again
}

// change runs fn on the file through bookmarks.Update on a goroutine of its own (the file's
// lock and fsync may take their time; the UI goroutine never waits for them), then, on the UI
// goroutine, reloads the list and calls done (if not nil) with the result; errors name the
// file. fn must touch nothing but the store it is given and its own variables.
func (p *bookmarksPanel) change(fn func(*bookmarks.Store) error, done func(error)) {
	if p.pathErr != nil {
		if done != nil {
			done(p.pathErr)
		}
		return
	}
	path := p.path
	go func() {
		err := bookmarks.Update(path, fn)
		p.w.uiDo(func() {
			if rerr := p.reload(); err == nil && rerr != nil {
				err = rerr
			}
			if done != nil {
				done(err)
			}
		})
	}()
}

// defaultName is the name offered for a new bookmark of l: its centre and zoom, short, after
// "Julia c" and its parameter for a Julia view.
func defaultName(l fractal.Location) string {
	if l.IsJulia() {
		return fmt.Sprintf("Julia %.6g %+.6gi, %.6g %+.6gi zoom %s", l.Julia.Re.Float64(), l.Julia.Im.Float64(),
			l.Re.Float64(), l.Im.Float64(), fractal.FormatZoom(l.ZoomExp()))
	}
	return fmt.Sprintf("%.6g %+.6gi zoom %s", l.Re.Float64(), l.Im.Float64(), fractal.FormatZoom(l.ZoomExp()))
}

// renderBookmarkThumbnail renders l small with the window's renderer, as PNG.
func (p *bookmarksPanel) renderBookmarkThumbnail(l fractal.Location) []byte {
	l.Iterations = min(l.Iterations, bookmarkThumbMaxIter)
	img := p.w.RenderThumbnail(l, bookmarkThumbW, bookmarkThumbH)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil
	}
	return buf.Bytes()
}

// addBookmark adds l to the file as name, with a thumbnail (PNG, may be nil), then calls
// done (see change).
func (p *bookmarksPanel) addBookmark(name string, l fractal.Location, thumb []byte, done func(error)) {
	n, err := bookmarks.CleanName(name)
	if err != nil {
		done(err)
		return
	}
	p.change(func(s *bookmarks.Store) error {
		return s.Add(bookmarks.Bookmark{Name: n, Location: l, Thumbnail: thumb})
	}, done)
}

// showAddDialog asks for a name and adds the current view.
func (p *bookmarksPanel) showAddDialog() { p.addDialog(nil) }

// addDialog shows the dialog that asks for a name (offering one) and adds the current view;
// the thumbnail is rendered off the UI goroutine, then the file written. done, if not nil,
// is called with the result.
func (p *bookmarksPanel) addDialog(done func(error)) (*dialog.FormDialog, *escEntry) {
	if !p.loaded {
		p.reload()
	}
	l := p.w.Location()
	entry := newEscEntry(p.w)
	entry.SetText(p.uniqueName(defaultName(l)))
	entry.Validator = func(s string) error {
		n, err := bookmarks.CleanName(s)
		if err != nil {
			return err
		}
		for _, b := range p.all {
			if b.Name == n {
				return fmt.Errorf("bookmark %q already exists", n)
			}
		}
		return nil
	}
	d := dialog.NewForm("Add bookmark", "Add", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Name", entry)},
		func(ok bool) {
			if !ok {
				return
			}
			name := entry.Text
			go func() {
				thumb := p.renderBookmarkThumbnail(l)
				p.w.uiDo(func() {
					p.addBookmark(name, l, thumb, func(err error) {
						if err == nil && !p.visible {
							p.toggle()
						}
						p.showErr(err)
						if done != nil {
							done(err)
						}
					})
				})
			}()
		}, p.w.FyneWindow())
	entry.OnSubmitted = func(string) { submitIfValid(d, &entry.Entry) }
	d.Resize(fyne.NewSize(460, 180))
	p.w.showDialog(d)
	focusSelected(p.w.FyneWindow(), entry)
	return d, entry
}

func (p *bookmarksPanel) uniqueName(name string) string {
	s := &bookmarks.Store{}
	for _, b := range p.all {
		s.Add(b)
	}
	return s.UniqueName(name)
}

// rename renames a bookmark in the file.
func (p *bookmarksPanel) rename(oldName, newName string, done func(error)) {
	p.change(func(s *bookmarks.Store) error { return s.Rename(oldName, newName) }, done)
}

func (p *bookmarksPanel) showRenameDialog(name string) {
	entry := newEscEntry(p.w)
	entry.SetText(name)
	entry.Validator = func(s string) error { _, err := bookmarks.CleanName(s); return err }
	d := dialog.NewForm("Rename bookmark", "Rename", "Cancel",
		[]*widget.FormItem{widget.NewFormItem("Name", entry)},
		func(ok bool) {
			if ok {
				p.rename(name, entry.Text, p.showErr)
			}
		}, p.w.FyneWindow())
	entry.OnSubmitted = func(string) { submitIfValid(d, &entry.Entry) }
	d.Resize(fyne.NewSize(460, 180))
	p.w.showDialog(d)
	focusSelected(p.w.FyneWindow(), entry)
}

// focusSelected focuses a dialog's entry with its text selected, so that typing replaces the
// suggested text (a default name, the current location) while the arrow keys keep it.
func focusSelected(win fyne.Window, e interface {
	fyne.Focusable
	fyne.Shortcutable
}) {
	win.Canvas().Focus(e)
	e.TypedShortcut(&fyne.ShortcutSelectAll{})
}

// submitIfValid submits a form dialog from its entry's Enter key when the entry's text is
// valid (Fyne's form dialog only submits from its button).
func submitIfValid(d *dialog.FormDialog, e *widget.Entry) {
	if e.Validate() == nil {
		d.Submit()
	}
}

// remove deletes a bookmark, then calls done (see change); Undo puts it back where it was.
func (p *bookmarksPanel) remove(name string, done func(error)) {
	var del deletedBookmark
	p.change(func(s *bookmarks.Store) (err error) {
		del.index = s.Index(name)
		del.b, err = s.Remove(name)
		return err
	}, func(err error) {
		if err == nil {
			p.deleted = &del
			p.undoBtn.Enable()
			p.status.SetText(fmt.Sprintf("Deleted %q: Undo delete puts it back.", text.Clip(del.b.Name, 40)))
		}
		done(err)
	})
}

// undo restores the last deleted bookmark (under a " (2)" name if its name was taken since),
// then calls done (see change).
func (p *bookmarksPanel) undo(done func(error)) {
	if p.deleted == nil {
		done(errors.New("nothing to undo"))
		return
	}
	del := *p.deleted
	p.change(func(s *bookmarks.Store) error {
		del.b.Name = s.UniqueName(del.b.Name)
		return s.Insert(del.index, del.b)
	}, func(err error) {
		if err == nil {
			p.deleted = nil
			p.undoBtn.Disable()
		}
		done(err)
	})
}

// importFile merges a bookmarks JSON or .kfr file into the bookmarks (reading it off the UI
// goroutine too), then calls done with what was added.
func (p *bookmarksPanel) importFile(src string, done func(bookmarks.ImportResult, error)) {
	go func() {
		in, err := bookmarks.ReadImport(src)
		p.w.uiDo(func() {
			if err != nil {
				done(bookmarks.ImportResult{}, err)
				return
			}
			var r bookmarks.ImportResult
			p.change(func(s *bookmarks.Store) error {
				r.Added, r.Skipped = s.Merge(in)
				return nil
			}, func(err error) {
				if err == nil {
					p.addThumbnails(r.Added)
				}
				done(r, err)
			})
		})
	}()
}

// addThumbnails gives the named bookmarks that have no thumbnail (those imported from .kfr
// files) one: rendered off the UI goroutine, then written to the file, unless the bookmark
// was changed or given a thumbnail meanwhile.
func (p *bookmarksPanel) addThumbnails(names []string) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var todo []bookmarks.Bookmark
	for _, b := range p.all {
		if want[b.Name] && len(b.Thumbnail) == 0 {
			todo = append(todo, b)
		}
	}
	if len(todo) == 0 {
		return
	}
	go func() {
		thumbs := make([][]byte, len(todo))
		for i, b := range todo {
			thumbs[i] = p.renderBookmarkThumbnail(b.Location)
		}
		p.w.uiDo(func() {
			p.change(func(s *bookmarks.Store) error {
				for i, b := range todo {
					cur, ok := s.Get(b.Name)
					if !ok || len(cur.Thumbnail) > 0 || cur.Location.String() != b.Location.String() || thumbs[i] == nil {
						continue
					}
					cur.Thumbnail = thumbs[i]
					if err := s.Set(cur); err != nil {
						return err
					}
				}
				return nil
			}, p.showErr)
		})
	}()
}

func (p *bookmarksPanel) showImportDialog() {
	d := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
		if err != nil || rc == nil {
			p.showErr(err)
			return
		}
		path := rc.URI().Path()
		rc.Close()
		p.importFile(path, func(r bookmarks.ImportResult, err error) {
			if err != nil {
				p.showErr(err)
				return
			}
			if !p.visible {
				p.toggle()
			}
			msg := fmt.Sprintf("Imported %d bookmark(s) from %s.", len(r.Added), path)
			if r.Skipped > 0 {
				msg += fmt.Sprintf(" %d were already there.", r.Skipped)
			}
			p.w.showInfo("Import", msg)
		})
	}, p.w.FyneWindow())
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json", ".kfr"}))
	p.w.showDialog(d)
}

// exportTo writes every bookmark, as a bookmarks file, to dst (the file dialog has already
// asked before replacing an existing file), and returns how many it wrote.
func (p *bookmarksPanel) exportTo(dst fyne.URIWriteCloser) (int, error) {
	if p.pathErr != nil {
		dst.Close()
		return 0, p.pathErr
	}
	s, err := bookmarks.Load(p.path)
	if err != nil {
		dst.Close()
		return 0, err
	}
	data, err := s.Marshal()
	if err == nil {
		_, err = dst.Write(data)
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("cannot write %s: %v", dst.URI().Path(), err)
	}
	return len(s.List()), nil
}

func (p *bookmarksPanel) showExportDialog() {
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil || wc == nil {
			p.showErr(err)
			return
		}
		path := wc.URI().Path()
		n, err := p.exportTo(wc)
		if err != nil {
			p.showErr(err)
			return
		}
		p.w.showInfo("Export bookmarks", fmt.Sprintf("Wrote %d bookmark(s) to %s.", n, path))
	}, p.w.FyneWindow())
	d.SetFileName("bookmarks.json")
	d.SetFilter(storage.NewExtensionFileFilter([]string{".json"}))
	p.w.showDialog(d)
}

func (p *bookmarksPanel) showErr(err error) {
	if err != nil {
		p.w.ShowError(err)
	}
}
