package e2b

import "testing"

func TestSafeText(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, tabs\tand\nnewlines": "plain text, tabs\tand\nnewlines",
		"héllo wörld ✓ 日本":                "héllo wörld ✓ 日本",
		"\x1b[2J\x1b[H":                   `\x1b[2J\x1b[H`,                   // clear screen, cursor home
		"\x1b]0;pwned\x07":                `\x1b]0;pwned\x07`,                // window title, BEL
		"\x1b]52;c;ZXZpbA==\x1b\\":        `\x1b]52;c;ZXZpbA==\x1b\`,         // clipboard write, ST
		"fake\rApply complete!":           `fake\rApply complete!`,           // carriage return over a line
		"\u009b2J \u009d0;t\u009c":        `\u009b2J \u009d0;t\u009c`,        // C1 CSI, OSC, ST as characters
		"raw \x9b2J":                      `raw \x9b2J`,                      // C1 CSI as a byte (not UTF-8)
		"evil\u202efdp.exe \u2066x\u2069": `evil\u202efdp.exe \u2066x\u2069`, // bidi override and isolate
		"del\x7f nul\x00":                 `del\x7f nul\x00`,
	} {
		if got := SafeText(in); got != want {
			t.Errorf("SafeText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := SafeLine("a\nb\tc\x1b"); got != `a\nb\tc\x1b` {
		t.Errorf("SafeLine: %q", got)
	}
}
