// Open Image (Ctrl+O): a path typed or pasted (quotes, a file:// prefix and ~/ are
// understood), the recent exports and opened images to click, or Fyne's file dialog through
// Browse. The recent list lives in the app's preferences.

package app

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// prefRecentImages is the preference key of the recent images, newest first.
const prefRecentImages = "recent.images"

// maxRecentImages is how many recent images are kept.
const maxRecentImages = 10

// addRecentImage puts path first in the recent images (exported or opened).
func (w *Window) addRecentImage(path string) {
	p := w.app.Preferences()
	list := []string{path}
	for _, s := range p.StringList(prefRecentImages) {
		if s != path && len(list) < maxRecentImages {
			list = append(list, s)
		}
	}
	p.SetStringList(prefRecentImages, list)
}

// recentImages are the recent images that still exist, newest first.
func (w *Window) recentImages() []string {
	var out []string
	for _, s := range w.app.Preferences().StringList(prefRecentImages) {
		if st, err := os.Stat(s); err == nil && st.Mode().IsRegular() {
			out = append(out, s)
		}
	}
	return out
}

// cleanPath reads a typed or pasted path: surrounding spaces and quotes go, a file:// URL
// becomes its path, and ~/ is the home folder.
func cleanPath(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	if strings.HasPrefix(s, "file://") {
		u, err := url.Parse(s)
		if err != nil {
			return "", errors.New("the file:// address cannot be read")
		}
		s = u.Path
	}
	if s == "~" || strings.HasPrefix(s, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", errors.New("~ cannot be read: there is no home folder")
		}
		s = filepath.Join(home, s[1:])
	}
	if s == "" {
		return "", errors.New("type or paste the path of a PNG exported by Mandelscope")
	}
	return s, nil
}

// openImagePath opens the view stored in the image at the typed path, and remembers it.
func (n *navigator) openImagePath(text string) error {
	path, err := cleanPath(text)
	if err != nil {
		return err
	}
	if err := n.openImage(path); err != nil {
		return err
	}
	n.w.addRecentImage(path)
	return nil
}

// openImageDialog shows the Open Image dialog: a path entry (Enter opens it), the recent
// images (a click opens one) and Browse (Fyne's file dialog fills the entry).
func (n *navigator) openImageDialog() (*dialog.FormDialog, *escEntry) {
	entry := newEscEntry(n.w)
	entry.SetPlaceHolder("/path/to/image.png")
	entry.Validator = func(s string) error { _, err := cleanPath(s); return err }
	var d *dialog.FormDialog
	browse := widget.NewButtonWithIcon("Browse...", theme.FolderOpenIcon(), func() {
		fd := dialog.NewFileOpen(func(rc fyne.URIReadCloser, err error) {
			if err != nil || rc == nil {
				n.w.ShowError(err)
				return
			}
			entry.SetText(rc.URI().Path())
			rc.Close()
		}, n.w.FyneWindow())
		fd.SetFilter(storage.NewExtensionFileFilter([]string{".png"}))
		if p, err := cleanPath(entry.Text); err == nil {
			if l, err := storage.ListerForURI(storage.NewFileURI(filepath.Dir(p))); err == nil {
				fd.SetLocation(l)
			}
		}
		n.w.showDialog(fd)
	})
	items := []*widget.FormItem{widget.NewFormItem("Image", container.NewBorder(nil, nil, nil, browse, entry))}
	if recent := n.w.recentImages(); len(recent) > 0 {
		list := widget.NewList(func() int { return len(recent) },
			func() fyne.CanvasObject {
				l := widget.NewLabel("")
				l.Truncation = fyne.TextTruncateEllipsis
				return l
			},
			func(id widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(recent[id]) })
		list.OnSelected = func(id widget.ListItemID) {
			list.UnselectAll()
			entry.SetText(recent[id])
			d.Submit()
		}
		rows := min(len(recent), 5)
		sized := container.NewGridWrap(fyne.NewSize(520, float32(rows)*36), list)
		items = append(items, widget.NewFormItem("Recent", sized))
	}
	d = dialog.NewForm("Open image", "Open", "Cancel", items, func(ok bool) {
		if ok {
			n.w.ShowError(n.openImagePath(entry.Text))
		}
	}, n.w.FyneWindow())
	entry.OnSubmitted = func(string) { submitIfValid(d, &entry.Entry) }
	d.Resize(fyne.NewSize(640, 0))
	n.w.showDialog(d)
	n.w.FyneWindow().Canvas().Focus(entry)
	return d, entry
}

func (n *navigator) showOpenImage() { n.openImageDialog() }
