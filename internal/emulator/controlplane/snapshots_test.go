package controlplane_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/controlplane"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
)

func TestSnapshotsAndFork(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	src := c.Create(map[string]any{"envVars": map[string]string{"A": "1"}})
	c.MustRun(src, `echo kept > ~/state.txt`)
	st, data, _ := c.API("POST", "/sandboxes/"+src.SandboxID+"/snapshots", map[string]any{"name": "snap1"})
	emulatortest.WantStatus(t, "named snapshot", st, data, http.StatusCreated)
	named := emulatortest.Decode[controlplane.SnapshotInfoJSON](t, data)
	// E2B's names carry no tag; the snapshot ID does.
	if named.SnapshotID != store.TeamNamespace+"/snap1:default" || len(named.Names) != 1 || named.Names[0] != store.TeamNamespace+"/snap1" {
		t.Fatalf("named snapshot %+v", named)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+src.SandboxID+"/snapshots", map[string]any{})
	emulatortest.WantStatus(t, "unnamed snapshot", st, data, http.StatusCreated)
	unnamed := emulatortest.Decode[controlplane.SnapshotInfoJSON](t, data)
	if !strings.HasSuffix(unnamed.SnapshotID, ":default") || len(unnamed.Names) != 0 {
		t.Fatalf("unnamed snapshot %+v", unnamed)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+src.SandboxID+"/snapshots", map[string]any{"name": "Bad Name"})
	emulatortest.WantStatus(t, "bad name", st, data, http.StatusBadRequest)

	// List by sandbox, paged, and by name.
	var all []controlplane.SnapshotInfoJSON
	c.Pages("list snapshots", "/snapshots?limit=1&sandboxID="+src.SandboxID, 5, func(data []byte) {
		all = append(all, emulatortest.Decode[[]controlplane.SnapshotInfoJSON](t, data)...)
	})
	if len(all) != 2 {
		t.Fatalf("listed %+v", all)
	}
	st, data, _ = c.API("GET", "/snapshots?name=snap1", nil)
	if st != 200 || !strings.Contains(string(data), named.SnapshotID) || strings.Contains(string(data), unnamed.SnapshotID) {
		t.Fatalf("list by name: %d %s", st, data)
	}

	// Files written later in the source are not in the snapshot.
	c.MustRun(src, `echo later > ~/later.txt`)
	for _, ref := range []string{"snap1", named.SnapshotID, unnamed.SnapshotID} {
		sb := c.Create(map[string]any{"templateID": ref})
		if out := c.MustRun(sb, `cat ~/state.txt; ls ~`); out != "kept\nstate.txt\n" {
			t.Fatalf("sandbox from %s sees %q", ref, out)
		}
		st, data, _ := c.API("DELETE", "/templates/"+url.PathEscape(ref), nil)
		if st != 400 || !strings.Contains(string(data), "running sandboxes") {
			t.Fatalf("delete used snapshot %s: %d %s", ref, st, data)
		}
		st, data, _ = c.API("DELETE", "/sandboxes/"+sb.SandboxID, nil)
		emulatortest.WantStatus(t, "kill", st, data, http.StatusNoContent)
	}
	st, data, _ = c.API("DELETE", "/templates/"+url.PathEscape(named.SnapshotID), nil)
	emulatortest.WantStatus(t, "delete snapshot", st, data, http.StatusNoContent)
	st, data, _ = c.API("DELETE", "/templates/"+url.PathEscape(named.SnapshotID), nil)
	emulatortest.WantStatus(t, "delete snapshot again", st, data, http.StatusNotFound)
	st, data, _ = c.API("POST", "/sandboxes", map[string]any{"templateID": "snap1"})
	emulatortest.WantStatus(t, "create from deleted snapshot", st, data, http.StatusNotFound)

	// Fork copies files into new sandboxes with their own IDs.
	st, data, _ = c.API("POST", "/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 2, "timeout": 60})
	emulatortest.WantStatus(t, "fork", st, data, http.StatusCreated)
	forks := emulatortest.Decode[[]controlplane.SandboxForkResultJSON](t, data)
	if len(forks) != 2 || forks[0].Sandbox == nil || forks[0].Sandbox.SandboxID == src.SandboxID {
		t.Fatalf("forks %s", data)
	}
	f := emulatortest.Sandbox{SandboxID: forks[1].Sandbox.SandboxID}
	if out := c.MustRun(f, `cat ~/later.txt; echo $A`); out != "later\n1\n" {
		t.Fatalf("fork sees %q", out)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+src.SandboxID+"/fork", map[string]any{"count": 101})
	emulatortest.WantStatus(t, "fork too many", st, data, http.StatusBadRequest)
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	c.Srv.SeedTemplate(emulator.TemplateSeed{TemplateID: "tpl1", Names: []string{"first"}, Builds: 5})
	st, data, _ := c.Request("POST", c.Srv.APIURL()+"/_emulator/templates", map[string]any{"templateID": "tpl2", "names": []string{"second"}, "builds": 1}, nil)
	emulatortest.WantStatus(t, "admin seed", st, data, http.StatusCreated)

	var listed []controlplane.TemplateJSON
	c.Pages("list templates", "/v2/templates?limit=1", 5, func(data []byte) {
		listed = append(listed, emulatortest.Decode[[]controlplane.TemplateJSON](t, data)...)
	})
	if len(listed) != 2 || listed[0].TemplateID != "tpl1" || listed[0].BuildCount != 5 || listed[0].Public {
		t.Fatalf("listed templates %+v (base must not be listed)", listed)
	}
	var builds []controlplane.TemplateBuildJSON
	c.Pages("get template", "/templates/first?limit=2", 10, func(data []byte) {
		tw := emulatortest.Decode[controlplane.TemplateWithBuildsJSON](t, data)
		if tw.TemplateID != "tpl1" || tw.Names[0] != "first" {
			t.Fatalf("template %+v", tw)
		}
		builds = append(builds, tw.Builds...)
	})
	if len(builds) != 5 || !builds[0].CreatedAt.After(builds[4].CreatedAt) {
		t.Fatalf("builds %+v", builds)
	}
	st, data, _ = c.API("GET", "/templates/aliases/first", nil)
	if st != 200 || !strings.Contains(string(data), `"templateID":"tpl1"`) {
		t.Fatalf("alias: %d %s", st, data)
	}
	st, data, _ = c.API("GET", "/templates/aliases/base", nil)
	if st != 200 || !strings.Contains(string(data), `"public":true`) {
		t.Fatalf("base alias: %d %s", st, data)
	}
	st, data, _ = c.API("GET", "/templates/aliases/nope", nil)
	emulatortest.WantStatus(t, "unknown alias", st, data, http.StatusNotFound)
	st, data, _ = c.API("GET", "/templates/nope", nil)
	emulatortest.WantStatus(t, "unknown template", st, data, http.StatusNotFound)
	sb := c.Create(map[string]any{"templateID": "first:default"})
	if d := c.Detail(sb.SandboxID); d.TemplateID != "tpl1" || d.Alias != "first" {
		t.Fatalf("sandbox from seeded template %+v", d)
	}
	st, data, _ = c.API("GET", "/v2/templates", nil)
	emulatortest.WantStatus(t, "list templates", st, data, http.StatusOK)
	if l := emulatortest.Decode[[]controlplane.TemplateJSON](t, data); l[0].SpawnCount != 1 || l[0].LastSpawnedAt == nil {
		t.Fatalf("spawn figures %+v", l[0])
	}
}

func TestMetricsAndLogs(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	c.MustRun(sb, "head -c 4096 /dev/zero > ~/blob; echo hi")
	st, data, _ := c.API("GET", "/sandboxes/"+sb.SandboxID+"/metrics", nil)
	emulatortest.WantStatus(t, "metrics", st, data, http.StatusOK)
	ms := emulatortest.Decode[[]controlplane.SandboxMetricJSON](t, data)
	if len(ms) == 0 || ms[0].CPUCount != 2 || ms[0].MemTotal != int64(store.DefaultMemoryMB)<<20 || ms[0].DiskTotal <= 0 || ms[0].TimestampUnix == 0 {
		t.Fatalf("metrics %s", data)
	}
	future := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	st, data, _ = c.API("GET", "/sandboxes/"+sb.SandboxID+"/metrics?start="+future+"&end="+future, nil)
	if st != 200 || string(data) != "[]\n" {
		t.Fatalf("metrics in the future: %d %s", st, data)
	}
	// envd /metrics takes a fresh sample that sees the 4 KiB file.
	c.Request("GET", c.Srv.SandboxURL()+"/metrics", nil, emulatortest.EnvdHeaders(sb))
	st, data, _ = c.API("GET", "/sandboxes/metrics?sandbox_ids="+sb.SandboxID+",iunknown", nil)
	emulatortest.WantStatus(t, "many metrics", st, data, http.StatusOK)
	many := emulatortest.Decode[map[string]map[string]controlplane.SandboxMetricJSON](t, data)
	if m, ok := many["sandboxes"][sb.SandboxID]; !ok || m.DiskUsed < 4096 {
		t.Fatalf("many metrics %s", data)
	}

	st, data, _ = c.API("GET", "/v2/sandboxes/"+sb.SandboxID+"/logs", nil)
	emulatortest.WantStatus(t, "logs v2", st, data, http.StatusOK)
	logs := emulatortest.Decode[map[string][]controlplane.SandboxLogEntryJSON](t, data)["logs"]
	if len(logs) < 3 || logs[0].Message != "Process exited" || logs[len(logs)-1].Message != "Sandbox created" {
		t.Fatalf("backward logs %+v", logs)
	}
	first := logs[len(logs)-1].Timestamp.UnixMilli()
	st, data, _ = c.API("GET", "/v2/sandboxes/"+sb.SandboxID+"/logs?direction=forward&limit=1&cursor="+strconv.FormatInt(first, 10), nil)
	emulatortest.WantStatus(t, "logs forward", st, data, http.StatusOK)
	if l := emulatortest.Decode[map[string][]controlplane.SandboxLogEntryJSON](t, data)["logs"]; len(l) != 1 || l[0].Message != "Sandbox created" {
		t.Fatalf("forward page %+v", l)
	}
	st, data, _ = c.API("GET", "/v2/sandboxes/"+sb.SandboxID+"/logs?search=started&level=info", nil)
	if l := emulatortest.Decode[map[string][]controlplane.SandboxLogEntryJSON](t, data)["logs"]; st != 200 || len(l) != 1 || l[0].Fields["pid"] == "" {
		t.Fatalf("search logs %d %s", st, data)
	}
	st, data, _ = c.API("GET", "/v2/sandboxes/"+sb.SandboxID+"/logs?level=error", nil)
	if st != 200 || string(data) != `{"logs":[]}`+"\n" {
		t.Fatalf("error-level logs %d %s", st, data)
	}
	st, data, _ = c.API("GET", "/sandboxes/"+sb.SandboxID+"/logs", nil)
	if st != 200 || !strings.Contains(string(data), `"logEntries":[`) || !strings.Contains(string(data), `"line":"{`) {
		t.Fatalf("legacy logs %d %s", st, data)
	}
}
