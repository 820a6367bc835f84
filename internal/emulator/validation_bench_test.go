package emulator_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/emulator"
)

// BenchmarkCreateValidated: a sandbox create and kill over HTTP, with the
// control plane's request validation (as the emulator always runs) and
// without it, to show what validating every request costs.
func BenchmarkCreateValidated(b *testing.B) {
	body := []byte(`{"templateID":"base","timeout":300,"secure":true,"metadata":{"app":"bench"},` +
		`"envVars":{"A":"1"},"network":{"allowOut":["1.1.1.1"],"denyOut":["0.0.0.0/0"]}}`)
	for _, validate := range []bool{true, false} {
		name := "validated"
		if !validate {
			name = "unvalidated"
		}
		b.Run(name, func(b *testing.B) {
			srv, err := emulator.Start(emulator.Options{Logf: func(string, ...any) {}})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = srv.Close() })
			emulator.SetRequestValidation(srv, validate)
			hc := &http.Client{}
			do := func(method, path string, body []byte) *http.Response {
				req, err := http.NewRequest(method, srv.APIURL()+path, bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				req.Header.Set("X-API-Key", srv.APIKey())
				req.Header.Set("Content-Type", "application/json")
				resp, err := hc.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				return resp
			}
			b.ReportAllocs()
			for b.Loop() {
				resp := do(http.MethodPost, "/sandboxes", body)
				var sb struct {
					SandboxID string `json:"sandboxID"`
				}
				err := json.NewDecoder(resp.Body).Decode(&sb)
				_ = resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusCreated {
					b.Fatalf("create: %d %v", resp.StatusCode, err)
				}
				resp = do(http.MethodDelete, "/sandboxes/"+sb.SandboxID, nil)
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusNoContent {
					b.Fatalf("kill: %d", resp.StatusCode)
				}
			}
		})
	}
}
