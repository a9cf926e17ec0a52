// The user's gradients in the window: the palette menu lists them after the built-ins, File
// > Import Gradient... (a gradient file, or the palettes of Kalles Fraktaler, Fractint and
// Ultra Fractal) and Export Gradient... copy them in and out of the gradients folder (package
// gradients), and Edit Gradient... (gradient_editor.go) edits the view's stops.

package app

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"

	"mandelscope/colour"
	"mandelscope/fractal"
	"mandelscope/gradients"
)

// installGradients adds the gradient items to the File menu.
func installGradients(w *Window) {
	w.AddMenuItem("File", fyne.NewMenuItemSeparator())
	w.AddMenuItem("File", fyne.NewMenuItem("Import Gradient...", w.showImportGradient))
	w.AddMenuItem("File", fyne.NewMenuItem("Export Gradient...", w.showExportGradient))
	w.AddMenuItem("File", fyne.NewMenuItem("Edit Gradient...", w.showGradientEditor))
}

// userPaletteItems are the palette menu's entries after the built-ins: the user's gradients
// (a damaged file listed, disabled, with its problem), then the view's own gradient by its
// name when it is not installed (a bookmark's, say), each checked when it is the view's.
func (w *Window) userPaletteItems(cur colour.Coloring) []*fyne.MenuItem {
	var items []*fyne.MenuItem
	shown := false
	if dir, err := gradients.Dir(); err == nil {
		list, _ := gradients.List(dir) // an unreadable folder lists nothing, as a missing one
		for _, e := range list {
			if e.Err != nil {
				item := fyne.NewMenuItem(e.Name+" (damaged)", nil)
				item.Disabled = true
				items = append(items, item)
				continue
			}
			c := cur.WithGradient(e.Name, e.Gradient)
			item := fyne.NewMenuItem(e.Name, func() {
				w.colorChanged(false, func(v *colour.Coloring) { v.Palette, v.Gradient = c.Palette, c.Gradient })
			})
			item.Icon = paletteIcon(c)
			item.Checked = cur.Gradient != "" && cur.Palette == e.Name && cur.Canonical().Gradient == c.Gradient
			shown = shown || item.Checked
			items = append(items, item)
		}
	}
	if cur.Gradient != "" && !shown {
		item := fyne.NewMenuItem(cur.Palette+" (this view's)", nil)
		item.Icon = paletteIcon(cur)
		item.Checked = true
		items = append(items, item)
	}
	if len(items) > 0 {
		items = append([]*fyne.MenuItem{fyne.NewMenuItemSeparator()}, items...)
	}
	return items
}

// viewGradient is the view's palette as stops and its name: its gradient by value, or the
// built-in palette's stops.
func (w *Window) viewGradient() (string, colour.Gradient, error) {
	c := w.Location().Color
	if c.Gradient == "" {
		g, err := colour.BuiltinGradient(c.Palette)
		return c.Palette, g, err
	}
	g, err := colour.ParseGradientText(c.Gradient)
	return c.Palette, g, err
}

// importGradient reads the palette file path (gradients.ReadImport: a gradient file, a
// Kalles Fraktaler .kfr/.kfp, a Fractint .map, or every gradient of an Ultra Fractal .ugr)
// and saves its gradients in the gradients folder, each under its own name, replacing
// gradients of those names only when replace is true (else the error wraps
// gradients.ErrExists, and nothing is saved); on success the view draws with the first. It
// returns what it read.
func (w *Window) importGradient(path string, replace bool) ([]gradients.Imported, error) {
	list, err := gradients.ReadImport(path)
	if err != nil {
		return nil, err
	}
	dir, err := gradients.Dir()
	if err != nil {
		return nil, err
	}
	if err := gradients.SaveAll(dir, list, replace); err != nil {
		return list, err
	}
	first := list[0]
	w.colorChanged(false, func(c *colour.Coloring) { *c = c.WithGradient(first.Name, first.Gradient) })
	return list, nil
}

// showImportGradient asks for a palette file and imports it, asking before it replaces a
// gradient of the same name.
func (w *Window) showImportGradient() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			w.ShowError(err)
			return
		}
		path := r.URI().Path()
		r.Close()
		w.importGradientAsking(path)
	}, w.win)
	d.SetFilter(storage.NewExtensionFileFilter(gradients.ImportExts))
	w.showDialog(d)
}

// importGradientAsking imports path; when gradients of its names exist it asks whether to
// replace them.
func (w *Window) importGradientAsking(path string) {
	list, err := w.importGradient(path, false)
	var ee *gradients.ExistsError
	if errors.As(err, &ee) {
		q := fmt.Sprintf("A gradient called %q exists already. Replace it with %s?", ee.Names[0], filepath.Base(path))
		if len(ee.Names) > 1 {
			q = fmt.Sprintf("Gradients called %s exist already. Replace them with those of %s?", strings.Join(ee.Names, ", "), filepath.Base(path))
		}
		w.showConfirm("Replace gradient?", q, "Replace", "Cancel", func(ok bool) {
			if ok {
				list, err := w.importGradient(path, true)
				w.ShowError(err)
				w.gradientNote(list, err)
			}
		})
		return
	}
	w.ShowError(err)
	w.gradientNote(list, err)
}

// gradientNote says in the status bar what an import that succeeded imported, and why a
// gradient is not named as its file named it.
func (w *Window) gradientNote(list []gradients.Imported, err error) {
	if err != nil || len(list) == 0 {
		return
	}
	msg := fmt.Sprintf("gradient %s imported", list[0].Name)
	if len(list) > 1 {
		msg = fmt.Sprintf("%d gradients imported (in the palette menu); the view draws with %s", len(list), list[0].Name)
	}
	for _, it := range list {
		if it.Note != "" {
			msg += fmt.Sprintf("; %s is named so: %s", it.Name, it.Note)
			break
		}
	}
	w.setMessage(msg)
}

// exportGradient writes the view's palette as a gradient file at path (replacing a file there:
// the save dialog has asked).
func (w *Window) exportGradient(path string) error {
	name, g, err := w.viewGradient()
	if err != nil {
		return err
	}
	return gradients.WriteFile(path, g.File(name), true)
}

// showExportGradient asks where to write the view's palette as a gradient file.
func (w *Window) showExportGradient() {
	name, _, _ := w.viewGradient()
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) {
		if err != nil || wc == nil {
			w.ShowError(err)
			return
		}
		path := wc.URI().Path()
		wc.Close() // the file is written through a temporary one beside it
		if err := w.exportGradient(path); err != nil {
			w.ShowError(err)
			return
		}
		w.setMessage("gradient written to " + filepath.Base(path))
	}, w.win)
	d.SetFileName(strings.TrimSpace(name) + gradients.Ext)
	w.showDialog(d)
}

// resolveLocationText reads location text as fractal.ParseLocationText does, and when it
// names a palette that is neither built in nor given by value (palette=NAME alone), finds it
// among the user's gradients (gradients.Resolve). The error is fractal's when no gradient
// of that name exists either.
func resolveLocationText(s string, base fractal.Location) (fractal.Location, error) {
	l, err := fractal.ParseLocationText(s, base)
	if err == nil {
		return l, nil
	}
	name, ok := paletteField(s)
	if !ok {
		return l, err
	}
	dir, derr := gradients.Dir()
	if derr != nil {
		return l, err
	}
	c, rerr := gradients.Resolve(base.Color, dir, name)
	if rerr != nil {
		return l, err
	}
	// Read the text again with the gradient in the base and its palette field removed.
	b := base
	b.Color.Palette, b.Color.Gradient = c.Palette, c.Gradient
	l2, err2 := fractal.ParseLocationText(withoutField(s, "palette"), b)
	if err2 != nil {
		return l, err
	}
	return l2, nil
}

// paletteField is the value of a "palette=" field in location text, when the text has no
// gradient= field.
func paletteField(s string) (string, bool) {
	var name string
	found := false
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		switch {
		case !ok:
		case strings.EqualFold(k, "gradient"):
			return "", false
		case strings.EqualFold(k, "palette"):
			name, found = v, true
		}
	}
	return name, found
}

// withoutField is location text s without its key= fields.
func withoutField(s, key string) string {
	var out []string
	for _, f := range strings.Fields(s) {
		if k, _, ok := strings.Cut(f, "="); ok && strings.EqualFold(k, key) {
			continue
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}
