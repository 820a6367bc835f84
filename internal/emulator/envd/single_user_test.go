package envd

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSingleUserRefusesTheOther: where the emulator cannot give commands
// another user's IDs, a request naming the user it cannot be fails with an
// error that names that user and why, before anything runs; the user it
// can be still works.
func TestSingleUserRefusesTheOther(t *testing.T) {
	t.Parallel()
	settings := &Settings{Logf: t.Logf, SingleUser: "user", SingleUserWhy: "the emulator is not root on the host (euid 1000), so every command runs as its own user"}
	sb, err := Start(settings, Config{ID: "isingle", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Destroy)
	start := func(user string) *httptest.ResponseRecorder {
		body := `{"process":{"cmd":"/bin/sh","args":["-c","echo ran"]}}`
		frame := append([]byte{0, 0, 0, 0, byte(len(body))}, body...)
		r := httptest.NewRequest("POST", "/process.Process/Start", strings.NewReader(string(frame)))
		r.Header.Set("Content-Type", "application/connect+json")
		r.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user+":")))
		w := httptest.NewRecorder()
		sb.Serve(w, r)
		return w
	}
	w := start("root")
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "user 'root' is not available in this emulator: the emulator is not root on the host") {
		t.Fatalf("root: %d %s", w.Code, w.Body)
	}
	if w := start("user"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), base64.StdEncoding.EncodeToString([]byte("ran\n"))) {
		t.Fatalf("user: %d %s", w.Code, w.Body)
	}
	r := httptest.NewRequest("GET", "/files?path=/etc/hostname&username=root", nil)
	w = httptest.NewRecorder()
	sb.Serve(w, r)
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "user 'root' is not available") {
		t.Fatalf("files as root: %d %s", w.Code, w.Body)
	}
}
