package app

import (
	"strings"
	"testing"

	"mandelscope/internal/version"
)

// Help has About Mandelscope, which shows the version (the one `mandelscope version` prints and
// exports record) and the renderer in use.
func TestHelpAbout(t *testing.T) {
	w := newTestWindow(t)
	for _, m := range w.menus {
		if m.Label != "Help" {
			continue
		}
		for _, it := range m.Items {
			if it.Label != "About Mandelscope" {
				continue
			}
			it.Action()
			got := strings.Join(overlayLabels(w), " ")
			if !strings.Contains(got, "Mandelscope "+version.Version) || !strings.Contains(got, w.rend.Name()) && !strings.Contains(got, firstLine(w.gpuNote)) {
				t.Errorf("About says %q; want the version %s and the renderer", got, version.Version)
			}
			if len(w.dialogs) != 1 {
				t.Errorf("About opened %d dialogs", len(w.dialogs))
			}
			return
		}
	}
	t.Fatal("no Help > About Mandelscope")
}
