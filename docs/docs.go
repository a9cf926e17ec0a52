// Package docs holds Mandelscope's documentation (the Markdown pages beside this file) and
// gives the program the one page it shows: keys.md, the table of the window's inputs, which
// the window's Help > Keys dialog draws, so that the page and the dialog cannot disagree.
// Its test checks every relative link of README.md and of these pages.
package docs

import (
	_ "embed"
	"strings"
)

// KeysMarkdown is keys.md as written.
//
//go:embed keys.md
var KeysMarkdown string

// Key is one row of the inputs table: the input and what it does, as plain text.
type Key struct {
	Input, Does string
}

// Keys returns the rows of keys.md's table in order, their Markdown markup (code spans,
// emphasis) taken out: every line that starts with "|" and is neither the header row (the
// first) nor the separator row (of dashes).
func Keys() []Key {
	var rows []Key
	header := true
	for _, line := range strings.Split(KeysMarkdown, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := splitRow(line)
		if len(cells) != 2 {
			continue
		}
		if header {
			header = false
			continue
		}
		if strings.Trim(cells[0], "-: ") == "" {
			continue // the separator row
		}
		rows = append(rows, Key{Plain(cells[0]), Plain(cells[1])})
	}
	return rows
}

// splitRow splits a Markdown table row "| a | b |" into its cells, trimmed; a "|" inside a
// code span or escaped as "\|" stays in its cell.
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	var cells []string
	var cell strings.Builder
	inCode := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			cell.WriteByte('|')
			i++
		case c == '`':
			inCode = !inCode
			cell.WriteByte(c)
		case c == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(cell.String()))
			cell.Reset()
		default:
			cell.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cell.String()))
}

// Plain is Markdown inline text without its markup: code spans' backticks and the asterisks
// of emphasis.
func Plain(s string) string {
	return strings.NewReplacer("`", "", "**", "", "*", "").Replace(s)
}
