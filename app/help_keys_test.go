package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"mandelscope/docs"
)

// overlayLabels are the texts of the labels in the window's top overlay, in order, their
// line breaks undone.
func overlayLabels(w *Window) []string {
	var out []string
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *widget.Label:
			out = append(out, strings.Join(strings.Fields(v.Text), " "))
		case *fyne.Container:
			for _, c := range v.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(v).Objects() {
				walk(c)
			}
		}
	}
	if top := w.win.Canvas().Overlays().Top(); top != nil {
		walk(top)
	}
	return out
}

// helpKeysItem is the Help menu's Keys item.
func helpKeysItem(t *testing.T, w *Window) *fyne.MenuItem {
	t.Helper()
	for _, m := range w.menus {
		if m.Label != "Help" {
			continue
		}
		for _, it := range m.Items {
			if it.Label == "Keys" {
				return it
			}
		}
	}
	t.Fatal("no Help > Keys in the menu")
	return nil
}

// TestKeysHelpShowsEveryRow: Help > Keys, and F1 typed on the picture, open one dialog that
// shows every row of docs/keys.md, each input beside what it does; Escape closes it.
func TestKeysHelpShowsEveryRow(t *testing.T) {
	w := newTestWindow(t)
	item := helpKeysItem(t, w)
	if sc, ok := item.Shortcut.(interface{ ShortcutName() string }); !ok || !strings.Contains(sc.ShortcutName(), "F1") {
		t.Errorf("Help > Keys shows the shortcut %v, want F1", item.Shortcut)
	}
	rows := docs.Keys()
	if len(rows) < 10 {
		t.Fatalf("docs.Keys gave %d rows", len(rows))
	}
	check := func(how string) {
		t.Helper()
		labels := overlayLabels(w)
		at := map[string]int{}
		for i, l := range labels {
			if _, ok := at[l]; !ok {
				at[l] = i
			}
		}
		for _, r := range rows {
			i, ok := at[r.Input]
			if !ok || i+1 >= len(labels) || labels[i+1] != r.Does {
				t.Errorf("%s: the dialog does not show %q beside %q", how, r.Input, r.Does)
			}
		}
	}

	item.Action()
	waitFor(t, "the keys dialog", func() bool { return len(w.dialogs) == 1 })
	check("Help > Keys")
	item.Action() // open already: not a second one
	if len(w.dialogs) != 1 {
		t.Errorf("%d dialogs after Help > Keys twice, want 1", len(w.dialogs))
	}
	w.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	waitFor(t, "Escape to close the keys dialog", func() bool { w.pruneDialogs(); return len(w.dialogs) == 0 })

	w.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyF1})
	waitFor(t, "F1 to open the keys dialog", func() bool { return len(w.dialogs) == 1 })
	check("F1")
	w.closeTopDialog()
	waitFor(t, "the keys dialog to close", func() bool { w.pruneDialogs(); return len(w.dialogs) == 0 })

	// The picture's keys still reach the window's handler through F1's.
	before := w.Location()
	w.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyPageUp})
	waitFor(t, "PageUp to zoom in", func() bool { return w.Location().Zoom != before.Zoom })
}

// TestKeysHelpFitsTheWindow: in a small window the keys table wraps to fit it, so that
// nothing is cut on the right (the scroll area only scrolls up and down); in a wide one it
// keeps its full columns.
func TestKeysHelpFitsTheWindow(t *testing.T) {
	w := newTestWindow(t) // 500 px wide
	k := installKeysHelp(w)
	for _, width := range []float32{500, 1280} {
		w.win.Resize(fyne.NewSize(width, 600))
		k.show()
		limit := w.win.Canvas().Size().Width
		if got := k.table.MinSize().Width; got > limit*0.9 {
			t.Errorf("window %g wide: the keys table is %g wide, cut past %g", limit, got, limit*0.9)
		}
		if width == 1280 && k.table.MinSize().Width != keysTable(keysDoesWidth).MinSize().Width {
			t.Errorf("window 1280 wide: the table was wrapped narrower than its %d characters", keysDoesWidth)
		}
		k.dlg.Hide()
		w.pruneDialogs()
	}
}
