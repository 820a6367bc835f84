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
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/envd"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxos"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/store"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/spectest"
)

// TestTemplateBuildRunsSteps builds a template from steps and a file context
// through spec-validated traffic, then runs a sandbox from "name:tag".
func TestTemplateBuildRunsSteps(t *testing.T) {
	t.Parallel()
	v := spectest.New(t)
	c := emulatortest.Start(t, emulator.Options{ReadyTimeout: 20 * time.Second})
	c.HC = &http.Client{Transport: v.Wrap(nil), Timeout: 60 * time.Second}
	c.Streams = &http.Client{Transport: v.Wrap(nil)}

	b := c.RequestBuild(map[string]any{"name": "steps-tpl:v1", "cpuCount": 2, "memoryMB": 1024})
	if len(b.Names) != 1 || b.Names[0] != store.TeamNamespace+"/steps-tpl" || len(b.Tags) != 1 || b.Tags[0] != "v1" {
		t.Fatalf("requested %+v", b)
	}
	archive := emulatortest.ContextArchive(t, map[string]string{
		"app/":          "",
		"app/main.txt":  "main\n",
		"app/link":      "->main.txt",
		"app/sub/x.txt": "x\n",
		"one.txt":       "one\n",
	})
	c.UploadContext(b.TemplateID, "hashapp", archive)
	c.UploadContext(b.TemplateID, "hashone", emulatortest.ContextArchive(t, map[string]string{"one.txt": "one\n"}))
	st, data, _ := c.API("GET", "/templates/"+b.TemplateID+"/files/hashapp", nil)
	if st != http.StatusCreated || !emulatortest.Decode[controlplane.TemplateBuildFileUploadJSON](t, data).Present {
		t.Fatalf("files link after upload: %d %s", st, data)
	}
	steps := []map[string]any{
		{"type": "ENV", "args": []string{"GREETING", "hello", "P", "$PATH:/extra"}},
		{"type": "WORKDIR", "args": []string{"/home/user/work"}},
		{"type": "COPY", "args": []string{"app", "dest/", "", ""}, "filesHash": "hashapp"},
		{"type": "COPY", "args": []string{"one.txt", "renamed.txt", "", "0600"}, "filesHash": "hashone"},
		{"type": "RUN", "args": []string{`echo "$GREETING from $(pwd)" > out.txt; echo to-stderr >&2`}},
		{"type": "USER", "args": []string{"root"}},
		{"type": "RUN", "args": []string{`echo "$USER" > who.txt`}},
		{"type": "RUN", "args": []string{`echo "as $USER" > who-user.txt`, "user"}},
	}
	c.StartBuild(b, map[string]any{"fromTemplate": "base", "steps": steps,
		"startCmd": "echo started > started.txt; sleep 600", "readyCmd": "test -f started.txt"})
	st, data, _ = c.API("POST", "/v2/templates/"+b.TemplateID+"/builds/"+b.BuildID, map[string]any{"fromTemplate": "base"})
	emulatortest.WantStatus(t, "start twice", st, data, http.StatusBadRequest)
	res := c.WaitBuild(b)
	logs := emulatortest.LogText(res.LogEntries)
	if res.Status != store.BuildReady {
		t.Fatalf("build %s: %+v\n%s", res.Status, res.Reason, logs)
	}
	for _, want := range []string{"[builder 5/8] RUN", "error 5 to-stderr", "[base] FROM TEMPLATE base", "Running start command: echo started"} {
		if !strings.Contains(logs, want) {
			t.Fatalf("logs lack %q:\n%s", want, logs)
		}
	}
	// logs with a cursor: forward from the first entry, and backward.
	st, data, _ = c.API("GET", "/templates/"+b.TemplateID+"/builds/"+b.BuildID+"/logs?limit=3&direction=forward&cursor="+strconv.FormatInt(res.LogEntries[0].Timestamp.UnixMilli(), 10), nil)
	emulatortest.WantStatus(t, "logs", st, data, http.StatusOK)
	if got := emulatortest.Decode[map[string][]store.BuildLogEntry](t, data)["logs"]; len(got) != 3 || got[0].Message != res.LogEntries[0].Message {
		t.Fatalf("forward logs %s", data)
	}
	st, data, _ = c.API("GET", "/templates/"+b.TemplateID+"/builds/"+b.BuildID+"/logs?limit=1&direction=backward&level=info", nil)
	emulatortest.WantStatus(t, "logs backward", st, data, http.StatusOK)
	if got := emulatortest.Decode[map[string][]store.BuildLogEntry](t, data)["logs"]; len(got) != 1 || !strings.HasPrefix(got[0].Message, "Build finished") {
		t.Fatalf("backward logs %s", data)
	}

	sb := c.Create(map[string]any{"templateID": "steps-tpl:v1"})
	if sb.TemplateID != b.TemplateID {
		t.Fatalf("sandbox template %s, want %s", sb.TemplateID, b.TemplateID)
	}
	got := c.MustRun(sb, `pwd; cat out.txt who.txt who-user.txt renamed.txt dest/main.txt dest/sub/x.txt; readlink dest/link; stat -c %a renamed.txt; echo "$GREETING $P"; cat started.txt`)
	want := "/home/user/work\nhello from /home/user/work\nroot\nas user\none\nmain\nx\nmain.txt\n600\nhello " + sandboxos.DefaultPath + ":/extra\nstarted\n"
	if !c.Srv.Isolated() {
		got = strings.ReplaceAll(got, emulatortest.HomeDir(c.Machine(sb.SandboxID)), envd.VirtualHome)
	}
	if got != want {
		t.Fatalf("sandbox sees\n%s\nwant\n%s", got, want)
	}
	st, data = c.RPC(sb, "process.Process/List", map[string]any{})
	if st != http.StatusOK || !strings.Contains(string(data), "sleep 600") {
		t.Fatalf("start command not running in the sandbox: %d %s", st, data)
	}
	// The template shows the build; the default tag was not given, so only v1 resolves.
	st, data, _ = c.API("POST", "/sandboxes", map[string]any{"templateID": "steps-tpl", "timeout": 60})
	emulatortest.WantStatus(t, "create from untagged default", st, data, http.StatusNotFound)
	st, data, _ = c.API("GET", "/templates/"+b.TemplateID, nil)
	emulatortest.WantStatus(t, "get template", st, data, http.StatusOK)
	if tw := emulatortest.Decode[controlplane.TemplateWithBuildsJSON](t, data); len(tw.Builds) != 1 || tw.Builds[0].Status != store.BuildReady || tw.Builds[0].MemoryMB != 1024 {
		t.Fatalf("template %s", data)
	}
	v.AssertClean(t)
}

// TestTemplateBuildFailsWithReason fails a RUN step and checks E2B's reason.
func TestTemplateBuildFailsWithReason(t *testing.T) {
	t.Parallel()
	v := spectest.New(t)
	c := emulatortest.Start(t, emulator.Options{HostRootImages: []string{"ubuntu:22.04"}})
	c.HC = &http.Client{Transport: v.Wrap(nil), Timeout: 60 * time.Second}
	b := c.RequestBuild(map[string]any{"name": "fails"})
	c.StartBuild(b, map[string]any{"fromImage": "ubuntu:22.04", "steps": []map[string]any{
		{"type": "RUN", "args": []string{"true"}},
		{"type": "RUN", "args": []string{"echo partial; echo boom >&2; exit 3"}},
		{"type": "RUN", "args": []string{"echo never"}},
	}})
	res := c.WaitBuild(b)
	if res.Status != store.BuildError || res.Reason == nil || res.Reason.Step == nil || *res.Reason.Step != "2" ||
		!strings.Contains(res.Reason.Message, "exit status 3") {
		t.Fatalf("status %s reason %+v", res.Status, res.Reason)
	}
	st, data, _ := c.API("GET", "/templates/"+b.TemplateID+"/builds/"+b.BuildID+"/status", nil)
	emulatortest.WantStatus(t, "status", st, data, http.StatusOK)
	reason := emulatortest.Decode[emulatortest.BuildStatus](t, data).Reason
	if !strings.Contains(emulatortest.LogText(reason.LogEntries), "boom") || strings.Contains(emulatortest.LogText(reason.LogEntries), "partial") {
		t.Fatalf("reason entries %+v", reason.LogEntries)
	}
	logs := emulatortest.LogText(res.LogEntries)
	if strings.Contains(logs, "never") || !strings.Contains(logs, "image 'ubuntu:22.04' is not in the emulator's image store (the emulator runs without -image-store); building on the host's root filesystem instead") {
		t.Fatalf("logs:\n%s", logs)
	}
	st, data, _ = c.API("POST", "/sandboxes", map[string]any{"templateID": "fails", "timeout": 60})
	emulatortest.WantStatus(t, "create from failed template", st, data, http.StatusNotFound)
	v.AssertClean(t)
}

// TestTemplateStepCacheAndForce rebuilds: unchanged steps are cached, a
// forced step and the whole build with force run again.
func TestTemplateStepCacheAndForce(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	steps := []map[string]any{
		{"type": "RUN", "args": []string{"date +%s%N > stamp"}},
		{"type": "RUN", "args": []string{"cat stamp > copy"}},
	}
	build := func(body map[string]any) (emulatortest.BuildStatus, emulatortest.Sandbox) {
		b := c.RequestBuild(map[string]any{"name": "cached"})
		body["fromTemplate"] = "base"
		c.StartBuild(b, body)
		res := c.WaitBuild(b)
		if res.Status != store.BuildReady {
			t.Fatalf("build: %+v\n%s", res.Reason, emulatortest.LogText(res.LogEntries))
		}
		return res, c.Create(map[string]any{"templateID": "cached"})
	}
	_, sb1 := build(map[string]any{"steps": steps})
	res, sb2 := build(map[string]any{"steps": steps})
	if n := strings.Count(emulatortest.LogText(res.LogEntries), "CACHED [builder"); n != 2 {
		t.Fatalf("%d cached steps:\n%s", n, emulatortest.LogText(res.LogEntries))
	}
	first := c.MustRun(sb1, "cat stamp")
	if got := c.MustRun(sb2, "cat stamp copy"); got != first+first {
		t.Fatalf("cached build sees %q, first build %q", got, first)
	}
	forced := []map[string]any{steps[0], {"type": "RUN", "args": steps[1]["args"], "force": true}}
	res, _ = build(map[string]any{"steps": forced})
	if logs := emulatortest.LogText(res.LogEntries); !strings.Contains(logs, "CACHED [builder 1/2]") || strings.Contains(logs, "CACHED [builder 2/2]") {
		t.Fatalf("forced step logs:\n%s", logs)
	}
	res, sb4 := build(map[string]any{"steps": steps, "force": true})
	if logs := emulatortest.LogText(res.LogEntries); strings.Contains(logs, "CACHED") {
		t.Fatalf("forced build logs:\n%s", logs)
	}
	if got := c.MustRun(sb4, "cat stamp"); got == first {
		t.Fatal("forced build reused the first stamp")
	}
}

// TestTemplateTagsAndNames covers tags, aliases, names and the public flag.
func TestTemplateTagsAndNames(t *testing.T) {
	t.Parallel()
	v := spectest.New(t)
	c := emulatortest.Start(t, emulator.Options{})
	c.HC = &http.Client{Transport: v.Wrap(nil), Timeout: 60 * time.Second}
	b1 := c.RequestBuild(map[string]any{"name": "tagged"})
	c.StartBuild(b1, map[string]any{"fromTemplate": "base", "steps": []map[string]any{{"type": "RUN", "args": []string{"echo one > v"}}}})
	if res := c.WaitBuild(b1); res.Status != store.BuildReady {
		t.Fatalf("build 1 %+v", res.Reason)
	}
	b2 := c.RequestBuild(map[string]any{"name": store.TeamNamespace + "/tagged", "tags": []string{"next"}})
	if b2.TemplateID != b1.TemplateID {
		t.Fatalf("same name gave template %s and %s", b1.TemplateID, b2.TemplateID)
	}
	c.StartBuild(b2, map[string]any{"fromTemplate": "tagged", "steps": []map[string]any{{"type": "RUN", "args": []string{"echo two > v"}}}})
	if res := c.WaitBuild(b2); res.Status != store.BuildReady {
		t.Fatalf("build 2 %+v", res.Reason)
	}
	st, data, _ := c.API("POST", "/templates/tags", map[string]any{"target": "tagged:next", "tags": []string{"prod", "Stable"}})
	emulatortest.WantStatus(t, "assign", st, data, http.StatusCreated)
	if a := emulatortest.Decode[map[string]any](t, data); a["buildID"] != b2.BuildID {
		t.Fatalf("assigned %s", data)
	}
	for ref, want := range map[string]string{"tagged": "one", "tagged:default": "one", "tagged:prod": "two",
		store.TeamNamespace + "/tagged:stable": "two", "tagged:" + b1.BuildID: "one", b1.TemplateID + ":next": "two"} {
		sb := c.Create(map[string]any{"templateID": ref})
		if got := c.MustRun(sb, "cat v"); got != want+"\n" {
			t.Fatalf("%s sees %q, want %q", ref, got, want)
		}
	}
	st, data, _ = c.API("GET", "/templates/tagged/tags", nil)
	emulatortest.WantStatus(t, "list tags", st, data, http.StatusOK)
	tags := map[string]string{}
	for _, tg := range emulatortest.Decode[[]controlplane.TemplateTagJSON](t, data) {
		tags[tg.Tag] = tg.BuildID
	}
	if len(tags) != 4 || tags["default"] != b1.BuildID || tags["prod"] != b2.BuildID || tags["next"] != b2.BuildID {
		t.Fatalf("tags %s", data)
	}
	for _, tc := range []struct {
		method, path string
		body         any
		want         int
		msg          string
	}{
		{"DELETE", "/templates/tags", map[string]any{"name": "tagged", "tags": []string{"default"}}, 400, "Cannot delete the 'default' tag"},
		{"DELETE", "/templates/tags", map[string]any{"name": "tagged:prod", "tags": []string{"prod"}}, 400, "should not contain a tag"},
		{"DELETE", "/templates/tags", map[string]any{"name": "other-team/tagged", "tags": []string{"prod"}}, 400, "must match your team"},
		{"DELETE", "/templates/tags", map[string]any{"name": "tagged", "tags": []string{"prod"}}, 204, ""},
		{"POST", "/templates/tags", map[string]any{"target": "tagged:prod", "tags": []string{"x"}}, 404, "with tag 'prod' not found"},
		{"POST", "/templates/tags", map[string]any{"target": "nope", "tags": []string{"x"}}, 404, "not found"},
		{"POST", "/templates/tags", map[string]any{"target": "tagged", "tags": []string{}}, 400, "At least one tag"},
		{"POST", "/templates/tags", map[string]any{"target": "tagged", "tags": []string{"bad tag"}}, 400, "Invalid tag"},
		{"POST", "/templates/tags", map[string]any{"target": "base", "tags": []string{"mine"}}, 403, "access"},
		{"POST", "/v3/templates", map[string]any{"name": "Bad Name"}, 400, "Invalid template name"},
		{"POST", "/v3/templates", map[string]any{"name": "base"}, 409, "is already used"},
		{"POST", "/v3/templates", map[string]any{"name": "a_b.c-d"}, 400, "Invalid template name"},
		{"POST", "/v3/templates", map[string]any{"name": "limits", "cpuCount": 3}, 400, "1 or an even number"},
		{"POST", "/v3/templates", map[string]any{"name": "limits", "cpuCount": 34}, 400, "at most 32"},
		{"POST", "/v3/templates", map[string]any{"name": "limits", "memoryMB": 1025}, 400, "divisible by 2"},
		{"POST", "/v2/templates/" + b1.TemplateID + "/builds/not-a-uuid", map[string]any{}, 400, "Invalid build ID"},
		{"POST", "/v2/templates/" + b1.TemplateID + "/builds/" + b1.BuildID, map[string]any{"fromTemplate": "base"}, 400, "not in waiting state"},
		{"GET", "/templates/" + b1.TemplateID + "/builds/00000000-0000-4000-8000-000000000000/status", nil, 404, "not found"},
		{"GET", "/templates/nope/files/abc", nil, 404, "not found"},
		{"GET", "/templates/aliases/tagged", nil, 200, b1.TemplateID},
		{"GET", "/templates/aliases/nope", nil, 404, "not found"},
		{"PATCH", "/v2/templates/tagged", map[string]any{"public": true}, 200, store.TeamNamespace + "/tagged"},
		{"GET", "/templates/" + b1.TemplateID, nil, 200, `"public":true`},
		{"GET", "/v2/templates", nil, 200, b1.TemplateID},
	} {
		st, data, _ := c.API(tc.method, tc.path, tc.body)
		emulatortest.WantStatus(t, tc.method+" "+tc.path, st, data, tc.want)
		if !strings.Contains(string(data), tc.msg) {
			t.Fatalf("%s %s: %s lacks %q", tc.method, tc.path, data, tc.msg)
		}
	}
	st, data, _ = c.API("DELETE", "/templates/"+url.PathEscape("tagged"), nil)
	emulatortest.WantStatus(t, "delete with sandboxes", st, data, http.StatusBadRequest)
	v.AssertClean(t)
}

// TestTemplateStateSurvivesRestart stops an emulator mid-build and starts a
// new one on the same data directory: finished builds, tags and the step
// cache are there; the interrupted build is reported failed.
func TestTemplateStateSurvivesRestart(t *testing.T) {
	t.Parallel()
	c, restart := emulatortest.Restartable(t, t.TempDir())
	steps := []map[string]any{{"type": "RUN", "args": []string{"echo kept > /home/user/kept"}}}
	done := c.RequestBuild(map[string]any{"name": "kept", "tags": []string{"v1"}})
	c.StartBuild(done, map[string]any{"fromTemplate": "base", "steps": steps})
	if res := c.WaitBuild(done); res.Status != store.BuildReady {
		t.Fatalf("build %+v", res.Reason)
	}
	running := c.RequestBuild(map[string]any{"name": "interrupted"})
	c.StartBuild(running, map[string]any{"fromTemplate": "base", "steps": []map[string]any{{"type": "RUN", "args": []string{"sleep 60"}}}})

	c = restart()
	sb := c.Create(map[string]any{"templateID": "kept:v1"})
	if got := c.MustRun(sb, "cat /home/user/kept"); got != "kept\n" {
		t.Fatalf("restored build sees %q", got)
	}
	st, data, _ := c.API("GET", "/templates/"+running.TemplateID+"/builds/"+running.BuildID+"/status", nil)
	emulatortest.WantStatus(t, "interrupted status", st, data, http.StatusOK)
	if s := emulatortest.Decode[emulatortest.BuildStatus](t, data); s.Status != store.BuildError || s.Reason == nil {
		t.Fatalf("interrupted build %s", data)
	}
	again := c.RequestBuild(map[string]any{"name": "kept"})
	c.StartBuild(again, map[string]any{"fromTemplate": "base", "steps": steps})
	if res := c.WaitBuild(again); res.Status != store.BuildReady || !strings.Contains(emulatortest.LogText(res.LogEntries), "CACHED [builder 1/1]") {
		t.Fatalf("rebuild after restart: %+v\n%s", res.Reason, emulatortest.LogText(res.LogEntries))
	}
}

// TestTemplateReadyCommandBoundsTheBuild fails a build whose ready command
// never succeeds within the ready timeout.
func TestTemplateReadyCommandBoundsTheBuild(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{ReadyTimeout: time.Second})
	b := c.RequestBuild(map[string]any{"name": "never-ready"})
	c.StartBuild(b, map[string]any{"fromTemplate": "base", "startCmd": "sleep 600", "readyCmd": "test -f /nonexistent"})
	res := c.WaitBuild(b)
	if res.Status != store.BuildError || res.Reason == nil || res.Reason.Step == nil || *res.Reason.Step != "finalize" ||
		!strings.Contains(res.Reason.Message, "ready command") {
		t.Fatalf("status %s reason %+v", res.Status, res.Reason)
	}
}

// TestTemplateBuildsOfDifferentTemplatesOverlap starts two slow builds and
// sees both building at once.
func TestTemplateBuildsOfDifferentTemplatesOverlap(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	slow := []map[string]any{{"type": "RUN", "args": []string{"sleep 2"}}}
	a, b := c.RequestBuild(map[string]any{"name": "par-a"}), c.RequestBuild(map[string]any{"name": "par-b"})
	c.StartBuild(a, map[string]any{"fromTemplate": "base", "steps": slow})
	c.StartBuild(b, map[string]any{"fromTemplate": "base", "steps": slow})
	status := func(r emulatortest.RequestedBuild) string {
		_, data, _ := c.API("GET", "/templates/"+r.TemplateID+"/builds/"+r.BuildID+"/status?limit=0", nil)
		return emulatortest.Decode[emulatortest.BuildStatus](t, data).Status
	}
	emulatortest.Eventually(t, "both builds running their step", func() bool {
		n := 0
		for _, tp := range c.Srv.Store().Templates() {
			for _, bl := range tp.Builds {
				_, full, _ := c.Srv.Store().BuildByID(tp.ID, bl.ID)
				if full.Status == store.BuildBuilding && len(full.Logs) >= 3 { // started, base, the step line
					n++
				}
			}
		}
		return n == 2
	})
	if sa, sb := status(a), status(b); sa != store.BuildBuilding || sb != store.BuildBuilding {
		t.Fatalf("statuses %s %s", sa, sb)
	}
	if sa, sb := c.WaitBuild(a), c.WaitBuild(b); sa.Status != store.BuildReady || sb.Status != store.BuildReady {
		t.Fatalf("builds ended %s %s", sa.Status, sb.Status)
	}
}
