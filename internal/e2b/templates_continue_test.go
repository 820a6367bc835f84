package e2b_test

import (
	"context"
	"errors"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b"
)

// A build whose run stopped right after E2B created it (before its files
// were uploaded and before it was started) is carried on by the next run:
// the files go up, the build starts and finishes, in the same template and
// under the same build ID, and no other build is made.
func TestContinueTemplateBuildStartsOneNeverStarted(t *testing.T) {
	e := newEnv(t)
	spec := e2b.TemplateBuildSpec{
		Name: "carried-on", New: true, FromTemplate: "base", Context: templateContext(t),
		Steps: []e2b.BuildStep{e2b.CopyStep("app", "/home/user/app", "", 0), e2b.RunStep("cat /home/user/app/hello.txt", "")},
	}
	ctx, stop := context.WithCancel(e.ctx)
	opts := followFast
	opts.OnRequested = func(e2b.TemplateRequested) { stop() }
	res, err := e.c.BuildTemplate(ctx, spec, opts)
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("a run stopped after the request: %+v, %v", res, err)
	}
	st, err := e.c.GetTemplateBuildStatus(e.ctx, res.TemplateID, res.BuildID, e2b.StatusQuery{})
	if err != nil || st.Status != e2b.BuildStatusWaiting {
		t.Fatalf("the stopped build is %v (%v); want it waiting, never started", st, err)
	}

	var lines int
	opts = followFast
	opts.OnLog = func(e2b.BuildLogEntry) { lines++ }
	again, err := e.c.ContinueTemplateBuild(e.ctx, res.TemplateID, res.BuildID, spec, opts)
	if err != nil || again.Status.Status != e2b.BuildStatusReady || again.Uploaded != 1 || lines == 0 {
		t.Fatalf("carried on: %+v, %v (%d log lines)", again, err, lines)
	}
	tpl, err := e.c.GetTemplate(e.ctx, res.TemplateID)
	if err != nil || len(tpl.Builds) != 1 || tpl.Builds[0].BuildID != res.BuildID {
		t.Fatalf("the template has builds %+v (%v); want only %s", tpl, err, res.BuildID)
	}

	// A finished build is only read: nothing is uploaded or started again.
	before := e.srv.Counters().Requests["POST /v2/templates/{id}/builds/{buildID}"]
	done, err := e.c.ContinueTemplateBuild(e.ctx, res.TemplateID, res.BuildID, spec, followFast)
	if err != nil || done.Status.Status != e2b.BuildStatusReady || done.Uploaded+done.Cached != 0 {
		t.Fatalf("a finished build carried on: %+v, %v", done, err)
	}
	if after := e.srv.Counters().Requests["POST /v2/templates/{id}/builds/{buildID}"]; after != before {
		t.Fatalf("a finished build was started again (%d starts, was %d)", after, before)
	}
}
