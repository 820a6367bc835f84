package e2b

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func respWith(status int, body string) *http.Response {
	return &http.Response{StatusCode: status, Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}
}

func TestErrorFromResponseParsesE2BAndConnectBodies(t *testing.T) {
	e := controlError("pause sandbox", "isb1", "isb1", respWith(409, `{"code":409,"message":"Error pausing sandbox - sandbox 'isb1' is already paused"}`))
	if !IsConflict(e) || IsNotFound(e) || e.Code != "" {
		t.Fatalf("409 classified wrongly: %#v", e)
	}
	want := `pause sandbox "isb1": 409 Conflict: Error pausing sandbox - sandbox 'isb1' is already paused`
	if e.Error() != want {
		t.Fatalf("message\n got %s\nwant %s", e.Error(), want)
	}

	e = controlError("create sandbox", "", "", respWith(503, `{"code":503,"message":"no capacity","error_code":"sandbox_capacity_unavailable"}`))
	if e.Code != "sandbox_capacity_unavailable" || !strings.Contains(e.Error(), "[sandbox_capacity_unavailable]") {
		t.Fatalf("error_code lost: %#v / %s", e, e)
	}

	e = rpcErrorFromResponse("envd Filesystem/Stat", "isb1", respWith(404, `{"code":"not_found","message":"path '/x' does not exist"}`))
	if !IsNotFound(e) || e.Code != "not_found" {
		t.Fatalf("connect not_found: %#v", e)
	}

	e = controlError("list sandboxes", "", "", respWith(500, "upstream exploded"))
	if e.Message != "upstream exploded" || e.StatusCode != 500 {
		t.Fatalf("plain body: %#v", e)
	}
}

func TestErrorMessagesNameOperationSandboxAndCause(t *testing.T) {
	notRunning := rpcErrorFromResponse("envd Process/Start", "ixyz", respWith(502, `{"sandboxId":"ixyz","message":"The sandbox was not found","code":502}`))
	if !IsSandboxNotRunning(notRunning) {
		t.Fatal("502 must be IsSandboxNotRunning")
	}
	if !strings.Contains(notRunning.Error(), `sandbox "ixyz" is not running (paused, expired or killed)`) ||
		!strings.Contains(notRunning.Error(), "envd Process/Start") {
		t.Fatalf("502 message: %s", notRunning)
	}
	unauth := controlError("list templates", "", "", respWith(401, `{"code":401,"message":"Invalid API key"}`))
	if !IsUnauthorized(unauth) || !strings.Contains(unauth.Error(), "API key was rejected") {
		t.Fatalf("401 message: %s", unauth)
	}
	bad := connectError("envd Process/Start", "ixyz", "invalid_argument", "cwd '/nope' does not exist")
	if !IsBadRequest(bad) || bad.StatusCode != 400 {
		t.Fatalf("invalid_argument: %#v", bad)
	}
	limited := &APIError{Op: "create sandbox", StatusCode: 429}
	if !IsRateLimited(fmt.Errorf("wrapped: %w", limited)) {
		t.Fatal("IsRateLimited must see through wrapping")
	}
	if IsNotFound(errors.New("plain")) || IsNotFound(nil) {
		t.Fatal("non-API errors are not classified")
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{"0", 0, true},
		{now.Add(5 * time.Second).Format(http.TimeFormat), 5 * time.Second, true},
		{now.Add(-5 * time.Second).Format(http.TimeFormat), 0, true},
		{"", 0, false},
		{"soon", 0, false},
		{"-1", 0, false},
	}
	for _, c := range cases {
		got, ok := parseRetryAfter(c.in, now)
		if got != c.want || ok != c.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestBackoffHonorsRetryAfterWithinBounds(t *testing.T) {
	r := &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {"1"}}}
	if got := backoff(10*time.Millisecond, 5*time.Second, 0, r); got != time.Second {
		t.Fatalf("Retry-After 1 → %v", got)
	}
	if got := backoff(10*time.Millisecond, 50*time.Millisecond, 0, r); got != 50*time.Millisecond {
		t.Fatalf("Retry-After must be capped by RetryWaitMax, got %v", got)
	}
	if got := backoff(10*time.Millisecond, time.Second, 3, nil); got != 80*time.Millisecond {
		t.Fatalf("exponential backoff attempt 3 = %v", got)
	}
	if got := backoff(10*time.Millisecond, 30*time.Millisecond, 10, nil); got != 30*time.Millisecond {
		t.Fatalf("backoff not capped: %v", got)
	}
}

func TestNotFoundAndNotRunningNeedE2BsOwnAnswer(t *testing.T) {
	missing := `{"code":404,"message":"Sandbox \"isb1\" doesn't exist or you don't have access to it"}`
	cases := []struct {
		name           string
		err            *APIError
		notFound, gone bool
	}{
		{"E2B's missing sandbox", controlError("get sandbox", "isb1", "isb1", respWith(404, missing)), true, true},
		{"E2B's 404 about another object", controlError("get sandbox", "isb2", "isb2", respWith(404, missing)), false, false},
		{"E2B's unknown route", controlError("get sandbox", "isb1", "isb1", respWith(404, `{"code":404,"message":"validation error: no matching operation was found"}`)), false, false},
		{"a proxy's page", controlError("get sandbox", "isb1", "isb1", respWith(404, "404 page not found")), false, false},
		{"a gateway's JSON", controlError("get sandbox", "isb1", "isb1", respWith(404, `{"message":"Not Found"}`)), false, false},
		{"a list's 404", controlError("list sandboxes", "", "", respWith(404, missing)), false, false},
		{"envd's not_found", rpcErrorFromResponse("envd Filesystem/Stat", "isb1", respWith(404, `{"code":"not_found","message":"path '/x' does not exist"}`)), true, false},
		{"envd's router", rpcErrorFromResponse("envd Filesystem/Stat", "isb1", respWith(404, "404 page not found\n")), false, false},
		{"envd's missing file", envdError("read file", "isb1", "a.txt", respWith(404, `{"code":404,"message":"path '/home/user/a.txt' does not exist"}`)), true, false},
		{"E2B's API behind sandbox_url", envdError("read file", "isb1", "a.txt", respWith(404, `{"code":404,"message":"validation error: no matching operation was found"}`)), false, false},
	}
	for _, c := range cases {
		if IsNotFound(c.err) != c.notFound || IsSandboxGone(c.err) != c.gone {
			t.Errorf("%s: IsNotFound=%v IsSandboxGone=%v, want %v %v (%v)", c.name, IsNotFound(c.err), IsSandboxGone(c.err), c.notFound, c.gone, c.err)
		}
		if !c.notFound && !strings.Contains(c.err.Error(), "check ") {
			t.Errorf("%s: an answer that is not E2B's must say what to check: %v", c.name, c.err)
		}
	}
	edge := `{"sandboxId":"isb1","message":"The sandbox was not found","code":502}`
	if e := rpcErrorFromResponse("envd Process/Start", "isb1", respWith(502, edge)); !IsSandboxNotRunning(e) {
		t.Errorf("the edge's 502 for this sandbox: %v", e)
	}
	if e := rpcErrorFromResponse("envd Process/Start", "isb2", respWith(502, edge)); IsSandboxNotRunning(e) {
		t.Errorf("the edge's 502 about another sandbox must not count: %v", e)
	}
	if e := rpcErrorFromResponse("envd Process/Start", "isb1", respWith(502, "<html>Bad Gateway</html>")); IsSandboxNotRunning(e) || !strings.Contains(e.Error(), "a gateway's error") {
		t.Errorf("a proxy's 502 is not the sandbox stopping: %v", e)
	}
}

// TestGatewayErrorSaysGateway: a 502, 503 or 504 that is not E2B's own
// answer comes from a gateway in between; the error says so, and does not
// send the user to check a URL that is right.
func TestGatewayErrorSaysGateway(t *testing.T) {
	for _, st := range []int{502, 503, 504} {
		resp := respWith(st, "<html><body><h1>Gateway Time-out</h1></body></html>")
		resp.Request = &http.Request{URL: &url.URL{Scheme: "https", Host: "api.e2b.app", Path: "/volumes"}}
		msg := controlError("create volume", "", "", resp).Error()
		if !strings.Contains(msg, "a gateway's error, not an answer of E2B's API") || strings.Contains(msg, "check api_url") ||
			!strings.Contains(msg, "https://api.e2b.app/volumes") {
			t.Errorf("%d from a gateway: %s", st, msg)
		}
		envd := envdError("read file", "isb1", "a.txt", respWith(st, "upstream connect error")).Error()
		if !strings.Contains(envd, "a gateway's error, not an answer of the sandbox's daemon") || strings.Contains(envd, "check sandbox_url") {
			t.Errorf("%d from a gateway to envd: %s", st, envd)
		}
	}
	// E2B's own 503 is E2B's answer, and a 404 from elsewhere still points at the URL.
	if msg := controlError("create sandbox", "", "", respWith(503, `{"code":503,"message":"no capacity"}`)).Error(); strings.Contains(msg, "gateway") {
		t.Errorf("E2B's own 503: %s", msg)
	}
	if msg := controlError("get volume", "", "v1", respWith(404, "<html>Not Found</html>")).Error(); !strings.Contains(msg, "check api_url") {
		t.Errorf("a 404 that is not E2B's: %s", msg)
	}
}
