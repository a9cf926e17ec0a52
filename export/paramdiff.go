package export

// What a resume refused for other parameters says: which parameters differ, with the old and
// the new values, long values (a centre of 12,288 digits) abbreviated, in one short line.

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// paramNames are the words for the keys of a parameter description (Options.params, whose
// location part is fractal.Location.String), for people.
var paramNames = map[string]string{
	"re":          "centre re",
	"im":          "centre im",
	"julia":       "julia parameter",
	"width":       "line width",
	"strength":    "light strength",
	"strip":       "rows per strip",
	"block":       "rows per compression block",
	"level":       "deflate level",
	"version":     "program version",
	"supersample": "supersampling",
}

// derivedParams are the keys whose values follow from others.
var derivedParams = map[string]bool{"strip": true, "block": true}

// paramName is the word for key k: an unknown one (from another version's description) as
// it is, abbreviated and printable.
func paramName(k string) string {
	if n, ok := paramNames[k]; ok {
		return n
	}
	return abbrev(printable(k))
}

// Limits on the text paramsDiff returns.
const (
	diffDetailBytes = 150 // old and new values are given while the text fits in this
	diffMaxNames    = 3   // then only names, this many, and a count of the rest
	abbrevHead      = 20  // a long value keeps its first abbrevHead characters
	abbrevTail      = 8   // and its last abbrevTail
	abbrevWindow    = 10  // characters each side of a difference in the middle of a long value
)

// paramsDiff says which parameters differ between two descriptions (Options.params), with
// their old (was) and new (now) values, as "iterations was 200, now 1000000; centre re was
// -0.99999999999999999…(12286 digits)…99999999, now …": long values abbreviated, the line
// kept short (only names past the first few). It returns "" when the descriptions name no
// difference (a checkpoint whose description was written otherwise).
func paramsDiff(was, now string) string {
	old, oldKeys := parseParams(was)
	cur, curKeys := parseParams(now)
	var keys []string
	seen := map[string]bool{}
	for _, k := range append(curKeys, oldKeys...) {
		if seen[k] {
			continue
		}
		seen[k] = true
		a, inOld := old[k]
		b, inCur := cur[k]
		if a != b || inOld != inCur {
			keys = append(keys, k)
		}
	}
	// The strip and block heights follow from the size and supersampling (and the tile
	// size): they are named only when nothing else differs.
	if len(keys) > 0 {
		var own []string
		for _, k := range keys {
			if !derivedParams[k] {
				own = append(own, k)
			}
		}
		if len(own) > 0 {
			keys = own
		}
	}
	var sb strings.Builder
	var names []string
	for i, k := range keys {
		a, inOld := old[k]
		b, inCur := cur[k]
		if !inOld {
			a = "(none)"
		}
		if !inCur {
			b = "(none)"
		}
		item := paramName(k) + " " + abbrevPair(a, b)
		switch {
		case i == 0:
			sb.WriteString(item)
		case len(names) == 0 && sb.Len()+2+len(item) <= diffDetailBytes:
			sb.WriteString("; " + item)
		default:
			names = append(names, paramName(k))
		}
	}
	if len(names) > 0 {
		sb.WriteString("; also " + strings.Join(names[:min(len(names), diffMaxNames)], ", "))
		if n := len(names) - diffMaxNames; n > 0 {
			sb.WriteString(" and " + strconv.Itoa(n) + " more")
		}
	}
	return sb.String()
}

// parseParams reads a description's key=value words, keeping the keys' order. A word without
// '=' belongs to the value before it.
func parseParams(s string) (map[string]string, []string) {
	m := map[string]string{}
	var keys []string
	last := ""
	for _, w := range strings.Fields(s) {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			if last != "" {
				m[last] += " " + w
			}
			continue
		}
		if _, dup := m[k]; !dup {
			keys = append(keys, k)
		}
		m[k], last = v, k
	}
	return m, keys
}

// abbrevPair is "was A, now B" for two different values, each abbreviated (abbrev) when long;
// where the abbreviations would read the same (they differ only in the middle), both show
// the characters around the first difference and say where it is.
func abbrevPair(a, b string) string {
	ra, rb := printable(a), printable(b)
	sa, sb := abbrev(ra), abbrev(rb)
	if sa != sb {
		return "was " + sa + ", now " + sb
	}
	i := 0
	for i < len(ra) && i < len(rb) && ra[i] == rb[i] {
		i++
	}
	lo := max(0, i-abbrevWindow)
	win := func(r []rune) string {
		return "…" + string(r[lo:min(len(r), i+abbrevWindow)]) + "…"
	}
	return "was " + win(ra) + ", now " + win(rb) + " (" + sizeText(ra) + "; they differ from character " + strconv.Itoa(i+1) + " on)"
}

// abbrev is r in full when short, else its first abbrevHead and last abbrevTail characters
// around its size: "-0.99999999999999999…(12286 digits)…99999999".
func abbrev(r []rune) string {
	if len(r) <= abbrevHead+abbrevTail+8 {
		return string(r)
	}
	return string(r[:abbrevHead]) + "…(" + sizeText(r) + ")…" + string(r[len(r)-abbrevTail:])
}

// sizeText is the size of a value: its digits when it is a number, else its characters.
func sizeText(r []rune) string {
	digits, number := 0, true
	for _, c := range r {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case strings.ContainsRune("+-.eE", c):
		default:
			number = false
		}
	}
	if number && digits > 0 {
		return strconv.Itoa(digits) + " digits"
	}
	return strconv.Itoa(len(r)) + " characters"
}

// printable is s as runes, with invalid UTF-8 and characters that are not graphic (control
// characters, line breaks) shown as U+FFFD, so that a message stays one line.
func printable(s string) []rune {
	r := make([]rune, 0, utf8.RuneCountInString(s))
	for _, c := range s {
		if !unicode.IsGraphic(c) {
			c = utf8.RuneError
		}
		r = append(r, c)
	}
	return r
}
