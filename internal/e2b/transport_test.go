package e2b

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const sandboxJSON = `{"sandboxID":"isb1","templateID":"base","clientID":"6532622b","envdVersion":"0.6.13","envdAccessToken":"tok-secret"}`

func TestRateLimitIsRetriedForCreateAndServerErrorsAfterALookup(t *testing.T) {
	var calls atomic.Int32
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"POST /v2/sandboxes": func(w http.ResponseWriter, r *http.Request) {
			switch calls.Add(1) {
			case 1:
				w.Header().Set("Retry-After", "1")
				writeJSON(w, 429, `{"code":429,"message":"Rate limit exceeded"}`)
			case 2:
				writeJSON(w, 201, sandboxJSON)
			default:
				writeJSON(w, 500, `{"code":500,"message":"boom"}`)
			}
		},
		"GET /v2/sandboxes": func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, `[]`) },
	})
	quickSettle(t, time.Second)
	c := newTestClient(t, fastConfig(rs.URL))
	sb, err := c.CreateSandbox(context.Background(), CreateSandboxRequest{TemplateID: "base"})
	if err != nil || sb.SandboxID != "isb1" || sb.EnvdAccessToken != "tok-secret" {
		t.Fatalf("create after 429: %+v, %v", sb, err)
	}
	if n := rs.count("POST /v2/sandboxes"); n != 2 {
		t.Fatalf("429 then 201 took %d requests, want 2", n)
	}
	// E2B's own 500 is sent again only after the token lookup found nothing.
	_, err = c.CreateSandbox(context.Background(), CreateSandboxRequest{TemplateID: "base"})
	if err == nil || rs.count("POST /v2/sandboxes") != 2+4 || rs.count("GET /v2/sandboxes") < 4 {
		t.Fatalf("500 on create: %v, %d requests, %d lookups; want 1+3 attempts, each after a lookup",
			err, rs.count("POST /v2/sandboxes")-2, rs.count("GET /v2/sandboxes"))
	}
}

func TestIdempotentCallsRetryServerErrorsAndConnectionDrops(t *testing.T) {
	var calls atomic.Int32
	rs := newRouteServer(t, nil)
	rs.routes = map[string]http.HandlerFunc{
		"GET /sandboxes/isb1": func(w http.ResponseWriter, r *http.Request) {
			switch calls.Add(1) {
			case 1:
				writeJSON(w, 503, `{"code":503,"message":"busy"}`)
			case 2:
				dropConnection(t, w)
			default:
				writeJSON(w, 200, `{"sandboxID":"isb1","templateID":"base","clientID":"c","state":"running","envdVersion":"0.6.13",
					"startedAt":"2026-01-01T00:00:00Z","endAt":"2026-01-01T01:00:00Z","cpuCount":2,"memoryMB":512,"diskSizeMB":0,
					"metadata":{"a":"b"},"lifecycle":{"autoResume":false,"onTimeout":"pause"}}`)
			}
		},
	}
	c := newTestClient(t, fastConfig(rs.URL))
	d, err := c.GetSandbox(context.Background(), "isb1")
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if d.State != "running" || d.CPUCount != 2 || d.Metadata["a"] != "b" || d.Lifecycle.OnTimeout != "pause" {
		t.Fatalf("detail %+v", d)
	}
	if n := rs.count("GET /sandboxes/isb1"); n != 3 {
		t.Fatalf("GET took %d attempts, want 3", n)
	}
}

func TestRetriesAreBoundedAndReportTheLastAnswer(t *testing.T) {
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"GET /v2/templates": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "30")
			writeJSON(w, 503, `{"code":503,"message":"unavailable"}`)
		},
	})
	cfg := fastConfig(rs.URL)
	cfg.RetryMax = new(2)
	c := newTestClient(t, cfg)
	start := time.Now()
	_, err := c.ListTemplates(context.Background())
	if e, ok := asAPIError(err); !ok || e.StatusCode != 503 {
		t.Fatalf("want the last answer (503), got %v", err)
	}
	if n := rs.count("GET /v2/templates"); n != 3 {
		t.Fatalf("%d attempts, want 1 + RetryMax(2)", n)
	}
	// Retry-After: 30 must be capped by RetryWaitMax (20ms); generous bound.
	if time.Since(start) > 20*time.Second {
		t.Fatalf("Retry-After not capped: took %v", time.Since(start))
	}
}

// RetryMax 0 means one attempt and no retry, for the control plane as for creates; a refusal
// for E2B's API rate is no failure of the request: it waits its turn until its context ends,
// whatever RetryMax, and then names the rate limit.
func TestZeroRetryMaxMeansNoRetries(t *testing.T) {
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"GET /v2/templates": answerJSON(503, `{"code":503,"message":"unavailable"}`),
		"GET /v2/sandboxes": answerJSON(429, `{"code":429,"message":"Rate limit exceeded"}`),
	})
	cfg := fastConfig(rs.URL)
	cfg.RetryMax = new(0)
	c := newTestClient(t, cfg)
	if _, err := c.ListTemplates(context.Background()); err == nil {
		t.Fatal("want the 503")
	}
	if n := rs.count("GET /v2/templates"); n != 1 {
		t.Fatalf("%d attempts with RetryMax 0, want 1", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := c.ListSandboxes(ctx, ListSandboxesParams{})
	if !IsAPIRateLimited(err) || !IsRateLimited(err) || !strings.Contains(err.Error(), "API rate limit") {
		t.Fatalf("want E2B's API rate limit named, got %v", err)
	}
	if n := rs.count("GET /v2/sandboxes"); n < 2 {
		t.Fatalf("%d attempts of a request refused for the API rate, want it sent again", n)
	}
}

func TestPerAttemptTimeoutRetriesAHungUnaryCall(t *testing.T) {
	var calls atomic.Int32
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"GET /templates/aliases/base": func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				select {
				case <-release:
				case <-r.Context().Done():
				}
				return
			}
			writeJSON(w, 200, `{"templateID":"tbase","public":true}`)
		},
	})
	cfg := fastConfig(rs.URL)
	cfg.RequestTimeout = 200 * time.Millisecond
	c := newTestClient(t, cfg)
	id, public, err := c.ResolveTemplateAlias(context.Background(), "base")
	if err != nil || id != "tbase" || !public {
		t.Fatalf("alias: %q %v %v", id, public, err)
	}
	if calls.Load() != 2 {
		t.Fatalf("%d attempts, want 2", calls.Load())
	}
}

func TestMissingAPIKeyIsReportedWithoutARequest(t *testing.T) {
	rs := newRouteServer(t, nil)
	cfg := fastConfig(rs.URL)
	cfg.APIKey = ""
	c := newTestClient(t, cfg)
	_, err := c.GetSandbox(context.Background(), "isb1")
	if !errors.Is(err, ErrMissingAPIKey) {
		t.Fatalf("want ErrMissingAPIKey, got %v", err)
	}
	if rs.count("GET /sandboxes/isb1") != 0 {
		t.Fatal("request sent without API key")
	}
}

func TestNewRejectsMalformedURLs(t *testing.T) {
	for _, cfg := range []Config{{APIURL: "::nope"}, {APIURL: "ftp://x"}, {SandboxURL: "http://"}, {APIURL: "http://h/?q=1"}} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted a malformed URL", cfg)
		}
	}
	c, err := New(Config{})
	if err != nil || c.APIURL() != "https://api.e2b.app" {
		t.Fatalf("defaults: %v %v", c, err)
	}
	if got := c.Envd(EnvdTarget{SandboxID: "iabc"}).BaseURL(); got != "https://49983-iabc.e2b.app" {
		t.Fatalf("envd URL %s", got)
	}
	if got := c.Envd(EnvdTarget{SandboxID: "iabc", Domain: "byoc.example"}).BaseURL(); got != "https://49983-iabc.byoc.example" {
		t.Fatalf("envd URL with sandbox domain %s", got)
	}
}

func TestHeadersAndSecretsStayWhereTheyBelong(t *testing.T) {
	var controlUA, envdKey, envdToken, envdAuth, envdID, envdPort string
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"DELETE /sandboxes/isb1": func(w http.ResponseWriter, r *http.Request) {
			controlUA = r.Header.Get("User-Agent")
			if r.Header.Get("X-API-Key") != testAPIKey {
				t.Errorf("control plane got X-API-Key %q", r.Header.Get("X-API-Key"))
			}
			w.WriteHeader(204)
		},
		"POST /filesystem.Filesystem/Remove": func(w http.ResponseWriter, r *http.Request) {
			envdKey, envdToken, envdAuth = r.Header.Get("X-API-Key"), r.Header.Get("X-Access-Token"), r.Header.Get("Authorization")
			envdID, envdPort = r.Header.Get("E2b-Sandbox-Id"), r.Header.Get("E2b-Sandbox-Port")
			writeJSON(w, 200, `{}`)
		},
	})
	log := &recordingLogger{}
	cfg := fastConfig(rs.URL)
	cfg.UserAgent = "terraform/1.12.6"
	cfg.Logger = log
	c := newTestClient(t, cfg)
	ctx := context.Background()
	if err := c.KillSandbox(ctx, "isb1"); err != nil {
		t.Fatal(err)
	}
	e := c.Envd(EnvdTarget{SandboxID: "isb1", AccessToken: "tok-secret", User: "root"})
	if err := e.Remove(ctx, "/tmp/x"); err != nil {
		t.Fatal(err)
	}
	if controlUA != "terraform-provider-e2b/test terraform/1.12.6" {
		t.Errorf("User-Agent %q", controlUA)
	}
	if envdKey != "" {
		t.Error("API key sent to envd")
	}
	if envdToken != "tok-secret" || envdID != "isb1" || envdPort != "49983" {
		t.Errorf("envd headers token=%q id=%q port=%q", envdToken, envdID, envdPort)
	}
	if envdAuth != "Basic "+base64.StdEncoding.EncodeToString([]byte("root:")) {
		t.Errorf("Authorization %q", envdAuth)
	}
	logged := log.all()
	for _, secret := range []string{testAPIKey, "tok-secret", base64.StdEncoding.EncodeToString([]byte("root:"))} {
		if strings.Contains(logged, secret) {
			t.Errorf("secret %q leaked into logs:\n%s", secret, logged)
		}
	}
	if !strings.Contains(logged, "DELETE") || !strings.Contains(logged, "attempt:1") || !strings.Contains(logged, "status:204") {
		t.Errorf("log lacks method/attempt/status:\n%s", logged)
	}
}

func TestRedactURLHidesSignatures(t *testing.T) {
	c := newTestClient(t, fastConfig("http://127.0.0.1:1"))
	_ = c
	req, _ := http.NewRequest(http.MethodGet, "http://h/files?path=%2Fa&signature=v1_secret&signature_expiration=123", nil)
	got := RedactURL(req.URL)
	if strings.Contains(got, "v1_secret") || !strings.Contains(got, "path=%2Fa") {
		t.Fatalf("redacted URL %s", got)
	}
	// Signed upload URLs of template files (GCS, S3).
	for _, raw := range []string{
		"https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=acct%2F20260101&X-Goog-Signature=abc123def",
		"https://b.s3.amazonaws.com/o?X-Amz-Credential=AKIAX%2F20260101&X-Amz-Signature=abc123def&X-Amz-Security-Token=tok987",
	} {
		got := RedactURLString(raw)
		for _, secret := range []string{"abc123def", "tok987", "AKIAX", "acct"} {
			if strings.Contains(got, secret) {
				t.Errorf("redacted %s still holds %q: %s", raw, secret, got)
			}
		}
	}
}

func TestFilesCarryTheUserAsQueryAndRPCsAsBasicAuth(t *testing.T) {
	var filesQuery, filesAuth string
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"GET /files": func(w http.ResponseWriter, r *http.Request) {
			filesQuery, filesAuth = r.URL.RawQuery, r.Header.Get("Authorization")
			w.Header().Set("Content-Type", "application/octet-stream")
			_, _ = w.Write([]byte("x"))
		},
	})
	c := newTestClient(t, fastConfig(rs.URL))
	rc, err := c.Envd(EnvdTarget{SandboxID: "isb1", User: "root"}).ReadFile(context.Background(), "/etc/hostname", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = rc.Close()
	if filesQuery != "path=%2Fetc%2Fhostname&username=root" || filesAuth != "" {
		t.Fatalf("files query %q auth %q", filesQuery, filesAuth)
	}
}

type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

// An answer that arrives with an error (the context ended) is closed, since
// callers look only at the error; a final answer without error is handed on.
func TestLastAnswerOrErrorClosesDroppedAnswers(t *testing.T) {
	body := &closeRecorder{Reader: strings.NewReader("x")}
	resp, err := lastAnswerOrError(&http.Response{StatusCode: 503, Body: body}, context.Canceled, 1)
	if resp != nil || !errors.Is(err, context.Canceled) || !body.closed {
		t.Fatalf("resp %v, err %v, body closed %v", resp, err, body.closed)
	}
	last := &http.Response{StatusCode: 503, Body: &closeRecorder{Reader: strings.NewReader("x")}}
	if resp, err := lastAnswerOrError(last, nil, 5); resp != last || err != nil {
		t.Fatalf("resp %v, err %v: want the last answer", resp, err)
	}
}
