package provider

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// A snapshot action with timeout = "10s" against a control plane that holds the snapshot
// request for 90 s ends within its 10 s, the search for a snapshot the lost call may have
// made included (it used to fail after 41 s: 10 s, then 30 s more of searching).
func TestSandboxSnapshotActionTimeoutBoundsSettlingProtocol(t *testing.T) {
	srv := newTestEmulator(t)
	target, err := url.Parse(srv.APIURL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	release := make(chan struct{})
	holding := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/snapshots") {
			select { // The control plane holds the request, whether the client waits or not.
			case <-time.After(90 * time.Second):
			case <-release:
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(holding.Close)
	t.Cleanup(func() { close(release) })
	p := newProtoProviderAt(t, srv, holding.URL)
	_, _, id := protoSandbox(t, srv)
	began := time.Now()
	_, diags := p.invokeAction("e2b_sandbox_snapshot", map[string]tftypes.Value{
		"sandbox_id": str(id), "name": str("nightly"), "timeout": str("10s"),
	})
	elapsed := time.Since(began)
	d := errorDiag(diags)
	if d == nil || !strings.Contains(d.Detail, "timeout of 10s") {
		t.Fatalf("snapshot held past its timeout: %+v", d)
	}
	t.Logf("ended after %s: %s", elapsed.Round(100*time.Millisecond), d.Detail)
	if elapsed > 12*time.Second {
		t.Fatalf("the action with timeout 10s took %s", elapsed)
	}
}
