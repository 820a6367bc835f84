package provider

import "testing"

// Which imported texts configuration generation would rewrite through
// jsonencode, and so come back as content_base64.
func TestJSONEncodeRewrites(t *testing.T) {
	for text, want := range map[string]bool{
		`{"made":"elsewhere"}` + "\n": true,  // final newline dropped
		`{"b":1,"a":2}`:               true,  // keys sorted
		"{\n  \"a\": 1\n}":            true,  // whitespace dropped
		`{"a":1.0}`:                   true,  // jsonencode writes 1
		`{"a":"<b>"}`:                 true,  // escaped as \u003c
		`{"a":1,"b":[true,null]}`:     false, // already as jsonencode writes it
		`[1,2]`:                       false,
		"plain text\n":                false,
		`"a json string"`:             false, // a lone primitive stays a string
		`{not json`:                   false,
	} {
		if got := jsonencodeRewrites(text); got != want {
			t.Errorf("jsonencodeRewrites(%q) = %v, want %v", text, got, want)
		}
	}
	if c, b := importedContent(`{"a":1}` + "\n"); !c.IsNull() || b.ValueString() != "eyJhIjoxfQo=" {
		t.Errorf("importedContent of JSON with a newline = %v, %v; want content_base64 only", c, b)
	}
	if c, b := importedContent("x\n"); c.ValueString() != "x\n" || !b.IsNull() {
		t.Errorf("importedContent of text = %v, %v; want content only", c, b)
	}
}
