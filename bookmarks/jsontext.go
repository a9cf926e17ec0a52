package bookmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"mandelscope/internal/text"
)

// checkJSONText finds what encoding/json would read without a word but not keep: bytes that
// are not UTF-8 and \u escapes of half a UTF-16 surrogate pair (both read as U+FFFD, so a
// name would change on the next write), and an object with the same key twice (the last would
// win silently; keys are compared as encoding/json matches them to fields, ignoring case).
// data must be valid JSON. It makes one pass over the text.
func checkJSONText(data []byte) error {
	if !utf8.Valid(data) {
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				return fmt.Errorf("the text is not valid UTF-8 at byte %d", i)
			}
			i += n
		}
	}
	type frame struct {
		object    bool
		expectKey bool
		keys      [][]byte            // the keys so far, while there are few
		folded    map[string]struct{} // foldKey of every key, once there are many
	}
	const fewKeys = 16
	var stack []frame
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{':
			stack = append(stack, frame{object: true, expectKey: true})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := len(stack) - 1; top >= 0 && stack[top].object {
				stack[top].expectKey = true
			}
		case '"':
			start := i
			escaped := false
			for i++; data[i] != '"'; i++ {
				if data[i] != '\\' {
					continue
				}
				escaped = true
				i++
				if data[i] != 'u' {
					continue
				}
				if r := hex4(data[i+1:]); utf16IsSurrogate(r) {
					// A high half must be followed at once by a low half.
					if r >= 0xdc00 || i+10 >= len(data) || data[i+5] != '\\' || data[i+6] != 'u' ||
						!(hex4(data[i+7:]) >= 0xdc00 && hex4(data[i+7:]) <= 0xdfff) {
						return fmt.Errorf("the \\u%s escape at byte %d is half of a UTF-16 surrogate pair (not a character)", data[i+1:i+5], i-1)
					}
					i += 6
				}
				i += 4
			}
			top := len(stack) - 1
			if top < 0 || !stack[top].object || !stack[top].expectKey {
				continue
			}
			f := &stack[top]
			f.expectKey = false
			key := data[start+1 : i]
			if escaped {
				var k string
				if err := json.Unmarshal(data[start:i+1], &k); err != nil {
					return fmt.Errorf("the key at byte %d: %v", start, err)
				}
				key = []byte(k)
			}
			dup := false
			if f.folded == nil {
				for _, k := range f.keys {
					dup = dup || bytes.EqualFold(k, key)
				}
				f.keys = append(f.keys, key)
				if len(f.keys) > fewKeys {
					f.folded = map[string]struct{}{}
					for _, k := range f.keys {
						f.folded[foldKey(string(k))] = struct{}{}
					}
					f.keys = nil
				}
			} else {
				k := foldKey(string(key))
				_, dup = f.folded[k]
				f.folded[k] = struct{}{}
			}
			if dup {
				return fmt.Errorf("the key %q appears twice in one object (byte %d)", text.Clip(string(key), 40), start)
			}
		}
	}
	return nil
}

// hex4 reads four hexadecimal digits (valid JSON has them after \u).
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

func utf16IsSurrogate(r rune) bool { return r >= 0xd800 && r <= 0xdfff }

// foldKey maps every rune of s to the smallest rune of its Unicode case-folding orbit, so
// that two keys encoding/json would match to the same field ("name", "NAME", "Name") map to
// the same text, as bytes.EqualFold compares them.
func foldKey(s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		out = append(out, m)
	}
	return string(out)
}
