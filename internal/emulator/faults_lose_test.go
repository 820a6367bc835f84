package emulator_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
)

// TestLoseAnswerCarriesOutAnyRoute: on every route it names, a LoseAnswer
// fault lets the request take effect and then loses the answer, by a cut
// connection or by a gateway's 504; the object exists afterwards.
func TestLoseAnswerCarriesOutAnyRoute(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
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
		how := []string{emulator.LostDrop, emulator.LostGateway}[i%2]
		c.Srv.SetFaults(emulator.Faults{LoseAnswer: 1, LostAs: []string{how}, Routes: []string{tc.route}})
		status, err := c.Send("POST", tc.path, tc.body)
		switch {
		case how == emulator.LostDrop && err == nil:
			t.Fatalf("%s: answered %d although its answer was to be cut", tc.route, status)
		case how == emulator.LostGateway && (err != nil || status != http.StatusGatewayTimeout):
			t.Fatalf("%s: %d %v, want the gateway's 504", tc.route, status, err)
		}
		c.Srv.SetFaults(emulator.Faults{})
		st, data, _ := c.API("GET", tc.list, nil)
		if st != http.StatusOK || strings.Count(string(data), tc.marker) != 1 {
			t.Fatalf("%s (%s): the request must have taken effect exactly once; %s lists %d %s", tc.route, how, tc.list, st, data)
		}
	}
	if n := c.Srv.Counters().FaultsInjected; n != len(creates) {
		t.Fatalf("FaultsInjected = %d, want %d", n, len(creates))
	}
}

// TestLoseAnswerSparesEnvdAndOtherRoutes: the fault touches only the routes
// it names, never envd, and the admin API sets it with the same JSON.
func TestLoseAnswerSparesEnvdAndOtherRoutes(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	body := []byte(`{"loseAnswer":1,"lostAs":["gateway"],"routes":["POST /volumes"]}`)
	st, data, _ := c.Request("PUT", c.Srv.APIURL()+"/_emulator/faults", json.RawMessage(body), nil)
	emulatortest.WantStatus(t, "put faults", st, data, http.StatusNoContent)
	st, data, _ = c.API("POST", "/secrets", map[string]any{"name": "kept", "value": "v"})
	emulatortest.WantStatus(t, "a route the fault does not name", st, data, http.StatusCreated)
	st, data, _ = c.API("POST", "/volumes", map[string]any{"name": "v1"})
	emulatortest.WantStatus(t, "the named route", st, data, http.StatusGatewayTimeout)

	c.Srv.SetFaults(emulator.Faults{LoseAnswer: 1})
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/health", nil, emulatortest.EnvdHeaders(sb))
	emulatortest.WantStatus(t, "envd under LoseAnswer for every route", st, data, http.StatusNoContent)
	c.Srv.SetFaults(emulator.Faults{})

	for _, bad := range []string{`{"loseAnswer":2}`, `{"loseAnswer":1,"lostAs":["later"]}`} {
		st, data, _ = c.Request("PUT", c.Srv.APIURL()+"/_emulator/faults", json.RawMessage(bad), nil)
		emulatortest.WantStatus(t, "refused faults "+bad, st, data, http.StatusBadRequest)
	}
}

// TestAnswerDelayHoldsAnAnswerThatTookEffect: the request is carried out at
// once and only its answer waits; a client that gives up meanwhile leaves
// the object behind, one that waits gets the answer.
func TestAnswerDelayHoldsAnAnswerThatTookEffect(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	body := []byte(`{"answerDelay":"1h","routes":["POST /volumes"]}`)
	st, data, _ := c.Request("PUT", c.Srv.APIURL()+"/_emulator/faults", json.RawMessage(body), nil)
	emulatortest.WantStatus(t, "put faults", st, data, http.StatusNoContent)
	impatient := &http.Client{Timeout: 300 * time.Millisecond}
	req, _ := http.NewRequest("POST", c.Srv.APIURL()+"/volumes", strings.NewReader(`{"name":"held"}`))
	req.Header.Set(emulatortest.HeaderAPIKey, c.Srv.APIKey())
	req.Header.Set("Content-Type", "application/json")
	if resp, err := impatient.Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("held answer arrived: %d", resp.StatusCode)
	}
	c.Srv.SetFaults(emulator.Faults{AnswerDelay: 10 * time.Millisecond, Routes: []string{"POST /volumes"}})
	st, data, _ = c.API("POST", "/volumes", map[string]any{"name": "late"})
	emulatortest.WantStatus(t, "answer after the delay", st, data, http.StatusCreated)
	c.Srv.SetFaults(emulator.Faults{})
	_, data, _ = c.API("GET", "/volumes", nil)
	if !strings.Contains(string(data), `"held"`) || !strings.Contains(string(data), `"late"`) {
		t.Fatalf("volumes %s: both creates must have taken effect", data)
	}
}
