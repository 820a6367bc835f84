package spectest

import (
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/e2b-terraform/terraform-provider-e2b/internal/e2bspec"
)

// newSelfTest returns a validator whose failures the test inspects itself.
func newSelfTest(t *testing.T, h http.HandlerFunc) (*Validator, *http.Client, string) {
	t.Helper()
	v := newValidator(require(t, e2bspec.Newest))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return v, &http.Client{Transport: v.Wrap(nil)}, srv.URL
}

func do(t *testing.T, c *http.Client, method, url, body string, headers map[string]string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, val := range headers {
		req.Header.Set(k, val)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
}

func expectFailure(t *testing.T, v *Validator, substr string) {
	t.Helper()
	for _, f := range v.Failures() {
		if strings.Contains(f, substr) {
			return
		}
	}
	t.Fatalf("no failure containing %q; got %q", substr, v.Failures())
}

var apiHeaders = map[string]string{"X-API-Key": "e2b_00", "Content-Type": "application/json"}

func TestValidExchangesPass(t *testing.T) {
	v, c, url := newSelfTest(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"sandboxID":"i1","templateID":"base","clientID":"c","envdVersion":"0.6.13"}`))
	})
	do(t, c, "POST", url+"/sandboxes", `{"templateID":"base","timeout":60,"allow_internet_access":true}`, apiHeaders)
	if f := v.Failures(); len(f) != 0 {
		t.Fatalf("valid exchange flagged: %v", f)
	}
	if v.Seen()["control"] != 1 {
		t.Fatalf("seen %v", v.Seen())
	}
}

func TestInvalidRequestAndResponseAreRecorded(t *testing.T) {
	v, c, url := newSelfTest(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_, _ = w.Write([]byte(`{"sandboxID":"i1","templateID":"base"}`)) // clientID, envdVersion missing
	})
	do(t, c, "POST", url+"/sandboxes", `{"timeout":"soon"}`, apiHeaders)
	expectFailure(t, v, "request does not match the spec")
	expectFailure(t, v, "201 response does not match the spec")
	do(t, c, "GET", url+"/no/such/route", "", apiHeaders)
	expectFailure(t, v, "no such operation")
	do(t, c, "GET", url+"/sandboxes/i1", "", map[string]string{})
	expectFailure(t, v, "X-API-Key missing")
}

func envelope(flags byte, payload string) []byte {
	b := make([]byte, 5+len(payload))
	b[0] = flags
	binary.BigEndian.PutUint32(b[1:5], uint32(len(payload)))
	copy(b[5:], payload)
	return b
}

var envdHeaders = map[string]string{"E2b-Sandbox-Id": "i1", "E2b-Sandbox-Port": "49983", "Connect-Protocol-Version": "1"}

func withCT(h map[string]string, ct string) map[string]string {
	out := map[string]string{"Content-Type": ct}
	for k, v := range h {
		out[k] = v
	}
	return out
}

func TestConnectStreamChecks(t *testing.T) {
	v, c, url := newSelfTest(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/connect+json")
		_, _ = w.Write(envelope(0, `{"event":{"data":{"stdout":"aGk="}}}`)) // start must come first
		_, _ = w.Write(envelope(0, `{"event":{"end":{"exited":true}}}`))
		// clean EOF without the end-stream envelope
	})
	do(t, c, "POST", url+"/process.Process/Start", string(envelope(0, `{"process":{"cmd":"ls"}}`)),
		withCT(envdHeaders, "application/connect+json"))
	expectFailure(t, v, "first message is \"data\"")
	expectFailure(t, v, "without the end-stream envelope")
}

func TestConnectUnaryChecks(t *testing.T) {
	v, c, url := newSelfTest(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/Stat") {
			w.WriteHeader(500)
			_, _ = w.Write([]byte(`{"code":"not_found","message":"x"}`)) // wrong status for not_found
			return
		}
		_, _ = w.Write([]byte(`{"entries":[{"name":"a","path":"/a","type":"FILE","size":12}]}`))
	})
	do(t, c, "POST", url+"/filesystem.Filesystem/Stat", `{"path":"/a"}`, withCT(envdHeaders, "application/json"))
	expectFailure(t, v, `Connect code "not_found" sent with HTTP 500`)
	do(t, c, "POST", url+"/filesystem.Filesystem/ListDir", `{"path":"/"}`, withCT(envdHeaders, "application/json"))
	expectFailure(t, v, "int64 size must be a string")
	do(t, c, "POST", url+"/process.Process/SendSignal", `{"process":{"pid":1},"signal":9}`,
		withCT(map[string]string{"E2b-Sandbox-Id": "i1", "E2b-Sandbox-Port": "49983", "X-API-Key": "e2b_00"}, "application/json"))
	expectFailure(t, v, "Connect-Protocol-Version")
	expectFailure(t, v, "API key was sent to envd")
	expectFailure(t, v, "not an enum name")
}

func TestSendInputIsStdinOrPty(t *testing.T) {
	v, c, url := newSelfTest(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	})
	headers := withCT(envdHeaders, "application/json")
	do(t, c, "POST", url+"/process.Process/SendInput", `{"process":{"pid":1},"input":{"pty":"aGk="}}`, headers)
	do(t, c, "POST", url+"/process.Process/SendInput", `{"process":{"pid":1},"input":{"stdin":"aGk="}}`, headers)
	if f := v.Failures(); len(f) != 0 {
		t.Fatalf("valid inputs failed: %q", f)
	}
	do(t, c, "POST", url+"/process.Process/SendInput", `{"process":{"pid":1},"input":{"stdin":"aGk=","pty":"aGk="}}`, headers)
	expectFailure(t, v, "has not exactly one of stdin and pty")
	do(t, c, "POST", url+"/process.Process/SendInput", `{"process":{"pid":1},"input":{"pty":"not base64!"}}`, headers)
	expectFailure(t, v, "pty is not standard base64")
}
