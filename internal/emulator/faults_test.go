package emulator_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/emulatortest"
	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator/httpjson"
)

func TestFaultStatusesAndRoutes(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	sb := c.Create(map[string]any{})
	c.Srv.SetFaults(emulator.Faults{ErrorRate: 1, Statuses: []int{429}, Routes: []string{"GET /sandboxes/{id}"}, Seed: 1})
	st, data, hdr := c.API("GET", "/sandboxes/"+sb.SandboxID, nil)
	if st != 429 || hdr.Get("Retry-After") != "1" || emulatortest.Decode[httpjson.ErrorJSON](t, data).Message != "Rate limit exceeded" {
		t.Fatalf("429 fault: %d %v %s", st, hdr, data)
	}
	st, data, _ = c.API("GET", "/v2/sandboxes", nil) // not in Routes
	emulatortest.WantStatus(t, "unfaulted route", st, data, http.StatusOK)
	st, data, _ = c.Request("GET", c.Srv.APIURL()+"/_emulator/counters", nil, nil) // admin is exempt
	emulatortest.WantStatus(t, "counters", st, data, http.StatusOK)
	counters := emulatortest.Decode[emulator.Counters](t, data)
	if counters.Requests["GET /sandboxes/{id}"] != 1 || counters.Requests["POST /sandboxes"] != 1 || counters.SandboxesAlive != 1 {
		t.Fatalf("counters %+v", counters)
	}

	// "envd" selects every envd route; admin PUT uses the same JSON.
	body, _ := json.Marshal(emulator.Faults{ErrorRate: 1, Statuses: []int{503}, Routes: []string{"envd"}})
	st, data, _ = c.Request("PUT", c.Srv.APIURL()+"/_emulator/faults", json.RawMessage(body), nil)
	emulatortest.WantStatus(t, "put faults", st, data, http.StatusNoContent)
	st, data, _ = c.Request("GET", c.Srv.SandboxURL()+"/health", nil, emulatortest.EnvdHeaders(sb))
	emulatortest.WantStatus(t, "envd fault", st, data, http.StatusServiceUnavailable)
	st, data, _ = c.API("GET", "/sandboxes/"+sb.SandboxID, nil)
	emulatortest.WantStatus(t, "control plane unaffected", st, data, http.StatusOK)
	st, data, _ = c.Request("GET", c.Srv.APIURL()+"/health", nil, nil)
	emulatortest.WantStatus(t, "health exempt", st, data, http.StatusOK)
	if n := c.Srv.Counters().Requests["envd GET /health"]; n != 1 {
		t.Fatalf("envd GET /health counted %d times", n)
	}

	c.Srv.SetFaults(emulator.Faults{DropRate: 1, Routes: []string{"GET /v2/sandboxes"}})
	req, _ := http.NewRequest("GET", c.Srv.APIURL()+"/v2/sandboxes", nil)
	req.Header.Set(emulatortest.HeaderAPIKey, c.Srv.APIKey())
	if resp, err := c.HC.Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("dropped request got a response: %d", resp.StatusCode)
	}
	c.Srv.SetFaults(emulator.Faults{})
	// A 429, a 503 and the drop (which Go's client may retry once on a reused connection).
	if n := c.Srv.Counters().FaultsInjected; n < 3 || n > 4 {
		t.Fatalf("FaultsInjected = %d, want 3 or 4", n)
	}
	c.Srv.ResetCounters()
	if len(c.Srv.Counters().Requests) != 0 {
		t.Fatal("ResetCounters left requests")
	}
}

func TestDropAfterCreateStillCreates(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	c.Srv.SetFaults(emulator.Faults{DropAfterCreate: 1})
	for _, path := range []string{"/sandboxes", "/v2/sandboxes"} {
		req, _ := http.NewRequest("POST", c.Srv.APIURL()+path, bytes.NewReader([]byte(`{"templateID":"base","metadata":{"token":"t1"}}`)))
		req.Header.Set(emulatortest.HeaderAPIKey, c.Srv.APIKey())
		req.Header.Set("Content-Type", "application/json")
		if resp, err := c.HC.Do(req); err == nil {
			_ = resp.Body.Close()
			t.Fatalf("%s: create answered %d despite DropAfterCreate", path, resp.StatusCode)
		}
	}
	c.Srv.SetFaults(emulator.Faults{})
	if got := c.Srv.Counters(); got.SandboxesCreated != 2 || got.SandboxesAlive != 2 || got.FaultsInjected != 2 {
		t.Fatalf("counters after dropped creates %+v", got)
	}
	st, data, _ := c.API("GET", "/v2/sandboxes?metadata=token%3Dt1", nil)
	if st != 200 || strings.Count(string(data), `"sandboxID"`) != 2 {
		t.Fatalf("list by token: %d %s", st, data)
	}
}

func TestErrorRateIsAFraction(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	c.Srv.SetFaults(emulator.Faults{ErrorRate: 0.5, Statuses: []int{500, 503}, Routes: []string{"GET /v2/sandboxes"}, Seed: 42})
	failed := 0
	for i := 0; i < 200; i++ {
		if st, _, _ := c.API("GET", "/v2/sandboxes", nil); st != 200 {
			if st != 500 && st != 503 {
				t.Fatalf("unexpected status %d", st)
			}
			failed++
		}
	}
	if failed < 50 || failed > 150 {
		t.Fatalf("%d of 200 requests failed with ErrorRate 0.5", failed)
	}
}

func TestFaultsJSON(t *testing.T) {
	var f emulator.Faults
	if err := json.Unmarshal([]byte(`{"latency":"250ms","errorRate":0.5,"routes":["envd"]}`), &f); err != nil || f.Latency.Milliseconds() != 250 || f.ErrorRate != 0.5 || f.Routes[0] != "envd" {
		t.Fatalf("string latency: %+v %v", f, err)
	}
	data, _ := json.Marshal(emulator.Faults{Latency: 3, Statuses: []int{429}})
	var back emulator.Faults
	if err := json.Unmarshal(data, &back); err != nil || back.Latency != 3 || back.Statuses[0] != 429 {
		t.Fatalf("round trip %s: %+v %v", data, back, err)
	}
	if err := json.Unmarshal([]byte(`{"latency":"soon"}`), &f); err == nil {
		t.Fatal("bad latency accepted")
	}
}

func TestLatencyComesBeforeHandling(t *testing.T) {
	t.Parallel()
	c := emulatortest.Start(t, emulator.Options{})
	c.Srv.SetFaults(emulator.Faults{Latency: time.Hour, Routes: []string{"POST /sandboxes"}})
	client := &http.Client{Timeout: 300 * time.Millisecond}
	req, _ := http.NewRequest("POST", c.Srv.APIURL()+"/sandboxes", bytes.NewReader([]byte(`{"templateID":"base"}`)))
	req.Header.Set(emulatortest.HeaderAPIKey, c.Srv.APIKey())
	if resp, err := client.Do(req); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("delayed create answered %d", resp.StatusCode)
	}
	if got := c.Srv.Counters(); got.SandboxesCreated != 0 || got.Requests["POST /sandboxes"] != 1 {
		t.Fatalf("counters %+v: the create must not run before its latency", got)
	}
	c.Srv.SetFaults(emulator.Faults{})
}
