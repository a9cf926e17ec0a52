package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 40, ""},
		{"short", 40, "short"},
		{strings.Repeat("a", 40), 40, strings.Repeat("a", 40)},
		{strings.Repeat("a", 41), 40, strings.Repeat("a", 37) + "..."},
		{strings.Repeat("é", 41), 40, strings.Repeat("é", 37) + "..."},
		{strings.Repeat("é", 40), 40, strings.Repeat("é", 40)},
		{"ab" + strings.Repeat("日本", 30), 10, "ab日本日本日..."},
		{"abcdef", 2, "a..."},
	} {
		got := Clip(c.s, c.n)
		if got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > max(c.n, 4) {
			t.Errorf("Clip(%q, %d) = %q: invalid UTF-8 or too long", c.s, c.n, got)
		}
	}
}

// FuzzClip: any input (valid UTF-8 or not) gives at most n characters, and a valid input a
// valid output that is the input itself or a prefix of it with "...".
func FuzzClip(f *testing.F) {
	f.Add("héllo wörld", 5)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n%200 + 1
		if n < 0 {
			n = -n
		}
		got := Clip(s, n)
		if utf8.RuneCountInString(got) > max(n, 4) {
			t.Fatalf("Clip(%q, %d) = %q: too long", s, n, got)
		}
		if utf8.ValidString(s) && (!utf8.ValidString(got) || got != s && !strings.HasPrefix(s, strings.TrimSuffix(got, "..."))) {
			t.Fatalf("Clip(%q, %d) = %q", s, n, got)
		}
	})
}
