package version

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// TestFyneAppTOML: the Version in FyneApp.toml's [Details] (what `fyne package` stamps into
// the packages) is Version.
func TestFyneAppTOML(t *testing.T) {
	f, err := os.Open("../../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	section, found := "", ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && section == "[Details]" && strings.TrimSpace(k) == "Version" {
			found = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if found != Version {
		t.Errorf("FyneApp.toml [Details] Version = %q, want %q (internal/version)", found, Version)
	}
}
