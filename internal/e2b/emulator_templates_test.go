package e2b_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/buildcontext"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

func templateContext(t *testing.T) buildcontext.Context {
	return e2b.WriteTestContext(t, map[string]string{"app/hello.txt": "hello from the context\n", "app/sub/deep.txt": "deep\n", "unrelated.txt": "x\n"})
}

var followFast = e2b.BuildOptions{PollInterval: 20 * time.Millisecond, MaxPollInterval: 200 * time.Millisecond}

// TestEmulatorBuildTemplateEndToEnd builds a template from steps and a
// context, starts a sandbox from it, and checks what the sandbox sees; then
// rebuilds with the same context (no upload) and tags the first build.
func TestEmulatorBuildTemplateEndToEnd(t *testing.T) {
	// Storage that refuses an upload without the headers its link names.
	e := newEnvWith(t, emulator.Options{UploadHeaders: map[string]string{"x-ms-blob-type": "BlockBlob"}})
	tc := templateContext(t)
	spec := e2b.TemplateBuildSpec{
		Name: "client-e2e", FromTemplate: "base", Context: tc,
		Steps: []e2b.BuildStep{
			e2b.CopyStep("app", "/home/user/app", "", 0),
			e2b.EnvStep([2]string{"GREETING", "hi there"}),
			e2b.RunStep(`echo "$GREETING" > /home/user/greeting.txt`, ""),
			e2b.WorkdirStep("/home/user/app"),
		},
	}
	var logs []string
	opts := followFast
	opts.OnLog = func(l e2b.BuildLogEntry) { logs = append(logs, l.Message) }
	res, err := e.c.BuildTemplate(e.ctx, spec, opts)
	if err != nil {
		t.Fatalf("BuildTemplate: %v\nlogs:\n%s", err, strings.Join(logs, "\n"))
	}
	if res.Uploaded != 1 || res.Status.Status != e2b.BuildStatusReady || len(logs) == 0 {
		t.Fatalf("result %+v status %s, %d log lines", res, res.Status.Status, len(logs))
	}
	t.Cleanup(func() { _ = e.c.DeleteTemplate(e.ctx, res.TemplateID) })

	sb := e.create(t, e2b.CreateSandboxRequest{TemplateID: "client-e2e"})
	envd := e.c.Envd(e2b.EnvdTarget{SandboxID: sb.SandboxID, AccessToken: sb.EnvdAccessToken})
	out, err := envd.Exec(e.ctx, e2b.ExecRequest{Command: `pwd; cat app/hello.txt 2>/dev/null || cat hello.txt; cat /home/user/greeting.txt; echo "$GREETING"`})
	if err != nil {
		t.Fatalf("exec in the sandbox: %v", err)
	}
	got := out.Stdout
	for _, want := range []string{"/home/user/app", "hello from the context", "hi there"} {
		if !strings.Contains(got, want) {
			t.Errorf("sandbox output %q lacks %q", got, want)
		}
	}

	// The same build again: the files are there already, the template stays.
	res2, err := e.c.BuildTemplate(e.ctx, spec, followFast)
	if err != nil {
		t.Fatalf("second build: %v", err)
	}
	if res2.TemplateID != res.TemplateID || res2.BuildID == res.BuildID || res2.Uploaded != 0 || res2.Cached != 1 {
		t.Errorf("second build %+v, first %+v: want the same template, a new build, no upload", res2, res)
	}

	// Promote the first build with a tag, then remove the tag.
	name := res.Names[0]
	buildID, tags, err := e.c.AssignTemplateTags(e.ctx, name+":"+res.BuildID, []string{"prod"})
	if err != nil || buildID != res.BuildID || len(tags) != 1 {
		t.Fatalf("assign prod to the first build: build %s tags %v err %v", buildID, tags, err)
	}
	list, err := e.c.ListTemplateTags(e.ctx, res.TemplateID)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tg := range list {
		if tg.Tag == "prod" {
			found = tg.BuildID == res.BuildID
		}
	}
	if !found {
		t.Errorf("tags %+v: want prod on %s", list, res.BuildID)
	}
	if err := e.c.RemoveTemplateTags(e.ctx, name, []string{"prod"}); err != nil {
		t.Fatalf("remove prod: %v", err)
	}
	exists, err := e.c.TemplateExists(e.ctx, "client-e2e")
	if err != nil || !exists {
		t.Errorf("TemplateExists(client-e2e) = %v, %v", exists, err)
	}
	if exists, err := e.c.TemplateExists(e.ctx, "never-built"); err != nil || exists {
		t.Errorf("TemplateExists(never-built) = %v, %v", exists, err)
	}
}

func TestEmulatorBuildTemplateFailureNamesStep(t *testing.T) {
	e := newEnv(t)
	spec := e2b.TemplateBuildSpec{
		Name: "client-fails", FromTemplate: "base",
		Steps: []e2b.BuildStep{
			e2b.RunStep("echo preparing", ""),
			e2b.RunStep("echo about to fail >&2; exit 3", ""),
		},
	}
	_, err := e.c.BuildTemplate(e.ctx, spec, followFast)
	var bf *e2b.BuildFailedError
	if !errors.As(err, &bf) {
		t.Fatalf("error %v, want a failed build", err)
	}
	if bf.Step != "2" || !strings.Contains(err.Error(), "exit 3") || !strings.Contains(err.Error(), "about to fail") {
		t.Errorf("failure %q (step %q): want step 2, its command and its last lines", err, bf.Step)
	}
	_ = e.c.DeleteTemplate(e.ctx, bf.TemplateID)
}
