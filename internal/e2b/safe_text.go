package e2b

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// SafeText is s, text that came from a sandbox (command output, file names), made harmless
// for a terminal: every control character but newline and tab (C0 including ESC and BEL,
// DEL, C1 including the 8-bit CSI and OSC), every byte that is not UTF-8, and the Unicode
// marks that reorder text (bidi embeddings, overrides and isolates) are written as Go
// escapes (\x1b, \r, \u202e), so that no escape sequence the sandbox prints can move the
// cursor, clear the screen, set the title, write the clipboard or make one line look like
// another. Everything else is kept as it is. It is the one rule for every text of a sandbox
// that becomes an error message, a diagnostic, a progress line or a streamed line.
func SafeText(s string) string { return safeText(s, true) }

// SafeLine is SafeText that also escapes newlines and tabs, for a name in a one-line message.
func SafeLine(s string) string { return safeText(s, false) }

func safeText(s string, keepLines bool) string {
	if !needsEscape(s, keepLines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports the runes above ASCII that a terminal acts on or that reorder text.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f, // C1 controls
		r == 0x061c,                // Arabic letter mark
		r == 0x200e || r == 0x200f, // left-to-right and right-to-left marks
		r >= 0x202a && r <= 0x202e, // bidi embeddings and overrides
		r >= 0x2066 && r <= 0x2069: // bidi isolates
		return true
	}
	return false
}

func needsEscape(s string, keepLines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return true // checked rune by rune
		}
		if (c < 0x20 || c == 0x7f) && (!keepLines || (c != '\n' && c != '\t')) {
			return true
		}
	}
	return false
}
