package controlplane

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// createBody is a create as E2B's SDKs send it, with every kind of field.
const createBody = `{"templateID":"base","timeout":300,"autoPause":false,"secure":true,` +
	`"allow_internet_access":true,"metadata":{"app":"bench","owner":"team"},"envVars":{"A":"1","B":"2"},` +
	`"network":{"allowOut":["1.1.1.1"],"denyOut":["0.0.0.0/0"],"allowPublicTraffic":false}}`

func newTestValidator(t testing.TB) *API {
	t.Helper()
	v, err := newRequestValidator()
	if err != nil {
		t.Fatal(err)
	}
	return &API{validator: v}
}

// TestValidationAnswersE2BsMessage: the refusal is E2B's, word for word:
// kin-openapi's first line after E2B's two prefixes, in E2B's error body.
func TestValidationAnswersE2BsMessage(t *testing.T) {
	s := newTestValidator(t)
	for _, c := range []struct{ path, body, want string }{
		{"/sandboxes", `{"templateID":"base","network":{"httpsPorts":[0]}}`,
			`validation error: error in openapi3filter.RequestError: request body has an error: doesn't match schema #/components/schemas/NewSandbox: Error at "/network/httpsPorts/0": number must be at least 1`},
		{"/sandboxes", `{"timeout":60}`,
			`validation error: error in openapi3filter.RequestError: request body has an error: doesn't match schema #/components/schemas/NewSandbox: Error at "/templateID": property "templateID" is missing`},
		{"/sandboxes/i123/connect", `{"timeout":60,"memory":"x"}`,
			`validation error: error in openapi3filter.RequestError: request body has an error: doesn't match schema #/components/schemas/ConnectSandbox: Error at "/memory": value must be a boolean`},
		{"/sandboxes", `{"templateID":`,
			`validation error: error in openapi3filter.RequestError: request body has an error: failed to decode request body: unexpected EOF`},
	} {
		req := httptest.NewRequest(http.MethodPost, c.path, bytes.NewBufferString(c.body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		if s.ValidateRequest(rec, req) {
			t.Errorf("POST %s %s passed validation", c.path, c.body)
			continue
		}
		var got struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil || rec.Code != 400 || got.Code != 400 || got.Message != c.want {
			t.Errorf("POST %s %s:\n got %d %s\nwant 400 %s", c.path, c.body, rec.Code, rec.Body.Bytes(), c.want)
		}
	}
	// A valid request passes with its body intact for the handler.
	req := httptest.NewRequest(http.MethodPost, "/sandboxes", bytes.NewBufferString(createBody))
	req.Header.Set("Content-Type", "application/json")
	if rec := httptest.NewRecorder(); !s.ValidateRequest(rec, req) {
		t.Fatalf("valid create refused: %s", rec.Body.Bytes())
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(req.Body); err != nil || buf.String() != createBody {
		t.Fatalf("the handler would read %q (%v), want the body sent", buf.String(), err)
	}
}

// BenchmarkRequestValidation: what validating a create costs, against the
// router built once at start.
func BenchmarkRequestValidation(b *testing.B) {
	s := newTestValidator(b)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/sandboxes", bytes.NewBufferString(createBody))
		req.Header.Set("Content-Type", "application/json")
		if !s.ValidateRequest(httptest.NewRecorder(), req) {
			b.Fatal("refused")
		}
	}
}

// BenchmarkLoadValidator: what parsing the spec and building its router
// costs (once per process).
func BenchmarkLoadValidator(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loadRequestValidator(); err != nil {
			b.Fatal(err)
		}
	}
}
