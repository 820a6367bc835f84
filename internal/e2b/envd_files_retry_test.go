package e2b_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// failFirst fails the first n requests whose path ends with suffix: with a
// connection error, or with a 503 answer when status is set.
type failFirst struct {
	next   http.RoundTripper
	suffix string
	n      int32
	status int
	seen   atomic.Int32
}

func (f *failFirst) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, f.suffix) && f.seen.Add(1) <= f.n {
		if r.Body != nil {
			_, _ = io.Copy(io.Discard, r.Body)
			_ = r.Body.Close()
		}
		if f.status == 0 {
			return nil, errors.New("connection reset by peer (injected)")
		}
		return &http.Response{StatusCode: f.status, Status: http.StatusText(f.status), Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(`{"code":503,"message":"busy"}`)), Request: r}, nil
	}
	return f.next.RoundTrip(r)
}

func TestWriteFileFromSendsAgainAfterFailures(t *testing.T) {
	var wrap *failFirst
	e := newEnv(t, func(cfg *e2b.Config) {
		wrap = &failFirst{next: cfg.HTTPClient.Transport, suffix: "/files", n: 2}
		cfg.HTTPClient = &http.Client{Transport: wrap}
	})
	sb := e.create(t, e2b.CreateSandboxRequest{})
	envd := e.envd(sb)

	opens := 0
	open := func() (io.ReadCloser, error) {
		opens++
		return io.NopCloser(strings.NewReader("complete content\n")), nil
	}
	if _, err := envd.WriteFileFrom(e.ctx, "/home/user/retried.txt", open, e2b.WriteOptions{}); err != nil {
		t.Fatalf("WriteFileFrom after two dropped uploads: %v", err)
	}
	if opens != 3 {
		t.Fatalf("content opened %d times, want 3 (two failures and a success)", opens)
	}
	if n := e.srv.Counters().Requests["envd POST /files"]; n != 1 {
		t.Fatalf("emulator received %d uploads, want exactly the successful one", n)
	}
	rc, err := envd.ReadFile(e.ctx, "/home/user/retried.txt", e2b.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	if got, _ := io.ReadAll(rc); string(got) != "complete content\n" {
		t.Fatalf("file holds %q", got)
	}

	// Plain WriteFile cannot send its reader twice, so it reports the failure.
	wrap.seen.Store(0)
	if _, err := envd.WriteFile(e.ctx, "/home/user/once.txt", strings.NewReader("x"), e2b.WriteOptions{}); err == nil {
		t.Fatal("WriteFile succeeded through a dropped connection")
	}
}

func TestProcessStartRetriedAfterErrorAnswer(t *testing.T) {
	var wrap *failFirst
	e := newEnv(t, func(cfg *e2b.Config) {
		wrap = &failFirst{next: cfg.HTTPClient.Transport, suffix: "/process.Process/Start", n: 1, status: http.StatusServiceUnavailable}
		cfg.HTTPClient = &http.Client{Transport: wrap}
	})
	sb := e.create(t, e2b.CreateSandboxRequest{})
	res, err := e.envd(sb).Exec(e.ctx, e2b.ExecRequest{Command: "echo started once"})
	if err != nil {
		t.Fatalf("Exec after a 503 answer: %v", err)
	}
	if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "started once" {
		t.Fatalf("result %+v", res)
	}
	if n := e.srv.Counters().Requests["envd /process.Process/Start"]; n != 1 {
		t.Fatalf("emulator received %d starts, want 1", n)
	}

}

// loseAnswer forwards the first request whose path ends with suffix, then
// drops the answer as if the connection broke after envd acted on it.
type loseAnswer struct {
	next   http.RoundTripper
	suffix string
	seen   atomic.Int32
}

func (l *loseAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	if err == nil && strings.HasSuffix(r.URL.Path, l.suffix) && l.seen.Add(1) == 1 {
		_ = resp.Body.Close()
		return nil, errors.New("connection reset by peer (injected after the request was handled)")
	}
	return resp, err
}

// TestExecSettlesALostStart: when the answer to a start is lost, the tag
// tells whether the command runs. It never runs twice, and Exec still
// reports how it ended.
func TestExecSettlesALostStart(t *testing.T) {
	t.Run("request never arrived", func(t *testing.T) {
		e := newEnv(t, func(cfg *e2b.Config) {
			cfg.HTTPClient = &http.Client{Transport: &failFirst{next: cfg.HTTPClient.Transport, suffix: "/process.Process/Start", n: 1}}
		})
		sb := e.create(t, e2b.CreateSandboxRequest{})
		res, err := e.envd(sb).Exec(e.ctx, e2b.ExecRequest{Command: "echo ran"})
		if err != nil {
			t.Fatalf("Exec after a start that never arrived: %v", err)
		}
		if strings.TrimSpace(res.Stdout) != "ran" {
			t.Fatalf("result %+v", res)
		}
		if n := e.srv.Counters().Requests["envd /process.Process/Start"]; n != 1 {
			t.Fatalf("emulator received %d starts, want 1", n)
		}
	})
	t.Run("answer lost after the start", func(t *testing.T) {
		e := newEnv(t, func(cfg *e2b.Config) {
			cfg.HTTPClient = &http.Client{Transport: &loseAnswer{next: cfg.HTTPClient.Transport, suffix: "/process.Process/Start"}}
		})
		sb := e.create(t, e2b.CreateSandboxRequest{})
		res, err := e.envd(sb).Exec(e.ctx, e2b.ExecRequest{Command: "sleep 1; echo ran once >> /tmp/runs; cat /tmp/runs"})
		if err != nil {
			t.Fatalf("Exec after a lost answer: %v", err)
		}
		if res.ExitCode != 0 || strings.TrimSpace(res.Stdout) != "ran once" {
			t.Fatalf("result %+v (the command must run exactly once and be followed to its end)", res)
		}
		c := e.srv.Counters().Requests
		if c["envd /process.Process/Start"] != 1 || c["envd /process.Process/Connect"] != 1 {
			t.Fatalf("starts %d, connects %d: want one start and one re-attach", c["envd /process.Process/Start"], c["envd /process.Process/Connect"])
		}
	})
}
