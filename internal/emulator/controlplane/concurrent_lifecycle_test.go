package controlplane_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/sandboxes"
)

// answer is one HTTP answer, or the error that replaced it.
type answer struct {
	status int
	body   []byte
	err    error
}

// fire sends n copies of the request at once and returns their answers.
func fire(c *emulatortest.Client, n int, method, path string, body any) []answer {
	out := make([]answer, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range out {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			out[i] = send(c, method, path, body)
		}()
	}
	start.Done()
	done.Wait()
	return out
}

// send is one control-plane request that reports a transport error instead of failing the
// test, so that goroutines may call it.
func send(c *emulatortest.Client, method, path string, body any) answer {
	var rd io.Reader = http.NoBody
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.Srv.APIURL()+path, rd)
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set(emulatortest.HeaderAPIKey, c.Srv.APIKey())
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HC.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: data, err: err}
}

// lifecycleEvents counts the sandbox's lifecycle events of type typ.
func lifecycleEvents(t *testing.T, c *emulatortest.Client, id, typ string) int {
	t.Helper()
	st, data, _ := c.API("GET", "/events/sandboxes/"+id+"?limit=100", nil)
	emulatortest.WantStatus(t, "events", st, data, http.StatusOK)
	return strings.Count(string(data), `"`+typ+`"`)
}

// E2B's server (e2b-dev/infra tests/integration: "test concurrent pauses", "concurrent
// resumes - not returning early") makes a pause or resume that arrives during one of the
// same sandbox wait for it and answer with its result: every caller of a burst succeeds,
// and the sandbox changes state once.
func TestConcurrentPausesAndResumesShareOneTransition(t *testing.T) {
	t.Parallel()
	// Long enough that every request of a burst arrives during the transition, even on a busy host.
	c := emulatortest.Start(t, emulator.Options{TransitionTime: 2 * time.Second})
	sb := c.Create(map[string]any{"timeout": 300})
	const n = 5

	for i, a := range fire(c, n, "POST", "/sandboxes/"+sb.SandboxID+"/pause", nil) {
		if a.err != nil || a.status != http.StatusNoContent {
			t.Fatalf("pause %d of a burst: %d %s %v, want 204 for every one (E2B's)", i, a.status, a.body, a.err)
		}
	}
	if d := c.Detail(sb.SandboxID); d.State != sandboxes.Paused {
		t.Fatalf("state after the pauses = %s", d.State)
	}
	if got := lifecycleEvents(t, c, sb.SandboxID, sandboxes.EvPaused); got != 1 {
		t.Fatalf("%d paused events for one burst of pauses, want 1", got)
	}
	// Once the pause has answered, another is refused: it meets no transition.
	st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/pause", nil)
	emulatortest.WantStatus(t, "pause of a paused sandbox", st, data, http.StatusConflict)

	resumes := fire(c, n, "POST", "/sandboxes/"+sb.SandboxID+"/resume", map[string]any{"timeout": 300})
	var endAt string
	for i, a := range resumes {
		if a.err != nil || a.status != http.StatusCreated {
			t.Fatalf("resume %d of a burst: %d %s %v, want 201 for every one (E2B's)", i, a.status, a.body, a.err)
		}
		got := emulatortest.Decode[map[string]any](t, a.body)
		if got["sandboxID"] != sb.SandboxID {
			t.Fatalf("resume %d answered sandbox %v", i, got["sandboxID"])
		}
		// Every caller gets the one resume's sandbox, so the same end.
		if e, _ := got["endAt"].(string); endAt == "" {
			endAt = e
		} else if e != endAt {
			t.Fatalf("resume %d ends at %s, another at %s: more than one resume ran", i, e, endAt)
		}
	}
	if got := lifecycleEvents(t, c, sb.SandboxID, sandboxes.EvResumed); got != 1 {
		t.Fatalf("%d resumed events for one burst of resumes, want 1", got)
	}
	if d := c.Detail(sb.SandboxID); d.State != sandboxes.Running {
		t.Fatalf("state after the resumes = %s", d.State)
	}
	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/resume", map[string]any{"timeout": 300})
	emulatortest.WantStatus(t, "resume of a running sandbox", st, data, http.StatusConflict)
}

// A resume or connect during a pause waits for the pause and then resumes the sandbox (E2B:
// "waits if pausing"); a burst of connects to a paused sandbox resumes it once, and every
// caller is told it was resumed (201).
func TestResumeDuringPauseWaitsThenResumes(t *testing.T) {
	t.Parallel()
	const hold = 2 * time.Second
	c := emulatortest.Start(t, emulator.Options{TransitionTime: hold})
	sb := c.Create(map[string]any{"timeout": 300})

	paused := make(chan answer, 1)
	began := time.Now()
	go func() { paused <- send(c, "POST", "/sandboxes/"+sb.SandboxID+"/pause", nil) }()
	emulatortest.Eventually(t, "the pause to begin", func() bool { return c.Detail(sb.SandboxID).State == sandboxes.Paused })
	st, data, _ := c.API("POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 300})
	emulatortest.WantStatus(t, "connect during a pause", st, data, http.StatusCreated)
	if waited := time.Since(began); waited < hold {
		t.Fatalf("the connect answered %s after the pause began, before the pause ended", waited)
	}
	if a := <-paused; a.err != nil || a.status != http.StatusNoContent {
		t.Fatalf("pause: %d %s %v", a.status, a.body, a.err)
	}
	if d := c.Detail(sb.SandboxID); d.State != sandboxes.Running {
		t.Fatalf("state after pause then connect = %s", d.State)
	}

	st, data, _ = c.API("POST", "/sandboxes/"+sb.SandboxID+"/pause", nil)
	emulatortest.WantStatus(t, "pause", st, data, http.StatusNoContent)
	for i, a := range fire(c, 5, "POST", "/sandboxes/"+sb.SandboxID+"/connect", map[string]any{"timeout": 300}) {
		if a.err != nil || a.status != http.StatusCreated {
			t.Fatalf("connect %d of a burst to a paused sandbox: %d %s %v, want 201", i, a.status, a.body, a.err)
		}
	}
	if got := lifecycleEvents(t, c, sb.SandboxID, sandboxes.EvResumed); got != 2 {
		t.Fatalf("%d resumed events, want 2 (one per resume)", got)
	}
}
