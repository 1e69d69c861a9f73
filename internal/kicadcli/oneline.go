package kicadcli

import (
	"fmt"
	"strings"
)

// OneLine folds KiCad text onto one line for plain output: a newline (a
// multi-line PCB or schematic text such as "DIO\n\nCLK" reaches DRC and ERC
// descriptions as real newlines) becomes the two characters \n, the escape
// KiCad itself writes in its files, and so do \r and \t; any other control
// character becomes \xNN (\uNNNN above ASCII). Every printed violation stays
// one line; JSON output keeps KiCad's text as it is.
func OneLine(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case isControl(r) && r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case isControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isControl reports the runes that break or hide a line: C0 and C1
// controls, DEL, and Unicode's line and paragraph separators.
func isControl(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u2028' || r == '\u2029'
}
