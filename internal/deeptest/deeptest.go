// Package deeptest gives every package's tests the deep views committed in
// fractal/testdata/deep/locations.txt (one view a line: a name, then the location's text form),
// found from this file's place in the module whatever the test's working folder.
package deeptest

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"mandelscope/fractal"
)

// Path is the file the views are read from.
func Path() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "fractal", "testdata", "deep", "locations.txt")
}

// Location is the view called name, read as Go to Location reads a location's text; the
// test fails at once without it.
func Location(t testing.TB, name string) fractal.Location {
	t.Helper()
	data, err := os.ReadFile(Path())
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n, rest, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if n == name {
			l, err := fractal.ParseLocationText(rest, fractal.Home())
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return l
		}
	}
	t.Fatalf("no deep view %q in %s", name, Path())
	return fractal.Location{}
}
