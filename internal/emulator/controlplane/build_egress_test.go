package controlplane_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

// A RUN step downloads through the egress proxy its HTTP_PROXY names, with
// the credentials the build sandbox's processes get: the proxy lets them
// out, as E2B's builds reach the internet. (curl, given an empty --noproxy
// list, sends every request to the proxy whatever NO_PROXY says: a proxy that
// refused the build sandbox's credentials would fail the step with 407.)
func TestBuildRunStepDownloadsThroughTheEgressProxy(t *testing.T) {
	t.Parallel()
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		_, _ = w.Write([]byte("artifact body\n"))
	}))
	t.Cleanup(srv.Close)
	c := emulatortest.Start(t, emulator.Options{ReadyTimeout: 20 * time.Second})
	b := c.RequestBuild(map[string]any{"name": "build-egress"})
	c.StartBuild(b, map[string]any{"fromTemplate": "base", "steps": []map[string]any{
		{"type": "RUN", "args": []string{`test -n "$HTTP_PROXY" && curl -sS --fail --noproxy '' -o artifact.txt ` + srv.URL + `/artifact`}},
	}})
	res := c.WaitBuild(b)
	if res.Status != store.BuildReady {
		t.Fatalf("build %s: %+v\n%s", res.Status, res.Reason, emulatortest.LogText(res.LogEntries))
	}
	if served.Load() != 1 {
		t.Fatalf("the server saw %d requests, want 1", served.Load())
	}
	sb := c.Create(map[string]any{"templateID": "build-egress"})
	if got := c.MustRun(sb, "cat artifact.txt"); got != "artifact body\n" {
		t.Fatalf("the built template holds %q", got)
	}
}
