package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestLoseAnswerCarriesOutAnyRoute: on every route it names, a LoseAnswer
// fault lets the request take effect and then loses the answer, by a cut
// connection or by a gateway's 504; the object exists afterwards.
func TestLoseAnswerCarriesOutAnyRoute(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	creates := []struct {
		route, path string
		body        any
		list        string // where the object shows up afterwards
		marker      string // what the listing then contains
	}{
		{"POST /volumes", "/volumes", map[string]any{"name": "lost-vol"}, "/volumes", `"lost-vol"`},
		{"POST /secrets", "/secrets", map[string]any{"name": "lost-sec", "value": "v"}, "/secrets", `"lost-sec"`},
		{"POST /events/webhooks", "/events/webhooks", map[string]any{"name": "lost-hook", "url": "http://127.0.0.1:1/h",
			"events": []string{"sandbox.lifecycle.killed"}, "signatureSecret": "s"}, "/events/webhooks", `"lost-hook"`},
		{"POST /sandboxes/{id}/snapshots", "/sandboxes/" + sb.SandboxID + "/snapshots", map[string]any{"name": "lost-snap"},
			"/snapshots?sandboxID=" + sb.SandboxID, `"snapshotID"`},
		{"POST /sandboxes", "/sandboxes", map[string]any{"templateID": "base", "metadata": map[string]string{"lost": "yes"}},
			"/v2/sandboxes?metadata=lost%3Dyes", `"sandboxID"`},
	}
	for i, tc := range creates {
		how := []string{LostDrop, LostGateway}[i%2]
		c.srv.SetFaults(Faults{LoseAnswer: 1, LostAs: []string{how}, Routes: []string{tc.route}})
		status, err := c.send("POST", tc.path, tc.body)
		switch {
		case how == LostDrop && err == nil:
			t.Fatalf("%s: answered %d although its answer was to be cut", tc.route, status)
		case how == LostGateway && (err != nil || status != http.StatusGatewayTimeout):
			t.Fatalf("%s: %d %v, want the gateway's 504", tc.route, status, err)
		}
		c.srv.SetFaults(Faults{})
		st, data, _ := c.api("GET", tc.list, nil)
		if st != http.StatusOK || strings.Count(string(data), tc.marker) != 1 {
			t.Fatalf("%s (%s): the request must have taken effect exactly once; %s lists %d %s", tc.route, how, tc.list, st, data)
		}
	}
	if n := c.srv.Counters().FaultsInjected; n != len(creates) {
		t.Fatalf("FaultsInjected = %d, want %d", n, len(creates))
	}
}

// TestLoseAnswerSparesEnvdAndOtherRoutes: the fault touches only the routes
// it names, never envd, and the admin API sets it with the same JSON.
func TestLoseAnswerSparesEnvdAndOtherRoutes(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	sb := c.create(map[string]any{})
	body := []byte(`{"loseAnswer":1,"lostAs":["gateway"],"routes":["POST /volumes"]}`)
	st, data, _ := c.request("PUT", c.srv.APIURL()+"/_emulator/faults", json.RawMessage(body), nil)
	wantStatus(t, "put faults", st, data, http.StatusNoContent)
	st, data, _ = c.api("POST", "/secrets", map[string]any{"name": "kept", "value": "v"})
	wantStatus(t, "a route the fault does not name", st, data, http.StatusCreated)
	st, data, _ = c.api("POST", "/volumes", map[string]any{"name": "v1"})
	wantStatus(t, "the named route", st, data, http.StatusGatewayTimeout)

	c.srv.SetFaults(Faults{LoseAnswer: 1})
	st, data, _ = c.request("GET", c.srv.SandboxURL()+"/health", nil, envdHeaders(sb))
	wantStatus(t, "envd under LoseAnswer for every route", st, data, http.StatusNoContent)
	c.srv.SetFaults(Faults{})

	for _, bad := range []string{`{"loseAnswer":2}`, `{"loseAnswer":1,"lostAs":["later"]}`} {
		st, data, _ = c.request("PUT", c.srv.APIURL()+"/_emulator/faults", json.RawMessage(bad), nil)
		wantStatus(t, "refused faults "+bad, st, data, http.StatusBadRequest)
	}
}

// send is api without failing on a transport error: a lost answer is one.
func (c *testClient) send(method, path string, body any) (int, error) {
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, c.srv.APIURL()+path, bytes.NewReader(data))
	req.Header.Set(hdrAPIKey, c.srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

// TestAnswerDelayHoldsAnAnswerThatTookEffect: the request is carried out at
// once and only its answer waits; a client that gives up meanwhile leaves
// the object behind, one that waits gets the answer.
func TestAnswerDelayHoldsAnAnswerThatTookEffect(t *testing.T) {
	t.Parallel()
	c := startTestServer(t, Options{})
	body := []byte(`{"answerDelay":"1h","routes":["POST /volumes"]}`)
	st, data, _ := c.request("PUT", c.srv.APIURL()+"/_emulator/faults", json.RawMessage(body), nil)
	wantStatus(t, "put faults", st, data, http.StatusNoContent)
	impatient := &http.Client{Timeout: 300 * time.Millisecond}
	req, _ := http.NewRequest("POST", c.srv.APIURL()+"/volumes", strings.NewReader(`{"name":"held"}`))
	req.Header.Set(hdrAPIKey, c.srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	if resp, err := impatient.Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("held answer arrived: %d", resp.StatusCode)
	}
	c.srv.SetFaults(Faults{AnswerDelay: 10 * time.Millisecond, Routes: []string{"POST /volumes"}})
	st, data, _ = c.api("POST", "/volumes", map[string]any{"name": "late"})
	wantStatus(t, "answer after the delay", st, data, http.StatusCreated)
	c.srv.SetFaults(Faults{})
	_, data, _ = c.api("GET", "/volumes", nil)
	if !strings.Contains(string(data), `"held"`) || !strings.Contains(string(data), `"late"`) {
		t.Fatalf("volumes %s: both creates must have taken effect", data)
	}
}
