package e2b

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

type lineLogger struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLogger) Log(_ context.Context, level, msg string, fields map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf("%s %s %v", level, msg, fields))
}

// A cached token that the API refuses is fetched again from the volume, once,
// and the token never reaches the logs.
func TestVolumeFilesTokenRefetchedAndRedacted(t *testing.T) {
	srv, err := emulator.Start(emulator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	logs := &lineLogger{}
	c, err := New(Config{APIKey: srv.APIKey(), APIURL: srv.APIURL(), SandboxURL: srv.SandboxURL(), Logger: logs,
		RetryWaitMin: time.Millisecond, RetryWaitMax: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	v, err := c.CreateVolume(ctx, "token-vol")
	if err != nil {
		t.Fatal(err)
	}
	files := c.VolumeFiles(v.VolumeID)
	volumeTokens.mu.Lock()
	volumeTokens.m[files.tokenKey()] = "stale.token"
	volumeTokens.mu.Unlock()
	if _, err := files.WriteFile(ctx, "/t.txt", func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }, VolumeOwnership{}); err != nil {
		t.Fatalf("write with a stale cached token: %v", err)
	}
	reqs := srv.Counters().Requests
	if n := reqs["GET /volumes/{id}"]; n != 1 {
		t.Errorf("the volume was read %d times for its token, want once after the refusal: %v", n, reqs)
	}
	if _, err := files.Stat(ctx, "/t.txt"); err != nil {
		t.Fatal(err)
	}
	if n := srv.Counters().Requests["GET /volumes/{id}"]; n != 1 {
		t.Errorf("the fresh token was not kept: the volume was read %d times", n)
	}
	logs.mu.Lock()
	defer logs.mu.Unlock()
	all := strings.Join(logs.lines, "\n")
	if len(logs.lines) == 0 || !strings.Contains(all, "/volumecontent/") {
		t.Fatalf("no volume-content request was logged: %s", all)
	}
	if strings.Contains(all, v.Token) || strings.Contains(all, "stale.token") {
		t.Fatalf("a volume token reached the logs:\n%s", all)
	}
}

// A refused volume token is not worded as a refused API key.
func TestVolumeContentErrorNamesTheVolumeToken(t *testing.T) {
	rec := httptest.NewRecorder()
	rec.WriteHeader(http.StatusUnauthorized)
	_, _ = rec.WriteString(`{"code":"401","message":"invalid volume token"}`)
	err := volumeContentError("stat \"/a\" in volume \"v\"", rec.Result())
	if got := err.Error(); !strings.Contains(got, "the volume's token was rejected") || strings.Contains(got, "API key") {
		t.Fatalf("error reads %q", got)
	}
}
