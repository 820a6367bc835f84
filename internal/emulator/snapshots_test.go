package emulator

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

func TestSnapshotsAndFork(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	src := c.create(map[string]any{"envVars": map[string]string{"A": "1"}})
	c.mustRun(src, `echo kept > ~/state.txt`)
	st, data, _ := c.api("POST", "/sandboxes/"+src.SandboxID+"/snapshots", map[string]any{"name": "snap1"})
	wantStatus(t, "named snapshot", st, data, http.StatusCreated)
	named := decode[controlplane.SnapshotInfoJSON](t, data)
	if named.SnapshotID != store.TeamNamespace+"/snap1:default" || len(named.Names) != 1 || named.Names[0] != named.SnapshotID {
		t.Fatalf("named snapshot %+v", named)
	}
	st, data, _ = c.api("POST", "/sandboxes/"+src.SandboxID+"/snapshots", map[string]any{})
	wantStatus(t, "unnamed snapshot", st, data, http.StatusCreated)
	unnamed := decode[controlplane.SnapshotInfoJSON](t, data)
	if !strings.HasSuffix(unnamed.SnapshotID, ":default") || len(unnamed.Names) != 0 {
		t.Fatalf("unnamed snapshot %+v", unnamed)
	}
	st, data, _ = c.api("POST", "/sandboxes/"+src.SandboxID+"/snapshots", map[string]any{"name": "Bad Name"})
	wantStatus(t, "bad name", st, data, http.StatusBadRequest)

	// List by sandbox, paged, and by name.
	var all []controlplane.SnapshotInfoJSON
	next := ""
	for page := 0; page < 5; page++ {
		path := "/snapshots?limit=1&sandboxID=" + src.SandboxID
		if next != "" {
			path += "&nextToken=" + url.QueryEscape(next)
		}
		st, data, hdr := c.api("GET", path, nil)
		wantStatus(t, "list snapshots", st, data, http.StatusOK)
		all = append(all, decode[[]controlplane.SnapshotInfoJSON](t, data)...)
		if next = hdr.Get("X-Next-Token"); next == "" {
			break
		}
	}
	if len(all) != 2 {
		t.Fatalf("listed %+v", all)
	}
	st, data, _ = c.api("GET", "/snapshots?name=snap1", nil)
	if st != 200 || !strings.Contains(string(data), named.SnapshotID) || strings.Contains(string(data), unnamed.SnapshotID) {
		t.Fatalf("list by name: %d %s", st, data)
	}

	// Files written later in the source are not in the snapshot.
	c.mustRun(src, `echo later > ~/later.txt`)
	for _, ref := range []string{"snap1", named.SnapshotID, unnamed.SnapshotID} {
		sb := c.create(map[string]any{"templateID": ref})
		if out := c.mustRun(sb, `cat ~/state.txt; ls ~`); out != "kept\nstate.txt\n" {
			t.Fatalf("sandbox from %s sees %q", ref, out)
		}
		st, data, _ := c.api("DELETE", "/templates/"+url.PathEscape(ref), nil)
		if st != 400 || !strings.Contains(string(data), "running sandboxes") {
			t.Fatalf("delete used snapshot %s: %d %s", ref, st, data)
		}
		st, data, _ = c.api("DELETE", "/sandboxes/"+sb.SandboxID, nil)
		wantStatus(t, "kill", st, data, http.StatusNoContent)
	}
	st, data, _ = c.api("DELETE", "/templates/"+url.PathEscape(named.SnapshotID), nil)
	wantStatus(t, "delete snapshot", st, data, http.StatusNoContent)
	st, data, _ = c.api("DELETE", "/templates/"+url.PathEscape(named.SnapshotID), nil)
	wantStatus(t, "delete snapshot again", st, data, http.StatusNotFound)
	st, data, _ = c.api("POST", "/sandboxes", map[string]any{"templateID": "snap1"})
	wantStatus(t, "create from deleted snapshot", st, data, http.StatusNotFound)

	// Fork copies files into new sandboxes with their own IDs.
	st, data, _ = c.api("POST", "/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 2, "timeout": 60})
	wantStatus(t, "fork", st, data, http.StatusCreated)
	forks := decode[[]controlplane.SandboxForkResultJSON](t, data)
	if len(forks) != 2 || forks[0].Sandbox == nil || forks[0].Sandbox.SandboxID == src.SandboxID {
		t.Fatalf("forks %s", data)
	}
	f := createdSandbox{SandboxID: forks[1].Sandbox.SandboxID}
	if out := c.mustRun(f, `cat ~/later.txt; echo $A`); out != "later\n1\n" {
		t.Fatalf("fork sees %q", out)
	}
	st, data, _ = c.api("POST", "/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 101})
	wantStatus(t, "fork too many", st, data, http.StatusBadRequest)
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	c.srv.SeedTemplate(TemplateSeed{TemplateID: "tpl1", Names: []string{"first"}, Builds: 5})
	st, data, _ := c.request("POST", c.srv.APIURL()+"/_emulator/templates", map[string]any{"templateID": "tpl2", "names": []string{"second"}, "builds": 1}, nil)
	wantStatus(t, "admin seed", st, data, http.StatusCreated)

	var listed []controlplane.TemplateJSON
	next := ""
	for page := 0; page < 5; page++ {
		path := "/v2/templates?limit=1"
		if next != "" {
			path += "&nextToken=" + url.QueryEscape(next)
		}
		st, data, hdr := c.api("GET", path, nil)
		wantStatus(t, "list templates", st, data, http.StatusOK)
		listed = append(listed, decode[[]controlplane.TemplateJSON](t, data)...)
		if next = hdr.Get("X-Next-Token"); next == "" {
			break
		}
	}
	if len(listed) != 2 || listed[0].TemplateID != "tpl1" || listed[0].BuildCount != 5 || listed[0].Public {
		t.Fatalf("listed templates %+v (base must not be listed)", listed)
	}
	var builds []controlplane.TemplateBuildJSON
	next = ""
	for page := 0; page < 10; page++ {
		path := "/templates/first?limit=2"
		if next != "" {
			path += "&nextToken=" + url.QueryEscape(next)
		}
		st, data, hdr := c.api("GET", path, nil)
		wantStatus(t, "get template", st, data, http.StatusOK)
		tw := decode[controlplane.TemplateWithBuildsJSON](t, data)
		if tw.TemplateID != "tpl1" || tw.Names[0] != "first" {
			t.Fatalf("template %+v", tw)
		}
		builds = append(builds, tw.Builds...)
		if next = hdr.Get("X-Next-Token"); next == "" {
			break
		}
	}
	if len(builds) != 5 || !builds[0].CreatedAt.After(builds[4].CreatedAt) {
		t.Fatalf("builds %+v", builds)
	}
	st, data, _ = c.api("GET", "/templates/aliases/first", nil)
	if st != 200 || !strings.Contains(string(data), `"templateID":"tpl1"`) {
		t.Fatalf("alias: %d %s", st, data)
	}
	st, data, _ = c.api("GET", "/templates/aliases/base", nil)
	if st != 200 || !strings.Contains(string(data), `"public":true`) {
		t.Fatalf("base alias: %d %s", st, data)
	}
	st, data, _ = c.api("GET", "/templates/aliases/nope", nil)
	wantStatus(t, "unknown alias", st, data, http.StatusNotFound)
	st, data, _ = c.api("GET", "/templates/nope", nil)
	wantStatus(t, "unknown template", st, data, http.StatusNotFound)
	sb := c.create(map[string]any{"templateID": "first:default"})
	if d := c.detail(sb.SandboxID); d.TemplateID != "tpl1" || d.Alias != "first" {
		t.Fatalf("sandbox from seeded template %+v", d)
	}
	st, data, _ = c.api("GET", "/v2/templates", nil)
	wantStatus(t, "list templates", st, data, http.StatusOK)
	if l := decode[[]controlplane.TemplateJSON](t, data); l[0].SpawnCount != 1 || l[0].LastSpawnedAt == nil {
		t.Fatalf("spawn figures %+v", l[0])
	}
}

func TestMetricsAndLogs(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	c.mustRun(sb, "head -c 4096 /dev/zero > ~/blob; echo hi")
	st, data, _ := c.api("GET", "/sandboxes/"+sb.SandboxID+"/metrics", nil)
	wantStatus(t, "metrics", st, data, http.StatusOK)
	ms := decode[[]controlplane.SandboxMetricJSON](t, data)
	if len(ms) == 0 || ms[0].CPUCount != 2 || ms[0].MemTotal != envd.MemTotalBytes || ms[0].DiskTotal <= 0 || ms[0].TimestampUnix == 0 {
		t.Fatalf("metrics %s", data)
	}
	future := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	st, data, _ = c.api("GET", "/sandboxes/"+sb.SandboxID+"/metrics?start="+future+"&end="+future, nil)
	if st != 200 || string(data) != "[]\n" {
		t.Fatalf("metrics in the future: %d %s", st, data)
	}
	// envd /metrics takes a fresh sample that sees the 4 KiB file.
	c.request("GET", c.srv.SandboxURL()+"/metrics", nil, envdHeaders(sb))
	st, data, _ = c.api("GET", "/sandboxes/metrics?sandbox_ids="+sb.SandboxID+",iunknown", nil)
	wantStatus(t, "many metrics", st, data, http.StatusOK)
	many := decode[map[string]map[string]controlplane.SandboxMetricJSON](t, data)
	if m, ok := many["sandboxes"][sb.SandboxID]; !ok || m.DiskUsed < 4096 {
		t.Fatalf("many metrics %s", data)
	}

	st, data, _ = c.api("GET", "/v2/sandboxes/"+sb.SandboxID+"/logs", nil)
	wantStatus(t, "logs v2", st, data, http.StatusOK)
	logs := decode[map[string][]controlplane.SandboxLogEntryJSON](t, data)["logs"]
	if len(logs) < 3 || logs[0].Message != "Process exited" || logs[len(logs)-1].Message != "Sandbox created" {
		t.Fatalf("backward logs %+v", logs)
	}
	first := logs[len(logs)-1].Timestamp.UnixMilli()
	st, data, _ = c.api("GET", "/v2/sandboxes/"+sb.SandboxID+"/logs?direction=forward&limit=1&cursor="+strconv.FormatInt(first, 10), nil)
	wantStatus(t, "logs forward", st, data, http.StatusOK)
	if l := decode[map[string][]controlplane.SandboxLogEntryJSON](t, data)["logs"]; len(l) != 1 || l[0].Message != "Sandbox created" {
		t.Fatalf("forward page %+v", l)
	}
	st, data, _ = c.api("GET", "/v2/sandboxes/"+sb.SandboxID+"/logs?search=started&level=info", nil)
	if l := decode[map[string][]controlplane.SandboxLogEntryJSON](t, data)["logs"]; st != 200 || len(l) != 1 || l[0].Fields["pid"] == "" {
		t.Fatalf("search logs %d %s", st, data)
	}
	st, data, _ = c.api("GET", "/v2/sandboxes/"+sb.SandboxID+"/logs?level=error", nil)
	if st != 200 || string(data) != `{"logs":[]}`+"\n" {
		t.Fatalf("error-level logs %d %s", st, data)
	}
	st, data, _ = c.api("GET", "/sandboxes/"+sb.SandboxID+"/logs", nil)
	if st != 200 || !strings.Contains(string(data), `"logEntries":[`) || !strings.Contains(string(data), `"line":"{`) {
		t.Fatalf("legacy logs %d %s", st, data)
	}
}
