package provider

import "testing"

func TestPrefixBuffer(t *testing.T) {
	p := &prefixBuffer{max: 5}
	for _, s := range []string{"ab", "cd"} {
		if n, err := p.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if string(p.b) != "abcd" || p.over {
		t.Fatalf("got %q over=%v, want \"abcd\" within the limit", p.b, p.over)
	}
	_, _ = p.Write([]byte("efg"))
	if string(p.b) != "abcde" || !p.over {
		t.Fatalf("got %q over=%v, want \"abcde\" and over", p.b, p.over)
	}
}
