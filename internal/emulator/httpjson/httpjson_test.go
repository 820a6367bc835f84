package httpjson

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Decode words its errors as E2B's request validator does: an empty body is "value is required
// but missing", a malformed one "doesn't match schema".
func TestDecodeWordsErrorsAsE2B(t *testing.T) {
	var v struct{ Name string }
	for body, want := range map[string]string{" \n": ErrEmptyBody.Error(), "{": "doesn't match schema"} {
		err := Decode(httptest.NewRequest("POST", "/", strings.NewReader(body)), &v)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("body %q: %v", body, err)
		}
	}
	if err := Decode(httptest.NewRequest("POST", "/", strings.NewReader(" ")), &v); !errors.Is(err, ErrEmptyBody) {
		t.Errorf("empty body: %v", err)
	}
	if err := Decode(httptest.NewRequest("POST", "/", strings.NewReader(`{"Name":"x"}`)), &v); err != nil || v.Name != "x" {
		t.Errorf("valid body: %v %+v", err, v)
	}
}

// Error answers E2B's error body with the status as its code.
func TestErrorBody(t *testing.T) {
	rec := httptest.NewRecorder()
	Errorf(rec, http.StatusConflict, "secret '%s' already exists", "k")
	if rec.Code != http.StatusConflict || rec.Header().Get("Content-Type") != "application/json" ||
		strings.TrimSpace(rec.Body.String()) != `{"code":409,"message":"secret 'k' already exists"}` {
		t.Fatalf("%d %v %s", rec.Code, rec.Header(), rec.Body)
	}
}

// Drop ends the connection without an answer: the client sees an error, not a status.
func TestDropGivesNoAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { Drop(w) }))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("got status %d", resp.StatusCode)
	}
}
