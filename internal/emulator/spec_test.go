package emulator_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2bspec"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/spectest"
)

// TestTrafficMatchesSpec drives every route E2B's published specs describe
// through a validating transport: requests and responses must match
// openapi.yml / envd.yaml and the Connect framing, of the newest specs (the
// ones the emulator serves) and of the API server's own (runtime), so that
// a later spec drop shows what changed.
func TestTrafficMatchesSpec(t *testing.T) {
	t.Parallel()
	for _, set := range []e2bspec.Set{e2bspec.Newest, e2bspec.Runtime} {
		t.Run(set.Name, func(t *testing.T) {
			t.Parallel()
			trafficMatchesSpec(t, spectest.NewFor(t, set))
		})
	}
}

func trafficMatchesSpec(t *testing.T, v *spectest.Validator) {
	c := emulatortest.Start(t, emulator.Options{})
	c.HC = &http.Client{Transport: v.Wrap(nil), Timeout: 60 * time.Second}
	c.Streams = &http.Client{Transport: v.Wrap(nil)}
	c.Srv.SeedTemplate(emulator.TemplateSeed{TemplateID: "tplspec", Names: []string{"spec-tpl"}, Builds: 3})

	sb := c.Create(map[string]any{"secure": true, "metadata": map[string]string{"k": "v"}, "envVars": map[string]string{"A": "b"},
		"network": map[string]any{"allowOut": []string{"1.1.1.1"}, "denyOut": []string{"0.0.0.0/0"}}})
	c.Create(map[string]any{"autoPause": true})
	calls := []struct {
		method, path string
		body         any
		want         int
	}{
		{"GET", "/sandboxes/" + sb.SandboxID, nil, 200},
		{"GET", "/sandboxes/inotthere000000000000", nil, 404},
		{"GET", "/v2/sandboxes?limit=1&state=running,paused&metadata=" + url.QueryEscape("k=v"), nil, 200},
		{"GET", "/sandboxes", nil, 200},
		{"POST", "/sandboxes/" + sb.SandboxID + "/timeout", map[string]any{"timeout": 600}, 204},
		{"POST", "/sandboxes/" + sb.SandboxID + "/refreshes", map[string]any{"duration": 60}, 204},
		{"PUT", "/sandboxes/" + sb.SandboxID + "/network", map[string]any{"allowOut": []string{"8.8.8.8"}, "denyOut": []string{"0.0.0.0/0"}}, 204},
		{"GET", "/sandboxes/" + sb.SandboxID + "/metrics", nil, 200},
		{"GET", "/sandboxes/metrics?sandbox_ids=" + sb.SandboxID, nil, 200},
		{"GET", "/sandboxes/" + sb.SandboxID + "/logs", nil, 200},
		{"GET", "/v2/sandboxes/" + sb.SandboxID + "/logs?direction=forward&limit=10", nil, 200},
		{"POST", "/sandboxes/" + sb.SandboxID + "/snapshots", map[string]any{"name": "specsnap"}, 201},
		{"GET", "/snapshots?sandboxID=" + sb.SandboxID + "&limit=10", nil, 200},
		{"GET", "/v2/templates?limit=10", nil, 200},
		{"GET", "/templates/tplspec?limit=2", nil, 200},
		{"GET", "/templates/aliases/spec-tpl", nil, 200},
		{"POST", "/sandboxes/" + sb.SandboxID + "/fork", map[string]any{"count": 1}, 201},
		{"POST", "/sandboxes/" + sb.SandboxID + "/pause", map[string]any{}, 204},
		{"POST", "/sandboxes/" + sb.SandboxID + "/pause", nil, 409},
		{"POST", "/sandboxes/" + sb.SandboxID + "/connect", map[string]any{"timeout": 60}, 201},
		{"POST", "/sandboxes/" + sb.SandboxID + "/connect", map[string]any{"timeout": 60}, 200},
		{"POST", "/sandboxes/" + sb.SandboxID + "/pause", nil, 204},
		{"POST", "/sandboxes/" + sb.SandboxID + "/resume", map[string]any{"timeout": 60}, 201},
		{"GET", "/health", nil, 200},
	}
	for _, call := range calls {
		st, data, _ := c.API(call.method, call.path, call.body)
		emulatortest.WantStatus(t, call.method+" "+call.path, st, data, call.want)
	}
	// envd REST and Connect.
	st, data := c.Upload(sb, "/home/user/spec.txt", strings.NewReader("spec"), nil)
	emulatortest.WantStatus(t, "upload", st, data, 200)
	if st, data := c.Download(sb, "spec.txt"); st != 200 || string(data) != "spec" {
		t.Fatalf("download %d %q", st, data)
	}
	st, data = c.Download(sb, "missing.txt")
	emulatortest.WantStatus(t, "download missing", st, data, 404)
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/health", nil, emulatortest.EnvdHeaders(sb))
	emulatortest.WantStatus(t, "envd health", st, data, 204)
	c.Upload(sb, "part", strings.NewReader("p"), nil)
	st, data, _ = c.Request("POST", c.Srv.SandboxURL()+"/files/compose", map[string]any{"source_paths": []string{"part"}, "destination": "composed"}, emulatortest.EnvdHeaders(sb))
	emulatortest.WantStatus(t, "compose", st, data, 200)
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/envs", nil, emulatortest.EnvdHeaders(sb))
	emulatortest.WantStatus(t, "envd envs", st, data, 200)
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/metrics", nil, emulatortest.EnvdHeaders(sb))
	emulatortest.WantStatus(t, "envd metrics", st, data, 200)
	for _, rpc := range []struct {
		method string
		body   any
		want   int
	}{
		{"filesystem.Filesystem/Stat", map[string]any{"path": "spec.txt"}, 200},
		{"filesystem.Filesystem/Stat", map[string]any{"path": "nope"}, 404},
		{"filesystem.Filesystem/MakeDir", map[string]any{"path": "d"}, 200},
		{"filesystem.Filesystem/MakeDir", map[string]any{"path": "d"}, 409},
		{"filesystem.Filesystem/ListDir", map[string]any{"path": "/home/user", "depth": 2}, 200},
		{"filesystem.Filesystem/Move", map[string]any{"source": "spec.txt", "destination": "d/spec.txt"}, 200},
		{"filesystem.Filesystem/Remove", map[string]any{"path": "d"}, 200},
		{"process.Process/List", map[string]any{}, 200},
	} {
		st, data := c.RPC(sb, rpc.method, rpc.body)
		emulatortest.WantStatus(t, rpc.method, st, data, rpc.want)
	}
	ps := c.StartProcess(sb, "cat; echo err >&2; exit 2", map[string]any{"stdin": true}, map[string]string{"Keepalive-Ping-Interval": "50", "Connect-Timeout-Ms": "30000"})
	st, data = c.RPC(sb, "process.Process/SendInput", map[string]any{"process": map[string]any{"pid": ps.PID}, "input": map[string]any{"stdin": base64.StdEncoding.EncodeToString([]byte("in"))}})
	emulatortest.WantStatus(t, "send input", st, data, 200)
	st, data = c.RPC(sb, "process.Process/CloseStdin", map[string]any{"process": map[string]any{"pid": ps.PID}})
	emulatortest.WantStatus(t, "close stdin", st, data, 200)
	if res := ps.Collect(); res.Stdout != "in" || res.End["exitCode"] != float64(2) {
		t.Fatalf("process result %+v", res)
	}
	timeout := c.StartProcess(sb, "sleep 30", nil, map[string]string{"Connect-Timeout-Ms": "300"})
	if res := timeout.Collect(); res.EndStream["error"] == nil {
		t.Fatalf("timeout result %+v", res)
	}
	st, data, _ = c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
	emulatortest.WantStatus(t, "kill", st, data, 204)
	st, data, _ = c.API("DELETE", "/templates/"+url.PathEscape(store.TeamNamespace+"/specsnap:default"), nil)
	emulatortest.WantStatus(t, "delete snapshot", st, data, 204)
	if seen := v.Seen(); seen["control"] == 0 || seen["envd"] == 0 || seen["connect"] == 0 {
		t.Fatalf("validator saw %v", seen)
	}
}

// TestEmptyListsAreArrays: on a team with nothing in it, every list E2B's spec answers with an
// array answers [] (or an object whose lists are []), never null.
func TestEmptyListsAreArrays(t *testing.T) {
	t.Parallel()
	v := spectest.New(t)
	c := emulatortest.Start(t, emulator.Options{})
	c.HC = &http.Client{Transport: v.Wrap(nil), Timeout: 60 * time.Second}
	team := c.Srv.TeamID()
	for _, path := range []string{
		"/sandboxes", "/v2/sandboxes", "/v2/sandboxes?state=paused", "/sandboxes/metrics?sandbox_ids=inotthere000000000000",
		"/snapshots", "/templates", "/v2/templates", "/volumes", "/secrets", "/teams/" + team + "/metrics",
		"/events/webhooks", "/events/sandboxes",
	} {
		st, data, _ := c.API("GET", path, nil)
		emulatortest.WantStatus(t, path, st, data, http.StatusOK)
		if body := string(data); strings.Contains(body, "null") {
			t.Errorf("GET %s answers %s", path, body)
		}
	}
	// A sandbox that has logged nothing of its own yet and a template build with no logs.
	sb := c.Create(map[string]any{})
	for _, path := range []string{"/sandboxes/" + sb.SandboxID + "/logs?start=" + strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10),
		"/v2/sandboxes/" + sb.SandboxID + "/logs?search=no-such-line"} {
		st, data, _ := c.API("GET", path, nil)
		emulatortest.WantStatus(t, path, st, data, http.StatusOK)
		if body := string(data); strings.Contains(body, "null") {
			t.Errorf("GET %s answers %s", path, body)
		}
	}
}
