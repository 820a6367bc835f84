package e2b

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2b/buildcontext"
)

func buildContext(t *testing.T) buildcontext.Context {
	return WriteTestContext(t, map[string]string{"app/main.py": "print(1)\n", "app/lib/u.py": "u = 1\n", "requirements.txt": "requests\n"})
}

func buildSpec(tc buildcontext.Context) TemplateBuildSpec {
	return TemplateBuildSpec{
		Name: "py-app", FromTemplate: "base", Context: tc,
		Steps: []BuildStep{
			CopyStep("requirements.txt", "/app/", "", 0),
			RunStep("pip install -r /app/requirements.txt", "root"),
			CopyStep("app", "/app/", "user", 0o755),
			EnvStep([2]string{"A", "1"}, [2]string{"B", "two"}),
			WorkdirStep("/app"),
			UserStep("user"),
		},
		StartCmd: "python main.py", ReadyCmd: ReadyForPort(8000),
	}
}

var fastFollow = BuildOptions{PollInterval: time.Millisecond, MaxPollInterval: 4 * time.Millisecond}

func TestBuildTemplateUploadsMissingFilesAndFollowsLogs(t *testing.T) {
	f := newFakeTemplates(t)
	c := f.client(t)
	tc := buildContext(t)
	var logs []string
	var requested TemplateRequested
	opts := fastFollow
	opts.OnLog = func(l BuildLogEntry) { logs = append(logs, l.Message) }
	opts.OnRequested = func(r TemplateRequested) { requested = r }
	res, err := c.BuildTemplate(context.Background(), buildSpec(tc), opts)
	if err != nil {
		t.Fatalf("BuildTemplate: %v", err)
	}
	if res.Status.Status != BuildStatusReady || res.Uploaded != 2 || res.Cached != 0 {
		t.Errorf("result %+v status %+v, want ready with 2 uploads", res, res.Status)
	}
	if requested.TemplateID != res.TemplateID || requested.BuildID != res.BuildID {
		t.Errorf("OnRequested got %+v, result %+v", requested, res.TemplateRequested)
	}
	if got := strings.Join(logs, ","); got != "line 0,line 1,line 2,line 3,line 4" {
		t.Errorf("logs handed over %q, want every line once in order", got)
	}
	start := f.starts[res.BuildID]
	if start.FromTemplate != "base" || start.StartCmd != "python main.py" || len(start.Steps) != 6 {
		t.Fatalf("start body %+v", start)
	}
	copyStep := start.Steps[2]
	if copyStep.Type != "COPY" || strings.Join(copyStep.Args, "|") != "app|/app/|user|0755" || len(copyStep.FilesHash) != 64 {
		t.Errorf("COPY step sent as %+v", copyStep)
	}
	if got := strings.Join(start.Steps[3].Args, "|"); got != "A|1|B|two" {
		t.Errorf("ENV args %q", got)
	}
	if got := f.files[copyStep.FilesHash]; strings.Join(got, ",") != "app/,app/lib/,app/lib/u.py,app/main.py" {
		t.Errorf("uploaded archive holds %v", got)
	}
	for _, k := range f.uploadKeys {
		if k != "" {
			t.Errorf("the API key was sent to the upload URL")
		}
	}

	// The same context again: a new build of the same template, no upload.
	f.mu.Lock()
	f.uploadKeys = nil
	f.mu.Unlock()
	res2, err := c.BuildTemplate(context.Background(), buildSpec(tc), fastFollow)
	if err != nil {
		t.Fatalf("second BuildTemplate: %v", err)
	}
	if res2.TemplateID != res.TemplateID || res2.BuildID == res.BuildID {
		t.Errorf("second build %s/%s, first %s/%s: want the same template, a new build", res2.TemplateID, res2.BuildID, res.TemplateID, res.BuildID)
	}
	if res2.Uploaded != 0 || res2.Cached != 2 || f.count("PUT upload") != 2 {
		t.Errorf("second build uploaded %d (cached %d), %d uploads in total: want none again", res2.Uploaded, res2.Cached, f.count("PUT upload"))
	}
}

func TestBuildTemplateRequestsPerBuild(t *testing.T) {
	f := newFakeTemplates(t)
	f.perPoll = 100 // the whole log at the first poll
	c := f.client(t)
	spec := buildSpec(buildContext(t))
	if _, err := c.BuildTemplate(context.Background(), spec, fastFollow); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"POST create": 1, "GET link": 2, "PUT upload": 2, "POST start": 1, "GET status": 2}
	for route, n := range want {
		if got := f.count(route); got != n {
			t.Errorf("%s: %d requests, want %d", route, got, n)
		}
	}
}

func TestBuildTemplateFailureNamesStepAndLastLines(t *testing.T) {
	f := newFakeTemplates(t)
	f.fail = &BuildStatusReason{Message: "command exited with code 1", Step: "2", LogEntries: []BuildLogEntry{
		{Message: "Collecting requests"}, {Message: "ERROR: No matching distribution"},
	}}
	c := f.client(t)
	_, err := c.BuildTemplate(context.Background(), buildSpec(buildContext(t)), fastFollow)
	var bf *BuildFailedError
	if !errors.As(err, &bf) {
		t.Fatalf("error %v (%T), want *BuildFailedError", err, err)
	}
	msg := err.Error()
	for _, want := range []string{"step 2 (RUN (as root) pip install -r /app/requirements.txt)", "command exited with code 1", "ERROR: No matching distribution"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
}

func TestBuildTemplateHashesBeforeCreating(t *testing.T) {
	f := newFakeTemplates(t)
	c := f.client(t)
	spec := buildSpec(buildContext(t))
	spec.Steps = append(spec.Steps, CopyStep("missing/", "/x", "", 0))
	_, err := c.BuildTemplate(context.Background(), spec, fastFollow)
	if err == nil || !strings.Contains(err.Error(), "step 7 (COPY missing/)") {
		t.Fatalf("error %v, want one naming the COPY step", err)
	}
	if n := f.count("POST create"); n != 0 {
		t.Errorf("%d builds requested for a context that cannot be hashed", n)
	}
}

func TestBuildTemplateRetriesSafely(t *testing.T) {
	f := newFakeTemplates(t)
	c := f.client(t)
	// The upload answers 503 once and drops the connection once: sent again.
	f.answerError("PUT upload", 503, "busy")
	f.fault("PUT upload", func(w http.ResponseWriter, _ *http.Request) bool { dropConnection(t, w); return true })
	// A status read answers 500 once: read again.
	f.answerError("GET status", 500, "oops")
	// The start takes effect but its answer is lost: settled by the status,
	// never sent twice.
	f.startThen(func(w http.ResponseWriter) { dropConnection(t, w) })
	var logs int
	opts := fastFollow
	opts.OnLog = func(BuildLogEntry) { logs++ }
	res, err := c.BuildTemplate(context.Background(), buildSpec(buildContext(t)), opts)
	if err != nil {
		t.Fatalf("BuildTemplate under faults: %v", err)
	}
	if res.Status.Status != BuildStatusReady || logs != 5 {
		t.Errorf("status %s with %d log lines, want ready with 5", res.Status.Status, logs)
	}
	if n := f.count("POST start"); n != 1 {
		t.Errorf("start sent %d times, want once (the lost answer is settled by the status)", n)
	}
	if n := f.count("PUT upload"); n != 4 {
		t.Errorf("%d upload attempts, want 4 (2 file sets, one of them 3 times)", n)
	}
}

// A gateway answers 502 to a start that took effect behind it: the retry is
// refused as already started, and the status settles that the build runs.
func TestBuildTemplateStartHiddenByAGatewayError(t *testing.T) {
	f := newFakeTemplates(t)
	c := f.client(t)
	f.startThen(func(w http.ResponseWriter) { writeJSON(w, 502, `{"code":502,"message":"bad gateway"}`) })
	res, err := c.BuildTemplate(context.Background(), buildSpec(buildContext(t)), fastFollow)
	if err != nil {
		t.Fatalf("BuildTemplate after a start hidden by a 502: %v", err)
	}
	if res.Status.Status != BuildStatusReady {
		t.Errorf("status %s, want ready", res.Status.Status)
	}
	if n := f.count("POST start"); n != 2 {
		t.Errorf("start sent %d times, want twice (the retry of the 502, refused)", n)
	}
}

// A start E2B refuses for a build that never started stays an error.
func TestBuildTemplateRefusedStartStaysAnError(t *testing.T) {
	f := newFakeTemplates(t)
	c := f.client(t)
	f.answerError("POST start", 400, "step 1 is invalid")
	_, err := c.BuildTemplate(context.Background(), buildSpec(buildContext(t)), fastFollow)
	if err == nil || !strings.Contains(err.Error(), "step 1 is invalid") {
		t.Fatalf("error %v, want E2B's refusal", err)
	}
	if n := f.count("POST start"); n != 1 {
		t.Errorf("start sent %d times, want once", n)
	}
}

func TestBuildTemplateRequestIsNotReplayedAfterServerError(t *testing.T) {
	f := newFakeTemplates(t)
	c := f.client(t)
	f.answerError("POST create", 500, "db down")
	_, err := c.BuildTemplate(context.Background(), buildSpec(buildContext(t)), fastFollow)
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("error %v, want the 500", err)
	}
	if n := f.count("POST create"); n != 1 {
		t.Errorf("build requested %d times, want once", n)
	}
}

func TestFollowTemplateBuildStopsOnCancel(t *testing.T) {
	f := newFakeTemplates(t)
	f.perPoll = 0 // never finishes
	c := f.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	var req TemplateRequested
	opts := BuildOptions{PollInterval: 5 * time.Millisecond, MaxPollInterval: 10 * time.Millisecond, OnRequested: func(r TemplateRequested) { req = r }}
	done := make(chan error, 1)
	go func() {
		_, err := c.BuildTemplate(ctx, buildSpec(buildContext(t)), opts)
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for f.count("GET status") < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("BuildTemplate kept following after cancel")
	}
	polls := f.count("GET status")
	time.Sleep(50 * time.Millisecond)
	if f.count("GET status") != polls {
		t.Error("status polls continued after BuildTemplate returned")
	}
	if req.BuildID == "" {
		t.Error("OnRequested was not called before following")
	}
}

func TestFollowTemplateBuildBacksOffAndReadsFullPagesAtOnce(t *testing.T) {
	f := newFakeTemplates(t)
	f.script = nil
	for i := 0; i < 250; i++ {
		f.script = append(f.script, BuildLogEntry{Message: "l"})
	}
	f.perPoll = 250 // released all at once: three pages
	c := f.client(t)
	if err := c.StartTemplateBuild(context.Background(), "tpl", "b1", TemplateBuildStart{FromTemplate: "base"}); err != nil {
		t.Fatal(err)
	}
	n := 0
	// An hour between polls: following ends only if full pages are read at once.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := c.FollowTemplateBuild(ctx, "tpl", "b1", FollowOptions{
		OnLog: func(BuildLogEntry) { n++ }, PollInterval: time.Hour, MaxPollInterval: time.Hour,
	})
	if err != nil {
		t.Fatalf("follow: %v (a full page waited for the poll interval)", err)
	}
	if n != 250 || st.Status != BuildStatusReady {
		t.Errorf("%d entries, status %s; want 250, ready", n, st.Status)
	}
	if polls := f.count("GET status"); polls != 4 {
		t.Errorf("%d polls for 250 entries, want 3 pages and an empty one", polls)
	}
}

// httptestDiscard is a ResponseWriter that throws the answer away.
type httptestDiscard struct{}

func (httptestDiscard) Header() http.Header         { return http.Header{} }
func (httptestDiscard) Write(b []byte) (int, error) { return len(b), nil }
func (httptestDiscard) WriteHeader(int)             {}

func TestTemplateExistsLikeTheSDK(t *testing.T) {
	rs := newRouteServer(t, map[string]http.HandlerFunc{
		"GET /templates/aliases/theirs": answerJSON(403, `{"code":403,"message":"You don't have access to sandbox template 'theirs'"}`),
		"GET /templates/aliases/nobody": answerJSON(404, `{"code":404,"message":"template 'nobody' not found"}`),
		"GET /templates/aliases/mine":   answerJSON(200, `{"templateID":"tpl1","public":false}`),
	})
	c := newTestClient(t, fastConfig(rs.URL))
	for name, want := range map[string]bool{"theirs": true, "nobody": false, "mine": true} {
		got, err := c.TemplateExists(context.Background(), name)
		if err != nil || got != want {
			t.Errorf("TemplateExists(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
}
