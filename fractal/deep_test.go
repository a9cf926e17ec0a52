package fractal

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// deepLocation is a committed test location (testdata/deep/locations.txt).
type deepLocation struct {
	name string
	loc  Location
}

func deepLocations(t testing.TB) []deepLocation {
	t.Helper()
	fh, err := os.Open("testdata/deep/locations.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []deepLocation
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 5 {
			t.Fatalf("bad location line %q", line)
		}
		l := Home()
		var errs [4]error
		l.Re, errs[0] = ParseDecimal(f[1])
		l.Im, errs[1] = ParseDecimal(f[2])
		l.Zoom, errs[2] = ParseDecimal(f[3])
		l.Iterations, errs[3] = strconv.Atoi(f[4])
		for _, e := range errs {
			if e != nil {
				t.Fatalf("location %s: %v", f[0], e)
			}
		}
		if err := l.Validate(); err != nil {
			t.Fatalf("location %s: %v", f[0], err)
		}
		out = append(out, deepLocation{f[0], l})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func deepLocationNamed(t testing.TB, name string) Location {
	for _, d := range deepLocations(t) {
		if d.name == name {
			return d.loc
		}
	}
	t.Fatalf("no deep location %q", name)
	return Location{}
}
