package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"mandelscope/docs"
)

// shortcutText writes a menu item's shortcut as docs/keys.md does: "Ctrl+Shift+C", "Alt+Left",
// "F1", "+".
func shortcutText(sc fyne.Shortcut) string {
	var mods fyne.KeyModifier
	var key fyne.KeyName
	switch s := sc.(type) {
	case *desktop.CustomShortcut:
		mods, key = s.Modifier, s.KeyName
	case fyne.KeyboardShortcut:
		mods, key = s.Mod(), s.Key()
	default:
		return ""
	}
	var b strings.Builder
	for _, m := range []struct {
		mod  fyne.KeyModifier
		name string
	}{{fyne.KeyModifierControl, "Ctrl"}, {fyne.KeyModifierAlt, "Alt"}, {fyne.KeyModifierSuper, "Super"}, {fyne.KeyModifierShift, "Shift"}} {
		if mods&m.mod != 0 {
			b.WriteString(m.name + "+")
		}
	}
	return b.String() + string(key)
}

// keyTokens are the inputs a docs/keys.md input cell names: "Ctrl+D, Ctrl+B" names Ctrl+D
// and Ctrl+B; "J (or View > Julia Set at the Pointer)" names J.
func keyTokens(input string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.FieldsFunc(input, func(r rune) bool { return strings.ContainsRune(" ,/()", r) }) {
		out[f] = true
	}
	return out
}

// Every key the window's menus show (an item's shortcut, or a key named in its label as "(M)")
// is in docs/keys.md, so in the F1 table, which is read from it; and the Go menu has each of
// the search keys M, Shift+M and D.
func TestEveryMenuKeyIsDocumented(t *testing.T) {
	w := newTestWindow(t)
	documented := map[string]bool{}
	for _, row := range docs.Keys() {
		for k := range keyTokens(row.Input) {
			documented[k] = true
		}
	}
	goKeys := map[string]bool{}
	for _, m := range w.menus {
		for _, it := range m.Items {
			var keys []string
			if it.Shortcut != nil {
				keys = append(keys, shortcutText(it.Shortcut))
			}
			if i := strings.LastIndex(it.Label, "("); i >= 0 && strings.HasSuffix(it.Label, ")") {
				keys = append(keys, it.Label[i+1:len(it.Label)-1])
			}
			for _, k := range keys {
				if k == "" || !documented[k] {
					t.Errorf("%s > %s: its key %q is not in docs/keys.md (nor in F1's table)", m.Label, it.Label, k)
				}
				if m.Label == "Go" {
					goKeys[k] = true
				}
			}
		}
	}
	for _, k := range []string{"M", "Shift+M", "D"} {
		if !goKeys[k] {
			t.Errorf("the Go menu has no item for %s", k)
		}
	}
}
