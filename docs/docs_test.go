package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// pages are the Markdown files whose links TestLinks checks: README.md and every page here.
func pages(t *testing.T) []string {
	t.Helper()
	ps, err := filepath.Glob("*.md")
	if err != nil || len(ps) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	return append([]string{filepath.Join("..", "README.md")}, ps...)
}

var (
	fence    = regexp.MustCompile("(?ms)^ *```.*?^ *```[^\n]*$")
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	link     = regexp.MustCompile(`!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	heading  = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *#* *$`)
)

// prose is a page's text without its fenced code blocks and code spans, where neither links
// nor headings are.
func prose(md string) string {
	return codeSpan.ReplaceAllString(fence.ReplaceAllString(md, ""), "")
}

// anchors returns the anchors GitHub makes for a page's headings: the heading's text in
// lower case, without the characters that are neither letters, digits, spaces, hyphens nor
// underscores, spaces made hyphens; a repeated one gets -1, -2, ...
func anchors(md string) map[string]bool {
	md = fence.ReplaceAllString(md, "")
	seen := map[string]int{}
	out := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(md, -1) {
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			out[a+"-"+itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestSlug holds the anchor rule to GitHub's on headings these pages have.
func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Raw data (`--raw`) and recolouring":  "raw-data---raw-and-recolouring",
		"The GPU's compute stage":             "the-gpus-compute-stage",
		"Libraries, and what is written here": "libraries-and-what-is-written-here",
		"Keyframes, not frames":               "keyframes-not-frames",
	} {
		if got := slug(h); got != want {
			t.Errorf("slug(%q) = %q, want %q", h, got, want)
		}
	}
	a := anchors("# A\n## A\n```\n# not a heading\n```\n## A\n")
	for _, want := range []string{"a", "a-1", "a-2"} {
		if !a[want] {
			t.Errorf("anchors: no %q in %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Error("a line in a code block was taken for a heading")
	}
}

// TestLinks checks every relative link and image of README.md and docs/*.md: the file it
// names exists, and an #anchor is a heading of that page.
func TestLinks(t *testing.T) {
	texts := map[string]string{}
	read := func(path string) (string, bool) {
		path = filepath.Clean(path)
		if s, ok := texts[path]; ok {
			return s, true
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return "", false
		}
		texts[path] = string(b)
		return string(b), true
	}
	checked := 0
	for _, page := range pages(t) {
		md, ok := read(page)
		if !ok {
			t.Fatalf("cannot read %s", page)
		}
		for _, m := range link.FindAllStringSubmatch(prose(md), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: %s does not exist", page, target, path)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(path, ".md") {
				t.Errorf("%s: link %q: an anchor into a file that is not Markdown", page, target)
				continue
			}
			other, _ := read(path)
			if !anchors(other)[anchor] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", page, target, path, anchor)
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links found: the link pattern no longer matches the pages", checked)
	}
}

// TestReadmeLength holds README.md to a first page: at most 300 lines.
func TestReadmeLength(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > 300 {
		t.Errorf("README.md has %d lines: move detail into docs/ (at most 300)", n)
	}
}

// TestKeys checks that Keys reads every row of keys.md's table, header and separator aside,
// with both cells, and without markup.
func TestKeys(t *testing.T) {
	rows := 0
	for _, line := range strings.Split(KeysMarkdown, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "|") {
			rows++
		}
	}
	keys := Keys()
	if rows < 3 || len(keys) != rows-2 {
		t.Fatalf("Keys gave %d rows; keys.md has %d table lines (a header and a separator among them)", len(keys), rows)
	}
	for _, k := range keys {
		if k.Input == "" || k.Does == "" || strings.ContainsAny(k.Input+k.Does, "`") {
			t.Errorf("row %+v: an empty cell or markup left", k)
		}
	}
	if k := keys[0]; k.Input != "drag (left button)" {
		t.Errorf("first row %+v, want the drag", k)
	}
}

func TestSplitRow(t *testing.T) {
	got := splitRow("| `a | b` | c \\| d |")
	if len(got) != 2 || got[0] != "`a | b`" || got[1] != "c | d" {
		t.Errorf("splitRow: %q", got)
	}
}
