package controlplane_test

import (
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

func TestCreateGetAndDetailFields(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{"metadata": map[string]string{"team": "a"}, "secure": true, "timeout": 120})
	if len(sb.SandboxID) != 21 || sb.SandboxID[0] != 'i' || !controlplane.SandboxIDPattern.MatchString(sb.SandboxID) {
		t.Fatalf("sandbox ID %q is not i + 20 [a-z0-9]", sb.SandboxID)
	}
	if sb.TemplateID != store.BaseTemplateID || len(sb.EnvdAccessToken) != 64 {
		t.Fatalf("unexpected create response %+v", sb)
	}
	d := c.Detail(sb.SandboxID)
	if d.State != sandboxes.Running || d.ClientID != controlplane.ClientID || d.EnvdVersion != controlplane.EnvdVersion || d.Alias != "base" ||
		d.CPUCount != 2 || d.MemoryMB != 512 || d.DiskSizeMB <= 0 || d.Metadata["team"] != "a" ||
		d.EnvdAccessToken != sb.EnvdAccessToken || d.Lifecycle.OnTimeout != "kill" {
		t.Fatalf("unexpected detail %+v", d)
	}
	if got := d.EndAt.Sub(d.StartedAt); got != 120*time.Second {
		t.Fatalf("endAt - startedAt = %s, want 2m", got)
	}
	// The v2 create route behaves the same.
	st, data, _ := c.API("POST", "/v2/sandboxes", map[string]any{"templateID": "base"})
	emulatortest.WantStatus(t, "v2 create", st, data, http.StatusCreated)
	v2 := emulatortest.Decode[emulatortest.Sandbox](t, data)
	if v2.EnvdAccessToken == "" {
		t.Fatal("a /v2 sandbox is secure unless secure=false is sent")
	}
	if d := c.Detail(v2.SandboxID); d.EndAt.Sub(d.StartedAt) != controlplane.DefaultTimeoutV2 {
		t.Fatalf("v2 default timeout = %s", d.EndAt.Sub(d.StartedAt))
	}
	// The legacy composite ID is accepted.
	st, data, _ = c.API("GET", "/sandboxes/"+sb.SandboxID+"-"+controlplane.ClientID, nil)
	emulatortest.WantStatus(t, "get composite id", st, data, http.StatusOK)
	if c.Srv.Counters().SandboxesCreated != 2 || c.Srv.Counters().SandboxesAlive != 2 {
		t.Fatalf("counters %+v", c.Srv.Counters())
	}
}

func TestListPagingAndFilters(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	want := map[string]bool{}
	for i := 0; i < 5; i++ {
		sb := c.Create(map[string]any{"metadata": map[string]string{"suite": "list", "n": strconv.Itoa(i)}})
		want[sb.SandboxID] = true
	}
	other := c.Create(map[string]any{"metadata": map[string]string{"suite": "other"}})
	meta := url.QueryEscape(url.QueryEscape("suite") + "=" + url.QueryEscape("list"))
	for _, order := range []string{"desc", "asc"} {
		got := map[string]bool{}
		next, pages := "", 0
		for {
			path := "/v2/sandboxes?limit=2&order=" + order + "&metadata=" + meta
			if next != "" {
				path += "&nextToken=" + url.QueryEscape(next)
			}
			st, data, hdr := c.API("GET", path, nil)
			emulatortest.WantStatus(t, "list page", st, data, http.StatusOK)
			if hdr.Get("X-Total-Running") != "5" {
				t.Fatalf("X-Total-Running = %q, want 5", hdr.Get("X-Total-Running"))
			}
			for _, l := range emulatortest.Decode[[]controlplane.ListedSandboxJSON](t, data) {
				if got[l.SandboxID] {
					t.Fatalf("%s listed twice", l.SandboxID)
				}
				got[l.SandboxID] = true
			}
			pages++
			if next = hdr.Get("X-Next-Token"); next == "" {
				break
			}
			if pages > 10 {
				t.Fatal("paging does not end")
			}
		}
		if pages != 3 || len(got) != 5 || got[other.SandboxID] {
			t.Fatalf("order %s: %d pages, got %v", order, pages, got)
		}
	}
	// A desc token used with asc order is rejected.
	_, _, hdr := c.API("GET", "/v2/sandboxes?limit=1", nil)
	st, data, _ := c.API("GET", "/v2/sandboxes?limit=1&order=asc&nextToken="+url.QueryEscape(hdr.Get("X-Next-Token")), nil)
	emulatortest.WantStatus(t, "mismatched token", st, data, http.StatusBadRequest)

	st, data, _ = c.API("POST", "/sandboxes/"+other.SandboxID+"/pause", nil)
	emulatortest.WantStatus(t, "pause", st, data, http.StatusNoContent)
	st, data, hdr = c.API("GET", "/v2/sandboxes?state=paused", nil)
	emulatortest.WantStatus(t, "list paused", st, data, http.StatusOK)
	if l := emulatortest.Decode[[]controlplane.ListedSandboxJSON](t, data); len(l) != 1 || l[0].SandboxID != other.SandboxID || l[0].State != sandboxes.Paused {
		t.Fatalf("paused list = %+v", l)
	}
	if hdr.Get("X-Total-Running") != "" {
		t.Fatal("X-Total-Running must be absent when running was not requested")
	}
	st, data, _ = c.API("GET", "/sandboxes", nil) // v1: running only
	emulatortest.WantStatus(t, "list v1", st, data, http.StatusOK)
	if l := emulatortest.Decode[[]controlplane.ListedSandboxJSON](t, data); len(l) != 5 {
		t.Fatalf("v1 list has %d sandboxes, want 5 running", len(l))
	}
	st, data, _ = c.API("GET", "/v2/sandboxes?template=base&state=running,paused", nil)
	emulatortest.WantStatus(t, "list by template", st, data, http.StatusOK)
	if l := emulatortest.Decode[[]controlplane.ListedSandboxJSON](t, data); len(l) != 6 {
		t.Fatalf("template filter: %d sandboxes, want 6", len(l))
	}
	after := url.QueryEscape(c.Detail(other.SandboxID).StartedAt.Format(time.RFC3339Nano))
	st, data, _ = c.API("GET", "/v2/sandboxes?startedAfter="+after, nil)
	emulatortest.WantStatus(t, "list startedAfter", st, data, http.StatusOK)
	if l := emulatortest.Decode[[]controlplane.ListedSandboxJSON](t, data); len(l) != 1 || l[0].SandboxID != other.SandboxID {
		t.Fatalf("startedAfter (inclusive) listed %+v", l)
	}
	st, data, _ = c.API("GET", "/v2/sandboxes?template=nope", nil)
	emulatortest.WantStatus(t, "list by unknown template", st, data, http.StatusOK)
	if string(data) != "[]\n" {
		t.Fatalf("unknown template lists %s", data)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	cases := []struct {
		method, path string
		body         any
		status       int
		msg          string
	}{
		{"POST", "/sandboxes", map[string]any{"templateID": "base", "timeout": 0}, 400, "Timeout must be greater than 0"},
		{"POST", "/sandboxes", map[string]any{"templateID": "base", "timeout": -1}, 400, "validation error"},
		{"POST", "/sandboxes", map[string]any{"templateID": "base", "timeout": 7200}, 400, "Timeout cannot be greater than 1 hours"},
		{"POST", "/sandboxes", map[string]any{"timeout": 10}, 400, `property "templateID" is missing`},
		{"POST", "/sandboxes", map[string]any{"templateID": "nope"}, 404, "template 'nope' not found"},
		{"POST", "/sandboxes", map[string]any{"templateID": "base", "network": map[string]any{"allowPublicTraffic": false}}, 400, "secure"},
		{"POST", "/sandboxes", map[string]any{"templateID": "base", "network": map[string]any{"allowOut": []string{"example.com"}}}, 400, "0.0.0.0/0"},
		{"POST", "/sandboxes", map[string]any{"templateID": "base", "network": map[string]any{"denyOut": []string{"example.com"}}}, 400, "denyOut"},
		{"POST", "/sandboxes", "not an object", 400, "validation error"},
		{"GET", "/sandboxes/NOT_VALID", nil, 400, "Invalid sandbox ID"},
		{"GET", "/sandboxes/iunknown0000000000000", nil, 404, `Sandbox "iunknown0000000000000" doesn't exist or you don't have access to it`},
		{"GET", "/v2/sandboxes?limit=0", nil, 400, "number must be at least 1"},
		{"GET", "/v2/sandboxes?limit=101", nil, 400, "number must be at most 100"},
		{"GET", "/v2/sandboxes?state=sleeping", nil, 400, "allowed values"},
		{"GET", "/v2/sandboxes?order=up", nil, 400, "allowed values"},
		{"GET", "/v2/sandboxes?metadata=" + url.QueryEscape("a=b=c"), nil, 400, "metadata"},
		{"GET", "/v2/sandboxes?nextToken=garbage", nil, 400, "Invalid next token"},
		{"GET", "/v2/sandboxes?template=base:v1", nil, 400, "tag"},
		{"POST", "/sandboxes/" + sb.SandboxID + "/timeout", map[string]any{}, 400, `property "timeout" is missing`},
		{"POST", "/sandboxes/" + sb.SandboxID + "/connect", map[string]any{"timeout": 7200}, 400, "Timeout cannot be greater than 1 hours"},
		{"POST", "/sandboxes/" + sb.SandboxID + "/refreshes", map[string]any{"duration": 4000}, 400, "3600"},
		{"GET", "/sandboxes/metrics", nil, 400, "sandbox_ids"},
		{"GET", "/sandboxes/" + sb.SandboxID + "/metrics?start=20&end=10", nil, 400, "start"},
		{"GET", "/v2/sandboxes/" + sb.SandboxID + "/logs?direction=sideways", nil, 400, "allowed values"},
		{"GET", "/nope", nil, 404, "no matching operation was found"},
		{"GET", "/v1/sandboxes/" + sb.SandboxID, nil, 404, "no matching operation was found"},
		{"PATCH", "/sandboxes/" + sb.SandboxID, nil, 404, "validation error: method not allowed"},
	}
	for _, tc := range cases {
		st, data, _ := c.API(tc.method, tc.path, tc.body)
		e := emulatortest.Decode[httpjson.ErrorJSON](t, data)
		if st != tc.status || !strings.Contains(e.Message, tc.msg) {
			t.Errorf("%s %s: %d %s, want %d containing %q", tc.method, tc.path, st, data, tc.status, tc.msg)
			continue
		}
		if e.Code != st {
			t.Errorf("%s %s: body code %d != status %d", tc.method, tc.path, e.Code, st)
		}
	}
	// API key checks.
	st, data, _ := c.Request("GET", c.Srv.APIURL()+"/sandboxes/"+sb.SandboxID, nil, nil)
	if st != 401 || !strings.Contains(string(data), "authorization header is missing") {
		t.Errorf("missing key: %d %s", st, data)
	}
	st, data, _ = c.Request("GET", c.Srv.APIURL()+"/sandboxes/"+sb.SandboxID, nil, map[string]string{"x-api-key": "e2b_deadbeef"})
	if st != 401 || !strings.Contains(string(data), "Invalid API key") {
		t.Errorf("wrong key: %d %s", st, data)
	}
	st, data, _ = c.Request("GET", c.Srv.APIURL()+"/sandboxes/"+sb.SandboxID, nil, map[string]string{"x-api-key": c.Srv.APIKey()})
	emulatortest.WantStatus(t, "lower-case header", st, data, http.StatusOK)
	st, data, _ = c.Request("GET", c.Srv.APIURL()+"/health", nil, nil)
	if st != 200 || string(data) != "Health check successful" {
		t.Errorf("health: %d %q", st, data)
	}
}

// readyProcess starts an emulator, a sandbox (created with create) and in it
// command, which prints before it sleeps, and reads that output. Off Linux it
// skips t: the tests read process states from /proc.
func readyProcess(t *testing.T, create map[string]any, command string, headers map[string]string) (*emulatortest.Client, emulatortest.Sandbox, *emulatortest.Stream) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads process states from /proc, which only Linux has")
	}
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(create)
	ps := c.StartProcess(sb, command, nil, headers)
	ps.ExpectOutput()
	return c, sb, ps
}

func TestPauseResumeKeepsProcess(t *testing.T) {
	c, sb, ps := readyProcess(t, map[string]any{"timeout": 300}, "echo ready; exec sleep 300", nil)
	pid := ps.PID
	host := c.HostPID(sb, pid)
	_ = ps.Resp.Body.Close() // client leaves; the process must keep running
	emulatortest.Eventually(t, "process running", func() bool { s := emulatortest.ProcState(host); return s == "S" || s == "R" })

	st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/pause", map[string]any{})
	emulatortest.WantStatus(t, "pause", st, data, http.StatusNoContent)
	emulatortest.Eventually(t, "process stopped", func() bool { return emulatortest.ProcState(host) == "T" })
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/pause", nil)
	emulatortest.WantStatus(t, "second pause", st, data, http.StatusConflict)
	if !strings.Contains(string(data), "is already paused") {
		t.Fatalf("second pause body %s", data)
	}
	if d := c.Detail(sb.SandboxID); d.State != sandboxes.Paused {
		t.Fatalf("state %s after pause", d.State)
	}
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/health", nil, emulatortest.EnvdHeaders(sb))
	emulatortest.WantStatus(t, "envd health while paused", st, data, http.StatusBadGateway)
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/timeout", map[string]any{"timeout": 30})
	emulatortest.WantStatus(t, "timeout while paused", st, data, http.StatusNotFound)

	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 60})
	emulatortest.WantStatus(t, "connect resumes", st, data, http.StatusCreated)
	emulatortest.Eventually(t, "process continued", func() bool { s := emulatortest.ProcState(host); return s == "S" || s == "R" })
	st, data = c.RPC(sb, "process.Process/List", map[string]any{})
	emulatortest.WantStatus(t, "list processes", st, data, http.StatusOK)
	if !strings.Contains(string(data), fmt.Sprintf(`"pid":%d`, pid)) {
		t.Fatalf("process %d missing after resume: %s", pid, data)
	}
	st, data, _ = c.API("POST", "/v2/sandboxes/"+sb.SandboxID+"/connect", map[string]any{})
	emulatortest.WantStatus(t, "connect running", st, data, http.StatusOK)

	st, data, _ = c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
	emulatortest.WantStatus(t, "kill", st, data, http.StatusNoContent)
	emulatortest.Eventually(t, "process killed", func() bool { s := emulatortest.ProcState(host); return s == "" || s == "Z" })
	st, data, _ = c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
	emulatortest.WantStatus(t, "kill again", st, data, http.StatusNotFound)
	st, data, _ = c.API("GET", "/sandboxes/"+sb.SandboxID, nil)
	emulatortest.WantStatus(t, "get killed", st, data, http.StatusNotFound)
	st, data, _ = c.Request("POST", c.Srv.SandboxURL()+"/filesystem.Filesystem/Stat", map[string]any{"path": "/"}, emulatortest.EnvdHeaders(sb))
	emulatortest.WantStatus(t, "envd after kill", st, data, http.StatusBadGateway)
	if e := emulatortest.Decode[emulatortest.EdgeError](t, data); e.SandboxID != sb.SandboxID || e.Message != "The sandbox was not found" || e.Code != 502 {
		t.Fatalf("edge body %s", data)
	}
}

func TestConnectOnlyExtendsAndMaxLifetime(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{MaxLifetime: 2 * time.Hour})
	sb := c.Create(map[string]any{"timeout": 600})
	before := c.Detail(sb.SandboxID).EndAt
	st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 10})
	emulatortest.WantStatus(t, "connect shorter", st, data, http.StatusOK)
	if got := c.Detail(sb.SandboxID).EndAt; !got.Equal(before) {
		t.Fatalf("connect with a shorter timeout moved endAt from %s to %s", before, got)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 1200})
	emulatortest.WantStatus(t, "connect longer", st, data, http.StatusOK)
	if got := c.Detail(sb.SandboxID).EndAt; !got.After(before) {
		t.Fatalf("connect with a longer timeout kept endAt %s", got)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/refreshes", map[string]any{"duration": 1})
	emulatortest.WantStatus(t, "refresh", st, data, http.StatusNoContent)
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/timeout", map[string]any{"timeout": 30})
	emulatortest.WantStatus(t, "set timeout shorter", st, data, http.StatusNoContent)
	d := c.Detail(sb.SandboxID)
	if got := time.Until(d.EndAt); got > 31*time.Second {
		t.Fatalf("set timeout 30 s left %s", got)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/timeout", map[string]any{"timeout": 3 * 3600})
	emulatortest.WantStatus(t, "set timeout beyond max", st, data, http.StatusNoContent)
	d = c.Detail(sb.SandboxID)
	if limit := d.StartedAt.Add(2 * time.Hour); d.EndAt.After(limit) {
		t.Fatalf("endAt %s beyond max lifetime %s", d.EndAt, limit)
	}
	st, data, _ = c.API("POST", "/sandboxes", map[string]any{"templateID": "base", "timeout": 3 * 3600})
	if st != 400 || !strings.Contains(string(data), "Timeout cannot be greater than 2 hours") {
		t.Fatalf("create beyond max: %d %s", st, data)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/resume", map[string]any{"timeout": 10})
	emulatortest.WantStatus(t, "resume running", st, data, http.StatusConflict)
}

func TestExpiry(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	killed := c.Create(map[string]any{"timeout": 1})
	paused := c.Create(map[string]any{"timeout": 1, "autoPause": true})
	expireNow := c.Create(map[string]any{"timeout": 600})
	expirePause := c.Create(map[string]any{"timeout": 600, "autoPause": true})
	if err := c.Srv.Expire(expireNow.SandboxID); err != nil {
		t.Fatal(err)
	}
	if err := c.Srv.Expire(expirePause.SandboxID); err != nil {
		t.Fatal(err)
	}
	st, data, _ := c.Request("POST", c.Srv.APIURL()+"/_emulator/sandboxes/"+expireNow.SandboxID+"/expire", nil, emulatortest.JSONHeader)
	emulatortest.WantStatus(t, "admin expire of a gone sandbox", st, data, http.StatusNotFound)
	gone := func(id string) func() bool {
		return func() bool { st, _, _ := c.API("GET", "/sandboxes/"+id, nil); return st == http.StatusNotFound }
	}
	isPaused := func(id string) func() bool {
		return func() bool {
			st, data, _ := c.API("GET", "/sandboxes/"+id, nil)
			return st == 200 && strings.Contains(string(data), `"state":"paused"`)
		}
	}
	emulatortest.Eventually(t, "1 s sandbox killed", gone(killed.SandboxID))
	emulatortest.Eventually(t, "1 s autoPause sandbox paused", isPaused(paused.SandboxID))
	emulatortest.Eventually(t, "expired sandbox killed", gone(expireNow.SandboxID))
	emulatortest.Eventually(t, "expired autoPause sandbox paused", isPaused(expirePause.SandboxID))
	if d := c.Detail(paused.SandboxID); d.Lifecycle.OnTimeout != "pause" {
		t.Fatalf("lifecycle %+v", d.Lifecycle)
	}
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/health", nil, emulatortest.EnvdHeaders(killed))
	emulatortest.WantStatus(t, "envd of expired", st, data, http.StatusBadGateway)
	st, data, _ = c.API("POST", "/sandboxes/"+paused.SandboxID+"/connect", map[string]any{"timeout": 30})
	emulatortest.WantStatus(t, "resume auto-paused", st, data, http.StatusCreated)
	if got := c.Srv.SandboxIDs(); len(got) != 2 {
		t.Fatalf("alive sandboxes %v, want the two paused ones", got)
	}
}

func TestSeparateEnvdListenerTokensAndAutoResume(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{EnvdAddr: "127.0.0.1:0"})
	if c.Srv.SandboxURL() == c.Srv.APIURL() {
		t.Fatal("EnvdAddr did not start a second listener")
	}
	st, data, _ := c.API("POST", "/sandboxes", map[string]any{"templateID": "base", "secure": true, "network": map[string]any{"allowPublicTraffic": false}})
	emulatortest.WantStatus(t, "create private", st, data, http.StatusCreated)
	created := emulatortest.Decode[controlplane.SandboxJSON](t, data)
	if created.TrafficAccessToken == nil || *created.TrafficAccessToken == "" || created.EnvdAccessToken == "" {
		t.Fatalf("tokens missing: %s", data)
	}
	sb := emulatortest.Sandbox{SandboxID: created.SandboxID, EnvdAccessToken: created.EnvdAccessToken}
	if out := c.MustRun(sb, "echo via-envd-listener"); out != "via-envd-listener\n" {
		t.Fatalf("command on envd listener: %q", out)
	}
	// The envd-only listener serves no control plane.
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/sandboxes/"+sb.SandboxID, nil, map[string]string{emulatortest.HeaderAPIKey: c.Srv.APIKey()})
	if st == http.StatusOK {
		t.Fatalf("control plane answered on the envd listener: %s", data)
	}
	// A paused sandbox with autoResume resumes on envd traffic.
	ar := c.Create(map[string]any{"autoPause": true, "autoResume": map[string]any{"enabled": true}})
	st, data, _ = c.API("POST", "/sandboxes/"+ar.SandboxID+"/pause", nil)
	emulatortest.WantStatus(t, "pause", st, data, http.StatusNoContent)
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/health", nil, emulatortest.EnvdHeaders(ar))
	emulatortest.WantStatus(t, "health resumes", st, data, http.StatusNoContent)
	if d := c.Detail(ar.SandboxID); d.State != sandboxes.Running || !d.Lifecycle.AutoResume {
		t.Fatalf("after auto-resume %+v", d)
	}
	// A paused sandbox without autoResume stays paused: 502.
	plain := c.Create(map[string]any{})
	c.API("POST", "/sandboxes/"+plain.SandboxID+"/pause", nil)
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/health", nil, emulatortest.EnvdHeaders(plain))
	emulatortest.WantStatus(t, "health paused", st, data, http.StatusBadGateway)
	// Other sandbox ports are closed.
	h := emulatortest.EnvdHeaders(plain)
	h[emulatortest.HeaderSandboxPort] = "8080"
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/", nil, h)
	emulatortest.WantStatus(t, "other port", st, data, http.StatusBadGateway)
}

func TestPauseWithoutMemoryLosesProcessesKeepsFiles(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	for _, how := range []string{"pause memory=false", "autoPauseMemory=false"} {
		body := map[string]any{}
		if how == "autoPauseMemory=false" {
			body = map[string]any{"autoPause": true, "autoPauseMemory": false}
		}
		sb := c.Create(body)
		c.MustRun(sb, "echo kept > ~/f")
		c.StartProcess(sb, "sleep 300", nil, nil)
		if how == "pause memory=false" {
			st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/pause", map[string]any{"memory": false})
			emulatortest.WantStatus(t, how, st, data, http.StatusNoContent)
		} else if err := c.Srv.Expire(sb.SandboxID); err != nil {
			t.Fatal(err)
		}
		st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 60})
		emulatortest.WantStatus(t, how+": connect", st, data, http.StatusCreated)
		emulatortest.Eventually(t, how+": processes gone", func() bool {
			st, data := c.RPC(sb, "process.Process/List", map[string]any{})
			return st == 200 && !strings.Contains(string(data), "sleep 300")
		})
		if out := c.MustRun(sb, "cat ~/f"); out != "kept\n" {
			t.Fatalf("%s: file %q", how, out)
		}
	}
}

func TestCommandDeadlineStopsWhilePaused(t *testing.T) {
	c, sb, ps := readyProcess(t, map[string]any{}, "echo ready; exec sleep 60", map[string]string{"Connect-Timeout-Ms": "1500"})
	host := c.HostPID(sb, ps.PID)
	st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/pause", nil)
	emulatortest.WantStatus(t, "pause", st, data, http.StatusNoContent)
	time.Sleep(2500 * time.Millisecond) // longer than the command's deadline
	if s := emulatortest.ProcState(host); s != "T" {
		t.Fatalf("process state %q during pause; the deadline must not run while paused", s)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 60})
	emulatortest.WantStatus(t, "connect", st, data, http.StatusCreated)
	emulatortest.Eventually(t, "deadline kills after resume", func() bool { s := emulatortest.ProcState(host); return s == "" || s == "Z" })
}
