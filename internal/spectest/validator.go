package spectest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2bspec"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// maxValidatedBody bounds the JSON bodies read for validation.
const maxValidatedBody = 16 << 20

// Validator is an http.RoundTripper wrapper that checks every request and
// response and records violations.
type Validator struct {
	s    *specs
	mu   sync.Mutex
	errs []string
	seen map[string]int
}

// New returns a Validator for t against the newest specs (those the
// emulator serves); at cleanup it fails t for every recorded violation.
func New(t testing.TB) *Validator {
	t.Helper()
	return NewFor(t, e2bspec.Newest)
}

// NewFor is New against the given set of specs.
func NewFor(t testing.TB, set e2bspec.Set) *Validator {
	t.Helper()
	v := newValidator(require(t, set))
	t.Cleanup(func() { v.AssertClean(t) })
	return v
}

// Set is the set of specs v validates against.
func (v *Validator) Set() e2bspec.Set { return v.s.set }

func newValidator(s *specs) *Validator {
	return &Validator{s: s, seen: map[string]int{}}
}

// Failures returns the violations recorded so far.
func (v *Validator) Failures() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.errs...)
}

// Seen returns how many exchanges were checked per kind ("control",
// "envd", "connect") so tests can prove the validator saw traffic.
func (v *Validator) Seen() map[string]int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.seen)
}

// AssertClean fails t once per recorded violation.
func (v *Validator) AssertClean(t testing.TB) {
	t.Helper()
	for _, e := range v.Failures() {
		t.Errorf("spec violation: %s", e)
	}
}

func (v *Validator) failf(format string, args ...any) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.errs = append(v.errs, fmt.Sprintf(format, args...))
}

func (v *Validator) count(kind string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.seen[kind]++
}

// Wrap returns a RoundTripper that validates traffic through next
// (http.DefaultTransport when nil).
func (v *Validator) Wrap(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{v: v, next: next}
}

// HTTPClient is an *http.Client whose transport validates.
func (v *Validator) HTTPClient() *http.Client {
	return &http.Client{Transport: v.Wrap(nil)}
}

type transport struct {
	v    *Validator
	next http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	switch {
	case strings.HasPrefix(req.URL.Path, "/_emulator"):
		return t.next.RoundTrip(req) // test-only admin API, not E2B's
	case strings.HasPrefix(req.URL.Path, "/_upload/"):
		return t.next.RoundTrip(req) // a signed storage URL (E2B's is a bucket's), not E2B's API
	case isConnectPath(req.URL.Path):
		return t.v.connectRoundTrip(t.next, req)
	case req.Header.Get("E2b-Sandbox-Id") != "" || envdOnlyPath(req.URL.Path):
		return t.v.openAPIRoundTrip(t.next, req, "envd")
	case strings.HasPrefix(req.URL.Path, "/volumecontent/"):
		return t.v.openAPIRoundTrip(t.next, req, "volumecontent")
	default:
		return t.v.openAPIRoundTrip(t.next, req, "control")
	}
}

// envdOnlyPath reports envd REST paths that may arrive without routing
// headers (signed download/upload URLs).
func envdOnlyPath(p string) bool {
	return p == "/files" || p == "/files/compose" || p == "/envs"
}

func label(req *http.Request) string {
	return req.Method + " " + req.URL.Path
}

// openAPIRoundTrip validates an exchange covered by one of the specs.
func (v *Validator) openAPIRoundTrip(next http.RoundTripper, req *http.Request, kind string) (*http.Response, error) {
	v.count(kind)
	router := v.s.controlRouter
	if kind == "volumecontent" {
		router = v.s.volumeRouter
		if req.Header.Get("X-API-Key") != "" {
			v.failf("%s: the E2B API key was sent to the volume-content API, which takes the volume's token", label(req))
		}
	}
	if kind == "envd" {
		router = v.s.envdRouter
		if req.Header.Get("E2b-Sandbox-Id") != "" || req.URL.Query().Get("signature") == "" {
			v.checkEnvdHeaders(req)
		} else if req.Header.Get("X-API-Key") != "" {
			v.failf("%s: the E2B API key was sent to envd", label(req))
		}
	} else if req.Header.Get("E2b-Sandbox-Id") != "" || req.Header.Get("X-Access-Token") != "" {
		v.failf("%s: control-plane request carries envd headers", label(req))
	}

	// Bodies: JSON is read to validate; binary uploads stream untouched.
	var reqBody []byte
	binaryBody := isBinary(req.Header.Get("Content-Type"))
	if req.Body != nil && req.Body != http.NoBody && !binaryBody {
		b, err := io.ReadAll(io.LimitReader(req.Body, maxValidatedBody))
		_ = req.Body.Close()
		if err != nil {
			return nil, err
		}
		reqBody = b
		req = cloneWithBody(req, b)
	}

	matchReq := cloneWithBody(req, reqBody)
	if kind == "control" || kind == "volumecontent" {
		u := *req.URL
		u.Scheme, u.Host = "https", strings.TrimPrefix(controlServer, "https://")
		matchReq.URL = &u
		matchReq.Host = u.Host
	} else {
		u := *req.URL
		u.Scheme, u.Host = "", ""
		matchReq.URL = &u
	}
	route, params, err := router.FindRoute(matchReq)
	if err != nil {
		v.failf("%s (%s): no such operation in the spec: %v", label(req), kind, err)
		return next.RoundTrip(req)
	}
	if route.Operation != nil && route.Operation.Extensions["x-internal"] == true {
		v.failf("%s: operation is internal to E2B", label(req))
	}
	opts := &openapi3filter.Options{
		SkipSettingDefaults: true,
		MultiError:          true,
		ExcludeRequestBody:  binaryBody,
		AuthenticationFunc:  v.authenticate(kind),
	}
	in := &openapi3filter.RequestValidationInput{Request: matchReq, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		v.failf("%s: request does not match the spec: %v", label(req), err)
	}
	if binaryBody {
		v.checkDeclaredRequestType(route, req)
	}

	resp, err := next.RoundTrip(req)
	if err != nil || injectedFault(resp) {
		return resp, err
	}
	v.checkResponse(route, in, req, resp)
	return resp, nil
}

// injectedFault reports an answer made up by the emulator's fault injection
// (it sets this header): a failing proxy's answer, not E2B's, so E2B's spec
// does not describe it.
func injectedFault(resp *http.Response) bool {
	return resp.Header.Get("X-Emulator-Fault") != ""
}

// authenticate accepts the API key on the control plane (any non-empty
// value: wrong keys are a server concern) and envd's token or nothing.
func (v *Validator) authenticate(kind string) openapi3filter.AuthenticationFunc {
	return func(_ context.Context, ai *openapi3filter.AuthenticationInput) error {
		h := ai.RequestValidationInput.Request.Header
		switch ai.SecuritySchemeName {
		case "ApiKeyAuth":
			if h.Get("X-API-Key") == "" {
				return errors.New("X-API-Key missing")
			}
			return nil
		case "VolumeJWT":
			if kind == "volumecontent" && strings.HasPrefix(h.Get("Authorization"), "Bearer ") {
				return nil
			}
			return errors.New("no bearer token (the volume's) in the Authorization header")
		case "AccessTokenAuth":
			if kind == "envd" && h.Get("X-Access-Token") != "" {
				return nil
			}
			return errors.New("not using " + ai.SecuritySchemeName)
		}
		return errors.New("not using " + ai.SecuritySchemeName)
	}
}

func (v *Validator) checkEnvdHeaders(req *http.Request) {
	if req.Header.Get("X-API-Key") != "" {
		v.failf("%s: the E2B API key was sent to envd", label(req))
	}
	if req.Header.Get("E2b-Sandbox-Id") == "" || req.Header.Get("E2b-Sandbox-Port") != "49983" {
		v.failf("%s: envd request without E2b-Sandbox-Id / E2b-Sandbox-Port: 49983 (got %q / %q)",
			label(req), req.Header.Get("E2b-Sandbox-Id"), req.Header.Get("E2b-Sandbox-Port"))
	}
}

func (v *Validator) checkDeclaredRequestType(route *routers.Route, req *http.Request) {
	if route.Operation == nil || route.Operation.RequestBody == nil || route.Operation.RequestBody.Value == nil {
		v.failf("%s: binary body sent to an operation without a request body", label(req))
		return
	}
	mt := mediaType(req.Header.Get("Content-Type"))
	if route.Operation.RequestBody.Value.Content.Get(mt) == nil {
		v.failf("%s: request content type %q is not declared by the spec", label(req), mt)
	}
}

// checkResponse validates status, headers and (for JSON) the body. Binary
// bodies stream to the caller untouched; only their content type is checked.
func (v *Validator) checkResponse(route *routers.Route, in *openapi3filter.RequestValidationInput, req *http.Request, resp *http.Response) {
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options:                &openapi3filter.Options{MultiError: true, IncludeResponseStatus: false},
	}
	ct := resp.Header.Get("Content-Type")
	switch {
	case isBinary(ct) || resp.Header.Get("Content-Encoding") == "gzip":
		out.Options.ExcludeResponseBody = true
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			v.checkDeclaredResponseType(route, req, resp)
		}
		out.SetBodyBytes(nil)
	default:
		b, err := io.ReadAll(io.LimitReader(resp.Body, maxValidatedBody))
		_ = resp.Body.Close()
		if err != nil {
			v.failf("%s: reading the %d response: %v", label(req), resp.StatusCode, err)
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		out.SetBodyBytes(b)
		if resp.StatusCode >= 400 && len(b) > 0 && mediaType(ct) != "application/json" {
			v.failf("%s: %d error body is %q, want application/json {code, message}", label(req), resp.StatusCode, ct)
		}
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		v.failf("%s: %d response does not match the spec: %v", label(req), resp.StatusCode, err)
	}
}

func (v *Validator) checkDeclaredResponseType(route *routers.Route, req *http.Request, resp *http.Response) {
	if route.Operation == nil || route.Operation.Responses == nil {
		return
	}
	r := route.Operation.Responses.Status(resp.StatusCode)
	if r == nil || r.Value == nil {
		return
	}
	mt := mediaType(resp.Header.Get("Content-Type"))
	if r.Value.Content.Get(mt) == nil {
		v.failf("%s: %d response content type %q is not declared by the spec", label(req), resp.StatusCode, mt)
	}
}

func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ct))
	}
	return mt
}

func isBinary(ct string) bool {
	mt := mediaType(ct)
	return mt == "application/octet-stream" || mt == "multipart/form-data"
}

func cloneWithBody(req *http.Request, body []byte) *http.Request {
	c := req.Clone(req.Context())
	if body == nil {
		c.Body = http.NoBody
		c.ContentLength = 0
		return c
	}
	c.Body = io.NopCloser(bytes.NewReader(body))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	c.ContentLength = int64(len(body))
	return c
}
