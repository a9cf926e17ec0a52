// Package text holds the small string helpers that messages share: Clip shortens a value a
// user or a file gave to a length a one-line message can hold, without cutting a UTF-8
// character in two.
package text

import "unicode/utf8"

// Clip returns s when it has at most n characters (runes), else its first n-3 characters
// followed by "...": never more than n characters, and never a character cut between its
// bytes. n below 4 is taken as 4.
func Clip(s string, n int) string {
	n = max(n, 4)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n-3 {
			break
		}
		k++
	}
	return s[:i] + "..."
}
